"""Contracts attached to sessions at run time, and each session's usage.

Its own module, free of pydantic at import: every engine owns one
(`engine.contracts`), and most engines never attach a contract.

Usage (calls admitted, the first call's time) lives where the state store says
(`state_uri`, the setting `limits_storage_uri`): in the SQLite state file under the
data dir by default, shared by every hook process of the machine, or in Redis — each
admission one atomic read-check-increment there (policy.state.contracts) — or in this
object's memory for `memory://` (one long-lived process). Contracts attached at run
time stay in this object's memory, except with Redis (`redis://`): there they are
kept in Redis too (policy.state.contracts.RedisAttachments), so replicas of `policy
serve` sharing it — behind one balancer, an operator's attach reaching any of them —
enforce the same contract, and a restart keeps it.

Usage is counted per session *within the principal that asked* (`policy.facts.scoped`:
in `policy serve`, the hook's uid or token), so one agent using another's session name
spends its own budget, never the other's. Attaching a contract starts its usage afresh
for every principal: the attached contract's usage is kept under its id and the moment
it was attached.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from policy.builtins.config import Contract
    from policy.state.contracts import Admission, RedisAttachments, UsageStore

__all__ = ["ContractRegistry"]


class _Usage:
    __slots__ = ("calls", "started")

    def __init__(self, started: float) -> None:
        self.calls = 0
        self.started = started


class ContractRegistry:
    """Contracts attached at run time, and each session's usage; shared by an engine.

    `attach(session, contract)` takes a `Contract` or a mapping with its fields
    (validated: a bad contract is refused here, not at the next call). `state_uri`
    names where usage is kept (None or `memory://`: here); `clock` is the time in
    seconds (default: monotonic in memory, epoch seconds in a shared store).
    """

    def __init__(
        self, clock: Callable[[], float] | None = None, state_uri: str | None = None
    ) -> None:
        self._lock = threading.Lock()
        self._attached: dict[str, Contract] = {}
        #: When each session's contract was attached: part of its usage key.
        self._stamps: dict[str, str] = {}
        self._usage: dict[tuple[str, str], _Usage] = {}
        self._clock = clock or time.monotonic
        self._shared_clock = clock
        self._state_uri = (
            None if state_uri is None or state_uri.startswith("memory:") else state_uri
        )
        self._store: UsageStore | None = None
        self._unsupported = False
        self._shared_attachments: RedisAttachments | None = None
        #: Contracts read back from Redis, by their record: the same object for the
        #: same record (the contract hook compiles each object once).
        self._read: dict[bytes, tuple[Contract, str]] = {}

    def _attachments(self) -> RedisAttachments | None:
        """Where attached contracts are shared (Redis); None: in this object only."""
        uri = self._state_uri
        if uri is None or uri.split("://", 1)[0] not in ("redis", "rediss", "redis+unix"):
            return None
        if self._shared_attachments is None:
            from policy.state.contracts import RedisAttachments

            self._shared_attachments = RedisAttachments(uri)
        return self._shared_attachments

    def _from_record(self, record: bytes) -> tuple[Contract, str]:
        found = self._read.get(record)
        if found is None:
            from policy._json_bytes import loads
            from policy.builtins.config import Contract

            data = loads(record)
            found = (Contract.model_validate(data["contract"]), str(data["stamp"]))
            if len(self._read) >= 256:
                self._read.clear()
            self._read[record] = found
        return found

    def _shared_attached(self, session: str) -> tuple[Contract, str] | None:
        shared = self._attachments()
        if shared is None:
            return None
        record = shared.get(session)
        return self._from_record(record) if record is not None else None

    def _shared(self) -> UsageStore | None:
        """The shared usage store, opened at first use; None: keep usage here."""
        if self._state_uri is None or self._unsupported:
            return None
        if self._store is None:
            from policy.state import contract_usage

            self._store = contract_usage(self._state_uri, self._shared_clock)
            self._unsupported = self._store is None
        return self._store

    def attach(self, session: str, contract: Contract | Mapping[str, Any]) -> Contract:
        if not isinstance(session, str) or not session:
            raise ValueError("a contract is attached to a session id (a non-empty string)")
        from policy.builtins.config import Contract

        model = contract if isinstance(contract, Contract) else Contract.model_validate(contract)
        stamp = f"{model.id}#{time.time_ns()}"
        with self._lock:
            attachments = self._attachments()
            if attachments is not None:
                from policy._json_bytes import dumps

                record = {"contract": model.model_dump(mode="json"), "stamp": stamp}
                attachments.put(session, dumps(record))
            else:
                self._attached[session] = model
                self._stamps[session] = stamp
            self._usage.pop((session, model.id), None)
            shared = self._shared()
            if shared is not None:
                shared.reset(session, model.id)
        return model

    def detach(self, session: str) -> Contract | None:
        with self._lock:
            attachments = self._attachments()
            if attachments is not None:
                record = attachments.pop(session)
                return self._from_record(record)[0] if record is not None else None
            self._stamps.pop(session, None)
            return self._attached.pop(session, None)

    @property
    def held_here(self) -> bool:
        """Whether contracts attached at run time live in this object's memory only
        (not Redis): then no other process deciding for this service knows them."""
        return bool(self._attached)

    def attached(self, session: str) -> Contract | None:
        if self._attachments() is not None:
            found = self._shared_attached(session)
            return found[0] if found is not None else None
        return self._attached.get(session)

    def usage(self, session: str, contract_id: str) -> tuple[int, float]:
        """(calls admitted so far, seconds since the first) for a session under a contract."""
        with self._lock:
            key, contract_id = self._keys(session, contract_id)
            shared = self._shared()
            if shared is not None:
                return shared.usage(key, contract_id)
            usage = self._usage.get((key, contract_id))
            if usage is None:
                return 0, 0.0
            return usage.calls, self._clock() - usage.started

    def _keys(self, session: str, contract_id: str) -> tuple[str, str]:
        """Where the usage of `contract_id` in `session` is counted: the session within
        the caller's principal, and the contract's id (with the moment it was attached,
        for a contract attached at run time)."""
        from policy.facts import scoped

        if self._attachments() is not None:
            found = self._shared_attached(session)
            if found is not None and found[0].id == contract_id:
                contract_id = found[1]
            return scoped(session), contract_id
        attached = self._attached.get(session)
        if attached is not None and attached.id == contract_id:
            contract_id = self._stamps.get(session, contract_id)
        return scoped(session), contract_id

    def _begin(self, session: str, contract_id: str) -> _Usage:
        key = (session, contract_id)
        usage = self._usage.get(key)
        if usage is None:
            usage = self._usage[key] = _Usage(self._clock())
        return usage

    def admit(self, session: str, contract: Contract) -> str | None:
        """Count one call against the contract's limits; the reason when it is over."""
        limit = contract.runtime_seconds
        with self._lock:
            key, contract_id = self._keys(session, contract.id)
            shared = self._shared()
            if shared is not None:
                refused, elapsed = shared.admit(key, contract_id, contract.max_tool_calls, limit)
            else:
                if self._unsupported and (limit is not None or contract.max_tool_calls is not None):
                    from policy.state import StateError, unsupported_usage

                    raise StateError(unsupported_usage(str(self._state_uri), contract.id))
                refused, elapsed = self._admit_here(key, contract_id, contract, limit)
        if refused == "max_runtime":
            return (
                f"contract {contract.id!r}: max_runtime {contract.max_runtime} "
                f"used up ({elapsed:.0f} s since the session's first call)"
            )
        if refused == "max_tool_calls":
            return f"contract {contract.id!r}: max_tool_calls {contract.max_tool_calls} reached"
        return None

    def _admit_here(
        self, key: str, contract_id: str, contract: Contract, limit: float | None
    ) -> Admission:
        usage = self._begin(key, contract_id)
        elapsed = self._clock() - usage.started
        if limit is not None and elapsed > limit:
            return "max_runtime", elapsed
        if contract.max_tool_calls is not None and usage.calls >= contract.max_tool_calls:
            return "max_tool_calls", elapsed
        usage.calls += 1
        return None, elapsed
