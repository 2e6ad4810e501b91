"""`GET /metrics`: the service in Prometheus' text format, read at scrape time.

The counts are kept where things happen, in plain Python (`policy.telemetry`: the
decision log's records as they are written, latencies, refusals by rate limits and
contracts, approvals by how they ended, connections); this module only renders them,
with what the service knows itself (reloads, pending approvals, respond bypasses)
and the process' own (resident memory, open files: prometheus-client's
`ProcessCollector`). prometheus-client is imported at the first scrape, never by a
hook. Names and labels are listed in docs/service.md#metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from policy import telemetry

if TYPE_CHECKING:
    from policy.server.reload import PackReloader

__all__ = ["Metrics"]

_PREFIX = "hookpolicy_"


class Metrics:
    """One service's registry: `render()` is the body of `/metrics`."""

    def __init__(
        self,
        engine: Any,
        reloader: PackReloader,
        log: Any,
        engines: Callable[[], Iterable[tuple[str, Any]]] | None = None,
    ) -> None:
        from prometheus_client import CollectorRegistry, ProcessCollector

        self._engine = engine
        #: ("", the service's engine), then each team's (`service.policies`).
        self.engines = engines if engines is not None else (lambda: [("", engine)])
        self._reloader = reloader
        self._log = log
        self.registry = CollectorRegistry(auto_describe=False)
        ProcessCollector(registry=self.registry)  # process_resident_memory_bytes, _open_fds
        self.registry.register(_Collector(self))

    def render(self) -> tuple[bytes, str]:
        """(the body, its content type)."""
        from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, generate_latest

        return generate_latest(self.registry), CONTENT_TYPE_PLAIN_0_0_4

    def pending_approvals(self) -> int | None:
        """Requests waiting for a person now (None: the store cannot be read)."""
        try:
            return len(self._engine.approvals.list("pending"))
        except Exception as exc:  # noqa: BLE001 - a metric left out, never a failed scrape
            self._log.warning("metrics: approval store unreadable", error=str(exc))
            return None


def _summed(name: str, text: str, labels: tuple[str, str], rows: Iterable[Any]) -> Any:
    """A counter family of `rows` ((label, label, count)) summed by their two labels."""
    from prometheus_client.core import CounterMetricFamily

    sums: dict[tuple[str, str], int] = {}
    for first, second, count in rows:
        sums[(first, second)] = sums.get((first, second), 0) + count
    family = CounterMetricFamily(_PREFIX + name, text, labels=list(labels))
    for values, count in sorted(sums.items()):
        family.add_metric(list(values), count)
    return family


class _Collector:
    """The hookpolicy families, built fresh at each scrape."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        def counter(name: str, text: str, source: telemetry.Counter) -> Any:
            family = CounterMetricFamily(_PREFIX + name, text, labels=list(source.labels))
            for values, count in sorted(source.samples()):
                family.add_metric(list(values), count)
            if not source.labels and not source.samples():
                family.add_metric([], 0)
            return family

        def histogram(name: str, text: str, source: telemetry.Histogram) -> Any:
            buckets, total, _count = source.read()
            family = HistogramMetricFamily(_PREFIX + name, text)
            family.add_metric([], buckets, total)
            return family

        samples = telemetry.DECISIONS.samples()
        yield _summed(
            "decisions",
            "Decisions logged, by hook point and action (one per decision-log record).",
            ("point", "action"),
            ((values[0], values[1], count) for values, count in samples),
        )
        yield _summed(
            "decisions_by_hook",
            "Decisions logged, by the hook that decided (pack:NAME, a builtin, a code or "
            "hosted hook) and action.",
            ("hook", "action"),
            ((values[2], values[1], count) for values, count in samples),
        )
        yield counter(
            "rate_limit_denials", "Calls refused by a rate limit.", telemetry.RATE_LIMIT_DENIALS
        )
        yield counter(
            "contract_denials", "Calls refused by a contract.", telemetry.CONTRACT_DENIALS
        )
        yield counter(
            "approvals",
            "Approval answers logged, by outcome: approved, denied, expired, abandoned.",
            telemetry.APPROVALS,
        )
        yield counter(
            "connections", "Connections accepted, by transport.", telemetry.CONNECTIONS
        )
        yield counter(
            "notifications",
            "Notifications to approvers, by sink and result (sent, failed, dropped).",
            telemetry.NOTIFICATIONS,
        )
        yield counter(
            "decider_calls",
            "`/v1/decide` calls and host events by where they went with `service.deciders`: "
            "decided in a deciding process, overflowed to the threads (none had room), "
            "failed (the process ended or hung: a 503).",
            telemetry.DECIDER_CALLS,
        )
        yield counter(
            "refused_requests",
            "Connections and requests refused before a handler (503 at a cap, 400).",
            telemetry.REFUSED,
        )
        yield histogram(
            "decision_seconds",
            "A decision, from the call to its log line.",
            telemetry.DECISION_SECONDS,
        )
        yield histogram(
            "analysis_seconds",
            "The call's facts (shell analysis, paths on disk).",
            telemetry.ANALYSIS_SECONDS,
        )
        yield histogram(
            "cel_seconds", "One pack's CEL program over one call.", telemetry.CEL_SECONDS
        )
        yield histogram(
            "log_write_seconds",
            "Writing one decision-log record.",
            telemetry.LOG_WRITE_SECONDS,
        )
        metrics = self._metrics
        reloader = metrics._reloader
        reloads = CounterMetricFamily(
            _PREFIX + "pack_reloads", "Pack reloads, by result.", labels=["result"]
        )
        reloads.add_metric(["ok"], reloader.counts.reloads)
        reloads.add_metric(["failed"], reloader.counts.failures)
        yield reloads
        yield GaugeMetricFamily(
            _PREFIX + "packs_degraded",
            "1 while the last good packs serve in place of packs that fail to compile.",
            value=1 if reloader.error else 0,
        )
        loaded = GaugeMetricFamily(
            _PREFIX + "pack_info",
            "The packs serving (1 each), by policy (\"\": the service's own).",
            labels=["policy", "pack", "revision"],
        )
        for team, engine in metrics.engines():
            for name, label in sorted(engine.packs.items()):
                loaded.add_metric([team, name, label], 1)
        yield loaded
        yield CounterMetricFamily(
            _PREFIX + "respond_bypasses",
            "Responds that bypassed approval, as the respond guard flagged them.",
            value=sum(engine.respond_bypasses for _team, engine in metrics.engines()),
        )
        pending = metrics.pending_approvals()
        if pending is not None:
            yield GaugeMetricFamily(
                _PREFIX + "approvals_pending",
                "Approval requests waiting for a person.",
                value=pending,
            )
