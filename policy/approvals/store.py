"""Approval requests and grants, and the interface every store implements.

A request is created by the call that waits for it and decided by a person, often in
another process (`policy approvals approve ID`) or on another machine, so the store
is where the two meet. What every store guarantees:

* a request is decided exactly once: `decide` and `expire` are compare-and-set on
  the `pending` state, so two approvers answering at once give one decision and the
  loser gets `AlreadyDecided` with the winner's answer;
* a request past its deadline can no longer be approved: every store judges the
  deadline inside its atomic step, so an answer committed late expires the request;
* `wait` returns as soon as the request leaves `pending` (or at the deadline);
* an approval is used once: `claim` is compare-and-set on `claimed_at`, so of two
  calls retrying the same approved request, one gets it and the other `AlreadyClaimed`;
* `purge` deletes what ended before a time; a store opened with a `retention` does
  so by itself, once per store object, on its first `create`.

Stores: `memory://` (one process, tests), `sqlite:///PATH` (the embedded default,
safe across processes on one machine), `redis://` (across machines).
"""

from __future__ import annotations

import abc
import builtins
import contextlib
import dataclasses
import hashlib
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal

from policy._lazy_dataclass import dataclass, field, replace
from policy._logger import logger
from policy.digest import canonical_json
from policy.errors import PolicyError
from policy.model import ContentKey, FrozenDict

__all__ = [
    "AlreadyClaimed",
    "AlreadyDecided",
    "ApprovalRequest",
    "ApprovalStore",
    "Grant",
    "GrantScope",
    "RequestNotFound",
    "State",
    "StoreError",
    "StoreMissing",
    "approver_group",
    "call_digest",
    "listing",
    "open_store",
]

log = logger("policy.approvals")

State = Literal["pending", "approved", "denied", "expired"]
GrantScope = Literal["once", "session", "window"]


class StoreError(PolicyError):
    """The store cannot be reached or read; callers deny."""


class StoreMissing(StoreError):
    """No store at that place yet (nobody has asked for approval there)."""


class RequestNotFound(StoreError):
    pass


class AlreadyDecided(PolicyError):
    """The request left `pending` before this decision; `current` says how."""

    def __init__(self, current: ApprovalRequest) -> None:
        super().__init__(
            f"request {current.id} is already {current.state}"
            + (f" by {current.decided_by}" if current.decided_by else "")
        )
        self.current = current


class AlreadyClaimed(PolicyError):
    """The request is not an approval nobody used yet; `current` says what it is."""

    def __init__(self, current: ApprovalRequest) -> None:
        if current.state != "approved":
            what = f"is {current.state}, not approved"
        else:
            what = "was already used"
        super().__init__(f"request {current.id} {what}")
        self.current = current


def call_digest(tool: str, args: Mapping[str, Any], cwd: str = "", principal: str = "") -> str:
    """SHA-256 of the canonical JSON of tool, arguments and (when given) the working
    directory: what an approval is bound to. `make deploy` in another directory runs
    another Makefile, so it is another call. `principal` (`policy serve`: the uid or
    token that asked, `policy.facts.Caller`) binds it to who asks too: the same command
    from another agent is another call, which no request or grant of this one admits."""
    content = args.content_key() if type(args) is FrozenDict else None
    if content is not None:
        # (an agent repeats its calls, each a new mapping: kept by their contents)
        known = _call_digests.get((tool, cwd, principal, content))
        if known is not None:
            return known
    payload: dict[str, Any] = {"tool": tool, "args": dict(args)}
    if cwd:
        payload["cwd"] = cwd
    if principal:
        payload["principal"] = principal
    digest = hashlib.sha256(canonical_json(payload)).hexdigest()
    if content is not None:
        if len(_call_digests) >= _CALL_DIGESTS_KEPT:
            _call_digests.clear()  # (one call: safe while another thread reads)
        _call_digests[(tool, cwd, principal, content)] = digest
    return digest


#: `call_digest`s of calls with small flat arguments (`FrozenDict.content_key`).
_call_digests: dict[tuple[str, str, str, ContentKey], str] = {}
_CALL_DIGESTS_KEPT = 1024



@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """One call waiting for a person. Times are epoch seconds."""

    id: str
    tool: str
    digest: str
    args: Mapping[str, Any]  # masked, for the person deciding; the digest binds the real ones
    requester: str
    session: str
    pack: str
    created: float
    deadline: float
    approvers: tuple[str, ...] = ()  # identity globs that may decide; empty: anyone
    self_approval: bool = False
    grants: tuple[str, ...] = ("once",)  # what the deciding person may grant
    state: State = "pending"
    decided_by: str = ""
    decided_at: float | None = None
    reason: str = ""
    grant: str = "once"  # once | session | window=SECONDS
    agent_uid: int | None = None  # the uid of the process that filed it
    cwd: str = ""  # where the call runs: part of the digest, so shown to the approver
    claimed_at: float | None = None  # when a call used this approval (`claim`)
    #: Who asked, as `policy serve` knows it (`uid:1001`, `token:ci`; "" in process):
    #: what its pending requests are counted against (`count_pending`).
    principal: str = ""
    #: The rules that asked for this approval (`pack/rule-id`; the builtin's is
    #: `pack/approval`), and what they say to the person deciding (their `message`).
    rules: tuple[str, ...] = ()
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["args"] = dict(self.args)
        data["approvers"] = list(self.approvers)
        data["grants"] = list(self.grants)
        data["rules"] = list(self.rules)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ApprovalRequest:
        """The request `to_dict` wrote; fields a store written by an older version
        lacks (`rules`, `message`, ...) take their defaults."""
        values = dict(data)
        values["approvers"] = tuple(values.get("approvers", ()))
        values["grants"] = tuple(values.get("grants", ("once",)))
        values["rules"] = tuple(values.get("rules", ()))
        return cls(**values)

    def shown_state(self, now: float | None = None) -> State:
        """The state a person is shown: a pending request whose deadline passed can no
        longer be approved, so it is `expired`, whether or not anything has recorded
        that in the store yet (`decide` and `expire` do, on first touch)."""
        now = time.time() if now is None else now
        if self.state == "pending" and now >= self.deadline:
            return "expired"
        return self.state

    def as_shown(self, now: float | None = None) -> ApprovalRequest:
        """This request as `shown_state` says (an expiry nobody recorded, recorded
        here, in the copy only)."""
        if self.shown_state(now) == self.state:
            return self
        return replace(self, state="expired", reason="no answer before the deadline")


@dataclass(frozen=True, slots=True)
class Grant:
    """Permission to run the same call again without asking.

    `session` grants hold for calls with the same digest in the same session;
    `window` grants for the same digest from the same requester until `expires`.
    A grant is its pack's and its approver group's: another pack's gates, or a gate of
    the same pack naming other approvers, never see it, though all may share one store
    (`group` is the group's approver globs, sorted, one per line; "" for anyone).
    """

    digest: str
    pack: str
    scope: GrantScope
    requester: str
    session: str
    approver: str
    request_id: str
    expires: float | None = None
    created: float = field(default_factory=time.time)
    group: str = ""

    def covers(
        self, pack: str, digest: str, session: str, requester: str, now: float, group: str = ""
    ) -> bool:
        if digest != self.digest or pack != self.pack or group != self.group:
            return False
        if self.scope == "session":
            return session == self.session and bool(session)
        if self.scope == "window":
            # An anonymous requester is nobody in particular: no window covers them.
            return (
                bool(requester)
                and requester == self.requester
                and (self.expires is None or now < self.expires)
            )
        return False


def is_twin(request: ApprovalRequest, other: ApprovalRequest, now: float) -> bool:
    """Whether `other` is a pending request asking what `request` asks (`file`)."""
    return (
        other.state == "pending"
        and now < other.deadline
        and other.pack == request.pack
        and other.digest == request.digest
        and other.session == request.session
        and other.agent_uid == request.agent_uid
        and approver_group(other.approvers) == approver_group(request.approvers)
    )


def listing(
    store: ApprovalStore, state: State | None, now: float | None = None
) -> builtins.list[ApprovalRequest]:
    """What `policy approvals list` shows for `state` (all when None), oldest first,
    each `as_shown`: a pending request past its deadline is listed as expired, under
    `expired` and never under `pending`."""
    now = time.time() if now is None else now
    if state == "pending":
        return [r for r in store.list("pending") if r.shown_state(now) == "pending"]
    if state == "expired":
        late = [r.as_shown(now) for r in store.list("pending") if r.shown_state(now) == "expired"]
        return sorted([*store.list("expired"), *late], key=lambda r: r.created)
    return [r.as_shown(now) for r in store.list(state)]


def approver_group(approvers: tuple[str, ...] | list[str]) -> str:
    """The key of an approver group: its globs, sorted, one per line ("" for anyone)."""
    return "\n".join(sorted(approvers))


def ended_before(request: ApprovalRequest, before: float) -> bool:
    """Whether `purge(before)` deletes `request` (sqlite.py says the same in SQL): it
    was decided before `before`, or, never decided (pending, or expired without a
    time), its deadline passed before then."""
    if request.state == "pending" or request.decided_at is None:
        return request.deadline < before
    return request.decided_at < before


def grant_ended_before(grant: Grant, before: float) -> bool:
    """Whether `purge(before)` deletes `grant`: it expired before `before`, or, with no
    expiry (a session grant), was made before then."""
    return (grant.expires if grant.expires is not None else grant.created) < before


class ApprovalStore(abc.ABC):
    """Where requests wait and decisions land."""

    uri: str

    #: Seconds after which what ended is purged (see `create`); None: never by itself.
    retention: float | None = None
    _purged_once: bool = False
    _listeners: tuple[Callable[[str, ApprovalRequest], object], ...] = ()

    def listen(self, listener: Callable[[str, ApprovalRequest], object]) -> None:
        """Tell `listener(event, request)` what happens to requests through this store
        object: `request` (filed), `decision` (a person answered), `expiry` (nobody
        did in time). It must return at once (`policy serve` queues the notifications
        it sends); what it raises is logged, never the store's caller's problem."""
        self._listeners = (*self._listeners, listener)

    def follow(self, listener: Callable[[str, ApprovalRequest], object]) -> None:  # noqa: B027
        """Also tell `listener` what happens to requests through *other* processes
        sharing this store (`policy serve` replicas on Redis: the inbox's live pages).
        Stores one process holds, or that announce nothing, tell nothing more."""

    def _tell(self, event: str, request: ApprovalRequest) -> None:
        self._announce(event, request)
        for listener in self._listeners:
            try:
                listener(event, request)
            except Exception:
                log.warning("approval listener failed on %s %s", event, request.id, exc_info=True)

    def create(self, request: ApprovalRequest) -> None:
        """Store a new pending request; an id already taken is a StoreError.

        With a `retention`, the first `create` of this store object first purges what
        ended more than `retention` ago: a one-event hook process files at most one
        request, and a long-lived engine purges when it first needs the store. A purge
        that fails is not this call's problem: the request is filed all the same.
        """
        self._purge_once()
        self._insert(request)
        self._tell("request", request)

    def file(self, request: ApprovalRequest) -> ApprovalRequest:
        """File `request`, unless a twin is pending: then that twin, which the caller
        waits on instead. A twin asks the same people about the same call — same pack,
        call digest, session, approver group and agent uid — and its deadline has not
        passed. Atomic in every store, so identical retries racing each other file one
        request between them, not one each (approvers see each call once)."""
        self._purge_once()
        filed = self._insert_or_join(request)
        if filed.id == request.id:  # (a twin already pending was told about before)
            self._tell("request", filed)
        return filed

    def _purge_once(self) -> None:
        if self.retention is not None and not self._purged_once:
            self._purged_once = True
            with contextlib.suppress(StoreError):
                self.purge(time.time() - self.retention)

    @abc.abstractmethod
    def _insert(self, request: ApprovalRequest) -> None:
        """Store a new request; StoreError if its id is taken."""

    @abc.abstractmethod
    def _insert_or_join(self, request: ApprovalRequest) -> ApprovalRequest:
        """`file`, atomically: the pending twin of `request` (`is_twin`), else `request`
        stored."""

    @abc.abstractmethod
    def get(self, request_id: str) -> ApprovalRequest:
        """The request; RequestNotFound if there is none with that id."""

    @abc.abstractmethod
    def list(self, state: State | None = "pending") -> list[ApprovalRequest]:
        """Requests in `state` (all when None), oldest first."""

    @abc.abstractmethod
    def find(self, pack: str, digest: str, session: str) -> builtins.list[ApprovalRequest]:
        """The requests for exactly this call (pack, digest, session), newest first,
        in any state."""

    @abc.abstractmethod
    def _claim(self, request_id: str, now: float) -> ApprovalRequest:
        """Compare-and-set: approved with `claimed_at` unset -> `claimed_at = now`;
        AlreadyClaimed (with the request as it is) otherwise."""

    @abc.abstractmethod
    def purge(self, before: float) -> int:
        """Delete what ended before `before` (epoch seconds); return how many rows went.

        Requests that left `pending` with `decided_at < before` (those without a
        `decided_at`: `deadline < before`), pending requests whose deadline passed
        before `before` (nobody can approve them; their caller is long gone), and
        grants whose `expires < before`, or without an expiry, `created < before`.
        """

    @abc.abstractmethod
    def _transition(
        self, request_id: str, state: State, by: str, reason: str, grant: str, now: float
    ) -> ApprovalRequest:
        """Compare-and-set pending -> `state`; AlreadyDecided when not pending."""

    @abc.abstractmethod
    def wait(self, request_id: str, until: float) -> ApprovalRequest:
        """Block until the request leaves pending or `until` passes; return it."""

    @abc.abstractmethod
    def add_grant(self, grant: Grant) -> None: ...

    @abc.abstractmethod
    def grants_for(self, digest: str) -> builtins.list[Grant]: ...

    def _announce(self, event: str, request: ApprovalRequest) -> None:  # noqa: B027
        """Tell other processes following this store (`follow`); most stores cannot."""

    def close(self) -> None:  # noqa: B027 - most stores hold nothing to release
        """Release connections."""

    # ------------------------------------------------------------ shared logic

    def decide(
        self,
        request_id: str,
        *,
        approved: bool,
        by: str,
        reason: str = "",
        grant: str = "once",
        now: float | None = None,
    ) -> ApprovalRequest:
        """Record a person's answer exactly once; a request past its deadline expires."""
        now = time.time() if now is None else now
        current = self.get(request_id)
        if current.state == "pending" and now >= current.deadline:
            expired = self._transition(
                request_id, "expired", "", "no answer before the deadline", "", now
            )
            self._tell("expiry", expired)
            raise AlreadyDecided(self.get(request_id))
        state: State = "approved" if approved else "denied"
        decided = self._transition(request_id, state, by, reason, grant if approved else "", now)
        self._tell("decision", decided)
        return decided

    def claim(self, request_id: str, now: float | None = None) -> ApprovalRequest:
        """Use an approval once: the approved request with `claimed_at` set to `now`.

        Atomic across processes (and machines, for Redis): of several calls claiming
        the same request, exactly one gets it; the others get AlreadyClaimed, as does
        a request that is pending, denied or expired. RequestNotFound if there is none.
        """
        return self._claim(request_id, time.time() if now is None else now)

    def expire(self, request_id: str, now: float | None = None) -> ApprovalRequest:
        """Close a request nobody answered; if somebody just did, their answer stands."""
        now = time.time() if now is None else now
        try:
            expired = self._transition(
                request_id, "expired", "", "no answer before the deadline", "", now
            )
        except AlreadyDecided as exc:
            return exc.current
        self._tell("expiry", expired)
        return expired

    def find_grant(
        self,
        pack: str,
        digest: str,
        session: str,
        requester: str,
        now: float | None = None,
        group: str = "",
    ) -> Grant | None:
        now = time.time() if now is None else now
        for grant in self.grants_for(digest):
            if grant.covers(pack, digest, session, requester, now, group):
                return grant
        return None

    def count_pending(self, principal: str, now: float | None = None) -> int:
        """How many requests `principal` filed are still pending and may be answered."""
        now = time.time() if now is None else now
        return sum(
            1
            for request in self.list("pending")
            if request.principal == principal and now < request.deadline
        )

    def denials(self, pack: str, digest: str, session: str) -> int:
        """How often a person denied this exact call in this session, under this pack."""
        return sum(1 for request in self.find(pack, digest, session) if request.state == "denied")


def open_store(uri: str, *, retention: float | None = None, create: bool = True) -> ApprovalStore:
    """The store named by `uri` (`memory://`, `sqlite:///PATH`, `redis://...`).

    `create=False` (the approvers' CLI): a SQLite file that does not exist yet is not
    made — it belongs to the agent that files requests, and one created by an
    approver's uid could not be written by the agent (StoreMissing instead).

    With `retention` (seconds, the `approvals_retention` setting), the store purges
    what ended more than that long ago on its first `create` (see `ApprovalStore.create`).
    """
    if retention is not None and not retention > 0:
        raise StoreError(f"approval store retention must be positive, not {retention!r}")
    store: ApprovalStore
    if uri.startswith("memory://"):
        from policy.approvals.memory import MemoryStore

        store = MemoryStore(uri)
    elif uri.startswith("sqlite://"):
        from policy.approvals.sqlite import SqliteStore

        store = SqliteStore(uri, create=create)
    elif uri.startswith(("redis://", "rediss://")):
        from policy.approvals.redis import RedisStore

        store = RedisStore(uri)
    else:
        raise StoreError(f"unknown approval store {uri!r} (memory://, sqlite:///PATH, redis://...)")
    store.retention = retention
    return store
