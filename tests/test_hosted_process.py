"""PicoClaw process hooks running inside our chain (`hooks.processes`).

Each test starts real child processes: the seed document's own `review_gate.py`,
byte for byte, and `fixtures/scripted_process_hook.py`, which answers from a JSON
script and logs every line it receives.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from policy import Engine
from policy.errors import HookRegistrationError, SettingsError
from policy.model import Action, LLMRequest, LLMResponse, ToolCall, ToolResult
from policy.settings import Settings

REPO = Path(__file__).resolve().parent.parent
REVIEW_GATE = REPO / "examples" / "process-hooks" / "review_gate.py"
SCRIPTED = Path(__file__).resolve().parent / "fixtures" / "scripted_process_hook.py"
SEEDS = REPO.parent / "shared" / "seeds"

MakeEngine = Callable[..., Engine]


@pytest.fixture
def make_engine(tmp_path: Path) -> Iterator[MakeEngine]:
    """`make(processes, **settings)`: an engine whose `hooks.processes` is `processes`."""
    engines: list[Engine] = []

    def make(processes: dict[str, Any], **values: Any) -> Engine:
        values.setdefault("audit_path", tmp_path / f"decisions{len(engines)}.log")
        engine = Engine(Settings(hooks={"processes": processes}, **values))
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


def scripted(
    tmp_path: Path, answers: dict[str, Any], *, name: str = "gate", **fields: Any
) -> tuple[dict[str, Any], Path]:
    """A process entry running the scripted hook, and the file it logs received lines to."""
    script = tmp_path / f"{name}.json"
    script.write_text(json.dumps(answers))
    received = tmp_path / f"{name}.received"
    entry = {
        "enabled": True,
        "transport": "stdio",
        "command": [sys.executable, str(SCRIPTED), str(script), str(received)],
        "intercept": ["before_tool"],
        **fields,
    }
    return entry, received


def messages(received: Path, method: str | None = None) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in received.read_text().splitlines() if line.strip()]
    return [m for m in lines if method is None or m.get("method") == method]


def process_of(engine: Engine) -> Any:
    """The child process behind the engine's one process hook."""
    (registration,) = engine._chain.snapshot.ordered
    return registration.hook.process


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_for(predicate: Callable[[], bool], seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


CALL = ToolCall(tool="exec", args={"command": "ls -la"}, session="s-1", sender="alice")


# ------------------------------------------------------------- the seed's hook


def test_review_gate_is_the_seed_documents_own_code() -> None:
    """The example is the seed's review_gate.py unmodified, so the test below shows
    that a hook written for PicoClaw runs here as it was published."""
    seeds = sorted(SEEDS.glob("000_*")) if SEEDS.is_dir() else []
    if not seeds:
        pytest.skip("the seed documents are not next to this checkout")
    text = seeds[0].read_text()
    start = text.index("#!/usr/bin/env python3")
    end = text.index("    main()\n", start) + len("    main()\n")
    assert REVIEW_GATE.read_text() == text[start:end]


def test_seed_review_gate_runs_as_a_process_hook_next_to_packs(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    log = tmp_path / "review-gate.log"
    pack = tmp_path / "pack.yaml"
    pack.write_text(
        textwrap.dedent(
            """\
            apiVersion: hookpolicy/v1
            kind: RulePack
            name: no-sudo
            rules:
              - id: deny-sudo
                tools: [bash]
                when: string(args.command).startsWith("sudo ")
                action: deny
                message: no sudo
            """
        )
    )
    engine = make_engine(
        {
            "py_review_gate": {  # the seed's quick-start block, verbatim but for paths
                "enabled": True,
                "priority": 100,
                "transport": "stdio",
                "command": [sys.executable, str(REVIEW_GATE)],
                "observe": ["tool_exec_start", "tool_exec_end", "tool_exec_skipped"],
                "intercept": ["before_tool", "approve_tool"],
                "env": {"PICOCLAW_HOOK_LOG_FILE": str(log)},
            }
        },
        packs=[pack],
    )
    # In-process hooks (the pack) run before process hooks, as in PicoClaw.
    assert engine.chain_order("before_tool") == ("pack:no-sudo", "py_review_gate")

    result = engine.run_tool(CALL, lambda call: f"ran {call.args['command']}")
    assert result.for_llm == "ran ls -la"
    denied = engine.run_tool(CALL.replace(args={"command": "sudo rm x"}), lambda c: "ran")
    assert denied.is_error
    assert "no sudo" in denied.for_llm

    assert wait_for(lambda: "event: agent.tool.exec_end" in log.read_text())
    lines = log.read_text().splitlines()
    assert lines[0] == "review_gate started"
    assert lines[1] == "hello: protocol_version=1"
    assert "before_tool: exec" in lines
    assert "approve_tool: exec → allow" in lines
    # The pack denied the sudo call before the process hook was asked.
    assert lines.count("before_tool: exec") == 1
    engine.close()
    assert log.read_text().splitlines()[-1] == "review_gate exiting"


# ------------------------------------------------------------ what is sent


def test_requests_carry_both_dialects_keys(make_engine: MakeEngine, tmp_path: Path) -> None:
    entry, received = scripted(tmp_path, {}, intercept=["before_tool", "approve_tool"])
    engine = make_engine({"gate": entry})
    engine.before_tool(CALL.replace(channel="telegram", chat_id="c-9", agent="main"))

    hello = messages(received, "hook.hello")[0]
    assert hello["jsonrpc"] == "2.0"
    assert hello["id"] == 1
    assert hello["params"] == {
        "name": "gate",
        "version": 1,
        "protocol_version": 1,
        "modes": ["tool", "approve"],
    }
    (before,) = messages(received, "hook.before_tool")
    params = before["params"]
    assert isinstance(before["id"], int)
    assert params["tool"] == params["name"] == "exec"  # the host's own spelling
    assert params["arguments"] == params["args"] == {"command": "ls -la"}
    assert params["meta"] == {"AgentID": "main", "TurnID": "", "SessionKey": "s-1"}
    assert params["context"] == {
        "inbound": {"channel": "telegram", "chat_id": "c-9", "sender_id": "alice"}
    }
    assert (params["channel"], params["chat_id"]) == ("telegram", "c-9")


def test_a_process_is_asked_only_at_the_points_it_intercepts(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    entry, received = scripted(tmp_path, {})  # intercept: [before_tool]
    engine = make_engine({"gate": entry})
    engine.run_tool(CALL, lambda call: "out")
    methods = [m["method"] for m in messages(received)]
    assert methods == ["hook.hello", "hook.before_tool"]


def test_events_go_out_as_notifications_of_the_observed_kinds(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    entry, received = scripted(
        tmp_path, {"hook.hello": {"ok": True, "name": "gate"}}, observe=["tool_exec_end"]
    )
    engine = make_engine({"gate": entry})
    engine.run_tool(CALL, lambda call: "out")
    assert wait_for(lambda: bool(messages(received, "hook.runtime_event")))
    (event,) = messages(received, "hook.runtime_event")
    assert "id" not in event  # a notification: nobody waits for an answer
    assert event["params"]["kind"] == event["params"]["type"] == "agent.tool.exec_end"
    assert event["params"]["payload"]["tool"] == "bash"


# ------------------------------------------------------ what answers mean


@pytest.mark.parametrize(
    ("answer", "action", "reason"),
    [
        ({"action": "deny_tool", "reason": "not today"}, Action.DENY_TOOL, "not today"),
        ({"action": "abort_turn", "reason": "stop"}, Action.ABORT_TURN, "stop"),
        ({"decision": {"action": "deny_tool", "reason": "seed says no"}}, Action.DENY_TOOL, "seed says no"),
        ({"allow": False}, Action.DENY_TOOL, ""),
        ({}, Action.CONTINUE, ""),
        ({"action": "continue", "call": {"tool": "exec", "arguments": {"command": "ls -la"}}}, Action.CONTINUE, ""),
        ({"args": {"command": "ls -la"}}, Action.CONTINUE, ""),
    ],
)
def test_before_tool_answers_in_either_dialect(
    make_engine: MakeEngine, tmp_path: Path, answer: dict[str, Any], action: Action, reason: str
) -> None:
    entry, _ = scripted(tmp_path, {"hook.before_tool": answer})
    decision = make_engine({"gate": entry}).before_tool(CALL)
    assert decision.action is action
    assert decision.reason == reason


def test_a_changed_call_replaces_the_whole_call(make_engine: MakeEngine, tmp_path: Path) -> None:
    answer = {"action": "modify", "call": {"tool": "shell", "arguments": {"command": "ls"}}}
    entry, _ = scripted(tmp_path, {"hook.before_tool": answer})
    call = CALL.replace(args={"command": "ls -la", "timeout": 5})
    decision = make_engine({"gate": entry}).before_tool(call)
    assert decision.action is Action.MODIFY
    assert decision.call is not None
    assert dict(decision.call.args) == {"command": "ls"}  # timeout left out: gone, as upstream
    assert (decision.call.tool, decision.call.tool_raw) == ("bash", "shell")
    assert (decision.call.session, decision.call.sender) == ("s-1", "alice")


def test_the_seeds_args_answer_modifies(make_engine: MakeEngine, tmp_path: Path) -> None:
    entry, _ = scripted(tmp_path, {"hook.before_tool": {"args": {"command": "ls"}}})
    decision = make_engine({"gate": entry}).before_tool(CALL)
    assert decision.action is Action.MODIFY
    assert decision.call is not None
    assert dict(decision.call.args) == {"command": "ls"}


@pytest.mark.parametrize(
    "answer",
    [
        {"action": "respond", "result": {"for_llm": "sunny", "is_error": False}},
        {"decision": {"action": "respond"}, "hook_result": {"for_llm": "sunny"}},
    ],
)
def test_respond_returns_the_hooks_result(
    make_engine: MakeEngine, tmp_path: Path, answer: dict[str, Any]
) -> None:
    entry, _ = scripted(tmp_path, {"hook.before_tool": answer})
    engine = make_engine({"gate": entry})
    result = engine.run_tool(ToolCall(tool="get_weather"), lambda call: "the real tool ran")
    assert result.for_llm == "sunny"
    assert engine.respond_bypasses == 1  # the respond guard flags it, like any respond


@pytest.mark.parametrize(
    ("answer", "approved", "reason"),
    [
        ({"approved": False, "reason": "change freeze"}, False, "change freeze"),
        ({"approved": True}, True, ""),
        ({"allow": False}, False, ""),
        ({"allow": True}, True, ""),
    ],
)
def test_approve_tool_answers_in_either_dialect(
    make_engine: MakeEngine, tmp_path: Path, answer: dict[str, Any], approved: bool, reason: str
) -> None:
    entry, _ = scripted(tmp_path, {"hook.approve_tool": answer}, intercept=["approve_tool"])
    engine = make_engine({"gate": entry})
    assert engine.before_tool(CALL).needs_approval
    answer_ = engine.approve_tool(CALL)
    assert answer_.approved is approved
    assert answer_.reason == reason
    result = engine.run_tool(CALL, lambda call: "ran")
    assert (result.for_llm == "ran") is approved


@pytest.mark.parametrize(
    "answer",
    [
        {"action": "modify", "result": {"tool": "exec", "result": {"for_llm": "[redacted]"}}},
        {"result": {"for_llm": "[redacted]"}},
    ],
)
def test_after_tool_reads_the_envelope_or_the_flat_result(
    make_engine: MakeEngine, tmp_path: Path, answer: dict[str, Any]
) -> None:
    entry, received = scripted(tmp_path, {"hook.after_tool": answer}, intercept=["after_tool"])
    engine = make_engine({"gate": entry})
    result = engine.run_tool(CALL, lambda call: "secret output")
    assert result.for_llm == "[redacted]"
    (sent,) = messages(received, "hook.after_tool")
    assert sent["params"]["result"]["for_llm"] == "secret output"
    assert isinstance(sent["params"]["duration"], int)  # nanoseconds, as Go sends it


def test_llm_request_and_response_can_be_rewritten(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    answers = {
        "hook.before_llm": {"action": "modify", "request": {"model": "small-model"}},
        "hook.after_llm": {"action": "modify", "response": {"response": {"content": "[cut]"}}},
    }
    entry, _ = scripted(tmp_path, answers, intercept=["before_llm", "after_llm"])
    engine = make_engine({"gate": entry})
    before = engine.before_llm(LLMRequest(model="big-model"))
    assert before.action is Action.MODIFY
    assert before.request is not None
    assert before.request.model == "small-model"
    after = engine.after_llm(LLMResponse(model="m", content="the secret is 42"))
    assert after.response is not None
    assert after.response.content == "[cut]"


# ------------------------------------------------------------- failing hooks


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ({"$error": "database down"}, "database down"),
        ({"action": "allow"}, "unknown action 'allow'"),
        ({"$raw": "this is not json"}, "gave no answer"),
        ({"$exit": 3}, "exited with status 3"),
        ({"$sleep": 3}, "gave no answer to hook.before_tool within 400 ms"),
    ],
)
def test_a_hook_that_fails_denies_the_call_by_default(
    make_engine: MakeEngine, tmp_path: Path, answer: dict[str, Any], why: str
) -> None:
    entry, _ = scripted(tmp_path, {"hook.before_tool": answer}, timeout_ms=400)
    decision = make_engine({"gate": entry}).before_tool(CALL)
    assert decision.action is Action.DENY_TOOL
    assert "gate" in decision.reason
    assert why in decision.reason


def test_failure_policy_ignore_lets_the_call_through(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    entry, _ = scripted(
        tmp_path, {"hook.before_tool": {"$error": "boom"}}, failure_policy="ignore"
    )
    decision = make_engine({"gate": entry}).before_tool(CALL)
    assert decision.action is Action.CONTINUE
    assert "boom" in decision.ignored[0]


def test_an_approver_that_fails_denies(make_engine: MakeEngine, tmp_path: Path) -> None:
    entry, _ = scripted(
        tmp_path, {"hook.approve_tool": {"$error": "no reviewer"}}, intercept=["approve_tool"]
    )
    answer = make_engine({"gate": entry}).approve_tool(CALL)
    assert not answer.approved
    assert "no reviewer" in answer.reason


def test_a_dead_process_is_restarted_on_the_next_request(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    entry, received = scripted(tmp_path, {"hook.before_tool": {"action": "deny_tool"}})
    engine = make_engine({"gate": entry})
    process = process_of(engine)
    assert engine.before_tool(CALL).action is Action.DENY_TOOL  # a healthy answer...
    first_pid = process.pid
    assert first_pid is not None
    os.kill(first_pid, 9)  # ...then it dies: no back-off before the first restart
    assert wait_for(lambda: process.pid is None)
    decision = engine.before_tool(CALL)
    assert decision.action is Action.DENY_TOOL  # answered by the new process
    assert process.starts == 2
    assert process.pid not in (None, first_pid)
    assert len(messages(received, "hook.hello")) == 2


def test_a_crashing_hook_is_not_restarted_in_a_loop(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    entry, received = scripted(
        tmp_path, {"hook.before_tool": {"$exit": 1}}, restart_backoff_ms=60_000
    )
    engine = make_engine({"gate": entry})
    first = engine.before_tool(CALL)
    assert "exited with status 1" in first.reason
    second = engine.before_tool(CALL)
    assert second.action is Action.DENY_TOOL
    assert "is down; next start in" in second.reason
    assert len(messages(received, "hook.hello")) == 1


def test_modify_without_a_payload_is_a_failure(make_engine: MakeEngine, tmp_path: Path) -> None:
    entry, _ = scripted(tmp_path, {"hook.before_tool": {"action": "modify"}})
    decision = make_engine({"gate": entry}).before_tool(CALL)
    assert decision.action is Action.DENY_TOOL
    assert "modify without a call" in decision.reason


def test_the_seeds_hook_result_rewrites_a_tool_result(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    answer = {"decision": {"action": "modify"}, "hook_result": {"for_llm": "[REDACTED]"}}
    entry, _ = scripted(tmp_path, {"hook.after_tool": answer}, intercept=["after_tool"])
    result = make_engine({"gate": entry}).run_tool(CALL, lambda call: "AWS_SECRET=abc")
    assert result.for_llm == "[REDACTED]"


def closes_in_time(engine: Engine) -> bool:
    """engine.close() returns (a hang detector, not a timing measurement)."""
    closer = threading.Thread(target=engine.close, daemon=True)
    closer.start()
    closer.join(15)
    return not closer.is_alive()


def test_a_hook_that_stops_reading_costs_one_budget_not_a_hang(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    deaf = tmp_path / "deaf.py"
    deaf.write_text(
        textwrap.dedent(
            """\
            import json, sys, time
            line = sys.stdin.readline()
            print(json.dumps({"jsonrpc": "2.0", "id": json.loads(line)["id"], "result": {}}), flush=True)
            time.sleep(60)  # never reads again
            """
        )
    )
    entry = {
        "enabled": True,
        "command": [sys.executable, str(deaf)],
        "intercept": ["before_tool"],
        "timeout_ms": 500,
        "restart_backoff_ms": 60_000,
    }
    engine = make_engine({"gate": entry})
    big = CALL.replace(args={"command": "echo " + "x" * 300_000})  # more than a pipe holds
    decision = engine.before_tool(big)
    assert decision.action is Action.DENY_TOOL
    assert "stopped reading its input; killed" in decision.reason
    assert closes_in_time(engine)


def test_a_crash_is_seen_even_when_a_grandchild_holds_stdout(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    crashy = tmp_path / "crashy.py"
    crashy.write_text(
        textwrap.dedent(
            """\
            import json, os, subprocess, sys
            # A helper in its own session, holding our stdout open after we die.
            subprocess.Popen(["sleep", "5"], start_new_session=True)
            calls = 0
            for line in sys.stdin:
                message = json.loads(line)
                if message["method"] == "hook.before_tool":
                    calls += 1
                    if calls == 2:
                        os._exit(3)
                reply = {"jsonrpc": "2.0", "id": message["id"], "result": {}}
                print(json.dumps(reply), flush=True)
            """
        )
    )
    entry = {
        "enabled": True,
        "command": [sys.executable, str(crashy)],
        "intercept": ["before_tool"],
        "timeout_ms": 10_000,
    }
    engine = make_engine({"gate": entry})
    process = process_of(engine)
    assert engine.before_tool(CALL).action is Action.CONTINUE
    crashed = engine.before_tool(CALL)
    assert crashed.action is Action.DENY_TOOL
    assert "exited with status 3" in crashed.reason  # not "gave no answer ... 10000 ms"
    assert engine.before_tool(CALL).action is Action.CONTINUE  # restarted at once
    assert process.starts == 2
    assert closes_in_time(engine)


def test_a_hook_slower_to_start_than_a_call_budget_still_comes_back_after_a_crash(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    """The hello of a restart gets the whole start budget, not the caller's 300 ms;
    cut to the caller's, this hook would be killed at every restart, for good."""
    slow = tmp_path / "slow.py"
    marker = tmp_path / "crashed-once"
    slow.write_text(
        textwrap.dedent(
            f"""\
            import json, os, sys, time
            time.sleep(0.6)  # a slow start: imports, a model, a connection
            for line in sys.stdin:
                message = json.loads(line)
                if message["method"] == "hook.before_tool" and not os.path.exists({str(marker)!r}):
                    open({str(marker)!r}, "w").close()
                    os._exit(1)
                reply = {{"jsonrpc": "2.0", "id": message["id"], "result": {{"action": "deny_tool"}}}}
                print(json.dumps(reply), flush=True)
            """
        )
    )
    entry = {
        "enabled": True,
        "command": [sys.executable, str(slow)],
        "intercept": ["before_tool"],
        "timeout_ms": 300,
        "restart_backoff_ms": 50,
    }
    engine = make_engine({"gate": entry})
    assert "exited with status 1" in engine.before_tool(CALL).reason
    # The next calls may meet the back-off or the restart; then the hook answers again.
    assert wait_for(lambda: engine.before_tool(CALL).reason == "", seconds=10)
    assert process_of(engine).starts == 2


def test_what_a_dead_hook_left_in_its_process_group_is_killed(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    pid_file = tmp_path / "helper.pid"
    leaver = tmp_path / "leaver.py"
    leaver.write_text(
        textwrap.dedent(
            f"""\
            import json, os, subprocess, sys
            helper = subprocess.Popen(["sleep", "30"])  # same process group, our stdout
            open({str(pid_file)!r}, "w").write(str(helper.pid))
            for line in sys.stdin:
                message = json.loads(line)
                if message["method"] == "hook.before_tool":
                    os._exit(3)
                print(json.dumps({{"jsonrpc": "2.0", "id": message["id"], "result": {{}}}}), flush=True)
            """
        )
    )
    entry = {"enabled": True, "command": [sys.executable, str(leaver)], "intercept": ["before_tool"]}
    engine = make_engine({"gate": entry})
    assert "exited with status 3" in engine.before_tool(CALL).reason
    helper = int(pid_file.read_text())
    assert wait_for(lambda: not alive(helper) or _zombie(helper))


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1].startswith("Z")
    except (OSError, IndexError):
        return True


# ------------------------------------------------------------ start and close


def test_a_process_that_cannot_start_stops_the_engine(tmp_path: Path) -> None:
    entry = {"enabled": True, "command": [str(tmp_path / "missing")], "intercept": ["before_tool"]}
    with pytest.raises(SettingsError, match=r"hooks\.processes\.gate: .*cannot start"):
        Engine(Settings(hooks={"processes": {"gate": entry}}))


def test_a_process_that_refuses_hello_stops_the_engine(tmp_path: Path) -> None:
    entry, _ = scripted(tmp_path, {"hook.hello": {"$error": "wrong version"}})
    with pytest.raises(SettingsError, match="wrong version"):
        Engine(Settings(hooks={"processes": {"gate": entry}}))


def test_a_process_that_never_says_hello_stops_the_engine(tmp_path: Path) -> None:
    mute = tmp_path / "mute.py"
    mute.write_text("import sys, time\nsys.stdin.readline()\ntime.sleep(30)\n")
    entry = {
        "enabled": True,
        "command": [sys.executable, str(mute)],
        "intercept": ["before_tool"],
        "start_timeout_ms": 300,
    }
    with pytest.raises(SettingsError, match=r"no answer to hook\.hello within 300 ms"):
        Engine(Settings(hooks={"processes": {"gate": entry}}))


def test_a_process_whose_name_clashes_is_stopped_with_the_engine(tmp_path: Path) -> None:
    pack = tmp_path / "baseline.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: baseline\nrules:\n"
        "  - {id: r, tools: [bash], action: deny}\n"
    )
    entry, received = scripted(tmp_path, {})
    with pytest.raises(HookRegistrationError, match="pack:baseline"):
        Engine(Settings(packs=[pack], hooks={"processes": {"pack:baseline": entry}}))
    pid = int(Path(f"{received}.pid").read_text())
    assert wait_for(lambda: not alive(pid))


def test_a_disabled_process_does_not_start(make_engine: MakeEngine, tmp_path: Path) -> None:
    entry, received = scripted(tmp_path, {}, enabled=False)
    engine = make_engine({"gate": entry})
    assert engine.chain_order("before_tool") == ()
    assert not received.exists()


def test_close_ends_the_process(make_engine: MakeEngine, tmp_path: Path) -> None:
    entry, _ = scripted(tmp_path, {})
    engine = make_engine({"gate": entry})
    pid = process_of(engine).pid
    assert pid is not None
    engine.close()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.slow
def test_close_kills_a_process_that_ignores_end_of_input(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    stubborn = tmp_path / "stubborn.py"
    stubborn.write_text(
        textwrap.dedent(
            """\
            import json, signal, sys, time
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            line = sys.stdin.readline()
            print(json.dumps({"jsonrpc": "2.0", "id": json.loads(line)["id"], "result": {}}), flush=True)
            while True:
                time.sleep(1)
            """
        )
    )
    entry = {"enabled": True, "command": [sys.executable, str(stubborn)], "intercept": ["before_tool"]}
    engine = make_engine({"gate": entry})
    pid = process_of(engine).pid
    assert pid is not None
    engine.close()  # stdin closed, 2 s grace, then SIGKILL to the process group
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"enabled": True, "intercept": ["before_tool"]}, "needs a command"),
        ({"enabled": True, "command": ["x"]}, "needs intercept or observe"),
        ({"enabled": True, "command": ["x"], "observe": ["tool_exec_begin"]}, "unknown observe event"),
        ({"enabled": True, "command": ["x"], "intercept": ["before_tools"]}, "intercept.0"),
        ({"enabled": True, "command": ["x"], "transport": "http", "intercept": ["before_tool"]}, "transport"),
    ],
)
def test_bad_process_settings_are_named(entry: dict[str, Any], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        Settings(hooks={"processes": {"gate": entry}})


def test_a_settings_file_error_points_at_its_line(tmp_path: Path) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text(
        textwrap.dedent(
            """\
            hooks:
              processes:
                gate:
                  enabled: true
                  command: [python3, gate.py]
                  intercept: [before_tool, on_tool]
            """
        )
    )
    with pytest.raises(SettingsError, match=r"policy\.yaml:6:\d+: hooks\.processes\.gate\.intercept\.1"):
        Settings(config)


def test_results_from_a_process_hook_are_plain_tool_results(
    make_engine: MakeEngine, tmp_path: Path
) -> None:
    entry, _ = scripted(
        tmp_path,
        {"hook.before_tool": {"action": "respond", "result": {"for_llm": "x", "silent": True}}},
    )
    decision = make_engine({"gate": entry}).before_tool(CALL)
    assert decision.result == ToolResult(for_llm="x", silent=True)
