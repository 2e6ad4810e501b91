"""Request bodies held at once, in all and per caller.

A body is read whole before its call is decided (the rules read all of it; a tool's
output is redacted whole) and held until the answer is sent. Connections are capped
per caller (policy.server.peer), but each may carry `service.max_body_bytes`: 256 of
one uid's connections at 64 MiB each is 16 GiB, and a decision holds a few copies of
what it reads. `BodyBytes` counts the bytes of the bodies being received or decided;
a chunk that would pass the total, or its caller's share of it, is answered at once
with a 503 naming the cap — as a connection past its cap is — which every thin client
turns into a refusal of that call.
"""

from __future__ import annotations

import threading

__all__ = ["BodyBytes"]

#: Bodies of the largest size all callers together may have in flight, and the most
#: bytes that is (a larger `max_body_bytes` still gets one body in flight at a time).
_BODIES_IN_ALL = 16
_MOST_IN_ALL = 256 << 20


class BodyBytes:
    """Bytes of request bodies in flight: `total` in all, `per_caller` each."""

    def __init__(self, total: int, per_caller: int) -> None:
        self.total = total
        self.per_caller = per_caller
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    @classmethod
    def for_bodies_of(cls, max_body: int) -> BodyBytes:
        """The caps for a service taking bodies of up to `max_body` bytes: sixteen such
        bodies in all (at most 256 MiB, at least one), a quarter of that a caller (at
        least one body)."""
        total = max(max_body, min(_BODIES_IN_ALL * max_body, _MOST_IN_ALL))
        return cls(total, max(max_body, total // 4))

    def charge(self, caller: str, size: int) -> str | None:
        """Count `size` more bytes of `caller`'s bodies; the cap it would pass, named,
        or None when it fits (then it is counted)."""
        with self._lock:
            everyone = self._held.get("", 0) + size
            own = self._held.get(caller, 0) + size
            if everyone > self.total:
                return f"request bodies of all callers together hold {self.total} bytes"
            if own > self.per_caller:
                return f"request bodies of {caller} hold {self.per_caller} bytes"
            self._held[""] = everyone
            self._held[caller] = own
        return None

    def release(self, caller: str, size: int) -> None:
        """`size` bytes of `caller`'s bodies let go (what `charge` counted for them)."""
        if size <= 0:
            return
        with self._lock:
            for key in ("", caller):
                left = self._held.get(key, 0) - size
                if left > 0:
                    self._held[key] = left
                else:
                    self._held.pop(key, None)

    def held(self, caller: str = "") -> int:
        """Bytes in flight: `caller`'s, or all callers' ("")."""
        with self._lock:
            return self._held.get(caller, 0)
