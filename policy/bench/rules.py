"""Which rules cost the most CEL time: each candidate rule's condition, alone, per call.

After the timed run, every call of the mix is walked once more the way
`policy eval --explain` walks a chain (policy.explain): at the call's point, each
pack's candidate rules for its tool (`CompiledPack.candidates`), the ones whose
sender / channel / session filters admit the call (`CompiledRule.admits`), and each
one's condition evaluated on its own. Explaining compiles a program per evaluation
(`CompiledPack.evaluate`); here each rule's program is compiled once
(`CompiledPack.condition_runner`) and only its runs are timed: the facts turned into
CEL values and the program run, as a decision pays for them. The call's facts are
worked out before the rules are timed, so the shell analysis is charged to none of them.

A rule's condition alone costs more than its share of a decision's program, which
evaluates the variables the pack's rules share once: the figures rank rules, they do
not add up to the decision.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from policy._lazy_dataclass import dataclass
from policy.errors import AnalysisIncomplete
from policy.facts import facts_of
from policy.model import POINTS, ToolCall
from policy.packs.runtime import CompiledPack

if TYPE_CHECKING:
    from policy.bench.measure import BenchCall
    from policy.engine import Engine

__all__ = ["RuleTime", "rule_times"]

#: A condition compiled once: (subject, payload) -> its value.
Runner = Callable[[Any, Any], Any]


@dataclass
class RuleTime:
    """One rule's cumulative condition time over the mix."""

    rule: str
    at: str
    evaluations: int = 0
    total_ns: int = 0
    errors: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "at": self.at,
            "evaluations": self.evaluations,
            "total_us": round(self.total_ns / 1000, 1),
            "mean_us": round(self.total_ns / max(self.evaluations, 1) / 1000, 1),
            "errors": self.errors,
        }


def _subject_payload(engine: Engine, call: BenchCall) -> tuple[Any, Any]:
    """(subject, payload) as a pack's rules see them at the call's point: the call
    (its tool canonical, as the engine makes it) and the point's payload."""
    parts = [part.replace() for part in call.parts]
    names = POINTS[call.point].parts
    for index, (name, part) in enumerate(zip(names, parts, strict=True)):
        if name == "call" and isinstance(part, ToolCall):
            tool = engine.aliases.canonical(part.tool)
            if tool != part.tool:
                parts[index] = part.replace(tool=tool, tool_raw=part.tool_raw)
    return parts[0], parts[-1]


def rule_times(
    engine: Engine, calls: Sequence[BenchCall], advance: Callable[[], None]
) -> tuple[list[RuleTime], int]:
    """Every candidate rule with a condition, slowest first by cumulative time over
    `calls`; and how many calls were left out because their analysis gave up (the
    engine refuses those before any rule is asked)."""
    locations: Mapping[str, str] = engine.rule_locations
    runners: dict[tuple[int, str], Runner] = {}
    times: dict[str, RuleTime] = {}
    skipped = 0
    for call in calls:
        advance()
        subject, payload = _subject_payload(engine, call)
        tool = subject.tool if isinstance(subject, ToolCall) else ""
        if isinstance(subject, ToolCall):
            try:
                facts_of(subject, engine.facts_context)  # worked out once, before the clock
            except AnalysisIncomplete:
                skipped += 1
                continue
        for registration, _method, _coroutine in engine.registrations_at(call.point):
            pack = registration.hook
            if not isinstance(pack, CompiledPack):
                continue
            for rule in pack.candidates(call.point, tool):
                if rule.condition is None or not rule.admits(subject):
                    continue
                key = (id(pack), rule.full_id)
                run = runners.get(key)
                if run is None:
                    run = runners[key] = pack.condition_runner(rule)
                entry = times.get(rule.full_id)
                if entry is None:
                    entry = times[rule.full_id] = RuleTime(
                        rule.full_id, locations.get(rule.full_id, "")
                    )
                started = time.perf_counter_ns()
                try:
                    value = run(subject, payload)
                except AnalysisIncomplete:
                    value = None
                entry.total_ns += time.perf_counter_ns() - started
                entry.evaluations += 1
                if not isinstance(value, bool):  # a CelEvalError, or not a bool
                    entry.errors += 1
    return sorted(times.values(), key=lambda t: t.total_ns, reverse=True), skipped
