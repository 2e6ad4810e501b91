"""Claude Code plugins run in our chain as Claude Code runs them (`claude_hooks`).

The plugin here is written the way published plugins are (Anthropic's hookify and
security-guidance among them): a `.claude-plugin/plugin.json`, a `hooks/hooks.json`
with a `description`, commands `python3 ${CLAUDE_PLUGIN_ROOT}/hooks/<script>.py`,
and entries for events our chain has no point for (SessionStart, Notification) and
for Stop, which runs at the `stop` point. Its scripts read their rules from the project
(`$CLAUDE_PROJECT_DIR/.claude/house-rules.local.json`), block with exit 2 and a
message on stderr, rewrite with `updatedInput`, add context at a prompt and after an
edit, format what was written and log every call. Facts they rely on (round 2 of
tools/claude-facts, 2.1.332 and 2.1.197, run): a plugin's hooks run with cwd and
`CLAUDE_PROJECT_DIR` the project and `CLAUDE_PLUGIN_ROOT` the plugin; an event name
Claude Code does not know is ignored; `updatedToolOutput` replaces any tool's output
in that tool's own shape, `updatedMCPToolOutput` an MCP tool's only.
"""

from __future__ import annotations

import json
import logging
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Action, Engine, ToolCall
from policy.cli import main
from policy.errors import SettingsError
from policy.hosts.claude.context import prompt_context, result_context
from policy.hosts.claude.hooks_file import read_hooks_file
from policy.model import Prompt, ToolResult

PLUGIN_NAME = "house-rules"

# -------------------------------------------------------------- the plugin's scripts

GUARD = '''
"""Blocks what the project's house rules forbid (PreToolUse)."""
import json, os, sys

def rules():
    project = os.environ.get("CLAUDE_PROJECT_DIR", ".")
    try:
        with open(os.path.join(project, ".claude", "house-rules.local.json")) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}

data = json.load(sys.stdin)
tool, args = data.get("tool_name", ""), data.get("tool_input", {})
house = rules()
if tool == "Bash":
    for banned in house.get("banned_commands", []):
        if banned in args.get("command", ""):
            print(f"House rules forbid `{banned}` in this project.", file=sys.stderr)
            sys.exit(2)
if tool in ("Edit", "Write", "MultiEdit"):
    name = os.path.basename(args.get("file_path", ""))
    if name in house.get("protected_files", []):
        # Some plugins put a JSON object on stderr; Claude Code shows it as it is.
        print(json.dumps({"rule": "protected-file", "file": name}), file=sys.stderr)
        sys.exit(2)
sys.exit(0)
'''

SAFE_PUSH = '''
"""Turns a force push into --force-with-lease (PreToolUse, Bash)."""
import json, sys

data = json.load(sys.stdin)
command = data["tool_input"].get("command", "")
if command.startswith("git push") and " --force" in command and "--force-with-lease" not in command:
    rewritten = dict(data["tool_input"], command=command.replace("--force", "--force-with-lease"))
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "permissionDecisionReason": "force push made safe",
        "updatedInput": rewritten}}))
sys.exit(0)
'''

REMIND = '''
"""Adds the project's reminders to every prompt (UserPromptSubmit)."""
import json, os, sys

json.load(sys.stdin)
path = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], ".claude", "house-rules.local.json")
reminders = json.load(open(path)).get("reminders", []) if os.path.exists(path) else []
if reminders:
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "UserPromptSubmit",
        "additionalContext": "\\n".join(reminders)}}))
'''

AFTER_EDIT = '''
"""Formats a file once written, and reminds the model to run the tests (PostToolUse)."""
import json, os, sys

data = json.load(sys.stdin)
path = data["tool_input"].get("file_path", "")
if path.endswith(".py") and os.path.exists(path):
    with open(path) as f:
        lines = [line.rstrip() for line in f.read().splitlines()]
    with open(path, "w") as f:
        f.write("\\n".join(lines) + "\\n")
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "PostToolUse",
        "additionalContext": f"{os.path.basename(path)} was formatted; run the tests."}}))
'''

LOG = '''
"""Logs every call, where it ran and what it was given (PreToolUse, any tool)."""
import json, os, sys

data = json.load(sys.stdin)
entry = {
    "event": data.get("hook_event_name"),
    "tool": data.get("tool_name"),
    "cwd": os.getcwd(),
    "payload_cwd": data.get("cwd"),
    "project": os.environ.get("CLAUDE_PROJECT_DIR"),
    "plugin": os.environ.get("CLAUDE_PLUGIN_ROOT"),
    "argv": sys.argv[1:],
}
with open(os.path.join(os.environ["CLAUDE_PLUGIN_ROOT"], "calls.jsonl"), "a") as f:
    f.write(json.dumps(entry) + "\\n")
'''

SESSION = '''
"""Never run before a tool or at a prompt: SessionStart and Notification have no point
in the chain, and Stop runs only at the end of a turn."""
import os
open(os.path.join(os.environ["CLAUDE_PLUGIN_ROOT"], "session-ran"), "w").write("yes")
'''


def command(script: str, *args: str) -> str:
    return " ".join(["python3", "${CLAUDE_PLUGIN_ROOT}/hooks/" + script, *args])


def hooks_json(**extra_events: Any) -> dict[str, Any]:
    """The plugin's hooks.json, shaped like the published ones."""
    return {
        "description": "House rules for this repository: guards, reminders, formatting",
        "hooks": {
            "SessionStart": [
                {
                    "matcher": "startup|resume",
                    "hooks": [{"type": "command", "command": command("session.py")}],
                }
            ],
            "PreToolUse": [
                {
                    "matcher": "Bash|Edit|Write|MultiEdit",
                    "hooks": [{"type": "command", "command": command("guard.py"), "timeout": 10}],
                },
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": command("safe_push.py")}],
                },
                {
                    "matcher": "*",
                    "hooks": [
                        {
                            "type": "command",
                            "command": 'python3 "${CLAUDE_PLUGIN_ROOT}/hooks/log.py" pre',
                            "async": False,
                            "statusMessage": "Logging the call",
                        }
                    ],
                },
            ],
            "PostToolUse": [
                {
                    "matcher": "Edit|Write",
                    "hooks": [{"type": "command", "command": command("after_edit.py")}],
                }
            ],
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": command("remind.py"), "timeout": 10}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": command("session.py", "stop")}]}],
            "Notification": [
                {"matcher": "", "hooks": [{"type": "command", "command": command("session.py")}]}
            ],
            **extra_events,
        },
    }


def write_plugin(root: Path, document: Any | None = None) -> Path:
    """The plugin under `root`; returns its hooks.json."""
    (root / ".claude-plugin").mkdir(parents=True, exist_ok=True)
    (root / ".claude-plugin" / "plugin.json").write_text(
        json.dumps({"name": PLUGIN_NAME, "version": "1.2.0", "description": "House rules"})
    )
    hooks = root / "hooks"
    hooks.mkdir(exist_ok=True)
    for name, body in {
        "guard.py": GUARD,
        "safe_push.py": SAFE_PUSH,
        "remind.py": REMIND,
        "after_edit.py": AFTER_EDIT,
        "log.py": LOG,
        "session.py": SESSION,
    }.items():
        (hooks / name).write_text(textwrap.dedent(body).lstrip())
    path = hooks / "hooks.json"
    path.write_text(json.dumps(hooks_json() if document is None else document, indent=2))
    return path


HOUSE_RULES = {
    "banned_commands": ["rm -rf"],
    "protected_files": [".env"],
    "reminders": ["Use the logging helpers in src/log.py.", "Never commit to main."],
}


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    return write_plugin(tmp_path / "plugins" / PLUGIN_NAME)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".claude").mkdir(parents=True)
    (root / ".claude" / "house-rules.local.json").write_text(json.dumps(HOUSE_RULES))
    return root


Build = Callable[..., Engine]


def logged(plugin: Path) -> list[dict[str, Any]]:
    path = plugin.parent.parent / "calls.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def bash(command_line: str, **context: Any) -> ToolCall:
    return ToolCall(tool="Bash", args={"command": command_line}, **context)


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


# ------------------------------------------------------------------- loading (item 4)


def test_a_plugin_with_lifecycle_events_loads_with_one_warning_naming_them(
    build: Build, plugin: Path, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        engine = build(plugin, workspace=str(project))
    (warning,) = warnings(caplog)
    assert str(plugin) in warning
    assert "SessionStart (1 hook), Notification (1 hook)" in warning
    assert "Stop (1 hook)" not in warning  # a hook at the `stop` point now
    assert "no point in the hookpolicy chain" in warning
    hooked = [name for name in engine.chain_order("before_tool") if name.startswith("claude:")]
    assert hooked == [
        f"claude:{plugin}:PreToolUse[0].hooks[0]",
        f"claude:{plugin}:PreToolUse[1].hooks[0]",
        f"claude:{plugin}:PreToolUse[2].hooks[0]",
    ]
    engine.user_prompt(Prompt(text="hi"))
    engine.before_tool(bash("ls"))
    assert not (plugin.parent.parent / "session-ran").exists()  # never run here


def test_settings_keys_beside_the_hooks_are_ignored_with_the_warning(
    build: Build, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings_json = tmp_path / "project" / ".claude" / "settings.json"
    settings_json.parent.mkdir(parents=True)
    settings_json.write_text(
        json.dumps(
            {
                "$schema": "https://json.schemastore.org/claude-code-settings.json",
                "permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(./.env)"]},
                "statusLine": {"type": "command", "command": "~/.claude/statusline.sh"},
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 0"}]}
                    ],
                    "Notification": [{"hooks": [{"type": "command", "command": "say done"}]}],
                },
            }
        )
    )
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        engine = build(settings_json)
    (warning,) = warnings(caplog)
    assert "`$schema`, `permissions`, `statusLine` are ignored" in warning
    assert "Notification (1 hook)" in warning
    assert engine.before_tool(bash("ls")).action is Action.CONTINUE


def test_an_event_claude_code_added_later_is_skipped_but_a_misspelt_one_is_refused(
    build: Build, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # 2.1.332 knows PreModelSwitch and DirectoryAdded; an unknown name is ignored there.
    newer = {
        event: [{"hooks": [{"type": "command", "command": "exit 0"}]}]
        for event in ("PreModelSwitch", "DirectoryAdded")
    }
    plugin = write_plugin(tmp_path / "newer", hooks_json(**newer))
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        build(plugin, workspace=str(tmp_path))
    (warning,) = warnings(caplog)
    assert "events hookpolicy does not know are not run: PreModelSwitch (1 hook)" in warning
    assert "DirectoryAdded (1 hook)" in warning

    misspelt = write_plugin(
        tmp_path / "misspelt",
        {"hooks": {"PreToolUze": [{"hooks": [{"type": "command", "command": "exit 2"}]}]}},
    )
    with pytest.raises(SettingsError, match="did you mean 'PreToolUse'"):
        build(misspelt)


def prompt_hook_plugin(tmp_path: Path, event: str, kind: str = "prompt") -> Path:
    handler: dict[str, Any] = {"type": kind, "prompt": "Is this safe? $ARGUMENTS"}
    if kind == "http":
        handler = {"type": "http", "url": "http://127.0.0.1:9/hook"}
    group: dict[str, Any] = {"hooks": [handler]}
    if event != "UserPromptSubmit":
        group["matcher"] = "Bash"
    return write_plugin(tmp_path / f"{kind}-{event}", hooks_json(**{event: [group]}))


@pytest.mark.parametrize(
    "event", ["PreToolUse", "UserPromptSubmit", "PostToolUse", "PostToolUseFailure"]
)
@pytest.mark.parametrize("kind", ["prompt", "agent", "http", "mcp_tool"])
def test_a_hook_type_we_cannot_run_at_an_event_we_run_is_refused(
    build: Build, tmp_path: Path, event: str, kind: str
) -> None:
    document = hooks_json()
    document["hooks"][event] = [*document["hooks"].get(event, []), {"hooks": [{"type": kind}]}]
    plugin = write_plugin(tmp_path / "p", document)
    index = len(document["hooks"][event]) - 1
    with pytest.raises(SettingsError) as raised:
        build(plugin)
    message = str(raised.value)
    assert f"{plugin}: hooks.{event}[{index}].hooks[0].type: '{kind}'" in message
    assert "claude_hooks_skip_unsupported: true" in message


def test_skip_unsupported_runs_the_rest_of_the_file(
    build: Build, tmp_path: Path, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    document = hooks_json()
    document["hooks"]["PreToolUse"].insert(
        0, {"matcher": "Bash", "hooks": [{"type": "prompt", "prompt": "Safe? $ARGUMENTS"}]}
    )
    plugin = write_plugin(tmp_path / "p", document)
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        engine = build(plugin, workspace=str(project), claude_hooks_skip_unsupported=True)
    (warning,) = warnings(caplog)
    assert "not run: hooks.PreToolUse[0].hooks[0] (a 'prompt' hook:" in warning
    assert "Notification (1 hook)" in warning  # the same one warning
    denied = engine.before_tool(bash("rm -rf build"))
    assert denied.action is Action.DENY_TOOL  # the file's command hooks run


def test_after_the_tool_an_output_rewriter_we_cannot_run_is_refused_unless_skipped(
    build: Build, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # An http hook at PostToolUse can replace the output Claude Code hands the model
    # (a redactor): loading the file without it would drop that protection silently.
    plugin = prompt_hook_plugin(tmp_path, "PostToolUse", kind="http")
    with pytest.raises(SettingsError, match="could replace or hold back the tool's output"):
        build(plugin, workspace=str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        build(plugin, workspace=str(tmp_path), claude_hooks_skip_unsupported=True)
    (warning,) = warnings(caplog)
    assert "not run: hooks.PostToolUse[0].hooks[0] (a 'http' hook:" in warning


def test_hooks_that_refuse_at_events_we_do_not_run_are_named_apart(
    build: Build, tmp_path: Path, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A PermissionRequest hook can deny a permission in Claude Code; here it never runs.
    document = hooks_json()
    document["hooks"]["PermissionRequest"] = [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 2"}]}
    ]
    plugin = write_plugin(tmp_path / "p", document)
    read = read_hooks_file(plugin)
    assert read.unguarded == {"PermissionRequest": 1}
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        build(plugin, workspace=str(project))
    (warning,) = warnings(caplog)
    assert "can refuse in the host but have no point in the hookpolicy chain" in warning
    assert "PermissionRequest (1 hook)" in warning


def test_defaults_spelt_out_are_accepted_and_their_opposites_refused(
    build: Build, tmp_path: Path
) -> None:
    spelt = {"type": "command", "command": "exit 0", "async": False, "once": False}
    plugin = write_plugin(tmp_path / "ok", {"hooks": {"PreToolUse": [{"hooks": [spelt]}]}})
    build(plugin, workspace=str(tmp_path))
    once = {**spelt, "once": True}
    plugin = write_plugin(tmp_path / "once", {"hooks": {"PreToolUse": [{"hooks": [once]}]}})
    with pytest.raises(SettingsError, match="once: a skill-frontmatter field"):
        build(plugin)
    # `"async": true` loads: the hook runs in the background (tests/test_claude_hooks_file_r2.py).
    background = {**spelt, "async": True}
    plugin = write_plugin(tmp_path / "bg", {"hooks": {"PreToolUse": [{"hooks": [background]}]}})
    assert read_hooks_file(plugin).specs[0].background


# ---------------------------------------------------------- cwd and env (item 5)


def test_plugin_hooks_run_in_the_project_with_the_plugin_root_set(
    build: Build, plugin: Path, project: Path, tmp_path: Path
) -> None:
    agent_dir = tmp_path / "agent-cwd"
    agent_dir.mkdir()
    engine = build(plugin, workspace=str(project))
    engine.before_tool(bash("ls", cwd=str(agent_dir)))
    (entry,) = logged(plugin)
    root = str(plugin.parent.parent)
    assert entry == {
        "event": "PreToolUse",
        "tool": "Bash",
        "cwd": str(project),  # the project, not the plugin: as Claude Code runs it
        "payload_cwd": str(agent_dir),  # what the agent reported travels in the payload
        "project": str(project),
        "plugin": root,
        "argv": ["pre"],
    }


def test_a_plugins_project_local_rules_are_found_and_the_agent_cannot_swap_them(
    build: Build, plugin: Path, project: Path, tmp_path: Path
) -> None:
    decoy = tmp_path / "decoy"
    (decoy / ".claude").mkdir(parents=True)
    (decoy / ".claude" / "house-rules.local.json").write_text("{}")
    engine = build(plugin, workspace=str(project))

    denied = engine.before_tool(bash("rm -rf build", cwd=str(decoy)))
    assert denied.action is Action.DENY_TOOL
    assert denied.reason == "House rules forbid `rm -rf` in this project."

    write = ToolCall(tool="Write", args={"file_path": str(project / ".env"), "content": "K=v"})
    denied = engine.before_tool(write)
    assert denied.action is Action.DENY_TOOL
    assert json.loads(denied.reason) == {"rule": "protected-file", "file": ".env"}


def test_without_a_workspace_plugin_hooks_run_where_we_run(
    build: Build, plugin: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    engine = build(plugin)
    assert engine.before_tool(bash("rm -rf build", cwd="/")).action is Action.DENY_TOOL
    engine.before_tool(bash("ls", cwd="/"))  # the guard lets it by; the logger runs
    assert logged(plugin)[-1]["cwd"] == str(project)


def test_a_project_hooks_file_still_runs_in_its_own_project(
    build: Build, tmp_path: Path, project: Path
) -> None:
    """Not a plugin (no `hooks/` folder of a plugin, no manifest): the file's project."""
    own = tmp_path / "other" / ".claude" / "hooks" / "hooks.json"
    own.parent.mkdir(parents=True)
    own.write_text(
        json.dumps(
            {"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "pwd > ran"}]}]}}
        )
    )
    engine = build(own, workspace=str(project))
    engine.before_tool(bash("ls", cwd=str(project)))
    assert (tmp_path / "other" / "ran").read_text().strip() == str(tmp_path / "other")


def test_a_workspace_that_is_not_a_directory_is_a_hook_failure(
    build: Build, plugin: Path, tmp_path: Path
) -> None:
    engine = build(plugin, workspace=str(tmp_path / "gone"))
    denied = engine.before_tool(bash("ls"))
    assert denied.action is Action.DENY_TOOL
    assert "not a directory" in denied.reason


# ------------------------------------------------------- what the hooks answer


def test_the_rewriter_replaces_the_whole_input(build: Build, plugin: Path, project: Path) -> None:
    engine = build(plugin, workspace=str(project))
    call = ToolCall(
        tool="Bash", args={"command": "git push --force origin feat", "description": "push"}
    )
    decision = engine.before_tool(call)
    assert decision.action is Action.MODIFY
    assert decision.call is not None
    assert dict(decision.call.args) == {
        "command": "git push --force-with-lease origin feat",
        "description": "push",
    }


def test_context_at_a_prompt_is_an_addition_an_answer_writer_can_tell_apart(
    build: Build, plugin: Path, project: Path
) -> None:
    """Item 2: context is carried as context (before the prompt's own text), never as a
    refusal or a changed prompt."""
    engine = build(plugin, workspace=str(project))
    original = "add a retry to the uploader"
    decision = engine.user_prompt(Prompt(text=original))
    assert decision.action is Action.MODIFY
    assert not decision.blocked
    assert decision.prompt is not None
    assert decision.prompt.text.endswith("\n" + original)
    assert prompt_context(original, decision.prompt.text) == (
        "Use the logging helpers in src/log.py.\nNever commit to main."
    )


def test_plain_stdout_at_a_prompt_is_context_too(build: Build, tmp_path: Path) -> None:
    hooks = tmp_path / "p" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text(
        json.dumps(
            {
                "hooks": {
                    "UserPromptSubmit": [
                        {"hooks": [{"type": "command", "command": "cat >/dev/null; date +%Y"}]},
                        {"hooks": [{"type": "command", "command": "echo 'branch: main'"}]},
                    ]
                }
            }
        )
    )
    engine = build(hooks)
    decision = engine.user_prompt(Prompt(text=""))
    assert decision.prompt is not None
    context = prompt_context("", decision.prompt.text)
    assert context is not None
    year, branch = context.split("\n")
    assert year.isdigit() and branch == "branch: main"


def test_the_formatter_runs_after_an_edit_and_its_context_follows_the_output(
    build: Build, plugin: Path, project: Path
) -> None:
    source = project / "app.py"
    source.write_text("x = 1   \ny = 2\t\n")
    engine = build(plugin, workspace=str(project))
    call = ToolCall(tool="Write", args={"file_path": str(source), "content": "x = 1   \n"})
    output = f"File created successfully at: {source}"
    decision = engine.after_tool(call, ToolResult(for_llm=output))
    assert source.read_text() == "x = 1\ny = 2\n"  # formatted in place
    assert decision.action is Action.MODIFY
    assert decision.result is not None
    assert result_context(output, decision.result.for_llm) == "app.py was formatted; run the tests."

    untouched = ToolCall(tool="Write", args={"file_path": str(project / "notes.md")})
    assert engine.after_tool(untouched, ToolResult(for_llm="ok")).action is Action.CONTINUE


def test_a_rewrite_of_the_prompt_or_the_output_is_no_context() -> None:
    assert prompt_context("hello", "hello") is None
    assert prompt_context("hello", "goodbye") is None
    assert prompt_context("hello", "say hello") is None  # the first line changed
    assert prompt_context("key AKIA1", "key AKIA*") is None
    assert prompt_context("hi", "note\nhi") == "note"  # text put before the prompt
    assert result_context("key=AKIA1234", "key=AKIA****") is None  # a redaction
    assert result_context("out", "output") is None  # the last line changed
    assert result_context("out", "out\n\n") is None  # nothing said
    assert result_context("", "feedback") == "feedback"
    tagged = "<user-prompt-submit-hook>\na\n</user-prompt-submit-hook>\n"
    assert prompt_context("x", tagged + "x") == "a"


# ------------------------------------------------------ MCP tool output (item 6)


def post_tool_plugin(tmp_path: Path, output: dict[str, Any]) -> Path:
    answer = json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse", **output}})
    hooks = tmp_path / "redact" / "hooks.json"
    hooks.parent.mkdir(exist_ok=True)
    script = tmp_path / "redact" / "answer.json"
    script.write_text(answer)
    hooks.write_text(
        json.dumps(
            {
                "hooks": {
                    "PostToolUse": [
                        {
                            "matcher": "mcp__.*|Bash",
                            "hooks": [
                                {"type": "command", "command": f"cat >/dev/null; cat {script}"}
                            ],
                        }
                    ]
                }
            }
        )
    )
    return hooks


MCP_CALL = ToolCall(tool="mcp__crm__lookup", args={"email": "a@example.com"})
MCP_OUTPUT = '[{"type": "text", "text": "card 4111 1111 1111 1111"}]'


@pytest.mark.parametrize(
    ("output", "replaced"),
    [
        ({"updatedMCPToolOutput": "card [redacted]"}, "card [redacted]"),
        (
            {"updatedMCPToolOutput": [{"type": "text", "text": "card [redacted]"}]},
            '[{"type": "text", "text": "card [redacted]"}]',
        ),
        ({"updatedToolOutput": "card [redacted]"}, "card [redacted]"),
    ],
)
def test_a_hooks_replacement_of_an_mcp_tools_output(
    build: Build, tmp_path: Path, output: dict[str, Any], replaced: str
) -> None:
    engine = build(post_tool_plugin(tmp_path, output))
    decision = engine.after_tool(MCP_CALL, ToolResult(for_llm=MCP_OUTPUT))
    assert decision.action is Action.MODIFY
    assert decision.result is not None
    assert decision.result.for_llm == replaced
    assert result_context(MCP_OUTPUT, decision.result.for_llm) is None  # a replacement


def test_a_hooks_replacement_output_is_redacted_by_the_packs_that_ran_before_it(
    build: Build, tmp_path: Path
) -> None:
    """Packs run before hosted hooks; an output a hook made after them goes through
    them once more (the chain invariant after the tool), so the shipped credentials
    pack redacts the key the hook put in."""
    leaked = "card [redacted]; key=AKIAABCDEFGHIJKLMNOP"
    engine = build(
        post_tool_plugin(tmp_path, {"updatedMCPToolOutput": leaked}),
        packs=[Path("rules/credentials.yaml")],
    )
    decision = engine.after_tool(MCP_CALL, ToolResult(for_llm=MCP_OUTPUT))
    assert decision.action is Action.MODIFY
    assert decision.result is not None
    assert decision.result.for_llm == "card [redacted]; key=AKIA****************"
    assert "credentials/redact-aws-keys" in decision.rule_ids
    # An output the hook left clean is not rewritten twice.
    engine.close()
    engine = build(
        post_tool_plugin(tmp_path, {"updatedMCPToolOutput": "card [redacted]"}),
        packs=[Path("rules/credentials.yaml")],
    )
    decision = engine.after_tool(MCP_CALL, ToolResult(for_llm=MCP_OUTPUT))
    assert decision.result is not None
    assert decision.result.for_llm == "card [redacted]"
    assert decision.rule_ids == ()


def test_a_built_in_tools_output_is_replaced_only_in_its_own_shape(
    build: Build, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    bash_output = '{"stdout": "token=abc", "stderr": "", "interrupted": false, "isImage": false}'
    engine = build(post_tool_plugin(tmp_path, {"updatedMCPToolOutput": "gone"}))
    assert engine.after_tool(bash("env"), ToolResult(for_llm=bash_output)).action is (
        Action.CONTINUE  # Claude Code ignores updatedMCPToolOutput on Bash
    )
    engine.close()

    engine = build(post_tool_plugin(tmp_path, {"updatedToolOutput": "token=[redacted]"}))
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        decision = engine.after_tool(bash("env"), ToolResult(for_llm=bash_output))
    assert decision.action is Action.CONTINUE  # a string is not Bash's shape: refused
    assert "not an object" in caplog.text
    engine.close()

    shaped = {"stdout": "token=[redacted]", "stderr": "", "interrupted": False, "isImage": False}
    engine = build(post_tool_plugin(tmp_path, {"updatedToolOutput": shaped}))
    decision = engine.after_tool(bash("env"), ToolResult(for_llm=bash_output))
    assert decision.result is not None
    assert json.loads(decision.result.for_llm) == shaped


# ------------------------------------------- `policy check --host claude` (item 6)


def rewrite_pack(directory: Path, tools: list[str] | None, enforcement: str = "enforce") -> Path:
    rule: dict[str, Any] = {
        "id": "redact-tokens",
        "on": "after_tool",
        "when": "result.for_llm.contains('token=')",
        "action": "modify",
        "set": {"result.for_llm": "'[output withheld]'"},
    }
    if tools is not None:
        rule["tools"] = tools
    if enforcement != "enforce":
        rule["enforcement"] = enforcement
    directory.mkdir(parents=True, exist_ok=True)
    pack = {"apiVersion": "hookpolicy/v1", "kind": "RulePack", "name": "out", "rules": [rule]}
    path = directory / "out.yaml"
    path.write_text(json.dumps(pack))
    return path


def check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pack: Path, events: list[str]
) -> list[dict[str, Any]]:
    entry = {"type": "command", "command": f"policy hook claude --packs {pack} --deadline 50"}
    entry.update(timeout=60, onFailure="block")
    settings = tmp_path / "project" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    hooks = {event: [{"matcher": "*", "hooks": [entry]}] for event in events}
    settings.write_text(json.dumps({"hooks": hooks}, indent=2))
    code = main(
        ["check", str(pack), "--host", "claude", "--settings", str(settings), "--format", "json"]
    )
    out, _ = capsys.readouterr()
    assert code == 0
    diagnostics: list[dict[str, Any]] = orjson.loads(out)["diagnostics"]
    return [d for d in diagnostics if d["code"] == "output-not-replaced"]


@pytest.mark.parametrize(
    "tools", [None, ["Bash"], ["*"], ["!mcp__*"], ["mcp__crm__*", "Read"], ["{mcp__a__*,Read}"]]
)
def test_check_warns_on_a_rewrite_of_a_failed_tools_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tools: list[str] | None
) -> None:
    """At PostToolUseFailure Claude Code replaces no output (it takes only context)."""
    pack = rewrite_pack(tmp_path / "packs", tools)
    (warning,) = check(tmp_path, capsys, pack, ["PreToolUse", "PostToolUseFailure"])
    assert warning["severity"] == "warning"
    assert "out/redact-tokens" in warning["message"]
    assert "Claude Code replaces none" in warning["message"]


@pytest.mark.parametrize("tools", [None, ["Bash"], ["mcp__*"], ["mcp__crm__lookup"]])
def test_check_is_silent_at_post_tool_use_where_the_output_is_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tools: list[str] | None
) -> None:
    pack = rewrite_pack(tmp_path / "packs", tools)
    assert check(tmp_path, capsys, pack, ["PreToolUse", "PostToolUse"]) == []


def test_check_is_silent_without_a_post_tool_hook_or_for_audit_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = rewrite_pack(tmp_path / "packs", None)
    assert check(tmp_path, capsys, pack, ["PreToolUse"]) == []
    audit = rewrite_pack(tmp_path / "audit", None, enforcement="audit")
    assert check(tmp_path, capsys, audit, ["PreToolUse", "PostToolUseFailure"]) == []


def test_check_reports_a_hosted_files_hooks_that_refuse_where_we_do_not_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = hooks_json()
    document["hooks"]["PermissionRequest"] = [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "exit 2"}]}
    ]
    plugin = write_plugin(tmp_path / "p", document)
    config = tmp_path / "hookpolicy.yaml"
    config.write_text(f"claude_hooks: [{plugin}]\n")
    pack = rewrite_pack(tmp_path / "packs", None)
    code = main(["check", str(pack), "--config", str(config), "--format", "json"])
    out, _ = capsys.readouterr()
    assert code == 0  # a warning: the file loads, and the host's own settings may run them
    (found,) = [d for d in orjson.loads(out)["diagnostics"] if d["code"] == "hosted-guard-not-run"]
    assert found["path"] == str(plugin)
    line = plugin.read_text().splitlines()[found["line"] - 1]
    assert '"PermissionRequest"' in line
    assert "PermissionRequest lists 1 hook(s) that can refuse in the host" in found["message"]
