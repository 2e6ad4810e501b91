"""What this process decided and how long it took, counted where it happens.

Counters and latency histograms kept in plain Python, for `policy serve`'s `/metrics`
(policy.server.metrics renders them in Prometheus' text format at scrape time). They
are process-wide, as Prometheus' own client is. Each update is exact under the
service's deciding threads — the decisions counted must equal the decision log's
lines — and this imports nothing beyond the standard library: a one-event hook pays a
few increments, never prometheus-client's import. A service whose decisions are made
in processes of their own (`service.deciders`) hears from each, with its answers,
what it counted since it last told (`Tally`, `merge`): the decisions with
every answer, so one `/metrics` still counts every decision.
"""

from __future__ import annotations

import bisect
import itertools
import threading
from collections.abc import Iterator
from typing import Any

__all__ = [
    "ANALYSIS_SECONDS",
    "APPROVALS",
    "CEL_SECONDS",
    "CONNECTIONS",
    "CONTRACT_DENIALS",
    "DECIDER_CALLS",
    "DECISIONS",
    "DECISION_SECONDS",
    "LOG_WRITE_SECONDS",
    "NOTIFICATIONS",
    "RATE_LIMIT_DENIALS",
    "REFUSED",
    "Counter",
    "Histogram",
    "Tally",
]


def counted(count: itertools.count[int]) -> int:
    """How many times `next` was called on an `itertools.count()`, without calling it:
    its repr is `count(N)` (copying a count, the other way, is gone in Python 3.14)."""
    return int(repr(count)[6:-1])


class Counter:
    """A monotonic count per tuple of label values. Each count is an `itertools.count`,
    whose `next` is atomic under the GIL: counting takes no lock (a new tuple of
    values does, once)."""

    __slots__ = ("_added", "_counts", "_fresh", "_lock", "labels")

    def __init__(self, *labels: str, known: tuple[tuple[str, ...], ...] = ()) -> None:
        """`known`: label values shown at 0 before their first count (a series that
        appears only at its first event reads as missing, not as zero, to an alert)."""
        self.labels = labels
        self._counts: dict[tuple[str, ...], itertools.count[int]] = {
            values: itertools.count() for values in known
        }
        #: What other processes counted (`policy serve`'s deciding processes): `add`.
        self._added: dict[tuple[str, ...], int] = {}
        #: The label values counted here since `Tally` last looked (marked after the
        #: count: a count it reads is never one whose mark it already took).
        self._fresh: set[tuple[str, ...]] = set()
        self._lock = threading.Lock()

    def inc(self, *values: str) -> None:
        found = self._counts.get(values)
        if found is None:
            with self._lock:
                found = self._counts.setdefault(values, itertools.count())
        next(found)
        self._fresh.add(values)

    def add(self, values: tuple[str, ...], count: int) -> None:
        """`count` more, counted elsewhere."""
        with self._lock:
            self._counts.setdefault(values, itertools.count())
            self._added[values] = self._added.get(values, 0) + count

    def samples(self) -> list[tuple[tuple[str, ...], int]]:
        with self._lock:
            counts = list(self._counts.items())
            added = dict(self._added)
        return [(values, counted(count) + added.get(values, 0)) for values, count in counts]

    def total(self) -> int:
        return sum(count for _values, count in self.samples())

    def own(self) -> dict[tuple[str, ...], int]:
        """What this process counted, by label values (not what `add` merged)."""
        with self._lock:
            counts = list(self._counts.items())
        return {values: counted(count) for values, count in counts}

    def fresh(self) -> list[tuple[tuple[str, ...], int]]:
        """The label values counted here since the last call, each with this process's
        count of it now (one reader: a deciding process's `Tally`)."""
        taken = []
        marked = self._fresh
        while marked:
            try:
                values = marked.pop()  # (atomic: a count marked meanwhile stays marked)
            except KeyError:
                break
            taken.append((values, counted(self._counts[values])))
        return taken


#: Bucket bounds in seconds: 50 µs (a decision a cache answers) to 10 s (a hosted hook
#: at its timeout).
_BOUNDS = (
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01,
    0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip


class Histogram:
    """Durations in fixed buckets (cumulative when read, as Prometheus wants them)."""

    __slots__ = ("_counts", "_fresh", "_lock", "_sum", "bounds")

    def __init__(self, bounds: tuple[float, ...] = _BOUNDS) -> None:
        self.bounds = bounds
        self._counts = [0] * (len(bounds) + 1)  # the last: above every bound
        self._sum = 0.0
        #: Observed since `Tally` last looked.
        self._fresh = False
        self._lock = threading.Lock()

    def observe_ns(self, nanoseconds: int) -> None:
        seconds = nanoseconds / 1e9
        slot = bisect.bisect_left(self.bounds, seconds)
        with self._lock:
            self._counts[slot] += 1
            self._sum += seconds
            self._fresh = True

    def raw(self) -> tuple[list[int], float]:
        """(the count in each bucket, not cumulative; the sum)."""
        with self._lock:
            return list(self._counts), self._sum

    def fresh(self) -> tuple[list[int], float] | None:
        """`raw()` when something was observed since the last call, else None (one
        reader: a deciding process's `Tally`)."""
        with self._lock:
            if not self._fresh:
                return None
            self._fresh = False
            return list(self._counts), self._sum

    def merge(self, counts: list[int], total: float) -> None:
        """Observations made elsewhere (`raw`'s shape, as a difference of two)."""
        if len(counts) != len(self._counts):
            raise ValueError("another histogram's buckets")
        with self._lock:
            for slot, count in enumerate(counts):
                self._counts[slot] += count
            self._sum += total

    def read(self) -> tuple[list[tuple[str, int]], float, int]:
        """(cumulative buckets as (upper bound, count), with "+Inf"; the sum; the count)."""
        with self._lock:
            counts, total = list(self._counts), self._sum
        running = 0
        buckets: list[tuple[str, int]] = []
        for bound, count in zip((*map(repr, self.bounds), "+Inf"), counts, strict=True):
            running += count
            buckets.append((bound, running))
        return buckets, total, running


#: Every decision logged, by hook point, action (`before_tool`, `deny_tool`) and the
#: hook that decided (`pack:NAME`, a builtin, a code or hosted hook; "" when none had
#: an opinion): the decision log's `decision` records, counted as they are written.
#: /metrics shows it by point and action, and by hook and action.
DECISIONS = Counter("point", "action", "hook")
#: A decision from the host's call to its log line.
DECISION_SECONDS = Histogram()
#: The call's facts (shell analysis, paths on disk), once per call that needs them.
ANALYSIS_SECONDS = Histogram()
#: One pack's CEL program over one call.
CEL_SECONDS = Histogram()
#: Writing one record of the decision log.
LOG_WRITE_SECONDS = Histogram()
#: Calls refused by a rate limit (tool_policy), and by a contract (contract_scope).
RATE_LIMIT_DENIALS = Counter()
CONTRACT_DENIALS = Counter()
#: Approval requests by how they ended: approved, denied, expired, abandoned.
APPROVALS = Counter(
    "outcome", known=(("approved",), ("denied",), ("expired",), ("abandoned",))
)
#: `policy serve`'s connections accepted, by transport (unix, tcp), and what it refused
#: before any handler ran, by status (503: a connection past a cap; 400: unparsable).
CONNECTIONS = Counter("transport", known=(("unix",), ("tcp",)))
#: Notifications to approvers, by sink kind and result: sent, failed (given up after
#: its retries), dropped (its sink's queue full).
NOTIFICATIONS = Counter("sink", "result")
REFUSED = Counter("status", known=(("503",), ("400",)))
#: `/v1/decide` calls and host events with `service.deciders`: decided in a deciding process,
#: overflowed to the deciding threads, failed (the process ended or hung).
DECIDER_CALLS = Counter("outcome", known=(("decided",), ("overflowed",), ("failed",)))


#: Every counter and histogram, by its name in this module: read once, not looked for
#: among the module's names at every look (a deciding process's `Tally` looks often).
_COUNTERS = tuple((n, v) for n, v in list(globals().items()) if isinstance(v, Counter))
_HISTOGRAMS = tuple((n, v) for n, v in list(globals().items()) if isinstance(v, Histogram))


def counters() -> Iterator[tuple[str, Counter]]:
    """Every counter, by its name in this module (for tests and renderers)."""
    return iter(_COUNTERS)


def histograms() -> Iterator[tuple[str, Histogram]]:
    """Every histogram, by its name in this module."""
    return iter(_HISTOGRAMS)


#: What was counted, as plain data: {name: [[labels, count], ...]} for counters,
#: {name: [bucket counts, sum]} for histograms.
Snapshot = dict[str, Any]


#: What a deciding process tells with every answer (`Tally.take(EXACT)`): the counts
#: that must add up to the decision log whatever becomes of the process. The rest it
#: tells now and then (policy.server.decider).
EXACT = frozenset({"DECISIONS"})


class Tally:
    """What this process counted since it last told (`take`): a deciding process's,
    told to the service with its answers (`merge` there).

    Only the series counted since the last `take` are read — each counter marks the
    label values it counts, each histogram that it observed — so telling after every
    answer costs a few microseconds however many series the process has (reading
    every count at every answer cost ≈ 22 µs a decision). One per process: the marks
    are the counters' own, and a take clears them."""

    __slots__ = ("_counts", "_histograms")

    def __init__(self) -> None:
        self._counts: dict[str, dict[tuple[str, ...], int]] = {}
        self._histograms: dict[str, tuple[list[int], float]] = {}
        for name, counter in _COUNTERS:
            counter.fresh()
            self._counts[name] = counter.own()
        for name, histogram in _HISTOGRAMS:
            histogram.fresh()
            self._histograms[name] = histogram.raw()

    def take(self, names: frozenset[str] | None = None) -> Snapshot:
        """What was counted since the last take (of each of `names`, or of all): only
        what changed."""
        changed: Snapshot = {}
        for name, counter in _COUNTERS:
            if names is not None and name not in names:
                continue
            told = self._counts[name]
            moved = []
            for values, count in counter.fresh():
                more = count - told.get(values, 0)
                if more:
                    moved.append([list(values), more])
                    told[values] = count
            if moved:
                changed[name] = moved
        for name, histogram in _HISTOGRAMS:
            if names is not None and name not in names:
                continue
            now = histogram.fresh()
            if now is None:
                continue
            (counts, total), (old_counts, old_total) = now, self._histograms[name]
            if counts != old_counts:
                moved_counts = [a - b for a, b in zip(counts, old_counts, strict=True)]
                changed[name] = [moved_counts, total - old_total]
                self._histograms[name] = now
        return changed


def merge(changed: Snapshot) -> None:
    """Count here what another process counted (`Tally.take`'s result); names this module
    does not have are refused, as are shapes that do not fit."""
    known_counters = dict(counters())
    known_histograms = dict(histograms())
    for name, value in changed.items():
        if name in known_counters:
            counter = known_counters[name]
            for values, count in value:
                if len(values) != len(counter.labels) or type(count) is not int or count < 0:
                    raise ValueError(f"{name}: not a count of this counter")
                counter.add(tuple(str(v) for v in values), count)
        elif name in known_histograms:
            counts, total = value
            if not all(type(c) is int and c >= 0 for c in counts):
                raise ValueError(f"{name}: not a histogram's counts")
            known_histograms[name].merge(list(counts), float(total))
        else:
            raise ValueError(f"{name}: not counted here")
