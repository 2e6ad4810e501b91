"""`policy hook claude|agentao` as the hosts run it: a subprocess, a payload on stdin,
one JSON answer on stdout, exit 0 — and a refusal whenever anything goes wrong."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

POLICY = str(Path(sys.executable).with_name("policy"))
RULES = Path(__file__).resolve().parent.parent / "rules"


def hook(
    host: str, payload: Any, *options: str, env: dict[str, str] | None = None
) -> tuple[Any, subprocess.CompletedProcess[bytes], float]:
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    clean.update(env or {})
    data = payload if isinstance(payload, bytes) else orjson.dumps(payload)
    started = time.monotonic()
    done = subprocess.run(
        [POLICY, "hook", host, *options], input=data, capture_output=True, env=clean, timeout=60
    )
    elapsed = time.monotonic() - started
    answer = orjson.loads(done.stdout) if done.stdout.strip() else None
    return answer, done, elapsed


def pre_tool(tool: str, **tool_input: Any) -> dict[str, Any]:
    return {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/srv/app",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01",
    }


def decision_of(answer: Any) -> tuple[str, str]:
    output = answer["hookSpecificOutput"]
    assert output["hookEventName"] == "PreToolUse"
    return output["permissionDecision"], output["permissionDecisionReason"]


# ------------------------------------------------------------------ claude


def test_pre_tool_use_on_bash_answers_deny_allow_ask_or_nothing() -> None:
    packs = ("--packs", str(RULES))
    answer, done, _ = hook("claude", pre_tool("Bash", command="rm -rf /"), *packs)
    assert done.returncode == 0
    assert decision_of(answer) == (
        "deny",
        "recursive or forced delete outside the workspace",
    )
    answer, _, _ = hook("claude", pre_tool("Bash", command="ls -la"), *packs)
    assert decision_of(answer) == (
        "allow",
        "read-only: every command only reads and prints, inside the workspace, nothing "
        "that may be a secret file or the environment",
    )
    answer, _, _ = hook("claude", pre_tool("Bash", command="git push --force origin main"), *packs)
    assert decision_of(answer)[0] == "deny"
    force = pre_tool("Bash", command="git push --force-with-lease origin main")
    answer, _, _ = hook("claude", force, *packs)
    assert decision_of(answer)[0] == "ask"
    answer, done, _ = hook("claude", pre_tool("Bash", command="make test"), *packs)
    assert (answer, done.returncode, done.stdout) == (None, 0, b"")  # no opinion


def test_a_rewrite_is_sent_as_the_whole_updated_input(tmp_path: Path) -> None:
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules:\n"
        "  - id: no-color\n    tools: [bash]\n    action: modify\n"
        "    set: {args.command: 'string(args.command) + \" --no-color\"'}\n"
    )
    answer, _, _ = hook(
        "claude", pre_tool("Bash", command="ls", description="list"), "--packs", str(pack)
    )
    # A rewrite is no verdict: no `permissionDecision`, so Claude Code's own permission
    # flow judges the rewritten input (an `allow` would skip its prompt).
    assert "permissionDecision" not in answer["hookSpecificOutput"]
    assert answer["hookSpecificOutput"]["updatedInput"] == {
        "command": "ls --no-color",
        "description": "list",
    }
    agentao, _, _ = hook(
        "agentao",
        {
            "event": "PreToolUse",
            "data": {
                "toolName": "run_shell_command",
                "toolInput": {"command": "ls"},
                "sessionId": "a1",
            },
        },
        "--packs",
        str(pack),
    )
    # Agentao's flat envelope applies no updatedInput: the rewrite is refused, not lost.
    assert decision_of(agentao)[0] == "deny"
    assert "Agentao cannot apply rewritten input" in decision_of(agentao)[1]
    # In Claude's shape Agentao 0.5.17 applies it (checked by running its CLI).
    nested, _, _ = hook("agentao", pre_tool("Bash", command="ls"), "--packs", str(pack))
    assert nested["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert nested["hookSpecificOutput"]["updatedInput"] == {"command": "ls --no-color"}


def test_post_tool_use_feeds_a_redaction_back_to_the_model() -> None:
    payload = {
        "session_id": "s1",
        "cwd": "/srv/app",
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "cat deploy.env"},
        "tool_response": "AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP",
        "tool_use_id": "toolu_02",
    }
    answer, done, _ = hook("claude", payload, "--packs", str(RULES))
    assert done.returncode == 0
    assert answer["decision"] == "block"
    assert answer["reason"].endswith("use this instead: AWS_ACCESS_KEY_ID=AKIA****************")
    payload["tool_response"] = "all tests passed"
    assert hook("claude", payload, "--packs", str(RULES))[0] is None


def test_user_prompt_submit_and_stop(tmp_path: Path) -> None:
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules:\n"
        "  - id: no-secrets-talk\n    on: user_prompt\n"
        "    when: prompt.contains('password')\n    action: abort_turn\n"
        "    message: prompts about passwords are refused\n"
    )
    prompt = {
        "session_id": "s1",
        "cwd": "/",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "what is the admin password?",
    }
    answer, _, _ = hook("claude", prompt, "--packs", str(pack))
    assert answer == {"decision": "block", "reason": "prompts about passwords are refused"}
    prompt["prompt"] = "list the files"
    assert hook("claude", prompt, "--packs", str(pack))[0] is None
    stop = {"session_id": "s1", "cwd": "/", "hook_event_name": "Stop", "stop_hook_active": False}
    answer, done, _ = hook("claude", stop, "--packs", str(pack))
    assert (answer, done.returncode) == (None, 0)


def test_agentao_flat_envelope_prompts_and_outputs_reach_the_policy(tmp_path: Path) -> None:
    """Agentao's flat envelope names the prompt `userMessage` and the output `toolOutput`
    (its `_payload.py`), and its flat shape reads `blockingError`, not `decision`."""
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules:\n"
        "  - id: no-secrets-talk\n    on: user_prompt\n"
        "    when: prompt.contains('password')\n    action: abort_turn\n"
        "    message: prompts about passwords are refused\n"
    )
    prompt = {
        "event": "UserPromptSubmit",
        "data": {"userMessage": "what is the admin password?", "sessionId": "a1", "cwd": "/"},
    }
    answer, done, _ = hook("agentao", prompt, "--packs", str(pack))
    assert done.returncode == 0
    assert answer == {
        "decision": "block",
        "reason": "prompts about passwords are refused",
        "blockingError": "prompts about passwords are refused",
    }
    output = {
        "event": "PostToolUse",
        "data": {
            "toolName": "run_shell_command",
            "toolInput": {"command": "cat deploy.env"},
            "toolOutput": "AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP",
            "sessionId": "a1",
        },
    }
    answer, _, _ = hook("agentao", output, "--packs", str(RULES))
    assert answer["reason"].endswith("use this instead: AWS_ACCESS_KEY_ID=AKIA****************")


def approval_pack(tmp_path: Path, timeout: str) -> Path:
    """A pack whose approval builtin holds every bash call for `timeout`."""
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\n"
        f"builtins:\n  approval: {{tools: [bash], timeout: {timeout}}}\n"
    )
    return pack


def waiting_hook(
    tmp_path: Path, timeout: str, *options: str
) -> tuple[Any, subprocess.CompletedProcess[bytes], float]:
    """`policy hook claude --approval wait` on `make deploy`, our approvals in SQLite."""
    env = {"POLICY_APPROVALS_STORE": f"sqlite:///{tmp_path / 'a.db'}"}
    pack = approval_pack(tmp_path, timeout)
    return hook(
        "claude",
        pre_tool("Bash", command="make deploy"),
        "--packs",
        str(pack),
        "--approval",
        "wait",
        *options,
        env=env,
    )


@pytest.mark.slow
def test_wait_mode_uses_our_approvals_and_denies_at_their_timeout(tmp_path: Path) -> None:
    answer, done, _ = waiting_hook(tmp_path, "1s")
    pack = tmp_path / "p.yaml"
    assert done.returncode == 0
    kind, reason = decision_of(answer)
    assert kind == "deny"
    assert reason.startswith("no approval within 1 s (request ")
    asked, _, _ = hook("claude", pre_tool("Bash", command="make deploy"), "--packs", str(pack))
    assert decision_of(asked)[0] == "ask"  # the default hands approval to Claude Code


# ------------------------------------------------------------------ fail closed


@pytest.mark.parametrize("host", ["claude", "agentao"])
def test_every_failure_is_a_json_refusal_with_exit_0(host: str, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    approval = approval_pack(tmp_path, "5s")
    cases = {
        "malformed payload": (b'{"hook_event_name": "PreToolUse", "tool_name": ', (), {}),
        "not an object": (b"[1, 2]", (), {}),
        "unreadable pack": (
            pre_tool("Bash", command="ls"),
            ("--packs", str(tmp_path / "none")),
            {},
        ),
        "unreachable approvals store": (
            pre_tool("Bash", command="ls"),
            ("--packs", str(approval), "--approval", "wait"),
            {"POLICY_APPROVALS_STORE": f"sqlite:///{blocker}/a.db"},
        ),
        "bad settings": (pre_tool("Bash", command="ls"), (), {"POLICY_NO_SUCH_SETTING": "1"}),
    }
    for name, (payload, options, env) in cases.items():
        answer, done, elapsed = hook(host, payload, *options, env=env)
        assert done.returncode == 0, name
        kind, reason = decision_of(answer)
        assert kind == "deny", name
        expected = (
            "approval store unavailable: "  # opened when a call first needs it
            if name == "unreachable approvals store"
            else "policy hook failed closed: "
        )
        assert reason.startswith(expected), (name, reason)
        assert elapsed < 15, name


def test_an_internal_exception_is_a_refusal(tmp_path: Path) -> None:
    """Our own bug, injected: the answer is still an explicit deny."""
    script = (
        "import sys; import policy.hosts.claude.decide as h\n"
        "def boom(*a, **k): raise RuntimeError('injected')\n"
        "h.decide = boom\n"
        f"from policy.cli import main; sys.exit(main(['hook', 'claude', '--packs', {str(RULES)!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=orjson.dumps(pre_tool("Bash", command="ls")),
        capture_output=True,
        timeout=60,
        env={k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")},
    )
    assert done.returncode == 0
    assert decision_of(orjson.loads(done.stdout)) == (
        "deny",
        "policy hook failed closed: RuntimeError: injected",
    )


@pytest.mark.slow
def test_a_wait_longer_than_the_deadline_is_cut_to_fit_it(tmp_path: Path) -> None:
    """An approval timeout of 30 s under --deadline 3: the request is filed with the
    time that is left, and denied (and expired) before the watchdog would have to."""
    from policy.approvals import open_store

    answer, done, elapsed = waiting_hook(tmp_path, "30s", "--deadline", "3")
    assert done.returncode == 0
    kind, reason = decision_of(answer)
    assert kind == "deny"
    assert reason.startswith("no approval within ")
    assert elapsed < 10
    (request,) = open_store(f"sqlite:///{tmp_path / 'a.db'}").list("expired")
    assert request.deadline - request.created < 3


def test_a_respond_held_for_approvers_never_shows_its_answer_unapproved(tmp_path: Path) -> None:
    """The policy's answer is the tool's result: it reaches the model only once the
    approvers the respond rule names allowed it."""
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules:\n"
        "  - id: cached\n    tools: [bash]\n    action: respond\n"
        "    respond: {for_llm: '\"SECRET-CACHED-PAGE\"'}\n"
        "    approvers: ['secops-*']\n    timeout: 60s\n"
    )
    env = {"POLICY_APPROVALS_STORE": f"sqlite:///{tmp_path / 'a.db'}"}
    for approval in ("auto", "defer", "ask"):
        answer, _, _ = hook(
            "claude",
            pre_tool("Bash", command="ls"),
            "--packs",
            str(pack),
            "--approval",
            approval,
            env=env,
        )
        kind, reason = decision_of(answer)
        assert kind == "deny", approval
        assert "SECRET-CACHED-PAGE" not in reason, approval


def test_a_rewrite_an_allow_rule_covers_is_answered_allow(tmp_path: Path) -> None:
    """A rewrite alone leaves the verdict to Claude Code (no `permissionDecision`); an
    `allow` rule that judged the rewritten call keeps `allow` + `updatedInput`."""
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules:\n"
        "  - id: no-color\n    tools: [bash]\n    action: modify\n"
        "    set: {args.command: 'string(args.command) + \" --no-color\"'}\n"
        "  - id: ls\n    tools: [bash]\n    when: 'args.command.startsWith(\"ls\")'\n"
        "    action: allow\n"
    )
    answer, _, _ = hook("claude", pre_tool("Bash", command="ls"), "--packs", str(pack))
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow"
    assert output["updatedInput"] == {"command": "ls --no-color"}
    answer, _, _ = hook("claude", pre_tool("Bash", command="make"), "--packs", str(pack))
    assert answer == {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "updatedInput": {"command": "make --no-color"},
        }
    }
