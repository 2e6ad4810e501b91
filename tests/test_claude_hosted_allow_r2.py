"""A hosted Claude Code hook's `allow`, and its PreToolUse `additionalContext`, reach
the host (issue 23, items 3 and 4).

An auto-approver (ldayton/Dippy's shape: `permissionDecision: allow` for `ls -la`) run
under `claude_hooks` answers Claude Code's permission prompt through
`policy hook claude`, as it would as Claude Code's own hook — but only when nothing in
the chain denies or asks: packs, builtins and other hooks combine as deny > ask > allow,
as Claude Code combines its hooks' answers (2.1.197 and 2.1.332, run: one hook allows and
another asks → asked; one allows and another denies → denied). It lifts no approval
gate, the decision log names the hook whose promise it is, and
`claude_hooks_allow: ignore` keeps the grant to the operator's own packs.

PreToolUse `additionalContext` goes out as `hookSpecificOutput.additionalContext`;
Claude Code shows it to the model after the tool's result (or after a refusal's reason)
as "PreToolUse:Bash hook additional context: …".
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Action, Engine, ToolCall
from policy.settings import Settings

POLICY = str(Path(sys.executable).with_name("policy"))
HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\nname: house\n"

#: The shape of ldayton/Dippy's answer: `allow` for a command it knows only reads,
#: nothing at all for anything else (Claude Code's own prompt then decides).
DIPPY = """
import json, shlex, sys
data = json.load(sys.stdin)
command = data.get("tool_input", {}).get("command", "")
if data.get("tool_name") == "Bash" and shlex.split(command)[:1] in (["ls"], ["cat"], ["git"]):
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow", "permissionDecisionReason": "dippy: " + command}}))
"""

ASK = """
import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "ask", "permissionDecisionReason": "the reviewer hook wants a person"}}))
"""

DENY = """
import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "deny", "permissionDecisionReason": "the guard hook says no"}}))
"""

#: A timeout clamp: it lets the call run and tells the model why it will stop early.
CLAMP = """
import json, sys
json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "additionalContext": "timeout clamped to 60s"}}))
"""

#: A rewriter that gives no verdict: Claude Code's own permission flow judges its input.
DRY_RUN = """
import json, sys
data = json.load(sys.stdin)
command = data["tool_input"]["command"] + " --dry-run"
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "updatedInput": dict(data["tool_input"], command=command)}}))
"""

#: An MCP proxy that fills in the tenant and allows the rewritten call.
TENANT = """
import json, sys
data = json.load(sys.stdin)
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
    "permissionDecision": "allow", "permissionDecisionReason": "tenant filled in",
    "updatedInput": dict(data["tool_input"], tenant="acme")}}))
"""


def hooks_file(tmp_path: Path, *bodies: str, name: str = "hooks.json") -> Path:
    """A Claude Code hooks file with one PreToolUse command per script, in order."""
    commands = []
    for index, body in enumerate(bodies):
        script = tmp_path / f"{name}.{index}.py"
        script.write_text(body)
        commands.append({"type": "command", "command": f"{sys.executable} {script}"})
    path = tmp_path / name
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": commands}]}}))
    return path


def config(tmp_path: Path, hooks: Path, pack: str = "", **more: str) -> Path:
    """A settings file: the pack (if any), the hooks file, a decision log to read."""
    lines = [f"claude_hooks: [{hooks}]", f"audit_path: {tmp_path / 'decisions.log'}"]
    if pack:
        (tmp_path / "house.yaml").write_text(HEADER + pack)
        lines.append(f"packs: [{tmp_path / 'house.yaml'}]")
    lines += [f"{key}: {value}" for key, value in more.items()]
    path = tmp_path / "hookpolicy.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def hook_claude(settings: Path, tool: str, **tool_input: Any) -> Any:
    """`policy hook claude` as Claude Code runs it: the PreToolUse payload on stdin."""
    payload = {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(settings.parent),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01",
    }
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    done = subprocess.run(
        [POLICY, "hook", "claude", "--config", str(settings)],
        input=orjson.dumps(payload),
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout) if done.stdout.strip() else None


def verdict(answer: Any) -> tuple[str | None, str | None]:
    specific = answer["hookSpecificOutput"]
    return specific.get("permissionDecision"), specific.get("permissionDecisionReason")


def logged(tmp_path: Path) -> list[dict[str, Any]]:
    lines = (tmp_path / "decisions.log").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r.get("kind", "decision") == "decision"]


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[Any]:
    made: list[Engine] = []

    def build(hooks: Path, pack: str = "", **settings: Any) -> Engine:
        packs = []
        if pack:
            (tmp_path / "house.yaml").write_text(HEADER + pack)
            packs = [tmp_path / "house.yaml"]
        settings.setdefault("approvals_store", "memory://")
        engine = Engine(
            Settings(packs=packs, claude_hooks=[hooks], audit_path=tmp_path / "api.log", **settings)
        )
        made.append(engine)
        return engine

    yield build
    for engine in made:
        engine.close()


# ------------------------------------------------------------ allow, through the hook


def test_an_auto_approvers_allow_answers_claude_codes_permission_prompt(tmp_path: Path) -> None:
    settings = config(tmp_path, hooks_file(tmp_path, DIPPY))
    answer = hook_claude(settings, "Bash", command="ls -la")
    assert verdict(answer) == (
        "allow",
        f"allowed by hook claude:{tmp_path / 'hooks.json'}:PreToolUse[0].hooks[0]",
    )
    # A command it does not know it leaves to Claude Code's own prompt, as before.
    assert hook_claude(settings, "Bash", command="make deploy") is None


def test_the_decision_log_names_the_hook_that_allowed(tmp_path: Path) -> None:
    settings = config(tmp_path, hooks_file(tmp_path, DIPPY))
    hook_claude(settings, "Bash", command="ls -la")
    hook_claude(settings, "Bash", command="make deploy")
    allowed, silent = logged(tmp_path)
    assert allowed["allowed_by"] == f"claude:{tmp_path / 'hooks.json'}:PreToolUse[0].hooks[0]"
    assert allowed["action"] == "continue" and allowed["needs_approval"] is False
    assert "allowed_by" not in silent


def test_a_pack_ask_still_asks(tmp_path: Path) -> None:
    pack = (
        "rules:\n  - id: ask-push\n    tools: [bash]\n"
        "    when: string(args.command).startsWith('git push')\n"
        "    action: ask\n    message: pushing needs a person\n"
    )
    settings = config(tmp_path, hooks_file(tmp_path, DIPPY), pack)
    assert verdict(hook_claude(settings, "Bash", command="git push origin main")) == (
        "ask",
        "pushing needs a person",
    )
    assert verdict(hook_claude(settings, "Bash", command="git status"))[0] == "allow"
    assert "allowed_by" not in logged(tmp_path)[0]


def test_a_pack_deny_still_denies(tmp_path: Path) -> None:
    pack = (
        "rules:\n  - id: no-cat-env\n    tools: [bash]\n"
        "    when: string(args.command).contains('.env')\n"
        "    action: deny\n    message: .env files hold secrets\n"
    )
    settings = config(tmp_path, hooks_file(tmp_path, DIPPY), pack)
    assert verdict(hook_claude(settings, "Bash", command="cat .env")) == (
        "deny",
        ".env files hold secrets",
    )


def test_two_hooks_combine_as_claude_code_combines_them(tmp_path: Path) -> None:
    asked = config(tmp_path, hooks_file(tmp_path, DIPPY, ASK))
    assert verdict(hook_claude(asked, "Bash", command="ls")) == (
        "ask",
        "the reviewer hook wants a person",
    )
    denied = config(tmp_path, hooks_file(tmp_path, DIPPY, DENY))
    assert verdict(hook_claude(denied, "Bash", command="ls")) == ("deny", "the guard hook says no")
    # In either order: the `allow` of a hook that ran first is no verdict on its own.
    later = config(tmp_path, hooks_file(tmp_path, ASK, DIPPY))
    assert verdict(hook_claude(later, "Bash", command="ls"))[0] == "ask"


def test_the_operator_can_keep_the_grant_to_their_own_packs(tmp_path: Path) -> None:
    settings = config(tmp_path, hooks_file(tmp_path, DIPPY), claude_hooks_allow="ignore")
    assert hook_claude(settings, "Bash", command="ls -la") is None
    assert "allowed_by" not in logged(tmp_path)[0]


def test_an_mcp_rewrite_the_hook_allowed_goes_out_as_allow_with_the_new_input(
    tmp_path: Path,
) -> None:
    settings = config(tmp_path, hooks_file(tmp_path, TENANT))
    answer = hook_claude(settings, "mcp__crm__lookup", customer="42")
    assert verdict(answer) == ("allow", "tenant filled in")
    assert answer["hookSpecificOutput"]["updatedInput"] == {"customer": "42", "tenant": "acme"}


def test_an_allow_of_the_call_before_a_later_rewrite_vouches_for_nothing(tmp_path: Path) -> None:
    settings = config(tmp_path, hooks_file(tmp_path, DIPPY, DRY_RUN))
    answer = hook_claude(settings, "Bash", command="git clean -fd")
    # Dippy allowed `git clean -fd`; the call that runs is another: no `allow` for it.
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {"command": "git clean -fd --dry-run"},
        }
    }


# ------------------------------------------------------------ allow, in the chain


def test_a_hosted_allow_lifts_no_approval_gate(engines: Any, tmp_path: Path) -> None:
    engine = engines(
        hooks_file(tmp_path, DIPPY),
        "builtins:\n  approval:\n    tools: [bash]\n    approvers: ['secops-*']\n",
    )
    decision = engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    assert decision.needs_approval and decision.gates
    assert decision.allowed_by is None
    assert not decision.allowed  # a pack `allow` rule's flag, which would lift this gate


def test_the_python_api_sees_who_allowed(engines: Any, tmp_path: Path) -> None:
    hooks = hooks_file(tmp_path, DIPPY)
    decision = engines(hooks).before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    assert decision.action is Action.CONTINUE
    assert decision.allowed_by == f"claude:{hooks}:PreToolUse[0].hooks[0]"
    assert (
        engines(hooks, claude_hooks_allow="ignore")
        .before_tool(ToolCall(tool="bash", args={"command": "ls"}))
        .allowed_by
        is None
    )


def test_an_agentao_hooks_allow_vouches_for_nothing(engines: Any, tmp_path: Path) -> None:
    # Agentao's `allow` is a no-op in Agentao (it lifts none of its own checks), so a
    # hook written in its flat shape grants nothing here either.
    script = tmp_path / "flat.py"
    script.write_text(
        "import json, sys\njson.load(sys.stdin)\n"
        "print(json.dumps({'hookSpecificOutput': {'permissionDecision': 'allow'}}))\n"
    )
    hooks = tmp_path / "agentao.json"
    hooks.write_text(
        json.dumps(
            {
                "contract": "agentao-v1",
                "hooks": {
                    "PreToolUse": [{"type": "command", "command": f"{sys.executable} {script}"}]
                },
            }
        )
    )
    decision = engines(hooks).before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    assert decision.action is Action.CONTINUE and decision.allowed_by is None
    # Plain text it prints is context, as Agentao adds it.
    script.write_text("import sys\nsys.stdin.read()\nprint('tests run in CI only')\n")
    decision = engines(hooks).before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    assert decision.context == "tests run in CI only"


# ------------------------------------------------------------ additionalContext


def test_pre_tool_use_context_goes_to_claude_code_as_additional_context(tmp_path: Path) -> None:
    settings = config(tmp_path, hooks_file(tmp_path, CLAMP))
    answer = hook_claude(settings, "Bash", command="pytest -x")
    # No verdict beside it: Claude Code's own permission flow decides, and the model
    # reads the context after the tool's result.
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "additionalContext": "timeout clamped to 60s",
        }
    }


def test_context_travels_with_an_allow_and_with_a_refusal(tmp_path: Path) -> None:
    allowed = config(tmp_path, hooks_file(tmp_path, CLAMP, DIPPY))
    answer = hook_claude(allowed, "Bash", command="ls")
    assert verdict(answer)[0] == "allow"
    assert answer["hookSpecificOutput"]["additionalContext"] == "timeout clamped to 60s"
    # Claude Code shows a denying hook's context too, after the refusal's reason.
    denied = config(tmp_path, hooks_file(tmp_path, CLAMP, DENY))
    answer = hook_claude(denied, "Bash", command="ls")
    assert verdict(answer) == ("deny", "the guard hook says no")
    assert answer["hookSpecificOutput"]["additionalContext"] == "timeout clamped to 60s"


def test_the_python_api_carries_context_on_the_decision(engines: Any, tmp_path: Path) -> None:
    decision = engines(hooks_file(tmp_path, CLAMP, CLAMP)).before_tool(
        ToolCall(tool="bash", args={"command": "pytest"})
    )
    assert decision.action is Action.CONTINUE
    assert decision.context == "timeout clamped to 60s\ntimeout clamped to 60s"
    assert decision.call is not None and decision.call.args["command"] == "pytest"


def test_a_code_hook_that_sets_allowed_by_vouches_for_nothing(tmp_path: Path) -> None:
    """Only a host's own hook (a claude_hooks PreToolUse hook) speaks for the host's
    permission prompt; a Python hook in the chain cannot turn its continue into a grant."""
    from policy import Action, Decision, Engine, ToolCall, before_tool
    from policy.settings import Settings

    @before_tool(name="self-declared-approver")
    def approver(call: ToolCall) -> Decision:
        return Decision(Action.CONTINUE, allowed_by="me")

    with Engine(Settings(audit_path=tmp_path / "log")) as engine:
        engine.register(approver)
        decision = engine.before_tool(ToolCall(tool="bash", args={"command": "rm -rf /"}))
    assert decision.allowed_by is None
