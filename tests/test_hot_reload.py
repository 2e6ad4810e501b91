"""New revisions of the packs, taken without dropping a call (issue 25, hot reload).

An operator edits a pack and the running engine takes it — on `Engine.reload_packs`,
SIGHUP, `POST /v1/packs/reload` or a change `policy serve --watch` sees. A revision
that does not compile changes nothing that decides: the last good set keeps serving,
and says so at `/v1/packs` and `/readyz`. A restart with a broken pack on disk serves
the last good set, degraded, unless `service.strict_start` says otherwise.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy.engine import Engine
from policy.errors import ReloadError
from policy.model import Action, ToolCall
from policy.packs.diagnostics import PackError
from policy.settings import Settings
from tests.test_service import APPROVER_TOKEN, OPERATOR_TOKEN, PACK, Running, start_service, stop

RULES = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: p
revision: "{revision}"
priority: 50
builtins:
  tool_policy:
    applies_to: [web_fetch]
    rate_limits:
      - {{tools: [web_fetch], limit: "2/minute"}}
rules:
  - id: refuse
    tools: [bash]
    when: args.command.startsWith("{refused}")
    action: deny
    message: not {refused}
"""


def write(pack: Path, revision: str, refused: str) -> None:
    pack.write_text(RULES.format(revision=revision, refused=refused))


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    path = tmp_path / "packs" / "p.yaml"
    path.parent.mkdir()
    write(path, "1", "rm ")
    return path


@pytest.fixture
def engine(tmp_path: Path, pack: Path) -> Iterator[Engine]:
    settings = Settings(
        packs=[pack.parent],
        audit_path=tmp_path / "decisions.jsonl",
        data_dir=tmp_path / "data",
        pack_cache=False,
    )
    with Engine(settings) as made:
        yield made


def bash(engine: Engine, command: str) -> Action:
    call = ToolCall(tool="Bash", args={"command": command}, sender="dev", session="s")
    return engine.before_tool(call).action


def fetch(engine: Engine) -> Action:
    call = ToolCall(tool="WebFetch", args={"url": "https://example.org"}, sender="dev", session="s")
    return engine.before_tool(call).action


def logged(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


# ------------------------------------------------------------------ the engine


def test_a_new_revision_decides_the_next_call_and_the_log_names_it(
    engine: Engine, pack: Path, tmp_path: Path
) -> None:
    assert bash(engine, "rm x") is Action.DENY_TOOL
    write(pack, "2", "curl ")

    packs = engine.reload_packs()

    assert packs["p"].startswith("2@")
    assert engine.packs == packs
    assert bash(engine, "rm x") is Action.CONTINUE
    assert bash(engine, "curl x") is Action.DENY_TOOL
    decisions = [r for r in logged(tmp_path / "decisions.jsonl") if r.get("point") == "before_tool"]
    assert [r["packs"]["p"].split("@")[0] for r in decisions] == ["1", "2", "2"]


def test_a_revision_with_an_error_leaves_the_set_in_place(engine: Engine, pack: Path) -> None:
    before = dict(engine.packs)
    pack.write_text(pack.read_text().replace('startsWith("rm ")', "startsWith(1)"))

    with pytest.raises(PackError) as failed:
        engine.reload_packs()

    assert f"{pack}:" in str(failed.value)  # the file, line and column of the error
    assert engine.packs == before
    assert bash(engine, "rm x") is Action.DENY_TOOL


def test_rate_limit_counters_outlive_a_reload(engine: Engine, pack: Path) -> None:
    assert [fetch(engine), fetch(engine)] == [Action.CONTINUE, Action.CONTINUE]
    write(pack, "2", "curl ")
    engine.reload_packs()
    assert fetch(engine) is Action.DENY_TOOL  # the third of "2/minute"


def test_a_decision_under_way_finishes_on_the_set_it_started_with(
    engine: Engine, pack: Path, tmp_path: Path
) -> None:
    started, reloaded = threading.Event(), threading.Event()

    class Holds:
        """A code hook that runs before the pack and holds the first call until the
        reload is done."""

        name = "holds"
        priority = 1

        def before_tool(self, call: ToolCall) -> None:
            if call.args.get("command") == "rm held":
                started.set()
                assert reloaded.wait(30)

    engine.register(Holds())
    answers: list[Action] = []
    worker = threading.Thread(target=lambda: answers.append(bash(engine, "rm held")))
    worker.start()
    assert started.wait(30)
    write(pack, "2", "curl ")
    engine.reload_packs()
    reloaded.set()
    worker.join(30)

    assert answers == [Action.DENY_TOOL]  # revision 1 decided it
    assert bash(engine, "rm held") is Action.CONTINUE  # revision 2 decides the next
    revisions = [
        r["packs"]["p"].split("@")[0]
        for r in logged(tmp_path / "decisions.jsonl")
        if r.get("point") == "before_tool"
    ]
    assert revisions == ["1", "2"]
    assert "holds" in engine.chain_order("before_tool")  # code hooks stay


def test_packs_that_change_the_tool_aliases_are_refused(engine: Engine, pack: Path) -> None:
    pack.write_text(pack.read_text().replace("rules:", "aliases: {terminal: bash}\nrules:", 1))
    with pytest.raises(ReloadError, match="aliases"):
        engine.reload_packs()
    assert engine.packs["p"].startswith("1@")


# ------------------------------------------------------------------ the service


def status_of(running: Running, path: str) -> tuple[int, Any]:
    status, _, body = running.client(token=OPERATOR_TOKEN).request("GET", path)
    return status, body


def decide(running: Running, command: str) -> str:
    answer = running.client(token=OPERATOR_TOKEN).call(
        "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": command}}
    )
    return str(answer["action"])


def packs_file(running: Running) -> Path:
    return running.settings.parent / "packs" / "svc.yaml"


BROKEN = PACK.replace('args.command.startsWith("rm -rf /")', "args.command.startsWith(1)")


def test_sighup_reloads_and_the_service_keeps_running(tmp_path: Path) -> None:
    running = start_service(tmp_path / "svc")
    try:
        packs_file(running).write_text(PACK.replace('revision: "1"', 'revision: "2"'))
        running.process.send_signal(signal.SIGHUP)
        running.stderr.wait_for(lambda line: b"packs reloaded" in line or None)
        assert running.process.poll() is None
        _, shown = status_of(running, "/v1/packs")
        assert [p["revision"] for p in shown["packs"]] == ["2"]
        assert shown["degraded"] is False
    finally:
        stop(running)


def test_a_broken_pack_keeps_the_last_good_set_and_says_why(tmp_path: Path) -> None:
    running = start_service(tmp_path / "svc")
    try:
        packs_file(running).write_text(BROKEN)
        status, _, body = running.client(token=OPERATOR_TOKEN).request("POST", "/v1/packs/reload")
        assert status == 422
        assert body["status"] == "failed"
        assert "svc.yaml:" in body["error"]

        assert decide(running, "rm -rf /") == "deny_tool"  # the last good set decides
        status, ready = status_of(running, "/readyz")
        assert (status, ready["status"]) == (200, "degraded")
        assert "svc.yaml:" in ready["error"]
        _, shown = status_of(running, "/v1/packs")
        assert shown["degraded"] is True and shown["reload_failures"] == 1

        packs_file(running).write_text(PACK.replace('revision: "1"', 'revision: "3"'))
        done = running.client(token=OPERATOR_TOKEN).call("POST", "/v1/packs/reload")
        assert done["status"] == "reloaded" and done["packs"]["svc"].startswith("3@")
        assert status_of(running, "/readyz")[1]["status"] == "ready"
    finally:
        stop(running)
    kinds = [r.get("event") for r in logged(running.audit)]
    assert "packs_reload_failed" in kinds and "packs_reloaded" in kinds


def test_only_an_operator_reloads(tmp_path: Path) -> None:
    running = start_service(tmp_path / "svc")
    try:
        for who in (running.client(), running.client(token=APPROVER_TOKEN)):
            status, _, body = who.request("POST", "/v1/packs/reload")
            assert status in (401, 403), body
    finally:
        stop(running)


def test_a_restart_with_a_broken_pack_serves_the_last_good_set(tmp_path: Path) -> None:
    first = start_service(tmp_path / "svc")
    stop(first)
    packs_file(first).write_text(BROKEN)

    # start_service writes the good pack again: point it at a directory holding the
    # broken one, under the same path the last good set was kept for
    again = start_service(tmp_path / "svc", packs=packs_file(first).parent, keep_pack=True)
    try:
        status, ready = status_of(again, "/readyz")
        assert (status, ready["status"]) == (200, "degraded")
        assert decide(again, "rm -rf /") == "deny_tool"
        assert decide(again, "ls") == "continue"
    finally:
        stop(again)


def test_strict_start_refuses_a_broken_pack(tmp_path: Path) -> None:
    first = start_service(tmp_path / "svc")
    stop(first)
    packs_file(first).write_text(BROKEN)
    with pytest.raises(AssertionError):  # it never listens
        start_service(
            tmp_path / "svc",
            keep_pack=True,
            settings_extra="  strict_start: true\n",
        )


def test_watch_picks_up_a_change_within_a_second_or_so(tmp_path: Path) -> None:
    running = start_service(tmp_path / "svc", options=("--watch",))
    try:
        packs_file(running).write_text(PACK.replace('revision: "1"', 'revision: "4"'))
        ends = time.monotonic() + 30
        while time.monotonic() < ends:
            _, shown = status_of(running, "/v1/packs")
            if [p["revision"] for p in shown["packs"]] == ["4"]:
                break
            time.sleep(0.05)
        else:
            raise AssertionError(running.stderr.text())
        packs_file(running).write_text(BROKEN)
        running.stderr.wait_for(lambda line: b"packs not reloaded" in line or None)
        assert decide(running, "rm -rf /") == "deny_tool"
    finally:
        stop(running)


def test_packs_another_user_may_write_are_named(tmp_path: Path, pack: Path) -> None:
    from policy.server.reload import foreign_writers

    assert foreign_writers([pack.parent]) == []
    pack.chmod(0o666)
    assert foreign_writers([pack.parent]) == [str(pack)]


def test_reloads_and_broken_packs_under_load_fail_no_decision(tmp_path: Path) -> None:
    running = start_service(tmp_path / "svc", options=("--watch",))
    stopping = threading.Event()
    answers: list[tuple[str, str]] = []
    problems: list[str] = []

    def load() -> None:
        client = running.client(token=OPERATOR_TOKEN)
        while not stopping.is_set():
            for command, wanted in (("rm -rf /", "deny_tool"), ("ls", "continue")):
                status, _, body = client.request(
                    "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": command}}
                )
                if status != 200 or body.get("action") != wanted:
                    problems.append(f"{command}: {status} {body}")
                answers.append((command, str(body.get("action"))))

    workers = [threading.Thread(target=load) for _ in range(3)]
    for worker in workers:
        worker.start()
    try:
        for revision in ("5", "6"):
            packs_file(running).write_text(BROKEN)
            running.stderr.wait_for(lambda line: b"packs not reloaded" in line or None)
            packs_file(running).write_text(PACK.replace('revision: "1"', f'revision: "{revision}"'))
            running.stderr.wait_for(lambda line: b"packs reloaded" in line or None)
        running.process.send_signal(signal.SIGHUP)
        running.stderr.wait_for(lambda line: b"packs unchanged" in line or None)
    finally:
        stopping.set()
        for worker in workers:
            worker.join(30)
        stop(running)
    assert problems == []
    assert len(answers) > 20
    decided = [r for r in logged(running.audit) if r.get("point") == "before_tool"]
    assert len(decided) == len(answers)  # one log line per decision, each naming its set
    assert {r["packs"]["svc"].split("@")[0] for r in decided} <= {"1", "5", "6"}
    assert decided[-1]["packs"]["svc"].startswith("6@")
