"""PicoClaw's process-hook vocabulary, both ways: its params and the model, the model
and its answers.

We stand on both sides of this protocol: as a hook (`policy hook picoclaw`, we read
params and write answers) and as a host (`hooks.processes`, we write params and read
answers). Each field is mapped here once, the two directions side by side, so the
two sides cannot drift apart.

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

As a host we also speak the older dialect of the seed documents (DESIGN §7): requests
carry both key sets (`name`/`args`, `protocol_version`, `hook.event` `{type, data}`),
and answers are read in both (`{"args": ...}`, `{"allow": bool}`, `{"decision":
{"action"}, "hook_result"}`).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from typing import Any

from policy.errors import InputError
from policy.model import (
    CallContext,
    Decision,
    Event,
    FrozenDict,
    LLMRequest,
    LLMResponse,
    ToolCall,
    ToolResult,
)

__all__ = [
    "HOST",
    "MODES",
    "after_llm_answer",
    "after_tool_answer",
    "after_tool_params",
    "answer_action",
    "answer_approved",
    "answer_call",
    "answer_result",
    "before_llm_answer",
    "before_tool_answer",
    "call_of",
    "call_params",
    "context_of",
    "context_params",
    "event_params",
    "hello_answer",
    "hello_params",
    "inner",
    "plain",
    "request_of",
    "request_params",
    "request_update",
    "response_of",
    "response_params",
    "response_update",
    "result_json",
    "result_of",
    "tool_result",
]

HOST = "picoclaw"

#: The hello mode a process hook must list to be asked at each point.
MODES = {
    "before_tool": "tool",
    "after_tool": "tool",
    "before_llm": "llm",
    "after_llm": "llm",
    "approve_tool": "approve",
}
#: CallContext field -> `meta` key (Go field names: HookMeta has no JSON tags).
_META = (("agent", "AgentID"), ("turn", "TurnID"), ("session", "SessionKey"))
#: CallContext field -> `context.inbound` key.
_INBOUND = (("channel", "channel"), ("chat_id", "chat_id"), ("sender", "sender_id"))


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InputError(f"{where} must be an object")
    return value


def _text(value: Any, default: str = "") -> str:
    return value if isinstance(value, str) else default


def plain(value: Any) -> Any:
    """`value` with every mapping a dict (string keys) and every sequence a list: JSON."""
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


# ------------------------------------------------------------------- hello


def hello_params(name: str, modes: Sequence[str]) -> dict[str, Any]:
    """What a host says to hello: both dialects' version keys."""
    return {"name": name, "version": 1, "protocol_version": 1, "modes": list(modes)}


def hello_answer() -> dict[str, Any]:
    return {"ok": True, "name": "hookpolicy"}


# --------------------------------------------------------------- who asked


def context_of(params: Mapping[str, Any]) -> dict[str, Any]:
    """The CallContext fields in `params` (meta and context.inbound). Read at every
    request a long-running hook answers: a JSON object is a `dict`, looked at as one."""
    meta = params.get("meta")
    if type(meta) is not dict:
        meta = _mapping(meta, "meta")
    context = params.get("context")
    if type(context) is not dict:
        context = _mapping(context, "context")
    inbound = context.get("inbound")
    if type(inbound) is not dict:
        inbound = _mapping(inbound, "inbound")
    fields: dict[str, Any] = {ours: _text(inbound.get(theirs)) for ours, theirs in _INBOUND}
    for ours, theirs in _META:
        fields[ours] = _text(meta.get(theirs))
    fields["host"] = HOST
    fields["meta"] = FrozenDict(meta)  # (what CallContext keeps: made once, not copied)
    return fields


def context_params(ctx: CallContext) -> dict[str, Any]:
    """meta and context.inbound as PicoClaw sends them."""
    meta: dict[str, Any] = {theirs: getattr(ctx, ours) for ours, theirs in _META}
    for key, value in ctx.meta.items():  # a call that came from PicoClaw keeps the rest
        meta.setdefault(key, plain(value))
    inbound = {theirs: getattr(ctx, ours) for ours, theirs in _INBOUND}
    return {"meta": meta, "context": {"inbound": inbound}}


# -------------------------------------------------------------------- tools


def call_of(params: Mapping[str, Any]) -> ToolCall:
    tool = params.get("tool")
    if not isinstance(tool, str) or not tool:
        raise InputError("params.tool must be a tool name")
    arguments = params.get("arguments")  # (PicoClaw omits {})
    if type(arguments) is not dict:
        arguments = _mapping(arguments, "arguments")
    return ToolCall(tool=tool, args=FrozenDict(arguments), **context_of(params))


def call_params(call: ToolCall) -> dict[str, Any]:
    """A tool point's params; the host's own tool name, and the seed's keys too."""
    tool = call.tool_raw or call.tool
    args = plain(call.args)
    return {
        **context_params(call),
        "tool": tool,
        "arguments": args,
        "channel": call.channel,
        "chat_id": call.chat_id,
        "name": tool,  # the seed's dialect
        "args": args,
    }


def tool_result(raw: Mapping[str, Any], *, duration: float = 0.0) -> ToolResult:
    """A ToolResult from PicoClaw's JSON of one (`duration` in seconds)."""
    return ToolResult(
        for_llm=_text(raw.get("for_llm")),
        for_user=_text(raw.get("for_user")),
        silent=raw.get("silent") is True,
        is_error=raw.get("is_error") is True,
        async_=raw.get("async") is True,
        response_handled=raw.get("response_handled") is True,
        duration=duration,
    )


def result_json(result: ToolResult) -> dict[str, Any]:
    return {
        "for_llm": result.for_llm,
        "for_user": result.for_user,
        "silent": result.silent,
        "is_error": result.is_error,
    }


def result_of(params: Mapping[str, Any]) -> ToolResult:
    """The result in after_tool's params; `duration` comes in nanoseconds."""
    duration = params.get("duration")
    return tool_result(
        _mapping(params.get("result"), "result"),
        duration=duration / 1e9 if isinstance(duration, int | float) else 0.0,
    )


def after_tool_params(call: ToolCall, result: ToolResult) -> dict[str, Any]:
    return {
        **call_params(call),
        "result": result_json(result),
        "duration": round(result.duration * 1e9),
    }


# ---------------------------------------------------------------------- LLM


def request_of(params: Mapping[str, Any]) -> LLMRequest:
    return LLMRequest(
        model=_text(params.get("model")),
        messages=tuple(params.get("messages") or ()),
        tools=tuple(params.get("tools") or ()),
        options=dict(_mapping(params.get("options"), "options")),
        **context_of(params),
    )


def request_params(request: LLMRequest) -> dict[str, Any]:
    return {
        **context_params(request),
        "model": request.model,
        "messages": plain(request.messages),
        "tools": plain(request.tools),
        "options": plain(request.options),
    }


def request_update(raw: Mapping[str, Any], request: LLMRequest) -> LLMRequest:
    """`request` as a before_llm answer's request has it: the whole request (what is
    left out is emptied, as PicoClaw empties it), the model kept when none is named."""
    return request.replace(
        model=raw.get("model") or request.model,
        messages=tuple(raw.get("messages") or ()),
        tools=tuple(raw.get("tools") or ()),
        options=dict(raw.get("options") or {}),
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
        **context_of(params),
    )


def response_params(response: LLMResponse) -> dict[str, Any]:
    return {
        **context_params(response),
        "model": response.model,
        "response": {
            "content": response.content,
            "reasoning_content": response.reasoning,
            "tool_calls": plain(response.tool_calls),
            "finish_reason": response.finish_reason,
            "usage": plain(response.usage),
        },
    }


def response_update(raw: Mapping[str, Any], response: LLMResponse) -> LLMResponse:
    """`response` with what an after_llm answer's response changes (absent: kept)."""
    return response.replace(
        content=_text(raw.get("content"), response.content),
        reasoning=_text(raw.get("reasoning_content"), response.reasoning),
        finish_reason=_text(raw.get("finish_reason"), response.finish_reason),
    )


# ------------------------------------------------------------------- events


def event_params(event: Event) -> dict[str, Any]:
    """A `hook.runtime_event` notification's params (and the seed's `{type, data}`)."""
    payload: dict[str, Any] = dict(plain(event.payload))
    if event.call is not None:
        payload.setdefault("tool", event.call.tool_raw or event.call.tool)
    if event.decision is not None:
        action = getattr(event.decision, "action", None)
        if action is not None:
            payload.setdefault("action", str(action))
        payload.setdefault("reason", event.decision.reason)
    when = _dt.datetime.fromtimestamp(event.time, _dt.UTC).isoformat().replace("+00:00", "Z")
    return {
        "id": getattr(event.decision, "decision_id", "") if event.decision is not None else "",
        "kind": event.kind,
        "time": when,
        "source": {"component": "hookpolicy"},
        "payload": payload,
        "type": event.kind,  # the seed's dialect
        "data": payload,
    }


# ------------------------------------------------------ answers, as the hook


def before_tool_answer(decision: Decision, original: ToolCall, *, approves: bool) -> dict[str, Any]:
    """`approves`: PicoClaw asks this hook at approve_tool (its hello said so)."""
    action = decision.action.value
    answer: dict[str, Any] = {"action": action, "reason": decision.reason}
    if action == "respond" and decision.result is not None:
        answer["result"] = result_json(decision.result)
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
        answer["call"] = {"tool": original.tool_raw, "arguments": plain(decision.call.args)}
    return answer


def after_tool_answer(decision: Decision, params: Mapping[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = {"action": decision.action.value, "reason": decision.reason}
    if decision.action.value == "modify" and decision.result is not None:
        envelope = dict(params)
        envelope["result"] = result_json(decision.result)
        answer["result"] = envelope
    return answer


def before_llm_answer(decision: Decision, params: Mapping[str, Any]) -> dict[str, Any]:
    answer: dict[str, Any] = {"action": decision.action.value, "reason": decision.reason}
    if decision.action.value == "modify" and decision.request is not None:
        request = dict(params)  # the whole request: PicoClaw empties what is left out
        request["model"] = decision.request.model
        request["messages"] = plain(decision.request.messages)
        request["options"] = plain(decision.request.options)
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


# ---------------------------------------------------- answers, as the host


def answer_action(answer: Mapping[str, Any]) -> tuple[Any, str]:
    """The action (as sent: not checked here) and reason of an interceptor's answer,
    in either dialect; no action means continue, `{"allow": false}` deny_tool."""
    decision = answer.get("decision")
    source = decision if isinstance(decision, Mapping) else answer
    text = source.get("action")
    reason = source.get("reason", answer.get("reason"))
    if not text:
        text = "deny_tool" if answer.get("allow") is False else "continue"
    return text, reason if isinstance(reason, str) else ""


def answer_result(answer: Mapping[str, Any]) -> Any:
    """The result an answer carries: upstream's `result`, the seed's `hook_result`."""
    return answer.get("result", answer.get("hook_result"))


def answer_call(answer: Mapping[str, Any], tool: str) -> tuple[Any, Any] | None:
    """The (tool, arguments) a before_tool answer replaces the call with — upstream's
    whole `call` (what it leaves out is gone; no tool: `tool`, the name sent), the
    seed's `args` — or None when it names no call. Types are not checked here."""
    replacement = answer.get("call")
    if replacement is not None:
        if not isinstance(replacement, Mapping):
            raise InputError("call must be an object")
        return replacement.get("tool") or tool, replacement.get("arguments") or {}
    if "args" in answer:
        return tool, answer["args"] or {}
    return None


def answer_approved(answer: Mapping[str, Any]) -> tuple[Any, str]:
    """approve_tool's verdict (as sent: not checked here) and reason, either dialect."""
    reason = answer.get("reason")
    return answer.get("approved", answer.get("allow")), reason if isinstance(reason, str) else ""


def inner(value: Any, key: str, fields: Sequence[str]) -> Mapping[str, Any] | None:
    """The new value in an answer: PicoClaw echoes the whole params envelope with the
    value one level down (`result.result`); the seed's dialect sends it flat."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InputError(f"{key} must be an object")
    if any(f in value for f in fields):
        return value
    found = value.get(key)
    if found is None:
        return None
    if not isinstance(found, Mapping):
        raise InputError(f"{key}.{key} must be an object")
    return found
