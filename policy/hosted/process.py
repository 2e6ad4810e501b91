"""PicoClaw process hooks as hooks in our chain (the `hooks.processes` setting).

We are the host here, so requests carry BOTH dialects' keys and answers are read
in both (DESIGN §7):

* upstream PicoClaw (`pkg/agent/hook_process.go`): hello `{name, version, modes}`;
  tool params `{meta{AgentID,...}, context{inbound{...}}, tool, arguments}`; answers
  `{action, reason, call{tool, arguments}, result{...}}`, `{approved, reason}`;
  events as `hook.runtime_event` notifications;
* the older dialect of the seed documents: hello `{protocol_version}`; params
  `{name, args}`; answers `{"args": ...}`, `{"allow": bool}`,
  `{"decision": {"action"}, "hook_result": ...}`; events as `hook.event`
  `{type, data}`.

What we do differently from PicoClaw, on purpose: a process hook that errors,
times out or answers nonsense is a hook FAILURE, so the failure policy decides
(default `fail`: the call is denied) where PicoClaw would skip the hook; and a
process is asked only at the points its `intercept` lists (PicoClaw sends a hook
listed for `before_tool` every `after_tool` too, which hooks written for the seed
do not answer).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping, Sequence
from typing import Any

from policy.chain import Timeouts
from policy.errors import SettingsError
from policy.hooks import HookSource
from policy.hosted.config import HooksConfig, ProcessHookConfig, observe_kinds
from policy.hosted.jsonrpc import ProcessHookError, RpcProcess, Spawn
from policy.model import (
    Action,
    ApprovalDecision,
    CallContext,
    Decision,
    Event,
    LLMRequest,
    LLMResponse,
    ToolCall,
    ToolResult,
)

__all__ = ["ProcessHook", "start_process_hooks"]

_MODES = {
    "before_tool": "tool",
    "after_tool": "tool",
    "before_llm": "llm",
    "after_llm": "llm",
    "approve_tool": "approve",
}
_ACTIONS = {a.value: a for a in Action}
_STOPS = frozenset({Action.DENY_TOOL, Action.ABORT_TURN, Action.HARD_ABORT})
#: Slack given to the chain's own timer, so the hook's clearer error comes first.
_CHAIN_SLACK_MS = 500


def start_process_hooks(config: HooksConfig, timeouts: Timeouts) -> list[ProcessHook]:
    """Start every enabled process, in name order as PicoClaw does; SettingsError
    naming the process when one cannot start (the others are closed again)."""
    hooks: list[ProcessHook] = []
    for name in sorted(config.processes):
        spec = config.processes[name]
        if not spec.enabled:
            continue
        hook = ProcessHook(name, spec, _budgets(config, spec, timeouts))
        try:
            hook.start()
        except ProcessHookError as exc:
            for started in hooks:
                started.close()
            raise SettingsError(f"invalid settings:\n  hooks.processes.{name}: {exc}") from None
        hooks.append(hook)
    return hooks


def _budgets(config: HooksConfig, spec: ProcessHookConfig, timeouts: Timeouts) -> _Budgets:
    d = config.defaults
    interceptor = spec.timeout_ms or d.interceptor_timeout_ms or round(timeouts.interceptor * 1000)
    approval = d.approval_timeout_ms or round(timeouts.approval * 1000)
    observer = d.observer_timeout_ms or round(timeouts.observer * 1000)
    return _Budgets(interceptor / 1000, approval / 1000, observer / 1000)


class _Budgets:
    __slots__ = ("approval", "interceptor", "observer")

    def __init__(self, interceptor: float, approval: float, observer: float) -> None:
        self.interceptor = interceptor
        self.approval = approval
        self.observer = observer


class ProcessHook:
    """One configured process, joined to the points its config names.

    The hook methods exist only for the points in `intercept` (and `on_event`
    when `observe` is set), so the chain never asks it elsewhere.
    """

    source = HookSource.PROCESS

    def __init__(self, name: str, spec: ProcessHookConfig, budgets: _Budgets) -> None:
        self.name = name
        self.priority = spec.priority
        if spec.failure_policy is not None:
            self.failure_policy = spec.failure_policy
        self._budgets = budgets
        points = list(dict.fromkeys(spec.intercept))
        modes = list(dict.fromkeys(_MODES[p] for p in points))
        self._kinds = observe_kinds(spec.observe)
        if spec.observe:
            modes.insert(0, "observe")
            self.on_event = self._on_event
        for point in points:
            setattr(self, point, getattr(self, "_" + point))
        # Interceptors run on the caller's thread: every request is bounded by its own
        # budget, and the hop to a worker thread cost ~100 µs of a ~200 µs round trip
        # (tests/bench/bench_process_hook.py). An approver stays on a worker, so a
        # caller's shorter approval timeout (`approve_tool(timeout=...)`) still cuts it.
        self.inline = "approve_tool" not in points
        joined = [budgets.approval if p == "approve_tool" else budgets.interceptor for p in points]
        self.timeout_ms = round(max(joined, default=budgets.interceptor) * 1000) + _CHAIN_SLACK_MS
        self._rpc = RpcProcess(
            Spawn(
                name=name,
                command=tuple(spec.command),
                dir=spec.dir,
                env=dict(spec.env),
                hello_params={"name": name, "version": 1, "protocol_version": 1, "modes": modes},
                start_timeout=spec.start_timeout_ms / 1000,
                backoff=spec.restart_backoff_ms / 1000,
                backoff_max=spec.restart_backoff_max_ms / 1000,
            )
        )

    @property
    def process(self) -> RpcProcess:
        """The child process (tests and `policy` diagnostics read its pid and starts)."""
        return self._rpc

    def start(self) -> None:
        self._rpc.start()

    def close(self) -> None:
        self._rpc.close()

    def __repr__(self) -> str:
        return f"<ProcessHook {self.name!r}>"

    # ---------------------------------------------------------------- points

    def _ask(self, method: str, params: Mapping[str, Any], budget: float) -> Mapping[str, Any]:
        answer = self._rpc.request(method, params, budget)
        if answer is None:
            return {}
        if not isinstance(answer, Mapping):
            raise ProcessHookError(
                f"process hook {self.name!r}: {method} result must be an object, "
                f"not {type(answer).__name__}"
            )
        return answer

    def _before_tool(self, call: ToolCall) -> Decision | None:
        sent = _call_params(call)
        answer = self._ask("hook.before_tool", sent, self._budgets.interceptor)
        action, reason = self._action(answer, "hook.before_tool")
        if action is Action.RESPOND:
            raw = answer.get("result", answer.get("hook_result"))
            if not isinstance(raw, Mapping):
                raise ProcessHookError(f"process hook {self.name!r}: respond needs a result object")
            return Decision(Action.RESPOND, reason, result=_tool_result(raw))
        if action in _STOPS:
            return Decision(action, reason)
        tool, args = sent["tool"], call.args
        replacement = answer.get("call")
        if action is Action.MODIFY and replacement is None and "args" not in answer:
            raise ProcessHookError(f"process hook {self.name!r}: modify without a call")
        if replacement is not None:
            # PicoClaw replaces the call wholesale: what is left out is gone.
            if not isinstance(replacement, Mapping):
                raise ProcessHookError(f"process hook {self.name!r}: call must be an object")
            tool = replacement.get("tool") or tool
            args = replacement.get("arguments") or {}
        elif "args" in answer:
            args = answer["args"] or {}
        if not isinstance(tool, str) or not isinstance(args, Mapping):
            raise ProcessHookError(
                f"process hook {self.name!r}: call.tool must be a string and arguments an object"
            )
        if tool == sent["tool"] and _plain(args) == _plain(call.args):
            return None
        # A changed call is applied whatever the action said, as PicoClaw applies it.
        new = (
            call.replace(args=args) if tool == sent["tool"] else call.replace(tool=tool, args=args)
        )
        return Decision(Action.MODIFY, reason, call=new)

    def _after_tool(self, call: ToolCall, result: ToolResult) -> Decision | None:
        params = {
            **_call_params(call),
            "result": _result_json(result),
            "duration": round(result.duration * 1e9),
        }
        answer = self._ask("hook.after_tool", params, self._budgets.interceptor)
        action, reason = self._action(answer, "hook.after_tool")
        if action is not Action.CONTINUE and action is not Action.MODIFY:
            return Decision(action, reason)
        raw = _inner(
            answer.get("result", answer.get("hook_result")),
            "result",
            ("for_llm", "for_user", "is_error"),
        )
        if raw is None:
            if action is Action.MODIFY:
                raise ProcessHookError(f"process hook {self.name!r}: modify without a result")
            return None
        new = _tool_result(raw, duration=result.duration)
        return None if new == result else Decision(Action.MODIFY, reason, result=new)

    def _approve_tool(self, call: ToolCall) -> ApprovalDecision:
        answer = self._ask("hook.approve_tool", _call_params(call), self._budgets.approval)
        approved = answer.get("approved", answer.get("allow"))
        if not isinstance(approved, bool):
            raise ProcessHookError(
                f"process hook {self.name!r}: approve_tool must answer approved: true|false"
            )
        reason = answer.get("reason")
        return ApprovalDecision(approved, reason if isinstance(reason, str) else "")

    def _before_llm(self, request: LLMRequest) -> Decision | None:
        sent = {
            **_context(request),
            "model": request.model,
            "messages": _plain(request.messages),
            "tools": _plain(request.tools),
            "options": _plain(request.options),
        }
        answer = self._ask("hook.before_llm", sent, self._budgets.interceptor)
        action, reason = self._action(answer, "hook.before_llm")
        if action is not Action.CONTINUE and action is not Action.MODIFY:
            return Decision(action, reason)
        raw = answer.get("request")
        if raw is None:
            if action is Action.MODIFY:
                raise ProcessHookError(f"process hook {self.name!r}: modify without a request")
            return None
        if not isinstance(raw, Mapping):
            raise ProcessHookError(f"process hook {self.name!r}: request must be an object")
        new = request.replace(
            model=raw.get("model") or request.model,
            messages=tuple(raw.get("messages") or ()),
            tools=tuple(raw.get("tools") or ()),
            options=dict(raw.get("options") or {}),
        )
        return None if new == request else Decision(Action.MODIFY, reason, request=new)

    def _after_llm(self, response: LLMResponse) -> Decision | None:
        sent = {
            **_context(response),
            "model": response.model,
            "response": {
                "content": response.content,
                "reasoning_content": response.reasoning,
                "tool_calls": _plain(response.tool_calls),
                "finish_reason": response.finish_reason,
                "usage": _plain(response.usage),
            },
        }
        answer = self._ask("hook.after_llm", sent, self._budgets.interceptor)
        action, reason = self._action(answer, "hook.after_llm")
        if action is not Action.CONTINUE and action is not Action.MODIFY:
            return Decision(action, reason)
        raw = _inner(answer.get("response"), "response", ("content", "finish_reason"))
        if raw is None:
            if action is Action.MODIFY:
                raise ProcessHookError(f"process hook {self.name!r}: modify without a response")
            return None
        new = response.replace(
            content=_text(raw.get("content"), response.content),
            reasoning=_text(raw.get("reasoning_content"), response.reasoning),
            finish_reason=_text(raw.get("finish_reason"), response.finish_reason),
        )
        return None if new == response else Decision(Action.MODIFY, reason, response=new)

    def _on_event(self, event: Event) -> None:
        if self._kinds is not None and event.kind not in self._kinds:
            return
        legacy = "ok" not in self._rpc.hello and "protocol_version" in self._rpc.hello
        self._rpc.notify(
            "hook.event" if legacy else "hook.runtime_event",
            _event_params(event),
            self._budgets.observer,
        )

    def _action(self, answer: Mapping[str, Any], method: str) -> tuple[Action, str]:
        """The action and reason in either dialect; absent means continue."""
        decision = answer.get("decision")
        source = decision if isinstance(decision, Mapping) else answer
        text = source.get("action")
        reason = source.get("reason", answer.get("reason"))
        if not text:
            text = "deny_tool" if answer.get("allow") is False else "continue"
        action = _ACTIONS.get(text) if isinstance(text, str) else None
        if action is None:
            raise ProcessHookError(f"process hook {self.name!r}: {method}: unknown action {text!r}")
        return action, reason if isinstance(reason, str) else ""


# ------------------------------------------------------------------- mapping


def _context(ctx: CallContext) -> dict[str, Any]:
    """meta and context.inbound as PicoClaw sends them (Go field names in meta)."""
    meta: dict[str, Any] = {"AgentID": ctx.agent, "TurnID": ctx.turn, "SessionKey": ctx.session}
    for key, value in ctx.meta.items():  # a call that came from PicoClaw keeps the rest
        meta.setdefault(key, _plain(value))
    inbound = {"channel": ctx.channel, "chat_id": ctx.chat_id, "sender_id": ctx.sender}
    return {"meta": meta, "context": {"inbound": inbound}}


def _call_params(call: ToolCall) -> dict[str, Any]:
    tool = call.tool_raw or call.tool
    args = _plain(call.args)
    return {
        **_context(call),
        "tool": tool,
        "arguments": args,
        "channel": call.channel,
        "chat_id": call.chat_id,
        "name": tool,  # the seed's dialect
        "args": args,
    }


def _result_json(result: ToolResult) -> dict[str, Any]:
    return {
        "for_llm": result.for_llm,
        "for_user": result.for_user,
        "silent": result.silent,
        "is_error": result.is_error,
    }


def _tool_result(raw: Mapping[str, Any], *, duration: float = 0.0) -> ToolResult:
    return ToolResult(
        for_llm=_text(raw.get("for_llm"), ""),
        for_user=_text(raw.get("for_user"), ""),
        silent=raw.get("silent") is True,
        is_error=raw.get("is_error") is True,
        duration=duration,
    )


def _inner(value: Any, key: str, fields: Sequence[str]) -> Mapping[str, Any] | None:
    """The new value in an answer: PicoClaw echoes the whole params envelope with the
    value one level down (`result.result`); the seed's dialect sends it flat."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ProcessHookError(f"{key} must be an object")
    if any(f in value for f in fields):
        return value
    inner = value.get(key)
    if inner is None:
        return None
    if not isinstance(inner, Mapping):
        raise ProcessHookError(f"{key}.{key} must be an object")
    return inner


def _event_params(event: Event) -> dict[str, Any]:
    payload: dict[str, Any] = dict(_plain(event.payload))
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


def _text(value: Any, default: str) -> str:
    return value if isinstance(value, str) else default


def _plain(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value
