"""Soak `policy serve`: mixed traffic at half its capacity, for minutes, with reloads and
a broken pack mid-run, watching for errors, memory and open files.

    .venv/bin/python tests/soak/soak.py                  # 10 minutes (the issue's run)
    .venv/bin/python tests/soak/soak.py --seconds 30     # the smoke CI runs

Starts its own `policy serve` in a temporary directory on a copy of the shipped
`rules/` plus a small pack of its own (`soak`: an `ask` rule on `./deploy`, approvers
`secops-*`), SQLite state and approvals, a decision log with rotation, `/metrics`.
Then:

1. **Capacity**: 8 client threads decide as fast as they can for a few seconds
   (the corpus mix below); decisions/s is the capacity.
2. **Soak** at half that rate (`--fraction`), paced, for `--seconds`:
   - decisions: the `cmd` lines of tests/corpus/everyday.jsonl and dangerous.jsonl, as
     thin hooks send them (`POST /v1/decide/before_tool` over the Unix socket); each
     answer must be 200 with an action;
   - approvals: every 2 s a `./deploy` call waits for people (`/v1/approve_tool`);
     an approver thread approves one, denies the next, and lets the third expire; each
     waiting call must end as the approver said;
   - reloads: every 15 s (a sixth of a shorter run) `POST /v1/packs/reload` with a new
     revision of the soak pack (must be 200); at a third of the run the pack is broken (the reload must be 422
     and `/readyz` degraded, while every decision still answers), fixed at half;
   - every second: the service's resident memory and open files (/proc/PID).
3. **Figures**: decisions/s, p50/p99 latency, approvals by outcome, reloads, errors;
   RSS and open files at the first sample after minute 2 (or a fifth of the run, when
   shorter) and at the end, and their change; the open files with nothing in flight
   before the soak and after it; `/metrics`' decision count against the decision log's
   lines.

Exit status 0 when there were no errors, the decision counters match the log, open
files with nothing in flight (counted once they stop changing, before the soak's load
and after it has drained: under load they move with the connections being answered)
end where they were (±3), and — for runs of 5 minutes or more — RSS between
minute 2 and the end grew by at most 10 %; else 1. Not a unit test: the smoke run in
tests/test_soak.py calls it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

from policy.client.transport import ServiceClient  # noqa: E402
from policy.server.logs import listening_addresses  # noqa: E402
from policy.service_settings import token_digest  # noqa: E402

APPROVER = "hp_soak_approver"
OPERATOR = "hp_soak_operator"
SOAK_PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: soak
revision: "{revision}"
rules:
  - id: deploys-need-secops
    tools: [bash]
    when: args.command.startsWith("./deploy")
    action: ask
    approvers: ["secops-*"]
    timeout: 4s
    message: deploys need secops
"""
BROKEN = SOAK_PACK.replace('args.command.startsWith("./deploy")', "args.command.startsWith(1)")


def corpus() -> list[str]:
    lines = []
    for name in ("everyday.jsonl", "dangerous.jsonl"):
        for raw in (ROOT / "tests" / "corpus" / name).read_text().splitlines():
            entry = json.loads(raw)
            if "cmd" in entry:
                lines.append(entry["cmd"])
    return lines


class Service:
    """The `policy serve` under soak."""

    def __init__(self, base: Path, deciders: int = 0) -> None:
        packs = base / "packs"
        shutil.copytree(ROOT / "rules", packs / "rules")
        (packs / "soak").mkdir()
        self.pack = packs / "soak" / "soak.yaml"
        self.pack.write_text(SOAK_PACK.format(revision="0"))
        self.audit = base / "decisions.jsonl"
        settings = base / "serve.yaml"
        settings.write_text(
            f"data_dir: {base / 'data'}\n"
            f"audit_path: {self.audit}\n"
            f"packs: [{packs / 'rules'}, {packs / 'soak'}]\n"
            "audit_rotate_bytes: 33554432\n"
            "service:\n"
            "  identities:\n"
            f"    - {{name: alice, token_sha256: {token_digest(APPROVER)}, roles: [approver],"
            " approver_names: [secops-alice]}\n"
            f"    - {{name: ops, token_sha256: {token_digest(OPERATOR)}, roles: [operator]}}\n"
            + (f"  deciders: {deciders}\n" if deciders else "")
        )
        socket = base / "run" / "policy.sock"
        policy = str(Path(sys.executable).parent / "policy")
        env = {k: v for k, v in os.environ.items() if not k.startswith("POLICY_")}
        self.process = subprocess.Popen(
            [policy, "serve", "--config", str(settings), "--socket", str(socket),
             "--log-format", "json"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert self.process.stderr is not None
        self.warnings: list[str] = []
        for line in iter(self.process.stderr.readline, b""):
            if listening_addresses(line):
                break
        else:
            raise SystemExit("policy serve did not start")
        threading.Thread(target=self._read_log, daemon=True).start()
        self.address = f"unix:{socket}"

    def _read_log(self) -> None:
        assert self.process.stderr is not None
        for line in iter(self.process.stderr.readline, b""):
            try:
                record = json.loads(line)
            except ValueError:
                self.warnings.append(line.decode(errors="replace").strip())
                continue
            if record.get("level") in ("error", "critical"):
                self.warnings.append(f"{record.get('level')}: {record.get('event')}")

    def client(self, token: str | None = None) -> ServiceClient:
        return ServiceClient(self.address, token=token)

    def resident(self) -> tuple[int, int]:
        """(resident bytes, open files) of the service process."""
        pid = self.process.pid
        with open(f"/proc/{pid}/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE"), len(os.listdir(f"/proc/{pid}/fd"))

    def settled_files(self, timeout: float = 20.0) -> int:
        """The service's open files once nothing is in flight: the same count five
        times in a row, 0.2 s apart (a connection being answered, a deciding process
        being replaced, come and go; what stays is what leaks). The last count when it
        never settles within `timeout`."""
        ends = time.monotonic() + timeout
        seen: list[int] = []
        while time.monotonic() < ends:
            seen.append(self.resident()[1])
            if len(seen) >= 5 and len(set(seen[-5:])) == 1:
                break
            time.sleep(0.2)
        return seen[-1]

    def metrics(self) -> str:
        """`GET /metrics`, as Prometheus reads it (text, not JSON)."""
        import http.client
        import socket

        path = self.address.removeprefix("unix:")

        class Unix(http.client.HTTPConnection):
            def connect(self) -> None:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.sock.connect(path)

        connection = Unix("localhost", timeout=30)
        try:
            connection.request("GET", "/metrics")
            return connection.getresponse().read().decode()
        finally:
            connection.close()

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)


class Tally:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.errors: Counter[str] = Counter()
        self.first_errors: dict[str, str] = {}
        self.counts: Counter[str] = Counter()

    def error(self, kind: str, detail: str) -> None:
        with self.lock:
            self.errors[kind] += 1
            self.first_errors.setdefault(kind, detail[:300])

    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] += 1


def decide(client: ServiceClient, command: str, tally: Tally | None) -> bool:
    started = time.perf_counter()
    try:
        status, _, answer = client.request(
            "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": command}}
        )
    except Exception as exc:
        if tally is not None:
            tally.error("decision failed", f"{type(exc).__name__}: {exc}")
        return False
    if tally is not None:
        with tally.lock:
            tally.latencies.append(time.perf_counter() - started)
        if status != 200 or not isinstance(answer, dict) or "action" not in answer:
            tally.error(f"decision {status}", f"{command!r}: {answer}")
            return False
        tally.count("decisions")
    return True


def capacity(service: Service, lines: list[str], seconds: float) -> float:
    stop = time.monotonic() + seconds
    done = Counter[str]()
    lock = threading.Lock()

    def run(offset: int) -> None:
        client = service.client(OPERATOR)
        for command in itertools.cycle(lines[offset:] + lines[:offset]):
            if time.monotonic() >= stop:
                return
            if decide(client, command, None):
                with lock:
                    done["n"] += 1

    threads = [threading.Thread(target=run, args=(n * 97,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return done["n"] / seconds


def soak(options: argparse.Namespace) -> int:
    base = Path(tempfile.mkdtemp(prefix="hookpolicy-soak-"))
    service = Service(base, options.deciders)
    lines = corpus()
    tally = Tally()
    samples: list[tuple[float, int, int]] = []
    try:
        rate = options.rate or capacity(service, lines, options.measure) * options.fraction
        print(f"capacity phase done: driving {rate:.0f} decisions/s for {options.seconds:.0f} s")
        quiet_before = service.settled_files()
        began = time.monotonic()
        ends = began + options.seconds
        stopping = threading.Event()
        clients = 8
        per_client = rate / clients

        def decisions(offset: int) -> None:
            client = service.client(OPERATOR)
            interval = 1.0 / per_client
            due = time.monotonic()
            for command in itertools.cycle(lines[offset:] + lines[:offset]):
                if stopping.is_set():
                    return
                decide(client, command, tally)
                due += interval
                pause = due - time.monotonic()
                if pause > 0:
                    stopping.wait(pause)
                else:
                    due = time.monotonic()  # behind: no burst to catch up

        outcomes: dict[str, str] = {}  # request id -> what the approver does

        def approvals() -> None:
            client = service.client()
            for number in itertools.count():
                if stopping.wait(2.0):
                    return
                command = f"./deploy build-{number}"
                try:
                    answer = client.call(
                        "POST",
                        "/v1/approve_tool",
                        {"call": {"tool": "Bash", "args": {"command": command}}, "timeout": 6},
                        timeout=30,
                    )
                except Exception as exc:
                    tally.error("approve_tool failed", f"{type(exc).__name__}: {exc}")
                    continue
                tally.count("approvals " + ("approved" if answer.get("approved") else "refused"))

        def approver() -> None:
            client = service.client(APPROVER)
            while True:
                if stopping.wait(0.5):
                    return
                try:
                    pending = client.call("GET", "/v1/approvals")["requests"]
                except Exception as exc:
                    tally.error("listing failed", f"{type(exc).__name__}: {exc}")
                    continue
                for request in pending:
                    if request["id"] in outcomes:
                        continue
                    # (by the requests seen, not by the turns: which turn first sees a
                    # request is the machine's timing, and a run could expire them all)
                    choice = ("approve", "deny", "expire")[len(outcomes) % 3]
                    outcomes[request["id"]] = choice
                    if choice == "expire":
                        continue
                    try:
                        client.call("POST", f"/v1/approvals/{request['id']}/{choice}", {})
                    except Exception as exc:
                        if "409" not in str(exc):
                            tally.error(f"{choice} failed", f"{type(exc).__name__}: {exc}")
                    tally.count(f"approver {choice}")

        def reloads() -> None:
            client = service.client(OPERATOR)
            broke, fixed = False, False
            for revision in itertools.count(1):
                if stopping.wait(options.reload_every or min(15.0, options.seconds / 6)):
                    return
                elapsed = time.monotonic() - began
                if not broke and elapsed >= options.seconds / 3:
                    service.pack.write_text(BROKEN)
                    broke = True
                    expected = 422
                elif broke and not fixed and elapsed >= options.seconds / 2:
                    service.pack.write_text(SOAK_PACK.format(revision=str(revision)))
                    fixed = True
                    expected = 200
                elif broke and not fixed:
                    expected = 422
                else:
                    service.pack.write_text(SOAK_PACK.format(revision=str(revision)))
                    expected = 200
                status, _, body = client.request("POST", "/v1/packs/reload")
                if status != expected:
                    tally.error(f"reload {status}", str(body))
                tally.count(f"reload {status}")
                _, _, ready = client.request("GET", "/readyz")
                want = "degraded" if expected == 422 else "ready"
                if not isinstance(ready, dict) or ready.get("status") != want:
                    tally.error("readyz", f"expected {want}: {ready}")

        def sampler() -> None:
            while not stopping.wait(1.0):
                rss, files = service.resident()
                samples.append((time.monotonic() - began, rss, files))

        workers = [threading.Thread(target=decisions, args=(n * 131,)) for n in range(clients)]
        workers += [threading.Thread(target=f) for f in (approvals, approver, reloads, sampler)]
        for worker in workers:
            worker.start()
        while time.monotonic() < ends and service.process.poll() is None:
            time.sleep(min(1.0, ends - time.monotonic()))
        stopping.set()
        for worker in workers:
            worker.join(60)
        if service.process.poll() is not None:
            tally.error("service died", f"exit status {service.process.returncode}")
        counted = _decisions_counted(service.metrics())
        quiet_after = service.settled_files()
    finally:
        if service.process.poll() is None:
            service.stop()
    logged = sum(
        1
        for path in sorted(base.glob("decisions.jsonl*"))
        for line in path.read_bytes().splitlines()
        if b'"event":"decision"' in line[:80]
    )
    return _report(
        options, tally, samples, counted, logged, service.warnings, (quiet_before, quiet_after)
    )


def _decisions_counted(text: str) -> float | None:
    total = 0.0
    found = False
    for line in text.splitlines():
        if line.startswith("hookpolicy_decisions_total{"):
            total += float(line.rsplit(" ", 1)[1])
            found = True
    return total if found else None


def _report(
    options: argparse.Namespace,
    tally: Tally,
    samples: list[tuple[float, int, int]],
    counted: float | None,
    logged: int,
    warnings: list[str],
    quiet_files: tuple[int, int],
) -> int:
    seconds = options.seconds
    latencies = sorted(tally.latencies)
    p50 = statistics.median(latencies) * 1000 if latencies else 0.0
    p99 = latencies[int(len(latencies) * 0.99)] * 1000 if latencies else 0.0
    print(f"decisions: {tally.counts['decisions']} ({tally.counts['decisions'] / seconds:.0f}/s),"
          f" p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    for what in sorted(k for k in tally.counts if k != "decisions"):
        print(f"{what}: {tally.counts[what]}")
    mark = 120.0 if seconds >= 300 else seconds / 5
    after = [s for s in samples if s[0] >= mark]
    growth = 0.0
    files_change = quiet_files[1] - quiet_files[0]
    if after:
        first, last = after[0], samples[-1]
        growth = (last[1] - first[1]) / first[1]
        print(
            f"RSS at {first[0]:.0f} s {first[1] / 2**20:.1f} MiB, at {last[0]:.0f} s "
            f"{last[1] / 2**20:.1f} MiB ({100 * growth:+.1f} %); peak "
            f"{max(s[1] for s in samples) / 2**20:.1f} MiB"
        )
        print(
            f"open files at {first[0]:.0f} s {first[2]}, at {last[0]:.0f} s {last[2]} (under "
            f"load); with nothing in flight {quiet_files[0]} before the soak, "
            f"{quiet_files[1]} after it"
        )
        step = max(1, len(samples) // 10)
        shape = ", ".join(
            f"{s[0]:.0f}s {s[1] / 2**20:.1f}" for s in samples[step - 1 :: step]
        )
        print(f"RSS (MiB) over the run: {shape}")
    print(f"decisions counted by /metrics: {counted}; decision records in the log: {logged}")
    for line in warnings[:10]:
        print(f"service log: {line}")
    failures = []
    if tally.errors:
        failures.append(f"{sum(tally.errors.values())} errors: " + "; ".join(
            f"{kind} x{count} (first: {tally.first_errors[kind]})"
            for kind, count in tally.errors.items()
        ))
    if counted is None or counted != logged:
        failures.append(f"/metrics counted {counted} decisions, the log holds {logged}")
    if abs(files_change) > 3:
        failures.append(f"open files with nothing in flight changed by {files_change:+.0f}")
    if seconds >= 300 and growth > 0.10:
        failures.append(f"RSS grew {100 * growth:.1f} % after minute 2")
    for failure in failures:
        print(f"FAIL: {failure}")
    print("OK" if not failures else "FAILED")
    return 0 if not failures else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--fraction", type=float, default=0.5, help="of the measured capacity")
    parser.add_argument("--rate", type=float, default=None, help="decisions/s (skip measuring)")
    parser.add_argument("--measure", type=float, default=5.0, help="seconds of the capacity phase")
    parser.add_argument(
        "--reload-every", type=float, default=None, help="seconds (default: 15, or a sixth of the run)"
    )
    parser.add_argument(
        "--deciders", type=int, default=0, help="service.deciders: decide in N processes of their own"
    )
    return soak(parser.parse_args())


if __name__ == "__main__":
    sys.exit(main())
