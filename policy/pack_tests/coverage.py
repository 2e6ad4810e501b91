"""Which rules and builtin gates of the packs under test no test exercised.

The units: every rule of a pack (`pack/rule-id`); the `autonomy` and `approval`
builtins; `tool_policy`'s allow/deny lists (`pack/tool_policy`) and each of its rate
limits (`pack/tool_policy limit 30/minute`); each contract of `contract_scope`
(`pack/contract_scope/ID`). `audit_hook` and `respond_guard` decide nothing and are
no units. A unit is covered when a decision of some test names it in `rule_ids` (or,
for `approval`, among the gates it put on the call) — a rate limit when its own
refusal decided.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from policy._lazy_dataclass import dataclass

if TYPE_CHECKING:
    from policy.model import Decision
    from policy.pack_tests.run import TestOutcome
    from policy.packs.load import LoadedPack

__all__ = ["Coverage", "Unit", "coverage", "units_of"]


@dataclass(frozen=True, slots=True)
class Unit:
    """Something a test can exercise, and where it is written."""

    name: str
    kind: str  # rule | autonomy | tool_policy | rate_limit | approval | contract
    path: str
    line: int
    #: The rule id a decision names when this unit decides.
    rule_id: str
    #: For a rate limit: the text its refusal's reason carries.
    reason: str = ""

    def hit_by(self, decision: Decision) -> bool:
        named = self.rule_id in decision.rule_ids or any(
            gate.source == self.rule_id for gate in decision.gates
        )
        return named and (not self.reason or self.reason in decision.reason)


def units_of(pack: LoadedPack) -> list[Unit]:
    """Every unit of `pack`, in the order the file writes them."""
    path, name = str(pack.path), pack.name
    units = [
        Unit(f"{name}/{rule.id}", "rule", path, rule.mark("id").line, f"{name}/{rule.id}")
        for rule in pack.model.rules
    ]
    builtins = pack.model.builtins
    if builtins.autonomy is not None:
        at = builtins.key_mark("autonomy").line
        units.append(Unit(f"{name}/autonomy", "autonomy", path, at, f"{name}/autonomy"))
    policy = builtins.tool_policy
    if policy is not None:
        rule_id = f"{name}/tool_policy"
        if policy.allow is not None or policy.deny:
            at = builtins.key_mark("tool_policy").line
            units.append(Unit(rule_id, "tool_policy", path, at, rule_id))
        for index, limit in enumerate(policy.rate_limits):
            units.append(
                Unit(
                    f"{rule_id} limit {limit.limit}",
                    "rate_limit",
                    path,
                    policy.mark("rate_limits", index).line,
                    rule_id,
                    f"rate limit {limit.limit} ",
                )
            )
    if builtins.approval is not None:
        at = builtins.key_mark("approval").line
        units.append(Unit(f"{name}/approval", "approval", path, at, f"{name}/approval"))
    if builtins.contract_scope is not None:
        for contract in builtins.contract_scope.contracts:
            rule_id = f"{name}/contract_scope/{contract.id}"
            units.append(Unit(rule_id, "contract", path, contract.mark("id").line, rule_id))
    return units


@dataclass(frozen=True, slots=True)
class Coverage:
    units: tuple[Unit, ...]
    covered: frozenset[str]

    @property
    def uncovered(self) -> list[Unit]:
        return [u for u in self.units if u.name not in self.covered]

    @property
    def percent(self) -> float:
        """Covered units over all units, in percent (100 when there are none)."""
        if not self.units:
            return 100.0
        return 100.0 * (len(self.units) - len(self.uncovered)) / len(self.units)


def coverage(packs: Sequence[LoadedPack], outcomes: Iterable[TestOutcome]) -> Coverage:
    """The units of `packs` the decisions of `outcomes` exercised (failed tests count:
    their calls were decided)."""
    units = tuple(u for pack in packs for u in units_of(pack))
    decisions = [d for o in outcomes for d in o.decisions]
    covered = frozenset(u.name for u in units if any(u.hit_by(d) for d in decisions))
    return Coverage(units, covered)
