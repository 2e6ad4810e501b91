"""What `policy hook claude` prints after a tool and at a prompt, as Claude Code reads it.

Facts from running Claude Code 2.1.332 and 2.1.197 (tools/claude-facts/round2): context
(`additionalContext`) reaches the model without blocking; `updatedMCPToolOutput`
replaces an MCP tool's output; `updatedToolOutput` replaces a built-in tool's output
when it has that tool's own shape; `decision: "block"` only adds text after the
original output.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson

POLICY = str(Path(sys.executable).with_name("policy"))
RULES = Path(__file__).resolve().parent.parent / "rules"


def run(payload: dict[str, Any], *options: str) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    done = subprocess.run(
        [POLICY, "hook", "claude", *options],
        input=orjson.dumps(payload),
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout) if done.stdout.strip() else None


def post_tool(tool: str, response: Any) -> dict[str, Any]:
    return {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/srv/app",
        "hook_event_name": "PostToolUse",
        "tool_name": tool,
        "tool_input": {"command": "cat deploy.env"},
        "tool_response": response,
        "tool_use_id": "toolu_01",
    }


def test_a_redacted_bash_output_replaces_the_original_in_bashs_own_shape() -> None:
    original = {
        "stdout": "AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP",
        "stderr": "",
        "interrupted": False,
        "isImage": False,
    }
    answer = run(post_tool("Bash", original), "--packs", str(RULES))
    replaced = answer["hookSpecificOutput"]["updatedToolOutput"]
    assert replaced.keys() == original.keys()
    assert "AKIAABCDEFGHIJKLMNOP" not in replaced["stdout"]
    assert "decision" not in answer  # no block: the model never sees the original


def test_a_redacted_mcp_output_is_replaced_with_its_content_blocks() -> None:
    blocks = [{"type": "text", "text": "key AKIAABCDEFGHIJKLMNOP"}]
    answer = run(post_tool("mcp__crm__lookup", blocks), "--packs", str(RULES))
    replaced = answer["hookSpecificOutput"]["updatedMCPToolOutput"]
    assert isinstance(replaced, list) and replaced[0]["type"] == "text"
    assert "AKIAABCDEFGHIJKLMNOP" not in json.dumps(replaced)


def test_context_from_a_hosted_hook_is_context_not_a_block(tmp_path: Path) -> None:
    injector = tmp_path / "inject.py"
    injector.write_text(
        "import json, sys\n"
        "event = json.load(sys.stdin)['hook_event_name']\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': event,"
        " 'additionalContext': 'remember the style guide'}}))\n"
    )
    hooks = tmp_path / "hooks.json"
    entry = {"hooks": [{"type": "command", "command": f"{sys.executable} {injector}"}]}
    hooks.write_text(
        json.dumps({"hooks": {"UserPromptSubmit": [entry], "PostToolUse": [entry]}})
    )
    config = tmp_path / "policy.yaml"
    config.write_text(f"packs: [{RULES}]\nclaude_hooks: [{hooks}]\n")
    prompt = {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(tmp_path),
        "hook_event_name": "UserPromptSubmit",
        "prompt": "tidy the README",
    }
    answer = run(prompt, "--config", str(config))
    assert "decision" not in answer
    assert answer["hookSpecificOutput"] == {
        "hookEventName": "UserPromptSubmit",
        "additionalContext": "remember the style guide",
    }
    after = run(post_tool("Bash", {"stdout": "ok", "stderr": ""}), "--config", str(config))
    assert "decision" not in after
    assert after["hookSpecificOutput"]["additionalContext"] == "remember the style guide"
