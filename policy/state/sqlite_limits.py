"""`sqlite:///PATH` as a storage backend of the `limits` library.

Defining `SQLiteStorage` registers the scheme `sqlite` with limits (its
`StorageRegistry` metaclass reads `STORAGE_SCHEME`), so
`limits.storage.storage_from_string("sqlite:////var/lib/x/state.db")` finds it, and
the three strategies (`fixed-window`, `moving-window`, `sliding-window-counter`) run
on it unchanged. The semantics are limits' `MemoryStorage`'s, operation for
operation, with each hit one `BEGIN IMMEDIATE` transaction in a file every process
of the machine shares (`policy.state.db`):

* fixed window: a counter per key that starts at the first hit and expires `expiry`
  seconds later (`incr`, `get`, `get_expiry`);
* moving window: one row per admitted hit; a hit is admitted when fewer than
  `limit` rows are younger than `expiry` (`acquire_entry`, `get_moving_window`);
* sliding-window counter: the current and previous fixed windows' counters, the
  previous weighted by how much of it still overlaps (`acquire_sliding_window_entry`).
  MemoryStorage increments first and takes the hit back if another thread won;
  here the check and the increment are one transaction, so nothing is taken back.

The clock is `time.time()` looked up at each call (tests patch it), or `clock`.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from math import floor

from limits.storage.base import (
    MovingWindowSupport,
    SlidingWindowCounterSupport,
    Storage,
    TimestampedSlidingWindow,
)

from policy.state import StateError, path_from_uri
from policy.state.db import SQLiteState, shared_state

__all__ = ["SQLiteStorage"]


def _incr(db: sqlite3.Connection, key: str, expiry: float, amount: int, now: float) -> int:
    row = db.execute("SELECT value, expires FROM counters WHERE key = ?", (key,)).fetchone()
    if row is None or row[1] <= now:
        db.execute(
            "INSERT OR REPLACE INTO counters (key, value, expires) VALUES (?, ?, ?)",
            (key, amount, now + expiry),
        )
        return amount
    value = int(row[0]) + amount
    db.execute("UPDATE counters SET value = ? WHERE key = ?", (value, key))
    return value


class SQLiteStorage(
    Storage, MovingWindowSupport, SlidingWindowCounterSupport, TimestampedSlidingWindow
):
    """Rate-limit counters in a SQLite file shared by the processes of one machine."""

    STORAGE_SCHEME = ["sqlite"]

    def __init__(
        self,
        uri: str | None = None,
        wrap_exceptions: bool = False,
        *,
        state: SQLiteState | None = None,
        clock: Callable[[], float] | None = None,
        **options: float | str | bool,
    ) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        if state is None:
            if uri is None:
                raise StateError("SQLiteStorage needs a sqlite:///PATH uri or a state")
            state = shared_state(path_from_uri(uri))
        self.state = state
        self._clock = clock

    def _now(self) -> float:
        return self._clock() if self._clock is not None else time.time()

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        return (StateError, sqlite3.Error)

    # ------------------------------------------------------------ counters

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        now = self._now()
        with self.state.write(now) as db:
            return _incr(db, key, expiry, amount, now)

    def get(self, key: str) -> int:
        now = self._now()
        with self.state.read() as db:
            row = db.execute(
                "SELECT value FROM counters WHERE key = ? AND expires > ?", (key, now)
            ).fetchone()
        return int(row[0]) if row else 0

    def get_expiry(self, key: str) -> float:
        now = self._now()
        with self.state.read() as db:
            row = db.execute(
                "SELECT expires FROM counters WHERE key = ? AND expires > ?", (key, now)
            ).fetchone()
        return float(row[0]) if row else now

    def check(self) -> bool:
        try:
            with self.state.read() as db:
                db.execute("SELECT 1").fetchone()
        except StateError:
            return False
        return True

    def reset(self) -> int | None:
        with self.state.write(self._now()) as db:
            counters = db.execute("DELETE FROM counters").rowcount
            entries = db.execute("SELECT COUNT(DISTINCT key) FROM entries").fetchone()[0]
            db.execute("DELETE FROM entries")
        return max(int(counters), int(entries))

    def clear(self, key: str) -> None:
        with self.state.write(self._now()) as db:
            db.execute("DELETE FROM counters WHERE key = ?", (key,))
            db.execute("DELETE FROM entries WHERE key = ?", (key,))

    # ------------------------------------------------------------ moving window

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        if amount > limit:
            return False
        now = self._now()
        with self.state.write(now) as db:
            # MemoryStorage refuses when its (limit - amount + 1)-th youngest entry is
            # still in the window: when that many are. Counted up to that many only.
            (count,) = db.execute(
                "SELECT COUNT(*) FROM (SELECT 1 FROM entries WHERE key = ? AND at >= ? LIMIT ?)",
                (key, now - expiry, limit - amount + 1),
            ).fetchone()
            if count > limit - amount:
                return False
            db.executemany(
                "INSERT INTO entries (key, at, expires) VALUES (?, ?, ?)",
                [(key, now, now + expiry)] * amount,
            )
            return True

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        now = self._now()
        with self.state.read() as db:
            oldest, count = db.execute(
                "SELECT MIN(at), COUNT(*) FROM entries WHERE key = ? AND at > ?",
                (key, now - expiry),
            ).fetchone()
        if not count:
            return now, 0
        return float(oldest), int(count)

    # ------------------------------------------------------------ sliding window

    def acquire_sliding_window_entry(
        self, key: str, limit: int, expiry: int, amount: int = 1
    ) -> bool:
        if amount > limit:
            return False
        now = self._now()
        previous_key, current_key = self.sliding_window_keys(key, expiry, now)
        with self.state.write(now) as db:
            previous, previous_ttl, current, _ = self._window(
                db, previous_key, current_key, expiry, now
            )
            if floor(previous * previous_ttl / expiry + current) + amount > limit:
                return False
            # A new counter lives two windows: it is the previous one in the next.
            _incr(db, current_key, 2 * expiry, amount, now)
            return True

    def get_sliding_window(self, key: str, expiry: int) -> tuple[int, float, int, float]:
        now = self._now()
        previous_key, current_key = self.sliding_window_keys(key, expiry, now)
        with self.state.read() as db:
            return self._window(db, previous_key, current_key, expiry, now)

    def clear_sliding_window(self, key: str, expiry: int) -> None:
        previous_key, current_key = self.sliding_window_keys(key, expiry, self._now())
        with self.state.write(self._now()) as db:
            db.execute("DELETE FROM counters WHERE key IN (?, ?)", (previous_key, current_key))

    @staticmethod
    def _window(
        db: sqlite3.Connection, previous_key: str, current_key: str, expiry: int, now: float
    ) -> tuple[int, float, int, float]:
        """MemoryStorage's `_get_sliding_window_info`, from one read."""
        counts = dict(
            db.execute(
                "SELECT key, value FROM counters WHERE key IN (?, ?) AND expires > ?",
                (previous_key, current_key, now),
            ).fetchall()
        )
        previous = int(counts.get(previous_key, 0))
        current = int(counts.get(current_key, 0))
        previous_ttl = 0.0 if previous == 0 else (1 - (((now - expiry) / expiry) % 1)) * expiry
        current_ttl = (1 - ((now / expiry) % 1)) * expiry + expiry
        return previous, previous_ttl, current, current_ttl
