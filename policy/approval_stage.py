"""The approval stage: who is asked before a tool runs, and what happens to the asks.

After `before_tool` says `needs_approval`, the chain's approvers are asked, then the
people the packs' gates name (policy.builtins.approval, through the approval store).
This module holds that stage for one engine: the store, opened once on first use;
the gate stage, made once; the plan `approve_tool` drives; and giving up — a wait
whose budget ran out withdraws its request, and an engine that stops, or a client
that hangs up, expires every request still waiting, each denial logged. The engine
composes it and answers for it (`Engine.approve_tool`, `Engine.approvals`).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any

from policy import _lazy_dataclass
from policy._logger import logger
from policy.audit import DecisionLog, new_decision_id
from policy.chain import Registration, approval_plan
from policy.hooks import HookSource
from policy.model import ApprovalGate, Decision, HookPoint, ToolCall

if TYPE_CHECKING:
    from policy.approvals.store import ApprovalStore
    from policy.builtins.approval import ApprovalGates
    from policy.model.payloads import ApprovalDecision
    from policy.settings import Settings

__all__ = ["ApprovalStage"]

log = logger("policy.engine")


class ApprovalStage:
    """One engine's approval stage (see the module docstring)."""

    def __init__(
        self,
        settings: Settings,
        timeout: float,
        audit: DecisionLog,
        packs: Callable[[], Mapping[str, str]],
        snapshot: Callable[[], Any],
        lender: ApprovalStage | None = None,
    ) -> None:
        """`lender`: another engine's stage whose store this one files into (the
        engines of one service, one per team, share their approval requests)."""
        self._settings = settings
        #: The default budget of an approval, in seconds (`approval_timeout_ms`).
        self._timeout = timeout
        self._audit = audit
        self._packs = packs
        self._snapshot = snapshot
        self._store: ApprovalStore | None = None
        self._lender = lender
        # Opening the store (and the gate stage) once, however many calls first need it
        # at the same moment: two `memory://` stores would each hold half the requests.
        # Reentrant: the gate stage opens the store while holding it.
        self._opening = threading.RLock()
        self._gates: ApprovalGates | None = None
        #: Why the process stopped asking, when it did before the stage was made.
        self._stopped = ""

    @property
    def opened(self) -> ApprovalStore | None:
        """The store if it was opened (what closing the engine closes; not a lent one)."""
        return None if self._lender is not None else self._store

    @property
    def store(self) -> ApprovalStore:
        """The approval store named by `approvals_store` (SQLite under data_dir by
        default), opened on first use: where approval requests wait and decisions land."""
        if self._lender is not None:
            return self._lender.store
        store = self._store
        if store is None:
            with self._opening:
                store = self._store
                if store is None:
                    from policy.approvals import open_store

                    store = self._store = open_store(
                        self._settings.approvals_store_uri,
                        retention=self._settings.approvals_retention,
                    )
        return store

    @property
    def gates(self) -> ApprovalGates:
        """The approval stage for gates (policy.builtins.approval), made on first use —
        once, however many calls first need it at the same moment (it keeps the waits
        and their caps)."""
        stage = self._gates
        if stage is not None:
            return stage
        with self._opening:
            if self._gates is not None:
                return self._gates
            from policy.builtins.approval import ApprovalGates

            service = getattr(self._settings, "service", None)
            stage = ApprovalGates(
                lambda: self.store,
                default_timeout=self._timeout,
                **(
                    {"max_waits_per_caller": service.max_waits_per_caller}
                    if service is not None
                    else {}
                ),
            )
            # Not in the chain: `plan` asks it after the chain's approvers.
            self._gate_registration = Registration(
                name=stage.name,
                hook=stage,
                priority=0,
                source=HookSource.IN_PROCESS,
                failure_policy="fail",
                inline=False,
                timeout_ms=None,
                methods={HookPoint.APPROVE_TOOL: stage.approve},
                coroutine=frozenset(),
                trusted=True,
            )
            if self._stopped:  # made after the stop: it refuses every wait as it says
                stage.abandon_all(self._stopped)
            self._gates = stage
        return stage

    def gates_for(self, call: ToolCall) -> tuple[ApprovalGate, ...] | Decision:
        """The gates the packs put on `call` (canonical), judged now: for an `approve_tool` whose
        caller did not pass the before_tool decision's `gates`. Packs are pure, so
        asking them again changes nothing; an `allow` lifts the builtins' gates. A pack
        that refuses the call outright answers with its Decision instead."""
        gates: list[ApprovalGate] = []
        allowed = False
        for registration in self._snapshot().ordered:
            if not (registration.trusted and registration.name.startswith("pack:")):
                continue  # builtins count calls (rate limits, contracts): not asked twice
            decide = getattr(registration.hook, "before_tool", None)
            if decide is None:
                continue
            decision: Decision | None = decide(call)
            if decision is None:
                continue
            if decision.blocked:
                return decision
            gates.extend(decision.gates)
            allowed = allowed or decision.allowed
        if allowed:
            return tuple(gate for gate in gates if not gate.exempt_by_allow)
        return tuple(gates)

    def plan(
        self,
        call: ToolCall,
        timeout: float | None,
        required: bool,
        gates: tuple[ApprovalGate, ...] | None,
        defer: bool,
    ) -> Any:
        """The approval plan for `call` (policy.chain.approval_plan): the chain's
        approvers, then the people its gates name (asked of the packs when `gates`
        is None)."""
        if gates is None:
            found = self.gates_for(call)
            if isinstance(found, Decision):
                from policy.model.payloads import ApprovalDecision

                return _answered(
                    ApprovalDecision(False, f"the policy refuses this call: {found.reason}")
                )
            gates = found
        step = None
        if gates:
            from policy.builtins.approval import GRACE_SECONDS, stage_timeout

            stage = self.gates
            wait = stage_timeout(gates, self._timeout)
            if timeout is not None:
                wait = min(wait, timeout)
            until = time.time() + wait
            method = functools.partial(stage.approve, gates=gates, defer=defer, until=until)
            registration = self._gate_registration
            if defer:
                # A deferred approval files and answers at once: on the caller's thread,
                # never queued behind calls that wait for people.
                registration = _lazy_dataclass.replace(registration, inline=True)
            step = (registration, method, wait + GRACE_SECONDS)
        return approval_plan(
            self._snapshot(), call, timeout, self._timeout, required, step
        )

    def withdraw(self, call: ToolCall, answer: ApprovalDecision) -> None:
        """The chain stopped waiting for an approver (its budget, or the caller's
        `timeout`, ran out): an approver with `abandon(call)` withdraws what it asked,
        so a person cannot approve a call that was already denied."""
        if answer.failure != "timeout" or answer.hook is None:
            return
        if self._gates is not None and answer.hook == self._gates.name:
            self._gates.abandon(call)
            return
        for registration in self._snapshot().ordered:
            if registration.name == answer.hook:
                abandon = getattr(registration.hook, "abandon", None)
                if callable(abandon):
                    try:
                        abandon(call)
                    except Exception:  # the call is denied either way
                        log.warning("abandon() of %r failed", answer.hook, exc_info=True)
                return

    def abandon(self, reason: str, call: ToolCall | None = None) -> int:
        """Give up on every call waiting for a person in this process, now: expire their
        requests in the store (a late approve is refused: already expired) and log each
        denial. For whoever stops waiting from outside the call — a hook's watchdog,
        the host closing the pipe, a signal ending the process; with `call`, only the
        waits for that call (canonical; `policy serve`, whose client hung up). The count
        expired.
        Without `call` the process is ending: no call is asked about from then on."""
        if call is None:
            with self._opening:
                if self._gates is None:
                    # Nothing waits yet. A call still being decided must meet the stop
                    # (`abandon_all`'s `reason`), so a stage made later starts stopped
                    # (`gates`); none is made now: a one-event hook that asked nobody
                    # closes without importing the approval machinery.
                    self._stopped = reason or self._stopped
                    return 0
                stage = self._gates
            expired = stage.abandon_all(reason)
        elif self._gates is None:
            return 0
        else:
            stage = self._gates
            expired = stage.abandon_like(call)
        from policy.model.payloads import ApprovalDecision

        for call, request in expired:
            answer = ApprovalDecision(
                False,
                f"approval request {request.id} abandoned: {reason}; denied",
                hook=stage.name,
                failure="abandoned",
                decision_id=new_decision_id(),
            )
            try:
                self._audit.approval(call, answer, latency_ns=0, packs=self._packs())
            except Exception as exc:  # noqa: BLE001 - the request is expired either way
                log.error("abandoned approval %s not logged: %s", request.id, exc)  # noqa: TRY400
        return len(expired)


def _answered(answer: ApprovalDecision) -> Generator[Any, Any, ApprovalDecision]:
    """A plan that needs no approver: its answer is known already."""
    yield from ()
    return answer
