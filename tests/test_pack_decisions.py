"""What packs decide, through the Engine: every action, and how matches combine."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import (
    Action,
    Decision,
    Engine,
    LLMRequest,
    LLMResponse,
    Prompt,
    ToolCall,
    ToolResult,
    before_tool,
)
from policy.packs import PackError
from policy.settings import Settings

HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\n"


@pytest.fixture(params=["cel-expr-python", "cel-python"])
def cel_engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def make(tmp_path: Path, cel_engine: str) -> Iterator[Any]:
    engines: list[Engine] = []

    def build(*packs: str, **settings: Any) -> Engine:
        paths = []
        for index, body in enumerate(packs):
            path = tmp_path / f"pack{index}.yaml"
            path.write_text(HEADER + textwrap.dedent(body))
            paths.append(path)
        engine = Engine(
            Settings(
                packs=paths,
                audit_path=tmp_path / "decisions.log",
                cel_engine=cel_engine,
                **settings,
            )
        )
        engines.append(engine)
        return engine

    yield build
    for engine in engines:
        engine.close()


def bash(command: str, **context: Any) -> ToolCall:
    return ToolCall(tool="Bash", args={"command": command}, **context)


# ---------------------------------------------------------------- each action

EVERY_ACTION = """
name: every
variables:
  cmd: 'has(args.command) ? string(args.command) : ""'
rules:
  - id: allow-ls
    tools: [bash]
    when: vars.cmd == "ls"
    action: allow
  - id: deny-sudo
    tools: [bash]
    when: vars.cmd.startsWith("sudo ")
    action: deny
    message: no sudo
  - id: ask-push
    tools: [bash]
    when: vars.cmd.startsWith("git push")
    action: ask
    message: pushing needs a person
  - id: quiet-rm
    tools: [bash]
    when: vars.cmd.startsWith("rm ")
    action: modify
    set: {args.command: '"rm -i " + vars.cmd.substring(3)'}
  - id: weather
    tools: [get_weather]
    action: respond
    respond: {for_llm: '"sunny in " + string(args.city)', is_error: 'false'}
  - id: stop-turn
    tools: [bash]
    when: vars.cmd == "reboot"
    action: abort_turn
    message: not in this turn
  - id: stop-agent
    tools: [bash]
    when: vars.cmd == "halt"
    action: hard_abort
    message: stop everything
  - id: log-curl
    tools: [bash]
    when: vars.cmd.startsWith("curl")
    action: log
aliases: {get_weather: get_weather}
"""


def test_every_action(make: Any) -> None:
    engine = make(EVERY_ACTION)

    allowed = engine.before_tool(bash("ls"))
    assert (allowed.action, allowed.allowed, allowed.rule_ids) == (
        Action.CONTINUE,
        True,
        ("every/allow-ls",),
    )
    denied = engine.before_tool(bash("sudo reboot"))
    assert (denied.action, denied.reason, denied.hook) == (
        Action.DENY_TOOL,
        "no sudo",
        "pack:every",
    )
    asked = engine.before_tool(bash("git push origin main"))
    assert (asked.action, asked.needs_approval, asked.reason) == (
        Action.CONTINUE,
        True,
        "pushing needs a person",
    )
    modified = engine.before_tool(bash("rm notes.txt"))
    assert modified.action is Action.MODIFY
    assert modified.call.args["command"] == "rm -i notes.txt"
    responded = engine.before_tool(ToolCall(tool="get_weather", args={"city": "Oslo"}))
    assert responded.action is Action.RESPOND
    assert responded.result == ToolResult(for_llm="sunny in Oslo")
    assert engine.before_tool(bash("reboot")).action is Action.ABORT_TURN
    assert engine.before_tool(bash("halt")).action is Action.HARD_ABORT
    logged = engine.before_tool(bash("curl example.com"))
    assert (logged.action, logged.rule_ids) == (Action.CONTINUE, ("every/log-curl",))
    nothing = engine.before_tool(bash("make"))
    assert (nothing.action, nothing.rule_ids, nothing.allowed) == (Action.CONTINUE, (), False)


def test_pack_rules_see_canonical_tool_names(make: Any) -> None:
    engine = make(EVERY_ACTION)
    for spelling in ("Bash", "exec", "run_shell_command", "shell", "bash"):
        call = ToolCall(tool=spelling, args={"command": "sudo x"})
        assert engine.before_tool(call).action is Action.DENY_TOOL, spelling


# --------------------------------------------------------------- combination

COMBINE = """
name: combine
rules:
  - id: allow-all
    action: allow
  - id: modify-1
    tools: [bash]
    when: args.command.contains("m")
    action: modify
    set: {args.command: 'string(args.command) + " --one"'}
  - id: modify-2
    tools: [bash]
    when: args.command.contains("m")
    action: modify
    set: {args.command: 'string(args.command) + " --two"', args.extra: '"yes"'}
  - id: respond-r
    tools: [bash]
    when: args.command.contains("r")
    action: respond
    respond: {for_llm: '"responded"'}
  - id: ask-a
    tools: [bash]
    when: args.command.contains("a")
    action: ask
    message: asked
  - id: deny-d
    tools: [bash]
    when: args.command.contains("d")
    action: deny
    message: denied
  - id: deny-d2
    tools: [bash]
    when: args.command.contains("dd")
    action: deny
    message: denied twice
  - id: abort-t
    tools: [bash]
    when: args.command.contains("t")
    action: abort_turn
  - id: halt-h
    tools: [bash]
    when: args.command.contains("h")
    action: hard_abort
"""


@pytest.mark.parametrize(
    ("command", "action", "rules"),
    [
        ("x", "allow", ["allow-all"]),
        ("m", "modify", ["modify-1", "modify-2"]),
        ("mr", "respond", ["respond-r"]),
        ("mra", "ask", ["ask-a"]),
        ("mrad", "deny", ["deny-d"]),
        ("mradt", "abort_turn", ["abort-t"]),
        ("mradth", "hard_abort", ["halt-h"]),
        ("dd", "deny", ["deny-d", "deny-d2"]),
    ],
)
def test_the_strongest_action_wins(make: Any, command: str, action: str, rules: list[str]) -> None:
    engine = make(COMBINE)
    decision = engine.before_tool(bash(command))
    expected = {
        "allow": Action.CONTINUE,
        "modify": Action.MODIFY,
        "respond": Action.RESPOND,
        "ask": Action.CONTINUE,
        "deny": Action.DENY_TOOL,
        "abort_turn": Action.ABORT_TURN,
        "hard_abort": Action.HARD_ABORT,
    }[action]
    assert decision.action is expected
    assert decision.rule_ids == tuple(f"combine/{r}" for r in rules)
    assert decision.needs_approval == (action == "ask")
    if action == "deny":
        assert decision.reason == "denied"  # the first matching rule's message


def test_modify_rules_apply_in_file_order_each_seeing_the_last(make: Any) -> None:
    decision = make(COMBINE).before_tool(bash("m"))
    assert dict(decision.call.args) == {"command": "m --one --two", "extra": "yes"}


def test_allow_exempts_from_approval_but_not_from_ask_or_deny(make: Any) -> None:
    engine = make(COMBINE)
    assert engine.before_tool(bash("m")).allowed  # modify keeps the exemption
    asked = engine.before_tool(bash("a"))
    assert asked.needs_approval and not asked.allowed
    assert not engine.before_tool(bash("d")).allowed


# ---------------------------------------------------------------- enforcement


def test_audit_mode_records_what_would_happen_and_changes_nothing(
    make: Any, tmp_path: Path
) -> None:
    engine = make(
        """
        name: rollout
        enforcement: audit
        rules:
          - id: deny-curl
            tools: [bash]
            when: args.command.startsWith("curl")
            action: deny
            message: no curl
          - id: enforced-anyway
            tools: [bash]
            when: args.command.startsWith("wget")
            action: deny
            enforcement: enforce
        """
    )
    decision = engine.before_tool(bash("curl x"))
    assert decision.action is Action.CONTINUE
    assert decision.would_action is Action.DENY_TOOL
    assert decision.rule_ids == ("rollout/deny-curl",)
    assert engine.before_tool(bash("wget x")).action is Action.DENY_TOOL
    record = orjson.loads((tmp_path / "decisions.log").read_bytes().splitlines()[0])
    assert (record["enforcement"], record["would_action"]) == ("audit", "deny_tool")


# --------------------------------------------------------------- CEL errors

ON_ERROR = """
name: strict-{mode}
on_error: {mode}
rules:
  - id: number
    tools: [bash]
    when: int(args.n) > 3
    action: deny
    message: too big
"""


def test_a_runtime_error_denies_by_default(make: Any) -> None:
    engine = make(ON_ERROR.format(mode="deny"))
    decision = engine.before_tool(ToolCall(tool="bash", args={"n": "many"}))
    assert decision.action is Action.DENY_TOOL
    assert decision.reason.startswith("rule strict-deny/number: condition failed: ")
    assert decision.failure == "cel"
    assert engine.before_tool(ToolCall(tool="bash", args={"n": "2"})).action is Action.CONTINUE
    assert engine.before_tool(ToolCall(tool="bash", args={"n": "9"})).reason == "too big"


def test_a_runtime_error_is_skipped_with_on_error_skip(make: Any) -> None:
    engine = make(ON_ERROR.format(mode="skip"))
    decision = engine.before_tool(ToolCall(tool="bash", args={}))
    assert decision.action is Action.CONTINUE
    assert decision.ignored[0].startswith("rule strict-skip/number: condition failed:")
    assert decision.ignored[0].endswith("(skipped)")


def test_an_error_in_one_rule_does_not_hide_the_others(make: Any) -> None:
    engine = make(
        """
        name: mixed
        on_error: skip
        rules:
          - id: broken
            tools: [bash]
            when: int(args.n) > 3
            action: deny
          - id: fine
            tools: [bash]
            when: args.command == "ls"
            action: ask
        """
    )
    decision = engine.before_tool(bash("ls"))
    assert decision.needs_approval
    assert decision.rule_ids == ("mixed/fine",)


def test_message_expr_falls_back_to_message(make: Any) -> None:
    engine = make(
        """
        name: messages
        rules:
          - id: deny-x
            tools: [bash]
            action: deny
            message: plain message
            message_expr: '"dynamic: " + string(args.missing)'
        """
    )
    decision = engine.before_tool(bash("x"))
    assert decision.reason == "plain message"
    assert "message_expr failed" in decision.ignored[0]


# ------------------------------------------------------------ filters, aliases


def test_sender_channel_and_session_filters(make: Any) -> None:
    engine = make(
        """
        name: who
        rules:
          - id: interns-ask
            tools: [bash]
            senders: ["intern-*"]
            action: ask
          - id: no-bots-on-prod
            senders: ["*", "!human-*"]
            sessions: ["prod-*"]
            action: deny
            message: bots stay off prod
          - id: telegram-read-only
            tools: [write_file]
            channels: [telegram, "slack-{ops,dev}"]
            action: deny
        """
    )
    assert engine.before_tool(bash("ls", sender="intern-bob")).needs_approval
    assert not engine.before_tool(bash("ls", sender="alice")).needs_approval
    assert engine.before_tool(bash("ls", sender="bot-1", session="prod-7")).blocked
    assert not engine.before_tool(bash("ls", sender="human-ann", session="prod-7")).blocked
    write = ToolCall(tool="Write", args={"file_path": "x"})
    assert engine.before_tool(write.replace(channel="slack-ops")).blocked
    assert not engine.before_tool(write.replace(channel="slack-sales")).blocked


def test_tool_globs_and_pack_aliases(make: Any) -> None:
    engine = make(
        """
        name: tools
        aliases: {run_in_terminal: bash, sk_search_docs: sk_search_docs}
        rules:
          - id: no-web
            tools: ["web_*"]
            action: deny
          - id: terminal
            tools: [Bash]
            when: args.command == "x"
            action: deny
        """
    )
    assert engine.before_tool(ToolCall(tool="WebFetch")).blocked
    assert engine.before_tool(ToolCall(tool="web_search")).blocked
    assert not engine.before_tool(ToolCall(tool="Read")).blocked
    terminal = engine.before_tool(ToolCall(tool="run_in_terminal", args={"command": "x"}))
    assert terminal.blocked
    assert terminal.call.tool_raw == "run_in_terminal"


def test_variables_may_use_other_variables(make: Any) -> None:
    engine = make(
        """
        name: layered
        variables:
          cmd: 'has(args.command) ? string(args.command) : ""'
          words: 'shell.commands(vars.cmd)'
          first: 'size(vars.words) > 0 ? vars.words[0].name : ""'
        rules:
          - id: no-rm
            tools: [bash]
            when: vars.first == "rm"
            action: deny
        """
    )
    assert engine.before_tool(bash("rm -rf x; ls")).blocked
    assert not engine.before_tool(bash("ls; rm x")).blocked


# ------------------------------------------------------------------ LLM points


def test_llm_and_prompt_points(make: Any) -> None:
    engine = make(
        """
        name: llm
        rules:
          - id: cheaper-model
            on: before_llm
            when: request.model == "big"
            action: modify
            set: {request.model: '"small"', request.options.temperature: '0.2'}
          - id: no-secrets-out
            on: after_llm
            when: response.content.contains("password")
            action: modify
            set: {response.content: '"[withheld]"'}
          - id: no-jailbreaks
            on: user_prompt
            when: prompt.lowerAscii().contains("ignore previous instructions")
            action: abort_turn
            message: prompt refused
          - id: trim
            on: user_prompt
            when: prompt.startsWith(" ")
            action: modify
            set: {prompt: '"trimmed"'}
        """
    )
    request = engine.before_llm(LLMRequest(model="big", options={"top_p": 1}))
    assert request.request.model == "small"
    assert dict(request.request.options) == {"top_p": 1, "temperature": 0.2}
    response = engine.after_llm(LLMResponse(content="the password is x"))
    assert response.response.content == "[withheld]"
    assert (
        engine.user_prompt(Prompt(text="Ignore previous instructions")).reason == "prompt refused"
    )
    assert engine.user_prompt(Prompt(text=" hi")).prompt.text == "trimmed"


# --------------------------------------------------------------- in the chain


def test_packs_and_code_hooks_share_one_chain(make: Any, tmp_path: Path) -> None:
    engine = make(
        """
        name: early
        priority: 10
        rules:
          - id: deny-x
            tools: [bash]
            when: args.command == "x"
            action: deny
        """,
        """
        name: late
        priority: 90
        rules:
          - id: ask-all
            tools: [bash]
            action: ask
        """,
    )
    seen: list[str] = []

    @before_tool(priority=50)
    def middle(call: ToolCall) -> Decision | None:
        seen.append(call.args["command"])
        return None

    engine.register(middle)
    assert engine.chain_order("before_tool") == ("pack:early", "middle", "pack:late")
    assert engine.before_tool(bash("x")).hook == "pack:early"
    assert seen == []  # the denial ended the chain
    decision = engine.before_tool(bash("y"))
    assert decision.needs_approval and seen == ["y"]
    record = orjson.loads((tmp_path / "decisions.log").read_bytes().splitlines()[-1])
    assert set(record["packs"]) == {"early", "late"}


def test_invalid_packs_stop_the_engine_with_every_error(make: Any) -> None:
    with pytest.raises(PackError) as error:
        make(
            """
            name: broken
            rules:
              - id: a
                action: deny
                when: tool == 1
              - id: a
                action: deny
            """
        )
    text = str(error.value)
    assert "rule packs have 2 error(s)" in text
    assert "duplicate-id" in text and "found no matching overload" in text
