"""The one way the benchmarks time a call: warm up, then p50 and p99 of many runs."""

from __future__ import annotations

import time
from collections.abc import Callable


def measure(fn: Callable[[], object], calls: int, warmup: int = 1000) -> tuple[float, float]:
    """(p50, p99) in microseconds of `calls` runs of `fn`, after `warmup` runs."""
    for _ in range(min(warmup, calls)):
        fn()
    samples = []
    for _ in range(calls):
        start = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - start)
    samples.sort()
    return samples[len(samples) // 2] / 1000, samples[int(len(samples) * 0.99)] / 1000
