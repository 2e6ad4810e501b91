"""Claude Code and Agentao hooks.json files, read strictly into the hooks they configure.

Two file shapes, told apart per file as Agentao 0.5.17 does, each with its host's
matcher semantics (docs/hosts.md lists the sources):

* **Claude Code's nested shape** `{"hooks": {"PreToolUse": [{"matcher": "Bash",
  "hooks": [{"type": "command", ...}]}]}}`: exact names or a `|`-list, an unanchored
  regex otherwise, `*`/empty for all; default timeout 600 s.
* **Agentao's flat shape** `{"hooks": {"PreToolUse": [{"type": "command", ...,
  "matcher": {"toolName": "Bash"}}]}}` (contract `agentao-v1`): a glob over the tool
  name; `prompt` hooks too.

Anything the loader does not understand stops the engine from starting, naming the
file and the field: a hook that loads and never runs would look like protection it is
not. Running what is read is `claude.hosted`'s job.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from policy.errors import SettingsError
from policy.hosts.claude.wire import DEFAULT_TIMEOUT, EVENTS, POINT_EVENTS, TOOL_EVENTS, Shape

__all__ = ["Matcher", "Spec", "read_hooks_file", "settings_error", "type_name"]

_EXACT = re.compile(r"[A-Za-z0-9_|]+")


# -------------------------------------------------------------------------- matchers


class Matcher:
    """Which tool names a configured hook applies to, in its host's own semantics."""

    def __init__(self, text: str, test: Callable[[str], bool]) -> None:
        self.text = text
        self._test = test

    def __call__(self, name: str) -> bool:
        return self._test(name)


_ALL = Matcher("*", lambda _name: True)


def _claude_matcher(pattern: str) -> Matcher:
    """Claude Code: `*`/empty all; letters, digits, `_`, `|` only: exact names; else an
    unanchored regex (`re.error` propagates: a matcher that cannot compile is refused)."""
    if pattern in ("", "*"):
        return _ALL
    if _EXACT.fullmatch(pattern):
        names = frozenset(pattern.split("|"))
        return Matcher(pattern, names.__contains__)
    regex = re.compile(pattern)
    return Matcher(pattern, lambda name: regex.search(name) is not None)


def _agentao_glob(pattern: str) -> Matcher:
    """Agentao's `toolName` glob (agentao/plugins/hooks/_matchers.py): `*` all, no `*`
    exact, one `*` a prefix/suffix test, more than one fnmatch."""
    if pattern == "*":
        return _ALL
    if "*" not in pattern:
        return Matcher(pattern, lambda name: name == pattern)
    parts = pattern.split("*")
    if len(parts) == 2:
        head, tail = parts
        return Matcher(
            pattern,
            lambda name: (
                len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail)
            ),
        )
    return Matcher(pattern, lambda name: fnmatch.fnmatchcase(name, pattern))


# ---------------------------------------------------------------------- configuration


@dataclass(frozen=True, slots=True)
class Spec:
    """One configured handler, validated."""

    shape: Shape
    file: Path
    event: str
    where: str  # PreToolUse[0].hooks[1]
    matcher: Matcher
    kind: Literal["command", "prompt"]
    command: str = ""
    args: tuple[str, ...] | None = None
    timeout: float = 60.0
    text: str = ""  # Agentao `prompt` hooks
    plugin_root: Path = Path()

    @property
    def name(self) -> str:
        return f"{self.shape}:{self.file}:{self.where}"

    @property
    def project_dir(self) -> Path:
        """Where the command runs and what `$CLAUDE_PROJECT_DIR` names: the project the
        hooks file belongs to (`<project>/.claude/settings.json`), else its folder.

        Fixed by the operator's file, never by the call: an agent chooses its own
        working directory, and a command such as `"$CLAUDE_PROJECT_DIR"/.claude/hooks/
        guard.sh` (or a relative path) run from there would run the agent's guard."""
        folder = self.file.resolve().parent
        return folder.parent if folder.name in (".claude", ".agentao", "hooks") else folder


class _Invalid(Exception):
    """A shape error at a field path of a hooks file."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            # json keeps the last one silently; a second "PreToolUse" would drop the first.
            raise ValueError(f"duplicate key {key!r} (only one of them would take effect)")
        seen[key] = value
    return seen


def settings_error(path: Path, message: str) -> SettingsError:
    return SettingsError(f"invalid settings:\n  claude_hooks: {path}: {message}")


def _read(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise settings_error(path, f"cannot read the hooks file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise settings_error(path, f"not UTF-8 text: {exc}") from None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"invalid settings:\n  claude_hooks: {path}:{exc.lineno}:{exc.colno}: "
            f"invalid JSON: {exc.msg}"
        ) from None
    except ValueError as exc:
        raise settings_error(path, f"invalid JSON: {exc}") from None


def _plugin_root(path: Path) -> Path:
    """Where `${CLAUDE_PLUGIN_ROOT}` points: a plugin keeps its hooks in
    `<root>/hooks/hooks.json` (Claude Code, Agentao's auto-discovery) or names a file
    in its root from plugin.json (Agentao)."""
    folder = path.resolve().parent
    return folder.parent if folder.name == "hooks" else folder


def type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _timeout(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise _Invalid(where, f"must be a positive number of seconds, not {value!r}")
    return float(value)


def _string(value: Any, where: str, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise _Invalid(where, f"must be a string, not {type_name(value)}")
    if not empty and not value.strip():
        raise _Invalid(where, "must not be empty")
    return value


def _check_keys(
    obj: Mapping[str, Any], allowed: set[str], where: str, refused: Mapping[str, str]
) -> None:
    for key in obj:
        if key in refused:
            raise _Invalid(f"{where}.{key}", refused[key])
        if key not in allowed:
            raise _Invalid(
                f"{where}.{key}",
                f"unknown field (known: {', '.join(sorted(allowed))})",
            )


def _events(doc: Any) -> tuple[dict[str, Any], str, Any]:
    """The events object, the field-path prefix of its entries, and `contract`."""
    if not isinstance(doc, dict):
        raise _Invalid("(top level)", f"must be a JSON object, not {type_name(doc)}")
    if "hooks" in doc:
        extra = sorted(set(doc) - {"hooks", "description", "contract"})
        if extra:
            raise _Invalid(
                extra[0],
                "unknown top-level field: a hooks file holds `hooks` (and optionally "
                "`description`, `contract`); copy the `hooks` block of a settings file "
                "into a file of its own",
            )
        events = doc["hooks"]
        if not isinstance(events, dict):
            raise _Invalid("hooks", f"must be an object of events, not {type_name(events)}")
        if "description" in doc:
            _string(doc["description"], "description", empty=True)
        return events, "hooks.", doc.get("contract")
    return doc, "", None  # Agentao also reads the bare events object


def _entry_shape(entry: Mapping[str, Any], where: str) -> Shape:
    has_group = "hooks" in entry
    has_type = "type" in entry
    if has_group and has_type:
        raise _Invalid(
            where,
            "has both `hooks` (Claude Code's matcher group) and `type` (Agentao's flat "
            "hook); it must be one or the other",
        )
    if has_group:
        return "claude"
    if has_type:
        return "agentao"
    raise _Invalid(
        where,
        "is neither a matcher group ({matcher, hooks: [...]}) nor a hook ({type, command})",
    )


def _file_shape(events: Mapping[str, Any], prefix: str, contract: Any) -> Shape:
    shapes: dict[Shape, str] = {}
    for event, entries in events.items():
        if isinstance(entries, list):
            for index, entry in enumerate(entries):
                if isinstance(entry, dict):
                    where = f"{prefix}{event}[{index}]"
                    shapes.setdefault(_entry_shape(entry, where), where)
    if len(shapes) > 1:
        raise _Invalid(
            shapes["agentao"],
            f"is an Agentao flat hook, but {shapes['claude']} is a Claude Code matcher "
            "group; one file has one shape (Agentao refuses mixed files too)",
        )
    detected: Shape = next(iter(shapes), "claude")
    if contract is None:
        return detected
    declared: dict[str, Shape] = {
        "agentao-v1": "agentao",
        "claude-code@profile-1": "claude",
        "claude-code": "claude",
    }
    if not isinstance(contract, str) or contract not in declared:
        raise _Invalid(
            "contract", f"unknown contract {contract!r} (known: {', '.join(sorted(declared))})"
        )
    if shapes and declared[contract] != detected:
        raise _Invalid(
            "contract",
            f"{contract!r} does not match the entries, which are in "
            f"{'Claude Code nested' if detected == 'claude' else 'Agentao flat'} shape",
        )
    return declared[contract]


def _check_event(event: str, where: str) -> None:
    """Refuse an event with no point in our chain: a hook that loads and never runs
    would look like protection it is not."""
    if event in POINT_EVENTS:
        return
    if event in EVENTS:
        raise _Invalid(
            where,
            f"event {event!r} has no point in the hookpolicy chain (it runs "
            f"{', '.join(POINT_EVENTS)}); its hooks would never run here. Keep them in the "
            "host's own configuration",
        )
    raise _Invalid(where, f"unknown hook event {event!r} (events: {', '.join(POINT_EVENTS)})")


_CLAUDE_GROUP_KEYS = {"matcher", "hooks"}
_CLAUDE_HANDLER_KEYS = {"type", "command", "args", "timeout", "statusMessage", "onFailure"}
_CLAUDE_REFUSED_FIELDS = {
    "async": "background hooks cannot decide a call; hookpolicy runs every hook in the chain",
    "asyncRewake": "background hooks cannot decide a call; hookpolicy runs every hook in the chain",
    "if": "permission-rule filters (`Bash(rm *)`) are not evaluated here; filter in the "
    "command, or write the rule as a pack rule",
    "once": "a skill-frontmatter field; a hooks file has no session to run a hook once in",
    "shell": "hooks run under /bin/sh -c, as Claude Code runs them; remove the field",
}
_CLAUDE_REFUSED_TYPES = {
    "prompt": "Claude Code's prompt hooks ask an LLM for the decision, which hookpolicy "
    "does not call; write the check as a command hook or a pack rule",
    "agent": "agent hooks run a subagent, which hookpolicy does not have",
    "http": "http hooks are not run by hookpolicy; call the endpoint from a command hook",
    "mcp_tool": "mcp_tool hooks need an MCP client, which hookpolicy does not have",
}
_AGENTAO_HANDLER_KEYS = {"type", "command", "prompt", "matcher", "timeout"}
_AGENTAO_REFUSED_TYPES = {
    "http": "Agentao knows http hooks but does not run them",
    "agent": "Agentao knows agent hooks but does not run them",
}


def _claude_specs(path: Path, events: Mapping[str, Any], prefix: str, root: Path) -> list[Spec]:
    specs: list[Spec] = []
    for event, groups in events.items():
        here = f"{prefix}{event}"
        _check_event(event, here)
        if not isinstance(groups, list):
            raise _Invalid(here, f"must be a list of matcher groups, not {type_name(groups)}")
        for g, group in enumerate(groups):
            gwhere = f"{here}[{g}]"
            if not isinstance(group, dict):
                raise _Invalid(gwhere, f"must be an object, not {type_name(group)}")
            _check_keys(group, _CLAUDE_GROUP_KEYS, gwhere, {})
            matcher = _ALL
            if group.get("matcher") is not None:
                pattern = _string(group["matcher"], f"{gwhere}.matcher", empty=True)
                if event not in TOOL_EVENTS and pattern not in ("", "*"):
                    raise _Invalid(
                        f"{gwhere}.matcher",
                        f"{event} takes no matcher: Claude Code ignores it and runs the hook "
                        "for every prompt. Remove it, or filter in the command",
                    )
                try:
                    matcher = _claude_matcher(pattern)
                except re.error as exc:
                    raise _Invalid(
                        f"{gwhere}.matcher", f"not a valid regular expression: {exc}"
                    ) from None
            handlers = group.get("hooks")
            if not isinstance(handlers, list) or not handlers:
                raise _Invalid(f"{gwhere}.hooks", "must be a non-empty list of hooks")
            for h, handler in enumerate(handlers):
                hwhere = f"{gwhere}.hooks[{h}]"
                if not isinstance(handler, dict):
                    raise _Invalid(hwhere, f"must be an object, not {type_name(handler)}")
                kind = handler.get("type")
                if kind in _CLAUDE_REFUSED_TYPES:
                    raise _Invalid(f"{hwhere}.type", f"{kind!r}: {_CLAUDE_REFUSED_TYPES[kind]}")
                if kind != "command":
                    raise _Invalid(
                        f"{hwhere}.type", f"unknown hook type {kind!r} (hookpolicy runs 'command')"
                    )
                _check_keys(handler, _CLAUDE_HANDLER_KEYS, hwhere, _CLAUDE_REFUSED_FIELDS)
                command = _string(handler.get("command"), f"{hwhere}.command")
                args: tuple[str, ...] | None = None
                if "args" in handler:
                    raw_args = handler["args"]
                    if not isinstance(raw_args, list) or not all(
                        isinstance(a, str) for a in raw_args
                    ):
                        raise _Invalid(f"{hwhere}.args", "must be a list of strings")
                    args = tuple(raw_args)
                if "statusMessage" in handler:
                    _string(handler["statusMessage"], f"{hwhere}.statusMessage", empty=True)
                if handler.get("onFailure", "block") not in ("block", "continue"):
                    # Claude Code 2.1.332's key; in our chain a hook that times out or
                    # crashes denies either way (its failure policy), so both are accepted.
                    raise _Invalid(f"{hwhere}.onFailure", 'must be "block" or "continue"')
                timeout = DEFAULT_TIMEOUT["claude"]
                if "timeout" in handler:
                    timeout = _timeout(handler["timeout"], f"{hwhere}.timeout")
                specs.append(
                    Spec(
                        shape="claude",
                        file=path,
                        event=event,
                        where=hwhere.removeprefix(prefix),
                        matcher=matcher,
                        kind="command",
                        command=command,
                        args=args,
                        timeout=timeout,
                        plugin_root=root,
                    )
                )
    return specs


def _agentao_specs(path: Path, events: Mapping[str, Any], prefix: str, root: Path) -> list[Spec]:
    specs: list[Spec] = []
    for event, handlers in events.items():
        here = f"{prefix}{event}"
        _check_event(event, here)
        if not isinstance(handlers, list):
            raise _Invalid(here, f"must be a list of hooks, not {type_name(handlers)}")
        for h, handler in enumerate(handlers):
            hwhere = f"{here}[{h}]"
            if not isinstance(handler, dict):
                raise _Invalid(hwhere, f"must be an object, not {type_name(handler)}")
            kind = handler.get("type")
            if kind in _AGENTAO_REFUSED_TYPES:
                raise _Invalid(f"{hwhere}.type", f"{kind!r}: {_AGENTAO_REFUSED_TYPES[kind]}")
            if kind not in ("command", "prompt"):
                raise _Invalid(
                    f"{hwhere}.type", f"unknown hook type {kind!r} (Agentao runs command, prompt)"
                )
            _check_keys(handler, _AGENTAO_HANDLER_KEYS, hwhere, {})
            matcher = _agentao_matcher(handler.get("matcher"), event, f"{hwhere}.matcher")
            timeout = DEFAULT_TIMEOUT["agentao"]
            if "timeout" in handler:
                timeout = _timeout(handler["timeout"], f"{hwhere}.timeout")
            where = hwhere.removeprefix(prefix)
            if kind == "prompt":
                if event != "UserPromptSubmit":
                    raise _Invalid(
                        f"{hwhere}.type",
                        f"Agentao runs 'prompt' hooks at UserPromptSubmit only, not at {event}",
                    )
                if "command" in handler:
                    raise _Invalid(f"{hwhere}.command", "a 'prompt' hook has no command")
                text = _string(handler.get("prompt"), f"{hwhere}.prompt")
                specs.append(Spec("agentao", path, event, where, matcher, "prompt", text=text))
                continue
            if "prompt" in handler:
                raise _Invalid(f"{hwhere}.prompt", "a 'command' hook has no prompt")
            command = _string(handler.get("command"), f"{hwhere}.command")
            specs.append(
                Spec(
                    "agentao",
                    path,
                    event,
                    where,
                    matcher,
                    "command",
                    command=command,
                    timeout=timeout,
                    plugin_root=root,
                )
            )
    return specs


def _agentao_matcher(value: Any, event: str, where: str) -> Matcher:
    if value is None:
        return _ALL
    if not isinstance(value, dict):
        raise _Invalid(
            where, f'must be an object like {{"toolName": "Bash"}}, not {type_name(value)}'
        )
    if not value:
        return _ALL
    if event not in TOOL_EVENTS:
        raise _Invalid(
            where,
            f"Agentao reads no matcher at {event} and runs the hook for every prompt; remove it",
        )
    for key in value:
        if key != "toolName":
            raise _Invalid(
                f"{where}.{key}",
                "Agentao reads only `toolName` here; any other key is ignored and the hook "
                "would run for every tool",
            )
    return _agentao_glob(_string(value["toolName"], f"{where}.toolName"))


def read_hooks_file(path: Path) -> list[Spec]:
    """The hooks `path` configures, in file order; SettingsError naming the file and
    the field (or line:col) of the first thing that is wrong."""
    doc = _read(path)
    try:
        events, prefix, contract = _events(doc)
        shape = _file_shape(events, prefix, contract)
        root = _plugin_root(path)
        if shape == "claude":
            return _claude_specs(path, events, prefix, root)
        return _agentao_specs(path, events, prefix, root)
    except _Invalid as exc:
        raise settings_error(path, str(exc)) from None
