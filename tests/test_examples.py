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
    # The project the example is mounted in: its hooks run there, with the rules and
    # the settings file the command names (.claude/ or .agentao/hookpolicy.yaml).
    project = tmp_path / "project"
    shutil.copytree(ROOT / "rules", project / "rules")
    for own in (".claude", ".agentao"):
        if (path.parent / own).is_dir():
            shutil.copytree(path.parent / own, project / own)
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


def test_the_agentao_mount_logs_its_decisions_to_the_file_its_settings_name(
    tmp_path: Path,
) -> None:
    """The Agentao example mounted as a project plugin, run the way Agentao 0.5.17 runs
    it (checked with the real CLI, ../shared/real_hosts/agentao; docs/hosts.md): every
    event's command under /bin/sh in the project directory (the one holding
    `.agentao/`), with CLAUDE_PROJECT_DIR, CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA set
    and the payload, Claude-shaped, on stdin. The decision log is the hash-chained file
    `.agentao/hookpolicy.yaml` names, not stderr."""
    project = tmp_path / "project"
    plugin = project / ".agentao" / "plugins" / "local" / "hookpolicy"
    shutil.copytree(ROOT / "rules", project / "rules")
    shutil.copytree(EXAMPLES / "agentao", plugin, ignore=shutil.ignore_patterns(".agentao"))
    shutil.copy(EXAMPLES / "agentao" / ".agentao" / "hookpolicy.yaml", project / ".agentao")
    env = host_env() | {
        "CLAUDE_PROJECT_DIR": str(project),
        "CLAUDE_PLUGIN_ROOT": str(plugin),
        "CLAUDE_PLUGIN_DATA": str(tmp_path / "home" / ".agentao" / "plugin-data" / "hookpolicy"),
    }
    command = dict(commands(plugin / "hooks.json"))
    base = {"session_id": "s1", "transcript_path": None, "cwd": str(project)}
    rm = {"tool_name": "Bash", "tool_input": {"command": "rm -rf /"}, "tool_use_id": "call_1"}
    echo = {"tool_name": "Bash", "tool_input": {"command": "echo hi"}, "tool_use_id": "call_2"}
    events = [
        {"hook_event_name": "UserPromptSubmit", "prompt": "say hi"},
        {"hook_event_name": "PreToolUse", **rm},
        {"hook_event_name": "PreToolUse", **echo},
        {"hook_event_name": "PostToolUse", **echo, "tool_response": "STDOUT:\nhi\n"},
    ]
    answers = []
    for event in events:
        done = subprocess.run(
            command[event["hook_event_name"]],
            shell=True,  # /bin/sh -c, as Agentao runs a command hook
            cwd=project,
            input=orjson.dumps(base | event),
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr.decode()
        assert b'"point"' not in done.stderr, done.stderr.decode()  # no decision on stderr
        answers.append(orjson.loads(done.stdout) if done.stdout.strip() else None)
    denied = answers[1]["hookSpecificOutput"]
    assert (denied["permissionDecision"], denied["permissionDecisionReason"]) == ("deny", REASON)

    log = project / ".agentao" / "hookpolicy" / "decisions.jsonl"
    assert [p.relative_to(tmp_path) for p in tmp_path.rglob("decisions.jsonl")] == [
        log.relative_to(tmp_path)
    ]
    records = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    decisions = [(r["point"], r["action"]) for r in records if r["event"] == "decision"]
    assert decisions == [
        ("user_prompt", "continue"),
        ("before_tool", "deny_tool"),
        ("before_tool", "continue"),
        ("after_tool", "continue"),
    ]
    verified = subprocess.run(
        [str(Path(BIN) / "policy"), "audit", "verify", str(log)],
        cwd=project,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert verified.returncode == 0, verified.stdout.decode() + verified.stderr.decode()
    assert b"OK" in verified.stdout


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
