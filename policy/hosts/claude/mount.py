"""`policy check --host`: is `policy hook <host>` mounted so that it can keep its word?

A command hook fails open on the host's side: Claude Code runs the call when its hook
times out. `policy hook` answers (a refusal if need be) by `--deadline`, so the deadline
must end before the host's timeout; with `--approval wait` every approval gate must end
before the deadline, or an unanswered request is denied early by the watchdog instead
of at the gate's timeout; with `--approval ask` the host's own dialog decides calls the
packs give to named approvers; and at Claude Code's PostToolUse, a rule that rewrites a
built-in tool's output hides nothing from the model, which `policy hook claude` can
only tell after the original output. This module reads the host's settings/hooks file
(Claude Code's `.claude/settings.json`, Agentao's hooks.json: the same nested shape)
through the hooks-file reader (`claude.hooks_file`: its walk of the nested shape, and
where each value is written), finds every command hook that runs `policy hook <host>`,
and reports what does not fit, located at the command string in the settings file.
What each host does differently (its default hook timeout, `disableAllHooks`,
`onFailure`, ...) is its `claude.dialect`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import re
import shlex
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from policy._lazy_dataclass import dataclass, field
from policy.errors import PolicyError
from policy.hosts import ANSWER_MARGIN, HOOK_DEFAULT_APPROVAL, HOOK_DEFAULT_DEADLINE
from policy.hosts.claude.dialect import DIALECTS, Dialect
from policy.hosts.claude.hooks_file import Located, nested_commands, read_text
from policy.hosts.claude.names import MCP_PREFIX
from policy.packs.diagnostics import Diagnostic, PackError, Severity

__all__ = [
    "APPROVAL_MARGIN",
    "DEADLINE_MARGIN",
    "HOOK_DEFAULT_APPROVAL",
    "HOOK_DEFAULT_DEADLINE",
    "HookMount",
    "Mount",
    "MountError",
    "check_mount",
    "mount_pack_paths",
    "project_root",
    "read_mount",
]

# Facts about `policy hook`, checked by running it (docs/hosts.md: "Claude Code
# facts"); the checks below read them from here only, and the hosts' from their
# `claude.dialect` (the timeout of a hook whose entry gives none, the keys their
# settings files know).

#: How far below the host's hook timeout `--deadline` must end: the process start, and
#: the answer's way back to the host, come on top of the deadline.
DEADLINE_MARGIN = 2.0
#: What `policy hook` keeps back from `--deadline` after waiting for an approval.
APPROVAL_MARGIN = ANSWER_MARGIN

#: The event at which a host asks about a tool call: the only one with approvals.
_PRE_TOOL = "PreToolUse"
#: The events at which Claude Code shows a hook a tool's result (our after_tool).
_POST_TOOL = frozenset({"PostToolUse", "PostToolUseFailure"})
_PROJECT_DIR_VARS = ("$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}")
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
_PYTHON_VALUED = frozenset({"-X", "-W"})  # python options that take the next word
_REDIRECTIONS = frozenset({">", ">>", "<", "<<", ">&", "<&", ">|", "&>", "&>>", "<>"})
_LISTED = 3  # gates named in one message before "and N more"


class MountError(PolicyError):
    """The host's settings file cannot be read at all (a usage error: exit 2)."""


@dataclass(frozen=True, slots=True)
class HookMount:
    """One command hook of the settings file that runs `policy hook <host>`."""

    event: str
    command: str
    line: int  # of the command string in the settings file
    col: int
    timeout: float  # effective: the entry's, else the host's default
    timeout_given: bool
    deadline: float
    approval: str
    packs: tuple[str, ...]  # --packs as written
    config: str | None  # --config as written


@dataclass(slots=True)
class Mount:
    """The `policy hook <host>` commands of one settings file, and what reading it found."""

    path: str  # as given, for diagnostics
    host: str
    root: Path  # the project the hooks run for
    hooks: list[HookMount] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    other_hosts: set[str] = field(default_factory=set)
    hooks_at: tuple[int, int] = (1, 1)  # where the `hooks` object is, for file-wide notes

    @property
    def dialect(self) -> Dialect:
        """How the host speaks the vocabulary, and what its settings file knows."""
        return DIALECTS[self.host]

    def at(self, line: int, col: int, severity: Severity, code: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(self.path, line, col, severity, code, message))


# ------------------------------------------------------------------ reading


def project_root(settings_file: Path) -> Path:
    """The project a settings file's hooks run for: the parent of `.claude/` for a
    file in `.claude/` (`.claude/settings.json`, `settings.local.json`), else the
    settings file's own directory."""
    parent = settings_file.parent
    if parent.name == ".claude":
        return parent.parent
    return parent


def read_mount(
    settings_file: str, host: str, parser: argparse.ArgumentParser
) -> Mount:
    """Every `policy hook <host>` command hook in `settings_file`.

    A file that is not JSON, or not in the hooks shape, is reported as diagnostics;
    one that cannot be read is a MountError. `parser` is `policy`'s own, which the CLI
    hands in: each command is read as `policy hook` will read it.
    """
    path = Path(settings_file)
    mount = Mount(settings_file, host, project_root(path))
    try:
        text = read_text(path)
    except OSError as exc:
        raise MountError(f"{settings_file}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise MountError(f"{settings_file}: not UTF-8 text: {exc}") from None
    try:
        located = Located(text)
    except json.JSONDecodeError as exc:
        mount.at(exc.lineno, exc.colno, "error", "json-syntax", f"not JSON: {exc.msg}")
        return mount
    data = located.doc
    dialect = mount.dialect
    if dialect.disable_all_hooks and isinstance(data, dict) and data.get("disableAllHooks") is True:
        mount.at(
            *located.at("disableAllHooks"),
            "warning",
            "hooks-disabled",
            f"disableAllHooks is true: {dialect.display} runs no hook, so the policy decides "
            "nothing",
        )
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        if hooks is not None:
            mount.at(*located.at("hooks"), "error", "wrong-type", "`hooks` must be an object")
        return mount
    mount.hooks_at = located.at("hooks")
    for event, key, hook in nested_commands(hooks):
        command = hook.get("command")
        if not isinstance(command, str):
            continue
        _read_hook(
            mount,
            parser,
            event,
            command,
            hook,
            located.at("hooks", *key, "command"),
            located.at("hooks", *key, "timeout"),
        )
    return mount


def _read_hook(
    mount: Mount,
    parser: argparse.ArgumentParser,
    event: str,
    command: str,
    hook: dict[str, Any],
    at: tuple[int, int],
    timeout_at: tuple[int, int],
) -> None:
    argv = _policy_hook_argv(command)
    if argv is None:
        return
    parsed = _parse(parser, argv)
    if isinstance(parsed, str):
        mount.at(
            *at,
            "error",
            "invalid-hook-command",
            f"`policy hook` does not run with these arguments ({parsed}): it decides "
            "nothing, at any event",
        )
        return
    if parsed.host != mount.host:
        mount.other_hosts.add(str(parsed.host))
        return
    raw_timeout: Any = hook.get("timeout")
    timeout = mount.dialect.default_timeout
    given = raw_timeout is not None
    if given:
        number = isinstance(raw_timeout, int | float) and not isinstance(raw_timeout, bool)
        if number and raw_timeout > 0:
            timeout = float(raw_timeout)
        else:
            given = False
            mount.at(
                *timeout_at,
                "error",
                "invalid-timeout",
                "`timeout` must be a positive number of seconds, not "
                f"{json.dumps(raw_timeout)} (checked as the default, {timeout:g} s)",
            )
    dialect = mount.dialect
    if dialect.on_failure and event == _PRE_TOOL and hook.get("onFailure") != "block":
        mount.at(
            *at,
            "warning",
            "hook-fails-open",
            'add `"onFailure": "block"` to this hook entry: without it '
            f"{dialect.display} runs the call when the hook times out, crashes or prints "
            "something that is not JSON (2.1.332 honours it; older versions ignore the key)",
        )
    mount.hooks.append(
        HookMount(
            event=event,
            command=command,
            line=at[0],
            col=at[1],
            timeout=timeout,
            timeout_given=given,
            deadline=float(parsed.deadline),
            approval=str(parsed.approval),
            packs=tuple(parsed.packs),
            config=parsed.config,
        )
    )


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace | str:
    """The parsed `policy hook` arguments, or argparse's complaint."""
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            return parser.parse_args(["hook", *argv])
    except SystemExit as exc:
        if not exc.code:  # --help: the hook prints usage, answers nothing, exits 0
            return "--help prints the usage and exits"
        lines = [line for line in err.getvalue().splitlines() if line.strip()]
        message = lines[-1] if lines else "invalid arguments"
        return message.split("error: ", 1)[-1]


def _policy_hook_argv(command: str) -> list[str] | None:
    """The arguments after `hook` when the shell command runs `policy hook ...`
    (`policy`, `.venv/bin/policy`, `python -m policy`, after `uv run`, `env`, `cd x &&`),
    else None. Shell operators end a command; a redirection is not an argument."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        tokens = list(lexer)
    except ValueError:  # unbalanced quotes: the shell cannot run it either
        return None
    segments: list[list[str]] = [[]]
    target = False
    for token in tokens:
        if target:  # a redirection's target is no argument
            target = False
        elif token and all(c in "();<>|&" for c in token):
            if token in _REDIRECTIONS:
                if segments[-1] and segments[-1][-1].isdigit():
                    segments[-1].pop()  # `2>>log`: the 2 is the redirection's
                target = True
            else:
                segments.append([])  # `;`, `&&`, `|`, ...: the next command
        else:
            segments[-1].append(token)
    for words in segments:
        argv = _after_hook(words)
        if argv is not None:
            return argv
    return None


def _after_hook(words: list[str]) -> list[str] | None:
    for i, word in enumerate(words):
        name = word.rsplit("/", 1)[-1]
        j = None
        if name == "policy":
            j = i + 1
        elif _PYTHON.fullmatch(name):
            k = i + 1
            while k < len(words) and words[k].startswith("-") and not words[k].startswith("-m"):
                k += 2 if words[k] in _PYTHON_VALUED else 1
            if words[k : k + 2] == ["-m", "policy"]:
                j = k + 2
            elif k < len(words) and words[k] == "-mpolicy":
                j = k + 1
            else:
                return None  # python running something else: the rest is its argv
        if j is not None and j < len(words) and words[j] == "hook":
            return words[j + 1 :]
    return None


# ------------------------------------------------------------------ checks


#: Report a problem of one hook at its command: (hook, severity, code, message).
_Note = Callable[["HookMount", Severity, str, str], None]


@dataclass(frozen=True, slots=True)
class _Gate:
    source: str  # pack/rule-id, or pack/approval for the builtin
    timeout: float | None  # None: approval_timeout_ms
    approvers: tuple[str, ...]


@dataclass(slots=True)
class _Packs:
    gates: list[_Gate]
    errors: list[Diagnostic]
    #: after_tool `modify` rules that can apply to a tool that is not an MCP server's.
    rewrites: list[str] = field(default_factory=list)


def _resolve(raw: str, root: Path, cwd: Path) -> Path | None:
    """A `--packs`/`--config` path as the hook will find it: `$CLAUDE_PROJECT_DIR/...`
    is the project; a relative path is taken from the project, else from where the
    check runs (an example checked in place); None when neither exists."""
    text = raw
    for var in _PROJECT_DIR_VARS:
        if text == var or text.startswith(var + "/"):
            text = str(root) + text[len(var) :]
            break
    path = Path(text).expanduser()
    if path.is_absolute():
        return path if path.exists() else None
    for base in (root, cwd):
        if (base / path).exists():
            return base / path
    return None


def mount_pack_paths(mount: Mount, cwd: Path | None = None) -> list[str]:
    """The `--packs` paths of the mount's hooks that exist (for a check given none)."""
    found: dict[str, None] = {}
    for hook in mount.hooks:
        for raw in hook.packs:
            path = _resolve(raw, mount.root, cwd or Path())
            if path is not None:
                found.setdefault(str(path), None)
    return list(found)


def _gates_of(paths: Sequence[str]) -> _Packs:
    """The approval gates the packs at `paths` put on before_tool calls, and their
    after_tool rewrites of tools that are not MCP tools."""
    from policy.packs.load import read_packs

    try:
        loaded, diagnostics = read_packs(paths)
    except PackError as exc:
        return _Packs([], list(exc.diagnostics))
    gates: list[_Gate] = []
    rewrites: list[str] = []
    for pack in loaded:
        model = pack.model
        for rule in model.rules:
            if (rule.enforcement or model.enforcement) == "audit":
                continue  # audit-mode rules record what they would do; they change nothing
            if rule.on == "after_tool" and rule.action == "modify":
                if _reaches_built_in_tools(rule.tools):
                    rewrites.append(f"{model.name}/{rule.id}")
                continue
            if rule.on != "before_tool":
                continue
            if rule.action == "ask" or (rule.action == "respond" and rule.names_gate):
                gates.append(
                    _Gate(
                        f"{model.name}/{rule.id}",
                        _seconds(rule.timeout),
                        tuple(rule.approvers or ()),
                    )
                )
        approval = model.builtins.approval
        if approval is not None:
            gates.append(
                _Gate(
                    f"{model.name}/approval", _seconds(approval.timeout), tuple(approval.approvers)
                )
            )
    errors = [d for d in diagnostics if d.severity == "error"]
    return _Packs(gates, errors, rewrites)


def _reaches_built_in_tools(tools: Sequence[str] | None) -> bool:
    """Whether a rule's `tools:` can match a tool that is not an MCP server's: no
    `tools:`, only exclusions, or a pattern (brace-expanded) whose literal start is not
    `mcp__`."""
    import bracex

    positive = [p for p in tools or () if not p.startswith("!")]
    if not positive:
        return True
    for pattern in positive:
        for name in bracex.expand(pattern):
            literal = re.split(r"[*?\[]", name, maxsplit=1)[0]
            if not literal.startswith(MCP_PREFIX):
                return True
    return False


def _seconds(value: str | int | None) -> float | None:
    from policy.durations import parse_duration

    return None if value is None else parse_duration(value)


def _key(paths: Iterable[str]) -> frozenset[Path]:
    return frozenset(Path(p).resolve() for p in paths)


def _within(path: str, roots: frozenset[Path]) -> bool:
    """Whether the pack file at `path` is one of (or under one of) `roots`."""
    resolved = Path(path).resolve()
    return any(resolved == root or resolved.is_relative_to(root) for root in roots)


def check_mount(
    mount: Mount,
    *,
    packs: Sequence[str],
    approval_timeout: float,
    cwd: Path | None = None,
) -> list[Diagnostic]:
    """Everything that keeps the mount's `policy hook` commands from doing what they say.

    `packs` and `approval_timeout` (seconds) are the check's own: used for a hook that
    names no `--packs` (or `--config`) of its own. The packs a check was given are
    checked by it; only errors of other packs a hook loads are reported here.
    """
    cwd = cwd or Path()
    out = list(mount.diagnostics)
    checked = _key(packs)
    cache: dict[frozenset[Path], _Packs] = {}
    noted: set[tuple[int, int, str]] = set()

    def note(hook: HookMount, severity: Severity, code: str, message: str) -> None:
        if (hook.line, hook.col, message) not in noted:
            noted.add((hook.line, hook.col, message))
            out.append(Diagnostic(mount.path, hook.line, hook.col, severity, code, message))

    if not any(h.event == _PRE_TOOL for h in mount.hooks) and not any(
        d.code == "json-syntax" for d in out
    ):
        others = ", ".join(f"`policy hook {h}`" for h in sorted(mount.other_hosts))
        extra = f" (it runs {others}, for another host)" if others else ""
        out.append(
            Diagnostic(
                mount.path,
                *mount.hooks_at,
                "warning",
                "no-policy-hook",
                f"no {_PRE_TOOL} command hook runs `policy hook {mount.host}`{extra}: the "
                "policy decides no tool call",
            )
        )

    for hook in mount.hooks:
        _check_deadline(mount, hook, note)
        hook_packs, timeout = _hook_sources(mount, hook, packs, approval_timeout, cwd, note)
        if not hook_packs:
            continue
        key = _key(hook_packs)
        if key not in cache:
            cache[key] = _gates_of(hook_packs)
        found = cache[key]
        unchecked = [d for d in found.errors if not _within(d.path, checked)]
        if unchecked:
            first = unchecked[0]
            note(
                hook,
                "error",
                "hook-packs-invalid",
                f"the packs this hook loads ({', '.join(hook_packs)}) do not load: "
                f"{len(unchecked)} error(s), first {first}; it refuses every call "
                f"(run `policy check {' '.join(hook_packs)}`)",
            )
        if hook.event == _PRE_TOOL:
            _check_gates(mount, hook, found.gates, timeout, note)
        elif (
            hook.event == "PostToolUseFailure"
            and mount.dialect.keeps_failed_output
            and found.rewrites
        ):
            _check_rewrites(mount, hook, found.rewrites, note)
    return sorted(set(out))


def _check_rewrites(mount: Mount, hook: HookMount, rewrites: Sequence[str], note: _Note) -> None:
    """At PostToolUseFailure Claude Code takes no replacement output (only
    `additionalContext`): a rewrite of a failed tool's output hides nothing. At
    PostToolUse `policy hook claude` replaces it (`updatedMCPToolOutput`, or
    `updatedToolOutput` in the tool's own shape), so there is nothing to warn about."""
    listed = ", ".join(rewrites[:_LISTED])
    more = len(rewrites) - _LISTED
    if more > 0:
        listed += f" and {more} more"
    note(
        hook,
        "warning",
        "output-not-replaced",
        f"{listed} rewrite tool output, but at {hook.event} {mount.dialect.display} replaces "
        "none: the "
        "model gets the failed tool's original output, and the rewritten one only after "
        "it; to keep something from the model, deny the call at before_tool",
    )


def _check_deadline(mount: Mount, hook: HookMount, note: _Note) -> None:
    if hook.deadline <= hook.timeout - DEADLINE_MARGIN:
        return
    host = mount.dialect.display
    given = "" if hook.timeout_given else f", {host}'s default"
    note(
        hook,
        "error",
        "deadline-exceeds-timeout",
        f"--deadline {hook.deadline:g} s is not {DEADLINE_MARGIN:g} s below this hook's "
        f"timeout ({hook.timeout:g} s{given}): the host's timeout fires first and "
        f"{host} runs the call (fails open); keep --deadline at "
        f"{hook.timeout - DEADLINE_MARGIN:g} s or less, or raise `timeout`",
    )


def _hook_sources(
    mount: Mount,
    hook: HookMount,
    packs: Sequence[str],
    approval_timeout: float,
    cwd: Path,
    note: _Note,
) -> tuple[list[str], float]:
    """The packs the hook loads and its approval_timeout_ms (seconds): its `--packs`,
    else its `--config`'s settings, else the check's."""
    root = mount.root.resolve()
    own: list[str] = []
    for raw in hook.packs:
        path = _resolve(raw, mount.root, cwd)
        if path is None:
            note(
                hook,
                "warning",
                "unresolved-path",
                f"--packs {raw}: no such file or directory in the project ({root}) "
                "or here; a hook that cannot find its packs refuses every call",
            )
        else:
            own.append(str(path))
    settings_packs: list[str] = []
    if hook.config is not None:
        config = _resolve(hook.config, mount.root, cwd)
        if config is None:
            note(
                hook,
                "warning",
                "unresolved-path",
                f"--config {hook.config}: no such file in the project ({root}) or "
                "here; a hook that cannot read its settings refuses every call",
            )
        else:
            from policy.settings import load_settings

            try:
                settings = load_settings(config)
            except PolicyError as exc:
                note(
                    hook,
                    "error",
                    "hook-config-invalid",
                    f"--config {hook.config} does not load, so the hook refuses every "
                    f"call: {str(exc).splitlines()[0]}",
                )
            else:
                approval_timeout = settings.approval_timeout_ms / 1000
                for entry in settings.packs:
                    found = _resolve(str(entry), mount.root, cwd)
                    if found is not None:
                        settings_packs.append(str(found))
    return own or settings_packs or list(packs), approval_timeout


def _check_gates(
    mount: Mount, hook: HookMount, gates: Sequence[_Gate], default: float, note: _Note
) -> None:
    def seconds(gate: _Gate) -> float:
        return default if gate.timeout is None else gate.timeout

    def listed(items: Sequence[str]) -> str:
        more = len(items) - _LISTED
        return ", ".join(items[:_LISTED]) + (f" and {more} more" if more > 0 else "")

    if hook.approval == "wait":
        budget = hook.deadline - APPROVAL_MARGIN
        late = [g for g in gates if seconds(g) >= budget]
        if late:
            named = [
                f"{g.source} ({seconds(g):g} s"
                + (", approval_timeout_ms" if g.timeout is None else "")
                + ")"
                for g in late
            ]
            note(
                hook,
                "error",
                "approval-cannot-fit",
                f"--approval wait can wait at most {budget:g} s for a person (--deadline "
                f"{hook.deadline:g} s less {APPROVAL_MARGIN:g} s to answer), but "
                f"{listed(named)} wait longer: unanswered, the call is denied at the "
                "hook's deadline, not at the gate's timeout; give those gates a "
                f"`timeout:` under {budget:g} s"
                + (
                    " (or lower approval_timeout_ms)"
                    if any(g.timeout is None for g in late)
                    else ""
                )
                + ", or raise --deadline (and `timeout`)",
            )
    elif hook.approval == "ask":
        named_gates = [g for g in gates if g.approvers]
        if named_gates:
            named = [f"{g.source} ({', '.join(g.approvers)})" for g in named_gates]
            note(
                hook,
                "warning",
                "approvers-to-host-dialog",
                f"--approval ask sends every gated call to {mount.dialect.display}'s own "
                f"dialog, where the developer approves it, but {listed(named)} name "
                "approvers: use --approval auto, defer or wait so that they decide",
            )
