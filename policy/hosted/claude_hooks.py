"""Claude Code and Agentao hooks.json command hooks, run as hooks in our chain.

The `claude_hooks` setting names hooks files written for those hosts. Each configured
command becomes one hook here, so a guard script written for Claude Code decides calls
from PicoClaw, OpenClaw or the Python API next to rule packs and code hooks. The host's
contract is kept exactly where it is a fact (docs/hosts.md lists the sources):

* **Claude Code's nested shape** `{"hooks": {"PreToolUse": [{"matcher": "Bash",
  "hooks": [{"type": "command", ...}]}]}}`: Claude's matcher (exact names or a
  `|`-list, an unanchored regex otherwise, `*`/empty for all), Claude's snake_case
  payload, exit 2 blocks with stderr as the reason, JSON read only on exit 0,
  default timeout 600 s.
* **Agentao's flat shape** `{"hooks": {"PreToolUse": [{"type": "command", ...,
  "matcher": {"toolName": "Bash"}}]}}` (Agentao 0.5.17, contract `agentao-v1`): a
  glob over the tool name, the `{event, data}` envelope, exit 2 ignored, no
  `updatedInput`, PostToolUse output unread, `blockingError`/`preventContinuation`
  at UserPromptSubmit, and `prompt` hooks that inject their text without a model.

Where we part from both hosts, on purpose: a command that cannot start, times out or
is killed by a signal is a hook FAILURE (the chain's failure policy decides, by default
a denial) where the hosts let the call run; a verdict field that is malformed (an
unknown `permissionDecision`, `continue: "no"`) is a failure too. At the points where
a hook guards, PreToolUse and UserPromptSubmit, so is a crash: both hosts call an exit
status other than 0 and 2 a "non-blocking error" and go on, so a guard that dies on an
input it did not expect (a traceback, exit 1) would wave through exactly the call it
failed to read. Here that exit is a failure whose reason gives the status and stderr;
and exit 0 with stdout that starts like a JSON verdict (`{`) but does not parse is one
too, where the hosts take it as plain text. For Agentao's flat shape the same holds for
statuses other than 0 and 2 (its exit 2 stays ignored, as Agentao ignores it), except
that a refusal the hook printed still stands, as Agentao would apply it. After the tool
(PostToolUse, PostToolUseFailure) the call has run and we follow the hosts: a bad exit
or unreadable output is logged as a warning on the `policy.hosted` logger and the
result goes on. Plain text on exit 0 stays what the hosts make of it (ignored before a
tool, context at a prompt).

Argument names are the host's (`Read {file_path}`), so a call that spells one argument
both ways with different values (`{"path": "/etc/shadow", "file_path": "/tmp/x"}`)
shows the hook the value the tool will read, not the decoy (`_HostNames.tool_input`);
a rewritten input that spells one argument both ways with different values is a
failure. Files are read strictly: anything the loader does not understand stops the
engine from starting, naming the file and the field.
"""

from __future__ import annotations

import contextlib
import fnmatch
import json
import logging
import os
import re
import signal
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from policy.aliases import AliasTable
from policy.errors import SettingsError
from policy.model import Action, CallContext, Decision, Prompt, ToolCall, ToolResult

__all__ = [
    "CLAUDE_TOOL_NAMES",
    "CommandHookError",
    "load_claude_hooks",
]

log = logging.getLogger("policy.hosted")

Shape = Literal["claude", "agentao"]

#: The events that have a point in our chain.
EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit")
_TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
#: Events the hosts know that have no point in our chain. Refused at load: a hook that
#: loads and never runs would look like protection it is not.
_ELSEWHERE = frozenset(
    {
        "Stop",
        "StopFailure",
        "SubagentStart",
        "SubagentStop",
        "SessionStart",
        "SessionEnd",
        "Setup",
        "PreCompact",
        "PostCompact",
        "Notification",
        "PermissionRequest",
        "PermissionDenied",
        "PostToolBatch",
        "UserPromptExpansion",
        "TaskCreated",
        "TaskCompleted",
        "TeammateIdle",
        "WorktreeCreate",
        "WorktreeRemove",
        "ConfigChange",
        "InstructionsLoaded",
        "CwdChanged",
        "FileChanged",
        "Elicitation",
        "ElicitationResult",
    }
)

#: Claude Code's built-in tool names. A call from another host is shown to a hook
#: under the one of these its canonical name maps to (through the engine's aliases).
CLAUDE_TOOL_NAMES = (
    "Bash",
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "LS",
    "Grep",
    "Glob",
    "WebFetch",
    "WebSearch",
    "Task",
    "TodoWrite",
)
#: Agentao's own tool names -> the Claude-compatible name it puts in `toolName`
#: (agentao/plugins/hooks/_alias.py), for the tools no canonical name covers.
_AGENTAO_TO_CLAUDE = {
    "save_memory": "SaveMemory",
    "ask_user": "AskUser",
    "todo_write": "TodoWrite",
    "plan_save": "PlanSave",
    "plan_finalize": "PlanFinalize",
    "activate_skill": "ActivateSkill",
}
#: Argument names per canonical tool: {another host's name: this host's name}.
#: Claude's Read/Write/Edit take `file_path`, `old_string`, `new_string`; PicoClaw's
#: take `path`, `old_text`, `new_text`; Agentao's `file_path`, `old_text`, `new_text`.
_INPUT_KEYS: Mapping[Shape, Mapping[str, Mapping[str, str]]] = {
    "claude": {
        "read_file": {"path": "file_path"},
        "write_file": {"path": "file_path"},
        "edit_file": {"path": "file_path", "old_text": "old_string", "new_text": "new_string"},
    },
    "agentao": {
        "read_file": {"path": "file_path"},
        "write_file": {"path": "file_path"},
        "edit_file": {"path": "file_path", "old_string": "old_text", "new_string": "new_text"},
    },
}
#: Which spelling of a renamed argument the file tools of a host read, by the `host`
#: a call carries. It settles a call that gives both spellings with different values:
#: the hook must judge the value the tool will use, and a model can add the other
#: spelling as a decoy. A call naming no host listed here reads PicoClaw's names (our
#: canonical tools' `read_file {path}`), unless it uses a Claude Code tool name, whose
#: arguments are Claude's.
_HOST_READS: Mapping[str, frozenset[str]] = {
    "picoclaw": frozenset({"path", "old_text", "new_text"}),
    "claude-code": frozenset({"file_path", "old_string", "new_string"}),
    "agentao": frozenset({"file_path", "old_text", "new_text"}),
}
#: The events at which a hook guards: its verdict can stop the call or the prompt
#: before anything happens, so a hook that crashes there must not count as "no".
_GUARD_EVENTS = frozenset({"PreToolUse", "UserPromptSubmit"})
#: Longest stderr line quoted in a failure reason or warning.
_QUOTE_CHARS = 300

#: Default per-hook timeouts in seconds: Claude Code's current one, and Agentao's
#: for its flat shape (agentao/plugins/hooks/_parser.py).
_DEFAULT_TIMEOUT: Mapping[Shape, float] = {"claude": 600.0, "agentao": 60.0}
#: The chain waits this much longer than the command may run, so the hook's own
#: error (naming the command and its timeout) is the one that lands.
_CHAIN_SLACK_MS = 1000
#: How long to wait for a killed process group to let go of its pipes.
_REAP_SECONDS = 2.0
#: Exit codes with which `sh -c` says the command itself never ran.
_NOT_STARTED = {126: "is not executable", 127: "was not found"}
_EXACT = re.compile(r"[A-Za-z0-9_|]+")
_CONTEXT_TAG = "user-prompt-submit-hook"


class CommandHookError(Exception):
    """A hook command gave no usable answer: it did not start, timed out, was killed,
    crashed where it guards (an exit status other than 0 and 2), printed a JSON verdict
    that does not parse, or answered a verdict field with something that is not one.
    Raised rather than read as "no opinion", so the chain's failure policy decides."""


# ----------------------------------------------------------------------------- names


class _HostNames:
    """Tool names and argument names as a hook written for the host expects them."""

    def __init__(self, aliases: AliasTable) -> None:
        self._aliases = aliases
        self._claude_names = frozenset(CLAUDE_TOOL_NAMES)
        self._for_canonical: dict[str, str] = {}
        for name in CLAUDE_TOOL_NAMES:
            canonical = aliases.canonical(name)
            if canonical != name:
                self._for_canonical.setdefault(canonical, name)

    def tool(self, call: ToolCall) -> str:
        """The host's spelling of `call`'s tool: its own when it came from Claude Code,
        else the Claude name of its canonical tool, else the name as the call has it."""
        raw = call.tool_raw or call.tool
        canonical = self._aliases.canonical(call.tool)
        if raw in self._claude_names and self._aliases.canonical(raw) == canonical:
            return raw
        if canonical in self._for_canonical:
            return self._for_canonical[canonical]
        return _AGENTAO_TO_CLAUDE.get(raw, _AGENTAO_TO_CLAUDE.get(canonical, raw))

    def tool_input(self, shape: Shape, call: ToolCall) -> tuple[dict[str, Any], dict[str, str]]:
        """The call's arguments under the host's key names, and {host key: our key}
        for every key renamed (so a rewritten input can be mapped back).

        When the call gives both spellings of one argument, the hook is shown the value
        the tool will read (`_reads`), whichever key it came under: a guard that reads
        `file_path` must not be shown a decoy while the tool opens `path`.
        """
        renames = _INPUT_KEYS[shape].get(self._aliases.canonical(call.tool), {})
        tool_input = dict(call.args)
        renamed: dict[str, str] = {}
        for ours, theirs in renames.items():
            if ours not in tool_input:
                continue
            if theirs in tool_input and tool_input[theirs] != tool_input[ours]:
                read = self._reads(call, ours, theirs)
                log.warning(
                    "call to %r gives both %r and %r with different values; hooks are "
                    "shown the value under %r, the one the tool reads",
                    call.tool_raw or call.tool,
                    ours,
                    theirs,
                    read,
                )
                if read == theirs:
                    continue  # the tool reads the host's spelling: shown as it is
            tool_input[theirs] = tool_input.pop(ours)
            renamed[theirs] = ours
        return tool_input, renamed

    def _reads(self, call: ToolCall, ours: str, theirs: str) -> str:
        """Which of two spellings of one argument the call's tool reads: its host's,
        when the call names a host we know; else Claude Code's for a Claude Code tool
        name, PicoClaw's for any other."""
        reads = _HOST_READS.get(call.host)
        if reads is None:
            claude = (call.tool_raw or call.tool) in self._claude_names
            reads = _HOST_READS["claude-code" if claude else "picoclaw"]
        return theirs if theirs in reads and ours not in reads else ours


def _input_back(updated: Mapping[str, Any], renamed: Mapping[str, str]) -> dict[str, Any]:
    """A hook's `updatedInput` under the call's own key names. A key the hook returns
    under both spellings with different values is refused: whichever one we kept, the
    tool would run with a value the hook may not have meant."""
    args: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for key, value in updated.items():
        ours = renamed.get(key, key)
        if ours in args and args[ours] != value:
            raise CommandHookError(
                f"`updatedInput` gives `{spelled[ours]}` and `{key}`, two spellings of the "
                f"call's `{ours}`, with different values"
            )
        args[ours] = value
        spelled[ours] = key
    return args


# -------------------------------------------------------------------------- matchers


class _Matcher:
    """Which tool names a configured hook applies to, in its host's own semantics."""

    def __init__(self, text: str, test: Callable[[str], bool]) -> None:
        self.text = text
        self._test = test

    def __call__(self, name: str) -> bool:
        return self._test(name)


_ALL = _Matcher("*", lambda _name: True)


def _claude_matcher(pattern: str) -> _Matcher:
    """Claude Code: `*`/empty all; letters, digits, `_`, `|` only: exact names; else an
    unanchored regex (`re.error` propagates: a matcher that cannot compile is refused)."""
    if pattern in ("", "*"):
        return _ALL
    if _EXACT.fullmatch(pattern):
        names = frozenset(pattern.split("|"))
        return _Matcher(pattern, names.__contains__)
    regex = re.compile(pattern)
    return _Matcher(pattern, lambda name: regex.search(name) is not None)


def _agentao_glob(pattern: str) -> _Matcher:
    """Agentao's `toolName` glob (agentao/plugins/hooks/_matchers.py): `*` all, no `*`
    exact, one `*` a prefix/suffix test, more than one fnmatch."""
    if pattern == "*":
        return _ALL
    if "*" not in pattern:
        return _Matcher(pattern, lambda name: name == pattern)
    parts = pattern.split("*")
    if len(parts) == 2:
        head, tail = parts
        return _Matcher(
            pattern,
            lambda name: (
                len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail)
            ),
        )
    return _Matcher(pattern, lambda name: fnmatch.fnmatchcase(name, pattern))


# ---------------------------------------------------------------------- configuration


@dataclass(frozen=True, slots=True)
class _Spec:
    """One configured handler, validated."""

    shape: Shape
    file: Path
    event: str
    where: str  # PreToolUse[0].hooks[1]
    matcher: _Matcher
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


def _settings_error(path: Path, message: str) -> SettingsError:
    return SettingsError(f"invalid settings:\n  claude_hooks: {path}: {message}")


def _read(path: Path) -> Any:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise _settings_error(path, f"cannot read the hooks file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _settings_error(path, f"not UTF-8 text: {exc}") from None
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise SettingsError(
            f"invalid settings:\n  claude_hooks: {path}:{exc.lineno}:{exc.colno}: "
            f"invalid JSON: {exc.msg}"
        ) from None
    except ValueError as exc:
        raise _settings_error(path, f"invalid JSON: {exc}") from None


def _plugin_root(path: Path) -> Path:
    """Where `${CLAUDE_PLUGIN_ROOT}` points: a plugin keeps its hooks in
    `<root>/hooks/hooks.json` (Claude Code, Agentao's auto-discovery) or names a file
    in its root from plugin.json (Agentao)."""
    folder = path.resolve().parent
    return folder.parent if folder.name == "hooks" else folder


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _timeout(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise _Invalid(where, f"must be a positive number of seconds, not {value!r}")
    return float(value)


def _string(value: Any, where: str, *, empty: bool = False) -> str:
    if not isinstance(value, str):
        raise _Invalid(where, f"must be a string, not {_type_name(value)}")
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
        raise _Invalid("(top level)", f"must be a JSON object, not {_type_name(doc)}")
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
            raise _Invalid("hooks", f"must be an object of events, not {_type_name(events)}")
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
    if event in EVENTS:
        return
    if event in _ELSEWHERE:
        raise _Invalid(
            where,
            f"event {event!r} has no point in the hookpolicy chain (it runs "
            f"{', '.join(EVENTS)}); its hooks would never run here. Keep them in the "
            "host's own configuration",
        )
    raise _Invalid(where, f"unknown hook event {event!r} (events: {', '.join(EVENTS)})")


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


def _claude_specs(path: Path, events: Mapping[str, Any], prefix: str, root: Path) -> list[_Spec]:
    specs: list[_Spec] = []
    for event, groups in events.items():
        here = f"{prefix}{event}"
        _check_event(event, here)
        if not isinstance(groups, list):
            raise _Invalid(here, f"must be a list of matcher groups, not {_type_name(groups)}")
        for g, group in enumerate(groups):
            gwhere = f"{here}[{g}]"
            if not isinstance(group, dict):
                raise _Invalid(gwhere, f"must be an object, not {_type_name(group)}")
            _check_keys(group, _CLAUDE_GROUP_KEYS, gwhere, {})
            matcher = _ALL
            if group.get("matcher") is not None:
                pattern = _string(group["matcher"], f"{gwhere}.matcher", empty=True)
                if event not in _TOOL_EVENTS and pattern not in ("", "*"):
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
                    raise _Invalid(hwhere, f"must be an object, not {_type_name(handler)}")
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
                timeout = _DEFAULT_TIMEOUT["claude"]
                if "timeout" in handler:
                    timeout = _timeout(handler["timeout"], f"{hwhere}.timeout")
                specs.append(
                    _Spec(
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


def _agentao_specs(path: Path, events: Mapping[str, Any], prefix: str, root: Path) -> list[_Spec]:
    specs: list[_Spec] = []
    for event, handlers in events.items():
        here = f"{prefix}{event}"
        _check_event(event, here)
        if not isinstance(handlers, list):
            raise _Invalid(here, f"must be a list of hooks, not {_type_name(handlers)}")
        for h, handler in enumerate(handlers):
            hwhere = f"{here}[{h}]"
            if not isinstance(handler, dict):
                raise _Invalid(hwhere, f"must be an object, not {_type_name(handler)}")
            kind = handler.get("type")
            if kind in _AGENTAO_REFUSED_TYPES:
                raise _Invalid(f"{hwhere}.type", f"{kind!r}: {_AGENTAO_REFUSED_TYPES[kind]}")
            if kind not in ("command", "prompt"):
                raise _Invalid(
                    f"{hwhere}.type", f"unknown hook type {kind!r} (Agentao runs command, prompt)"
                )
            _check_keys(handler, _AGENTAO_HANDLER_KEYS, hwhere, {})
            matcher = _agentao_matcher(handler.get("matcher"), event, f"{hwhere}.matcher")
            timeout = _DEFAULT_TIMEOUT["agentao"]
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
                specs.append(_Spec("agentao", path, event, where, matcher, "prompt", text=text))
                continue
            if "prompt" in handler:
                raise _Invalid(f"{hwhere}.prompt", "a 'command' hook has no prompt")
            command = _string(handler.get("command"), f"{hwhere}.command")
            specs.append(
                _Spec(
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


def _agentao_matcher(value: Any, event: str, where: str) -> _Matcher:
    if value is None:
        return _ALL
    if not isinstance(value, dict):
        raise _Invalid(
            where, f'must be an object like {{"toolName": "Bash"}}, not {_type_name(value)}'
        )
    if not value:
        return _ALL
    if event not in _TOOL_EVENTS:
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


def _load_file(path: Path) -> list[_Spec]:
    doc = _read(path)
    try:
        events, prefix, contract = _events(doc)
        shape = _file_shape(events, prefix, contract)
        root = _plugin_root(path)
        if shape == "claude":
            return _claude_specs(path, events, prefix, root)
        return _agentao_specs(path, events, prefix, root)
    except _Invalid as exc:
        raise _settings_error(path, str(exc)) from None


# --------------------------------------------------------------------------- running


@dataclass(frozen=True, slots=True)
class _Completed:
    code: int
    stdout: str
    stderr: str


def _payload_cwd(context: CallContext) -> str:
    """The `cwd` the payload reports: the call's working directory when it exists here,
    else ours. The hook may read it; it never chooses where or what runs."""
    if context.cwd and os.path.isdir(context.cwd):
        return context.cwd
    return os.getcwd()


def _signal_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the command's process group and reap it; only the thread that started
    the command may call this (it reads the pipes)."""
    _signal_group(process)
    try:
        process.communicate(timeout=_REAP_SECONDS)
    except subprocess.TimeoutExpired:
        # A descendant left the group and holds our pipes: stop reading them.
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        process.wait()


class _CommandHook:
    """One configured command: runs it per matching call and reads its answer."""

    inline = False

    def __init__(self, spec: _Spec, names: _HostNames, priority: int) -> None:
        self.name = spec.name
        self.priority = priority
        self.timeout_ms = round(spec.timeout * 1000) + _CHAIN_SLACK_MS
        self.spec = spec
        self._names = names
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self._closed = False

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} command={self.spec.command!r}>"

    def close(self) -> None:
        """Kill what is still running: a call the chain stopped waiting for must not
        leave its command behind when the engine goes."""
        with self._lock:
            self._closed = True
            running = list(self._running)
        for process in running:
            # The thread running the command is reading its pipes: signal only, and
            # let that thread see the kill and report it.
            _signal_group(process)

    def _execute(self, payload: Mapping[str, Any], context: CallContext) -> _Completed:
        spec = self.spec
        run_dir = str(spec.project_dir)
        places = {
            "CLAUDE_PROJECT_DIR": run_dir,
            "CLAUDE_PLUGIN_ROOT": str(spec.plugin_root),
        }
        env = {**os.environ, **places}
        argv: str | list[str]
        if spec.args is not None:  # exec form: no shell, so substitute ourselves
            argv = [_substitute(part, places) for part in (spec.command, *spec.args)]
        else:
            argv = spec.command
        data = json.dumps(payload, ensure_ascii=False, default=str).encode()
        with self._lock:
            if self._closed:
                raise CommandHookError("the engine is closing")
            try:
                process = subprocess.Popen(
                    argv,
                    shell=spec.args is None,
                    cwd=run_dir,
                    env=env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    start_new_session=True,
                )
            except OSError as exc:
                raise CommandHookError(
                    f"command {spec.command!r} could not be started: {exc}"
                ) from None
            self._running.add(process)
        try:
            try:
                out, err = process.communicate(data, timeout=spec.timeout)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                raise CommandHookError(
                    f"command {spec.command!r} timed out after {spec.timeout:g} s "
                    "(its process group was killed)"
                ) from None
            except BaseException:
                _kill_group(process)
                raise
        finally:
            with self._lock:
                self._running.discard(process)
        stdout = out.decode("utf-8", errors="replace")
        stderr = err.decode("utf-8", errors="replace")
        code = process.returncode
        if spec.args is None and code in _NOT_STARTED:
            raise CommandHookError(
                f"command {spec.command!r} {_NOT_STARTED[code]} (sh exit {code}): "
                f"{_first_line(stderr)}"
            )
        if code < 0:
            raise CommandHookError(
                f"command {spec.command!r} was killed by signal {-code}: {_stderr_quote(stderr)}"
            )
        return _Completed(code, stdout, stderr)

    # ------------------------------------------------------------------ payloads

    def _payload(
        self, context: CallContext, run_dir: str, fields: dict[str, Any]
    ) -> dict[str, Any]:
        """The stdin document, in the shape the hook's host sends."""
        event = self.spec.event
        if self.spec.shape == "agentao":
            return {
                "event": event,
                "data": {**fields, "sessionId": context.session, "cwd": run_dir},
            }
        meta = context.meta
        transcript = meta.get("transcript_path")
        mode = meta.get("permission_mode")
        return {
            "session_id": context.session,
            "transcript_path": transcript if isinstance(transcript, str) else None,
            "cwd": run_dir,
            "permission_mode": mode if isinstance(mode, str) else "default",
            "hook_event_name": event,
            **fields,
        }

    def _tool_fields(self, call: ToolCall) -> tuple[dict[str, Any], dict[str, str]]:
        tool_input, renamed = self._names.tool_input(self.spec.shape, call)
        name = self._names.tool(call)
        if self.spec.shape == "agentao":
            return (
                {"toolName": name, "toolInput": tool_input, "toolUseId": call.call_id},
                renamed,
            )
        return {"tool_name": name, "tool_input": tool_input, "tool_use_id": call.call_id}, renamed

    def _run(self, context: CallContext, fields: dict[str, Any]) -> _Completed:
        return self._execute(self._payload(context, _payload_cwd(context), fields), context)

    # ------------------------------------------------------------------- reading

    def _warn_exit(self, done: _Completed, consequence: str) -> None:
        """Log an exit status the chain follows the host on (after the tool, or
        Agentao's ignored exit 2): the operator still needs to hear of it."""
        log.warning(
            "hook %r exited %d at %s (%s): %s",
            self.name,
            done.code,
            self.spec.event,
            consequence,
            _stderr_quote(done.stderr),
        )

    def _exit_failure(self, done: _Completed) -> CommandHookError:
        """The failure for a guard that exited with neither a verdict (0) nor a block
        (2): it most likely crashed on this very input, so its silence is no "yes"."""
        return CommandHookError(
            f"command {self.spec.command!r} exited {done.code} at {self.spec.event} "
            f"(a crash, not a verdict): {_stderr_quote(done.stderr)}"
        )

    def _claude_json(self, done: _Completed) -> dict[str, Any] | str | None:
        """The output as the hosts read it: a dict, plain text, or None (no output).

        Output that starts with `{` was meant as a verdict; when it does not parse, the
        hosts take it as text. Where the hook guards that is a failure (a deny that
        does not parse must not read as no opinion); after the tool it is a warning.
        """
        text = done.stdout.strip()
        if not text:
            return None
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            if not text.startswith("{"):
                return text
            problem = (
                f"printed output that starts like a JSON verdict but is not JSON "
                f"({exc.msg} at line {exc.lineno} column {exc.colno}): "
                f"{_first_line(text)[:_QUOTE_CHARS]}"
            )
            if self.spec.event in _GUARD_EVENTS:
                raise CommandHookError(f"command {self.spec.command!r} {problem}") from None
            log.warning("hook %r %s; the tool already ran, so it is ignored", self.name, problem)
            return text
        return value if isinstance(value, dict) else text

    def _stop(self, output: Mapping[str, Any]) -> Decision | None:
        """`continue: false` ends the turn, whatever else the output says."""
        go_on = output.get("continue")
        if go_on is None:
            return None
        if not isinstance(go_on, bool):
            raise CommandHookError(f"`continue` must be true or false, not {go_on!r}")
        if go_on:
            return None
        reason = _optional_text(output, "stopReason") or f"stopped by hook {self.name!r}"
        return Decision(Action.ABORT_TURN, reason=reason)

    def _specific(self, output: Mapping[str, Any]) -> Mapping[str, Any]:
        specific = output.get("hookSpecificOutput")
        if specific is None:
            return {}
        if not isinstance(specific, dict):
            raise CommandHookError(
                f"`hookSpecificOutput` must be an object, not {_type_name(specific)}"
            )
        named = specific.get("hookEventName")
        if named is not None and named != self.spec.event:
            raise CommandHookError(
                f"`hookSpecificOutput.hookEventName` is {named!r}, but this is a "
                f"{self.spec.event} hook"
            )
        return specific

    def _notice(self, output: Mapping[str, Any]) -> None:
        message = output.get("systemMessage")
        if isinstance(message, str) and message:
            log.info("hook %r says to the user: %s", self.name, message)


class _PreToolUse(_CommandHook):
    """PreToolUse -> before_tool."""

    def before_tool(self, call: ToolCall) -> Decision | None:
        if not self.spec.matcher(self._names.tool(call)):
            return None
        fields, renamed = self._tool_fields(call)
        done = self._run(call, fields)
        if self.spec.shape == "agentao":
            return self._agentao(done)
        return self._claude(call, done, renamed)

    def _claude(
        self, call: ToolCall, done: _Completed, renamed: Mapping[str, str]
    ) -> Decision | None:
        if done.code == 2:
            reason = done.stderr.strip() or f"blocked by hook {self.name!r} (exit 2)"
            return Decision(Action.DENY_TOOL, reason=reason)
        if done.code != 0:
            raise self._exit_failure(done)
        output = self._claude_json(done)
        if output is None:
            return None
        if isinstance(output, str):
            log.warning(
                "hook %r printed output that is not a JSON object; Claude Code ignores it "
                "and so does the chain: %s",
                self.name,
                _first_line(output),
            )
            return None
        self._notice(output)
        stop = self._stop(output)
        if stop is not None:
            return stop
        specific = self._specific(output)
        verdict = specific.get("permissionDecision")
        reason = _optional_text(specific, "permissionDecisionReason")
        if verdict is None and output.get("decision") is not None:
            # The deprecated top-level form: approve -> allow, block -> deny.
            legacy = output["decision"]
            if legacy not in ("approve", "block"):
                raise CommandHookError(f"`decision` must be 'approve' or 'block', not {legacy!r}")
            verdict = "allow" if legacy == "approve" else "deny"
            reason = _optional_text(output, "reason")
        if verdict is not None and verdict not in ("allow", "deny", "ask", "defer"):
            raise CommandHookError(
                f"`permissionDecision` must be allow, deny, ask or defer, not {verdict!r}"
            )
        self._drop_context(specific)
        if verdict == "deny":
            return Decision(Action.DENY_TOOL, reason=reason or f"denied by hook {self.name!r}")
        updated = specific.get("updatedInput")
        if updated is not None and not isinstance(updated, dict):
            raise CommandHookError(f"`updatedInput` must be an object, not {_type_name(updated)}")
        ask = verdict in ("ask", "defer")
        if ask and not reason:
            reason = f"hook {self.name!r} asks for approval"
        if verdict == "defer":
            reason = f"hook {self.name!r} deferred the decision: {reason}"
        if updated is not None:
            args = _input_back(updated, renamed)
            return Decision(
                Action.MODIFY,
                reason=reason or f"input rewritten by hook {self.name!r}",
                call=call.replace(args=args),
                needs_approval=ask,
            )
        if ask:
            return Decision(Action.CONTINUE, reason=reason, needs_approval=True)
        return None

    def _agentao(self, done: _Completed) -> Decision | None:
        if done.code in (0, 2):
            if done.code == 2:
                # Agentao's flat shape reads no exit code, 2 included: it only logs.
                self._warn_exit(done, "Agentao ignores exit 2; its JSON, if any, decides")
            return self._agentao_verdict(done)
        return _refusal_or_failure(self._agentao_verdict, done, self._exit_failure(done))

    def _agentao_verdict(self, done: _Completed) -> Decision | None:
        output = self._claude_json(done)
        if not isinstance(output, dict):
            if output is not None:
                log.warning(
                    "hook %r printed text, which Agentao adds as context; the chain cannot "
                    "deliver context before a tool runs, so it is dropped: %s",
                    self.name,
                    _first_line(output),
                )
            return None
        specific = self._specific(output)
        verdict = specific.get("permissionDecision")
        if verdict is not None and verdict not in ("allow", "deny", "ask"):
            raise CommandHookError(
                f"`permissionDecision` must be allow, deny or ask, not {verdict!r}"
            )
        reason = _optional_text(specific, "permissionDecisionReason") or _optional_text(
            specific, "reason"
        )
        reason = reason or _optional_text(output, "reason")
        self._drop_context(specific)
        if verdict == "deny":
            return Decision(Action.DENY_TOOL, reason=reason or f"denied by hook {self.name!r}")
        if verdict == "ask":
            return Decision(
                Action.CONTINUE,
                reason=reason or f"hook {self.name!r} asks for approval",
                needs_approval=True,
            )
        return None

    def _drop_context(self, specific: Mapping[str, Any]) -> None:
        if specific.get("additionalContext"):
            log.warning(
                "hook %r returned additionalContext at PreToolUse; the chain has no way to "
                "show the model context before the tool runs, so it is dropped",
                self.name,
            )


class _PostToolUse(_CommandHook):
    """PostToolUse (results that are not errors) and PostToolUseFailure (error results)
    -> after_tool."""

    def after_tool(self, call: ToolCall, result: ToolResult) -> Decision | None:
        failure = self.spec.event == "PostToolUseFailure"
        if result.is_error != failure or not self.spec.matcher(self._names.tool(call)):
            return None
        fields, _renamed = self._tool_fields(call)
        if self.spec.shape == "agentao":
            if failure:
                fields.update(error=result.for_llm, isInterrupt=None)
            else:
                fields["toolOutput"] = result.for_llm
            fields["durationMs"] = round(result.duration * 1000) if result.duration else None
        elif failure:
            fields["error"] = result.for_llm
        else:
            fields["tool_response"] = result.for_llm
        done = self._run(call, fields)
        if self.spec.shape == "agentao":
            # Agentao's flat shape runs PostToolUse hooks for their side effects only.
            if done.code != 0:
                self._warn_exit(done, "the tool already ran; Agentao goes on, and so do we")
            return None
        return self._claude(call, result, done)

    def _claude(self, call: ToolCall, result: ToolResult, done: _Completed) -> Decision | None:
        if done.code == 2:
            # The tool already ran; stderr goes to the model as feedback.
            reason = done.stderr.strip() or f"hook {self.name!r} exited 2"
            return self._amend(result, feedback=reason)
        if done.code != 0:
            # Unlike before the tool, nothing is left to stop: follow Claude Code.
            self._warn_exit(done, "the tool already ran; Claude Code goes on, and so do we")
            return None
        output = self._claude_json(done)
        if not isinstance(output, dict):
            return None  # Claude Code shows plain stdout in the transcript only
        self._notice(output)
        stop = self._stop(output)
        if stop is not None:
            return stop
        specific = self._specific(output)
        feedback = ""
        if output.get("decision") is not None:
            if output["decision"] != "block":
                raise CommandHookError(f"`decision` must be 'block', not {output['decision']!r}")
            feedback = _optional_text(output, "reason") or f"blocked by hook {self.name!r}"
        replaced: str | None = None
        for key in ("updatedToolOutput", "updatedMCPToolOutput"):
            if key in specific and (key == "updatedToolOutput" or call.tool.startswith("mcp__")):
                value = specific[key]
                replaced = value if isinstance(value, str) else json.dumps(value, default=str)
                break
        context = _context_text(specific.get("additionalContext"), "additionalContext")
        return self._amend(result, replaced=replaced, feedback=feedback, context=context)

    def _amend(
        self,
        result: ToolResult,
        *,
        replaced: str | None = None,
        feedback: str = "",
        context: str = "",
    ) -> Decision | None:
        """What the model sees after the hook: the (replaced) output, then the hook's
        feedback and context, which Claude Code adds after the tool result."""
        if replaced is None and not feedback and not context:
            return None
        text = result.for_llm if replaced is None else replaced
        notes = []
        if feedback:
            notes.append(f"{self.spec.event} hook feedback: {feedback}")
        if context:
            notes.append(context)
        if notes:
            text = "\n\n".join([text, *notes]) if text else "\n\n".join(notes)
        why = "output replaced" if replaced is not None else "feedback added"
        return Decision(
            Action.MODIFY,
            reason=f"{why} by hook {self.name!r}",
            result=result.replace(for_llm=text),
        )


class _UserPromptSubmit(_CommandHook):
    """UserPromptSubmit -> user_prompt."""

    def user_prompt(self, prompt: Prompt) -> Decision | None:
        if self.spec.shape == "agentao":
            done = self._run(prompt, {"userMessage": prompt.text})
            return self._agentao(prompt, done)
        done = self._run(prompt, {"prompt": prompt.text})
        return self._claude(prompt, done)

    def _claude(self, prompt: Prompt, done: _Completed) -> Decision | None:
        if done.code == 2:
            reason = done.stderr.strip() or f"prompt blocked by hook {self.name!r} (exit 2)"
            return Decision(Action.ABORT_TURN, reason=reason)
        if done.code != 0:
            raise self._exit_failure(done)
        output = self._claude_json(done)
        if output is None:
            return None
        if isinstance(output, str):
            return _with_context(prompt, [output], self.name)  # plain stdout is context
        self._notice(output)
        stop = self._stop(output)
        if stop is not None:
            return stop
        if output.get("decision") is not None:
            if output["decision"] != "block":
                raise CommandHookError(f"`decision` must be 'block', not {output['decision']!r}")
            reason = _optional_text(output, "reason") or f"prompt blocked by hook {self.name!r}"
            return Decision(Action.ABORT_TURN, reason=reason)
        specific = self._specific(output)
        context = _context_text(specific.get("additionalContext"), "additionalContext")
        return _with_context(prompt, [context] if context else [], self.name)

    def _agentao(self, prompt: Prompt, done: _Completed) -> Decision | None:
        if done.code in (0, 2):
            if done.code == 2:
                self._warn_exit(done, "Agentao ignores exit 2; its JSON, if any, decides")
            return self._agentao_verdict(prompt, done)
        return _refusal_or_failure(
            lambda d: self._agentao_verdict(prompt, d), done, self._exit_failure(done)
        )

    def _agentao_verdict(self, prompt: Prompt, done: _Completed) -> Decision | None:
        output = self._claude_json(done)
        if output is None:
            return None
        if isinstance(output, str):
            return _with_context(prompt, [output], self.name)
        if "blockingError" in output:
            blocked = str(output["blockingError"])
            if blocked:
                return Decision(Action.ABORT_TURN, reason=blocked)
            return None
        if output.get("preventContinuation"):
            reason = _optional_text(output, "stopReason") or "Hook prevented continuation"
            return Decision(Action.ABORT_TURN, reason=reason)
        contexts = _contexts(output.get("additionalContext"))
        return _with_context(prompt, contexts, self.name)


class _PromptText:
    """Agentao's `prompt` hook: its text, with `{userMessage}` filled in, added to the
    prompt as context. No process and no model, so it runs inline."""

    inline = True

    def __init__(self, spec: _Spec, priority: int) -> None:
        self.name = spec.name
        self.priority = priority
        self.spec = spec

    def user_prompt(self, prompt: Prompt) -> Decision | None:
        context = self.spec.text.replace("{userMessage}", prompt.text)
        return _with_context(prompt, [context], self.name)


# --------------------------------------------------------------------------- helpers


def _substitute(text: str, values: Mapping[str, str]) -> str:
    for name, value in values.items():
        text = text.replace("${" + name + "}", value)
    return text


def _first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0] if stripped else ""


def _stderr_quote(stderr: str) -> str:
    """Stderr for a reason or a warning: its first line, and its last when there are
    more, since a Python traceback opens with a header and names the error last."""
    lines = [line.strip()[:_QUOTE_CHARS] for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "(no stderr)"
    if len(lines) == 1:
        return lines[0]
    return f"{lines[0]} … {lines[-1]}"


def _refusal_or_failure(
    verdict: Callable[[_Completed], Decision | None], done: _Completed, failure: CommandHookError
) -> Decision | None:
    """For a flat-shape hook that exited with a failure status: a refusal it still
    printed stands (Agentao reads the output whatever the exit, and a failure policy of
    `ignore` must not undo a "no"); anything else is the failure."""
    try:
        decision = verdict(done)
    except CommandHookError:
        raise failure from None
    if decision is not None and decision.action in (Action.DENY_TOOL, Action.ABORT_TURN):
        return decision
    raise failure


def _optional_text(output: Mapping[str, Any], key: str) -> str:
    value = output.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise CommandHookError(f"`{key}` must be a string, not {_type_name(value)}")
    return value


def _contexts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def _context_text(value: Any, key: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    raise CommandHookError(f"`{key}` must be a string, not {_type_name(value)}")


def _with_context(prompt: Prompt, contexts: Sequence[str], hook: str) -> Decision | None:
    """Agentao's rendering of hook context: each piece in its own
    <user-prompt-submit-hook> tag, before the user's text."""
    pieces = [c for c in contexts if c.strip()]
    if not pieces:
        return None
    extra = "\n".join(f"<{_CONTEXT_TAG}>\n{c}\n</{_CONTEXT_TAG}>" for c in pieces)
    return Decision(
        Action.MODIFY,
        reason=f"context added by hook {hook!r}",
        prompt=prompt.replace(text=f"{extra}\n{prompt.text}"),
    )


_HOOK_CLASSES: Mapping[str, type[_CommandHook]] = {
    "PreToolUse": _PreToolUse,
    "PostToolUse": _PostToolUse,
    "PostToolUseFailure": _PostToolUse,
    "UserPromptSubmit": _UserPromptSubmit,
}


def load_claude_hooks(paths: Sequence[Path], *, aliases: AliasTable) -> list[object]:
    """Read every hooks file and make one chain hook per configured hook.

    Priorities follow the order of the files, then of the hooks in each file, so the
    chain runs them as the host would. SettingsError names the file and the field (or
    line:col) of the first thing that is wrong; no hook is returned then.
    """
    names = _HostNames(aliases)
    hooks: list[object] = []
    seen: dict[Path, Path] = {}
    for path in paths:
        path = Path(path)
        key = path.resolve()
        if key in seen:
            raise _settings_error(path, f"listed twice (also as {seen[key]})")
        seen[key] = path
        for spec in _load_file(path):
            priority = len(hooks)
            if spec.kind == "prompt":
                hooks.append(_PromptText(spec, priority))
            else:
                hooks.append(_HOOK_CLASSES[spec.event](spec, names, priority))
    return hooks
