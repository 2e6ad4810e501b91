"""What callers hold at once, counted under keys, each key with its cap.

The service counts connections (policy.server.peer) and request bodies in flight
(policy.server.inflight) the same way: one taking is counted under several keys at
once (every caller's, a transport's, the caller's own) and is refused whole, counting
nothing, when it would take any key past its cap.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

__all__ = ["Holdings"]


class Holdings:
    """Amounts held under keys (thread-safe)."""

    def __init__(self) -> None:
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, caps: Sequence[tuple[str, int]], amount: int = 1) -> tuple[str, int] | None:
        """Count `amount` more under each key of `caps` (key, cap); the first (key, cap)
        it would take past its cap — then nothing is counted — or None."""
        with self._lock:
            for key, cap in caps:
                if self._held.get(key, 0) + amount > cap:
                    return key, cap
            for key, _ in caps:
                self._held[key] = self._held.get(key, 0) + amount
        return None

    def give_back(self, keys: Sequence[str], amount: int = 1) -> None:
        """`amount` let go under each of `keys` (what `take` counted there)."""
        with self._lock:
            for key in keys:
                left = self._held.get(key, 0) - amount
                if left > 0:
                    self._held[key] = left
                else:
                    self._held.pop(key, None)

    def held(self, key: str) -> int:
        with self._lock:
            return self._held.get(key, 0)
