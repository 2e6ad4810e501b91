"""Contract scope: what one session may do — tools, where, how often, how long (DESIGN §6.2).

OpenClaw's ContractScopeHook checked scoped paths but not the contract's tool list;
here a tool outside the list is denied on every call, paths are judged after `..`
and symlinks, and every denial names the limit that was hit.

Contracts come from packs (matched by session glob, first match wins) or are
attached to one session at run time through `engine.contracts`, which wins over
the packs. Counters (calls made, first call) live in the engine's ContractRegistry:
in the shared state store by default (policy.state), in memory for `memory://`.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable
from typing import TYPE_CHECKING

from policy import telemetry
from policy.aliases import AliasTable
from policy.analysis import paths
from policy.builtins._match import PathGlobs, ToolSet
from policy.builtins._touch import touched
from policy.builtins.contract_sessions import ContractRegistry
from policy.builtins.priority import DEFAULT_PRIORITY
from policy.facts import FactsContext
from policy.model import Action, Decision, ToolCall

if TYPE_CHECKING:
    from policy.builtins.config import Contract, ContractScopeConfig

__all__ = ["ContractRegistry", "ContractScope"]  # the registry: policy.builtins.contract_sessions


_RUNTIME_LIMIT = 1024  # compiled run-time contracts kept (their globs cost ~50 µs to build)


def _never(_session: str) -> bool:
    return False


class _Compiled:
    """One contract with its globs compiled."""

    __slots__ = ("contract", "scopes", "sessions", "tools")

    def __init__(self, contract: Contract, aliases: AliasTable, home: str | None) -> None:
        from wcmatch import fnmatch as wfnmatch

        self.contract = contract
        flags = wfnmatch.BRACE | wfnmatch.NEGATE | wfnmatch.DOTMATCH
        self.sessions: Callable[[str], bool] = (
            wfnmatch.compile(contract.sessions, flags=flags).match if contract.sessions else _never
        )
        self.tools = ToolSet(contract.tools, aliases)
        self.scopes = [
            (ToolSet([scope.tool], aliases), PathGlobs(scope.paths, home) if scope.paths else None)
            for scope in contract.scopes
        ]


class ContractScope:
    """One pack's contracts, as an inline, trusted before_tool hook."""

    inline = True
    failure_policy = "fail"
    #: A rewritten call is asked `rejudge_checks` again, not `before_tool`: the call
    #: counted against max_tool_calls / max_runtime once already (policy.rejudge).
    rejudge = "checks"

    def __init__(
        self,
        pack: str,
        config: ContractScopeConfig,
        aliases: AliasTable,
        registry: ContractRegistry,
        home: str | None = None,
        now: Callable[[], _dt.datetime] = lambda: _dt.datetime.now(_dt.UTC),
        facts: FactsContext | None = None,
    ) -> None:
        self.name = f"builtin:{pack}/contract_scope"
        self.rule_id = f"{pack}/contract_scope"
        self.priority = (
            config.priority if config.priority is not None else DEFAULT_PRIORITY["contract_scope"]
        )
        self._aliases = aliases
        self._home = home
        self._facts = facts or FactsContext()
        self._registry = registry
        self._now = now
        self._follow = config.follow_symlinks
        self._path_args = {aliases.canonical(t): names for t, names in config.path_args.items()}
        self._contracts = [_Compiled(c, aliases, home) for c in config.contracts]
        self._runtime: dict[int, _Compiled] = {}
        counted = [c.id for c in config.contracts if c.max_tool_calls is not None or c.max_runtime]
        #: What this hook must remember between calls (policy.state.check_per_event).
        self.state_needed = (
            f"the max_tool_calls / max_runtime of contract {', '.join(map(repr, counted))} "
            f"in pack {pack!r}"
            if counted
            else ""
        )

    def _contract_for(self, session: str) -> _Compiled | None:
        attached = self._registry.attached(session)
        if attached is not None:
            compiled = self._runtime.get(id(attached))
            if compiled is None or compiled.contract is not attached:
                compiled = _Compiled(attached, self._aliases, self._home)
                if len(self._runtime) >= _RUNTIME_LIMIT:
                    self._runtime.clear()
                self._runtime[id(attached)] = compiled
            return compiled
        for compiled in self._contracts:
            if compiled.sessions(session):
                return compiled
        return None

    def before_tool(self, call: ToolCall) -> Decision | None:
        compiled = self._contract_for(call.session)
        if compiled is None:
            return None
        contract = compiled.contract
        reason = self._refusal(call, compiled)
        if reason is None:
            reason = self._registry.admit(call.session, contract)
        if reason is None:
            return None
        telemetry.CONTRACT_DENIALS.inc()
        return Decision(Action.DENY_TOOL, reason, rule_ids=(f"{self.rule_id}/{contract.id}",))

    def rejudge_checks(self, call: ToolCall) -> Decision | None:
        """This hook's checks of a call — its tools, paths and expiry — without
        admitting it against max_tool_calls / max_runtime again."""
        compiled = self._contract_for(call.session)
        if compiled is None:
            return None
        reason = self._refusal(call, compiled)
        if reason is None:
            return None
        return Decision(
            Action.DENY_TOOL, reason, rule_ids=(f"{self.rule_id}/{compiled.contract.id}",)
        )

    def _refusal(self, call: ToolCall, compiled: _Compiled) -> str | None:
        contract = compiled.contract
        if contract.expires_at is not None:
            expires = contract.expires_at
            if expires.tzinfo is None:
                expires = expires.replace(tzinfo=_dt.UTC)
            if self._now() >= expires:
                return f"contract {contract.id!r} expired at {expires.isoformat()}"
        if call.tool not in compiled.tools:
            return (
                f"contract {contract.id!r}: tool {call.tool!r} is not in its tools "
                f"({', '.join(contract.tools)})"
            )
        scopes = [globs for tools, globs in compiled.scopes if call.tool in tools]
        if not scopes or any(globs is None for globs in scopes):
            return None  # no scope for this tool, or one without paths: any path
        allowed = [globs for globs in scopes if globs is not None]
        found = touched(call, self._facts, self._path_args, "", follow_symlinks=self._follow)
        if found.facts.access.parse_error:
            return (
                f"contract {contract.id!r}: the command cannot be checked against its scope: "
                f"{found.facts.access.parse_error}"
            )
        for path in found.paths:
            if path.startswith("?"):
                return (
                    f"contract {contract.id!r}: path {path[1:]!r} cannot be checked against "
                    "the scope: where it lands is not known"
                )
            if paths.is_pattern(path):
                inside = any(globs.covers(path) for globs in allowed)
            else:
                inside = any(globs.match(path) is not None for globs in allowed)
            if not inside:
                patterns = ", ".join(p for globs in allowed for p in globs.patterns)
                return (
                    f"contract {contract.id!r}: path {path!r} is outside the scope of "
                    f"{call.tool!r} ({patterns})"
                )
        return None
