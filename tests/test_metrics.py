"""`GET /metrics`: what an operator's Prometheus scrapes (issue 25).

The decision counters are the decision log's records, counted as they are written, so
after a run the two agree line for line; the rest — latencies, refusals by rate
limits, reloads, pending approvals, the process' memory and files — is what the alert
rules in examples/service/ read.
"""

from __future__ import annotations

import http.client
import socket
import threading
from collections import Counter as Tally
from pathlib import Path
from typing import Any

import orjson
import pytest
from prometheus_client.parser import text_string_to_metric_families

from policy import telemetry
from tests.test_service import OPERATOR_TOKEN, PACK, ROOT, Running, start_service, stop


def scrape(running: Running) -> dict[str, Any]:
    """The families of one scrape, by name; each family's samples as (name, labels, value)."""
    status, content_type, raw = fetch(running)
    assert status == 200
    assert content_type.startswith("text/plain; version=0.0.4")
    return {f.name: f for f in text_string_to_metric_families(raw)}


def fetch(running: Running, *, tcp: bool = False) -> tuple[int, str, str]:
    """GET /metrics as Prometheus does: (status, content type, body)."""

    class _Unix(http.client.HTTPConnection):
        def connect(self) -> None:
            self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.sock.connect(str(running.socket))

    if tcp:
        host, port = running.http.removeprefix("http://").rsplit(":", 1)
        connection: http.client.HTTPConnection = http.client.HTTPConnection(host, int(port))
    else:
        connection = _Unix("localhost")
    try:
        connection.request("GET", "/metrics")
        answer = connection.getresponse()
        return answer.status, answer.getheader("content-type", ""), answer.read().decode()
    finally:
        connection.close()


def value(families: dict[str, Any], family: str, sample: str, **labels: str) -> float:
    found = [
        s.value for s in families[family].samples if s.name == sample and s.labels == labels
    ]
    assert len(found) == 1, (family, sample, labels, families[family].samples)
    return float(found[0])


@pytest.fixture
def running(tmp_path: Path) -> Any:
    service = start_service(tmp_path / "svc")
    yield service
    if service.process.poll() is None:
        stop(service)


def test_decision_counters_match_the_decision_log(running: Running) -> None:
    client = running.client(token=OPERATOR_TOKEN)
    for command in ("ls", "rm -rf /", "git status", "rm -rf /tmp", "ls"):
        client.call("POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": command}})
    fetch = {"tool": "WebFetch", "args": {"url": "https://example.org"}, "sender": "ops"}
    for _ in range(12):  # 10/minute: two refused by the rate limit
        client.call("POST", "/v1/decide/before_tool", fetch)

    families = scrape(running)
    stop(running)

    records = [orjson.loads(line) for line in running.audit.read_bytes().splitlines()]
    logged = Tally((r["point"], r["action"]) for r in records if r.get("event") == "decision")
    counted = {
        (s.labels["point"], s.labels["action"]): s.value
        for s in families["hookpolicy_decisions"].samples
        if s.name == "hookpolicy_decisions_total"
    }
    assert counted == {key: float(n) for key, n in logged.items()}
    assert counted[("before_tool", "deny_tool")] == 4  # two rm, two over the limit
    assert value(families, "hookpolicy_rate_limit_denials", "hookpolicy_rate_limit_denials_total") == 2
    by_hook = {
        s.labels["hook"]
        for s in families["hookpolicy_decisions_by_hook"].samples
        if s.labels.get("action") == "deny_tool"
    }
    assert by_hook == {"pack:svc", "builtin:svc/tool_policy"}
    decided = value(families, "hookpolicy_decision_seconds", "hookpolicy_decision_seconds_count")
    assert decided == sum(logged.values())
    assert value(families, "hookpolicy_pack_reloads", "hookpolicy_pack_reloads_total", result="ok") == 0
    assert value(families, "hookpolicy_packs_degraded", "hookpolicy_packs_degraded") == 0
    assert value(families, "hookpolicy_approvals_pending", "hookpolicy_approvals_pending") == 0
    assert value(families, "process_resident_memory_bytes", "process_resident_memory_bytes") > 0
    assert value(families, "process_open_fds", "process_open_fds") > 0
    assert value(families, "hookpolicy_connections", "hookpolicy_connections_total", transport="unix") >= 18


def test_a_failed_reload_shows_as_degraded_and_counted(running: Running) -> None:
    (running.settings.parent / "packs" / "svc.yaml").write_text(
        PACK.replace('args.command.startsWith("rm -rf /")', "args.command.startsWith(1)")
    )
    status, _, _ = running.client(token=OPERATOR_TOKEN).request("POST", "/v1/packs/reload")
    assert status == 422
    families = scrape(running)
    assert value(families, "hookpolicy_pack_reloads", "hookpolicy_pack_reloads_total", result="failed") == 1
    assert value(families, "hookpolicy_packs_degraded", "hookpolicy_packs_degraded") == 1
    info = [s.labels for s in families["hookpolicy_pack_info"].samples]
    assert [(labels["policy"], labels["pack"]) for labels in info] == [("", "svc")]


def test_metrics_are_open_like_healthz(running: Running) -> None:
    assert fetch(running)[0] == 200  # no token, over the socket
    assert fetch(running, tcp=True)[0] == 200  # anonymous, over TCP


def test_counts_are_exact_under_threads() -> None:
    counter = telemetry.Counter("a")
    histogram = telemetry.Histogram()

    def work() -> None:
        for _ in range(5000):
            counter.inc("x")
            histogram.observe_ns(300_000)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counter.samples() == [(("x",), 40_000)]
    buckets, total, count = histogram.read()
    assert count == 40_000
    assert dict(buckets)["0.00025"] == 0 and dict(buckets)["0.0005"] == 40_000
    assert total == pytest.approx(40_000 * 0.0003)


def test_the_example_alert_rules_read_only_metrics_the_service_exports(running: Running) -> None:
    import re

    import yaml

    rules = yaml.safe_load((ROOT / "examples" / "service" / "alerts.yml").read_text())
    wanted = {
        name
        for rule in rules["groups"][0]["rules"]
        for name in re.findall(r"\b(?:hookpolicy|process)_[a-z_]+", rule["expr"])
    }
    running.client(token=OPERATOR_TOKEN).call(
        "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": "ls"}}
    )
    exported = {sample.name for family in scrape(running).values() for sample in family.samples}
    assert wanted - exported == set()
    assert len(wanted) >= 8
