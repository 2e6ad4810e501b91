"""One rule pack governs four agent hosts without change.

The shipped `rules/` decide the same two shell commands — a recursive delete of `/`
and a plainly read-only listing — sent the way each host sends them: Claude Code's
`Bash`, Agentao's `run_shell_command` (its flat envelope), PicoClaw's `exec` (JSON-RPC
process hook) and OpenClaw's `shell` (plugin bridge, arguments as a JSON string). Each
adapter runs as the host runs it, as a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

POLICY = str(Path(sys.executable).with_name("policy"))
RULES = str(Path(__file__).resolve().parent.parent / "rules")
DELETE_ROOT = "rm -rf /"
LISTING = "ls -la"
REASON = "recursive or forced delete outside the workspace"


def run(host: str, stdin: bytes) -> list[Any]:
    """The adapter's stdout, one JSON value per line. `audit_stream: stdout` is set on
    purpose: stdout is the host's protocol, so the decision log must stay off it."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    env["POLICY_AUDIT_STREAM"] = "stdout"
    done = subprocess.run(
        [POLICY, "hook", host, "--packs", RULES],
        input=stdin,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    return [orjson.loads(line) for line in done.stdout.splitlines() if line.strip()]


def lines(*messages: dict[str, Any]) -> bytes:
    return b"".join(orjson.dumps(m) + b"\n" for m in messages)


def claude(command: str) -> Any:
    payload = {
        "session_id": "s1",
        "cwd": "/srv/app",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_01",
    }
    (answer,) = run("claude", orjson.dumps(payload))
    return answer["hookSpecificOutput"]["permissionDecision"], answer


def agentao(command: str) -> Any:
    payload = {
        "event": "PreToolUse",
        "data": {
            "toolName": "run_shell_command",
            "toolInput": {"command": command},
            "sessionId": "a1",
            "cwd": "/srv/app",
        },
    }
    (answer,) = run("agentao", orjson.dumps(payload))
    return answer["hookSpecificOutput"]["permissionDecision"], answer


def test_claude_code() -> None:
    decision, answer = claude(DELETE_ROOT)
    assert decision == "deny"
    assert answer["hookSpecificOutput"]["permissionDecisionReason"] == REASON
    assert claude(LISTING)[0] == "allow"


def test_agentao() -> None:
    decision, answer = agentao(DELETE_ROOT)
    assert decision == "deny"
    assert answer["hookSpecificOutput"]["permissionDecisionReason"] == REASON
    assert agentao(LISTING)[0] == "allow"


def test_picoclaw() -> None:
    def before_tool(ident: int, command: str) -> dict[str, Any]:
        params = {
            "meta": {"AgentID": "main", "TurnID": "t1", "SessionKey": "s1"},
            "context": {"inbound": {"channel": "telegram", "chat_id": "c1", "sender_id": "u1"}},
            "tool": "exec",
            "arguments": {"command": command},
        }
        return {"jsonrpc": "2.0", "id": ident, "method": "hook.before_tool", "params": params}

    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "hook.hello",
        "params": {"name": "hookpolicy", "version": 1, "modes": ["tool"]},
    }
    answers = run(
        "picoclaw", lines(hello, before_tool(2, DELETE_ROOT), before_tool(3, LISTING))
    )
    assert sorted(a["id"] for a in answers) == [1, 2, 3]
    by_id = {a["id"]: a["result"] for a in answers}
    assert by_id[2] == {"action": "deny_tool", "reason": REASON}
    assert by_id[3]["action"] == "continue"


def test_openclaw() -> None:
    def hook_before(ident: str, command: str) -> dict[str, Any]:
        arguments = orjson.dumps({"command": command}).decode()  # a JSON string, as .NET sends
        params = {"eventName": "tool:before", "toolName": "shell", "arguments": arguments}
        return {"method": "hook_before", "id": ident, "params": params}

    init = {"method": "init", "id": "1", "params": {"pluginId": "hookpolicy"}}
    shutdown = {"method": "shutdown", "id": "4"}
    answers = run(
        "openclaw",
        lines(init, hook_before("2", DELETE_ROOT), hook_before("3", LISTING), shutdown),
    )
    assert sorted(a["id"] for a in answers) == ["1", "2", "3", "4"]
    by_id = {a["id"]: a.get("result") for a in answers}
    assert by_id["2"]["allow"] is False
    assert by_id["3"]["allow"] is True
