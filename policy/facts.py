"""The facts a call is judged on, shared by rule packs and builtins.

Packs read them in CEL (`commands`, `access`, `workspace`, `home`, `protected`);
the autonomy and contract builtins read the same objects, so a command line means
one thing to every part of the policy. Computed once per call (several packs and
builtins ask about the same call object in one decision) and only when asked for.

`FactsContext` is what the engine knows and the call does not: the workspace the
operator set (else `CLAUDE_PROJECT_DIR` from the hook's environment, set by the
adapters; else the call's cwd, which the agent controls) and the paths the policy
itself depends on (`protected`: its packs, settings, data
dir, decision log, installation), which rules keep the agent from changing.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from policy import telemetry
from policy._env import CONFIG_ENV
from policy._lazy_dataclass import dataclass, field, replace
from policy.analysis.environ import home_variable
from policy.errors import AnalysisIncomplete
from policy.model import CelList, CelMap

if TYPE_CHECKING:
    # Imported by `facts_of` on first use: a decision that reads no facts (most
    # events of a one-event hook) never loads the analysers.
    from policy.analysis.access import Access

__all__ = [
    "CallFacts",
    "Caller",
    "FactsContext",
    "current_caller",
    "current_principal",
    "deciding_for",
    "facts_of",
    "home_dir",
    "protected_paths",
    "scoped",
]


@dataclass(frozen=True, slots=True)
class FactsContext:
    #: The operator's workspace; "" means the call's own cwd.
    workspace: str = ""
    #: Paths (files or directories) the policy depends on.
    protected: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Caller:
    """Who asked for this decision, when that is not this process: `policy serve`
    deciding for a hook of another user. `home` is what `~` means (that user's home,
    from the uid the socket's peer credentials name), `workspace` the project the hook
    was started in (`CLAUDE_PROJECT_DIR`), `uid` the agent's uid (its approval requests
    are its own), `protected` more paths the policy depends on (the hook's settings).

    `principal` is who the kernel or a token says is asking (`uid:1001`, `token:ci`,
    `anonymous`): everything remembered per caller — rate-limit budgets, contract usage,
    approval requests and grants — is kept apart per principal, so nothing one agent is
    granted or spends reaches another. "" in process: the process's own user asks, and
    keys are as they always were. `peer` is a TCP caller's address, for the log;
    `may_file` is False for callers that may get decisions but not file approval
    requests (anonymous TCP)."""

    home: str | None = None
    workspace: str | None = None
    uid: int | None = None
    protected: tuple[str, ...] = ()
    principal: str = ""
    peer: str = ""
    may_file: bool = True


_caller: ContextVar[Caller | None] = ContextVar("policy_caller", default=None)


@contextlib.contextmanager
def deciding_for(caller: Caller | None) -> Iterator[None]:
    """Decide, within this block (and the threads it hands work to with its context),
    for `caller` rather than for this process's own user."""
    from policy.analysis.viewer import looking_as

    token = _caller.set(caller)
    try:
        # The disk is looked at with the caller's permissions, not this process's.
        with looking_as(caller.uid if caller is not None else None):
            yield
    finally:
        _caller.reset(token)


def current_caller() -> Caller | None:
    return _caller.get()


def current_principal() -> str:
    """The principal whose state this decision reads and spends ("" in process)."""
    caller = _caller.get()
    return caller.principal if caller is not None else ""


def scoped(key: str) -> str:
    """`key` (a session, a sender) within the current principal: the same key from two
    principals names two things. Length-prefixed, so no principal's key can spell
    another's; unchanged in process."""
    principal = current_principal()
    return f"{len(principal)}:{principal}/{key}" if principal else key


def home_dir() -> str:
    """What `~` means: the home of the user the agent's tools run as — this process's
    user for a hook (hooks run as the agent's user), the caller's for `policy serve`."""
    caller = _caller.get()
    if caller is not None and caller.home:
        return caller.home
    home = home_variable()  # what expanduser("~") reads first, without its other work
    expanded = (home.rstrip("/") or "/") if home is not None else os.path.expanduser("~")
    return "" if expanded == "~" else expanded


@dataclass(frozen=True, slots=True)
class CallFacts:
    """What a call does, for packs and builtins to judge. Never built from an analysis
    that gave up (`Access.limit`): that raises `AnalysisIncomplete`, which the chain
    turns into a refusal whatever the packs say — so no rule, builtin or `on_error`
    can pass a call whose facts are not known."""

    access: Access
    workspace: str
    home: str
    #: The CEL values, built once (in the plain shape every pack's program takes as is).
    commands_cel: CelList = field(default_factory=CelList)
    access_cel: CelMap = field(default_factory=CelMap)

    def __post_init__(self) -> None:
        if self.access.limit:
            raise AnalysisIncomplete(f"the call cannot be analysed: {self.access.limit}")


_local = threading.local()


def forget_last_call() -> None:
    """A decision starts on this thread: the facts kept of the last call are not
    carried into it, even when it is the same call object — the disk may have changed
    since (a link made while a person was asked, a config planted by a process the
    last call started)."""
    _local.last = None
    _local.decision = getattr(_local, "decision", 0) + 1


def decision_number() -> int:
    """How many decisions this thread has started (`forget_last_call`): what tells the
    next decision of the same call object from the next pack of the same decision."""
    number: int = getattr(_local, "decision", 0)
    return number


def facts_of(call: Any, context: FactsContext) -> CallFacts:
    """The facts of `call` (a ToolCall) under `context`; the last call is remembered
    per thread, so the packs and builtins deciding one call compute them once (until
    the next decision starts: `forget_last_call`).

    Raises `AnalysisIncomplete` when the analysis gave up (a cap, named, or an error
    of its own): every reader of the facts then refuses the call, and the chain
    makes that a refusal whatever the hook's failure policy or the pack's `on_error`.
    Computed only when something reads them: a call no rule asks about is not analysed.
    """
    caller = _caller.get()
    last = getattr(_local, "last", None)
    if last is not None and last[0] is call and last[1] is context and last[3] is caller:
        found: CallFacts | AnalysisIncomplete = last[2]
        if isinstance(found, AnalysisIncomplete):
            raise AnalysisIncomplete(found.limit)
        return found
    try:
        facts = _facts(call, context, caller)
    except AnalysisIncomplete as exc:
        _local.last = (call, context, exc, caller)
        raise
    _local.last = (call, context, facts, caller)
    return facts


def _facts(call: Any, context: FactsContext, caller: Caller | None) -> CallFacts:
    analysis = _ANALYSIS or _analysis()
    home = home_dir()
    cwd = call.cwd if isinstance(call.cwd, str) else ""
    project = caller.workspace if caller is not None and caller.workspace else ""
    workspace = context.workspace or project or (cwd if cwd.startswith("/") else "")
    started = time.perf_counter_ns()
    try:
        if workspace:
            workspace = _located(workspace, home, analysis[1])
        result = analysis[0].of_call(call.tool, call.args, cwd, home, tool_raw=call.tool_raw)
    except Exception as exc:  # a failed analysis refuses the call, never passes it
        failed = f"the analysis failed: {type(exc).__name__}: {exc}"
        raise AnalysisIncomplete(f"the call cannot be analysed: {failed}") from exc
    finally:
        telemetry.ANALYSIS_SECONDS.observe_ns(time.perf_counter_ns() - started)
    if result.writes:
        protected = context.protected + (caller.protected if caller is not None else ())
        result = _through_hard_links(result, protected)
    commands_cel, access_cel = _in_cel(result)
    return CallFacts(
        access=result,
        workspace=workspace,
        home=home,
        commands_cel=commands_cel,
        access_cel=access_cel,
    )


def _analysis() -> tuple[Any, Callable[[str, str | None, str], str]]:
    """The analysis's entry points, imported at the first call that is analysed (a
    one-event hook answered from what it kept never imports them)."""
    global _ANALYSIS
    from policy.analysis import access
    from policy.analysis.operands import locate

    _ANALYSIS = (access, locate)
    return _ANALYSIS


_ANALYSIS: tuple[Any, Callable[[str, str | None, str], str]] | None = None


def _located(workspace: str, home: str, locate: Callable[[str, str | None, str], str]) -> str:
    """`workspace` located (`operands.locate`: lexical), kept for the next decision: the
    engine's or a caller's workspace is one of a few. Not one with a `~` (`~name`,
    `file://~name`), which the account database may place."""
    key = (workspace, home)
    found = _workspaces.get(key)
    if found is None:
        found = locate(workspace, "/", home)
        if "~" not in workspace:
            if len(_workspaces) >= 64:
                _workspaces.clear()  # (one call: safe while another thread reads)
            _workspaces[key] = found
    return found


_workspaces: dict[tuple[str, str], str] = {}


def _in_cel(access: Access) -> tuple[CelList, CelMap]:
    """`access` as the CEL engines take it, kept with it: a repeated call whose line
    nothing on disk changed has the same `Access` (policy.analysis.access), and
    neither is ever changed once built, so the packs' recalled answers find the same
    facts objects (and their digests, policy.packs.recall) too."""
    made: tuple[CelList, CelMap] | None = access.kept.get("cel")
    if made is None:
        made = access.kept["cel"] = (
            CelList(c.to_cel() for c in access.commands),
            CelMap(access.to_cel()),
        )
    return made


def _through_hard_links(access: Access, protected: tuple[str, ...]) -> Access:
    """`access` with the protected files its writes reach under another name: a file
    written in place (`echo >> doc.yaml`, `sed -i`, Edit) that is a hard link of a
    pack changes the pack. Only an existing regular file with more than one link is
    looked at (one `stat` per such write, as the caller may); its device and inode are
    compared with the protected files' (`_protected_inodes`). One that matches none of
    them, on a device where a protected directory too large to list lives (a
    virtualenv, the stdlib), may be a name of a file in there: it is written as an
    unknown path (`?/...`), which the self-protection pack asks about
    (`ask-unknown-writes`). Hard links to a file are rare where an agent writes (a
    pnpm or uv store, cargo's target dir), so the question is rare too."""
    import stat as _stat

    from policy.analysis import viewer
    from policy.analysis.operands import is_unknown
    from policy.analysis.paths import is_pattern

    reached: list[str] = []
    if len(access.writes) > _LINK_CHECKS:  # past the cap: unchecked, so possibly one
        reached.append("?/(more writes than are checked for hard links)")
    for path in access.writes[:_LINK_CHECKS]:
        if not path.startswith("/") or is_unknown(path) or is_pattern(path):
            continue
        try:
            if not viewer.may_search(os.path.dirname(path) or "/"):
                continue
            info = os.stat(path)
        except (OSError, ValueError):
            continue
        if info.st_nlink < 2 or not _stat.S_ISREG(info.st_mode):
            continue
        inodes, unlisted = _protected_inodes(protected)
        named = inodes.get((info.st_dev, info.st_ino))
        if named is not None:
            reached.append(named)
        elif info.st_dev in unlisted:
            # no slash after `?/`: the unknown-write rules must not read a place in it
            reached.append("?/(a file with hard links, maybe to a protected file)")
    if not reached:
        return access
    return replace(access, writes=access.writes + tuple(dict.fromkeys(reached)))


#: Writes of one call looked at for hard links; a call with more is asked about.
_LINK_CHECKS = 64
#: Entries listed per protected directory, and in all, when their inodes are gathered.
_LIST_CAP, _LIST_TOTAL = 2000, 8000
#: How long gathered inodes are trusted (`policy serve` decides for hours; a pack
#: rewritten by an editor has a new inode).
_INODES_FOR = 30.0
_inodes: dict[tuple[str, ...], tuple[float, dict[tuple[int, int], str], dict[int, str]]] = {}
_inodes_lock = threading.Lock()


def _protected_inodes(
    protected: tuple[str, ...],
) -> tuple[dict[tuple[int, int], str], dict[int, str]]:
    """{(device, inode): path} of the protected regular files — each protected file, and
    the files below each protected directory of at most `_LIST_CAP` entries — and
    {device: directory} for the directories too large to list. Gathered at the first
    multiply-linked write a process judges (rare: a hook process never does for most
    calls), then kept for `_INODES_FOR` seconds."""
    import time

    now = time.monotonic()
    with _inodes_lock:
        found = _inodes.get(protected)
        if found is not None and now - found[0] < _INODES_FOR:
            return found[1], found[2]
    inodes: dict[tuple[int, int], str] = {}
    unlisted: dict[int, str] = {}
    budget = [_LIST_TOTAL]
    for path in protected:
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            continue
        if not os.path.isdir(path):
            inodes.setdefault((info.st_dev, info.st_ino), path)
        elif not _list_inodes(path, inodes, budget):
            unlisted.setdefault(info.st_dev, path)
    with _inodes_lock:
        if len(_inodes) > 64:
            _inodes.clear()
        _inodes[protected] = (now, inodes, unlisted)
    return inodes, unlisted


def _list_inodes(top: str, inodes: dict[tuple[int, int], str], budget: list[int]) -> bool:
    """Add the regular files below `top` to `inodes`; False when it holds more than
    `_LIST_CAP` entries (or the budget ran out) and so was not listed whole. Links are
    not followed; a directory that cannot be read is not listed whole either."""
    seen = 0
    pending = [top]
    try:
        device = os.stat(top).st_dev  # a mount below `top` is a rare case not looked for
        while pending:
            directory = pending.pop()
            with os.scandir(directory) as entries:
                for entry in entries:  # names, types and inodes from the listing itself
                    seen += 1
                    budget[0] -= 1
                    if seen > _LIST_CAP or budget[0] < 0:
                        return False
                    if entry.is_dir(follow_symlinks=False):
                        pending.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        inodes.setdefault((device, entry.inode()), entry.path)
    except OSError:
        return False
    return True


def protected_paths(settings: Any) -> tuple[str, ...]:
    """Everything the policy's own decisions depend on, as absolute paths (and where
    their links lead): the packs, the settings file, the data dir (approvals,
    counters, caches), the decision log and its capture, the hosted hooks files, the
    installed hookpolicy (its package and, in a virtualenv, the whole environment), the Python
    it runs under and everything that Python imports or runs at start
    (`_interpreter_paths`), the `policy` a shell would find on `PATH` before the real
    one (`_shadowing_names`), and the operator's `protected_paths`."""
    from pathlib import Path

    found: list[str] = []
    candidates: list[Any] = [
        *settings.packs,
        settings.data_dir,
        settings.audit_path,
        # the capture holds calls unmasked (`audit_capture_args` puts it under data_dir)
        getattr(settings, "audit_capture_dir", None),
        os.environ.get(CONFIG_ENV) or None,
        *settings.claude_hooks,
        *settings.protected_paths,
        Path(__file__).resolve().parent,
    ]
    candidates += _interpreter_paths()
    for candidate in candidates:
        if candidate is None:
            continue
        text = os.path.expanduser(os.fspath(candidate))
        absolute = os.path.abspath(text)
        found.append(absolute)
        real = os.path.realpath(absolute)
        if real != absolute:
            found.append(real)
    found += _shadowing_names()
    return tuple(dict.fromkeys(found))


#: Prefixes that hold far more than one Python (the system's, Homebrew's): for them
#: the interpreter's own directories are protected (`sys.path`), not the whole tree.
_SHARED_PREFIXES = frozenset(
    {"/", "/usr", "/usr/local", "/opt", "/opt/homebrew", "/opt/local", "/usr/pkg",
     "/home/linuxbrew/.linuxbrew", "/nix", "/snap"}
)


def _interpreter_paths() -> list[str]:
    """What the hook's Python executes besides hookpolicy: the interpreter (its link
    and what it points to), its prefixes (a pyenv, uv, asdf or conda Python in the home
    is the agent's to write unless protected: a line appended to the stdlib's
    `json/__init__.py` runs in every decision), every directory on `sys.path` it imports
    from (the stdlib, `lib-dynload`, site-packages with their `.pth` files), and the
    user site when Python reads it (a `usercustomize.py` or `.pth` there runs at
    start). A few attribute reads, no disk: cheap at each hook's cold start.

    `sys.path` entries that are the working directory, hold it or lie below it are left
    out: `python -m policy` run in the project puts the project first, and a project
    installed editable into the environment the hook runs from puts its `src/` there;
    protecting them would refuse every write in the project. docs/security.md says to
    mount the entry point and install hookpolicy in an environment of its own."""
    import site
    import sys

    found: list[str] = [sys.executable, getattr(sys, "_base_executable", "") or ""]
    # (in this order whatever the strings' hashes: a set's order differs from process to
    # process, and these paths are part of the answers a one-event hook keeps for the next)
    prefixes = (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)
    for prefix in dict.fromkeys(prefixes):
        if prefix and os.path.normpath(prefix) not in _SHARED_PREFIXES:
            found.append(prefix)
    here = os.getcwd()
    for entry in sys.path:
        if not entry or not os.path.isabs(entry):
            continue
        entry = os.path.normpath(entry)
        if (
            entry in _SHARED_PREFIXES
            or here == entry
            or here.startswith(entry.rstrip("/") + "/")
            or entry.startswith(here.rstrip("/") + "/")
        ):
            continue
        found.append(entry)
    if site.ENABLE_USER_SITE:
        found.append(site.getusersitepackages())
    return [f for f in found if f]


#: The name the hosts' mounts run the policy by (`policy hook claude ...`); Windows
#: finds it as `policy.exe` too.
_ENTRY_NAMES = ("policy", "policy.exe") if os.name == "nt" else ("policy",)


def _shadowing_names() -> list[str]:
    """The files a shell would run instead of the policy's entry point: `policy` (and
    the mount's other spellings) in every `PATH` directory searched before the one the
    real entry point is in — or in all of them, when it is on none (`~/.cargo/bin/policy`
    before `~/.local/bin/policy`). When the hook was started as `python -m policy`,
    `python3` and its kin are looked up the same way. Read from this process's `PATH`
    (the hook's: the host's, which runs the mount): strings only, and each directory's
    real path (`/bin` -> `/usr/bin`)."""
    import sys

    names = list(_ENTRY_NAMES)
    program = sys.argv[0] if sys.argv and sys.argv[0] else ""
    base = os.path.basename(program)
    if base.endswith("__main__.py"):
        minor = f"python{sys.version_info[0]}.{sys.version_info[1]}"
        names += ["python", "python3", minor]
    elif base and base not in names and base.startswith(("policy", "hookpolicy")):
        names.append(base)
    homes = {os.path.dirname(os.path.abspath(sys.executable))}
    if program and base in names:
        homes.add(os.path.dirname(os.path.abspath(program)))
    homes |= {os.path.realpath(h) for h in list(homes)}
    found: list[str] = []
    seen: set[str] = set()
    for entry in os.environ.get("PATH", "").split(os.pathsep)[:64]:
        directory = os.path.abspath(entry or ".")
        if directory in seen:
            continue
        seen.add(directory)
        real = os.path.realpath(directory)
        if directory in homes or real in homes:
            break
        for name in names:
            found.append(os.path.join(directory, name))
            if real != directory:
                found.append(os.path.join(real, name))
    return found
