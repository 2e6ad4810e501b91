"""`memory://`: requests in this process only (tests, single-process embedding)."""

from __future__ import annotations

import builtins
import threading
import time

from policy import _lazy_dataclass
from policy.approvals.store import (
    AlreadyClaimed,
    AlreadyDecided,
    ApprovalRequest,
    ApprovalStore,
    Grant,
    RequestNotFound,
    State,
    StoreError,
    ended_before,
    grant_ended_before,
    is_twin,
)

__all__ = ["MemoryStore"]


class MemoryStore(ApprovalStore):
    def __init__(self, uri: str = "memory://") -> None:
        self.uri = uri
        self._changed = threading.Condition()
        self._requests: dict[str, ApprovalRequest] = {}
        self._grants: list[Grant] = []

    def _insert(self, request: ApprovalRequest) -> None:
        with self._changed:
            if request.id in self._requests:
                # As the other stores: a decided request never goes back to pending.
                raise StoreError(f"approval request {request.id!r} already exists")
            self._requests[request.id] = request

    def _insert_or_join(self, request: ApprovalRequest) -> ApprovalRequest:
        with self._changed:
            now = time.time()
            for other in self._requests.values():
                if is_twin(request, other, now):
                    return other
            if request.id in self._requests:
                raise StoreError(f"approval request {request.id!r} already exists")
            self._requests[request.id] = request
            return request

    def get(self, request_id: str) -> ApprovalRequest:
        with self._changed:
            found = self._requests.get(request_id)
        if found is None:
            raise RequestNotFound(f"no approval request {request_id!r}")
        return found

    def list(self, state: State | None = "pending") -> list[ApprovalRequest]:
        with self._changed:
            requests = list(self._requests.values())
        return sorted(
            (r for r in requests if state is None or r.state == state), key=lambda r: r.created
        )

    def find(self, pack: str, digest: str, session: str) -> builtins.list[ApprovalRequest]:
        with self._changed:
            requests = list(self._requests.values())
        # Insertion order breaks ties in `created`, as rowid does for SQLite.
        found = [
            r for r in requests if r.pack == pack and r.digest == digest and r.session == session
        ]
        found.reverse()
        return sorted(found, key=lambda r: r.created, reverse=True)

    def _claim(self, request_id: str, now: float) -> ApprovalRequest:
        with self._changed:
            current = self._requests.get(request_id)
            if current is None:
                raise RequestNotFound(f"no approval request {request_id!r}")
            if current.state != "approved" or current.claimed_at is not None:
                raise AlreadyClaimed(current)
            claimed = _lazy_dataclass.replace(current, claimed_at=now)
            self._requests[request_id] = claimed
            return claimed

    def purge(self, before: float) -> int:
        with self._changed:
            gone = [i for i, r in self._requests.items() if ended_before(r, before)]
            for request_id in gone:
                del self._requests[request_id]
            kept = [g for g in self._grants if not grant_ended_before(g, before)]
            gone_grants = len(self._grants) - len(kept)
            self._grants = kept
        return len(gone) + gone_grants

    def _transition(
        self, request_id: str, state: State, by: str, reason: str, grant: str, now: float
    ) -> ApprovalRequest:
        with self._changed:
            current = self._requests.get(request_id)
            if current is None:
                raise RequestNotFound(f"no approval request {request_id!r}")
            if current.state != "pending":
                raise AlreadyDecided(current)
            if state != "expired" and time.time() >= current.deadline:
                # Judged under the lock: no answer lands after the deadline.
                expired = _lazy_dataclass.replace(
                    current,
                    state="expired",
                    decided_at=now,
                    reason="no answer before the deadline",
                    grant="",
                )
                self._requests[request_id] = expired
                self._changed.notify_all()
                raise AlreadyDecided(expired)
            decided = _lazy_dataclass.replace(
                current, state=state, decided_by=by, decided_at=now, reason=reason, grant=grant
            )
            self._requests[request_id] = decided
            self._changed.notify_all()
            return decided

    def wait(self, request_id: str, until: float) -> ApprovalRequest:
        with self._changed:
            while True:
                current = self._requests.get(request_id)
                if current is None:
                    raise RequestNotFound(f"no approval request {request_id!r}")
                left = until - time.time()
                if current.state != "pending" or left <= 0:
                    return current
                self._changed.wait(left)

    def add_grant(self, grant: Grant) -> None:
        with self._changed:
            self._grants.append(grant)

    def grants_for(self, digest: str) -> builtins.list[Grant]:
        with self._changed:
            return [g for g in self._grants if g.digest == digest]
