"""The timed run of `policy bench`: decide each call, fresh, and count the cost.

Every decision is made on a copy of its parts (a new object, so the per-thread memo
of the last call's facts cannot answer it) after the per-line analysis memos are
cleared (`effects.forget_lines`), and so are the answers the packs' programs recall for
equal inputs (`policy.packs.recall.forget`) and the masked arguments the decision log
keeps (`policy.audit.forget_masked`): each one costs what a line seen for the first
time costs, which is every line of a per-event hook process. The memos keyed by paths and glob
patterns (policy.analysis.paths, the CEL functions' compiled globs and regexes) are
kept: a long-running engine has them warm, and they are bounded.

A warm-up pass over the calls comes first and is not counted (imports, compiled
programs, the decision log opened). Memory is the process's resident set read before
and after the counted decisions, each time after `gc.collect()`: from
/proc/self/statm where there is one, else the peak resident set
(`resource.getrusage`), which can only grow.
"""

from __future__ import annotations

import gc
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from policy._lazy_dataclass import dataclass, field
from policy.bench.rules import RuleTime, rule_times

if TYPE_CHECKING:
    from policy.engine import Engine

__all__ = ["MEMOS_CLEARED", "BenchCall", "Report", "resident_bytes", "run_bench"]

#: The memos answered by the text of a command line, or by the inputs of a pack's
#: program, cleared before every decision.
MEMOS_CLEARED = (
    "policy.analysis.shell.analyze",
    "policy.analysis.effects (lexical facts)",
    "policy.packs.recall (programs' answers)",
)

#: (done, total): what `run_bench` reports as it goes.
Progress = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class BenchCall:
    """One call of the mix: where it was read (`FILE:LINE`), its point, and the parts
    `Engine.decide_at` takes there."""

    where: str
    point: str
    parts: tuple[Any, ...]


def resident_bytes() -> tuple[int, str]:
    """(bytes, source): the resident set now (`rss`, from /proc/self/statm), or, where
    there is no /proc, the peak resident set so far (`max_rss`)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE"), "rss"
    except (OSError, ValueError, IndexError):
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak * (1 if sys.platform == "darwin" else 1024), "max_rss"


def _percentile(ordered: Sequence[int], q: float) -> float:
    """The nearest-rank `q` quantile of sorted nanoseconds, in microseconds."""
    index = min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))
    return ordered[index] / 1000


def _figures(samples: list[int]) -> dict[str, Any]:
    ordered = sorted(samples)
    spent = sum(ordered)
    return {
        "count": len(ordered),
        "p50_us": round(_percentile(ordered, 0.50), 1),
        "p90_us": round(_percentile(ordered, 0.90), 1),
        "p99_us": round(_percentile(ordered, 0.99), 1),
        "mean_us": round(spent / len(ordered) / 1000, 1),
        "decisions_per_s": round(len(ordered) / (spent / 1e9), 1) if spent else 0.0,
    }


@dataclass
class Report:
    """What one run measured; `to_json` is `policy bench --format json`'s document."""

    calls: int
    decisions: int
    warmup: int
    samples: dict[str, list[int]]
    seconds: float
    memory_before: int
    memory_after: int
    memory_source: str
    slowest: list[RuleTime]
    rules_skipped: int
    packs: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        every = [ns for samples in self.samples.values() for ns in samples]
        growth = self.memory_after - self.memory_before
        return {
            "calls": self.calls,
            "decisions": self.decisions,
            "warmup": self.warmup,
            "packs": self.packs,
            "memos_cleared": list(MEMOS_CLEARED),
            "points": [{"point": point, **_figures(s)} for point, s in self.samples.items()],
            "overall": {**_figures(every), "seconds": round(self.seconds, 3)},
            "memory": {
                "source": self.memory_source,
                "before_bytes": self.memory_before,
                "after_bytes": self.memory_after,
                "growth_bytes": growth,
                "growth_per_decision_bytes": round(growth / self.decisions, 1),
            },
            "slowest_rules": [rule.to_json() for rule in self.slowest],
            "rules_skipped_calls": self.rules_skipped,
        }


def _decide(engine: Engine, call: BenchCall) -> int:
    """Nanoseconds one decision of `call` takes, as a line never seen before."""
    from policy.analysis.effects import forget_lines
    from policy.audit import forget_masked
    from policy.packs.recall import forget

    parts = tuple(part.replace() for part in call.parts)  # a new object: no memo knows it
    forget_lines()
    forget()
    forget_masked()
    started = time.perf_counter_ns()
    engine.decide_at(call.point, *parts)
    return time.perf_counter_ns() - started


def run_bench(
    engine: Engine,
    calls: Sequence[BenchCall],
    *,
    decisions: int,
    top: int = 10,
    progress: Progress | None = None,
) -> Report:
    """Decide `calls` once to warm up, then `decisions` times in order (going round
    the mix as often as it takes), then time each candidate rule's condition alone
    for each call (`policy.bench.rules`); `top` slowest rules are kept."""
    if not calls:
        raise ValueError("no calls to decide")
    if decisions < 1:
        raise ValueError("decisions: at least 1")
    total = len(calls) + decisions + len(calls)
    done = 0

    def advance(step: int = 1) -> None:
        nonlocal done
        done += step
        if progress is not None:
            progress(done, total)

    for call in calls:
        _decide(engine, call)
        advance()
    samples: dict[str, list[int]] = {}
    gc.collect()
    before, source = resident_bytes()
    started = time.perf_counter()
    for number in range(decisions):
        call = calls[number % len(calls)]
        samples.setdefault(call.point, []).append(_decide(engine, call))
        advance()
    seconds = time.perf_counter() - started
    gc.collect()
    after, _ = resident_bytes()
    slowest, skipped = rule_times(engine, calls, advance)
    return Report(
        calls=len(calls),
        decisions=decisions,
        warmup=len(calls),
        samples=samples,
        seconds=seconds,
        memory_before=before,
        memory_after=after,
        memory_source=source,
        slowest=slowest[:top],
        rules_skipped=skipped,
        packs=dict(engine.packs),
    )
