"""What a code hook is, and decorators that make one out of a function.

A hook needs no base class: any object with a `name` and one or more of the
methods below (`PointSpec.method` of each point, policy.model) joins the stages
those methods name. The Protocols exist for type
checkers and documentation; the chain looks the methods up once, at `register`.

Optional attributes on the hook object supply registration defaults that
`Engine.register(...)` keyword arguments override: `priority` (int, lower runs
first), `failure_policy` (`"fail"` or `"ignore"`), `inline` (bool: run on the
caller's thread with the timeout checked afterwards, for bounded code only),
`timeout_ms` (int, overrides the settings' default for this hook), and
`covers(call) -> bool` on approvers (False keeps the approver out of that call).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar

from policy.model import POINTS, Decision, HookPoint, ToolCall

if TYPE_CHECKING:
    from policy.model.payloads import (
        ApprovalDecision,
        Event,
        LLMRequest,
        LLMResponse,
        Prompt,
        Stop,
        ToolResult,
    )

__all__ = [
    "FailurePolicy",
    "FunctionHook",
    "HookSource",
    "LLMInterceptor",
    "Observer",
    "PromptInterceptor",
    "StopInterceptor",
    "ToolApprover",
    "ToolInterceptor",
    "after_llm",
    "after_tool",
    "approve_tool",
    "before_llm",
    "before_tool",
    "on_event",
    "on_stop",
    "user_prompt",
]

FailurePolicy = Literal["fail", "ignore"]


class HookSource(IntEnum):
    """Ordering group: in-process hooks run before process hooks (PicoClaw)."""

    IN_PROCESS = 0
    PROCESS = 1


class ToolInterceptor(Protocol):
    name: str

    def before_tool(self, call: ToolCall) -> Decision | None: ...

    def after_tool(self, call: ToolCall, result: ToolResult) -> Decision | None: ...


class LLMInterceptor(Protocol):
    name: str

    def before_llm(self, request: LLMRequest) -> Decision | None: ...

    def after_llm(self, response: LLMResponse) -> Decision | None: ...


class PromptInterceptor(Protocol):
    name: str

    def user_prompt(self, prompt: Prompt) -> Decision | None: ...


class StopInterceptor(Protocol):
    """Joins the end of a turn (`stop`): None or `continue` lets the agent stop; `modify`
    with `stop.instruction` set keeps it going with that instruction. The method is
    `on_stop`, not `stop`, so an object with a lifecycle `stop()` does not join it."""

    name: str

    def on_stop(self, stop: Stop) -> Decision | None: ...


class ToolApprover(Protocol):
    name: str

    def approve_tool(self, call: ToolCall) -> ApprovalDecision: ...


class Observer(Protocol):
    name: str

    def on_event(self, event: Event) -> None: ...


F = TypeVar("F", bound=Callable[..., Any])


class FunctionHook:
    """A hook made from one function by a decorator; calling it calls the function."""

    def __init__(
        self,
        fn: Callable[..., Any],
        point: HookPoint,
        *,
        name: str | None,
        priority: int,
        failure_policy: FailurePolicy | None,
        inline: bool,
        timeout_ms: int | None,
    ) -> None:
        self.fn = fn
        self.point = point
        self.name = name or getattr(fn, "__name__", "hook")
        self.priority = priority
        if failure_policy is not None:
            self.failure_policy = failure_policy
        self.inline = inline
        if timeout_ms is not None:
            self.timeout_ms = timeout_ms
        setattr(self, POINTS[point].method, fn)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.__wrapped__ = fn

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<FunctionHook {self.name!r} at {self.point.value}>"


def _decorator(point: HookPoint) -> Callable[..., Any]:
    def decorate(
        fn: Callable[..., Any] | None = None,
        *,
        name: str | None = None,
        priority: int = 0,
        failure_policy: FailurePolicy | None = None,
        inline: bool = False,
        timeout_ms: int | None = None,
    ) -> Any:
        def wrap(f: Callable[..., Any]) -> FunctionHook:
            return FunctionHook(
                f,
                point,
                name=name,
                priority=priority,
                failure_policy=failure_policy,
                inline=inline,
                timeout_ms=timeout_ms,
            )

        return wrap(fn) if fn is not None else wrap

    method = POINTS[point].method
    decorate.__name__ = method
    decorate.__doc__ = (
        f"Make a function a `{point.value}` hook: `@{method}` or "
        f"`@{method}(name=..., priority=..., failure_policy=..., inline=..., "
        "timeout_ms=...)`."
    )
    return decorate


before_tool = _decorator(HookPoint.BEFORE_TOOL)
after_tool = _decorator(HookPoint.AFTER_TOOL)
before_llm = _decorator(HookPoint.BEFORE_LLM)
after_llm = _decorator(HookPoint.AFTER_LLM)
user_prompt = _decorator(HookPoint.USER_PROMPT)
on_stop = _decorator(HookPoint.STOP)
approve_tool = _decorator(HookPoint.APPROVE_TOOL)
on_event = _decorator(HookPoint.EVENT)
