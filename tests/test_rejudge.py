"""The chain invariant: packs and builtins judge the arguments that will run.

A hook that sorts after the packs and builtins (a process hook, a hosted Claude Code
hook, a code hook of higher priority) and rewrites a call has its rewrite judged again
by them, once: a denial denies it naming the rewrite, another rewrite denies it (no
loops), an `ask` holds it for approval, and otherwise the rewrite stands. And
`policy hook claude` answers a rewrite no `allow` rule judged with `updatedInput`
alone, no `permissionDecision`: Claude Code's own permission flow then decides on the
rewritten input (checked by running Claude Code 2.1.197 and 2.1.332; docs/hosts.md).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Action, Decision, Engine, ToolCall
from policy.hooks import HookSource
from policy.settings import Settings

RULES = Path(__file__).resolve().parent.parent / "rules"
POLICY = str(Path(sys.executable).with_name("policy"))


class Rewriter:
    """A code hook that replaces every bash command with `command` (or the call with
    another tool, when `tool` is given)."""

    def __init__(self, command: str, tool: str | None = None, name: str = "rewriter") -> None:
        self.name = name
        self.command = command
        self.tool = tool
        self.seen: list[ToolCall] = []

    def before_tool(self, call: ToolCall) -> Decision:
        self.seen.append(call)
        changes: dict[str, Any] = {"args": {"command": self.command}}
        if self.tool is not None:
            changes["tool"] = self.tool
        return Decision(Action.MODIFY, "rewritten for the test", call=call.replace(**changes))


def ls(**context: Any) -> ToolCall:
    context.setdefault("cwd", "/srv/app")
    context.setdefault("session", "s1")
    return ToolCall(tool="Bash", args={"command": "ls"}, **context)


@pytest.fixture
def shipped(audit_log: Path) -> Iterator[Engine]:
    """An engine on the shipped rules (`--packs rules`)."""
    with Engine(Settings(packs=[RULES], audit_path=audit_log)) as engine:
        yield engine


def after_packs(engine: Engine, command: str, how: str = "process", **kw: Any) -> Rewriter:
    """Register a rewriter that runs after every pack and builtin: as a process hook
    (PicoClaw's and the hosted hooks' place), or in process with a higher priority."""
    hook = Rewriter(command, **kw)
    if how == "process":
        engine.register(hook, source=HookSource.PROCESS)
    else:
        engine.register(hook, priority=10_000)
    assert engine.chain_order("before_tool")[-1] == hook.name
    return hook


# -------------------------------------------------------------------- denied


@pytest.mark.parametrize("how", ["process", "priority"])
def test_a_rewrite_into_rm_rf_is_denied_by_the_shipped_rules(shipped: Engine, how: str) -> None:
    after_packs(shipped, "rm -rf /", how)
    decision = shipped.before_tool(ls())
    assert decision.action is Action.DENY_TOOL
    assert decision.call is not None and decision.call.args["command"] == "rm -rf /"
    assert decision.reason.startswith("rewritten by hook 'rewriter' into bash 'rm -rf /'; ")
    assert "denied by rule destruction/" in decision.reason
    assert decision.hook == "pack:destruction"
    assert not decision.needs_approval and not decision.allowed


def test_without_the_rewrite_the_original_call_was_allowed(shipped: Engine) -> None:
    """The first pass judged `ls`: allowed by the read-only rule, which says nothing
    about what `ls` was rewritten into."""
    assert shipped.before_tool(ls()).allowed


def test_the_denial_is_what_run_tool_returns_and_nothing_runs(shipped: Engine) -> None:
    after_packs(shipped, "rm -rf /")
    ran: list[ToolCall] = []
    result = shipped.run_tool(ls(), lambda call: ran.append(call) or "ok")
    assert ran == []
    assert result.is_error
    assert result.for_llm.startswith("Tool execution denied by hook: rewritten by hook")


def test_the_decision_log_records_the_rewritten_call_and_the_rules(
    shipped: Engine, audit_log: Path
) -> None:
    after_packs(shipped, "rm -rf /")
    shipped.before_tool(ls())
    shipped.close()
    (line,) = [json.loads(x) for x in audit_log.read_text().splitlines() if '"before_tool"' in x]
    text = json.dumps(line)
    assert "deny_tool" in text
    assert "rewritten by hook 'rewriter'" in text
    assert "destruction/deny-delete-outside-workspace" in text


# ------------------------------------------------------------------- stands


def test_a_harmless_rewrite_stands_and_is_allowed_by_the_rule_that_judges_it(
    shipped: Engine,
) -> None:
    after_packs(shipped, "ls -la")
    decision = shipped.before_tool(ls())
    assert decision.action is Action.MODIFY
    assert decision.call is not None and decision.call.args["command"] == "ls -la"
    assert decision.hook == "rewriter"
    assert decision.allowed  # shell/allow-readonly judged `ls -la`
    assert "rewritten by hook 'rewriter' into bash 'ls -la'" in decision.reason


def test_an_allow_of_the_original_call_does_not_carry_over_to_the_rewrite(
    shipped: Engine,
) -> None:
    """`ls` is allowed, `make test` is decided by no rule: the rewrite stands, but
    nothing allowed it (Claude Code's own permission flow decides, see below)."""
    after_packs(shipped, "make test")
    decision = shipped.before_tool(ls())
    assert decision.action is Action.MODIFY
    assert decision.call is not None and decision.call.args["command"] == "make test"
    assert not decision.allowed and not decision.needs_approval


def test_a_rewrite_an_ask_rule_covers_needs_approval(shipped: Engine) -> None:
    after_packs(shipped, "git push --force-with-lease origin main")
    decision = shipped.before_tool(ls())
    assert decision.action is Action.MODIFY
    assert decision.needs_approval and not decision.allowed
    assert "git/ask-force-with-lease" in decision.rule_ids
    assert decision.reason.startswith("rewritten by hook 'rewriter' into bash 'git push")


def test_a_rewrite_made_before_the_packs_is_judged_once_by_them(audit_log: Path) -> None:
    """A hook sorted before every pack: the packs saw the rewritten call in the chain
    itself, so it is not judged again (and still denied)."""
    with Engine(Settings(packs=[RULES], audit_path=audit_log)) as engine:
        engine.register(Rewriter("rm -rf /"), priority=-10_000)
        assert engine.chain_order("before_tool")[0] == "rewriter"
        decision = engine.before_tool(ls())
        assert decision.action is Action.DENY_TOOL
        assert not decision.reason.startswith("rewritten")  # the first pass denied it
        harmless = Engine(Settings(packs=[RULES], audit_path=audit_log))
        with harmless:
            harmless.register(Rewriter("ls -la"), priority=-10_000)
            assert harmless.before_tool(ls()).allowed


# ------------------------------------------------------------- no loops


def pack(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(
        f"apiVersion: hookpolicy/v1\nkind: RulePack\nname: {name}\n"
        + textwrap.dedent(body).lstrip("\n")
    )
    return path


def test_a_pack_that_would_rewrite_the_rewrite_again_denies_it(
    tmp_path: Path, audit_log: Path
) -> None:
    flags = pack(
        tmp_path,
        "flags",
        """
        rules:
          - id: make-quiet
            tools: [bash]
            when: 'string(args.command).startsWith("make")'
            action: modify
            set: {args.command: 'string(args.command) + " --quiet"'}
        """,
    )
    with Engine(Settings(packs=[flags], audit_path=audit_log)) as engine:
        after_packs(engine, "make test")
        decision = engine.before_tool(ls())
        assert decision.action is Action.DENY_TOOL
        assert decision.hook == "pack:flags"
        assert "would rewrite it again into bash 'make test --quiet'" in decision.reason
        assert "a rewrite is judged once" in decision.reason
        assert decision.call is not None and decision.call.args["command"] == "make test"


def test_a_pack_rewrite_itself_is_not_judged_again(tmp_path: Path, audit_log: Path) -> None:
    """The policy's own rewrites keep the chain's semantics (PicoClaw's order)."""
    flags = pack(
        tmp_path,
        "flags",
        """
        rules:
          - id: no-color
            tools: [bash]
            action: modify
            set: {args.command: 'string(args.command) + " --no-color"'}
        """,
    )
    with Engine(Settings(packs=[flags], audit_path=audit_log)) as engine:
        decision = engine.before_tool(ls())
        assert decision.action is Action.MODIFY
        assert decision.call is not None and decision.call.args["command"] == "ls --no-color"


# ---------------------------------------------------------------- builtins


def test_builtins_judge_the_rewrite_but_count_the_call_once(
    builtins_engine: Any,
) -> None:
    """contract_scope's path checks see the rewritten command, and its max_tool_calls
    counts the call once; tool_policy's rate limit too."""
    engine = builtins_engine(
        "scope",
        """
        contract_scope:
          contracts:
            - id: work
              sessions: ["*"]
              tools: [bash]
              scopes: [{tool: bash, paths: ["/srv/work/**"]}]
              max_tool_calls: 2
        tool_policy:
          rate_limits: [{tools: bash, limit: "2/minute"}]
        """,
    )
    after_packs(engine, "cat /srv/work/notes.txt")
    call = ToolCall(tool="bash", args={"command": "ls /srv/work"}, cwd="/srv/work", session="w")
    first = engine.before_tool(call)
    assert first.action is Action.MODIFY, first.reason
    second = engine.before_tool(call)
    assert second.action is Action.MODIFY, second.reason  # counted once each, not twice
    third = engine.before_tool(call)
    assert third.blocked  # the third call is over both limits
    assert "max_tool_calls 2 reached" in third.reason or "rate limit" in third.reason


def test_contract_scope_denies_a_rewrite_out_of_its_paths(builtins_engine: Any) -> None:
    engine = builtins_engine(
        "scope",
        """
        contract_scope:
          contracts:
            - id: work
              sessions: ["*"]
              tools: [bash]
              scopes: [{tool: bash, paths: ["/srv/work/**"]}]
        """,
    )
    after_packs(engine, "cat /etc/shadow")
    call = ToolCall(tool="bash", args={"command": "ls /srv/work"}, cwd="/srv/work", session="w")
    decision = engine.before_tool(call)
    assert decision.action is Action.DENY_TOOL
    assert decision.hook == "builtin:scope/contract_scope"
    assert "'/etc/shadow' is outside the scope" in decision.reason
    assert decision.reason.startswith("rewritten by hook 'rewriter' into bash 'cat /etc/shadow'")


def test_tool_policy_judges_a_rewrite_into_another_tool(builtins_engine: Any) -> None:
    engine = builtins_engine("tp", "tool_policy:\n  deny: [sk_delete_*]\n")
    after_packs(engine, "x", tool="sk_delete_all")
    decision = engine.before_tool(ToolCall(tool="sk_search", args={}, session="s"))
    assert decision.action is Action.DENY_TOOL
    assert "tool 'sk_delete_all' is denied by tool_policy" in decision.reason


def test_autonomy_judges_the_rewrite(builtins_engine: Any) -> None:
    engine = builtins_engine("auto", "autonomy:\n  mode: readonly\n")
    after_packs(engine, "rm notes.txt", tool="bash")
    decision = engine.before_tool(ToolCall(tool="read_file", args={"path": "a"}, session="s"))
    # read_file -> bash `rm`: readonly autonomy refuses what can change things
    assert decision.action is Action.DENY_TOOL
    assert "autonomy" in decision.reason


# ------------------------------------------------------------------- async


def test_the_async_path_judges_the_rewrite_the_same_way(shipped: Engine) -> None:
    after_packs(shipped, "rm -rf /")

    async def both() -> tuple[Decision, Decision]:
        return await shipped.abefore_tool(ls()), shipped.before_tool(ls())

    async_decision, sync_decision = asyncio.run(both())
    assert async_decision.action is Action.DENY_TOOL
    assert async_decision.reason == sync_decision.reason
    assert async_decision.hook == sync_decision.hook


def test_the_async_path_lets_a_harmless_rewrite_stand(audit_log: Path) -> None:
    class AsyncRewriter(Rewriter):
        async def before_tool(self, call: ToolCall) -> Decision:  # type: ignore[override]
            return Rewriter.before_tool(self, call)

    with Engine(Settings(packs=[RULES], audit_path=audit_log)) as engine:
        engine.register(AsyncRewriter("ls -la"), source=HookSource.PROCESS)
        decision = asyncio.run(engine.abefore_tool(ls()))
        assert decision.action is Action.MODIFY and decision.allowed
        denied = Engine(Settings(packs=[RULES], audit_path=audit_log))
        with denied:
            denied.register(AsyncRewriter("rm -rf /"), source=HookSource.PROCESS)
            assert asyncio.run(denied.abefore_tool(ls())).action is Action.DENY_TOOL
            result = asyncio.run(denied.arun_tool(ls(), lambda call: "ran"))
            assert result.is_error and "rewritten by hook" in result.for_llm


# ------------------------------------------------- through `policy hook claude`


def hook_claude(
    tmp_path: Path, command: str, rewrite_to: str, *, packs: bool = True
) -> dict[str, Any] | None:
    """`policy hook claude` with a hosted hooks.json whose one PreToolUse hook prints
    only `updatedInput` (the way rewriting plugins are written)."""
    rewriter = tmp_path / "rewrite.py"
    rewriter.write_text(
        "import json, sys\n"
        "payload = json.load(sys.stdin)\n"
        "tool_input = dict(payload['tool_input'])\n"
        f"tool_input['command'] = {rewrite_to!r}\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',"
        " 'updatedInput': tool_input}}))\n"
    )
    hooks = tmp_path / "hooks.json"
    hooks.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "Bash",
                            "hooks": [
                                {"type": "command", "command": f"{sys.executable} {rewriter}"}
                            ],
                        }
                    ]
                }
            }
        )
    )
    config = tmp_path / "policy.yaml"
    lines = [f"claude_hooks: [{hooks}]", f"audit_path: {tmp_path / 'decisions.log'}"]
    if packs:
        lines.append(f"packs: [{RULES}]")
    config.write_text("\n".join(lines) + "\n")
    payload = {
        "session_id": "s1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(tmp_path),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command, "description": "list"},
        "tool_use_id": "toolu_01",
    }
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    done = subprocess.run(
        [POLICY, "hook", "claude", "--config", str(config)],
        input=orjson.dumps(payload),
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return orjson.loads(done.stdout) if done.stdout.strip() else None


def test_a_hosted_rewrite_alone_gets_no_permission_decision(tmp_path: Path) -> None:
    """The hosted hook only rewrote, and no rule allows `make test`: Claude Code gets
    the rewrite without `allow`, so its own prompt (or rules) still decide."""
    answer = hook_claude(tmp_path, "ls", "make test")
    assert answer is not None
    output = answer["hookSpecificOutput"]
    assert "permissionDecision" not in output
    assert output == {
        "hookEventName": "PreToolUse",
        "updatedInput": {"command": "make test", "description": "list"},
    }


def test_a_hosted_rewrite_alone_without_packs_gets_no_permission_decision(
    tmp_path: Path,
) -> None:
    answer = hook_claude(tmp_path, "ls", "ls -la", packs=False)
    assert answer is not None
    assert "permissionDecision" not in answer["hookSpecificOutput"]
    assert answer["hookSpecificOutput"]["updatedInput"]["command"] == "ls -la"


def test_a_hosted_rewrite_an_allow_rule_judged_is_allowed(tmp_path: Path) -> None:
    answer = hook_claude(tmp_path, "ls", "ls -la")
    assert answer is not None
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "allow"
    assert output["updatedInput"]["command"] == "ls -la"


def test_a_hosted_rewrite_into_rm_rf_is_denied(tmp_path: Path) -> None:
    answer = hook_claude(tmp_path, "ls", "rm -rf /")
    assert answer is not None
    output = answer["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "updatedInput" not in output
    reason = output["permissionDecisionReason"]
    assert reason.startswith("rewritten by hook 'claude:")
    assert "into bash 'rm -rf /'; denied by rule destruction/" in reason


def test_a_hook_that_hands_the_call_back_unchanged_rewrote_nothing(
    tmp_path: Path, audit_log: Path
) -> None:
    """A hook echoing the call it got (PicoClaw's process hooks echo whole params) is no
    rewrite: a pack's own rewrite stands, and is not judged again (which would rewrite
    it a second time and deny it)."""
    flags = pack(
        tmp_path,
        "flags",
        """
        rules:
          - id: no-color
            tools: [bash]
            action: modify
            set: {args.command: 'string(args.command) + " --no-color"'}
        """,
    )

    class Echo:
        name = "echo"

        def before_tool(self, call: ToolCall) -> Decision:
            return Decision(Action.MODIFY, "echoed", call=call.replace(args=dict(call.args)))

    with Engine(Settings(packs=[flags], audit_path=audit_log)) as engine:
        engine.register(Echo(), source=HookSource.PROCESS)
        decision = engine.before_tool(ls())
        assert decision.action is Action.MODIFY
        assert decision.hook == "pack:flags"
        assert decision.call is not None and decision.call.args["command"] == "ls --no-color"


ECHO_HOOK = """
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    params = message.get("params") or {}
    if message["method"] == "hook.before_tool":
        # as some PicoClaw hooks do: hand the whole call back, changed or not
        result = {"action": "modify", "call": {"tool": params.get("tool"),
                  "arguments": params.get("arguments") or {}}}
    elif message["method"] == "hook.hello":
        result = {"ok": True, "name": "echo"}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


def test_a_picoclaw_process_hook_echoing_whole_params_after_a_pack_rewrite(
    tmp_path: Path,
) -> None:
    """A real process hook (JSON-RPC over stdio) that echoes every call back as `modify`,
    running after a pack that rewrote the call: what it hands back is the pack's
    rewrite, unchanged — no rewrite of its own, nothing to judge again, no denial."""
    import sys as _sys

    hook = tmp_path / "echo.py"
    hook.write_text(ECHO_HOOK)
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules:\n"
        "  - id: no-color\n    tools: [bash]\n    when: '!args.command.contains(\"--color\")'\n"
        "    action: modify\n"
        "    set: {args.command: 'args.command + \" --color=never\"'}\n"
    )
    process = {
        "enabled": True,
        "transport": "stdio",
        "command": [_sys.executable, str(hook)],
        "intercept": ["before_tool"],
    }
    with Engine(
        Settings(packs=[pack], hooks={"processes": {"echo": process}}, audit_path=tmp_path / "l")
    ) as engine:
        decision = engine.before_tool(ToolCall(tool="Bash", args={"command": "ls"}))
        assert decision.action is Action.MODIFY
        assert decision.call is not None
        assert decision.call.args == {"command": "ls --color=never"}
        assert decision.hook == "pack:p"  # the echo changed nothing


def test_a_rewrite_into_another_tool_is_refused_where_the_host_keeps_the_tool(
    tmp_path: Path,
) -> None:
    """Claude Code applies new arguments to the tool it asked for: a hook that renames the
    tool (judged as `Noop`, run as Bash) must not get its arguments through."""
    from policy.hosts.claude.decide import decide
    from policy.hosts.claude.wire import event_of

    class Renamer:
        name = "renamer"

        def before_tool(self, call: ToolCall) -> Decision:
            return Decision(
                Action.MODIFY,
                "renamed",
                call=call.replace(tool="Noop", args={"command": "rm -rf /"}),
            )

    with Engine(Settings(packs=[Path("rules")], audit_path=tmp_path / "l")) as engine:
        engine.register(Renamer(), priority=500)
        payload = {
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": str(tmp_path),
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "ls"},
            "tool_use_id": "t1",
        }
        answer = decide(engine, event_of(payload, "claude"), "auto")
        assert answer is not None
        output = answer["hookSpecificOutput"]
        assert output["permissionDecision"] == "deny"
        assert "cannot change a call's tool" in output["permissionDecisionReason"]
        assert "updatedInput" not in output


def test_a_pack_rewriting_after_a_hooks_rewrite_does_not_hide_it_from_earlier_packs(
    tmp_path: Path,
) -> None:
    """Hook H (between pack A and pack B) rewrites `ls` into `rm -rf /`, then B rewrites
    again: A, which judged only `ls`, must still judge what H made."""
    late = tmp_path / "late.yaml"
    late.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: late\npriority: 900\nrules:\n"
        "  - id: tag\n    tools: [bash]\n    when: '!args.command.endsWith(\" #ok\")'\n"
        "    action: modify\n    set: {args.command: 'args.command + \" #ok\"'}\n"
    )

    class Rewriter:
        name = "rewriter"

        def before_tool(self, call: ToolCall) -> Decision:
            return Decision(Action.MODIFY, "mine", call=call.replace(args={"command": "rm -rf /"}))

    with Engine(Settings(packs=[Path("rules"), late], audit_path=tmp_path / "l")) as engine:
        engine.register(Rewriter(), priority=500)
        decision = engine.before_tool(ToolCall(tool="Bash", args={"command": "ls"}))
        assert decision.action is Action.DENY_TOOL
        assert "rewriter" in decision.reason


def test_every_builtin_hook_says_how_it_is_judged_again() -> None:
    """How a builtin is judged again is its own `rejudge` attribute (policy.rejudge),
    never a list in the engine: a new builtin that counts calls and forgets to say so
    would count a rewritten call twice, so every builtin hook class must say."""
    import importlib
    import inspect
    import pkgutil

    import policy.builtins
    from policy.rejudge import REJUDGE_MODES

    hooks = [
        cls
        for info in pkgutil.iter_modules(policy.builtins.__path__)
        for _, cls in inspect.getmembers(
            importlib.import_module(f"policy.builtins.{info.name}"), inspect.isclass
        )
        if cls.__module__ == f"policy.builtins.{info.name}"
        and getattr(cls, "inline", False)  # every builtin hook runs inline
    ]
    assert {cls.__name__ for cls in hooks} >= {
        "Autonomy",
        "ContractScope",
        "ToolPolicy",
        "AuditHook",
    }
    for cls in hooks:
        assert vars(cls).get("rejudge") in REJUDGE_MODES, cls.__name__


def test_a_hook_whose_rejudge_is_not_a_mode_is_refused_at_registration() -> None:
    from policy.errors import HookRegistrationError
    from policy.rejudge import mode_of

    class Odd:
        name = "odd"
        rejudge = "sometimes"

    class Checks:
        name = "checks"
        rejudge = "checks"  # without rejudge_checks

    for hook in (Odd(), Checks()):
        with pytest.raises(HookRegistrationError, match="rejudge"):
            mode_of(hook)
    assert mode_of(object()) == "always"
