"""The host example files under examples/ work as written.

No host binary runs here, so each file is checked the way its host reads it, and
its command is run as the host would run it (from the project directory, with the
venv's `policy` on PATH): Claude Code's settings and Agentao's hooks.json load in
our own strict loader of those shapes, and PicoClaw's config block runs as a hosted
process hook in our chain — our host side speaking to our hook side.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Engine
from policy.aliases import DEFAULT_ALIASES
from policy.hosts.claude.hosted import load_claude_hooks
from policy.model import Action, ToolCall
from policy.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
BIN = str(Path(sys.executable).parent)
REASON = "recursive or forced delete outside the workspace"


def host_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    env["PATH"] = BIN + os.pathsep + env.get("PATH", "")
    return env


def commands(path: Path) -> list[tuple[str, str]]:
    """(event, command) of every command hook in a Claude-shaped hooks file."""
    found = []
    for event, groups in json.loads(path.read_text())["hooks"].items():
        for group in groups:
            found += [(event, h["command"]) for h in group["hooks"] if h["type"] == "command"]
    return found


@pytest.mark.parametrize(
    ("example", "host"),
    [("claude-code/settings.json", "claude"), ("agentao/hooks.json", "agentao")],
)
def test_command_hook_examples_load_and_their_command_denies(
    example: str, host: str, tmp_path: Path
) -> None:
    path = EXAMPLES / example
    # The project the example is mounted in: its hooks run there, with the rules and,
    # for Claude Code, the settings file the command names next to settings.json.
    project = tmp_path / "project"
    shutil.copytree(ROOT / "rules", project / "rules")
    if (path.parent / ".claude").is_dir():
        shutil.copytree(path.parent / ".claude", project / ".claude")
    hooks = load_claude_hooks([path], aliases=DEFAULT_ALIASES)  # the host's shape, strictly
    assert hooks
    for hook in hooks:
        close = getattr(hook, "close", None)
        if close is not None:
            close()
    found = commands(path)
    assert {event for event, _ in found} >= {"PreToolUse", "PostToolUse", "UserPromptSubmit"}
    pre_tool = [command for event, command in found if event == "PreToolUse"]
    assert shlex.split(pre_tool[0])[:3] == ["policy", "hook", host]
    payload = {
        "session_id": "s1",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"},
        "tool_use_id": "toolu_01",
    }
    done = subprocess.run(
        pre_tool[0],
        shell=True,  # as the hosts run a command hook
        cwd=project,
        input=orjson.dumps(payload),
        capture_output=True,
        env=host_env(),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    answer = orjson.loads(done.stdout)["hookSpecificOutput"]
    assert (answer["permissionDecision"], answer["permissionDecisionReason"]) == ("deny", REASON)
    if host == "claude":
        # The decision log is a file the mount's own settings name, not stderr.
        log = project / ".claude" / "hookpolicy" / "decisions.jsonl"
        (line,) = [orjson.loads(x) for x in log.read_bytes().splitlines()]
        assert line["action"] == "deny_tool"
        assert done.stderr.count(b'"point"') == 0


def test_the_picoclaw_example_block_runs_our_hook_in_our_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config: dict[str, Any] = json.loads((EXAMPLES / "picoclaw" / "config.json").read_text())
    monkeypatch.chdir(ROOT)  # PicoClaw starts it from its workspace; `--packs rules` is relative
    for spec in config["hooks"]["processes"].values():
        spec["command"][0] = str(Path(BIN) / spec["command"][0])
    engine = Engine(Settings(hooks=config["hooks"], audit_path=tmp_path / "decisions.log"))
    try:
        denied = engine.before_tool(ToolCall(tool="exec", args={"command": "rm -rf /"}))
        assert denied.action is Action.DENY_TOOL
        assert denied.reason == REASON
        listing = engine.before_tool(ToolCall(tool="exec", args={"command": "ls -la"}))
        assert listing.action is Action.CONTINUE
    finally:
        engine.close()
