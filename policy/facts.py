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

import os
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # Imported by `facts_of` on first use: a decision that reads no facts (most
    # events of a one-event hook) never loads the analysers.
    from policy.analysis.access import Access

__all__ = ["CallFacts", "FactsContext", "facts_of", "home_dir", "protected_paths"]


@dataclass(frozen=True, slots=True)
class FactsContext:
    #: The operator's workspace; "" means the call's own cwd.
    workspace: str = ""
    #: Paths (files or directories) the policy depends on.
    protected: tuple[str, ...] = ()


def home_dir() -> str:
    """What `~` means: the home of the user the policy runs as, which is the user the
    agent's tools run as (hooks run as the agent's user)."""
    expanded = os.path.expanduser("~")
    return "" if expanded == "~" else expanded


@dataclass(frozen=True, slots=True)
class CallFacts:
    access: Access
    workspace: str
    home: str
    #: The CEL values, built once.
    commands_cel: list[dict[str, Any]] = field(default_factory=list)
    access_cel: dict[str, Any] = field(default_factory=dict)


_local = threading.local()


def facts_of(call: Any, context: FactsContext) -> CallFacts:
    """The facts of `call` (a ToolCall) under `context`; the last call is remembered
    per thread, so the packs and builtins deciding one call compute them once."""
    from policy.analysis import access as _access
    from policy.analysis.operands import locate

    last = getattr(_local, "last", None)
    if last is not None and last[0] is call and last[1] is context:
        found: CallFacts = last[2]
        return found
    home = home_dir()
    cwd = call.cwd if isinstance(call.cwd, str) else ""
    workspace = context.workspace or (cwd if cwd.startswith("/") else "")
    if workspace:
        workspace = locate(workspace, "/", home)
    result = _access.of_call(call.tool, call.args, cwd, home)
    facts = CallFacts(
        access=result,
        workspace=workspace,
        home=home,
        commands_cel=[c.to_cel() for c in result.commands],
        access_cel=result.to_cel(),
    )
    _local.last = (call, context, facts)
    return facts


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
