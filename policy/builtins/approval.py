"""The approval stage for gates: a call waits for the people its gates name (DESIGN §6.4).

Gates come from before_tool (`Decision.gates`): one per `ask` rule that matched, and
one per pack whose `approval` builtin covers the call (unless an `allow` rule lifted
it). Several gates on one call combine, strictest first:

* gates of the same pack naming the same approvers are one **request** (shortest
  timeout, only the grants every one offers, self-approval only if every one
  allows it, the lowest denial cap);
* different approver groups are different requests, and the call runs only when
  **every** group approved — a deploy gated by `secops-*` and by `dba-*` needs one
  of each (one person in both groups may answer both);
* all requests of a call share one deadline: the strictest timeout;
* the first denial denies the call and expires its other requests.

For each group, before asking: a grant that covers the call admits it; a call
denied `max_denials` times in the session is denied without asking; an approved
request for the same call nobody has used yet (a deferred approval) is claimed —
once — and admits it. Otherwise a request is filed and the call either waits until
its deadline (nobody answering is a denial; not configurable) or, deferred, is
denied at once naming the request, so that the same call retried after a person
approved it runs.

Every request this process waits on is tracked, so a caller that gives up (the
engine's `abandon`, a watchdog, the process ending) expires it in the store: a call
that was denied can never be approved afterwards.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar

from policy._lazy_dataclass import dataclass
from policy._logger import logger
from policy.approvals.rules import grant_seconds
from policy.approvals.store import (
    AlreadyClaimed,
    ApprovalRequest,
    ApprovalStore,
    Grant,
    GrantScope,
    RequestNotFound,
    StoreError,
    approver_group,
    call_digest,
)
from policy.digest import canonical_json, json_safe
from policy.facts import current_caller, current_principal, scoped
from policy.model import ApprovalDecision, ApprovalGate, ToolCall

__all__ = ["ApprovalGates", "approve_hint", "approvers_reach", "merge_gates", "unless_hung_up"]

log = logger("policy.approvals")

#: The chain's budget for the gate stage exceeds its wait by this much, so the stage's
#: own answer (with the request id and a clear reason) is the one that lands.
GRACE_SECONDS = 2.0
_REMEMBERED = 4096  # sessions whose last approval is kept, to report changed arguments
_SLICE = 0.1  # seconds spent on one request at a time when a call waits on several
#: Longest a process that is ending waits for requests being filed as it gives up, to
#: expire them once stored (within the hook processes' 1 s for giving up).
_FILING_WAIT = 0.5

#: `policy serve`'s word that the client of the call being decided has hung up.
_hung_up: ContextVar[threading.Event | None] = ContextVar("policy_hung_up", default=None)


@contextlib.contextmanager
def unless_hung_up(hung_up: threading.Event) -> Iterator[None]:
    """For the calls decided within (and the threads started from here, which copy the
    context): nothing is filed once `hung_up` is set — `policy serve`, whose client hung
    up. Expiring what was filed when the hang-up was seen is not enough: a call still
    in a slow approver before its gate would file afterwards, and its request stay
    pending, approvable, for the whole of its budget."""
    token = _hung_up.set(hung_up)
    try:
        yield
    finally:
        _hung_up.reset(token)


def _client_gone() -> bool:
    hung_up = _hung_up.get()
    return hung_up is not None and hung_up.is_set()


#: The answer to a call whose client has hung up (`unless_hung_up`).
_GONE = "not asking approvers: the client hung up"


#: Calls one caller may have waiting for people at once, through `policy serve`
#: (`service.max_waits_per_caller`), and all callers together.
MAX_WAITS_PER_CALLER = 8
MAX_WAITS = 256
#: Approval requests one caller may have pending at once through `policy serve`.
MAX_PENDING_PER_CALLER = 32
#: The longest arguments (canonical JSON, bytes) a request carries for a person to read.
MAX_REQUEST_ARGS = 64 << 10


class _Seats:
    """Calls waiting for people at once, per principal and in all. Only callers `policy
    serve` names (a principal) are counted: a hook process waits for its own one call."""

    def __init__(self, per_caller: int, total: int) -> None:
        self._per_caller = per_caller
        self._total = total
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, principal: str) -> str | None:
        """Hold a seat for `principal`; the cap it would break, named, when it cannot."""
        if not principal:
            return None
        with self._lock:
            held = self._held.get(principal, 0)
            if held >= self._per_caller:
                return (
                    f"{principal} has {held} calls waiting for approvers already "
                    f"(service.max_waits_per_caller: {self._per_caller})"
                )
            total = sum(self._held.values())
            if total >= self._total:
                return f"{total} calls wait for approvers already (at most {self._total})"
            self._held[principal] = held + 1
        return None

    def give_back(self, principal: str) -> None:
        if not principal:
            return
        with self._lock:
            left = self._held.get(principal, 0) - 1
            if left > 0:
                self._held[principal] = left
            else:
                self._held.pop(principal, None)


@dataclass(frozen=True, slots=True)
class _Group:
    """The gates of one pack that name the same approvers: one request."""

    pack: str
    approvers: tuple[str, ...]
    timeout: float
    grants: tuple[str, ...]
    self_approval: bool
    max_denials: int | None
    sources: tuple[str, ...]
    #: The rule ids of the gates, as the decision log's `rule_ids` name them.
    rules: tuple[str, ...] = ()
    #: What the gates' rules say to the person deciding (their `message`), each once.
    messages: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Look:
    """What the store says about one group of a call before anything is asked."""

    grant: Grant | None = None
    denial: ApprovalDecision | None = None
    approved: ApprovalRequest | None = None  # approved, not used yet: to claim
    pending: ApprovalRequest | None = None  # asked already, undecided


def merge_gates(gates: Iterable[ApprovalGate], default_timeout: float) -> list[_Group]:
    """One group per (pack, approvers), each as strict as its strictest gate."""
    grouped: dict[tuple[str, tuple[str, ...]], list[ApprovalGate]] = {}
    for gate in gates:
        grouped.setdefault((gate.pack, tuple(sorted(gate.approvers))), []).append(gate)
    groups = []
    for (pack, approvers), members in grouped.items():
        offered = [g for g in members[0].grants if all(g in m.grants for m in members)]
        caps = [m.max_denials for m in members if m.max_denials is not None]
        groups.append(
            _Group(
                pack=pack,
                approvers=approvers,
                timeout=min(
                    m.timeout if m.timeout is not None else default_timeout for m in members
                ),
                grants=tuple(offered) or ("once",),
                self_approval=all(m.self_approval for m in members),
                max_denials=min(caps) if caps else None,
                sources=tuple(dict.fromkeys(m.source for m in members)),
                rules=tuple(dict.fromkeys(map(_rule_id, members))),
                messages=tuple(dict.fromkeys(m for m in map(_message, members) if m)),
            )
        )
    return groups


def stage_timeout(gates: Sequence[ApprovalGate], default_timeout: float) -> float:
    """How long the gate stage may wait for `gates`: the strictest timeout."""
    return min(g.timeout if g.timeout is not None else default_timeout for g in gates)


class ApprovalGates:
    """The engine's approval stage for gates; an approver in the chain's terms."""

    name = "builtin:approval"
    inline = False  # it waits for a person: a worker thread, never the caller's
    failure_policy = "fail"

    def __init__(
        self,
        open_store: Callable[[], ApprovalStore],
        *,
        default_timeout: float,
        clock: Callable[[], float] = time.time,
        max_waits_per_caller: int = MAX_WAITS_PER_CALLER,
        max_waits: int = MAX_WAITS,
    ) -> None:
        self._open_store = open_store
        self.default_timeout = default_timeout
        self._clock = clock
        self._seats = _Seats(max_waits_per_caller, max_waits)
        self._lock = threading.Lock()
        # Notified whenever a request being filed has been stored (or failed to be).
        self._stored = threading.Condition(self._lock)
        # Requests filed by this process and being waited on: id -> (principal, call).
        self._waiting: dict[str, tuple[str, ToolCall]] = {}
        # Every wait in this process on each request (filed by it or by an identical
        # call): the hang-up mark of each (None: a caller that cannot hang up).
        self._watching: dict[str, list[threading.Event | None]] = {}
        # One filing at a time per caller (`_filing`), and the message once stopping.
        self._filers: dict[str, threading.Lock] = {}
        self._stopped = ""
        # Requests given up on before the store had them (`_expire`, `_file`).
        self._given_up: set[str] = set()
        # (session, tool) -> (digest, request id) of the last approval, to say so when
        # the same tool comes back with other arguments. Bounded; this process only.
        self._last_approved: dict[tuple[str, str], tuple[str, str]] = {}

    # ------------------------------------------------------------------ the stage

    def approve(
        self,
        call: ToolCall,
        gates: Sequence[ApprovalGate],
        *,
        defer: bool = False,
        until: float | None = None,
    ) -> ApprovalDecision:
        """Admit `call` once every gate's approvers have; `until` caps the wait (epoch s).

        First every group is looked at without changing anything (a grant, the denial
        cap, an approval not used yet, a request still pending); a denial there files
        nothing. Approvals not used yet are claimed only when every group is satisfied,
        so one group's approval is never spent on a call another group still holds up.
        Requests this call files are expired if it gives up, whatever the reason; a
        pending request another call filed is waited on, never expired, by this one.
        """
        caller = current_caller()
        principal = caller.principal if caller is not None else ""
        digest = call_digest(call.tool, call.args, call.cwd, principal)
        now = self._clock()
        changed = self._changed(call, digest)
        groups = merge_gates(gates, self.default_timeout)
        deadline = now + min(g.timeout for g in groups)
        if until is not None:
            deadline = min(deadline, until)
        filed: list[str] = []
        try:
            if caller is not None and not caller.may_file:
                # Nothing was ever filed for it, so nothing was approved or granted.
                return ApprovalDecision(
                    False,
                    "this call needs approval, and an anonymous caller may not file approval "
                    "requests: call through the Unix socket or with a token",
                )
            store = self._open_store()
            looks: list[tuple[_Group, _Look]] = []
            for group in groups:
                look = self._look(store, group, call, digest, now)
                if look.denial is not None:
                    return look.denial
                looks.append((group, look))
            if self._stopped:
                return ApprovalDecision(False, f"not asking approvers: {self._stopped}")
            if _client_gone():  # (nor waits on another call's request, taking its approval)
                return ApprovalDecision(False, _GONE)
            files = any(
                look.grant is None and look.approved is None and look.pending is None
                for _, look in looks
            )
            must_wait = not defer and any(
                look.grant is None and look.approved is None for _, look in looks
            )
            if must_wait:
                # A seat among the waits before anything is filed: past the caps the
                # call is refused at once, never queued, and leaves no request behind.
                refused = self._seats.take(principal)
                if refused is not None:
                    log.warning("wait refused: %s", refused)
                    return ApprovalDecision(False, f"{refused}: refused, not queued")
            try:
                # Counting a caller's pending requests and filing its new ones is one
                # step for that caller: racing calls cannot both pass the count.
                with self._filing(principal if files else ""):
                    if files:
                        refused = self._may_file(store, call, principal)
                        if refused is not None:
                            log.warning("request refused: %s", refused)
                            return ApprovalDecision(False, refused)
                    waiting = [
                        (g, look.pending) for g, look in looks if look.pending is not None
                    ]
                    for group, look in looks:
                        if look.grant is None and look.approved is None and look.pending is None:
                            asked = self._file(store, group, call, digest, now, deadline, filed)
                            if asked is None:  # the process is ending, or the client gone
                                self._expire(store, filed)
                                stopped = self._stop_reason()
                                return ApprovalDecision(
                                    False, f"not asking approvers: {stopped}" if stopped else _GONE
                                )
                            waiting.append((group, asked))
                stopped = self._stop_reason()
                if stopped and waiting:
                    # The stop came while this call filed (after the check above, before
                    # its requests were among the waits a stop expires): nobody is
                    # asked from then on, and nobody may approve what it filed.
                    self._expire(store, filed)
                    return ApprovalDecision(False, f"not asking approvers: {stopped}")
                approved = [look.approved for _, look in looks if look.approved is not None]
                if waiting and defer:
                    return self._deferred(waiting)
                if waiting:
                    answered = self._wait(store, waiting, deadline, filed)
                    if isinstance(answered, ApprovalRequest):
                        self._expire(store, filed)
                        return self._refused(answered, changed, deadline - now)
                    approved += answered
                if _client_gone():
                    # Gone while it waited: an approval it would claim now is left for the
                    # call still there (an identical retry), and what it filed is closed.
                    self._expire(store, filed)
                    return ApprovalDecision(False, _GONE)
                return self._admit(store, call, looks, approved, changed)
            finally:
                if must_wait:
                    self._seats.give_back(principal)
        except StoreError as exc:
            self._expire_ids(filed)
            return ApprovalDecision(False, f"approval store unavailable: {exc}")
        except BaseException:
            self._expire_ids(filed)
            raise
        finally:
            with self._lock:
                for request_id in filed:
                    self._waiting.pop(request_id, None)
                    self._given_up.discard(request_id)

    def _look(
        self, store: ApprovalStore, group: _Group, call: ToolCall, digest: str, now: float
    ) -> _Look:
        """What the store already says about `call` for `group`, changing nothing."""
        key = approver_group(group.approvers)
        grant = store.find_grant(group.pack, digest, call.session, call.sender, now, key)
        if grant is not None:
            return _Look(grant=grant)
        if group.max_denials is not None:
            denied = store.denials(group.pack, digest, call.session)
            if denied >= group.max_denials:
                return _Look(
                    denial=ApprovalDecision(
                        False,
                        f"this call was denied {denied} times in session {call.session!r}; "
                        "not asking again",
                    )
                )
        agent_uid = _agent_uid()
        for request in store.find(group.pack, digest, call.session):
            if tuple(sorted(request.approvers)) != group.approvers:
                continue
            if request.agent_uid is not None and request.agent_uid != agent_uid:
                continue  # another agent's request for the same call: never ours to use
            if request.state == "pending" and now < request.deadline:
                return _Look(pending=request)  # asked already: wait on it, or defer again
            if (
                request.state == "approved"
                and request.claimed_at is None
                and now < request.deadline + group.timeout
            ):
                return _Look(approved=request)
            break  # the newest request for this call was denied, expired or used: ask again
        return _Look()

    def _stop_reason(self) -> str:
        """Why this stage stopped asking ("" while it asks): read anew at each call,
        as another thread may stop it at any moment."""
        return self._stopped

    def _file(
        self,
        store: ApprovalStore,
        group: _Group,
        call: ToolCall,
        digest: str,
        now: float,
        deadline: float,
        filed: list[str],
    ) -> ApprovalRequest | None:
        """The request filed for `call` (or the one an identical retry filed first);
        None once the process is ending, or the call's client has hung up
        (`unless_hung_up`), when nothing is filed for it any more."""
        request = ApprovalRequest(
            id=secrets.token_hex(6),
            tool=call.tool,
            digest=digest,
            # Verbatim: a person approves exactly what will run. Masking here let a
            # payload hide behind something that looked like a secret (`--password=x;curl|sh`).
            args=json_safe(call.args),
            requester=call.sender,
            session=call.session,
            pack=group.pack,
            created=now,
            deadline=deadline,
            approvers=group.approvers,
            self_approval=group.self_approval,
            grants=group.grants,
            agent_uid=_agent_uid(),
            principal=current_principal(),
            cwd=call.cwd,
            rules=group.rules,
            message="; ".join(group.messages),
        )
        # This call's before it exists, so whoever gives up on the call in between (a
        # watchdog, a signal) expires it too.
        with self._lock:
            # Under the lock the stop (and a hang-up's abandon) takes its list of what
            # to expire: a request is either on that list or never filed (a process that
            # is ending does not wait for the thread that filed it to expire it).
            if self._stopped or _client_gone():
                return None
            filed.append(request.id)
            self._waiting[request.id] = (current_principal(), call)
        try:
            stored = store.file(request)
        finally:
            with self._lock:
                given_up = request.id in self._given_up
                self._given_up.discard(request.id)
                self._stored.notify_all()
        if given_up and stored.id == request.id:
            # Its caller went away (a hang-up, a stop) while it was being filed: nobody
            # may approve it now, and the wait below ends at once.
            store.expire(request.id)
        if stored.id != request.id:
            # An identical retry filed it first: wait on that one, which is its filer's
            # to expire, not ours.
            filed.remove(request.id)
            with self._lock:
                self._waiting.pop(request.id, None)
            return stored
        log.warning(
            "approval request %s: %s by %r (%s) waits up to %g s for %s (%s)",
            request.id,
            call.tool,
            call.sender,
            ", ".join(group.sources),
            round(deadline - now, 1),
            ", ".join(group.approvers) or "anyone",
            approve_hint(request.id),
        )
        return request

    @contextlib.contextmanager
    def _filing(self, principal: str) -> Iterator[None]:
        """Hold `principal`'s filing lock (none for "": a hook process files for itself)."""
        if not principal:
            yield
            return
        with self._lock:
            lock = self._filers.setdefault(principal, threading.Lock())
        with lock:
            yield

    def _may_file(self, store: ApprovalStore, call: ToolCall, principal: str) -> str | None:
        """Why `call` may not file a request, if it may not: arguments too long for a
        person to read, or (through `policy serve`) its caller's pending requests at
        their cap. Requests pile up for people, so they are bounded like everything else."""
        size = len(canonical_json(dict(call.args)))
        if size > MAX_REQUEST_ARGS:
            return (
                f"the call's arguments are {size} bytes, more than an approval request shows "
                f"a person ({MAX_REQUEST_ARGS}): refused"
            )
        if not principal:
            return None
        still = store.count_pending(principal, self._clock())
        if still >= MAX_PENDING_PER_CALLER:
            return (
                f"{principal} has {still} approval requests pending already (at most "
                f"{MAX_PENDING_PER_CALLER}): refused until people answer them"
            )
        return None

    def _deferred(self, asked: list[tuple[_Group, ApprovalRequest]]) -> ApprovalDecision:
        pending = "; ".join(
            f"approval {request.id} pending (approvers: {', '.join(group.approvers) or 'anyone'}; "
            f"{approve_hint(request.id)})"
            for group, request in asked
        )
        return ApprovalDecision(
            False, f"{pending}: retry the same command once it is approved", failure="deferred"
        )

    def _wait(
        self,
        store: ApprovalStore,
        waiting: list[tuple[_Group, ApprovalRequest]],
        deadline: float,
        filed: list[str],
    ) -> list[ApprovalRequest] | ApprovalRequest:
        """Every request approved (the list), or the first that was not: denied, or still
        pending at the deadline (expired if this call filed it, else left to its owner).
        Several requests are watched in turn, a slice at a time, so a denial of any of
        them is seen within a slice."""
        open_ids = [request.id for _, request in waiting]
        mark = _hung_up.get()
        with self._lock:
            for request_id in open_ids:
                self._watching.setdefault(request_id, []).append(mark)
        try:
            return self._watch(store, waiting, open_ids, deadline, filed)
        finally:
            with self._lock:
                for request_id in [request.id for _, request in waiting]:
                    marks = self._watching[request_id]
                    marks.remove(mark)
                    if not marks:
                        del self._watching[request_id]

    def _watch(
        self,
        store: ApprovalStore,
        waiting: list[tuple[_Group, ApprovalRequest]],
        open_ids: list[str],
        deadline: float,
        filed: list[str],
    ) -> list[ApprovalRequest] | ApprovalRequest:
        """`_wait`'s loop, while its wait is counted among the request's watchers."""
        done: dict[str, ApprovalRequest] = {}
        single = len(open_ids) == 1
        while open_ids:
            for request_id in list(open_ids):
                until = deadline if single else min(deadline, self._clock() + _SLICE)
                final = store.wait(request_id, until=until)
                if final.state == "pending" and self._clock() >= deadline:
                    if request_id in filed:
                        final = store.expire(request_id)
                    if final.state == "pending":
                        return final  # another call's request: stop waiting, leave it be
                if final.state == "pending":
                    continue
                if final.state != "approved":
                    return final
                done[request_id] = final
                open_ids.remove(request_id)
        return [done[request.id] for _, request in waiting]

    def _admit(
        self,
        store: ApprovalStore,
        call: ToolCall,
        looks: list[tuple[_Group, _Look]],
        approved: list[ApprovalRequest],
        changed: str,
    ) -> ApprovalDecision:
        """Every group is satisfied: use each approval (once), keep what was granted."""
        reasons = [
            f"grant {look.grant.scope} by {look.grant.approver} (request "
            f"{look.grant.request_id}) covers this call"
            for _, look in looks
            if look.grant is not None
        ]
        approver = next((look.grant.approver for _, look in looks if look.grant), None)
        for request in approved:
            try:
                used = store.claim(request.id, self._clock())
            except AlreadyClaimed as exc:
                return ApprovalDecision(
                    False, f"request {request.id} was used by another call: {exc}"
                )
            self._remember(store, used, call)
            reasons.append(
                f"approved by {used.decided_by} (request {used.id}, grant {used.grant})"
                + _suffix(used.reason)
            )
            approver = used.decided_by
        return ApprovalDecision(True, changed + "; ".join(reasons), approver=approver)

    def _refused(self, final: ApprovalRequest, changed: str, waited: float) -> ApprovalDecision:
        if final.state == "denied":
            return ApprovalDecision(
                False,
                f"{changed}denied by {final.decided_by} (request {final.id})"
                + _suffix(final.reason),
                approver=final.decided_by,
            )
        return ApprovalDecision(
            False,
            f"{changed}no approval within {round(waited, 1):g} s (request {final.id}): denied",
        )

    # ------------------------------------------------------------------ giving up

    def abandon(self, call: ToolCall) -> list[ApprovalRequest]:
        """The chain stopped waiting for `call`: expire its requests now."""
        with self._lock:
            ids = [rid for rid, (_, waiting) in self._waiting.items() if waiting is call]
        return self._expire_ids(ids)

    def abandon_like(self, call: ToolCall) -> list[tuple[ToolCall, ApprovalRequest]]:
        """Expire the requests of every wait for a call equal to `call` by the current
        principal (`policy serve`, when the client that asked for it hung up: it holds
        another copy of the call; another agent's identical call waits on)."""
        principal = current_principal()
        with self._lock:
            waiting = {
                rid: c
                for rid, (who, c) in self._waiting.items()
                if c == call and who == principal and not self._still_watched(rid)
            }
        expired = self._expire_ids(list(waiting))
        return [(waiting[request.id], request) for request in expired]

    def _still_watched(self, request_id: str) -> bool:
        """Whether a call whose client is still there waits on `request_id` (an
        identical call sharing it): the request is then that call's to wait out, not
        one to expire with the call that filed it and hung up — which waits on, and
        claims nothing (`approve`). Under `self._lock`."""
        return any(
            mark is None or not mark.is_set() for mark in self._watching.get(request_id, ())
        )

    def abandon_all(self, reason: str = "") -> list[tuple[ToolCall, ApprovalRequest]]:
        """Expire every request this process waits on (a watchdog fired, the host went
        away, the process is ending); what was expired, with its call. With `reason`,
        nothing is asked from then on either: a call that reaches the stage after the
        stop began is refused with it, not left to wait past the stop."""
        with self._lock:
            if reason:
                self._stopped = reason  # (under the lock: see `_file`)
            waiting = {rid: c for rid, (_, c) in self._waiting.items()}
        expired = self._expire_ids(list(waiting))
        if reason:
            expired += self._expire_when_stored(list(waiting))
        return [(waiting[request.id], request) for request in expired]

    def _expire_when_stored(self, ids: list[str]) -> list[ApprovalRequest]:
        """Expire those of `ids` that were being filed as the process gave up, once the
        store has them (within `_FILING_WAIT`). Their filers would expire them — but a
        process that is ending does not wait for its threads: without this, one filed
        in that moment stayed pending, approvable after the call was refused."""
        deadline = time.monotonic() + _FILING_WAIT
        with self._lock:
            filing = [rid for rid in ids if rid in self._given_up]
            while any(rid in self._given_up for rid in filing):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._stored.wait(left)
        return self._expire_ids(filing)

    def _expire_ids(self, ids: list[str]) -> list[ApprovalRequest]:
        if not ids:
            return []
        try:
            store = self._open_store()
        except StoreError:
            return []
        return self._expire(store, ids)

    def _expire(self, store: ApprovalStore, ids: Iterable[str]) -> list[ApprovalRequest]:
        """Expire the pending ones among `ids`; an answer that landed first stands."""
        expired = []
        for request_id in ids:
            try:
                request = store.expire(request_id)
            except RequestNotFound:
                with self._lock:
                    if request_id in self._waiting:
                        # Given up on while it is being filed: expired once it is stored.
                        self._given_up.add(request_id)
                        continue
                log.error("approval request %s could not be expired: not found", request_id)  # noqa: TRY400
                continue
            except StoreError as exc:
                log.error("approval request %s could not be expired: %s", request_id, exc)  # noqa: TRY400
                continue
            if request.state == "expired":
                expired.append(request)
        return expired

    # ------------------------------------------------------------------ grants

    def _changed(self, call: ToolCall, digest: str) -> str:
        previous = self._last_approved.get((scoped(call.session), call.tool))
        if previous is not None and previous[0] != digest:
            return f"arguments changed since request {previous[1]} was approved; "
        return ""

    def _remember(self, store: ApprovalStore, request: ApprovalRequest, call: ToolCall) -> None:
        """Keep what the approver granted beyond this call (a session or a window)."""
        with self._lock:
            if len(self._last_approved) >= _REMEMBERED:
                self._last_approved.clear()
            self._last_approved[(scoped(call.session), call.tool)] = (request.digest, request.id)
        kind = request.grant.split("=", 1)[0]
        scope: GrantScope
        if kind == "session":
            scope, seconds = "session", None
        elif kind == "window":
            scope, seconds = "window", grant_seconds(request.grant)
        else:
            return
        store.add_grant(
            Grant(
                digest=request.digest,
                pack=request.pack,
                scope=scope,
                requester=call.sender,
                session=call.session,
                approver=request.decided_by,
                request_id=request.id,
                expires=None if seconds is None else self._clock() + seconds,
                group=approver_group(request.approvers),
            )
        )


#: Where approvers reach the requests filed in this context, when a `policy serve`
#: files them (`unix:PATH`, set per request by the service; "" when it cannot say);
#: None: in process, against the store the `approvals_store` setting names.
_approvers_reach: ContextVar[str | None] = ContextVar("policy_approvers_reach", default=None)


@contextlib.contextmanager
def approvers_reach(address: str) -> Iterator[None]:
    """File requests, within this block (and the threads it hands work to with its
    context), as `policy serve` whose approvers use `address` (`unix:PATH`)."""
    token = _approvers_reach.set(address)
    try:
        yield
    finally:
        _approvers_reach.reset(token)


def approve_hint(request_id: str) -> str:
    """The command that approves `request_id`, complete for where it was filed: in
    process, `policy approvals approve ID` (the store the settings name, the data dir's
    by default); through `policy serve`, with the service's address and the approver's
    token every approvals endpoint of the service requires."""
    address = _approvers_reach.get()
    if address is None:
        return f"`policy approvals approve {request_id}`"
    server = address or "unix:PATH"
    where = "" if address else " (PATH: the service's Unix socket for approvers)"
    return (
        f"`policy approvals approve {request_id} --server {server}`{where}, with an "
        "approver's token in $HOOKPOLICY_TOKEN or --token-file FILE"
    )


#: The rule id the `approval` builtin has in its pack (policy.packs.runtime's
#: APPROVAL_RULE_ID; packs import builtins, so not imported from there).
_BUILTIN_RULE_ID = "builtin:approval"


def _rule_id(gate: ApprovalGate) -> str:
    """The id of the rule behind `gate`, as decisions' `rule_ids` name it: `pack/rule`
    (its source), or `pack/builtin:approval` for the pack's approval builtin, whose
    gate alone an allow lifts (its source says `pack/approval`)."""
    if gate.exempt_by_allow and gate.source == f"{gate.pack}/approval":
        return f"{gate.pack}/{_BUILTIN_RULE_ID}"
    return gate.source


def _message(gate: ApprovalGate) -> str:
    """What the rule behind `gate` says to the person deciding (its `message`)."""
    return gate.message


def _suffix(reason: str) -> str:
    return f": {reason}" if reason else ""


def _agent_uid() -> int | None:
    """The uid of the agent whose call this is: this process's for a hook, the hook's
    (its socket peer) for `policy serve` — a request filed by that uid is its own, and
    approving it from that uid is self-approval. None for a caller `policy serve` knows
    by a token only (never the service's own uid)."""
    caller = current_caller()
    return caller.uid if caller is not None else os.getuid()
