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

Every field is mapped by `picoclaw.wire`, which `policy hook picoclaw` shares; this
module starts the processes and decides what their answers mean for the chain.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from policy.chain import Timeouts
from policy.errors import InputError, SettingsError
from policy.hooks import HookSource
from policy.hooks_config import HooksConfig, ProcessHookConfig, observe_kinds
from policy.hosts.picoclaw import wire
from policy.hosts.picoclaw.jsonrpc import ProcessHookError, RpcProcess, Spawn
from policy.model import (
    Action,
    ApprovalDecision,
    Decision,
    Event,
    LLMRequest,
    LLMResponse,
    ToolCall,
    ToolResult,
)

__all__ = ["ProcessHook", "start_process_hooks"]

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
        modes = list(dict.fromkeys(wire.MODES[p] for p in points))
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
                hello_params=wire.hello_params(name, modes),
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
        sent = wire.call_params(call)
        answer = self._ask("hook.before_tool", sent, self._budgets.interceptor)
        action, reason = self._action(answer, "hook.before_tool")
        if action is Action.RESPOND:
            raw = wire.answer_result(answer)
            if not isinstance(raw, Mapping):
                raise ProcessHookError(f"process hook {self.name!r}: respond needs a result object")
            return Decision(Action.RESPOND, reason, result=wire.tool_result(raw))
        if action in _STOPS:
            return Decision(action, reason)
        try:
            replaced = wire.answer_call(answer, sent["tool"])
        except InputError as exc:
            raise ProcessHookError(f"process hook {self.name!r}: {exc}") from None
        if replaced is None:
            if action is Action.MODIFY:
                raise ProcessHookError(f"process hook {self.name!r}: modify without a call")
            return None
        tool, args = replaced
        if not isinstance(tool, str) or not isinstance(args, Mapping):
            raise ProcessHookError(
                f"process hook {self.name!r}: call.tool must be a string and arguments an object"
            )
        if tool == sent["tool"] and wire.plain(args) == wire.plain(call.args):
            return None
        # A changed call is applied whatever the action said, as PicoClaw applies it.
        new = (
            call.replace(args=args) if tool == sent["tool"] else call.replace(tool=tool, args=args)
        )
        return Decision(Action.MODIFY, reason, call=new)

    def _after_tool(self, call: ToolCall, result: ToolResult) -> Decision | None:
        params = wire.after_tool_params(call, result)
        answer = self._ask("hook.after_tool", params, self._budgets.interceptor)
        action, reason = self._action(answer, "hook.after_tool")
        if action is not Action.CONTINUE and action is not Action.MODIFY:
            return Decision(action, reason)
        raw = _inner(wire.answer_result(answer), "result", ("for_llm", "for_user", "is_error"))
        if raw is None:
            if action is Action.MODIFY:
                raise ProcessHookError(f"process hook {self.name!r}: modify without a result")
            return None
        new = wire.tool_result(raw, duration=result.duration)
        return None if new == result else Decision(Action.MODIFY, reason, result=new)

    def _approve_tool(self, call: ToolCall) -> ApprovalDecision:
        answer = self._ask("hook.approve_tool", wire.call_params(call), self._budgets.approval)
        approved, reason = wire.answer_approved(answer)
        if not isinstance(approved, bool):
            raise ProcessHookError(
                f"process hook {self.name!r}: approve_tool must answer approved: true|false"
            )
        return ApprovalDecision(approved, reason)

    def _before_llm(self, request: LLMRequest) -> Decision | None:
        sent = wire.request_params(request)
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
        new = wire.request_update(raw, request)
        return None if new == request else Decision(Action.MODIFY, reason, request=new)

    def _after_llm(self, response: LLMResponse) -> Decision | None:
        sent = wire.response_params(response)
        answer = self._ask("hook.after_llm", sent, self._budgets.interceptor)
        action, reason = self._action(answer, "hook.after_llm")
        if action is not Action.CONTINUE and action is not Action.MODIFY:
            return Decision(action, reason)
        raw = _inner(answer.get("response"), "response", ("content", "finish_reason"))
        if raw is None:
            if action is Action.MODIFY:
                raise ProcessHookError(f"process hook {self.name!r}: modify without a response")
            return None
        new = wire.response_update(raw, response)
        return None if new == response else Decision(Action.MODIFY, reason, response=new)

    def _on_event(self, event: Event) -> None:
        if self._kinds is not None and event.kind not in self._kinds:
            return
        legacy = "ok" not in self._rpc.hello and "protocol_version" in self._rpc.hello
        self._rpc.notify(
            "hook.event" if legacy else "hook.runtime_event",
            wire.event_params(event),
            self._budgets.observer,
        )

    def _action(self, answer: Mapping[str, Any], method: str) -> tuple[Action, str]:
        """The action and reason in either dialect; absent means continue."""
        text, reason = wire.answer_action(answer)
        action = _ACTIONS.get(text) if isinstance(text, str) else None
        if action is None:
            raise ProcessHookError(f"process hook {self.name!r}: {method}: unknown action {text!r}")
        return action, reason


def _inner(value: Any, key: str, fields: Sequence[str]) -> Mapping[str, Any] | None:
    try:
        return wire.inner(value, key, fields)
    except InputError as exc:
        raise ProcessHookError(str(exc)) from None
