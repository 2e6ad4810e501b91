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
not. What a real plugin or settings file carries besides the hooks we run is read and
set aside, named in the file's one warning (`HooksFile.skipped`): events with no point
in our chain (SessionStart, Notification, ...; and names we do not know, which
Claude Code ignores too, unless one looks like a misspelt point event), settings keys
(`permissions`, `statusLine`, ...), and hook types we cannot run (`prompt`, `agent`,
`http`, `mcp_tool`) that the host itself does not run, and fields of a matcher group or
a hook that Claude Code ignores too (`description`, `id`, ...: `HooksFile.ignored`,
with a "did you mean" for a misspelt field). A hook with `"async": true` is read as a
`background` one (Claude Code starts it and does not wait). At an event that runs here such
a type is refused unless the operator chose `skip_unsupported` (the
`claude_hooks_skip_unsupported` setting): before the call it could refuse it, after it
replace the output. Hooks of events that can refuse in Claude Code but have no point
here (PermissionRequest, ...) are listed in `HooksFile.unguarded` for `policy check`.
Running what is read is `claude.hosted`'s job.

`policy check --host` (`claude.mount`) reads a host's settings file through the same
walk of the nested shape, leniently (`nested_commands`: what is not a command hook is
passed over, not refused), with where each value is written (`Located`) for its
diagnostics.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

from policy._lazy_dataclass import dataclass
from policy.errors import SettingsError
from policy.hosts.claude.dialect import AGENTAO, CLAUDE, DIALECTS, Dialect
from policy.hosts.claude.permission_rule import PermissionRule, parse_rule
from policy.hosts.claude.wire import (
    EVENTS,
    GUARD_EVENTS,
    POINT_EVENTS,
    REFUSING_EVENTS,
    TOOL_EVENTS,
)

__all__ = [
    "HooksFile",
    "HooksFileNotJson",
    "Located",
    "Matcher",
    "Spec",
    "nested_commands",
    "read_hooks_file",
    "read_text",
    "settings_error",
    "type_name",
]

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

    dialect: Dialect  # whose file shape it is in: CLAUDE (nested) or AGENTAO (flat)
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
    #: A plugin's hooks file (`<plugin>/hooks/hooks.json`, or a file in a folder with a
    #: plugin manifest): its commands run in the project the call is for, as Claude
    #: Code runs a plugin's hooks, not in the plugin (`project_dir` is None).
    plugin: bool = False
    #: `"async": true`: Claude Code starts it and goes on without waiting; what it
    #: answers decides nothing (`claude.background` runs it so).
    background: bool = False
    #: `"if": "Bash(git push *)"`: the hook runs only for calls the permission rule
    #: matches (`claude.permission_rule`), as Claude Code 2.1.85+ runs it.
    condition: PermissionRule | None = None

    @property
    def name(self) -> str:
        return f"{self.dialect.name}:{self.file}:{self.where}"

    @property
    def project_dir(self) -> Path | None:
        """Where the command runs and what `$CLAUDE_PROJECT_DIR` names, when the hooks
        file fixes it: the project the file belongs to (`<project>/.claude/hooks.json`),
        else its folder. None for a plugin's file, whose hooks run in the project of
        the call (`claude.hosted`: the operator's `workspace`, else our own directory).

        Never the call's cwd: an agent chooses its own working directory, and a command
        such as `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh` (or a relative path) run
        from there would run the agent's guard."""
        if self.plugin:
            return None
        folder = self.file.resolve().parent
        if folder.name == "hooks" and folder.parent.name in _PROJECT_FOLDERS:
            return folder.parent.parent  # <project>/.claude/hooks/hooks.json
        return folder.parent if folder.name in (*_PROJECT_FOLDERS, "hooks") else folder


#: Folders a project keeps its host settings in.
_PROJECT_FOLDERS = tuple(dialect.project_folder for dialect in DIALECTS.values())


@dataclass(frozen=True, slots=True)
class HooksFile:
    """What one hooks file configures: the hooks to run, in file order, and what the
    file holds that is not run here (for one warning naming it all)."""

    path: Path
    specs: list[Spec]
    skipped: list[str]
    #: Events whose hooks could refuse something in the host (REFUSING_EVENTS) and are
    #: not run here, with how many hooks each lists: `policy check` reports them.
    unguarded: dict[str, int]
    #: Fields of matcher groups and hooks that Claude Code ignores and so does the
    #: loader (`description`, `id`, ...), by field path: `policy check` reports them.
    ignored: tuple[str, ...] = ()


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


class HooksFileNotJson(SettingsError):
    """A hooks file that does not parse as JSON (a comment, a trailing comma, a cut
    file). Its own type because neither host runs such a file's hooks and neither
    refuses to start over it (Claude Code 2.1.332 skips a settings.json silently and
    fails a plugin's load; `claude.hosted` does the same unless the operator's
    `claude_hooks_not_json` is `refuse`); `policy check` reports it as an error."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def settings_error(path: Path, message: str) -> SettingsError:
    return SettingsError(f"invalid settings:\n  claude_hooks: {path}: {message}")


def read_text(path: Path) -> str:
    """The text of a settings or hooks file: UTF-8, a byte-order mark dropped. OSError
    when it cannot be read, UnicodeDecodeError when it is not UTF-8."""
    return path.read_bytes().decode("utf-8-sig")


def _read(path: Path) -> Any:
    try:
        text = read_text(path)
    except OSError as exc:
        raise settings_error(path, f"cannot read the hooks file: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise settings_error(path, f"not UTF-8 text: {exc}") from None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise HooksFileNotJson(
            f"invalid settings:\n  claude_hooks: {path}:{exc.lineno}:{exc.colno}: "
            f"invalid JSON: {exc.msg}{_not_json_hint(text, exc.pos)}",
            exc.lineno,
            exc.colno,
        ) from None
    except ValueError as exc:
        raise settings_error(path, f"invalid JSON: {exc}") from None


def _not_json_hint(text: str, pos: int) -> str:
    """Why a JSON error matters when it is a comment or a trailing comma, which some
    editors allow: Claude Code does not load such a file either (2.1.332 and 2.1.197,
    run: a settings.json with a `//` or `/* */` comment or a trailing comma is skipped
    whole and silently, its hooks never run; a plugin's hooks.json fails to load)."""
    rest = text[pos:].lstrip()
    if rest.startswith(("//", "/*")):
        what = "a comment"
    elif rest.startswith(("}", "]")) and text[:pos].rstrip().endswith(","):
        what = "a trailing comma"
    else:
        return ""
    return (
        f" ({what} is not JSON; Claude Code does not load this file either and runs "
        "none of its hooks: remove it for them to run)"
    )


def _plugin_root(path: Path) -> tuple[Path, bool]:
    """Where `${CLAUDE_PLUGIN_ROOT}` points, and whether the file is a plugin's.

    A plugin keeps its hooks in `<root>/hooks/hooks.json` (Claude Code, Agentao's
    auto-discovery) or names a file in its root from its manifest (`plugin.json`,
    Agentao; `.claude-plugin/plugin.json`, Claude Code). A `hooks/` folder inside a
    project's `.claude/` or `.agentao/` is the project's, not a plugin."""
    folder = path.resolve().parent
    if folder.name == "hooks":
        return folder.parent, folder.parent.name not in _PROJECT_FOLDERS
    manifest = (folder / ".claude-plugin" / "plugin.json").is_file() or (
        folder / "plugin.json"
    ).is_file()
    return folder, manifest


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
    obj: Mapping[str, Any],
    allowed: set[str],
    where: str,
    refused: Mapping[str, str],
    ignored: list[str] | None = None,
) -> None:
    """Refuse the `refused` fields (unless false and in _NO_OP_WHEN_FALSE); a field
    outside `allowed` is refused too, or, given `ignored`, added to it by field path
    (Claude Code ignores what it does not know on a matcher group or a hook: plugin
    sets put `description`, `id`, `name` there)."""
    for key in obj:
        if key in refused:
            if key in _NO_OP_WHEN_FALSE and obj[key] is False:
                continue  # `"once": false` asks for what every hook here does
            raise _Invalid(f"{where}.{key}", refused[key])
        if key not in allowed:
            if ignored is not None:
                ignored.append(f"{where}.{key}")
                continue
            raise _Invalid(
                f"{where}.{key}",
                f"unknown field (known: {', '.join(sorted(allowed))})",
            )


#: Refused fields that say nothing when false (real plugins spell the defaults out).
_NO_OP_WHEN_FALSE = frozenset({"once"})


def _events(doc: Any, skipped: list[str]) -> tuple[dict[str, Any], str, Any]:
    """The events object, the field-path prefix of its entries, and `contract`; other
    top-level keys (a settings.json's `permissions`, `statusLine`, ...) go to
    `skipped`."""
    if not isinstance(doc, dict):
        raise _Invalid("(top level)", f"must be a JSON object, not {type_name(doc)}")
    if "hooks" in doc:
        extra = [key for key in doc if key not in ("hooks", "description", "contract")]
        if extra:
            skipped.append(
                f"the settings keys {', '.join(f'`{key}`' for key in extra)} are ignored "
                "(hookpolicy reads only `hooks` of a hooks file)"
            )
        events = doc["hooks"]
        if not isinstance(events, dict):
            raise _Invalid("hooks", f"must be an object of events, not {type_name(events)}")
        if "description" in doc:
            _string(doc["description"], "description", empty=True)
        return events, "hooks.", doc.get("contract")
    return doc, "", None  # Agentao also reads the bare events object


def _entry_shape(entry: Mapping[str, Any], where: str) -> Dialect:
    """The dialect whose file shape `entry` is in: a matcher group is Claude Code's
    nested shape, a hook with a `type` Agentao's flat one."""
    has_group = "hooks" in entry
    has_type = "type" in entry
    if has_group and has_type:
        raise _Invalid(
            where,
            "has both `hooks` (Claude Code's matcher group) and `type` (Agentao's flat "
            "hook); it must be one or the other",
        )
    if has_group:
        return CLAUDE
    if has_type:
        return AGENTAO
    raise _Invalid(
        where,
        "is neither a matcher group ({matcher, hooks: [...]}) nor a hook ({type, command})",
    )


def _file_shape(events: Mapping[str, Any], prefix: str, contract: Any) -> Dialect:
    """The dialect the file is read in: the shape of its entries (nested when it has
    none), or the dialect its `contract` declares, which must have that shape."""
    shapes: dict[bool, str] = {}  # flat or not: the first entry in that shape
    for event, entries in events.items():
        if isinstance(entries, list):
            for index, entry in enumerate(entries):
                if isinstance(entry, dict):
                    where = f"{prefix}{event}[{index}]"
                    shapes.setdefault(_entry_shape(entry, where).flat_payloads, where)
    if len(shapes) > 1:
        raise _Invalid(
            shapes[True],
            f"is an Agentao flat hook, but {shapes[False]} is a Claude Code matcher "
            "group; one file has one shape (Agentao refuses mixed files too)",
        )
    detected = AGENTAO if next(iter(shapes), False) else CLAUDE
    if contract is None:
        return detected
    declared = {name: dialect for dialect in DIALECTS.values() for name in dialect.contracts}
    if not isinstance(contract, str) or contract not in declared:
        raise _Invalid(
            "contract", f"unknown contract {contract!r} (known: {', '.join(sorted(declared))})"
        )
    if shapes and declared[contract].flat_payloads != detected.flat_payloads:
        raise _Invalid(
            "contract",
            f"{contract!r} does not match the entries, which are in "
            f"{detected.display} {'flat' if detected.flat_payloads else 'nested'} shape",
        )
    return declared[contract]


def _runs_here(event: str, where: str) -> bool:
    """Whether the hooks of `event` run in our chain. An event our chain has no point
    for (SessionStart, Notification, ..., and names we do not know: Claude Code ignores those,
    and its newer versions add events) is set aside: its hooks stay the host's
    business. A name that looks like a misspelt point event (`PreToolUze`) is refused:
    its guard would silently never run."""
    if event in POINT_EVENTS:
        return True
    if event in EVENTS:
        return False
    import difflib

    lowered = {name.lower(): name for name in POINT_EVENTS}
    close = difflib.get_close_matches(event.lower(), lowered, n=1, cutoff=_MISSPELT)
    if close:
        raise _Invalid(
            where,
            f"unknown hook event {event!r}: did you mean {lowered[close[0]]!r}? (the "
            f"events that run here: {', '.join(POINT_EVENTS)})",
        )
    return False


#: How alike (difflib's ratio, case ignored) an unknown event name and a point event
#: must be for the name to be taken as a misspelling: `PreToolUze`, `PostToolUses`.
_MISSPELT = 0.8


def _unsupported(
    kind: str,
    why: str,
    event: str,
    where: str,
    skip_unsupported: bool,
    skipped: list[str],
    *,
    host_runs: bool,
) -> None:
    """A hook type we cannot run, at an event that runs here: refused, since at every
    such event a hook the host runs can change what happens (stop the call or the
    prompt, replace or hold back the tool's output), unless the operator chose to skip
    such hooks. A type the host itself does not run (Agentao's `http`) is refused only
    where a guard was clearly meant: it protects nothing in its own host either. At
    Stop one is skipped with the warning: not running it can only let the agent stop
    sooner, and refusing the file would drop its guards too."""
    at_stop = EVENTS.get(event) == "stop"
    if not skip_unsupported and not at_stop and (host_runs or event in GUARD_EVENTS):
        could = (
            "replace or hold back the tool's output"
            if event not in GUARD_EVENTS
            else "refuse the call"
            if event in TOOL_EVENTS
            else "refuse the prompt"
        )
        raise _Invalid(
            f"{where}.type",
            f"{kind!r}: {why}. At {event} it could {could}, so the file is not loaded "
            "without it; set `claude_hooks_skip_unsupported: true` to run the file's "
            "other hooks and skip this one",
        )
    skipped.append(f"not run: {where} (a {kind!r} hook: {why})")


_CLAUDE_GROUP_KEYS = {"matcher", "hooks"}
_CLAUDE_HANDLER_KEYS = {
    "type",
    "command",
    "args",
    "timeout",
    "statusMessage",
    "onFailure",
    "async",
    "asyncRewake",
    "if",
    # asyncRewake's texts for the model when it wakes it: there is no later turn here,
    # so what such a hook says is logged (docs/hosts.md)
    "rewakeMessage",
    "rewakeSummary",
}
_CLAUDE_REFUSED_FIELDS = {
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


class _Reader:
    """One file's reading: where it is, what it set aside, and the operator's choice
    about hook types we cannot run."""

    def __init__(self, path: Path, prefix: str, skip_unsupported: bool, dialect: Dialect) -> None:
        self.path = path
        self.prefix = prefix
        self.dialect = dialect
        self.root, self.plugin = _plugin_root(path)
        self.skip_unsupported = skip_unsupported
        self.skipped: list[str] = []
        self._events_skipped: dict[str, int] = {}
        self.unguarded: dict[str, int] = {}
        self._events_unknown: dict[str, int] = {}
        self.ignored: list[str] = []

    def events(self, events: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
        """(event, its field path, its entries) for the events that run here; the
        others are counted for the warning."""
        kept = []
        for event, entries in events.items():
            here = f"{self.prefix}{event}"
            if _runs_here(event, here):
                kept.append((event, here, entries))
            elif event in REFUSING_EVENTS:
                self.unguarded[event] = _count_hooks(entries)
            elif event in EVENTS:
                self._events_skipped[event] = _count_hooks(entries)
            else:
                self._events_unknown[event] = _count_hooks(entries)
        return kept

    def unsupported(
        self, kind: str, why: str, event: str, where: str, *, host_runs: bool = True
    ) -> None:
        _unsupported(
            kind, why, event, where, self.skip_unsupported, self.skipped, host_runs=host_runs
        )

    def notes(self) -> list[str]:
        notes = []
        if self.unguarded:
            notes.append(
                "hooks that can refuse in the host but have no point in the hookpolicy "
                f"chain are not run: {_counted(self.unguarded)}; what they would refuse is "
                "decided without them (keep them in the host's own settings)"
            )
        if self._events_skipped:
            notes.append(
                "hooks of events with no point in the hookpolicy chain are not run: "
                f"{_counted(self._events_skipped)} (it runs {', '.join(POINT_EVENTS)}; "
                "the host's own configuration runs the others)"
            )
        if self._events_unknown:
            notes.append(
                f"hooks of events hookpolicy does not know are not run: "
                f"{_counted(self._events_unknown)}"
            )
        if self.ignored:
            notes.append(_ignored_note(self.ignored))
        return notes + self.skipped

    def spec(self, **fields: Any) -> Spec:
        return Spec(
            dialect=self.dialect,
            file=self.path,
            plugin_root=self.root,
            plugin=self.plugin,
            **fields,
        )


#: How many field paths the warning names before it counts the rest.
_NAMED_FIELDS = 6
#: The fields a group or a hook may have, for "did you mean" in the warning.
_KNOWN_FIELDS = ("matcher", "hooks", *sorted(_CLAUDE_HANDLER_KEYS))


def _flag(handler: Mapping[str, Any], key: str, where: str) -> bool:
    """A hook's true/false field (`async`, `asyncRewake`); absent is false."""
    value = handler.get(key, False)
    if not isinstance(value, bool):
        raise _Invalid(f"{where}.{key}", f"must be true or false, not {value!r}")
    return value


def _ignored_note(ignored: list[str]) -> str:
    """The warning's sentence about fields Claude Code ignores: their paths (the first
    few), and a guess when one looks like a misspelt field (`matchr`, `timout`),
    which Claude Code ignores too, so its hook runs for every tool or by default."""
    import difflib

    named = ", ".join(ignored[:_NAMED_FIELDS])
    if len(ignored) > _NAMED_FIELDS:
        named += f" and {len(ignored) - _NAMED_FIELDS} more"
    guesses = []
    for path in ignored:
        key = path.rsplit(".", 1)[-1]
        close = difflib.get_close_matches(key, _KNOWN_FIELDS, n=1, cutoff=_MISSPELT)
        if close:
            guesses.append(f"{path}: did you mean `{close[0]}`?")
    note = f"fields Claude Code ignores are ignored here too: {named}"
    return note + (f" ({'; '.join(guesses)})" if guesses else "")


def _counted(events: Mapping[str, int]) -> str:
    return ", ".join(f"{event} ({n} hook{'s' if n != 1 else ''})" for event, n in events.items())


def _count_hooks(entries: Any) -> int:
    """How many hooks a skipped event lists (for the warning; its shape is not checked)."""
    if not isinstance(entries, list):
        return 0
    count = 0
    for entry in entries:
        inner = entry.get("hooks") if isinstance(entry, dict) else None
        count += len(inner) if isinstance(inner, list) else 1
    return count


# ------------------------------------------------------------------ the nested shape


def _groups(groups: Any, here: str, *, strict: bool) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """The matcher groups one event lists in Claude Code's nested shape: (index, field
    path, group). `strict`: what is not a list of objects is refused (at its field
    path); else it is passed over."""
    if not isinstance(groups, list):
        if strict:
            raise _Invalid(here, f"must be a list of matcher groups, not {type_name(groups)}")
        return
    for g, group in enumerate(groups):
        gwhere = f"{here}[{g}]"
        if not isinstance(group, dict):
            if strict:
                raise _Invalid(gwhere, f"must be an object, not {type_name(group)}")
            continue
        yield g, gwhere, group


def _handlers(
    group: Mapping[str, Any], gwhere: str, *, strict: bool
) -> Iterator[tuple[int, str, dict[str, Any]]]:
    """The hooks of one matcher group: (index, field path, hook), refused or passed
    over as `_groups` says."""
    handlers = group.get("hooks")
    if not isinstance(handlers, list) or not handlers:
        if strict:
            raise _Invalid(f"{gwhere}.hooks", "must be a non-empty list of hooks")
        return
    for h, handler in enumerate(handlers):
        hwhere = f"{gwhere}.hooks[{h}]"
        if not isinstance(handler, dict):
            if strict:
                raise _Invalid(hwhere, f"must be an object, not {type_name(handler)}")
            continue
        yield h, hwhere, handler


def nested_commands(
    events: Mapping[str, Any],
) -> Iterator[tuple[str, tuple[str | int, ...], dict[str, Any]]]:
    """Every command hook of an events object in Claude Code's nested shape (a settings
    file's `hooks`), at every event, leniently: what is not a command hook is passed
    over, not refused. (event, its key path in the events object, the hook's object as
    written) — the key path for `Located.at`."""
    for event, groups in events.items():
        for g, gwhere, group in _groups(groups, event, strict=False):
            for h, _hwhere, handler in _handlers(group, gwhere, strict=False):
                if handler.get("type", "command") == "command":
                    yield event, (event, g, "hooks", h), handler


def _nested_specs(reader: _Reader, events: Mapping[str, Any]) -> list[Spec]:
    specs: list[Spec] = []
    for event, here, groups in reader.events(events):
        for _g, gwhere, group in _groups(groups, here, strict=True):
            _check_keys(group, _CLAUDE_GROUP_KEYS, gwhere, {}, reader.ignored)
            matcher = _ALL
            if group.get("matcher") is not None:
                pattern = _string(group["matcher"], f"{gwhere}.matcher", empty=True)
                if event not in TOOL_EVENTS and pattern not in ("", "*"):
                    every = "at every stop" if EVENTS.get(event) == "stop" else "for every prompt"
                    raise _Invalid(
                        f"{gwhere}.matcher",
                        f"{event} takes no matcher: Claude Code ignores it and runs the hook "
                        f"{every}. Remove it, or filter in the command",
                    )
                try:
                    matcher = _claude_matcher(pattern)
                except re.error as exc:
                    raise _Invalid(
                        f"{gwhere}.matcher", f"not a valid regular expression: {exc}"
                    ) from None
            for _h, hwhere, handler in _handlers(group, gwhere, strict=True):
                kind = handler.get("type")
                if kind in _CLAUDE_REFUSED_TYPES:
                    reader.unsupported(kind, _CLAUDE_REFUSED_TYPES[kind], event, hwhere)
                    continue
                if kind != "command":
                    raise _Invalid(
                        f"{hwhere}.type", f"unknown hook type {kind!r} (hookpolicy runs 'command')"
                    )
                _check_keys(
                    handler, _CLAUDE_HANDLER_KEYS, hwhere, _CLAUDE_REFUSED_FIELDS, reader.ignored
                )
                command = _string(handler.get("command"), f"{hwhere}.command")
                background = _flag(handler, "async", hwhere)
                if _flag(handler, "asyncRewake", hwhere):
                    # In the background, as Claude Code runs it; its exit 2 would wake the
                    # model with the hook's output later, and our chain has no later turn.
                    background = True
                    reader.skipped.append(
                        f"{hwhere.removeprefix(reader.prefix)}: asyncRewake runs in the "
                        "background; what would wake the model is logged"
                    )
                condition = None
                if "if" in handler:
                    rule = _string(handler["if"], f"{hwhere}.if")
                    try:
                        condition = parse_rule(rule)
                    except ValueError as exc:
                        raise _Invalid(f"{hwhere}.if", str(exc)) from None
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
                timeout = reader.dialect.default_timeout
                if "timeout" in handler:
                    timeout = _timeout(handler["timeout"], f"{hwhere}.timeout")
                specs.append(
                    reader.spec(
                        event=event,
                        where=hwhere.removeprefix(reader.prefix),
                        matcher=matcher,
                        kind="command",
                        command=command,
                        args=args,
                        timeout=timeout,
                        background=background,
                        condition=condition,
                    )
                )
    return specs


def _flat_specs(reader: _Reader, events: Mapping[str, Any]) -> list[Spec]:
    specs: list[Spec] = []
    for event, here, handlers in reader.events(events):
        if not isinstance(handlers, list):
            raise _Invalid(here, f"must be a list of hooks, not {type_name(handlers)}")
        for h, handler in enumerate(handlers):
            hwhere = f"{here}[{h}]"
            if not isinstance(handler, dict):
                raise _Invalid(hwhere, f"must be an object, not {type_name(handler)}")
            kind = handler.get("type")
            if kind in _AGENTAO_REFUSED_TYPES:
                reader.unsupported(
                    kind, _AGENTAO_REFUSED_TYPES[kind], event, hwhere, host_runs=False
                )
                continue
            if kind not in ("command", "prompt"):
                raise _Invalid(
                    f"{hwhere}.type", f"unknown hook type {kind!r} (Agentao runs command, prompt)"
                )
            _check_keys(handler, _AGENTAO_HANDLER_KEYS, hwhere, {})
            matcher = _agentao_matcher(handler.get("matcher"), event, f"{hwhere}.matcher")
            timeout = reader.dialect.default_timeout
            if "timeout" in handler:
                timeout = _timeout(handler["timeout"], f"{hwhere}.timeout")
            where = hwhere.removeprefix(reader.prefix)
            if kind == "prompt":
                if event != "UserPromptSubmit":
                    raise _Invalid(
                        f"{hwhere}.type",
                        f"Agentao runs 'prompt' hooks at UserPromptSubmit only, not at {event}",
                    )
                if "command" in handler:
                    raise _Invalid(f"{hwhere}.command", "a 'prompt' hook has no command")
                text = _string(handler.get("prompt"), f"{hwhere}.prompt")
                specs.append(
                    reader.spec(
                        event=event,
                        where=where,
                        matcher=matcher,
                        kind="prompt",
                        text=text,
                    )
                )
                continue
            if "prompt" in handler:
                raise _Invalid(f"{hwhere}.prompt", "a 'command' hook has no prompt")
            command = _string(handler.get("command"), f"{hwhere}.command")
            specs.append(
                reader.spec(
                    event=event,
                    where=where,
                    matcher=matcher,
                    kind="command",
                    command=command,
                    timeout=timeout,
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


# -------------------------------------------------------------------------- positions


class Located:
    """A settings or hooks file's JSON document, and where each of its values is
    written, for diagnostics that point into the file (`policy check --host`).
    json.JSONDecodeError when `text` is not JSON; a duplicate key keeps the last, as
    json does."""

    def __init__(self, text: str) -> None:
        self.doc: Any = json.loads(text)
        self._text = text
        self._offsets = _value_offsets(text)

    def at(self, *key: str | int) -> tuple[int, int]:
        """(line, column) of the value at the key path `key` (1:1 when not found)."""
        offset = self._offsets.get(key, 0)
        text = self._text
        line = text.count("\n", 0, offset) + 1
        return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


_WS = re.compile(r"[ \t\n\r]*")


def _value_offsets(text: str) -> dict[tuple[str | int, ...], int]:
    """The offset of every value of a JSON document by its key path (the document
    parsed already, so it is valid); a duplicate key keeps the last, as json does."""
    offsets: dict[tuple[str | int, ...], int] = {}
    decoder = json.JSONDecoder()
    scanstring: Any = json.decoder.scanstring  # type: ignore[attr-defined]

    def skip(i: int) -> int:
        match = _WS.match(text, i)
        return match.end() if match else i

    def value(i: int, path: tuple[str | int, ...]) -> int:
        i = skip(i)
        offsets[path] = i
        opening = text[i]
        if opening not in "{[":
            return int(decoder.raw_decode(text, i)[1])
        closing = "}" if opening == "{" else "]"
        i = skip(i + 1)
        if text[i] == closing:
            return i + 1
        index = 0
        while True:
            if opening == "{":
                key, i = scanstring(text, skip(i) + 1)
                i = skip(i) + 1  # the colon
                i = value(i, (*path, key))
            else:
                i = value(i, (*path, index))
                index += 1
            i = skip(i)
            if text[i] == closing:
                return i + 1
            i += 1  # the comma

    # Positions are a courtesy: what was found is kept, the rest is at 1:1.
    with contextlib.suppress(RecursionError, IndexError, ValueError):
        value(0, ())
    return offsets


# ---------------------------------------------------------------------------- reading


def read_hooks_file(path: Path, *, skip_unsupported: bool = False) -> HooksFile:
    """The hooks `path` configures, in file order, and what it holds that is not run
    here; SettingsError naming the file and the field (or line:col) of the first thing
    that is wrong (HooksFileNotJson when the file does not parse). `skip_unsupported`:
    a hook type we cannot run at an event that runs here is skipped (and named) rather
    than refused."""
    doc = _read(path)
    skipped: list[str] = []
    try:
        events, prefix, contract = _events(doc, skipped)
        dialect = _file_shape(events, prefix, contract)
        reader = _Reader(path, prefix, skip_unsupported, dialect)
        if dialect.flat_payloads:
            specs = _flat_specs(reader, events)
        else:
            specs = _nested_specs(reader, events)
    except _Invalid as exc:
        raise settings_error(path, str(exc)) from None
    return HooksFile(path, specs, skipped + reader.notes(), reader.unguarded, tuple(reader.ignored))
