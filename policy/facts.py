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
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from policy.errors import AnalysisIncomplete

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
    expanded = os.path.expanduser("~")
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
    #: The CEL values, built once.
    commands_cel: list[dict[str, Any]] = field(default_factory=list)
    access_cel: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.access.limit:
            raise AnalysisIncomplete(f"the call cannot be analysed: {self.access.limit}")


_local = threading.local()


def facts_of(call: Any, context: FactsContext) -> CallFacts:
    """The facts of `call` (a ToolCall) under `context`; the last call is remembered
    per thread, so the packs and builtins deciding one call compute them once.

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
    from policy.analysis import access as _access
    from policy.analysis.operands import locate

    home = home_dir()
    cwd = call.cwd if isinstance(call.cwd, str) else ""
    project = caller.workspace if caller is not None and caller.workspace else ""
    workspace = context.workspace or project or (cwd if cwd.startswith("/") else "")
    try:
        if workspace:
            workspace = locate(workspace, "/", home)
        result = _access.of_call(call.tool, call.args, cwd, home)
    except Exception as exc:  # a failed analysis refuses the call, never passes it
        failed = f"the analysis failed: {type(exc).__name__}: {exc}"
        raise AnalysisIncomplete(f"the call cannot be analysed: {failed}") from exc
    return CallFacts(
        access=result,
        workspace=workspace,
        home=home,
        commands_cel=[c.to_cel() for c in result.commands],
        access_cel=result.to_cel(),
    )


def protected_paths(settings: Any) -> tuple[str, ...]:
    """Everything the policy's own decisions depend on, as absolute paths (and where
    their links lead): the packs, the settings file, the data dir (approvals,
    counters, caches), the decision log, the hosted hooks files, the installed
    hookpolicy (its package and, in a virtualenv, the whole environment), and the
    operator's `protected_paths`."""
    import sys
    from pathlib import Path

    found: list[str] = []
    candidates: list[Any] = [
        *settings.packs,
        settings.data_dir,
        settings.audit_path,
        os.environ.get("POLICY_CONFIG") or None,
        *settings.claude_hooks,
        *settings.protected_paths,
        Path(__file__).resolve().parent,
    ]
    if sys.prefix != sys.base_prefix:
        candidates.append(sys.prefix)
    for candidate in candidates:
        if candidate is None:
            continue
        text = os.path.expanduser(os.fspath(candidate))
        absolute = os.path.abspath(text)
        found.append(absolute)
        real = os.path.realpath(absolute)
        if real != absolute:
            found.append(real)
    return tuple(dict.fromkeys(found))
