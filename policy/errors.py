"""Typed exceptions.

Every error a caller can act on has its own class, so hosts can tell a broken
configuration (fix the file) from an aborted turn (end the agent's turn) without
parsing messages.
"""

from __future__ import annotations

# Imported by the thin client of `policy serve`, which loads neither `enum` nor
# `typing` (policy.hosts.claude.thin): what they name here is for the type checker.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from enum import Enum
    from typing import Protocol

    class _Stopping(Protocol):
        """What an abort carries: a `policy.model.Decision`. Named by shape, not
        imported, because every module imports this one and it must import none of them."""

        @property
        def action(self) -> Enum: ...

        @property
        def reason(self) -> str: ...


class PolicyError(Exception):
    """Base class of every error hookpolicy raises on purpose."""


class SettingsError(PolicyError):
    """Settings are invalid; the message names the field and where it came from."""


class HookRegistrationError(PolicyError):
    """A hook cannot join the chain (no hook methods, duplicate name, bad option)."""


class ReloadError(PolicyError):
    """Packs compiled again cannot take the place of the set an engine enforces (they
    change the tool aliases, or a builtin of theirs cannot start); that set stays."""


class InputError(PolicyError):
    """A call, result or request given as JSON does not describe a valid value."""


class AnalysisIncomplete(PolicyError):
    """What a call does cannot be known: its analysis met a cap (`limit` names it,
    `... (cap: analysis.max_word_bytes)`) or failed. Raised where the call's facts are
    read (policy.facts); the chain turns it into a refusal whatever the hook's
    failure policy and the pack's `on_error` say — a give-up never allows."""

    def __init__(self, limit: str) -> None:
        super().__init__(limit)
        self.limit = limit


class AuditError(PolicyError):
    """The decision log cannot be written or read."""


class EngineClosedError(PolicyError):
    """The engine was closed; it decides nothing more."""


class ChainStopped(PolicyError):
    """Base of the two aborts `Engine.run_tool` raises; `decision` says who and why."""

    def __init__(self, decision: _Stopping) -> None:
        super().__init__(decision.reason or str(decision.action.value))
        self.decision = decision


class TurnAborted(ChainStopped):
    """A hook returned `abort_turn`: the host must end the current turn."""


class HardAborted(ChainStopped):
    """A hook returned `hard_abort`: the host must stop the agent loop."""
