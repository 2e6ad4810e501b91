"""The hook chain: registration, ordering, and what each point does with answers.

Semantics follow PicoClaw's HookManager (pkg/agent/hooks.go) except where
docs/concepts.md says we differ on purpose (failure policy, invalid actions,
duplicate names, respond without a result).

The per-point logic is written once, as generators ("plans") that yield each hook
invocation and receive its outcome. The sync and async drivers in `_invoke` run
the same plans, so the two APIs cannot drift apart, and a plan never touches
threads, clocks or I/O itself.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator, Iterable, Mapping
from types import FunctionType, MethodType
from typing import TYPE_CHECKING, Any, Final

from policy._lazy_dataclass import dataclass, field
from policy._logger import logger
from policy.errors import HookRegistrationError
from policy.hooks import FailurePolicy, HookSource
from policy.model import (
    POINTS,
    TERMINAL,
    Action,
    ApprovalGate,
    Decision,
    HookPoint,
    PointSpec,
    ToolCall,
)

if TYPE_CHECKING:
    from policy.model.payloads import ApprovalDecision

__all__ = [
    "Chain",
    "Failure",
    "Fold",
    "Outcome",
    "Registration",
    "Step",
    "Timeouts",
    "approval_plan",
    "intercept_inline",
    "intercept_plan",
]

log = logger("policy.chain")

_FAILURE_POLICIES: Final = ("fail", "ignore")


@dataclass(frozen=True, slots=True)
class Timeouts:
    """Budgets in seconds (settings hold milliseconds, PicoClaw's names)."""

    observer: float = 0.5
    interceptor: float = 5.0
    approval: float = 60.0


@dataclass(frozen=True, slots=True)
class Failure:
    """Why a hook produced no usable answer."""

    kind: str  # "error" | "timeout" | "invalid" | "limit" (an analysis gave up: refuses)
    message: str


@dataclass(frozen=True, slots=True)
class Registration:
    """One hook in the chain, with everything resolved at `register` time."""

    name: str
    hook: object
    priority: int
    source: HookSource
    failure_policy: FailurePolicy
    inline: bool
    timeout_ms: int | None
    methods: Mapping[HookPoint, Callable[..., Any]]
    coroutine: frozenset[HookPoint]
    covers: Callable[[ToolCall], bool] | None = field(default=None)
    #: Decisions built by our own compilers (packs, builtins): their fields are
    #: correct by construction, so only the action's point is checked per call.
    trusted: bool = False

    @property
    def sort_key(self) -> tuple[int, int, str]:
        return (int(self.source), self.priority, self.name)

    @property
    def points(self) -> tuple[HookPoint, ...]:
        return tuple(self.methods)

    def covers_call(self, call: ToolCall) -> bool:
        """Whether this approver wants `call`; an error counts as yes (fail closed)."""
        if self.covers is None:
            return True
        try:
            return bool(self.covers(call))
        except Exception:
            log.warning(
                "covers() of approver %r raised; asking it anyway", self.name, exc_info=True
            )
            return True


#: One hook invocation a plan asks its driver to perform:
#: (registration, method, args, budget in seconds, is a coroutine function).
#: A plain tuple: one is built per hook per call.
Step = tuple[Registration, Callable[..., Any], tuple[Any, ...], float, bool]


#: (value returned by the hook, None) or (None, Failure).
Outcome = tuple[Any, Failure | None]


def make_registration(
    hook: object,
    *,
    name: str | None,
    priority: int | None,
    failure_policy: FailurePolicy | None,
    default_failure_policy: FailurePolicy,
    inline: bool | None,
    timeout_ms: int | None,
    source: HookSource | None,
    trusted: bool = False,
) -> Registration:
    """Resolve a hook object and options into a Registration, or say what is wrong."""
    resolved_name = name if name is not None else getattr(hook, "name", None)
    if not isinstance(resolved_name, str) or not resolved_name:
        raise HookRegistrationError(
            f"hook {hook!r} has no name: give it a `name` attribute or pass name=..."
        )
    methods: dict[HookPoint, Callable[..., Any]] = {}
    coroutine: set[HookPoint] = set()
    for spec in POINTS.values():
        point, method_name = spec.point, spec.method
        method = getattr(hook, method_name, None)
        if method is None:
            continue
        if not callable(method):
            raise HookRegistrationError(f"hook {resolved_name!r}: {method_name} is not callable")
        methods[point] = method
        if _is_coroutine_function(method):
            coroutine.add(point)
    if not methods:
        raise HookRegistrationError(
            f"hook {resolved_name!r} implements none of: "
            f"{', '.join(spec.method for spec in POINTS.values())}"
        )
    prio = priority if priority is not None else getattr(hook, "priority", 0)
    if not isinstance(prio, int) or isinstance(prio, bool):
        raise HookRegistrationError(
            f"hook {resolved_name!r}: priority must be an int, not {prio!r}"
        )
    policy = failure_policy or getattr(hook, "failure_policy", None) or default_failure_policy
    if policy not in _FAILURE_POLICIES:
        raise HookRegistrationError(
            f"hook {resolved_name!r}: failure_policy must be 'fail' or 'ignore', not {policy!r}"
        )
    run_inline = inline if inline is not None else bool(getattr(hook, "inline", False))
    tmo = timeout_ms if timeout_ms is not None else getattr(hook, "timeout_ms", None)
    if tmo is not None and (not isinstance(tmo, int) or isinstance(tmo, bool) or tmo <= 0):
        raise HookRegistrationError(
            f"hook {resolved_name!r}: timeout_ms must be a positive int, not {tmo!r}"
        )
    src = source if source is not None else getattr(hook, "source", HookSource.IN_PROCESS)
    try:
        src = HookSource(src)
    except ValueError:
        raise HookRegistrationError(f"hook {resolved_name!r}: unknown source {src!r}") from None
    covers = getattr(hook, "covers", None)
    if covers is not None and not callable(covers):
        raise HookRegistrationError(f"hook {resolved_name!r}: covers is not callable")
    return Registration(
        name=resolved_name,
        hook=hook,
        priority=prio,
        source=src,
        failure_policy=policy,
        inline=run_inline,
        timeout_ms=tmo,
        methods=methods,
        coroutine=frozenset(coroutine),
        covers=covers,
        trusted=trusted,
    )


class _Snapshot:
    """An immutable ordered view of the chain; readers never lock."""

    __slots__ = ("at", "inline_only", "ordered", "revisions")

    def __init__(
        self, registrations: list[Registration], revisions: Mapping[str, str] | None = None
    ) -> None:
        ordered = tuple(sorted(registrations, key=lambda r: r.sort_key))
        self.ordered = ordered
        #: The rule packs this view decides with (name -> `revision@digest`): what the
        #: decision log names for a decision that started on it.
        self.revisions: Mapping[str, str] = revisions if revisions is not None else {}
        self.at: dict[HookPoint, tuple[tuple[Registration, Callable[..., Any], bool], ...]] = {
            point: tuple(
                (reg, reg.methods[point], point in reg.coroutine)
                for reg in ordered
                if point in reg.methods
            )
            for point in HookPoint
        }
        #: Points whose every hook runs inline, synchronously: `intercept_inline` applies.
        self.inline_only: dict[HookPoint, bool] = {
            point: all(reg.inline and not coroutine for reg, _, coroutine in entries)
            for point, entries in self.at.items()
        }


class Chain:
    """The registered hooks. Copy-on-write: `register` swaps in a new snapshot."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_name: dict[str, Registration] = {}
        self._revisions: Mapping[str, str] = {}
        self.snapshot = _Snapshot([])

    def _publish(self) -> None:
        self.snapshot = _Snapshot(list(self._by_name.values()), self._revisions)

    def add(self, registration: Registration, *, replace: bool = False) -> Registration | None:
        """Add a hook; returns the one it replaced (only with replace=True)."""
        with self._lock:
            old = self._by_name.get(registration.name)
            if old is not None and not replace:
                raise HookRegistrationError(
                    f"a hook named {registration.name!r} is already registered "
                    "(pass replace=True to swap it)"
                )
            self._by_name[registration.name] = registration
            self._publish()
            return old

    def remove(self, name: str) -> Registration | None:
        with self._lock:
            old = self._by_name.pop(name, None)
            if old is not None:
                self._publish()
            return old

    def swap(
        self,
        remove: Iterable[str],
        add: Iterable[Registration],
        revisions: Mapping[str, str],
    ) -> list[Registration]:
        """Put `add` in place of the hooks named in `remove`, labelled `revisions`, in
        one new snapshot: a decision sees the old set or the new one, never a mix.
        Returns the registrations taken out; nothing changes if a name in `add` is
        held by a hook not being removed (HookRegistrationError)."""
        with self._lock:
            kept = dict(self._by_name)
            taken = [kept.pop(name) for name in remove if name in kept]
            for registration in add:
                if registration.name in kept:
                    raise HookRegistrationError(
                        f"a hook named {registration.name!r} is already registered"
                    )
                kept[registration.name] = registration
            self._by_name = kept
            self._revisions = dict(revisions)
            self._publish()
            return taken

    def clear(self) -> list[Registration]:
        with self._lock:
            old = list(self._by_name.values())
            self._by_name.clear()
            self._publish()
            return old


# --------------------------------------------------------------------------- plans


Normalizer = Callable[[Any, Any, str], tuple[Any, str | None]]


def _validate(
    point: HookPoint, spec: PointSpec, slot: int, value: Any
) -> tuple[Decision | None, Action, Failure | None]:
    """Check a hook's answer against the point; invalid answers are failures."""
    if value is None:
        return None, Action.CONTINUE, None
    if not isinstance(value, Decision):
        return (
            None,
            Action.CONTINUE,
            Failure("invalid", f"returned {type(value).__name__}, expected Decision or None"),
        )
    action = value.action
    if type(action) is not Action:
        try:
            action = Action(action)
        except ValueError:
            return (
                None,
                Action.CONTINUE,
                Failure("invalid", f"returned unknown action {value.action!r}"),
            )
    problem = _field_problem(value)
    if problem is not None:
        return None, action, Failure("invalid", problem)
    if action not in spec.actions:
        return (
            None,
            action,
            Failure("invalid", f"action {action.value!r} is not valid at {point.value}"),
        )
    payload = value[slot]
    if payload is not None and not isinstance(payload, spec.payload_type):
        return (
            None,
            action,
            Failure(
                "invalid",
                f"{spec.field} must be a {spec.payload_type.__name__}, "
                f"not {type(payload).__name__}",
            ),
        )
    if action is Action.MODIFY and payload is None:
        return None, action, Failure("invalid", f"modify without a {spec.field}")
    if action is Action.RESPOND:
        from policy.model.payloads import ToolResult

        if not isinstance(value.result, ToolResult):
            return None, action, Failure("invalid", "respond without a ToolResult in result")
    return value, action, None


def _may_vouch(reg: Registration) -> bool:
    """Whether a hook's `allow` may reach the host: only hooks that speak for a host's
    own hook (`vouches = True`: a claude_hooks PreToolUse hook, whose `allow` is its
    author's promise); a code hook that sets `allowed_by` vouches for nothing."""
    return getattr(reg.hook, "vouches", False) is True


def _field_problem(value: Decision) -> str | None:
    """Why a hook's Decision has a malformed field, or None.

    Hooks are other people's code and the types are not enforced at run time:
    a malformed field must become an invalid answer, not an exception.
    """
    fields: Any = value
    rule_ids = fields.rule_ids
    if isinstance(rule_ids, str) or not isinstance(rule_ids, tuple | list):
        return f"rule_ids must be a tuple of strings, not {type(rule_ids).__name__}"
    if not all(isinstance(r, str) for r in rule_ids):
        return "rule_ids must hold strings only"
    if fields.would_action is not None and fields.would_action not in _ACTIONS:
        return f"would_action {fields.would_action!r} is not an action"
    ignored = fields.ignored
    if isinstance(ignored, str) or not isinstance(ignored, tuple | list):
        return f"ignored must be a tuple of strings, not {type(ignored).__name__}"
    gates = fields.gates
    if not isinstance(gates, tuple) or not all(type(g) is ApprovalGate for g in gates):
        return "gates must be a tuple of ApprovalGate"
    for flag in ("needs_approval", "allowed"):
        if type(getattr(fields, flag)) is not bool:
            return f"{flag} must be a bool"
    if fields.allowed_by is not None and not isinstance(fields.allowed_by, str):
        return f"allowed_by must be a string, not {type(fields.allowed_by).__name__}"
    if not isinstance(fields.context, str):
        return f"context must be a string, not {type(fields.context).__name__}"
    if not isinstance(fields.reason, str):
        return f"reason must be a string, not {type(fields.reason).__name__}"
    return None


_ACTIONS = frozenset(Action) | frozenset(a.value for a in Action)


def failure_reason(name: str, failure: Failure, timeout: float) -> str:
    if failure.kind == "limit":
        return failure.message  # names the cap: the refusal is the analysis's, not the hook's
    if failure.kind == "timeout":
        return f"hook {name!r} timed out after {round(timeout * 1000)} ms"
    if failure.kind == "invalid":
        return f"hook {name!r} returned an invalid decision: {failure.message}"
    return f"hook {name!r} failed: {failure.message}"


_CONTINUE: Final = Action.CONTINUE
_MODIFY: Final = Action.MODIFY
_RESPOND: Final = Action.RESPOND
#: Decision built positionally: `Decision._make` skips the keyword-argument
#: handling of NamedTuple.__new__, which is most of a Decision's cost.
_SLOT: Final = {name: index for index, name in enumerate(Decision._fields)}
_BLANK: Final = [Decision._field_defaults.get(name) for name in Decision._fields]
_make_decision = Decision._make
_CALL: Final = _SLOT["call"]
_HOOK: Final = _SLOT["hook"]
_NEEDS_APPROVAL: Final = _SLOT["needs_approval"]
_ALLOWED: Final = _SLOT["allowed"]
_ALLOWED_BY: Final = _SLOT["allowed_by"]
_CONTEXT: Final = _SLOT["context"]
_RULE_IDS: Final = _SLOT["rule_ids"]
_WOULD: Final = _SLOT["would_action"]
_IGNORED: Final = _SLOT["ignored"]
_GATES: Final = _SLOT["gates"]
_REASON: Final = _SLOT["reason"]
_DECISION_ID: Final = _SLOT["decision_id"]


class Fold:
    """What the interceptors at one point have said so far.

    Both ways of running a point feed it, one hook outcome at a time: the plan
    (any hook, either driver) and `intercept_inline` (inline hooks only), so the
    two cannot disagree on what an answer means. Built once per call, so it
    keeps tuples rather than lists and touches no enum attributes.
    `decision_id` and `call` (the call at after_tool) go into the Decision.
    """

    # Defaults live on the class: a call's Fold sets only what its hooks change.
    rule_ids: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    needs_approval = False  # besides gates an `allow` lifts
    gates: tuple[ApprovalGate, ...] = ()
    allowed = False
    #: The first hook that vouched for the call (`Decision.allowed_by`): it lifts no
    #: gate, and the host hears of it only when nothing asks for approval.
    allowed_by: str | None = None
    context = ""  # what hooks added for the model (`Decision.context`)
    reason = ""  # why approval is needed, or why the payload was changed
    gated_reason = ""  # the reason a gate gave, dropped if an `allow` lifts the gate
    ungated = False  # a hook asked for approval naming no gate
    would: Action | None = None
    modified_by: str | None = None
    #: The last hook not built by our compilers that rewrote the payload: what the
    #: engine's re-judgment must follow, even when a pack rewrote again after it.
    untrusted_modifier: str | None = None

    def __init__(
        self,
        point: HookPoint,
        payload: Any,
        normalize: Normalizer | None,
        decision_id: str,
        call: ToolCall | None,
    ) -> None:
        self.point = point
        self.spec = spec = POINTS[point]
        slot = spec.slot
        if slot is None:
            raise ValueError(f"{point.value} has no interceptors")
        #: Where this point's payload sits in a Decision.
        self.slot = slot
        self.normalize = normalize
        self.decision_id = decision_id
        self.call = call
        self.current = payload

    def take(
        self, reg: Registration, value: Any, failure: Failure | None, budget: float
    ) -> Decision | None:
        """Fold in one hook's outcome; a Decision back ends the chain with it."""
        spec = self.spec
        decision: Decision | None = None
        action = _CONTINUE
        if failure is None:
            if reg.trusted and type(value) is Decision:
                # Built by our own compiler from checked rules: only the point is checked.
                decision, action = value, value.action
                if action not in spec.actions:
                    message = f"action {action.value!r} is not valid at {self.point.value}"
                    decision, failure = None, Failure("invalid", message)
            else:
                decision, action, failure = _validate(self.point, spec, self.slot, value)
        if failure is not None:
            reason = failure_reason(reg.name, failure, budget)
            if failure.kind == "limit":
                # What the call does cannot be known (policy.errors.AnalysisIncomplete):
                # refused whatever the hook's failure policy says.
                log.warning("%s: %s", reason, spec.fail_action.value)
                return self._decision(spec.fail_action, reason, hook=reg.name, failure="limit")
            if reg.failure_policy == "ignore":
                log.warning("%s (failure_policy=ignore: skipped)", reason)
                self.ignored += (reason,)
                return None
            log.warning("%s (failure_policy=fail: %s)", reason, spec.fail_action.value)
            return self._decision(spec.fail_action, reason, hook=reg.name, failure=failure.kind)
        if decision is None:
            return None
        if decision.rule_ids:
            self.rule_ids += tuple(decision.rule_ids)
        if decision.ignored:
            self.ignored += tuple(decision.ignored)
        if decision.context:
            # Kept with a refusal too: Claude Code shows a denying hook's context.
            added = decision.context
            self.context = f"{self.context}\n{added}" if self.context else added
        if self.would is None and decision.would_action is not None:
            self.would = Action(decision.would_action)
        if action not in TERMINAL:
            new = decision[self.slot]
            if new is not None and new is not self.current:
                if self.normalize is not None:
                    new, warning = self.normalize(self.current, new, reg.name)
                    if warning:
                        self.ignored += (warning,)
                # A payload handed back unchanged (a hook that echoes the call) is no
                # rewrite: nothing for later hooks or the re-judgment to see.
                if new != self.current:
                    self.current = new
                    self.modified_by = reg.name
                    if not reg.trusted:
                        self.untrusted_modifier = reg.name
                    # A hook's `allow` of the call before this rewrite vouches for
                    # nothing now (the rewriter's own allow is taken below).
                    self.allowed_by = None
            if decision.reason and (
                (decision.needs_approval and not self.needs_approval)
                or not (self.reason or self.needs_approval)
            ):
                self.reason = decision.reason
                if decision.gates and not decision.allowed:
                    self.gated_reason = decision.reason
            if decision.needs_approval:
                gates = decision.gates
                if gates:
                    self.gates += gates
                if not gates or not all(gate.exempt_by_allow for gate in gates):
                    self.needs_approval = True
                if not gates:
                    self.ungated = True
            if decision.allowed:
                self.allowed = True
            if decision.allowed_by and self.allowed_by is None and _may_vouch(reg):
                self.allowed_by = reg.name  # the registered name: a hook vouches for itself
            return None
        return self._decision(
            action,
            decision.reason,
            hook=reg.name,
            failure=decision.failure,
            result=decision.result if action is _RESPOND else None,
            # Earlier gates are kept on a respond, for the respond guard to judge,
            # with the responding hook's own (a respond rule held for approval).
            **(self._respond_gates(decision) if action is _RESPOND else {}),
        )

    def _live_gates(self) -> tuple[ApprovalGate, ...]:
        """The gates collected so far, less the ones an `allow` lifted — unless a hook
        asked for approval without naming anybody (autonomy's supervised mode, a code
        hook): the approval builtin's gate is then who answers it, allow or not."""
        if self.allowed and self.gates and not self.ungated:
            return tuple(gate for gate in self.gates if not gate.exempt_by_allow)
        return self.gates

    def _respond_gates(self, decision: Decision) -> dict[str, Any]:
        own = tuple(decision.gates)
        if (self.allowed or decision.allowed) and not self.ungated:
            own = tuple(gate for gate in own if not gate.exempt_by_allow)
        gates = self._live_gates() + own
        if not (gates or self.needs_approval or decision.needs_approval):
            return {}
        return {"needs_approval": True, "gates": gates}

    def result(self) -> Decision:
        """The decision when every interceptor let the payload through."""
        values = self._values(_MODIFY if self.modified_by is not None else _CONTINUE, self.reason)
        # The hook to answer for the rewrite: one of other people's, if any rewrote, so
        # that packs before it judge what it made (the engine's `_rejudge`).
        values[_HOOK] = self.untrusted_modifier or self.modified_by
        gates = self._live_gates()
        if self.needs_approval or gates:
            values[_NEEDS_APPROVAL] = True
            values[_GATES] = gates
        else:
            if self.allowed:
                values[_ALLOWED] = True
                if self.gates and self.reason == self.gated_reason:
                    values[_REASON] = ""  # the reason was the lifted gate's
            # deny > ask > allow, as Claude Code combines its hooks' answers: a hook's
            # `allow` reaches the decision only when nothing asked.
            values[_ALLOWED_BY] = self.allowed_by
        return _make_decision(values)

    def _values(self, action: Action, reason: str) -> list[Any]:
        values = _BLANK.copy()
        values[0] = action
        values[1] = reason
        if self.call is not None:
            values[_CALL] = self.call
        values[self.slot] = self.current
        values[_RULE_IDS] = self.rule_ids
        values[_WOULD] = self.would
        values[_IGNORED] = self.ignored
        values[_DECISION_ID] = self.decision_id
        values[_CONTEXT] = self.context
        return values

    def _decision(self, action: Action, reason: str, **fields: Any) -> Decision:
        """A decision that ends the chain, with what the earlier hooks said."""
        values = self._values(action, reason)
        for name, value in fields.items():
            if value is not None:
                values[_SLOT[name]] = value
        return _make_decision(values)


def intercept_plan(
    snapshot: _Snapshot,
    point: HookPoint,
    payload: Any,
    context: tuple[Any, ...],
    timeout: float,
    normalize: Normalizer | None = None,
    *,
    decision_id: str = "",
    call: ToolCall | None = None,
) -> Generator[Step, Outcome, Decision]:
    """Run the interceptors of `point` in order over `payload`.

    `context` are leading arguments every hook receives before the payload
    (`after_tool` hooks get the call, then the result). `normalize(old, new,
    hook_name)` may adjust a modified payload and return a warning.
    """
    fold = Fold(point, payload, normalize, decision_id, call)
    for reg, method, coroutine in snapshot.at[point]:
        budget = reg.timeout_ms / 1000 if reg.timeout_ms is not None else timeout
        value, failure = yield (reg, method, (*context, fold.current), budget, coroutine)
        done = fold.take(reg, value, failure, budget)
        if done is not None:
            return done
    return fold.result()


def intercept_inline(
    snapshot: _Snapshot,
    point: HookPoint,
    payload: Any,
    context: tuple[Any, ...],
    timeout: float,
    normalize: Normalizer | None,
    decision_id: str,
    call: ToolCall | None,
    run: Callable[[Callable[..., Any], tuple[Any, ...], float], Outcome],
) -> Decision:
    """`intercept_plan` without a generator, for points where every hook is inline.

    Only valid when `snapshot.inline_only[point]`; `run(method, args, budget)`
    calls one hook and times it. This is the hot path of compiled packs and
    builtins: no generator, no driver, one call per hook.
    """
    fold = Fold(point, payload, normalize, decision_id, call)
    for reg, method, _ in snapshot.at[point]:
        budget = reg.timeout_ms / 1000 if reg.timeout_ms is not None else timeout
        value, failure = run(method, (*context, fold.current), budget)
        done = fold.take(reg, value, failure, budget)
        if done is not None:
            return done
    return fold.result()


def approvers_for(
    snapshot: _Snapshot, call: ToolCall
) -> list[tuple[Registration, Callable[..., Any], bool]]:
    entries = snapshot.at[HookPoint.APPROVE_TOOL]
    if not entries:
        return []
    return [entry for entry in entries if entry[0].covers_call(call)]


#: The gate stage as one more approver: its registration, bound method, budget (s).
GateStep = tuple[Registration, Callable[..., Any], float]


def approval_plan(
    snapshot: _Snapshot,
    call: ToolCall,
    timeout: float | None,
    default_timeout: float,
    required: bool,
    gate_step: GateStep | None = None,
) -> Generator[Step, Outcome, ApprovalDecision]:
    """Ask each covering approver in order, then the gate stage; the first denial wins.

    An approver that errors, times out or answers something other than an
    ApprovalDecision denies, whatever its failure policy (PicoClaw does the same
    for errors and timeouts). Code approvers go first: they answer in
    milliseconds, and a person is not asked about a call they would refuse.
    """
    from policy.model.payloads import ApprovalDecision

    approvers: list[tuple[Registration, Callable[..., Any], bool]] = approvers_for(snapshot, call)
    if gate_step is not None:
        approvers = [*approvers, (gate_step[0], gate_step[1], False)]
    if not approvers:
        if required:
            return ApprovalDecision(
                False, f"approval required but no approver covers tool {call.tool!r}"
            )
        return ApprovalDecision(True, "no approver covers this call")
    last: ApprovalDecision | None = None
    for reg, method, coroutine in approvers:
        if gate_step is not None and reg is gate_step[0]:
            budget = gate_step[2]  # the stage's own wait, capped by `timeout` already
        elif timeout is not None:
            budget = timeout
        elif reg.timeout_ms is not None:
            budget = reg.timeout_ms / 1000
        else:
            budget = default_timeout
        value, failure = yield (reg, method, (call,), budget, coroutine)
        if failure is None and not isinstance(value, ApprovalDecision):
            failure = Failure(
                "invalid", f"returned {type(value).__name__}, expected ApprovalDecision"
            )
        elif failure is None and type(value.approved) is not bool:
            failure = Failure(
                "invalid", f"approved must be a bool, not {type(value.approved).__name__}"
            )
        if failure is not None:
            if failure.kind == "timeout":
                reason = (
                    f"tool approval hook {reg.name!r} timed out after {round(budget * 1000)} ms"
                )
            else:
                reason = f"tool approval hook {reg.name!r} failed: {failure.message}"
            log.warning("%s: denied", reason)
            return ApprovalDecision(False, reason, hook=reg.name, failure=failure.kind)
        assert isinstance(value, ApprovalDecision)
        answer = value if value.hook else value.replace(hook=reg.name)
        if not answer.approved:
            return answer
        last = answer
    assert last is not None
    return last


#: `CO_COROUTINE`, the code flag of an `async def` (inspect's name for it).
_CO_COROUTINE = 0x80


def _is_coroutine_function(method: Callable[..., Any]) -> bool:
    """`inspect.iscoroutinefunction(method)`, without importing `inspect` (≈ 8 ms of a
    one-event hook's start, decision 0029) for the usual case: a method, or a function,
    whose code is at hand — inspect's own answer is its code's flag. Anything else (a
    partial, a callable object, a compiled function) is inspect's to answer."""
    function = method.__func__ if type(method) is MethodType else method
    # (from 3.12 a function marked by `inspect.markcoroutinefunction` counts too)
    if type(function) is FunctionType and not hasattr(function, "_is_coroutine_marker"):
        return bool(function.__code__.co_flags & _CO_COROUTINE)
    import inspect

    return inspect.iscoroutinefunction(method)
