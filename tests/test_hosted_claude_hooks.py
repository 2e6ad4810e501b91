"""Claude Code and Agentao hooks.json files run inside the chain (`claude_hooks`).

Each test writes a real hooks file and small hook scripts to tmp_path, builds a real
Engine on them, and asks it about calls the way a host adapter would. What the
scripts see on stdin and what their exit codes and JSON do follow the hosts:
Claude Code for the nested shape, Agentao 0.5.17 for its flat shape.
"""

from __future__ import annotations

import json
import logging
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from policy import Action, Engine, ToolCall
from policy.errors import SettingsError, TurnAborted
from policy.model import Prompt, ToolResult
from policy.settings import Settings

Build = Callable[..., Engine]


@pytest.fixture
def build(tmp_path: Path, audit_log: Path) -> Iterator[Build]:
    """`build(hooks_document, **settings)`: write it as hooks.json, return an engine on it."""
    engines: list[Engine] = []

    def make(document: Any, **settings: Any) -> Engine:
        path = tmp_path / "hooks.json"
        path.write_text(json.dumps(document, indent=2))
        engine = Engine(Settings(claude_hooks=[path], audit_path=audit_log, **settings))
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


def script(tmp_path: Path, name: str, body: str = "", *, save: bool = False) -> str:
    """A Python hook script in tmp_path; returns the command line that runs it.
    With `save`, the script first keeps its stdin payload for `saved()` to read."""
    path = tmp_path / f"{name}.py"
    keep = save_stdin(tmp_path) if save else ""
    path.write_text("import json, os, sys\n" + keep + textwrap.dedent(body))
    return f"{sys.executable} {path}"


def claude(event: str, command: str, matcher: str | None = "*", **handler: Any) -> Any:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **handler}]}
    if matcher is not None:
        group["matcher"] = matcher
    return {"hooks": {event: [group]}}


def agentao(event: str, command: str, **handler: Any) -> Any:
    return {"hooks": {event: [{"type": "command", "command": command, **handler}]}}


def bash(command: str, **context: Any) -> ToolCall:
    return ToolCall(tool="Bash", args={"command": command}, **context)


def saved(tmp_path: Path) -> Any:
    return json.loads((tmp_path / "payload.json").read_text())


def save_stdin(tmp_path: Path) -> str:
    """Script lines that keep the payload where the test can read it."""
    target = str(tmp_path / "payload.json")
    return f"payload = json.load(sys.stdin)\nopen({target!r}, 'w').write(json.dumps(payload))\n"


# ------------------------------------------------------------- Claude Code: PreToolUse


def test_a_command_that_exits_2_blocks_the_call_with_its_stderr_as_the_reason(
    build: Build, tmp_path: Path
) -> None:
    guard = script(
        tmp_path,
        "guard",
        """
        call = json.load(sys.stdin)
        if "rm -rf" in call["tool_input"]["command"]:
            print("recursive delete is not allowed", file=sys.stderr)
            sys.exit(2)
        """,
    )
    engine = build(claude("PreToolUse", guard, matcher="Bash"))

    denied = engine.before_tool(bash("rm -rf /srv"))
    assert denied.action is Action.DENY_TOOL
    assert denied.reason == "recursive delete is not allowed"
    assert denied.hook == "claude:" + str(tmp_path / "hooks.json") + ":PreToolUse[0].hooks[0]"
    assert engine.before_tool(bash("ls")).action is Action.CONTINUE

    ran: list[ToolCall] = []
    result = engine.run_tool(bash("rm -rf /srv"), lambda call: ran.append(call) or "done")
    assert ran == []
    assert result.is_error
    assert result.for_llm == "Tool execution denied by hook: recursive delete is not allowed"


def test_permission_decision_ask_marks_the_call_as_needing_approval(
    build: Build, tmp_path: Path
) -> None:
    ask = script(
        tmp_path,
        "ask",
        """
        print(json.dumps({"hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "ask",
            "permissionDecisionReason": "deploys need a second pair of eyes"}}))
        """,
    )
    engine = build(claude("PreToolUse", ask, matcher="Bash"))

    decision = engine.before_tool(bash("./deploy.sh"))
    assert decision.action is Action.CONTINUE
    assert decision.needs_approval
    assert decision.reason == "deploys need a second pair of eyes"
    # Nobody can approve it here, so running it is refused rather than waved through.
    result = engine.run_tool(bash("./deploy.sh"), lambda call: "deployed")
    assert result.is_error
    assert "no approver covers" in result.for_llm


def test_permission_decision_deny_blocks_with_its_reason(build: Build, tmp_path: Path) -> None:
    deny = script(
        tmp_path,
        "deny",
        """
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": "no network tools"}}))
        """,
    )
    engine = build(claude("PreToolUse", deny, matcher="WebFetch"))
    decision = engine.before_tool(ToolCall(tool="WebFetch", args={"url": "https://x.test"}))
    assert decision.action is Action.DENY_TOOL
    assert decision.reason == "no network tools"


def test_allow_with_updated_input_replaces_the_whole_input(build: Build, tmp_path: Path) -> None:
    rewrite = script(
        tmp_path,
        "rewrite",
        """
        call = json.load(sys.stdin)
        command = call["tool_input"]["command"].replace("grep", "rg")
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "allow", "updatedInput": {"command": command}}}))
        """,
    )
    engine = build(claude("PreToolUse", rewrite, matcher="Bash"))
    call = ToolCall(tool="Bash", args={"command": "grep -r TODO .", "timeout": 5000})

    decision = engine.before_tool(call)
    assert decision.action is Action.MODIFY
    assert decision.call is not None
    assert dict(decision.call.args) == {"command": "rg -r TODO ."}  # `timeout` is gone
    assert not decision.needs_approval

    ran: list[dict[str, Any]] = []
    engine.run_tool(call, lambda call: ran.append(dict(call.args)) or "ok")
    assert ran == [{"command": "rg -r TODO ."}]


def test_continue_false_ends_the_turn_with_the_stop_reason(build: Build, tmp_path: Path) -> None:
    stop = script(
        tmp_path,
        "stop",
        'print(json.dumps({"continue": False, "stopReason": "budget exhausted"}))\n',
    )
    engine = build(claude("PreToolUse", stop))
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.ABORT_TURN
    assert decision.reason == "budget exhausted"
    with pytest.raises(TurnAborted, match="budget exhausted"):
        engine.run_tool(bash("ls"), lambda call: "listed")


def test_the_payload_is_claude_codes_snake_case_one(build: Build, tmp_path: Path) -> None:
    capture = script(tmp_path, "capture", save=True)
    engine = build(claude("PreToolUse", capture))
    engine.before_tool(bash("ls", session="s-1", cwd=str(tmp_path), call_id="toolu_7"))
    assert saved(tmp_path) == {
        "session_id": "s-1",
        "transcript_path": None,
        "cwd": str(tmp_path),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls"},
        "tool_use_id": "toolu_7",
    }


def test_the_command_runs_through_the_shell_in_the_hooks_files_project(
    build: Build, tmp_path: Path
) -> None:
    """Where it runs, and `$CLAUDE_PROJECT_DIR`, come from the operator's hooks file;
    the call's own cwd only travels in the payload."""
    work = tmp_path / "elsewhere"
    work.mkdir()
    engine = build(
        claude(
            "PreToolUse",
            'echo "$PWD|$CLAUDE_PROJECT_DIR|$(python3 -c \'import json,sys;'
            'print(json.load(sys.stdin)["cwd"])\')" > where.txt',
        )
    )
    engine.before_tool(bash("ls", cwd=str(work)))
    (written,) = tmp_path.rglob("where.txt")
    project = str(written.parent)
    assert written.read_text().strip() == f"{project}|{project}|{work}"
    assert not (work / "where.txt").exists()


def test_an_agent_cannot_choose_which_guard_runs_through_its_cwd(
    build: Build, tmp_path: Path
) -> None:
    """`"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh` is the usual way to name a guard;
    a call from a directory holding a guard of the agent's own must not run that one."""
    decoy = tmp_path / "agent-workspace"
    (decoy / ".claude" / "hooks").mkdir(parents=True)
    guard = decoy / ".claude" / "hooks" / "guard.sh"
    guard.write_text("#!/bin/sh\ncat > /dev/null\nexit 0\n")
    guard.chmod(0o755)
    engine = build(claude("PreToolUse", '"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh'))
    decision = engine.before_tool(bash("rm -rf ~", cwd=str(decoy)))
    assert decision.action is Action.DENY_TOOL  # the operator's project has no such guard:
    assert "guard.sh" in decision.reason  # the command cannot start, and that denies


def test_args_run_the_command_without_a_shell_with_placeholders_filled_in(
    build: Build, tmp_path: Path
) -> None:
    record = tmp_path / "record.py"
    record.write_text("import sys\nopen('argv.txt', 'w').write(repr(sys.argv[1:]))\n")
    engine = build(
        claude(
            "PreToolUse",
            sys.executable,
            args=[str(record), "${CLAUDE_PROJECT_DIR}", "$HOME; rm -rf ~"],
        )
    )
    engine.before_tool(bash("ls", cwd=str(tmp_path)))
    assert (tmp_path / "argv.txt").read_text() == repr([str(tmp_path), "$HOME; rm -rf ~"])


def test_a_guard_that_crashes_is_a_hook_failure_and_denies_where_claude_code_would_run_it(
    build: Build, tmp_path: Path
) -> None:
    # The guard's bug (a key it expected is missing) must not wave the call through.
    buggy = script(
        tmp_path,
        "buggy",
        """
        call = json.load(sys.stdin)
        if "rm -rf" in call["tool_input"]["cmd"]:
            sys.exit(2)
        """,
    )
    engine = build(claude("PreToolUse", buggy, matcher="Bash"))
    decision = engine.before_tool(bash("rm -rf ~"))
    assert decision.action is Action.DENY_TOOL
    assert decision.failure == "error"
    hook = "claude:" + str(tmp_path / "hooks.json") + ":PreToolUse[0].hooks[0]"
    assert f"hook {hook!r} failed" in decision.reason
    assert "exited 1 at PreToolUse" in decision.reason
    # stderr's first line and, for a traceback, its last, which names the error
    assert "Traceback (most recent call last): … KeyError: 'cmd'" in decision.reason

    ran: list[ToolCall] = []
    result = engine.run_tool(bash("rm -rf ~"), lambda call: ran.append(call) or "gone")
    assert ran == []
    assert result.is_error


@pytest.mark.parametrize(
    ("command", "status"),
    [
        ("echo 'oops, a bug' >&2; exit 1", "exited 1"),
        ("echo 'oops, a bug' >&2; exit 3", "exited 3"),
        ("echo 'oops, a bug' >&2; kill -KILL $$", "killed by signal 9"),
    ],
)
def test_any_exit_but_0_and_2_at_pre_tool_use_goes_to_the_failure_policy(
    build: Build, command: str, status: str
) -> None:
    denied = build(claude("PreToolUse", command)).before_tool(bash("ls"))
    assert denied.action is Action.DENY_TOOL
    assert status in denied.reason
    assert "oops, a bug" in denied.reason

    # Only an operator's explicit `ignore` lets it through, and the decision says why.
    skipped = build(claude("PreToolUse", command), failure_policy="ignore").before_tool(bash("ls"))
    assert skipped.action is Action.CONTINUE
    assert any(status in why and "oops, a bug" in why for why in skipped.ignored)


def test_a_json_verdict_that_does_not_parse_is_a_failure_not_plain_text(
    build: Build, tmp_path: Path
) -> None:
    # A deny with a missing brace: Claude Code would read it as text and run the call.
    truncated = script(
        tmp_path,
        "truncated",
        """
        print('{"hookSpecificOutput": {"hookEventName": "PreToolUse",'
              ' "permissionDecision": "deny"}')
        """,
    )
    engine = build(claude("PreToolUse", truncated))
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert decision.failure == "error"
    assert "starts like a JSON verdict but is not JSON" in decision.reason


def test_output_that_is_not_json_is_ignored_like_claude_code_and_warns(
    build: Build, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    engine = build(claude("PreToolUse", "echo 'checking...'"))
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        assert engine.before_tool(bash("ls")).action is Action.CONTINUE
    assert "not a JSON object" in caplog.text


def test_an_unknown_permission_decision_is_a_hook_failure_and_denies(
    build: Build, tmp_path: Path
) -> None:
    typo = script(
        tmp_path,
        "typo",
        """
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "block"}}))
        """,
    )
    engine = build(claude("PreToolUse", typo))
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert "permissionDecision" in decision.reason
    assert decision.failure == "error"


# ------------------------------------------------------------------------- failures


def test_a_command_that_times_out_is_killed_and_denies_under_the_default_policy(
    build: Build, tmp_path: Path
) -> None:
    # The script leaves a grandchild behind in its process group; both must die.
    hang = script(
        tmp_path,
        "hang",
        """
        import subprocess, time
        child = subprocess.Popen(["sleep", "300"])
        open("child.pid", "w").write(str(child.pid))
        time.sleep(300)
        """,
    )
    engine = build(claude("PreToolUse", hang, timeout=1))
    decision = engine.before_tool(bash("ls", cwd=str(tmp_path)))
    assert decision.action is Action.DENY_TOOL
    assert decision.failure == "error"
    assert "timed out after 1 s" in decision.reason
    child = int((tmp_path / "child.pid").read_text())
    assert _gone(child)


def test_a_timeout_is_skipped_only_when_the_operator_chose_failure_policy_ignore(
    build: Build, tmp_path: Path
) -> None:
    engine = build(claude("PreToolUse", "sleep 300", timeout=1), failure_policy="ignore")
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.CONTINUE
    assert any("timed out" in why for why in decision.ignored)


def test_a_command_that_cannot_start_denies(build: Build, tmp_path: Path) -> None:
    engine = build(claude("PreToolUse", str(tmp_path / "no-such-guard.sh")))
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert "was not found" in decision.reason


def _gone(pid: int, within: float = 3.0) -> bool:
    """True once `pid` has died: a killed process needs a moment to be gone from
    /proc, the more so on a loaded machine (polled, not slept)."""
    import time

    deadline = time.monotonic() + within
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _alive(pid: int) -> bool:
    """True while `pid` runs; a zombie waiting to be reaped counts as gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


# -------------------------------------------------------------------------- matchers


@pytest.mark.parametrize(
    ("matcher", "tool", "fires"),
    [
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),  # an exact name, not a prefix
        ("Edit|Write", "Write", True),
        ("Edit|Write", "Read", False),
        ("mcp__memory__.*", "mcp__memory__store", True),
        ("mcp__memory__.*", "mcp__files__read", False),
        ("Notebook", "NotebookEdit", False),
        ("^Notebook", "NotebookEdit", True),  # a regex: unanchored unless written so
        ("*", "mcp__files__read", True),
        ("", "Read", True),
        (None, "Glob", True),  # no matcher at all
    ],
)
def test_claude_matchers_select_tools_by_their_claude_code_names(
    build: Build, matcher: str | None, tool: str, fires: bool
) -> None:
    engine = build(claude("PreToolUse", "echo hit >&2; exit 2", matcher=matcher))
    decision = engine.before_tool(ToolCall(tool=tool, args={}))
    assert (decision.action is Action.DENY_TOOL) is fires


@pytest.mark.parametrize(
    ("tool", "host"),
    [("exec", "picoclaw"), ("run_shell_command", "agentao"), ("bash", "python")],
)
def test_a_bash_call_from_any_host_meets_a_bash_matcher_under_claude_codes_name(
    build: Build, tmp_path: Path, tool: str, host: str
) -> None:
    guard = script(
        tmp_path,
        "guard",
        "print('seen', file=sys.stderr)\nsys.exit(2)\n",
        save=True,
    )
    engine = build(claude("PreToolUse", guard, matcher="Bash"))
    decision = engine.before_tool(ToolCall(tool=tool, args={"command": "ls"}, host=host))
    assert decision.action is Action.DENY_TOOL
    assert saved(tmp_path)["tool_name"] == "Bash"
    assert saved(tmp_path)["tool_input"] == {"command": "ls"}


def test_arguments_are_renamed_to_claude_codes_and_a_rewrite_is_renamed_back(
    build: Build, tmp_path: Path
) -> None:
    # PicoClaw's read_file takes `path`; Claude Code's Read takes `file_path`.
    redirect = script(
        tmp_path,
        "redirect",
        """
        print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"file_path": "/srv/app/README.md"}}}))
        """,
        save=True,
    )
    engine = build(claude("PreToolUse", redirect, matcher="Read"))
    call = ToolCall(tool="read_file", args={"path": "/etc/shadow"}, host="picoclaw")

    decision = engine.before_tool(call)
    assert saved(tmp_path)["tool_name"] == "Read"
    assert saved(tmp_path)["tool_input"] == {"file_path": "/etc/shadow"}
    assert decision.action is Action.MODIFY
    assert decision.call is not None
    assert decision.call.tool == "read_file"
    assert dict(decision.call.args) == {"path": "/srv/app/README.md"}


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        # PicoClaw's read_file opens `path`; a `file_path` beside it is a decoy.
        (
            {"path": "/etc/shadow", "file_path": "/tmp/notes.txt"},
            {"file_path": "/etc/shadow"},
        ),
        # Both spellings, one value: no conflict, shown once.
        ({"path": "/etc/shadow", "file_path": "/etc/shadow"}, {"file_path": "/etc/shadow"}),
    ],
)
def test_a_decoy_under_the_hosts_spelling_does_not_hide_the_path_the_tool_reads(
    build: Build, tmp_path: Path, args: dict[str, str], shown: dict[str, str]
) -> None:
    guard = script(
        tmp_path,
        "guard",
        """
        if payload["tool_input"].get("file_path", "").startswith("/etc/"):
            print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no /etc"}}))
        """,
        save=True,
    )
    engine = build(claude("PreToolUse", guard, matcher="Read"))
    decision = engine.before_tool(ToolCall(tool="read_file", args=args, host="picoclaw"))
    assert saved(tmp_path)["tool_input"] == shown
    assert decision.action is Action.DENY_TOOL
    assert decision.reason == "no /etc"


def test_an_edit_shows_the_hook_the_text_the_tool_will_write(build: Build, tmp_path: Path) -> None:
    capture = script(tmp_path, "capture", save=True)
    engine = build(claude("PreToolUse", capture, matcher="Edit"))
    call = ToolCall(
        tool="edit_file",
        args={
            "path": "/srv/app.py",
            "old_text": "check()",
            "new_text": "pass",
            "old_string": "x",
            "new_string": "harmless",
        },
        host="picoclaw",
    )
    engine.before_tool(call)
    assert saved(tmp_path)["tool_input"] == {
        "file_path": "/srv/app.py",
        "old_string": "check()",
        "new_string": "pass",
    }


@pytest.mark.parametrize(
    ("shape", "call", "shown"),
    [
        # Claude Code's own Read opens `file_path`: there `path` is the decoy.
        (
            "claude",
            ToolCall(
                tool="Read",
                args={"file_path": "/etc/shadow", "path": "/tmp/notes.txt"},
                host="claude-code",
            ),
            {"file_path": "/etc/shadow", "path": "/tmp/notes.txt"},
        ),
        # The same with no host named: a Claude Code tool name takes Claude's arguments.
        (
            "claude",
            ToolCall(tool="Read", args={"file_path": "/etc/shadow", "path": "/tmp/notes.txt"}),
            {"file_path": "/etc/shadow", "path": "/tmp/notes.txt"},
        ),
        # Agentao's replace writes `new_text`, the name its flat payload uses too.
        (
            "agentao",
            ToolCall(
                tool="replace",
                args={"file_path": "/srv/a.py", "new_text": "rm -rf /", "new_string": "ok"},
                host="agentao",
            ),
            {"file_path": "/srv/a.py", "new_text": "rm -rf /", "new_string": "ok"},
        ),
        # No host named, our edit_file: PicoClaw's `new_text` is the real one.
        (
            "agentao",
            ToolCall(
                tool="edit_file",
                args={"path": "/srv/a.py", "new_text": "rm -rf /", "new_string": "ok"},
            ),
            {"file_path": "/srv/a.py", "new_text": "rm -rf /", "new_string": "ok"},
        ),
        # A Claude Code Edit shown to an Agentao hook: Claude's `new_string` is the real one.
        (
            "agentao",
            ToolCall(
                tool="Edit",
                args={"file_path": "/srv/a.py", "new_string": "rm -rf /", "new_text": "ok"},
                host="claude-code",
            ),
            {"file_path": "/srv/a.py", "new_text": "rm -rf /"},
        ),
    ],
)
def test_a_decoy_under_the_other_spelling_does_not_hide_the_value_either(
    build: Build, tmp_path: Path, shape: str, call: ToolCall, shown: dict[str, str]
) -> None:
    capture = script(tmp_path, "capture", save=True)
    engine = build(
        claude("PreToolUse", capture) if shape == "claude" else agentao("PreToolUse", capture)
    )
    engine.before_tool(call)
    payload = saved(tmp_path)
    tool_input = payload["tool_input"] if shape == "claude" else payload["data"]["toolInput"]
    assert tool_input == shown


@pytest.mark.parametrize(
    ("updated", "outcome"),
    [
        ({"file_path": "/srv/a.md", "path": "/etc/shadow"}, None),
        ({"path": "/etc/shadow", "file_path": "/srv/a.md"}, None),
        ({"file_path": "/srv/a.md", "path": "/srv/a.md"}, {"path": "/srv/a.md"}),
    ],
)
def test_a_rewrite_that_spells_one_argument_twice_must_agree_with_itself(
    build: Build, tmp_path: Path, updated: dict[str, str], outcome: dict[str, str] | None
) -> None:
    rewrite = script(
        tmp_path,
        "rewrite",
        f"""
        print(json.dumps({{"hookSpecificOutput": {{"hookEventName": "PreToolUse",
            "permissionDecision": "allow", "updatedInput": {updated!r}}}}}))
        """,
    )
    engine = build(claude("PreToolUse", rewrite, matcher="Read"))
    call = ToolCall(tool="read_file", args={"path": "/srv/b.md"}, host="picoclaw")
    decision = engine.before_tool(call)
    if outcome is None:
        # Whichever we kept, the tool might open a file the hook did not mean.
        assert decision.action is Action.DENY_TOOL
        assert decision.failure == "error"
        assert "two spellings of the call's `path`, with different values" in decision.reason
    else:
        assert decision.action is Action.MODIFY
        assert decision.call is not None
        assert dict(decision.call.args) == outcome


# ------------------------------------------------------------------ after the tool


def test_post_tool_use_block_feeds_the_reason_back_with_the_output(
    build: Build, tmp_path: Path
) -> None:
    lint = script(
        tmp_path,
        "lint",
        """
        print(json.dumps({"decision": "block", "reason": "the file has a syntax error"}))
        """,
        save=True,
    )
    engine = build(claude("PostToolUse", lint, matcher="Write"))
    call = ToolCall(tool="Write", args={"file_path": "/srv/a.py", "content": "def"})

    decision = engine.after_tool(call, ToolResult(for_llm="wrote 3 bytes"))
    assert decision.action is Action.MODIFY
    assert decision.result is not None
    assert decision.result.for_llm == (
        "wrote 3 bytes\n\nPostToolUse hook feedback: the file has a syntax error"
    )
    assert saved(tmp_path)["tool_response"] == "wrote 3 bytes"
    assert saved(tmp_path)["hook_event_name"] == "PostToolUse"


def test_post_tool_use_exit_2_sends_stderr_to_the_model_after_the_output(
    build: Build, tmp_path: Path
) -> None:
    engine = build(claude("PostToolUse", "echo 'tests now fail' >&2; exit 2"))
    decision = engine.after_tool(bash("make"), ToolResult(for_llm="built"))
    assert decision.result is not None
    assert decision.result.for_llm == "built\n\nPostToolUse hook feedback: tests now fail"


@pytest.mark.parametrize("event", ["PostToolUse", "PostToolUseFailure"])
@pytest.mark.parametrize("shape", ["claude", "agentao"])
def test_after_the_tool_a_crash_is_followed_like_the_hosts_and_logged(
    build: Build, caplog: pytest.LogCaptureFixture, event: str, shape: str
) -> None:
    # The tool already ran; there is nothing left to stop, so the result goes on.
    command = "cat > /dev/null; echo 'linter crashed' >&2; exit 1"
    hooks = claude(event, command) if shape == "claude" else agentao(event, command)
    engine = build(hooks)
    result = ToolResult(for_llm="done", is_error=event == "PostToolUseFailure")
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        decision = engine.after_tool(bash("make"), result)
    assert decision.action is Action.CONTINUE
    assert decision.failure is None
    assert f"exited 1 at {event}" in caplog.text
    assert "linter crashed" in caplog.text


def test_after_the_tool_a_json_verdict_that_does_not_parse_is_logged(
    build: Build, caplog: pytest.LogCaptureFixture
) -> None:
    engine = build(claude("PostToolUse", """cat > /dev/null; echo '{"decision": "block"'"""))
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        decision = engine.after_tool(bash("make"), ToolResult(for_llm="built"))
    assert decision.action is Action.CONTINUE
    assert decision.failure is None
    assert "starts like a JSON verdict but is not JSON" in caplog.text


def test_post_tool_use_failure_hooks_see_only_failed_calls(build: Build, tmp_path: Path) -> None:
    capture = script(tmp_path, "capture", save=True)
    engine = build(claude("PostToolUseFailure", capture))
    engine.after_tool(bash("true"), ToolResult(for_llm="fine"))
    assert not (tmp_path / "payload.json").exists()

    engine.after_tool(bash("false"), ToolResult(for_llm="exit status 1", is_error=True))
    assert saved(tmp_path)["hook_event_name"] == "PostToolUseFailure"
    assert saved(tmp_path)["error"] == "exit status 1"


# ------------------------------------------------------------------- user prompts


def test_user_prompt_submit_block_ends_the_turn_and_context_is_added_to_the_prompt(
    build: Build, tmp_path: Path
) -> None:
    gate = script(
        tmp_path,
        "gate",
        """
        prompt = json.load(sys.stdin)["prompt"]
        if "password" in prompt:
            print(json.dumps({"decision": "block", "reason": "do not paste credentials"}))
        else:
            print(json.dumps({"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
                "additionalContext": "Project: ATLAS"}}))
        """,
    )
    engine = build(claude("UserPromptSubmit", gate, matcher=None))

    blocked = engine.user_prompt(Prompt(text="my password is hunter2"))
    assert blocked.action is Action.ABORT_TURN
    assert blocked.reason == "do not paste credentials"

    added = engine.user_prompt(Prompt(text="summarise the design"))
    assert added.action is Action.MODIFY
    assert added.prompt is not None
    assert added.prompt.text == (
        "<user-prompt-submit-hook>\nProject: ATLAS\n</user-prompt-submit-hook>\n"
        "summarise the design"
    )


def test_user_prompt_submit_exit_2_ends_the_turn_with_stderr(build: Build) -> None:
    engine = build(claude("UserPromptSubmit", "echo 'off hours' >&2; exit 2", matcher=None))
    decision = engine.user_prompt(Prompt(text="hi"))
    assert decision.action is Action.ABORT_TURN
    assert decision.reason == "off hours"


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("cat > /dev/null; echo 'gate crashed' >&2; exit 1", "exited 1 at UserPromptSubmit"),
        ("""cat > /dev/null; echo '{"decision": "block"'""", "is not JSON"),
    ],
)
def test_user_prompt_submit_crash_or_unreadable_verdict_is_a_failure_and_aborts(
    build: Build, command: str, why: str
) -> None:
    engine = build(claude("UserPromptSubmit", command, matcher=None))
    decision = engine.user_prompt(Prompt(text="my password is hunter2"))
    assert decision.action is Action.ABORT_TURN
    assert decision.failure == "error"
    assert why in decision.reason


def test_user_prompt_submit_plain_stdout_on_exit_0_is_still_context(build: Build) -> None:
    engine = build(claude("UserPromptSubmit", "cat > /dev/null; echo 'Branch: main'", matcher=None))
    decision = engine.user_prompt(Prompt(text="hi"))
    assert decision.action is Action.MODIFY
    assert decision.prompt is not None
    assert decision.prompt.text.startswith("<user-prompt-submit-hook>\nBranch: main\n")


# ------------------------------------------------------------- Agentao's flat shape


def test_agentao_flat_hooks_get_the_event_envelope_with_claude_tool_names(
    build: Build, tmp_path: Path
) -> None:
    capture = script(tmp_path, "capture", save=True)
    engine = build(agentao("PreToolUse", capture, matcher={"toolName": "Edit"}))
    call = ToolCall(
        tool="Edit",
        args={"file_path": "/srv/a.py", "old_string": "a", "new_string": "b"},
        session="s-2",
        call_id="c-9",
        cwd=str(tmp_path),
    )
    engine.before_tool(call)
    assert saved(tmp_path) == {
        "event": "PreToolUse",
        "data": {
            "toolName": "Edit",
            # Agentao's own argument names, as its `replace` tool takes them
            "toolInput": {"file_path": "/srv/a.py", "old_text": "a", "new_text": "b"},
            "toolUseId": "c-9",
            "sessionId": "s-2",
            "cwd": str(tmp_path),
        },
    }


def test_agentao_flat_hooks_ignore_exit_2_and_block_only_by_json(
    build: Build, tmp_path: Path
) -> None:
    exit2 = build(agentao("PreToolUse", "echo 'stop' >&2; exit 2"))
    assert exit2.before_tool(bash("ls")).action is Action.CONTINUE

    deny = script(
        tmp_path,
        "deny",
        """
        print(json.dumps({"hookSpecificOutput": {"permissionDecision": "deny",
            "permissionDecisionReason": "not in this repo"}}))
        """,
    )
    engine = build(agentao("PreToolUse", deny, matcher={"toolName": "Bash"}))
    decision = engine.before_tool(ToolCall(tool="exec", args={"command": "ls"}))
    assert decision.action is Action.DENY_TOOL
    assert decision.reason == "not in this repo"
    assert engine.before_tool(ToolCall(tool="Read", args={})).action is Action.CONTINUE


def test_agentao_flat_hooks_that_crash_before_the_tool_or_at_a_prompt_are_failures(
    build: Build,
) -> None:
    crash = "cat > /dev/null; echo 'guard crashed' >&2; exit 1"
    denied = build(agentao("PreToolUse", crash)).before_tool(bash("ls"))
    assert denied.action is Action.DENY_TOOL
    assert denied.failure == "error"
    assert "exited 1 at PreToolUse" in denied.reason
    assert "guard crashed" in denied.reason

    aborted = build(agentao("UserPromptSubmit", crash)).user_prompt(Prompt(text="hi"))
    assert aborted.action is Action.ABORT_TURN
    assert aborted.failure == "error"


def test_agentao_a_refusal_printed_by_a_hook_that_then_crashed_still_stands(
    build: Build,
) -> None:
    # Agentao reads the output whatever the exit; `ignore` must not undo the "no".
    deny = (
        "cat > /dev/null; "
        """echo '{"hookSpecificOutput": {"permissionDecision": "deny", """
        """"permissionDecisionReason": "not here"}}'; exit 1"""
    )
    engine = build(agentao("PreToolUse", deny), failure_policy="ignore")
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert decision.reason == "not here"

    allow = """cat > /dev/null; echo '{"hookSpecificOutput": {"permissionDecision": "allow"}}'"""
    failed = build(agentao("PreToolUse", allow + "; exit 1")).before_tool(bash("ls"))
    assert failed.action is Action.DENY_TOOL
    assert "exited 1" in failed.reason


def test_agentao_flat_hooks_apply_no_updated_input(build: Build, tmp_path: Path) -> None:
    rewrite = script(
        tmp_path,
        "rewrite",
        """
        print(json.dumps({"hookSpecificOutput": {"permissionDecision": "allow",
            "updatedInput": {"command": "echo safe"}}}))
        """,
    )
    engine = build(agentao("PreToolUse", rewrite))
    decision = engine.before_tool(bash("rm -rf build"))
    assert decision.action is Action.CONTINUE
    assert decision.call is not None
    assert dict(decision.call.args) == {"command": "rm -rf build"}


@pytest.mark.parametrize(
    ("pattern", "tool", "fires"),
    [("Bash", "Bash", True), ("Bash", "BashOutput", False), ("mcp__*", "mcp__x__y", True)],
)
def test_agentao_tool_name_matchers_are_globs(
    build: Build, pattern: str, tool: str, fires: bool
) -> None:
    deny = """echo '{"hookSpecificOutput": {"permissionDecision": "deny"}}'"""
    engine = build(agentao("PreToolUse", deny, matcher={"toolName": pattern}))
    decision = engine.before_tool(ToolCall(tool=tool, args={}))
    assert (decision.action is Action.DENY_TOOL) is fires


def test_agentao_prompt_hooks_add_their_text_and_blocking_error_ends_the_turn(
    build: Build, tmp_path: Path
) -> None:
    block = script(
        tmp_path,
        "block",
        """
        data = json.load(sys.stdin)["data"]
        if "drop table" in data["userMessage"]:
            print(json.dumps({"blockingError": "no SQL in prompts"}))
        """,
    )
    engine = build(
        {
            "hooks": {
                "UserPromptSubmit": [
                    {"type": "prompt", "prompt": "Answer in markdown. Asked: {userMessage}"},
                    {"type": "command", "command": block},
                ]
            }
        }
    )
    added = engine.user_prompt(Prompt(text="hello"))
    assert added.prompt is not None
    assert added.prompt.text == (
        "<user-prompt-submit-hook>\nAnswer in markdown. Asked: hello\n"
        "</user-prompt-submit-hook>\nhello"
    )
    blocked = engine.user_prompt(Prompt(text="please drop table users"))
    assert blocked.action is Action.ABORT_TURN
    assert blocked.reason == "no SQL in prompts"


# --------------------------------------------------------------------- in the chain


def test_hooks_run_after_packs_and_in_file_order(tmp_path: Path, audit_log: Path) -> None:
    pack = tmp_path / "no-sudo.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: no-sudo\nrules:\n"
        "  - id: deny-sudo\n    tools: [bash]\n"
        "    when: 'args.command.startsWith(\"sudo\")'\n"
        "    action: deny\n    message: no sudo\n"
    )
    hooks = tmp_path / "hooks.json"
    log_line = "cat > /dev/null; echo {} >> order.txt"
    hooks.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": cmd}]}
                        for cmd in (log_line.format("first"), log_line.format("second"))
                    ]
                }
            }
        )
    )
    with Engine(Settings(packs=[pack], claude_hooks=[hooks], audit_path=audit_log)) as engine:
        denied = engine.before_tool(bash("sudo ls", cwd=str(tmp_path)))
        assert denied.reason == "no sudo"
        assert not (tmp_path / "order.txt").exists()  # the pack decided first

        engine.before_tool(bash("ls", cwd=str(tmp_path)))
        assert (tmp_path / "order.txt").read_text().split() == ["first", "second"]
        assert engine.chain_order("before_tool")[-2:] == (
            f"claude:{hooks}:PreToolUse[0].hooks[0]",
            f"claude:{hooks}:PreToolUse[1].hooks[0]",
        )


# ----------------------------------------------------------------------- load errors


def load_error(tmp_path: Path, text: str) -> str:
    path = tmp_path / "hooks.json"
    path.write_text(text)
    with pytest.raises(SettingsError) as raised:
        Engine(Settings(claude_hooks=[path], audit_path=tmp_path / "log"))
    return str(raised.value)


def test_invalid_json_is_reported_at_its_line_and_column(tmp_path: Path) -> None:
    # With `claude_hooks_not_json: skip` (the default) the same text goes to the log.
    path = tmp_path / "hooks.json"
    path.write_text('{"hooks": {\n  "PreToolUse": [,]\n}}')
    with pytest.raises(SettingsError) as raised:
        Engine(
            Settings(claude_hooks=[path], claude_hooks_not_json="refuse", audit_path=tmp_path / "log")
        )
    assert f"{path}:2:18: invalid JSON" in str(raised.value)


@pytest.mark.parametrize(
    ("document", "where", "why"),
    [
        (
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Bash",
                            "hooks": [
                                {"type": "command", "command": "true"},
                                {"type": "prompt", "prompt": "ok?"},
                            ],
                        }
                    ]
                }
            },
            "hooks.PreToolUse[0].hooks[1].type",
            "ask an LLM",
        ),
        (
            # A misspelt guard event is refused: its guard would never run.
            {"hooks": {"PreToolUze": [{"hooks": [{"type": "command", "command": "true"}]}]}},
            "hooks.PreToolUze",
            "unknown hook event",
        ),
        (
            {
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash(", "hooks": [{"type": "command", "command": "true"}]}
                    ]
                }
            },
            "hooks.PreToolUse[0].matcher",
            "not a valid regular expression",
        ),
        (
            {
                "hooks": {
                    "PreToolUse": [
                        {"hooks": [{"type": "command", "command": "true", "timeout": "30"}]}
                    ]
                }
            },
            "hooks.PreToolUse[0].hooks[0].timeout",
            "positive number of seconds",
        ),
        (
            {
                "hooks": {
                    "PreToolUse": [
                        {"type": "command", "command": "true", "matcher": {"tool_name": "Bash"}}
                    ]
                }
            },
            "hooks.PreToolUse[0].matcher.tool_name",
            "reads only `toolName`",
        ),
        (
            {
                "hooks": {
                    "PreToolUse": [
                        {"type": "command", "command": "true"},
                        {"hooks": [{"type": "command", "command": "true"}]},
                    ]
                }
            },
            "hooks.PreToolUse[0]",
            "one file has one shape",
        ),
        (
            {
                "hooks": {
                    "UserPromptSubmit": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}
                    ]
                }
            },
            "hooks.UserPromptSubmit[0].matcher",
            "takes no matcher",
        ),
        (
            {"hooks": {"PreToolUse": [{"hooks": [{"type": "bogus", "command": "true"}]}]}},
            "hooks.PreToolUse[0].hooks[0].type",
            "unknown hook type 'bogus'",
        ),
        (
            {
                "hooks": {
                    "PreToolUse": [
                        {"hooks": [{"type": "command", "command": "true", "if": "tool matches x"}]}
                    ]
                }
            },
            "hooks.PreToolUse[0].hooks[0].if",
            "is no permission rule",
        ),
    ],
)
def test_shape_errors_name_the_file_and_the_field(
    tmp_path: Path, document: Any, where: str, why: str
) -> None:
    message = load_error(tmp_path, json.dumps(document))
    assert f"{tmp_path / 'hooks.json'}: {where}: " in message
    assert why in message


def test_a_missing_file_is_an_error_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "hooks.json"
    with pytest.raises(SettingsError, match=f"{missing}: cannot read the hooks file"):
        Engine(Settings(claude_hooks=[missing], audit_path=tmp_path / "log"))


def test_closing_the_engine_kills_commands_still_running(tmp_path: Path, audit_log: Path) -> None:
    hooks = tmp_path / "hooks.json"
    hooks.write_text(json.dumps(claude("PreToolUse", "echo $$ > shell.pid; exec sleep 300")))
    engine = Engine(Settings(claude_hooks=[hooks], audit_path=audit_log))
    answers: list[Any] = []
    asking = threading.Thread(
        target=lambda: answers.append(engine.before_tool(bash("ls", cwd=str(tmp_path))))
    )
    asking.start()
    pid_file = tmp_path / "shell.pid"
    for _ in range(600):  # the command starts within a minute on any machine
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.1)
    engine.close()
    asking.join(60)
    assert not asking.is_alive()
    assert _gone(int(pid_file.read_text()))
    assert answers[0].action is Action.DENY_TOOL


def test_a_duplicate_key_is_refused_rather_than_one_of_them_dropped(tmp_path: Path) -> None:
    message = load_error(
        tmp_path,
        '{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "a"}]}],'
        ' "PreToolUse": [{"hooks": [{"type": "command", "command": "b"}]}]}}',
    )
    assert f"{tmp_path / 'hooks.json'}: invalid JSON: duplicate key 'PreToolUse'" in message
