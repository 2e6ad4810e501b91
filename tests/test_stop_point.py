"""The `stop` hook point: the agent is about to end its turn (Claude Code's Stop and
SubagentStop). A hook lets it stop (`continue`), keeps it going with an instruction
(`modify` with `stop.instruction`), or ends the turn with an error (`abort_turn`).

What Claude Code does with a Stop hook's answer was settled by running it (2.1.197 and
2.1.332): `decision: "block"` + `reason`, or exit 2 + stderr, hands the text to the
model as its next message and the turn goes on, the next Stop then carrying
`stop_hook_active: true`; `continue: false` ends the turn and wins over a block; any
other exit status is a "non-blocking error" and the turn ends.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Action, Decision, Engine, Settings, Stop, ToolCall, on_stop

POLICY = str(Path(sys.executable).with_name("policy"))

PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: finish
rules:
  - id: tests-before-done
    on: stop
    when: "!stop.continued && !stop.message.contains('tests pass')"
    action: modify
    set:
      stop.instruction: "'Run the test suite, and stop only once the tests pass.'"
    message: the agent stopped without showing passing tests
  - id: no-key-in-summary
    on: stop
    when: stop.message.contains('PRIVATE KEY')
    action: abort_turn
    message: the final message holds a private key
"""


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    path = tmp_path / "packs" / "finish.yaml"
    path.parent.mkdir()
    path.write_text(PACK)
    return path


@pytest.fixture
def engine(pack: Path, tmp_path: Path) -> Iterator[Engine]:
    with Engine(Settings(packs=[pack], audit_path=tmp_path / "decisions.log")) as eng:
        yield eng


def decide(engine: Engine, stop: Stop) -> Decision:
    decision = engine.decide_at("stop", stop)
    assert isinstance(decision, Decision)
    return decision


# ------------------------------------------------------------------ rules at stop


def test_a_rule_keeps_the_agent_going_with_its_instruction(engine: Engine) -> None:
    decision = decide(engine, Stop(message="All done.", session="s1"))
    assert decision.action is Action.MODIFY
    assert decision.rule_ids == ("finish/tests-before-done",)
    assert decision.stop is not None
    assert decision.stop.instruction == "Run the test suite, and stop only once the tests pass."
    assert decision.stop.session == "s1"  # who and where stay the host's


def test_the_second_stop_is_let_through_and_a_clean_one_too(engine: Engine) -> None:
    # `stop.continued`: the agent already went on once because a stop hook asked.
    again = decide(engine, Stop(message="All done.", continued=True))
    assert again.action is Action.CONTINUE
    clean = decide(engine, Stop(message="Fixed it; the tests pass."))
    assert clean.action is Action.CONTINUE
    assert clean.stop is not None and clean.stop.instruction == ""


def test_abort_turn_at_stop_ends_the_turn_with_the_reason(engine: Engine) -> None:
    decision = decide(engine, Stop(message="here: -----BEGIN PRIVATE KEY-----"))
    assert (decision.action, decision.reason) == (
        Action.ABORT_TURN,
        "the final message holds a private key",
    )


def test_a_rule_at_stop_may_not_deny_a_tool(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(PACK.replace("action: abort_turn", "action: deny"))
    done = subprocess.run([POLICY, "check", str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "deny" in done.stdout + done.stderr
    assert "stop" in done.stdout + done.stderr


# ------------------------------------------------------------------ code hooks


def test_a_code_hook_joins_with_on_stop_and_a_lifecycle_stop_method_does_not(
    tmp_path: Path,
) -> None:
    @on_stop
    def insist(stop: Stop) -> Decision | None:
        if "TODO" in stop.message:
            return Decision(
                Action.MODIFY, "open TODOs", stop=stop.replace(instruction="Finish the TODOs.")
            )
        return None

    class Server:  # a hook that also has a `stop()` of its own, for its own threads
        name = "server"

        def before_tool(self, call: Any) -> None:
            return None

        def stop(self) -> None:
            raise AssertionError("a lifecycle stop() is no stop hook")

    with Engine(Settings(audit_path=tmp_path / "d.log")) as engine:
        engine.register(insist)
        engine.register(Server())
        assert list(engine.chain_order("stop")) == ["insist"]
        decision = decide(engine, Stop(message="Done, 2 TODOs left."))
        assert decision.stop is not None and decision.stop.instruction == "Finish the TODOs."
        assert decide(engine, Stop(message="Done.")).action is Action.CONTINUE


# ------------------------------------------------------------------ policy eval / test


def test_policy_eval_takes_the_stop_at_point_stop(pack: Path) -> None:
    done = subprocess.run(
        [
            POLICY,
            "eval",
            "--packs",
            str(pack),
            "--point",
            "stop",
            "--audit-log",
            os.devnull,
            '{"message": "All done.", "session": "s1"}',
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["point"] == "stop"
    assert answer["action"] == "modify"
    assert answer["stop"]["instruction"].startswith("Run the test suite")


def test_pack_tests_give_the_stop_by_its_part_name(pack: Path, tmp_path: Path) -> None:
    tests = pack.with_name("finish_test.yaml")
    tests.write_text(
        "apiVersion: hookpolicy/v1\nkind: PackTests\npack: finish\ntests:\n"
        "  - name: done without tests goes on\n    on: stop\n"
        "    stop: {message: All done.}\n"
        "    expect: {action: modify, rule: tests-before-done}\n"
        "  - name: a second stop ends the turn\n    on: stop\n"
        "    stop: {message: All done., continued: true}\n"
        "    expect: {action: continue}\n"
    )
    done = subprocess.run(
        [POLICY, "test", str(pack.parent)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------ hosted Stop hooks


def script(path: Path, body: str) -> str:
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def hooks_file(tmp_path: Path, **events: list[str]) -> Path:
    """A project's .claude/settings.json with one command hook per command."""
    path = tmp_path / "project" / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {
        event: [{"hooks": [{"type": "command", "command": c} for c in commands]}]
        for event, commands in events.items()
    }
    path.write_text(json.dumps({"hooks": document}))
    return path


def hosted(tmp_path: Path, path: Path) -> Engine:
    return Engine(Settings(claude_hooks=[path], audit_path=tmp_path / "d.log"))


def test_a_hosted_stop_hook_that_blocks_makes_its_reason_the_next_instruction(
    tmp_path: Path,
) -> None:
    # The common shape of published Stop hooks: block once, let the second stop through.
    gate = script(
        tmp_path / "gate.sh",
        'input=$(cat)\nprintf "%s" "$input" > "$CLAUDE_PROJECT_DIR/seen.json"\n'
        'case "$input" in *\'"stop_hook_active": true\'*) exit 0 ;; esac\n'
        'echo \'{"decision": "block", "reason": "Run the tests before you stop."}\'\n',
    )
    with hosted(tmp_path, hooks_file(tmp_path, Stop=[gate])) as engine:
        decision = decide(engine, Stop(message="All done.", session="s1"))
        assert decision.action is Action.MODIFY
        assert decision.stop is not None
        assert decision.stop.instruction == "Run the tests before you stop."
        seen = json.loads((tmp_path / "project" / "seen.json").read_text())
        assert seen["hook_event_name"] == "Stop"
        assert (seen["stop_hook_active"], seen["last_assistant_message"]) == (False, "All done.")
        assert decide(engine, Stop(message="ok", continued=True)).action is Action.CONTINUE


def test_a_hosted_stop_hook_that_says_nothing_lets_the_agent_stop(tmp_path: Path) -> None:
    quiet = script(tmp_path / "quiet.sh", "cat > /dev/null\nexit 0\n")
    with hosted(tmp_path, hooks_file(tmp_path, Stop=[quiet])) as engine:
        decision = decide(engine, Stop(message="All done."))
        assert decision.action is Action.CONTINUE
        assert decision.stop is not None and decision.stop.instruction == ""


def test_exit_2_blocks_with_stderr_and_two_hooks_add_up(tmp_path: Path) -> None:
    first = script(
        tmp_path / "lint.sh", "cat > /dev/null\necho 'Fix the lint errors.' >&2\nexit 2\n"
    )
    second = script(
        tmp_path / "docs.sh",
        'cat > /dev/null\necho \'{"decision": "block", "reason": "Update the docs."}\'\n',
    )
    with hosted(tmp_path, hooks_file(tmp_path, Stop=[first, second])) as engine:
        decision = decide(engine, Stop(message="All done."))
        assert decision.stop is not None
        assert decision.stop.instruction == "Fix the lint errors.\nUpdate the docs."


def test_continue_false_ends_the_turn_even_beside_a_block(tmp_path: Path) -> None:
    both = script(
        tmp_path / "both.sh",
        'cat > /dev/null\necho \'{"decision": "block", "reason": "more", '
        '"continue": false, "stopReason": "budget spent"}\'\n',
    )
    with hosted(tmp_path, hooks_file(tmp_path, Stop=[both])) as engine:
        decision = decide(engine, Stop(message="All done."))
        assert (decision.action, decision.reason) == (Action.ABORT_TURN, "budget spent")


def test_a_crashing_stop_hook_is_a_failure_that_ends_the_turn(tmp_path: Path) -> None:
    crash = script(tmp_path / "crash.sh", "cat > /dev/null\necho 'Traceback: boom' >&2\nexit 1\n")
    with hosted(tmp_path, hooks_file(tmp_path, Stop=[crash])) as engine:
        decision = decide(engine, Stop(message="All done."))
        assert decision.action is Action.ABORT_TURN  # never "keep going"
        assert "exited 1" in decision.reason and "boom" in decision.reason


def test_subagent_stop_hooks_run_for_a_subagent_and_stop_hooks_for_the_turn(
    tmp_path: Path,
) -> None:
    main = script(tmp_path / "main.sh", "cat > /dev/null\necho main >&2\nexit 2\n")
    sub = script(
        tmp_path / "sub.sh",
        'cat > "$CLAUDE_PROJECT_DIR/sub.json"\necho sub >&2\nexit 2\n',
    )
    with hosted(tmp_path, hooks_file(tmp_path, Stop=[main], SubagentStop=[sub])) as engine:
        turn = decide(engine, Stop(message="All done."))
        assert turn.stop is not None and turn.stop.instruction == "main"
        subagent = decide(engine, Stop(message="found it", subagent="Explore", agent="a1"))
        assert subagent.stop is not None and subagent.stop.instruction == "sub"
    seen = json.loads((tmp_path / "project" / "sub.json").read_text())
    assert seen["hook_event_name"] == "SubagentStop"
    assert (seen["agent_id"], seen["agent_type"]) == ("a1", "Explore")


# ------------------------------------------------------------------ policy hook claude


def stop_payload(**fields: Any) -> dict[str, Any]:
    """What Claude Code 2.1.332 sends a Stop hook (captured by running it)."""
    return {
        "session_id": "7b3eebfd",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "prompt_id": "caa06c49",
        "permission_mode": "default",
        "effort": {"level": "medium"},
        "hook_event_name": "Stop",
        "stop_hook_active": False,
        "last_assistant_message": "All done.",
        "background_tasks": [],
        "session_crons": [],
        **fields,
    }


def hook(payload: Any, *options: str) -> Any:
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    done = subprocess.run(
        [POLICY, "hook", "claude", *options],
        input=orjson.dumps(payload),
        capture_output=True,
        env=clean,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout) if done.stdout.strip() else None


def test_policy_hook_claude_answers_stop_as_claude_code_reads_it(pack: Path) -> None:
    packs = ("--packs", str(pack))
    assert hook(stop_payload(), *packs) == {
        "decision": "block",
        "reason": "Run the test suite, and stop only once the tests pass.",
    }
    assert hook(stop_payload(stop_hook_active=True), *packs) is None  # it may stop now
    leaked = stop_payload(last_assistant_message="-----BEGIN PRIVATE KEY-----")
    assert hook(leaked, *packs) == {
        "continue": False,
        "stopReason": "the final message holds a private key",
    }
    # A payload it cannot read ends the turn: refusing at stop never keeps it going.
    answer = hook(stop_payload(stop_hook_active="yes"), *packs)
    assert answer["continue"] is False
    assert "stop_hook_active must be true or false" in answer["stopReason"]


def test_policy_hook_claude_runs_a_hosted_stop_hook(tmp_path: Path) -> None:
    gate = script(
        tmp_path / "gate.sh",
        'cat > /dev/null\necho \'{"decision": "block", "reason": "Not yet."}\'\n',
    )
    config = tmp_path / "hookpolicy.yaml"
    config.write_text(
        f"claude_hooks: [{hooks_file(tmp_path, Stop=[gate])}]\naudit_path: {tmp_path / 'd.log'}\n"
    )
    assert hook(stop_payload(), "--config", str(config)) == {
        "decision": "block",
        "reason": "Not yet.",
    }


def test_a_stop_hook_we_cannot_run_is_skipped_and_the_files_guards_still_guard(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A `prompt` (LLM) hook at Stop: not running it only lets the agent stop sooner,
    so it is skipped with the file's warning rather than refusing the file — whose
    PreToolUse guard would then be dropped too."""
    guard = script(tmp_path / "guard.sh", "echo no rm >&2; exit 2")
    path = tmp_path / "hooks.json"
    path.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": guard}]}
                    ],
                    "Stop": [{"hooks": [{"type": "prompt", "prompt": "Is the work done?"}]}],
                }
            }
        )
    )
    with caplog.at_level("WARNING", logger="policy.hosted"):
        engine = hosted(tmp_path, path)
    try:
        refused = engine.before_tool(ToolCall(tool="Bash", args={"command": "rm -rf x"}))
    finally:
        engine.close()
    assert refused.action is Action.DENY_TOOL and "no rm" in refused.reason
    assert "not run: hooks.Stop[0].hooks[0] (a 'prompt' hook" in caplog.text


def test_policy_check_warns_of_a_stop_rule_that_would_never_let_the_agent_stop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from policy.cli import main

    pack = tmp_path / "s.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: s\nrules:\n"
        "  - id: forever\n    on: stop\n    when: \"!stop.message.contains('done')\"\n"
        "    action: modify\n    set: {stop.instruction: \"'keep going'\"}\n"
        "  - id: once\n    on: stop\n"
        "    when: \"!stop.continued && !stop.message.contains('done')\"\n"
        "    action: modify\n    set: {stop.instruction: \"'keep going'\"}\n"
    )
    assert main(["check", str(pack)]) == 0
    out = capsys.readouterr().out
    assert "rule 'forever' keeps the agent going at every stop" in out
    assert "rule 'once'" not in out
