"""`memory://`: requests in this process only (tests, single-process embedding)."""

from __future__ import annotations

import builtins
import dataclasses
import threading
import time

from policy.approvals.store import (
    AlreadyDecided,
    ApprovalRequest,
    ApprovalStore,
    Grant,
    RequestNotFound,
    State,
    StoreError,
)

__all__ = ["MemoryStore"]


class MemoryStore(ApprovalStore):
    def __init__(self, uri: str = "memory://") -> None:
        self.uri = uri
        self._changed = threading.Condition()
        self._requests: dict[str, ApprovalRequest] = {}
        self._grants: list[Grant] = []

    def create(self, request: ApprovalRequest) -> None:
        with self._changed:
            if request.id in self._requests:
                # As the other stores: a decided request never goes back to pending.
                raise StoreError(f"approval request {request.id!r} already exists")
            self._requests[request.id] = request

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
                expired = dataclasses.replace(
                    current,
                    state="expired",
                    decided_at=now,
                    reason="no answer before the deadline",
                    grant="",
                )
                self._requests[request_id] = expired
                self._changed.notify_all()
                raise AlreadyDecided(expired)
            decided = dataclasses.replace(
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
