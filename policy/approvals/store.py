"""Approval requests and grants, and the interface every store implements.

A request is created by the call that waits for it and decided by a person, often in
another process (`policy approvals approve ID`) or on another machine, so the store
is where the two meet. What every store guarantees:

* a request is decided exactly once: `decide` and `expire` are compare-and-set on
  the `pending` state, so two approvers answering at once give one decision and the
  loser gets `AlreadyDecided` with the winner's answer;
* a request past its deadline can no longer be approved: every store judges the
  deadline inside its atomic step, so an answer committed late expires the request;
* `wait` returns as soon as the request leaves `pending` (or at the deadline).

Stores: `memory://` (one process, tests), `sqlite:///PATH` (the embedded default,
safe across processes on one machine), `redis://` (across machines).
"""

from __future__ import annotations

import abc
import builtins
import dataclasses
import hashlib
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from policy.digest import canonical_json
from policy.errors import PolicyError

__all__ = [
    "AlreadyDecided",
    "ApprovalRequest",
    "ApprovalStore",
    "Grant",
    "GrantScope",
    "RequestNotFound",
    "State",
    "StoreError",
    "call_digest",
    "open_store",
]

State = Literal["pending", "approved", "denied", "expired"]
GrantScope = Literal["once", "session", "window"]


class StoreError(PolicyError):
    """The store cannot be reached or read; callers deny."""


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


def call_digest(tool: str, args: Mapping[str, Any], cwd: str = "") -> str:
    """SHA-256 of the canonical JSON of tool, arguments and (when given) the working
    directory: what an approval is bound to. `make deploy` in another directory runs
    another Makefile, so it is another call."""
    payload: dict[str, Any] = {"tool": tool, "args": dict(args)}
    if cwd:
        payload["cwd"] = cwd
    return hashlib.sha256(canonical_json(payload)).hexdigest()


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

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["args"] = dict(self.args)
        data["approvers"] = list(self.approvers)
        data["grants"] = list(self.grants)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ApprovalRequest:
        values = dict(data)
        values["approvers"] = tuple(values.get("approvers", ()))
        values["grants"] = tuple(values.get("grants", ("once",)))
        return cls(**values)


@dataclass(frozen=True, slots=True)
class Grant:
    """Permission to run the same call again without asking.

    `session` grants hold for calls with the same digest in the same session;
    `window` grants for the same digest from the same requester until `expires`.
    A grant is the pack's: another pack's approval builtin (other approvers, other
    grant rules) never sees it, though both may share one store.
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

    def covers(self, pack: str, digest: str, session: str, requester: str, now: float) -> bool:
        if digest != self.digest or pack != self.pack:
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


class ApprovalStore(abc.ABC):
    """Where requests wait and decisions land."""

    uri: str

    @abc.abstractmethod
    def create(self, request: ApprovalRequest) -> None: ...

    @abc.abstractmethod
    def get(self, request_id: str) -> ApprovalRequest:
        """The request; RequestNotFound if there is none with that id."""

    @abc.abstractmethod
    def list(self, state: State | None = "pending") -> list[ApprovalRequest]:
        """Requests in `state` (all when None), oldest first."""

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
            self._transition(request_id, "expired", "", "no answer before the deadline", "", now)
            raise AlreadyDecided(self.get(request_id))
        state: State = "approved" if approved else "denied"
        return self._transition(request_id, state, by, reason, grant if approved else "", now)

    def expire(self, request_id: str, now: float | None = None) -> ApprovalRequest:
        """Close a request nobody answered; if somebody just did, their answer stands."""
        now = time.time() if now is None else now
        try:
            return self._transition(
                request_id, "expired", "", "no answer before the deadline", "", now
            )
        except AlreadyDecided as exc:
            return exc.current

    def find_grant(
        self, pack: str, digest: str, session: str, requester: str, now: float | None = None
    ) -> Grant | None:
        now = time.time() if now is None else now
        for grant in self.grants_for(digest):
            if grant.covers(pack, digest, session, requester, now):
                return grant
        return None

    def denials(self, pack: str, digest: str, session: str) -> int:
        """How often a person denied this exact call in this session, under this pack."""
        return sum(
            1
            for request in self.list("denied")
            if request.digest == digest and request.session == session and request.pack == pack
        )


def open_store(uri: str) -> ApprovalStore:
    """The store named by `uri` (`memory://`, `sqlite:///PATH`, `redis://...`)."""
    if uri.startswith("memory://"):
        from policy.approvals.memory import MemoryStore

        return MemoryStore(uri)
    if uri.startswith("sqlite://"):
        from policy.approvals.sqlite import SqliteStore

        return SqliteStore(uri)
    if uri.startswith(("redis://", "rediss://")):
        from policy.approvals.redis import RedisStore

        return RedisStore(uri)
    raise StoreError(f"unknown approval store {uri!r} (memory://, sqlite:///PATH, redis://...)")
