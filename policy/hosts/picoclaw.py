"""PicoClaw process hooks: its JSON-RPC params in, the result shapes it reads out.

Facts from PicoClaw's `pkg/agent/hook_process.go` and `hooks.go` (the code wins where
`hook-json-protocol.md` differs):

* `meta` has Go field names (`AgentID`, `TurnID`, `SessionKey`, ...); who asked is
  under `context.inbound` (`sender_id`, `channel`, `chat_id`), never at top level.
* before_tool: `call` replaces the host's call wholesale (tool AND arguments), so it is
  always sent complete, with the host's own tool name; `respond` needs `result`.
* after_tool and after_llm: the new result/response goes one level down, inside the
  whole params object echoed back (`result.result`, `result.response.response`); a
  flat object is silently ignored by the host.
* An error reply, or no reply in time, makes PicoClaw SKIP an interceptor (fail open)
  and deny an approval. So interceptors always get a result — a refusal when anything
  goes wrong — never a JSON-RPC error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policy.errors import InputError
from policy.model import Decision, LLMRequest, LLMResponse, ToolCall, ToolResult

__all__ = [
    "after_llm_answer",
    "after_tool_answer",
    "before_llm_answer",
    "before_tool_answer",
    "call_of",
    "request_of",
    "response_of",
    "result_of",
]

HOST = "picoclaw"


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{where} must be an object")
    return value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _context(params: Mapping[str, Any]) -> dict[str, Any]:
    meta = _mapping(params.get("meta"), "meta")
    inbound = _mapping(_mapping(params.get("context"), "context").get("inbound"), "inbound")
    return {
        "sender": _text(inbound.get("sender_id")),
        "channel": _text(inbound.get("channel")),
        "chat_id": _text(inbound.get("chat_id")),
        "session": _text(meta.get("SessionKey")),
        "agent": _text(meta.get("AgentID")),
        "turn": _text(meta.get("TurnID")),
        "host": HOST,
        "meta": dict(meta),
    }


def call_of(params: Mapping[str, Any]) -> ToolCall:
    tool = params.get("tool")
    if not isinstance(tool, str) or not tool:
        raise InputError("params.tool must be a tool name")
    arguments = _mapping(params.get("arguments"), "arguments")  # PicoClaw omits {}
    return ToolCall(tool=tool, args=dict(arguments), **_context(params))


def result_of(params: Mapping[str, Any]) -> ToolResult:
    raw = _mapping(params.get("result"), "result")
    duration = params.get("duration")
    return ToolResult(
        for_llm=_text(raw.get("for_llm")),
        for_user=_text(raw.get("for_user")),
        silent=raw.get("silent") is True,
        is_error=raw.get("is_error") is True,
        async_=raw.get("async") is True,
        response_handled=raw.get("response_handled") is True,
        duration=duration / 1e9 if isinstance(duration, int | float) else 0.0,  # ns
    )


def request_of(params: Mapping[str, Any]) -> LLMRequest:
    return LLMRequest(
        model=_text(params.get("model")),
        messages=tuple(params.get("messages") or ()),
        tools=tuple(params.get("tools") or ()),
        options=dict(_mapping(params.get("options"), "options")),
        **_context(params),
    )


def response_of(params: Mapping[str, Any]) -> LLMResponse:
    raw = _mapping(params.get("response"), "response")
    return LLMResponse(
        model=_text(params.get("model")),
        content=_text(raw.get("content")),
        reasoning=_text(raw.get("reasoning_content")),
        tool_calls=tuple(raw.get("tool_calls") or ()),
        finish_reason=_text(raw.get("finish_reason")),
        usage=dict(_mapping(raw.get("usage"), "usage")),
        **_context(params),
    )


def _tool_result(result: ToolResult) -> dict[str, Any]:
    return {
        "for_llm": result.for_llm,
        "for_user": result.for_user,
        "silent": result.silent,
        "is_error": result.is_error,
    }


def before_tool_answer(decision: Decision, original: ToolCall, *, approves: bool) -> dict[str, Any]:
    """`approves`: PicoClaw asks this hook at approve_tool (its hello said so)."""
    action = decision.action.value
    answer: dict[str, Any] = {"action": action, "reason": decision.reason}
    if action == "respond" and decision.result is not None:
        answer["result"] = _tool_result(decision.result)
        return answer
    if action in ("deny_tool", "abort_turn", "hard_abort"):
        return answer
    if decision.needs_approval and not approves:
        return {
            "action": "deny_tool",
            "reason": f"{decision.reason or 'approval required'}; this hook is not mounted "
            "for approve_tool, so nobody can approve it",
        }
    if action == "modify" and decision.call is not None:
        # Wholesale replacement: the host's own tool name, every argument.
        answer["call"] = {"tool": original.tool_raw, "arguments": _plain(decision.call.args)}
    return answer


def after_tool_answer(decision: Decision, params: Mapping[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = {"action": decision.action.value, "reason": decision.reason}
    if decision.action.value == "modify" and decision.result is not None:
        envelope = dict(params)
        envelope["result"] = _tool_result(decision.result)
        answer["result"] = envelope
    return answer


def before_llm_answer(decision: Decision, params: Mapping[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = {"action": decision.action.value, "reason": decision.reason}
    if decision.action.value == "modify" and decision.request is not None:
        request = dict(params)  # the whole request: PicoClaw empties what is left out
        request["model"] = decision.request.model
        request["messages"] = _plain(decision.request.messages)
        request["options"] = _plain(decision.request.options)
        answer["request"] = request
    return answer


def after_llm_answer(decision: Decision, params: Mapping[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = {"action": decision.action.value, "reason": decision.reason}
    if decision.action.value == "modify" and decision.response is not None:
        envelope = dict(params)
        response = dict(_mapping(params.get("response"), "response"))
        response["content"] = decision.response.content
        envelope["response"] = response
        answer["response"] = envelope
    return answer


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
