"""Built-in hooks configured under a pack's `builtins:` (DESIGN §6).

A pack validates its `builtins:` section with the rest of the file; the engine
then builds one hook per configured builtin (`builtin:<pack>/<name>`) and
registers it in the same chain as packs and code hooks, inline and trusted, at
the builtin's priority (`config.DEFAULT_PRIORITY` unless the pack says
otherwise). Building needs what only an engine has — its alias table, decision
log, contract registry and rate-limit storage — hence `BuiltinContext`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from policy._lazy_dataclass import dataclass, field
from policy.facts import FactsContext

__all__ = ["BUILTIN_NAMES", "BuiltinContext", "BuiltinSpec", "build", "specs_of"]

if TYPE_CHECKING:
    import datetime as _dt

    from policy.aliases import AliasTable
    from policy.audit import DecisionLog
    from policy.builtins.config import BuiltinsConfig
    from policy.builtins.contract import ContractRegistry

#: Builtins this version enforces, in the order a pack's section is read.
BUILTIN_NAMES = (
    "autonomy",
    "contract_scope",
    "tool_policy",
    "approval",  # a rule of its pack (packs.compile.approval_rule), not a hook
    "audit_hook",
    "respond_guard",  # not a hook: the engine applies it to every respond (respond_guard.py)
)


@dataclass(frozen=True, slots=True)
class BuiltinSpec:
    """One configured builtin of one pack, waiting for an engine to build it."""

    pack: str
    name: str
    config: Any


@dataclass(slots=True)
class BuiltinContext:
    aliases: AliasTable
    log: DecisionLog
    contracts: ContractRegistry
    limits_storage_uri: str = "memory://"
    home: str | None = None
    #: The workspace and the policy's own files (policy.facts).
    facts: FactsContext = field(default_factory=FactsContext)
    #: The time in epoch seconds, when not the system's (policy replay, pack tests).
    clock: Callable[[], float] | None = None
    _limiters: dict[str, Any] = field(default_factory=dict)

    def limiter(self, strategy: str) -> Any:
        """One limiter per strategy per engine, over the configured storage; made when
        a call first meets a rate limit (a one-event hook on a tool no limit governs
        never imports `limits` nor opens the storage)."""
        found = self._limiters.get(strategy)
        if found is None:
            found = self._limiters[strategy] = _Deferred(
                lambda: _limiter_for(self.limits_storage_uri, strategy, self.clock)
            )
        return found


def _limiter_for(storage_uri: str, strategy: str, clock: Callable[[], float] | None) -> Any:
    from policy.builtins.tool_policy import limiter_for

    return limiter_for(storage_uri, strategy, clock)


class _Deferred:
    """Stands for an object that is built at the first use of one of its attributes."""

    __slots__ = ("_build", "_built", "_lock")

    def __init__(self, build: Callable[[], Any]) -> None:
        self._build = build
        self._built: Any = None
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        if self._built is None:
            with self._lock:
                if self._built is None:
                    self._built = self._build()
        return getattr(self._built, name)


def specs_of(pack: str, config: BuiltinsConfig) -> list[BuiltinSpec]:
    return [
        BuiltinSpec(pack, name, getattr(config, name))
        for name in BUILTIN_NAMES
        if getattr(config, name) is not None
    ]


def build(spec: BuiltinSpec, context: BuiltinContext) -> object:
    """The hook for `spec` (imports only the builtin it needs)."""
    if spec.name == "autonomy":
        from policy.builtins.autonomy import Autonomy

        return Autonomy(spec.pack, spec.config, context.aliases, context.home, context.facts)
    if spec.name == "contract_scope":
        from policy.builtins.contract import ContractScope

        return ContractScope(
            spec.pack,
            spec.config,
            context.aliases,
            context.contracts,
            context.home,
            now=_datetime_clock(context.clock),
            facts=context.facts,
        )
    if spec.name == "tool_policy":
        from policy.builtins.tool_policy import ToolPolicy

        return ToolPolicy(
            spec.pack,
            spec.config,
            context.aliases,
            context.limiter(spec.config.strategy),
            clock=context.clock or time.time,
        )
    if spec.name == "audit_hook":
        from policy.builtins.audit_hook import AuditHook

        return AuditHook(spec.pack, spec.config, context.log)
    raise ValueError(f"unknown builtin {spec.name!r}")


def _datetime_clock(clock: Callable[[], float] | None) -> Callable[[], _dt.datetime]:
    """`clock` as the aware UTC datetimes a contract's `expires_at` is compared with
    (`datetime` imported when a contract first asks the time, not at every start)."""

    def now() -> _dt.datetime:
        import datetime

        if clock is None:
            return datetime.datetime.now(datetime.UTC)
        return datetime.datetime.fromtimestamp(clock(), datetime.UTC)

    return now
