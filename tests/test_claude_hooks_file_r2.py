"""Hooks files are read as Claude Code reads them (issue 23, items 1, 2 and 7).

Facts from the real CLI (2.1.332 and 2.1.197, offline against a fake API; docs/hosts.md):

* fields Claude Code does not know on a matcher group or a hook (`id`, `description`,
  `name`, ...: plugin sets put them there) are ignored, and the file's hooks run;
  `if`, `shell`, `asyncRewake` and an unknown hook `type` are not ignored by it;
* a hook with `"async": true` is started and not waited for: the call runs while it
  does, and nothing it answers (exit 2, `permissionDecision: "deny"`, `decision:
  "block"`) decides anything; those still running when the session ends get SIGTERM;
* a settings.json with a `//` or `/* */` comment, or a trailing comma, is skipped whole
  and silently (its hooks never run), and a plugin's hooks.json like it fails to load.

Here: unknown fields are ignored with the file's one warning, which names them (and
guesses a misspelt one); background hooks run detached, log what they print, never
decide and end with the engine; a file with comments runs none of its hooks, as in
Claude Code, but not silently: an error on the log at every load and from `policy check`
names file:line:col and why (`claude_hooks_not_json: refuse` stops the engine instead).

Each test writes a real hooks file (the shapes published plugins use) and real
scripts, builds a real Engine — or runs `policy hook claude` as Claude Code does.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from policy import Action, Engine, ToolCall
from policy.errors import SettingsError
from policy.hosts.claude.hooks_file import read_hooks_file
from policy.model import Prompt, ToolResult
from policy.settings import Settings

Build = Callable[..., Engine]
POLICY = str(Path(sys.executable).with_name("policy"))

#: A guard as plugin sets publish it: exit 2 with a reason on stderr for `rm -rf`.
GUARD = """\
#!/bin/sh
case "$(cat)" in
  *"rm -rf"*) echo "rm -rf is not allowed here" >&2; exit 2 ;;
esac
exit 0
"""

#: An async PostToolUse formatter: it takes its time, then formats (here: marks) the
#: file the call wrote and says so on stdout.
FORMATTER = """\
#!/bin/sh
cat > "$CLAUDE_PROJECT_DIR/formatter-stdin.json"
sleep 0.5
echo formatted > "$CLAUDE_PROJECT_DIR/formatted.txt"
echo "prettier: 1 file formatted"
"""

#: A hook that would refuse everything, if anyone waited for its answer.
DENIER = """\
#!/bin/sh
cat > "$CLAUDE_PROJECT_DIR/denier-stdin.json"
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
  "permissionDecisionReason": "async deny"}, "decision": "block", "reason": "async block"}'
echo "async stderr" >&2
exit 2
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project with its Claude Code settings folder."""
    (tmp_path / "proj" / ".claude" / "hooks").mkdir(parents=True)
    return tmp_path / "proj"


def hook_script(project: Path, name: str, body: str) -> Path:
    path = project / ".claude" / "hooks" / name
    path.write_text(body)
    path.chmod(0o755)
    return path


def settings_file(project: Path, document: Any) -> Path:
    path = project / ".claude" / "settings.json"
    path.write_text(json.dumps(document, indent=2))
    return path


def bash(command: str) -> ToolCall:
    return ToolCall(tool="Bash", args={"command": command})


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def wait_for(check: Callable[[], bool], within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# ------------------------------------------------------- unknown fields (item 1)


def test_a_plugin_set_with_ids_and_descriptions_loads_and_its_guard_guards(
    build: Build, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    guard = hook_script(project, "guard.sh", GUARD)
    published = {
        "description": "Safety hooks from a plugin set",
        "hooks": {
            "PreToolUse": [
                {
                    "id": "block-rm-rf",
                    "description": "Refuse recursive deletes",
                    "matcher": "Bash",
                    "hooks": [
                        {
                            "type": "command",
                            "command": f'"$CLAUDE_PROJECT_DIR"/.claude/hooks/{guard.name}',
                            "description": "exit 2 on rm -rf",
                        }
                    ],
                }
            ]
        },
    }
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        engine = build(settings_file(project, published))
    (warning,) = warnings(caplog)  # one warning for the file, naming what it ignores
    assert "fields Claude Code ignores are ignored here too" in warning
    assert "hooks.PreToolUse[0].id" in warning
    assert "hooks.PreToolUse[0].hooks[0].description" in warning

    denied = engine.before_tool(bash("rm -rf /srv/data"))
    assert denied.action is Action.DENY_TOOL
    assert denied.reason == "rm -rf is not allowed here"
    assert engine.before_tool(bash("ls")).action is Action.CONTINUE


def test_the_ignored_fields_are_listed_for_policy_check(project: Path) -> None:
    path = settings_file(
        project,
        {
            "hooks": {
                "PostToolUse": [
                    {
                        "name": "fmt",
                        "matcher": "Edit",
                        "hooks": [{"type": "command", "command": "true"}],
                    }
                ]
            }
        },
    )
    assert read_hooks_file(path).ignored == ("hooks.PostToolUse[0].name",)


def test_a_misspelt_field_is_ignored_as_claude_code_ignores_it_and_the_warning_guesses(
    build: Build, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # `matchr` is not `matcher`: Claude Code runs the hook for every tool, and so do we,
    # but the operator hears of it.
    marker = project / "ran"
    typo = {
        "hooks": {
            "PreToolUse": [
                {
                    "matchr": "Bash",
                    "hooks": [{"type": "command", "command": f"cat > /dev/null; touch {marker}"}],
                }
            ]
        }
    }
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        engine = build(settings_file(project, typo))
    assert "hooks.PreToolUse[0].matchr: did you mean `matcher`?" in caplog.text
    engine.before_tool(ToolCall(tool="Read", args={"file_path": "/tmp/x"}))
    assert marker.exists()


@pytest.mark.parametrize(
    ("field", "value", "why"),
    [
        ("if", "tool_input.command matches 'rm'", "is no permission rule"),
        ("shell", "bash", "hooks run under /bin/sh -c"),
        ("asyncRewake", "yes", "must be true or false"),
        ("once", True, "a skill-frontmatter field"),
        ("async", "yes", "must be true or false"),
    ],
)
def test_fields_claude_code_acts_on_are_still_refused_naming_the_field(
    project: Path, field: str, value: Any, why: str
) -> None:
    hook = {"type": "command", "command": "true", field: value}
    path = settings_file(project, {"hooks": {"PreToolUse": [{"hooks": [hook]}]}})
    with pytest.raises(SettingsError) as raised:
        read_hooks_file(path)
    assert f"{path}: hooks.PreToolUse[0].hooks[0].{field}: " in str(raised.value)
    assert why in str(raised.value)


def test_an_unknown_field_in_agentaos_flat_shape_is_still_refused(project: Path) -> None:
    # Agentao's own reader is not Claude Code's; what it does with extra keys is unchecked.
    path = project / "flat.json"
    path.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"type": "command", "command": "true", "id": "x"}]}})
    )
    with pytest.raises(SettingsError, match=r"hooks\.PreToolUse\[0\]\.id: unknown field"):
        read_hooks_file(path)


# ---------------------------------------------------------- async hooks (item 2)


def test_an_async_post_tool_use_formatter_runs_after_the_call_without_delaying_it(
    build: Build, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    formatter = hook_script(project, "format.sh", FORMATTER)
    published = {
        "hooks": {
            "PostToolUse": [
                {
                    "matcher": "Edit|Write",
                    "hooks": [
                        {"type": "command", "command": str(formatter), "async": True, "timeout": 30}
                    ],
                }
            ]
        }
    }
    engine = build(settings_file(project, published))
    call = ToolCall(tool="Write", args={"file_path": str(project / "app.ts"), "content": "x"})
    with caplog.at_level(logging.INFO, logger="policy.hosted"):
        started = time.monotonic()
        decision = engine.after_tool(call, ToolResult(for_llm="wrote 1 byte"))
        assert time.monotonic() - started < 0.4  # the formatter sleeps 0.5 s first
        assert decision.result is not None and decision.result.for_llm == "wrote 1 byte"
        assert not (project / "formatted.txt").exists()

        assert wait_for((project / "formatted.txt").exists)
        assert wait_for(lambda: "prettier: 1 file formatted" in caplog.text)
    payload = json.loads((project / "formatter-stdin.json").read_text())
    assert payload["hook_event_name"] == "PostToolUse"
    assert payload["tool_name"] == "Write"
    assert payload["tool_response"] == "wrote 1 byte"


def test_an_async_hook_never_decides_whatever_it_answers(
    build: Build, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    denier = hook_script(project, "deny.sh", DENIER)
    document = {
        "hooks": {
            "PreToolUse": [
                {
                    "matcher": "Bash",
                    "hooks": [{"type": "command", "command": str(denier), "async": True}],
                }
            ]
        }
    }
    engine = build(settings_file(project, document))
    with caplog.at_level(logging.INFO, logger="policy.hosted"):
        decision = engine.before_tool(bash("rm -rf /srv/data"))
        assert decision.action is Action.CONTINUE
        assert decision.failure is None
        # It ran, with the call's payload, and what it said went to the operator's log.
        assert wait_for(lambda: "async stderr" in caplog.text)
    assert "exited 2" in caplog.text
    assert json.loads((project / "denier-stdin.json").read_text())["tool_input"] == {
        "command": "rm -rf /srv/data"
    }


def test_an_async_hook_that_cannot_run_is_a_warning_and_the_call_goes_on(
    build: Build, project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    document = {
        "hooks": {
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "/no/such/notify.sh", "async": True}]}
            ]
        }
    }
    engine = build(settings_file(project, document))
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        decision = engine.user_prompt(Prompt(text="fix the bug"))
        assert decision.action is Action.CONTINUE
        assert decision.prompt is not None and decision.prompt.text == "fix the bug"
        assert wait_for(lambda: "exited 127" in caplog.text)


def test_closing_the_engine_ends_background_hooks_still_running(
    build: Build, project: Path
) -> None:
    pid_file = project / "bg.pid"
    document = {
        "hooks": {
            "PreToolUse": [
                {
                    "hooks": [
                        {
                            "type": "command",
                            "command": f"echo $$ > {pid_file}; exec sleep 300",
                            "async": True,
                        }
                    ]
                }
            ]
        }
    }
    engine = build(settings_file(project, document))
    engine.before_tool(bash("ls"))
    assert wait_for(lambda: pid_file.exists() and pid_file.read_text().strip() != "")
    pid = int(pid_file.read_text())
    assert _alive(pid)
    engine.close()  # SIGTERM, as Claude Code sends at the end of its session
    assert wait_for(lambda: not _exists(pid))  # ended and reaped: no zombie left


def test_a_process_that_answers_one_event_can_leave_its_background_hooks_running(
    tmp_path: Path, project: Path
) -> None:
    # `policy hook claude` ends with its answer, but the session its hooks belong to is
    # Claude Code's, which goes on: after `outlive_close()` an engine that closes leaves
    # them to finish, and they still get the whole payload and a place to print.
    formatter = hook_script(project, "format.sh", FORMATTER)
    hooks = settings_file(
        project,
        {
            "hooks": {
                "PostToolUse": [
                    {"hooks": [{"type": "command", "command": str(formatter), "async": True}]}
                ]
            }
        },
    )
    one_event = textwrap.dedent(
        f"""\
        import os
        from policy import Engine, ToolCall
        from policy.hosts.claude.background import outlive_close
        from policy.model import ToolResult
        from policy.settings import Settings

        engine = Engine(Settings(claude_hooks=[{str(hooks)!r}], audit_path={str(tmp_path / "log")!r}))
        engine.after_tool(ToolCall(tool="Write", args={{"file_path": "a.ts"}}), ToolResult(for_llm="ok"))
        outlive_close()
        engine.close()
        os._exit(0)
        """
    )
    subprocess.run([sys.executable, "-c", one_event], check=True, timeout=30)
    assert not (project / "formatted.txt").exists()  # the process is gone; the hook is not
    assert wait_for((project / "formatted.txt").exists)
    assert json.loads((project / "formatter-stdin.json").read_text())["tool_response"] == "ok"


def test_an_async_hook_does_not_hold_up_policy_hook_claude(tmp_path: Path, project: Path) -> None:
    slow_denier = hook_script(project, "slow.sh", "#!/bin/sh\ncat >/dev/null\nsleep 3\nexit 2\n")
    hooks = settings_file(
        project,
        {
            "hooks": {
                "PreToolUse": [
                    {
                        "matcher": "Bash",
                        "hooks": [{"type": "command", "command": str(slow_denier), "async": True}],
                    }
                ]
            }
        },
    )
    started = time.monotonic()
    answer = policy_hook_claude(tmp_path, hooks, project, "rm -rf /srv/data")
    assert time.monotonic() - started < 2.5
    assert answer.get("hookSpecificOutput", {}).get("permissionDecision") != "deny"


# ------------------------------------------------------------- comments (item 7)


@pytest.mark.parametrize(
    ("text", "at", "what"),
    [
        (
            '{\n  // the guard\n  "hooks": {"PreToolUse": []}\n}\n',
            "2:3",
            "a comment is not JSON",
        ),
        ('/* plugin hooks */\n{"hooks": {}}\n', "1:1", "a comment is not JSON"),
        ('{\n  "hooks": {"PreToolUse": []},\n}\n', "3:1", "a trailing comma is not JSON"),
    ],
)
def test_a_settings_file_with_comments_runs_none_of_its_hooks_as_in_claude_code(
    project: Path, caplog: pytest.LogCaptureFixture, text: str, at: str, what: str
) -> None:
    # nightshift2k publishes its settings with `//` comments: Claude Code skips the file
    # whole, so its guard never refuses anything there, and the engine starts here too.
    guard = hook_script(project, "guard.sh", GUARD)
    path = project / ".claude" / "settings.json"
    path.write_text(text.replace('"PreToolUse": []', _guard_entry(guard)))
    with caplog.at_level(logging.WARNING, logger="policy.hosted"):
        engine = Engine(Settings(claude_hooks=[path], audit_path=project / "log"))
    try:
        assert engine.before_tool(bash("rm -rf /srv/data")).action is Action.CONTINUE
    finally:
        engine.close()
    (error,) = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert error.levelno == logging.ERROR
    message = error.getMessage()
    assert f"{path}:{at}: invalid JSON" in message
    assert what in message and "none of its hooks run, as in Claude Code" in message


@pytest.mark.parametrize(
    ("text", "at", "what"),
    [('{\n  // the guard\n  "hooks": {"PreToolUse": []}\n}\n', "2:3", "a comment is not JSON")],
)
def test_claude_hooks_not_json_refuse_stops_the_engine_instead(
    project: Path, text: str, at: str, what: str
) -> None:
    path = project / ".claude" / "settings.json"
    path.write_text(text)
    with pytest.raises(SettingsError) as raised:
        Engine(
            Settings(
                claude_hooks=[path], claude_hooks_not_json="refuse", audit_path=project / "log"
            )
        )
    message = str(raised.value)
    assert f"{path}:{at}: invalid JSON" in message
    assert what in message
    assert "Claude Code does not load this file either" in message


def test_the_other_files_hooks_still_run_beside_one_that_is_not_json(
    build: Build, project: Path, tmp_path: Path
) -> None:
    guard = hook_script(project, "guard.sh", GUARD)
    broken = tmp_path / "broken.json"
    broken.write_text('{"hooks": {}, }')
    good = settings_file(project, json.loads(f'{{"hooks": {{{_guard_entry(guard)}}}}}'))
    engine = build(broken, good)
    assert engine.before_tool(bash("rm -rf /srv/data")).action is Action.DENY_TOOL


def test_policy_check_reports_a_hooks_file_that_is_not_json_as_an_error(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from policy.cli import main

    path = project / ".claude" / "settings.json"
    path.write_text('{\n  // the guard\n  "hooks": {}\n}\n')
    config = tmp_path / "policy.yaml"
    rules = Path(__file__).resolve().parent.parent / "rules"
    config.write_text(f"claude_hooks: [{path}]\npacks: [{rules}]\n")
    assert main(["check", "--config", str(config)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:2:3: error: " in out and "[hosted-hooks-not-json]" in out
    assert "none of its hooks run, here as in Claude Code" in out


def _guard_entry(guard: Path) -> str:
    """`"PreToolUse": [...]` running `guard` for Bash, as JSON text."""
    entry = [{"matcher": "Bash", "hooks": [{"type": "command", "command": str(guard)}]}]
    return f'"PreToolUse": {json.dumps(entry)}'


def test_a_comment_marker_inside_a_string_is_just_text(build: Build, project: Path) -> None:
    marker = project / "ran"
    document = {
        "hooks": {
            "PreToolUse": [
                {"hooks": [{"type": "command", "command": f"cat >/dev/null; touch {marker} // ok"}]}
            ]
        }
    }
    build(settings_file(project, document)).before_tool(bash("ls"))
    assert marker.exists()


def test_duplicate_keys_are_still_refused(project: Path) -> None:
    path = project / ".claude" / "settings.json"
    path.write_text('{"hooks": {"PreToolUse": [], "PreToolUse": []}}')
    with pytest.raises(SettingsError, match="duplicate key 'PreToolUse'"):
        read_hooks_file(path)


# ------------------------------------------------------------------------ helpers


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie counts as not running)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _exists(pid: int) -> bool:
    """True while `pid` is in the process table, zombie or not."""
    return os.path.exists(f"/proc/{pid}")


def policy_hook_claude(tmp_path: Path, hooks: Path, project: Path, command: str) -> dict[str, Any]:
    """`policy hook claude` as Claude Code starts it, with the settings naming `hooks`."""
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
    payload = {
        "session_id": "s1",
        "transcript_path": None,
        "cwd": str(project),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_01",
    }
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


def test_policy_check_warns_of_the_fields_claude_code_ignores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A misspelt `matcher` is ignored by Claude Code — the hook then runs for every
    tool — so the operator hears of it in CI."""
    from policy.cli import main

    hooks = tmp_path / "hooks.json"
    hooks.write_text(
        json.dumps(
            {"hooks": {"PreToolUse": [
                {"id": "g", "matchr": "Bash", "hooks": [{"type": "command", "command": "true"}]}
            ]}}
        )
    )
    config = tmp_path / "policy.yaml"
    rules = Path(__file__).resolve().parent.parent / "rules"
    config.write_text(f"claude_hooks: [{hooks}]\npacks: [{rules}]\n")
    assert main(["check", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "warning: fields Claude Code ignores, and so does hookpolicy: " in out
    assert "hooks.PreToolUse[0].matchr" in out and "[hosted-field-ignored]" in out


# ------------------------------------------------------------------ `if` and asyncRewake


@pytest.mark.parametrize(
    ("rule", "command", "runs"),
    [
        ("Bash(rm *)", "rm -rf build", True),
        ("Bash(rm *)", "touch MARKER", False),  # as Claude Code 2.1.332 ran it: not started
        ("Bash(git push *)", "git status && git push origin main", True),  # a subcommand
        ("Bash(git push *)", "FOO=1 git push", True),  # behind an assignment
        ("Bash(git push *)", "git pushy", False),
        # wrappers, paths, compound statements, nested shells, odd blanks: run more often
        # than Claude Code may, never less
        ("Bash(rm *)", "sudo /bin/rm -rf /", True),
        ("Bash(rm *)", "timeout 5 rm -rf build", True),
        ("Bash(rm *)", "if true; then rm -rf x; fi", True),
        ("Bash(rm *)", "{ rm -rf x; }", True),
        ("Bash(git push *)", "bash -c 'git push --force'", True),
        ("Bash(git push *)", "git  push", True),
        ("Bash(git push *)", "'git' push", True),
        ("Bash(git commit:*)", "git commit -m x", True),  # the legacy prefix form
        ("Bash", "anything", True),
        ("Edit", "anything", False),  # another tool
    ],
)
def test_an_if_rule_decides_which_calls_start_the_hook(
    project: Path, rule: str, command: str, runs: bool
) -> None:
    marker = project / "ran"
    hook = {"type": "command", "command": f"touch {marker}; exit 2", "if": rule}
    path = settings_file(project, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    with Engine(Settings(claude_hooks=[path], audit_path=project / "log")) as engine:
        decision = engine.before_tool(ToolCall(tool="Bash", args={"command": command}))
    assert marker.exists() is runs
    assert (decision.action is Action.DENY_TOOL) is runs


def test_an_if_rule_on_a_path_tool_reads_the_path_as_gitignore_does(project: Path) -> None:
    from policy.hosts.claude.permission_rule import parse_rule

    here = {"project": str(project), "home": "/home/ann"}
    rule = parse_rule("Edit(src/**/*.py)")
    assert rule.matches("Edit", {"file_path": f"{project}/src/app/main.py"}, **here) == "exact"
    assert rule.matches("Edit", {"file_path": f"{project}/docs/x.md"}, **here) == "no"
    # an Edit rule covers the other editing tools, a Read rule Grep and Glob: loosely
    assert rule.matches("Write", {"file_path": f"{project}/src/a.py"}, **here) == "maybe"
    assert parse_rule("Read(*.env)").matches("Read", {"file_path": "/srv/a/.env"}, **here) == "exact"
    # a directory covers what is in it; `~` is the caller's home
    assert parse_rule("Read(//etc)").matches("Read", {"file_path": "/etc/shadow"}, **here) == "exact"
    ssh = parse_rule("Read(~/.ssh)")
    assert ssh.matches("Read", {"file_path": "/home/ann/.ssh/id_rsa"}, **here) == "exact"
    fetch = parse_rule("WebFetch(domain:example.com)")
    assert fetch.matches("WebFetch", {"url": "https://docs.example.com/x"}, **here) == "exact"
    assert fetch.matches("WebFetch", {"url": "https://example.org/"}, **here) == "no"
    # Node reads `\` as `/`: the host may be example.com, so the hook runs, granting nothing
    odd = {"url": "https://docs.example.com\\@evil.net/"}
    assert fetch.matches("WebFetch", odd, **here) == "maybe"
    assert parse_rule("mcp__github").matches("mcp__github__create_issue", {}, **here) == "exact"


@pytest.mark.parametrize(
    "command",
    [
        "echo 'a;npm test x' && rm -rf ~/important",
        "sudo npm test",
        "env LD_PRELOAD=/tmp/x.so npm test",
        "/tmp/evil/npm test",
        'python3 -c "import os" # (npm test)',
    ],
)
def test_an_auto_approver_started_by_a_loose_reading_of_its_if_grants_nothing(
    project: Path, command: str
) -> None:
    """The wide reading starts a hook more often than Claude Code would: right for a
    guard, wrong for a hook that says `allow`. Its allow is dropped unless the rule names
    the call as Claude Code reads it (one simple command)."""
    hook = {
        "type": "command",
        "if": "Bash(npm test *)",
        "command": "echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", "
        "\"permissionDecision\": \"allow\"}}'",
    }
    path = settings_file(project, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    with Engine(Settings(claude_hooks=[path], audit_path=project / "log")) as engine:
        loose = engine.before_tool(ToolCall(tool="Bash", args={"command": command}))
        exact = engine.before_tool(ToolCall(tool="Bash", args={"command": "npm test -- --watch"}))
    assert loose.allowed_by is None
    assert exact.allowed_by is not None


def test_a_rule_with_many_wildcards_is_read_in_linear_time(project: Path) -> None:
    from policy.hosts.claude.permission_rule import parse_rule

    rule = parse_rule("Bash(git * * * * --force)")
    line = "git " + " ".join(["word"] * 20000)
    assert rule.matches("Bash", {"command": line}, project=str(project)) == "no"


def test_an_async_rewake_hook_runs_in_the_background_and_decides_nothing(
    project: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Claude Code runs it detached and wakes the model with what its exit 2 says; our
    chain has no later turn, so it runs as an async hook and its output is logged."""
    hook = {
        "type": "command",
        "command": "echo findings >&2; exit 2",
        "asyncRewake": True,
        "rewakeMessage": "review the findings",
    }
    path = settings_file(project, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    with caplog.at_level("WARNING", logger="policy.hosted"):
        engine = Engine(Settings(claude_hooks=[path], audit_path=project / "log"))
    with engine:
        decision = engine.before_tool(ToolCall(tool="Bash", args={"command": "git commit"}))
    assert decision.action is Action.CONTINUE
    assert "asyncRewake runs in the background; what would wake the model is logged" in caplog.text


def test_an_mcp_tool_is_shown_to_a_hook_by_its_own_name(project: Path) -> None:
    """Our alias table files `mcp__fs__read_text_file` as a read (packs judge it so);
    Claude Code shows hooks the MCP name, so a `mcp__fs__.*` matcher and an `if` of the
    server must see it, with its arguments as the server names them."""
    marker = project / "seen.json"
    hook = {"type": "command", "command": f"cat > {marker}; exit 2", "if": "mcp__fs"}
    path = settings_file(
        project, {"hooks": {"PreToolUse": [{"matcher": "mcp__fs__.*", "hooks": [hook]}]}}
    )
    call = ToolCall(tool="mcp__fs__read_text_file", args={"path": "/etc/passwd"})
    with Engine(Settings(claude_hooks=[path], audit_path=project / "log")) as engine:
        assert engine.before_tool(call).action is Action.DENY_TOOL
    seen = json.loads(marker.read_text())
    assert seen["tool_name"] == "mcp__fs__read_text_file"
    assert seen["tool_input"] == {"path": "/etc/passwd"}


def _running_with(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = open(f"/proc/{entry}/cmdline", "rb").read()  # noqa: SIM115
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry))
    return found


@pytest.mark.slow
def test_a_background_hook_left_running_still_ends_at_its_timeout(project: Path) -> None:
    """`policy hook claude` answers and exits while its background hooks run on: their
    timeout must hold without us (coreutils `timeout` around the command)."""
    from policy.hosts.claude import background

    marker = f"bg-{os.getpid()}-{time.monotonic_ns()}"
    hook = {"type": "command", "command": f"sleep 60 # {marker}", "async": True, "timeout": 1}
    path = settings_file(project, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    engine = Engine(Settings(claude_hooks=[path], audit_path=project / "log"))
    engine.before_tool(ToolCall(tool="Bash", args={"command": "ls"}))
    background._outlive.set()
    try:
        engine.close()
        ends = time.monotonic() + 30
        while _running_with(marker) and time.monotonic() < ends:
            time.sleep(0.1)
        assert _running_with(marker) == []
    finally:
        background._outlive.clear()


def test_background_hooks_of_one_hook_are_capped(
    project: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policy.hosts.claude import background

    monkeypatch.setattr(background, "MAX_RUNNING", 1)
    hook = {"type": "command", "command": "sleep 30", "async": True, "timeout": 60}
    path = settings_file(project, {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}})
    with caplog.at_level("WARNING", logger="policy.hosted"), Engine(
        Settings(claude_hooks=[path], audit_path=project / "log")
    ) as engine:
        for _ in range(2):
            assert engine.before_tool(ToolCall(tool="Bash", args={"command": "ls"})).action is (
                Action.CONTINUE
            )
    assert "not started (the call goes on): 1 copies still running" in caplog.text
