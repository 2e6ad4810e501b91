"""`service.deciders`: `/v1/decide` calls decided in processes of their own, exactly as
the deciding threads decide them (policy.server.deciders).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy.client.transport import ServiceClient
from policy.facts import Caller as FactsCaller
from policy.server.asker import Asker
from tests.test_metrics import scrape, value
from tests.test_service import (
    AGENT_TOKEN,
    APPROVER_TOKEN,
    OPERATOR_TOKEN,
    PACK,
    POLICY,
    Running,
    StderrLines,
    clean_env,
    hook,
    permission,
    pre_tool,
    start_service,
    stop,
)

DECIDERS = "  deciders: 1\n"


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    # the SQLite state and approval stores (the defaults), which processes share; a
    # notification command that writes down what approvers are told
    base = tmp_path_factory.mktemp("deciders")
    script = base / "told.py"
    script.write_text(
        "import sys\n"
        f"with open({str(base / 'told.jsonl')!r}, 'ab') as out:\n"
        "    out.write(sys.stdin.buffer.read() + b'\\n')\n"
    )
    running = start_service(
        base,
        settings_extra=DECIDERS
        + f"  notify:\n    - {{kind: command, command: ['{sys.executable}', '{script}']}}\n",
        limits="",
        approvals="",
    )
    yield running
    stop(running)


def told(running: Running) -> list[dict[str, Any]]:
    """What the notification command was handed so far."""
    path = running.settings.parent / "told.jsonl"
    if not path.exists():
        return []
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def decide(client: ServiceClient, command: str, **fields: Any) -> tuple[int, Any]:
    status, _headers, answer = client.request(
        "POST", "/v1/decide/before_tool", {"tool": "bash", "args": {"command": command}, **fields}
    )
    return status, answer


def decided_in_processes(running: Running) -> float:
    return value(
        scrape(running), "hookpolicy_decider_calls", "hookpolicy_decider_calls_total",
        outcome="decided",
    )


def until(done: Any, timeout: float = 60.0) -> None:
    """Until `done()` holds, asking again every 50 ms (what it waits on — a process
    started, a notification written — says nothing on the service's stderr)."""
    ends = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < ends, "never came true"
        time.sleep(0.05)


def decider_pids(running: Running) -> list[int]:
    """The deciding processes' pids, as the service logged them at its start."""
    found = [r for r in running.stderr.records() if r.get("event") == "deciding processes ready"]
    assert found, running.stderr.text()
    return list(found[-1]["pids"])


def test_a_deciding_process_decides_as_the_threads_do(service: Running) -> None:
    client = service.client()
    before = decided_in_processes(service)
    status, denied = decide(client, "rm -rf /")
    assert status == 200
    assert (denied["action"], denied["reason"]) == ("deny_tool", "not the root")
    status, asked = decide(client, "./deploy prod")
    assert status == 200
    assert asked["needs_approval"] is True
    status, allowed = decide(client, "ls")
    assert (status, allowed["action"]) == (200, "continue")
    status, _headers, told = client.request("POST", "/v1/decide/event", {"kind": "x.y"})
    assert (status, told) == (202, {"accepted": True})
    families = scrape(service)
    assert value(
        families, "hookpolicy_decider_calls", "hookpolicy_decider_calls_total", outcome="decided"
    ) == before + 4
    # what the process counted is the service's to show: the decisions by action
    assert value(
        families, "hookpolicy_decisions", "hookpolicy_decisions_total",
        point="before_tool", action="deny_tool",
    ) >= 1
    # one hash chain, the processes' records and the service's own in it
    verified = subprocess.run(
        [POLICY, "audit", "verify", str(service.audit)],
        capture_output=True, text=True, env=clean_env(), check=False,
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_once_a_burst_is_answered_metrics_count_every_decision_of_the_log(
    service: Running,
) -> None:
    """A process kept busy tells its counts only now and then; the answer after which it
    has nothing left to do carries the rest, so a scrape after the burst adds up to the
    decision log's records."""
    from concurrent.futures import ThreadPoolExecutor

    def one(n: int) -> int:
        return decide(service.client(), f"cat notes/{n}.txt")[0]

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(one, range(160)))
    assert statuses == [200] * 160
    logged = sum(
        1 for line in service.audit.read_bytes().splitlines()
        if orjson.loads(line).get("event") == "decision"
    )
    families = scrape(service)
    counted = sum(
        s.value for s in families["hookpolicy_decisions"].samples
        if s.name == "hookpolicy_decisions_total" and "hook" not in s.labels
    )
    assert counted == logged


def test_a_hosts_event_is_answered_in_a_process_and_its_approvals_filed_by_the_service(
    service: Running,
) -> None:
    """The thin Claude Code hook's events: decided in a process; one that goes on to the
    approvers is handed back, and the service files its request (its store tells the
    notifiers and the inbox), which an approver then finds and approves."""
    before = decided_in_processes(service)
    answer, _ = hook("claude", pre_tool("rm -rf /"), "--server", service.unix)
    assert permission(answer) == ("deny", "not the root")
    answer, _ = hook("claude", pre_tool("./deploy canary", session="dc"), "--server", service.unix)
    assert permission(answer)[0] == "deny"  # deferred: asked, not yet approved
    assert decided_in_processes(service) == before + 2
    approver = service.client(token=APPROVER_TOKEN)
    (request,) = [
        r for r in approver.call("GET", "/v1/approvals")["requests"]
        if r["args"] == {"command": "./deploy canary"}
    ]
    # the service filed it, so its approvers were told (a process filing it would not)
    until(lambda: any(t.get("id") == request["id"] for t in told(service)))
    approver.call("POST", f"/v1/approvals/{request['id']}/approve", {"reason": "ok"})
    answer, _ = hook("claude", pre_tool("./deploy canary", session="dc"), "--server", service.unix)
    assert permission(answer)[0] == "allow"


def test_whom_it_decides_for_is_the_services_word(service: Running) -> None:
    # a token may decide only for its own senders, in a process as on a thread
    agent = service.client(token=AGENT_TOKEN)
    status, refused = decide(agent, "ls", sender="alice")
    assert status == 403
    assert "may not decide for sender 'alice'" in refused["error"]
    status, _headers, bad = service.client().request("POST", "/v1/decide/before_tool", [1, 2])
    assert (status, bad) == (400, {"error": "before_tool: expected an object"})
    # a budget is one budget: the SQLite state the process and the threads share
    client = service.client()
    answers = [
        client.call("POST", "/v1/decide/before_tool", {"tool": "web_fetch", "args": {"url": "https://x"}, "session": "budget"})
        for _ in range(11)
    ]
    assert [a["action"] for a in answers[:10]] == ["continue"] * 10
    assert answers[10]["action"] == "deny_tool"


def test_a_reload_reaches_the_next_call_at_once(service: Running) -> None:
    pack = service.settings.parent / "packs" / "svc.yaml"
    try:
        pack.write_text(PACK.replace("message: not the root", "message: never the root"))
        service.client(token=OPERATOR_TOKEN).call("POST", "/v1/packs/reload")
        # the processes on the old set are replaced; until then the threads decide
        for _ in range(20):
            status, answer = decide(service.client(), "rm -rf /")
            assert (status, answer["reason"]) == (200, "never the root")
    finally:
        pack.write_text(PACK)
        service.client(token=OPERATOR_TOKEN).call("POST", "/v1/packs/reload")
    until(lambda: decide(service.client(), "rm -rf /")[1]["reason"] == "not the root")


def test_a_contract_attached_in_memory_is_enforced(service: Running) -> None:
    """Attached through the API, a contract lives in the service's memory (no Redis):
    the calls go to the threads while it is attached, and it holds."""
    operator = service.client(token=OPERATOR_TOKEN)
    operator.call("PUT", "/v1/contracts/s-ro", {"id": "readonly", "tools": ["read"]})
    try:
        status, answer = decide(service.client(), "ls", session="s-ro")
        assert (status, answer["action"]) == (200, "deny_tool")
    finally:
        operator.call("DELETE", "/v1/contracts/s-ro")
    status, answer = decide(service.client(), "ls", session="s-ro")
    assert (status, answer["action"]) == (200, "continue")


def test_a_deciding_process_that_dies_is_replaced(tmp_path: Path) -> None:
    running = start_service(tmp_path, settings_extra=DECIDERS, limits="", approvals="")
    try:
        (pid,) = decider_pids(running)
        os.kill(pid, signal.SIGKILL)
        running.stderr.wait_for(
            lambda line: b"a deciding process ended: replaced" in line or None
        )
        # the threads decide until its replacement is ready, then the replacement does
        client = running.client()
        until(lambda: _decided_once_more(running, client))
    finally:
        output = stop(running)
    assert "Traceback" not in output


def _decided_once_more(running: Running, client: ServiceClient) -> bool:
    before = decided_in_processes(running)
    status, answer = decide(client, "rm -rf /")
    assert (status, answer["action"]) == (200, "deny_tool")
    return decided_in_processes(running) > before


def serve_config(tmp_path: Path, top: str = "", *, log_file: bool = True) -> list[str]:
    """`policy serve` on the test pack with deciders, `top` among the settings: its argv."""
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "svc.yaml").write_text(PACK)
    config = tmp_path / "serve.yaml"
    config.write_text(
        f"data_dir: {tmp_path / 'data'}\n"
        + (f"audit_path: {tmp_path / 'log.jsonl'}\n" if log_file else "")
        + f"packs: [{tmp_path / 'packs'}]\n{top}service:\n{DECIDERS}"
    )
    return [POLICY, "serve", "--config", str(config), "--socket", str(tmp_path / "s.sock")]


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ("limits_storage_uri: memory://\n", "limits_storage_uri is memory://"),
        ("approvals_store: memory://\n", "approvals_store is memory://"),
    ],
)
def test_settings_that_would_split_a_budget_are_refused(
    tmp_path: Path, settings: str, named: str
) -> None:
    done = subprocess.run(
        serve_config(tmp_path, settings),
        capture_output=True, text=True, env=clean_env(), timeout=60, check=False,
    )
    assert done.returncode != 0
    assert named in done.stderr


def test_without_a_decision_log_file_they_are_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        serve_config(tmp_path, log_file=False),
        capture_output=True, text=True, env=clean_env(), timeout=60, check=False,
    )
    assert done.returncode != 0
    assert "the decision log must be a file" in done.stderr


# ---------------------------------------------------------------- the pool, in process


class _Log:
    def __init__(self) -> None:
        self.events: list[str] = []

    def error(self, event: str, **_fields: Any) -> None:
        self.events.append(event)

    info = warning = error


def _engine(tmp_path: Path, **service: Any) -> Any:
    from policy.engine import Engine
    from policy.settings import Settings

    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "svc.yaml").write_text(PACK)
    return Engine(
        Settings(
            packs=[tmp_path / "packs"],
            data_dir=tmp_path / "data",
            audit_path=tmp_path / "decisions.jsonl",
            service=service or None,
        )
    )


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Any]:
    made = _engine(tmp_path)
    yield made
    made.close()


def test_a_process_past_its_memory_cap_leaves_without_failing_a_call(tmp_path: Path) -> None:
    """Past `service.max_memory_mb` (checked every 64 answers) a process says it
    leaves: every call is still answered, and another process takes its place."""
    from policy.server.deciders import DeciderPool

    engine = _engine(tmp_path, max_memory_mb=1)  # (any interpreter is past 1 MiB)
    pool = DeciderPool(1, lambda: [("", engine)], _Log())
    pool.start()
    (first,) = pool.pids()
    caller, who = CALLER, WHO

    async def run() -> tuple[list[Any], list[int]]:
        await pool.attach()
        answers = []
        for _ in range(400):
            answer = await pool.decide(caller, who, "before_tool", _asked("rm -rf /"))
            answers.append(answer)
            if pool.pids() and first not in pool.pids():
                break
            if answer is None:  # (a thread would decide it; the replacement is starting)
                await asyncio.sleep(0.05)
        serving = pool.pids()
        await pool.aclose()
        return answers, serving

    try:
        answers, serving = asyncio.run(run())
    finally:
        pool.close()
        engine.close()
    decided = [a for a in answers if a is not None]
    assert all(orjson.loads(a.body)["reason"] == "not the root" for a in decided)
    assert len(decided) >= 64
    assert serving and first not in serving


#: Whom the in-process pool decides for: uid 1, as the event loop would name it.
CALLER = FactsCaller(principal="uid:1")
WHO = Asker(principal="uid:1", user="dev", uid=1, peer="", identity=None)


def _asked(command: str) -> bytes:
    return orjson.dumps({"tool": "bash", "args": {"command": command}})


def _run_with_stopped(pool: Any, stopped: int, run: Any) -> Any:
    """`run()` on an event loop of its own; then the pool closed and the process the
    test stopped (SIGSTOP) killed, whatever happened."""
    try:
        return asyncio.run(run())
    finally:
        pool.close()
        with contextlib.suppress(ProcessLookupError):
            os.kill(stopped, signal.SIGKILL)


def test_a_hung_process_is_refused_then_replaced_and_the_threads_take_over(engine: Any) -> None:
    """A process that stops answering: its call is refused (503) once `hung` passes; a
    call behind no room waits at most WAIT and goes to a thread (None); a new process
    takes the old one's place."""
    from policy.server.deciders import DeciderFailed, DeciderPool

    log = _Log()
    pool = DeciderPool(1, lambda: [("", engine)], log, hung=3.0)
    pool.start()
    (stopped,) = pool.pids()
    caller, who = CALLER, WHO

    async def run() -> tuple[Any, ...]:
        await pool.attach()
        first = await pool.decide(caller, who, "before_tool", _asked("rm -rf /"))
        os.kill(stopped, signal.SIGSTOP)
        hung = asyncio.ensure_future(pool.decide(caller, who, "before_tool", _asked("ls")))
        await asyncio.sleep(0.2)  # (older than QUEUE_BEHIND: nothing is written behind it)
        overflowed = await pool.decide(caller, who, "before_tool", _asked("pwd"))
        with pytest.raises(DeciderFailed, match="did not answer within 3 s"):
            await hung
        for _ in range(600):  # the replacement starts (seconds) and decides
            answer = await pool.decide(caller, who, "before_tool", _asked("rm -rf /"))
            if answer is not None:
                break
            await asyncio.sleep(0.05)
        await pool.aclose()
        return first, overflowed, answer

    first, overflowed, replaced = _run_with_stopped(pool, stopped, run)
    assert first is not None and orjson.loads(first.body)["reason"] == "not the root"
    assert overflowed is None
    assert replaced is not None and orjson.loads(replaced.body)["reason"] == "not the root"
    assert "a deciding process did not answer: replaced" in log.events
    assert stopped not in pool.pids()


def test_another_callers_call_is_never_written_behind_a_burst(engine: Any) -> None:
    """A caller's burst is written to a process one behind the other; another caller's
    call finds no room behind it and goes to a thread at once (None) — it does not
    wait for the burst, nor fail with it (a red team's finding, issue 24: written up
    to eight deep, a bystander waited for seven slow calls of somebody else's)."""
    from policy.server.deciders import DeciderFailed, DeciderPool

    pool = DeciderPool(1, lambda: [("", engine)], _Log(), hung=1.0)
    pool.start()
    (stopped,) = pool.pids()
    other = Asker(principal="uid:2", user="other", uid=2, peer="", identity=None)

    async def run() -> Any:
        await pool.attach()
        os.kill(stopped, signal.SIGSTOP)
        burst = [
            asyncio.ensure_future(pool.decide(CALLER, WHO, "before_tool", _asked(f"ls {n}")))
            for n in range(3)
        ]
        await asyncio.sleep(0)  # (the burst written: the process is stopped in it)
        bystander = await asyncio.wait_for(
            pool.decide(FactsCaller(principal="uid:2"), other, "before_tool", _asked("pwd")), 30
        )
        for call in burst:
            with contextlib.suppress(DeciderFailed):
                await asyncio.wait_for(call, 30)
        await pool.aclose()
        return bystander

    bystander = _run_with_stopped(pool, stopped, run)
    assert bystander is None  # (a thread decides it)


def test_a_hung_process_retired_by_a_reload_is_refused_and_ended(engine: Any) -> None:
    """A reload retires the processes: one that has stopped answering is watched as a
    current one is — its call refused once `hung` passes, and it is ended (review,
    issue 24: a retiring process was never looked at again, its calls waited on)."""
    from policy.server.deciders import DeciderFailed, DeciderPool

    log = _Log()
    pool = DeciderPool(1, lambda: [("", engine)], log, hung=1.0)
    pool.start()
    (stopped,) = pool.pids()

    async def run() -> None:
        await pool.attach()
        os.kill(stopped, signal.SIGSTOP)
        waiting = asyncio.ensure_future(pool.decide(CALLER, WHO, "before_tool", _asked("ls")))
        await asyncio.sleep(0)  # (written to it)
        pool.refresh()
        with pytest.raises(DeciderFailed, match="did not answer within 1 s"):
            await asyncio.wait_for(waiting, 30)
        await pool.aclose()

    _run_with_stopped(pool, stopped, run)
    assert "a deciding process did not answer: ended" in log.events
    assert stopped not in pool.pids()


def test_a_process_killed_mid_burst_leaves_no_answered_decision_uncounted(
    tmp_path: Path,
) -> None:
    """The decisions counted go with every answer: a process killed while it holds back
    its other counts loses none of the decisions it answered (at most the one it was
    deciding, logged and never answered)."""
    from policy import telemetry
    from policy.server.deciders import DeciderFailed, DeciderPool

    engine = _engine(tmp_path)
    pool = DeciderPool(1, lambda: [("", engine)], _Log())
    pool.start()
    (pid,) = pool.pids()
    before = telemetry.DECISIONS.total()

    async def run() -> int:
        await pool.attach()
        answered = 0

        async def one(n: int) -> None:
            nonlocal answered
            with contextlib.suppress(DeciderFailed):
                if await pool.decide(CALLER, WHO, "before_tool", _asked(f"cat f{n}")):
                    answered += 1
                    if answered == 20:  # (busy: calls wait behind it)
                        os.kill(pid, signal.SIGKILL)

        await asyncio.gather(*(one(n) for n in range(60)))
        await pool.aclose()
        return answered

    try:
        answered = asyncio.run(run())
    finally:
        pool.close()
        engine.close()
    pool.counted()
    counted = telemetry.DECISIONS.total() - before
    logged = sum(
        1 for line in (tmp_path / "decisions.jsonl").read_bytes().splitlines()
        if orjson.loads(line).get("event") == "decision"
    )
    assert answered >= 20
    assert counted == answered
    assert logged - counted in (0, 1)


def test_what_a_process_counted_is_counted_once_here() -> None:
    from policy import telemetry

    tally = telemetry.Tally()
    telemetry.DECISIONS.inc("before_tool", "deny_tool", "pack:x")
    telemetry.CEL_SECONDS.observe_ns(2_000)
    changed = tally.take()
    assert set(changed) == {"DECISIONS", "CEL_SECONDS"}
    assert changed["DECISIONS"] == [[["before_tool", "deny_tool", "pack:x"], 1]]
    assert tally.take() == {}  # (told once)
    total = telemetry.DECISIONS.total()
    telemetry.merge(changed)
    assert telemetry.DECISIONS.total() == total + 1
    with pytest.raises(ValueError, match="not counted here"):
        telemetry.merge({"NOT_A_METRIC": []})
    with pytest.raises(ValueError, match="not a count"):
        telemetry.merge({"DECISIONS": [[["before_tool"], 1]]})


def test_a_tally_taken_with_every_answer_tells_the_decisions_only() -> None:
    """`take(EXACT)` (every answer) tells the decisions and keeps the rest for the
    next whole take, which tells it once."""
    from policy import telemetry

    tally = telemetry.Tally()
    telemetry.DECISIONS.inc("before_tool", "continue", "pack:y")
    telemetry.LOG_WRITE_SECONDS.observe_ns(40_000)
    telemetry.RATE_LIMIT_DENIALS.inc()
    assert set(tally.take(telemetry.EXACT)) == {"DECISIONS"}
    telemetry.DECISIONS.inc("before_tool", "continue", "pack:y")
    whole = tally.take()
    assert whole["DECISIONS"] == [[["before_tool", "continue", "pack:y"], 1]]
    assert whole["RATE_LIMIT_DENIALS"] == [[[], 1]]
    assert sum(whole["LOG_WRITE_SECONDS"][0]) == 1
    assert tally.take() == {}


def test_a_tally_loses_no_count_made_while_it_takes() -> None:
    """Counts made on other threads while the tally takes are each told exactly once:
    what the service merges adds up to what was counted."""
    from policy import telemetry

    tally = telemetry.Tally()
    told = 0
    seconds = 0

    def count() -> None:
        for _ in range(20_000):
            telemetry.DECISIONS.inc("before_tool", "continue", "pack:tally")
            telemetry.DECISION_SECONDS.observe_ns(1_000)

    def add(changed: dict[str, object]) -> None:
        nonlocal told, seconds
        for values, more in changed.get("DECISIONS", []):  # type: ignore[attr-defined]
            if values == ["before_tool", "continue", "pack:tally"]:
                told += more
        if "DECISION_SECONDS" in changed:
            seconds += sum(changed["DECISION_SECONDS"][0])  # type: ignore[index]

    threads = [threading.Thread(target=count) for _ in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (threads switch between any two bytecodes)
    try:
        for thread in threads:
            thread.start()
        while any(thread.is_alive() for thread in threads):
            add(tally.take())
    finally:
        sys.setswitchinterval(interval)
    add(tally.take())
    assert told == 80_000
    assert seconds == 80_000


def test_a_restart_hands_over_the_packs_read_back_from_the_pack_cache(tmp_path: Path) -> None:
    """The second start reads the packs back from the pack cache (no rule sources in
    memory): they are handed over as the entry they were read from."""
    for again in (False, True):
        running = start_service(
            tmp_path, settings_extra=DECIDERS, limits="", approvals="", keep_pack=again
        )
        try:
            status, answer = decide(running.client(), "rm -rf /")
            assert (status, answer["reason"]) == (200, "not the root")
        finally:
            stop(running)


def test_the_working_directory_is_not_where_a_deciding_process_finds_its_code(
    tmp_path: Path,
) -> None:
    """`python -m` would import a `policy` package from the directory the service was
    started in; whoever can write there must not run code in the deciding process."""
    planted = tmp_path / "cwd" / "policy"
    planted.mkdir(parents=True)
    marker = tmp_path / "ran"
    (planted / "__init__.py").write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    process = subprocess.Popen(
        serve_config(tmp_path),
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=clean_env(), cwd=planted.parent,
    )
    lines = StderrLines(process.stderr)
    try:
        lines.wait_for(lambda line: b"deciding processes ready" in line or None)
        client = ServiceClient(f"unix:{tmp_path / 's.sock'}")
        status, _headers, answer = client.request(
            "POST", "/v1/decide/before_tool", {"tool": "bash", "args": {"command": "rm -rf /"}}
        )
        assert (status, answer["reason"]) == (200, "not the root")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    assert not marker.exists()


def test_a_teams_packs_decide_for_its_callers_in_a_process(tmp_path: Path) -> None:
    """`service.policies`: the process routes a call as the service does (here by the
    project the hook names), to the team's set it was handed."""
    from tests.test_policies import PAYMENTS

    base = tmp_path / "svc"
    (base / "payments").mkdir(parents=True)
    (base / "payments" / "payments.yaml").write_text(PAYMENTS)
    extra = DECIDERS + (
        "  policies:\n"
        f"    - {{name: payments, packs: [{base / 'payments'}], projects: ['/srv/payments/**']}}\n"
    )
    running = start_service(base, settings_extra=extra, limits="", approvals="")
    try:
        before = decided_in_processes(running)

        def asked(command: str, project: str) -> Any:
            client = running.client()
            client.headers["X-Hookpolicy-Project"] = project
            return client.call(
                "POST", "/v1/decide/before_tool", {"tool": "bash", "args": {"command": command}}
            )

        inside = asked("curl https://example.org", "/srv/payments/api")
        assert (inside["action"], inside["rule_ids"]) == ("deny_tool", ["payments/no-curl"])
        assert asked("curl https://example.org", "/srv/blog")["action"] == "continue"
        assert asked("rm -rf /", "/srv/payments/api")["reason"] == "not the root"
        assert decided_in_processes(running) == before + 3
    finally:
        stop(running)


def test_a_deciding_process_reads_frames_however_they_come() -> None:
    """Frames as the service writes them (a call's header and body in one write, or
    cut anywhere by the kernel) read back whole and in order; the end of the socket
    between frames is the end, within one an error; a length over the limit is
    refused before anything is read for it."""
    import socket

    from policy.server.deciders import MAX_FRAME, FrameReader, frame

    ours, theirs = socket.socketpair()
    with ours, theirs:
        frames = FrameReader(theirs)
        ours.sendall(frame(b'{"point":"before_tool"}', b"x" * 1000) + frame(b"next"))
        assert frames.frame() == b'{"point":"before_tool"}'
        assert frames.frame() == b"x" * 1000
        assert frames.pending  # (the next call came in the same read)
        assert frames.frame() == b"next"
        assert not frames.pending
        # a body longer than a read: read into its own buffer, and no further
        large = bytes(range(256)) * 4096  # (1 MiB)
        sender = threading.Thread(target=ours.sendall, args=(frame(b"h", large, b"after"),))
        sender.start()
        assert frames.frame() == b"h"
        assert frames.frame() == large
        assert frames.frame() == b"after"
        sender.join()
        message = frame(b"cut", b"anywhere" * 1000)

        def one_byte_a_write() -> None:  # (while it reads: each read takes what came)
            for at in range(len(message)):
                ours.sendall(message[at : at + 1])

        writer = threading.Thread(target=one_byte_a_write)
        writer.start()
        assert frames.frame() == b"cut"
        assert frames.frame() == b"anywhere" * 1000
        writer.join()
        ours.sendall((MAX_FRAME + 1).to_bytes(4, "big"))
        with pytest.raises(ValueError, match="over the limit"):
            frames.frame()
    for cut in (frame(b"whole")[:-2], frame(b"y" * 200_000)[:100_000]):
        ours, theirs = socket.socketpair()
        with theirs:
            frames = FrameReader(theirs)
            sender = threading.Thread(target=ours.sendall, args=(cut,))
            sender.start()
            sender.join()
            ours.close()
            with pytest.raises(EOFError):
                frames.frame()
    ours, theirs = socket.socketpair()
    with theirs:
        ours.close()
        assert FrameReader(theirs).frame() is None


def test_calls_are_written_behind_a_process_only_while_it_keeps_up() -> None:
    """A call is written behind others only while the oldest is younger than
    QUEUE_BEHIND, behind two or more only when they are all its principal's own, and
    never past DEPTH: a principal never queues behind another's burst, and a call
    that turns slow (a mount that does not answer) has calls written behind it only
    before it shows."""
    from policy.server.deciders import DEPTH, QUEUE_BEHIND, _Process

    process = _Process(None, None, 0)  # type: ignore[arg-type]  # (the gate reads no more)
    now = 1000.0
    loop = asyncio.new_event_loop()

    def room(caller: str, *written: tuple[str, float]) -> bool:
        """Room for one more call of `caller`'s behind `written` (whose, how many
        seconds ago), oldest first."""
        process.fail_pending("(cleared)")
        for whose, age in written:
            process.written(loop.create_future(), whose, now - age)
        return process.has_room(now, caller)

    assert DEPTH > 2
    assert room("uid:1")
    assert room("uid:2", ("uid:1", QUEUE_BEHIND * 0.9))  # (behind one other: as ever)
    assert not room("uid:2", ("uid:1", QUEUE_BEHIND * 1.1))
    assert not room("uid:1", ("uid:1", QUEUE_BEHIND * 1.1))
    young = QUEUE_BEHIND * 0.5
    assert room("uid:1", *[("uid:1", young)] * (DEPTH - 1))  # its own burst
    assert not room("uid:1", *[("uid:1", 0.0)] * DEPTH)
    assert not room("uid:2", ("uid:1", young), ("uid:1", young))  # never behind another's two
    assert not room("uid:1", ("uid:1", young), ("uid:2", young))
    assert not room("uid:1", ("uid:1", QUEUE_BEHIND * 1.1), ("uid:1", 0.0))  # (it fell behind)
    # anonymous callers (TCP, no token) share a principal and are nobody's burst
    assert room("anonymous", ("anonymous", young))
    assert not room("anonymous", ("anonymous", young), ("anonymous", young))
    loop.close()


def test_an_answer_wakes_the_oldest_waiting_call_that_has_room(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Room depends on whose a call is: an answer wakes the oldest waiting call whose
    principal has room, passing over (and keeping first in line) one that has none —
    not the oldest alone, which would find none and leave the other asleep until
    WAIT (a red team's finding, issue 24)."""
    from policy.server import deciders
    from policy.server.deciders import DeciderPool, _Process

    monkeypatch.setattr(deciders, "QUEUE_BEHIND", 3600.0)  # (the burst stays young here)

    class Running:
        def poll(self) -> None:
            return None

    pool = DeciderPool(1, list, _Log())
    loop = asyncio.new_event_loop()
    pool._loop = loop
    process = _Process(Running(), None, 0)  # type: ignore[arg-type]
    pool._live.append(process)
    now = loop.time()
    for _ in range(3):  # uid:1's burst: room behind it for uid:1's calls only
        process.written(loop.create_future(), "uid:1", now)
    other, own = loop.create_future(), loop.create_future()
    pool._waiters.extend([(now + 1, other, "uid:2"), (now + 1, own, "uid:1")])
    pool._make_room()
    assert own.done() and own.result() is True
    assert not other.done() and [w for _u, w, _p in pool._waiters] == [other]
    loop.close()


def test_a_call_is_timed_from_when_the_process_takes_it_up() -> None:
    """HUNG is counted from when the process took its oldest call up — when it was
    written, or when the call before it was answered — never from when it was written
    behind others: eight calls of 5 s each (a state file's busy timeout) written at
    once are not taken for a hang of 40 s (a red team's finding, issue 24)."""
    from policy.server.deciders import _Process

    process = _Process(None, None, 0)  # type: ignore[arg-type]
    loop = asyncio.new_event_loop()
    calls = [loop.create_future() for _ in range(3)]
    for call in calls:
        process.written(call, "uid:1", 100.0)
    assert process.started == 100.0
    assert process.answered(105.0) is calls[0]
    assert process.started == 105.0  # (the second, taken up as the first was answered)
    assert process.answered(110.0) is calls[1]
    assert process.started == 110.0
    assert process.own == {"uid:1": 1}
    assert process.answered(115.0) is calls[2] and not process.own and not process.owners
    process.written(calls[0], "uid:2", 200.0)  # (idle until then: taken up as written)
    assert process.started == 200.0
    loop.close()
