"""Each host's vocabulary is written once, both ways (policy/hosts/<host>/wire.py): what
we send as the host reads back, as the hook, as what was sent — and what we answer as
the hook reads back, as the host, as what was decided."""

from __future__ import annotations

from typing import Any

import pytest

from policy.errors import InputError
from policy.hosts.claude import wire as claude
from policy.hosts.claude.dialect import DIALECTS
from policy.hosts.picoclaw import wire as picoclaw
from policy.model import (
    Action,
    Decision,
    FrozenDict,
    LLMRequest,
    LLMResponse,
    Prompt,
    ToolCall,
    ToolResult,
)

WHO = {
    "sender": "u1",
    "channel": "telegram",
    "chat_id": "c9",
    "session": "s1",
    "agent": "main",
    "turn": "t7",
    "host": "picoclaw",
}
CONTEXT_FIELDS = ("sender", "channel", "chat_id", "session", "agent", "turn", "host")


def _same_context(back: Any, sent: Any) -> None:
    for name in CONTEXT_FIELDS:
        assert getattr(back, name) == getattr(sent, name), name


# --------------------------------------------------------------------- PicoClaw


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"tool": "exec", "arguments": ["ls"]}, "arguments"),
        ({"tool": "exec", "meta": "main"}, "meta"),
        ({"tool": "exec", "context": []}, "context"),
        ({"tool": "exec", "context": {"inbound": 7}}, "inbound"),
    ],
)
def test_a_picoclaw_call_whose_parts_are_no_objects_is_refused(
    params: dict[str, Any], named: str
) -> None:
    with pytest.raises(InputError, match=f"{named} must be an object"):
        picoclaw.call_of(params)


def test_a_picoclaw_call_is_its_own_copy_of_what_was_sent() -> None:
    """Parts PicoClaw leaves out are empty; what it sent is copied, not held: a host
    that reuses its maps changes no call already made."""
    bare = picoclaw.call_of({"tool": "exec"})
    assert (bare.args, bare.meta, bare.sender, bare.session) == ({}, {}, "", "")
    arguments, meta = {"command": "ls", "deep": [1]}, {"SessionKey": "s", "Iteration": 2}
    inbound = {"sender_id": "alice", "channel": 5}  # (a field that is no string: empty)
    call = picoclaw.call_of(
        {"tool": "exec", "arguments": arguments, "meta": meta, "context": {"inbound": inbound}}
    )
    arguments["command"] = "rm -rf /"
    meta["SessionKey"] = "other"
    assert call.args == {"command": "ls", "deep": (1,)} and type(call.args) is FrozenDict
    assert call.meta == {"SessionKey": "s", "Iteration": 2} and type(call.meta) is FrozenDict
    assert (call.session, call.sender, call.channel) == ("s", "alice", "")


def test_picoclaw_params_we_send_read_back_as_sent() -> None:
    call = ToolCall(
        tool="exec", args={"command": "ls", "deep": [1, {"a": 2}]}, meta={"Iteration": 3}, **WHO
    )
    back = picoclaw.call_of(picoclaw.call_params(call))
    _same_context(back, call)
    assert (back.tool, back.tool_raw, back.args) == (call.tool, call.tool_raw, call.args)
    assert back.meta["Iteration"] == 3 and back.meta["SessionKey"] == "s1"

    result = ToolResult(for_llm="out", for_user="shown", silent=True, is_error=True, duration=1.5)
    assert picoclaw.result_of(picoclaw.after_tool_params(call, result)) == result

    request = LLMRequest(
        model="m1",
        messages=({"role": "user", "content": "hi"},),
        tools=({"name": "exec"},),
        options={"temperature": 0.2},
        **WHO,
    )
    got = picoclaw.request_of(picoclaw.request_params(request))
    _same_context(got, request)
    assert (got.model, got.messages, got.tools, got.options) == (
        request.model,
        request.messages,
        request.tools,
        request.options,
    )

    response = LLMResponse(
        model="m1",
        content="hello",
        reasoning="because",
        tool_calls=({"id": "c1"},),
        finish_reason="stop",
        usage={"total_tokens": 9},
        **WHO,
    )
    heard = picoclaw.response_of(picoclaw.response_params(response))
    _same_context(heard, response)
    for name in ("model", "content", "reasoning", "tool_calls", "finish_reason", "usage"):
        assert getattr(heard, name) == getattr(response, name), name


@pytest.mark.parametrize("action", [Action.CONTINUE, Action.DENY_TOOL, Action.ABORT_TURN])
def test_picoclaw_answers_we_give_read_back_as_decided(action: Action) -> None:
    call = ToolCall(tool="exec", args={"command": "ls"}, **WHO)
    answer = picoclaw.before_tool_answer(Decision(action, "why"), call, approves=True)
    assert picoclaw.answer_action(answer) == (action.value, "why")
    assert picoclaw.answer_call(answer, "exec") is None


def test_picoclaw_rewrites_we_answer_read_back_as_rewritten() -> None:
    call = ToolCall(tool="exec", args={"command": "rm -rf /"}, **WHO)
    modify = Decision(Action.MODIFY, "safer", call=call.replace(args={"command": "ls"}))
    answer = picoclaw.before_tool_answer(modify, call, approves=True)
    assert picoclaw.answer_action(answer) == ("modify", "safer")
    assert picoclaw.answer_call(answer, "exec") == ("exec", {"command": "ls"})

    sent = picoclaw.after_tool_params(call, ToolResult(for_llm="secret"))
    redacted = ToolResult(for_llm="[redacted]", for_user="x")
    answer = picoclaw.after_tool_answer(Decision(Action.MODIFY, "r", result=redacted), sent)
    raw = picoclaw.inner(picoclaw.answer_result(answer), "result", ("for_llm",))
    assert raw is not None and picoclaw.tool_result(raw) == redacted

    response = LLMResponse(model="m1", content="secret", **WHO)
    sent = picoclaw.response_params(response)
    changed = response.replace(content="[redacted]")
    answer = picoclaw.after_llm_answer(Decision(Action.MODIFY, "r", response=changed), sent)
    raw = picoclaw.inner(answer["response"], "response", ("content", "finish_reason"))
    assert raw is not None and picoclaw.response_update(raw, response) == changed

    request = LLMRequest(model="m1", messages=({"role": "user", "content": "a"},), **WHO)
    sent = picoclaw.request_params(request)
    shorter = request.replace(messages=())
    answer = picoclaw.before_llm_answer(Decision(Action.MODIFY, "r", request=shorter), sent)
    assert picoclaw.request_update(answer["request"], request) == shorter


# ------------------------------------------------------------ Claude / Agentao


@pytest.mark.parametrize("shape", ["claude", "agentao"])
def test_claude_payloads_we_send_read_back_as_sent(shape: str) -> None:
    dialect = DIALECTS[shape]
    context = Prompt(session="s1", cwd="/srv/app")
    fields = claude.tool_fields(dialect, "Bash", {"command": "ls"}, "toolu_1")
    event = claude.event_of(
        claude.payload(dialect, "PreToolUse", context, "/srv/app", fields), shape
    )
    assert (event.name, event.tool, event.tool_input, event.tool_use_id) == (
        "PreToolUse",
        "Bash",
        {"command": "ls"},
        "toolu_1",
    )
    assert (event.session, event.cwd, event.flat) == ("s1", "/srv/app", shape == "agentao")
    call = claude.call_of(event)
    assert (call.tool_raw, dict(call.args), call.call_id) == ("Bash", {"command": "ls"}, "toolu_1")
    assert call.host == dialect.host_id

    fields.update(claude.result_fields(dialect, failure=False, text="total 0", duration=0.2))
    after = claude.event_of(claude.payload(dialect, "PostToolUse", context, "/", fields), shape)
    assert claude.result_of(after) == ToolResult(for_llm="total 0")

    said = claude.prompt_fields(dialect, "hello")
    prompt = claude.event_of(claude.payload(dialect, "UserPromptSubmit", context, "/", said), shape)
    assert claude.prompt_of(prompt).text == "hello"
    assert claude.prompt_of(prompt).host == dialect.host_id  # logged with its host


def test_one_event_list_for_the_server_and_the_hooks_file() -> None:
    assert claude.POINT_EVENTS == (
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "UserPromptSubmit",
        "Stop",
        "SubagentStop",
    )
    assert set(claude.POINT_EVENTS) >= claude.TOOL_EVENTS
    assert set(claude.POINT_EVENTS) >= claude.GUARD_EVENTS
    for name in claude.EVENTS:  # every event the hosts know is one `policy hook` takes
        payload = {"session_id": "s", "cwd": "/", "hook_event_name": name}
        if name in claude.TOOL_EVENTS:
            payload.update(tool_name="Bash", tool_input={})
        assert claude.event_of(payload, "claude").name == name
