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

from policy.server.holdings import Holdings

__all__ = ["BodyBytes"]

#: Bodies of the largest size all callers together may have in flight, and the most
#: bytes that is (a larger `max_body_bytes` still gets one body in flight at a time).
_BODIES_IN_ALL = 16
_MOST_IN_ALL = 256 << 20


class BodyBytes:
    """Bytes of request bodies in flight: `total` in all, `per_caller` each (a caller
    is counted as its connections are: `peer.caller_key`)."""

    def __init__(self, total: int, per_caller: int) -> None:
        self.total = total
        self.per_caller = per_caller
        self._holdings = Holdings()

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
        over = self._holdings.take([(_ALL, self.total), (caller, self.per_caller)], size)
        if over is None:
            return None
        whose = "all callers together" if over[0] == _ALL else over[0]
        return f"request bodies of {whose} hold {over[1]} bytes"

    def release(self, caller: str, size: int) -> None:
        """`size` bytes of `caller`'s bodies let go (what `charge` counted for them)."""
        if size > 0:
            self._holdings.give_back((_ALL, caller), size)

    def held(self, caller: str = "") -> int:
        """Bytes in flight: `caller`'s, or all callers' ("")."""
        return self._holdings.held(caller or _ALL)


#: The key every caller's bodies are counted under too.
_ALL = ""
