"""Contract usage — calls admitted and the first call's time, per session and contract —
kept where every hook process (or every replica) sees it.

`admit` is one atomic read-check-increment: in SQLite one `BEGIN IMMEDIATE`
transaction on the `contract_usage` table of the state file; in Redis one Lua script
(Redis runs a script alone). `started` is wall-clock epoch seconds, so processes
started at different times agree on how long a session has run. Only admitted calls
are counted; the first call (admitted or not) starts the runtime, as in memory.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal, Protocol

from policy.state.db import SQLiteState

__all__ = ["Admission", "RedisUsage", "SQLiteUsage", "UsageStore"]

#: (what refused the call, if anything; seconds since the session's first call).
Admission = tuple[Literal["max_runtime", "max_tool_calls"] | None, float]


class UsageStore(Protocol):
    def admit(
        self, session: str, contract: str, max_calls: int | None, runtime: float | None
    ) -> Admission: ...

    def usage(self, session: str, contract: str) -> tuple[int, float]: ...

    def reset(self, session: str, contract: str) -> None: ...


class SQLiteUsage:
    """Contract usage in the state file."""

    def __init__(self, state: SQLiteState, clock: Callable[[], float] | None = None) -> None:
        self.state = state
        self._clock = clock

    def _now(self) -> float:
        return self._clock() if self._clock is not None else time.time()

    def admit(
        self, session: str, contract: str, max_calls: int | None, runtime: float | None
    ) -> Admission:
        now = self._now()
        with self.state.write(now) as db:
            row = db.execute(
                "SELECT calls, started FROM contract_usage WHERE session = ? AND contract = ?",
                (session, contract),
            ).fetchone()
            if row is None:
                calls, started = 0, now
                db.execute(
                    "INSERT INTO contract_usage (session, contract, calls, started)"
                    " VALUES (?, ?, 0, ?)",
                    (session, contract, now),
                )
            else:
                calls, started = int(row[0]), float(row[1])
            elapsed = now - started
            if runtime is not None and elapsed > runtime:
                return "max_runtime", elapsed
            if max_calls is not None and calls >= max_calls:
                return "max_tool_calls", elapsed
            db.execute(
                "UPDATE contract_usage SET calls = calls + 1 WHERE session = ? AND contract = ?",
                (session, contract),
            )
            return None, elapsed

    def usage(self, session: str, contract: str) -> tuple[int, float]:
        now = self._now()
        with self.state.read() as db:
            row = db.execute(
                "SELECT calls, started FROM contract_usage WHERE session = ? AND contract = ?",
                (session, contract),
            ).fetchone()
        return (0, 0.0) if row is None else (int(row[0]), now - float(row[1]))

    def reset(self, session: str, contract: str) -> None:
        with self.state.write(self._now()) as db:
            db.execute(
                "DELETE FROM contract_usage WHERE session = ? AND contract = ?",
                (session, contract),
            )


# KEYS[1]: the usage hash. ARGV: now, max_calls (-1: none), runtime (-1: none).
# Returns {verdict (0 admitted, 1 max_runtime, 2 max_tool_calls), started as a string}.
_ADMIT = """
local started = redis.call('HGET', KEYS[1], 'started')
if not started then
  started = ARGV[1]
  redis.call('HSET', KEYS[1], 'started', started, 'calls', 0)
end
local calls = tonumber(redis.call('HGET', KEYS[1], 'calls'))
local runtime = tonumber(ARGV[3])
if runtime >= 0 and tonumber(ARGV[1]) - tonumber(started) > runtime then
  return {1, started}
end
local max_calls = tonumber(ARGV[2])
if max_calls >= 0 and calls >= max_calls then return {2, started} end
redis.call('HINCRBY', KEYS[1], 'calls', 1)
return {0, started}
"""
_VERDICTS: tuple[Literal["max_runtime", "max_tool_calls"] | None, ...] = (
    None,
    "max_runtime",
    "max_tool_calls",
)


class RedisUsage:
    """Contract usage in Redis (one hash per session and contract), through the client
    `limits` builds for the same URI."""

    def __init__(self, uri: str, clock: Callable[[], float] | None = None) -> None:
        from limits.storage import storage_from_string

        storage: Any = storage_from_string(uri)  # RedisStorage, whose client is `.storage`
        self._client: Any = storage.storage
        self._script: Any = None
        self._clock = clock

    def _now(self) -> float:
        return self._clock() if self._clock is not None else time.time()

    @staticmethod
    def _key(session: str, contract: str) -> str:
        return f"hookpolicy/contract_usage/{len(session)}:{session}/{contract}"

    def admit(
        self, session: str, contract: str, max_calls: int | None, runtime: float | None
    ) -> Admission:
        now = self._now()
        if self._script is None:
            self._script = self._client.register_script(_ADMIT)
        verdict, started = self._script(
            keys=[self._key(session, contract)],
            args=[
                repr(now),
                -1 if max_calls is None else max_calls,
                -1 if runtime is None else runtime,
            ],
        )
        return _VERDICTS[int(verdict)], now - float(started)

    def usage(self, session: str, contract: str) -> tuple[int, float]:
        calls, started = self._client.hmget(self._key(session, contract), "calls", "started")
        if started is None:
            return 0, 0.0
        return int(calls or 0), self._now() - float(started)

    def reset(self, session: str, contract: str) -> None:
        self._client.delete(self._key(session, contract))


class RedisAttachments:
    """Contracts attached to sessions at run time, in Redis (one string per session):
    what replicas of `policy serve` share, so a contract an operator attaches through
    one holds on every other, and outlives a restart of the one it went through."""

    def __init__(self, uri: str) -> None:
        from limits.storage import storage_from_string

        storage: Any = storage_from_string(uri)
        self._client: Any = storage.storage

    @staticmethod
    def _key(session: str) -> str:
        return f"hookpolicy/contract_attached/{len(session)}:{session}"

    def put(self, session: str, record: bytes) -> None:
        self._client.set(self._key(session), record)

    def get(self, session: str) -> bytes | None:
        found: bytes | None = self._client.get(self._key(session))
        return found

    def pop(self, session: str) -> bytes | None:
        key = self._key(session)
        pipe = self._client.pipeline(transaction=True)
        pipe.get(key)
        pipe.delete(key)
        found, _ = pipe.execute()
        return found if isinstance(found, bytes) else None
