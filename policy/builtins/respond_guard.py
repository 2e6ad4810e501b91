"""respond_guard (DESIGN §6.5): what happens to a `respond`, which skips approval by design.

A respond ends the chain, so no hook after the responding one can see it; the guard
is therefore not a hook in the chain but a step the engine applies to every
before_tool decision whose action is respond. It records each one (a
`respond_bypass` record in the decision log, and a count), and by its mode lets it
through (`flag`, the default), refuses it (`deny`) or holds it until a person
approves the call (`approve`). Hooks named in `trusted` are only flagged.

One pack configures it (a second is a settings error: two packs cannot both decide
what a respond means); with none, every respond is flagged.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from policy._logger import logger
from policy.errors import SettingsError
from policy.model import Action, ApprovalGate, Decision, ToolCall
from policy.telemetry import counted

if TYPE_CHECKING:
    from policy.builtins import BuiltinSpec

__all__ = ["RespondGuard"]

log = logger("policy.engine")

#: The gates the packs put on a call, or the Decision of a pack that refuses it.
GatesFor = Callable[[ToolCall], "tuple[ApprovalGate, ...] | Decision"]


class RespondGuard:
    """Judges every respond an engine's chain returns at before_tool.

    `write(kind, fields)` appends a record to the decision log (a failure to record
    refuses the respond: no unrecorded bypass); `gates_for(call)` asks the packs
    which gates cover the call; `covered(call)` says whether an approver in the
    chain covers it. Together they tell whether the respond skipped an approval.
    """

    __slots__ = ("_bypasses", "_covered", "_gates_for", "_write", "mode", "pack", "trusted")

    def __init__(
        self,
        write: Callable[[str, dict[str, Any]], object],
        gates_for: GatesFor,
        covered: Callable[[ToolCall], bool],
    ) -> None:
        self._write = write
        self._gates_for = gates_for
        self._covered = covered
        #: The pack that configured the guard; None: the default (flag every respond).
        self.pack: str | None = None
        self.mode = "flag"
        self.trusted: tuple[str, ...] = ()
        self._bypasses = itertools.count(1)  # next() is atomic under the GIL; += is not

    def configure(self, spec: BuiltinSpec) -> None:
        """Take a pack's `respond_guard:` section; SettingsError if a pack already did."""
        if self.pack is not None:
            raise SettingsError(
                f"respond_guard is configured by packs {self.pack!r} and {spec.pack!r}; "
                "configure it in one pack"
            )
        self.pack = spec.pack
        self.mode = spec.config.mode
        self.trusted = tuple(spec.config.trusted)

    def reconfigure(self, spec: BuiltinSpec | None) -> None:
        """Take the `respond_guard:` section of a new revision of the packs (None: none
        configures it, the default again); the count of bypasses carries on."""
        self.pack = None
        self.mode = "flag"
        self.trusted = ()
        if spec is not None:
            self.configure(spec)

    @property
    def bypasses(self) -> int:
        """Responds seen so far (the metric of `mode: flag`)."""
        return counted(self._bypasses) - 1  # (the count starts at 1)

    def judge(self, decision: Decision) -> Decision:
        """The respond `decision` as the guard lets it stand: recorded, and in `deny`
        or `approve` mode refused or held for a person."""
        from wcmatch import fnmatch as wfnmatch

        call = decision.call
        assert call is not None
        hook = decision.hook or ""
        trusted = bool(self.trusted) and wfnmatch.fnmatch(
            hook, list(self.trusted), flags=wfnmatch.BRACE
        )
        # Gated: an approver covers the call, or a gate would (whichever hook ran first).
        found = decision.gates or self._gates_for(call)
        gates = found if isinstance(found, tuple) else ()
        gated = decision.needs_approval or bool(found) or self._covered(call)
        next(self._bypasses)
        try:
            self._write(
                "respond_bypass",
                {
                    "decision_id": decision.decision_id,
                    "hook": hook,
                    "tool": call.tool,
                    "call_id": call.call_id,
                    "session": call.session,
                    "sender": call.sender,
                    "approval_gated": gated,
                    "trusted": trusted,
                    "mode": self.mode,
                },
            )
        except Exception as exc:  # noqa: BLE001 - an unrecorded bypass is refused
            log.error("respond_bypass not logged, failing closed: %s", exc)  # noqa: TRY400
            return decision.replace(
                action=Action.DENY_TOOL,
                reason=f"decision log unavailable: {exc}",
                failure="audit",
                result=None,
                needs_approval=False,
            )
        if trusted or self.mode == "flag":
            # Respond skips approval by design (PicoClaw); the record above says so. A
            # respond rule that names approvers holds its own answer for them.
            held = tuple(gate for gate in decision.gates if gate.holds_respond)
            if held:
                return decision.replace(needs_approval=True, gates=held)
            if decision.needs_approval or decision.gates:
                return decision.replace(needs_approval=False, gates=())
            return decision
        if self.mode == "deny":
            return decision.replace(
                action=Action.DENY_TOOL,
                reason=f"respond by hook {hook!r} on tool {call.tool!r} would skip approval; "
                "refused by respond_guard",
                result=None,
                needs_approval=False,
            )
        return decision.replace(
            needs_approval=True,
            gates=gates,
            reason=f"respond by hook {hook!r} on tool {call.tool!r} is held until approved "
            "(respond_guard)",
        )
