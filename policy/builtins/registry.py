"""Contracts attached to sessions at run time, and each session's usage.

Its own module, free of pydantic at import: every engine owns one
(`engine.contracts`), and most engines never attach a contract.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from policy.builtins.config import Contract

__all__ = ["ContractRegistry"]


class _Usage:
    __slots__ = ("calls", "started")

    def __init__(self, started: float) -> None:
        self.calls = 0
        self.started = started


class ContractRegistry:
    """Contracts attached at run time, and each session's usage; shared by an engine.

    `attach(session, contract)` takes a `Contract` or a mapping with its fields
    (validated: a bad contract is refused here, not at the next call).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._lock = threading.Lock()
        self._attached: dict[str, Contract] = {}
        self._usage: dict[tuple[str, str], _Usage] = {}
        self._clock = clock

    def attach(self, session: str, contract: Contract | Mapping[str, Any]) -> Contract:
        if not isinstance(session, str) or not session:
            raise ValueError("a contract is attached to a session id (a non-empty string)")
        from policy.builtins.config import Contract

        model = contract if isinstance(contract, Contract) else Contract.model_validate(contract)
        with self._lock:
            self._attached[session] = model
            self._usage.pop((session, model.id), None)
        return model

    def detach(self, session: str) -> Contract | None:
        with self._lock:
            return self._attached.pop(session, None)

    def attached(self, session: str) -> Contract | None:
        return self._attached.get(session)

    def usage(self, session: str, contract_id: str) -> tuple[int, float]:
        """(calls admitted so far, seconds since the first) for a session under a contract."""
        with self._lock:
            usage = self._usage.get((session, contract_id))
            if usage is None:
                return 0, 0.0
            return usage.calls, self._clock() - usage.started

    def _begin(self, session: str, contract_id: str) -> _Usage:
        key = (session, contract_id)
        usage = self._usage.get(key)
        if usage is None:
            usage = self._usage[key] = _Usage(self._clock())
        return usage

    def admit(self, session: str, contract: Contract) -> str | None:
        """Count one call against the contract's limits; the reason when it is over."""
        with self._lock:
            usage = self._begin(session, contract.id)
            limit = contract.runtime_seconds
            if limit is not None:
                elapsed = self._clock() - usage.started
                if elapsed > limit:
                    return (
                        f"contract {contract.id!r}: max_runtime {contract.max_runtime} "
                        f"used up ({elapsed:.0f} s since the session's first call)"
                    )
            if contract.max_tool_calls is not None and usage.calls >= contract.max_tool_calls:
                return f"contract {contract.id!r}: max_tool_calls {contract.max_tool_calls} reached"
            usage.calls += 1
            return None
