"""Hosted Claude Code hooks get Claude Code's environment, and fail as it fails them.

Facts from the real CLI (2.1.332 and 2.1.197, offline against a fake API):

* a hook command gets `CLAUDECODE=1`, `CLAUDE_PROJECT_DIR` and, for a plugin's hooks,
  `CLAUDE_PLUGIN_ROOT` and `CLAUDE_PLUGIN_DATA` (`~/.claude/plugins/data/<name>-inline`
  for `--plugin-dir`, non-alphanumerics of the name made `-`, created before the hook
  runs); `CLAUDE_ENV_FILE` only at SessionStart-like events, none of which is a point;
* a hook script without its exec bit (`sh` exit 126) or missing (127) is a
  `hook_non_blocking_error` at PreToolUse, PostToolUse and UserPromptSubmit alike:
  the call runs, the result goes on.

Here, after the tool we follow that: any failure is logged on `policy.hosted` and the
result goes on. Before the tool and at a prompt the operator's failure policy decides
(by default a refusal), and the reason names the script and the fix.

Each test writes a real plugin or hooks file and real scripts, builds a real Engine
(or runs `policy hook claude` as Claude Code would), and asks it about calls.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from policy import Action, Engine, ToolCall
from policy.model import Prompt, ToolResult

Build = Callable[..., Engine]
POLICY = str(Path(sys.executable).with_name("policy"))

#: The shape of published commit guards: they act only when Claude Code runs them.
COMMIT_GUARD = """\
#!/bin/sh
# Guard only the commits Claude Code makes; a human's own git is left alone.
[ "$CLAUDECODE" = "1" ] || exit 0
case "$(cat)" in
  *"git commit"*)
    echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse",
      "permissionDecision": "VERDICT",
      "permissionDecisionReason": "commits made by Claude need a human"}}' ;;
esac
"""

#: A hook that writes what it was given to dump.json next to itself.
DUMP_ENV = """\
#!/bin/sh
cat > /dev/null
python3 - "$0" <<'EOF'
import json, os, sys
keep = {k: v for k, v in os.environ.items() if k.startswith("CLAUDE")}
keep["cwd"] = os.getcwd()
with open(os.path.join(os.path.dirname(sys.argv[1]), "dump.json"), "w") as fh:
    json.dump(keep, fh)
EOF
"""


@pytest.fixture(autouse=True)
def _not_under_claude_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """As from the Python API, PicoClaw or `policy serve`: no Claude Code around."""
    for name in list(os.environ):
        if name.startswith("CLAUDE"):
            monkeypatch.delenv(name)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def plugin(
    root: Path,
    hooks: dict[str, Any],
    scripts: dict[str, str],
    *,
    name: str = "guard",
    executable: bool = True,
) -> Path:
    """A Claude Code plugin as published: a manifest, hooks/hooks.json, hooks/*.sh.
    With `executable=False` the scripts lost their exec bit (a checkout that drops it,
    an archive unpacked without modes). Returns the hooks file."""
    (root / ".claude-plugin").mkdir(parents=True)
    (root / ".claude-plugin" / "plugin.json").write_text(json.dumps({"name": name}))
    (root / "hooks").mkdir()
    for file, body in scripts.items():
        path = root / "hooks" / file
        path.write_text(body)
        path.chmod(0o755 if executable else 0o644)
    path = root / "hooks" / "hooks.json"
    path.write_text(json.dumps({"hooks": hooks}, indent=2))
    return path


def entry(command: str, matcher: str | None = "*", **handler: Any) -> list[dict[str, Any]]:
    group: dict[str, Any] = {"hooks": [{"type": "command", "command": command, **handler}]}
    if matcher is not None:
        group["matcher"] = matcher
    return [group]


def bash(command: str) -> ToolCall:
    return ToolCall(tool="Bash", args={"command": command})


def hosted_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "policy.hosted"]


# ------------------------------------------------------------------ environment


def test_a_plugins_hook_sees_claude_codes_environment(
    build: Build, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What leaks in from our own environment (hookpolicy itself run as a plugin hook
    # at SessionStart, say) is not another hook's: Claude Code sets these per hook.
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "hookpolicy-own-data"))
    monkeypatch.setenv("CLAUDE_ENV_FILE", str(tmp_path / "session-env.sh"))
    root = tmp_path / "plugins" / "my.guard"
    hooks = plugin(
        root,
        {"PreToolUse": entry("${CLAUDE_PLUGIN_ROOT}/hooks/dump.sh")},
        {"dump.sh": DUMP_ENV},
        name="my.guard",
    )
    engine = build(hooks, workspace=str(project))
    assert engine.before_tool(bash("ls")).action is Action.CONTINUE

    seen = json.loads((root / "hooks" / "dump.json").read_text())
    data = Path(os.environ["XDG_DATA_HOME"]) / "hookpolicy" / "plugins" / "data" / "my-guard-inline"
    assert seen == {
        "CLAUDECODE": "1",
        "CLAUDE_PROJECT_DIR": str(project),
        "CLAUDE_PLUGIN_ROOT": str(root),
        "CLAUDE_PLUGIN_DATA": str(data),
        "cwd": str(project),
    }
    # Made before the hook ran, as Claude Code makes it, and private to its owner.
    assert stat.S_IMODE(data.stat().st_mode) == 0o700


def test_a_plugins_data_lives_under_the_data_dir_setting(
    build: Build, tmp_path: Path, project: Path
) -> None:
    root = tmp_path / "plugins" / "my.guard"
    hooks = plugin(
        root,
        {"PreToolUse": entry("${CLAUDE_PLUGIN_ROOT}/hooks/dump.sh")},
        {"dump.sh": DUMP_ENV},
        name="my.guard",
    )
    state = tmp_path / "state"
    engine = build(hooks, workspace=str(project), data_dir=state)
    assert engine.before_tool(bash("ls")).action is Action.CONTINUE
    seen = json.loads((root / "hooks" / "dump.json").read_text())
    assert seen["CLAUDE_PLUGIN_DATA"] == str(state / "plugins" / "data" / "my-guard-inline")
    assert (state / "plugins" / "data" / "my-guard-inline").is_dir()


def test_a_projects_hooks_get_claudecode_but_no_plugin_data(
    build: Build, project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("CLAUDE_PLUGIN_DATA", str(tmp_path / "hookpolicy-own-data"))
    hooks_dir = project / ".claude" / "hooks"
    hooks_dir.mkdir(parents=True)
    (hooks_dir / "dump.sh").write_text(DUMP_ENV)
    (hooks_dir / "dump.sh").chmod(0o755)
    settings = project / ".claude" / "settings.json"
    command = '"$CLAUDE_PROJECT_DIR"/.claude/hooks/dump.sh'
    settings.write_text(json.dumps({"hooks": {"PreToolUse": entry(command)}}))
    build(settings).before_tool(bash("ls"))

    seen = json.loads((hooks_dir / "dump.json").read_text())
    assert seen["CLAUDECODE"] == "1"
    assert seen["CLAUDE_PROJECT_DIR"] == str(project)
    assert "CLAUDE_PLUGIN_DATA" not in seen


def test_agentaos_flat_shape_gets_no_claudecode_as_agentao_sets_none(
    build: Build, tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDECODE", "1")  # ours, under Claude Code: not the hook's
    hooks_dir = project / ".agentao"
    hooks_dir.mkdir()
    (hooks_dir / "dump.sh").write_text(DUMP_ENV)
    (hooks_dir / "dump.sh").chmod(0o755)
    hooks = hooks_dir / "hooks.json"
    flat = {"type": "command", "command": "${CLAUDE_PROJECT_DIR}/.agentao/dump.sh"}
    hooks.write_text(json.dumps({"hooks": {"PreToolUse": [flat]}}))
    build(hooks).before_tool(bash("ls"))

    seen = json.loads((hooks_dir / "dump.json").read_text())
    assert "CLAUDECODE" not in seen
    assert seen["CLAUDE_PROJECT_DIR"] == str(project)


def test_a_plugins_data_directory_keeps_its_state_from_call_to_call(
    build: Build, tmp_path: Path, project: Path
) -> None:
    # A tracker counting edits, the kind of state CLAUDE_PLUGIN_DATA is for; the exec
    # form (`args`) gets ${CLAUDE_PLUGIN_DATA} filled in, as Claude Code fills it in.
    counter = 'n=$(cat "$1/count" 2>/dev/null || echo 0); echo $((n + 1)) > "$1/count"'
    hook = {
        "type": "command",
        "command": "sh",
        "args": ["-c", counter, "sh", "${CLAUDE_PLUGIN_DATA}"],
    }
    hooks = plugin(tmp_path / "tracker", {"PostToolUse": [{"matcher": "*", "hooks": [hook]}]}, {})
    engine = build(hooks, workspace=str(project))
    for _ in range(3):
        engine.after_tool(bash("make"), ToolResult(for_llm="built"))
    data = Path(os.environ["XDG_DATA_HOME"]) / "hookpolicy" / "plugins" / "data" / "guard-inline"
    assert (data / "count").read_text().strip() == "3"


@pytest.mark.parametrize(("verdict", "approval"), [("deny", False), ("ask", True)])
def test_a_commit_guard_that_checks_claudecode_acts_when_hosted(
    build: Build, tmp_path: Path, project: Path, verdict: str, approval: bool
) -> None:
    hooks = plugin(
        tmp_path / "commit-guard",
        {"PreToolUse": entry("${CLAUDE_PLUGIN_ROOT}/hooks/commit.sh", "Bash")},
        {"commit.sh": COMMIT_GUARD.replace("VERDICT", verdict)},
    )
    engine = build(hooks, workspace=str(project))
    decision = engine.before_tool(bash("git commit -am wip"))
    assert decision.reason == "commits made by Claude need a human"
    assert (decision.action is Action.DENY_TOOL) is (verdict == "deny")
    assert decision.needs_approval is approval
    assert not engine.before_tool(bash("git status")).needs_approval


def test_the_commit_guard_acts_under_policy_hook_claude_too(tmp_path: Path, project: Path) -> None:
    # Claude Code runs `policy hook claude`, which runs the hosted guard: the guard sees
    # CLAUDECODE=1 whether or not it reached us (a wrapper that cleans the environment).
    hooks = plugin(
        tmp_path / "commit-guard",
        {"PreToolUse": entry("${CLAUDE_PLUGIN_ROOT}/hooks/commit.sh", "Bash")},
        {"commit.sh": COMMIT_GUARD.replace("VERDICT", "deny")},
    )
    answer = policy_hook_claude(
        tmp_path, hooks, project, pre_tool_use("git commit -am wip", project)
    )
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "commits made by Claude need a human" in output["permissionDecisionReason"]


# ------------------------------------------------------- failures after the tool

#: Ways a hook gives no answer, each as Claude Code meets them in published plugins.
BROKEN = {
    "not executable (exit 126)": ("${CLAUDE_PLUGIN_ROOT}/hooks/track.sh", False),
    "not found (exit 127)": ("${CLAUDE_PLUGIN_ROOT}/hooks/gone.sh", True),
    "timed out": ("sleep 5", True),
    "killed": ("kill -9 $$", True),
    "garbage verdict": ("""echo '{"decision": "allow", "continue": "no"}'""", True),
}


@pytest.mark.parametrize("event", ["PostToolUse", "PostToolUseFailure"])
@pytest.mark.parametrize("how", list(BROKEN))
def test_after_the_tool_a_hook_that_gives_no_answer_is_logged_and_the_result_goes_on(
    build: Build,
    tmp_path: Path,
    project: Path,
    caplog: pytest.LogCaptureFixture,
    event: str,
    how: str,
) -> None:
    command, executable = BROKEN[how]
    hooks = plugin(
        tmp_path / "tracker",
        {event: entry(command, "Bash|Edit|Write", timeout=0.5)},
        {"track.sh": "#!/bin/sh\ncat > /dev/null\n"},
        executable=executable,
    )
    engine = build(hooks, workspace=str(project))  # failure_policy: fail, the default
    result = ToolResult(for_llm="wrote 12 lines", is_error=event == "PostToolUseFailure")
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        decision = engine.after_tool(bash("make"), result)
    assert decision.action is Action.CONTINUE
    assert decision.failure is None
    assert decision.result == result  # the tool's result, unchanged
    (warning,) = hosted_warnings(caplog)
    assert f"failed at {event} (the tool already ran; Claude Code goes on" in warning
    assert str(hooks) in warning  # the hook's name: the hooks file and the entry


def test_after_the_tool_a_tracker_without_its_exec_bit_says_how_to_fix_it(
    build: Build, tmp_path: Path, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    root = tmp_path / "tracker"
    hooks = plugin(
        root,
        {"PostToolUse": entry("${CLAUDE_PLUGIN_ROOT}/hooks/track.sh", "Edit|Write")},
        {"track.sh": "#!/bin/sh\ncat > /dev/null\n"},
        executable=False,
    )
    engine = build(hooks, workspace=str(project))
    edit = ToolCall(tool="Write", args={"file_path": "a.py", "content": "x = 1\n"})
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        decision = engine.after_tool(edit, ToolResult(for_llm="wrote a.py"))
    assert decision.action is Action.CONTINUE
    assert f"not executable: chmod +x {root / 'hooks' / 'track.sh'}" in caplog.text


def test_after_the_tool_policy_hook_claude_lets_the_result_through(
    tmp_path: Path, project: Path
) -> None:
    hooks = plugin(
        tmp_path / "tracker",
        {"PostToolUse": entry("${CLAUDE_PLUGIN_ROOT}/hooks/track.sh", "Bash")},
        {"track.sh": "#!/bin/sh\ncat > /dev/null\n"},
        executable=False,
    )
    payload = {
        **pre_tool_use("make", project),
        "hook_event_name": "PostToolUse",
        "tool_response": {"stdout": "built", "stderr": "", "interrupted": False},
    }
    answer = policy_hook_claude(tmp_path, hooks, project, payload)
    assert answer.get("decision") != "block"
    assert answer.get("continue", True) is True


# ----------------------------------------------- failures before the tool, at a prompt


def test_a_guard_without_its_exec_bit_refuses_and_names_the_fix(
    build: Build, tmp_path: Path, project: Path
) -> None:
    root = tmp_path / "plugins" / "safety"
    hooks = plugin(
        root,
        {"PreToolUse": entry('"${CLAUDE_PLUGIN_ROOT}"/hooks/guard.sh --strict', "Bash")},
        {"guard.sh": "#!/bin/sh\nexit 0\n"},
        executable=False,
    )
    decision = build(hooks, workspace=str(project)).before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert decision.failure == "error"
    assert str(hooks) in decision.reason  # which hooks file, which entry
    assert "is not executable (sh exit 126)" in decision.reason
    assert f"not executable: chmod +x {root / 'hooks' / 'guard.sh'}" in decision.reason


def test_the_operators_failure_policy_ignore_runs_the_call_as_claude_code_would(
    build: Build, tmp_path: Path, project: Path
) -> None:
    hooks = plugin(
        tmp_path / "safety",
        {"PreToolUse": entry("${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh", "Bash")},
        {"guard.sh": "#!/bin/sh\nexit 0\n"},
        executable=False,
    )
    engine = build(hooks, workspace=str(project), failure_policy="ignore")
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.CONTINUE
    assert any("chmod +x" in why for why in decision.ignored)


def test_a_missing_guard_refuses_naming_where_it_was_looked_for(
    build: Build, project: Path
) -> None:
    settings = project / ".claude" / "settings.json"
    settings.parent.mkdir()
    command = ".claude/hooks/guard.sh"  # relative: the project's, as Claude Code runs it
    settings.write_text(json.dumps({"hooks": {"PreToolUse": entry(command, "Bash")}}))
    decision = build(settings).before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert "was not found (sh exit 127)" in decision.reason
    assert f"not found: {project / '.claude' / 'hooks' / 'guard.sh'}" in decision.reason


def test_the_exec_form_names_the_fix_too(build: Build, tmp_path: Path, project: Path) -> None:
    root = tmp_path / "safety"
    hook = {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh", "args": []}
    hooks = plugin(
        root,
        {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]},
        {"guard.sh": "#!/bin/sh\nexit 0\n"},
        executable=False,
    )
    decision = build(hooks, workspace=str(project)).before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert "could not be started" in decision.reason
    assert f"not executable: chmod +x {root / 'hooks' / 'guard.sh'}" in decision.reason


def test_a_command_that_runs_but_fails_inside_is_not_blamed_on_its_script(
    build: Build, tmp_path: Path, project: Path
) -> None:
    # The script is fine; a program it calls is missing. No chmod advice then.
    root = tmp_path / "safety"
    hooks = plugin(
        root,
        {"PreToolUse": entry("${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh", "Bash")},
        {"guard.sh": "#!/bin/sh\ncat > /dev/null\nno-such-linter --check\n"},
    )
    decision = build(hooks, workspace=str(project)).before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert "chmod" not in decision.reason
    assert "no-such-linter" in decision.reason


def test_a_context_injector_without_its_exec_bit_refuses_the_prompt_by_default(
    build: Build, tmp_path: Path, project: Path
) -> None:
    root = tmp_path / "prompt-improver"
    hooks = plugin(
        root,
        {"UserPromptSubmit": entry("${CLAUDE_PLUGIN_ROOT}/hooks/improve.sh", matcher=None)},
        {"improve.sh": "#!/bin/sh\necho 'Think step by step.'\n"},
        executable=False,
    )
    decision = build(hooks, workspace=str(project)).user_prompt(Prompt(text="fix the bug"))
    assert decision.action is Action.ABORT_TURN
    assert f"not executable: chmod +x {root / 'hooks' / 'improve.sh'}" in decision.reason


def test_at_a_prompt_context_that_cannot_be_read_is_dropped_and_the_prompt_goes_on(
    build: Build, tmp_path: Path, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # No `decision`, no `continue: false`: the answer could only have added context.
    answer = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": 7}}
    hooks = plugin(
        tmp_path / "prompt-improver",
        {"UserPromptSubmit": entry(f"echo '{json.dumps(answer)}'", matcher=None)},
        {},
    )
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        decision = build(hooks, workspace=str(project)).user_prompt(Prompt(text="fix the bug"))
    assert decision.action is Action.CONTINUE
    assert decision.failure is None
    assert "`additionalContext` must be a string" in caplog.text


# ------------------------------------------------------------------------ helpers


def pre_tool_use(command: str, project: Path) -> dict[str, Any]:
    return {
        "session_id": "s1",
        "transcript_path": None,
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_01",
    }


def policy_hook_claude(
    tmp_path: Path, hooks: Path, project: Path, payload: dict[str, Any]
) -> dict[str, Any]:
    """`policy hook claude` as Claude Code starts it, with the settings naming `hooks`;
    the environment is ours minus Claude Code's variables but CLAUDE_PROJECT_DIR."""
    config = tmp_path / "policy.yaml"
    config.write_text(
        textwrap.dedent(
            f"""\
            claude_hooks: [{json.dumps(str(hooks))}]
            audit_path: {json.dumps(str(tmp_path / "decisions.log"))}
            """
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    env.update(POLICY_CONFIG=str(config), CLAUDE_PROJECT_DIR=str(project))
    done = subprocess.run(
        [POLICY, "hook", "claude"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        cwd=project,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()
    answer: dict[str, Any] = json.loads(done.stdout) if done.stdout.strip() else {}
    return answer


def test_a_plugins_data_directory_is_private_and_never_a_link(
    build: Build, tmp_path: Path, project: Path
) -> None:
    root = tmp_path / "plugins" / "my.guard"
    hooks = plugin(
        root,
        {"PreToolUse": entry("${CLAUDE_PLUGIN_ROOT}/hooks/dump.sh")},
        {"dump.sh": DUMP_ENV},
        name="my.guard",
    )
    state = tmp_path / "state"
    old = os.umask(0)
    try:
        engine = build(hooks, workspace=str(project), data_dir=state)
        assert engine.before_tool(bash("ls")).action is Action.CONTINUE
    finally:
        os.umask(old)
    for folder in (state / "plugins", state / "plugins" / "data"):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    # a link planted where another plugin's state goes is not followed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (state / "plugins" / "data" / "other-inline").symlink_to(elsewhere)
    other = tmp_path / "plugins" / "other"
    hooks = plugin(
        other,
        {"PreToolUse": entry("${CLAUDE_PLUGIN_ROOT}/hooks/dump.sh")},
        {"dump.sh": DUMP_ENV},
        name="other",
    )
    refused = build(hooks, workspace=str(project), data_dir=state).before_tool(bash("ls"))
    assert refused.action is Action.DENY_TOOL
    assert "is not a directory of uid" in refused.reason
