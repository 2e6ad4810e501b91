"""`policy hook picoclaw` as PicoClaw runs it: a subprocess speaking JSON-RPC 2.0, one
message per line, with upstream's exact params (pkg/agent/hook_process.go)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

POLICY = str(Path(sys.executable).with_name("policy"))
RULES = Path(__file__).resolve().parent.parent / "rules"

META = {
    "AgentID": "main",
    "TurnID": "turn-7",
    "ParentTurnID": "",
    "SessionKey": "agent:main:telegram:c1",
    "Iteration": 1,
    "TracePath": "turn.tool.before",
    "Source": "runTurn",
}
CONTEXT = {"inbound": {"channel": "telegram", "chat_id": "c1", "sender_id": "alice"}}


class Hook:
    """A running `policy hook picoclaw`; `ask` sends lines and reads one answer each."""

    def __init__(self, *options: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
        self.process = subprocess.Popen(
            [POLICY, "hook", "picoclaw", *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def read(self) -> bytes:
        assert self.process.stdout is not None
        return self.process.stdout.readline().rstrip(b"\n")

    def call(self, ident: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send(orjson.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}))
        answer: dict[str, Any] = orjson.loads(self.read())
        return answer

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=30)


@pytest.fixture
def hook() -> Iterator[Hook]:
    running = Hook("--packs", str(RULES))
    hello = running.call(
        1, "hook.hello", {"name": "hp", "version": 1, "modes": ["tool", "approve"]}
    )
    assert hello == {"jsonrpc": "2.0", "id": 1, "result": {"ok": True, "name": "hookpolicy"}}
    yield running
    assert running.close() == 0


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"meta": META, "context": CONTEXT, "tool": name, "arguments": arguments}


def test_before_tool_answers_in_upstreams_shapes(hook: Hook) -> None:
    denied = hook.call(2, "hook.before_tool", tool("exec", command="rm -rf /"))
    assert denied == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "action": "deny_tool",
            "reason": "recursive or forced delete outside the workspace",
        },
    }
    passed = hook.call(3, "hook.before_tool", tool("exec", command="ls -la"))
    assert passed["result"]["action"] == "continue"
    # PicoClaw omits an empty argument map.
    bare = hook.call(4, "hook.before_tool", {"meta": META, "context": CONTEXT, "tool": "exec"})
    assert bare["result"]["action"] == "continue"


def test_garbage_unknown_methods_and_notifications(hook: Hook) -> None:
    hook.send(b"this is not json")
    parse = orjson.loads(hook.read())
    assert (parse["id"], parse["error"]["code"]) == (None, -32700)
    unknown = hook.call(5, "hook.unheard_of", {})
    assert unknown["error"] == {"code": -32601, "message": "method not found: hook.unheard_of"}
    hook.send(
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "method": "hook.runtime_event",
                "params": {"kind": "agent.turn.start", "payload": {}},
            }
        )
    )
    # A notification gets no answer: the next line read is the next request's.
    assert hook.call(6, "hook.before_tool", tool("exec", command="pwd"))["id"] == 6


def test_after_tool_modify_nests_the_result_where_picoclaw_reads_it(hook: Hook) -> None:
    params = {
        **tool("exec", command="cat deploy.env"),
        "result": {
            "for_llm": "AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP",
            "silent": False,
            "is_error": False,
            "async": False,
        },
        "duration": 1_500_000,
    }
    answer = hook.call(7, "hook.after_tool", params)["result"]
    assert answer["action"] == "modify"
    assert answer["result"]["tool"] == "exec"
    assert answer["result"]["result"]["for_llm"] == "AWS_ACCESS_KEY_ID=AKIA****************"


def test_approve_tool_answers_approved_and_reason(hook: Hook) -> None:
    # PicoClaw asks about every call: one no rule sent to approval passes...
    answer = hook.call(8, "hook.approve_tool", tool("exec", command="make test"))
    assert answer["result"] == {"approved": True, "reason": "no approver covers this call"}
    # ...but one before_tool sent to approval needs an approver, and there is none.
    push = tool("exec", command="git push --force-with-lease origin main")
    assert hook.call(9, "hook.before_tool", push)["result"]["action"] == "continue"
    denied = hook.call(10, "hook.approve_tool", push)["result"]
    assert denied == {
        "approved": False,
        "reason": "approval required but no approver covers tool 'bash'",
    }


def test_a_rewrite_sends_the_whole_call_with_the_hosts_tool_name(tmp_path: Path) -> None:
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules:\n"
        "  - id: no-color\n    tools: [bash]\n    action: modify\n"
        "    set: {args.command: 'string(args.command) + \" --no-color\"'}\n"
    )
    running = Hook("--packs", str(pack))
    running.call(1, "hook.hello", {"name": "hp", "version": 1, "modes": ["tool"]})
    answer = running.call(2, "hook.before_tool", tool("exec", command="ls", timeout=5))
    assert answer["result"]["call"] == {
        "tool": "exec",
        "arguments": {"command": "ls --no-color", "timeout": 5},
    }
    assert running.close() == 0


def test_packs_that_do_not_load_refuse_every_call(tmp_path: Path) -> None:
    running = Hook("--packs", str(tmp_path / "missing"))
    assert running.call(1, "hook.hello", {"name": "hp", "version": 1})["result"]["ok"] is True
    refused = running.call(2, "hook.before_tool", tool("exec", command="ls"))["result"]
    assert refused["action"] == "deny_tool"
    assert refused["reason"].startswith(
        "policy hook failed closed: RuntimeError: policy hook cannot decide"
    )
    approval = running.call(3, "hook.approve_tool", tool("exec", command="ls"))["result"]
    assert approval["approved"] is False
    assert running.close() == 0
    assert running.process.stdout is not None
    assert running.process.stdout.read() == b""  # stdout carries protocol lines only
