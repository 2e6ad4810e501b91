"""The `hooks:` setting: the PicoClaw process hooks we host.

`hooks:` has PicoClaw's own config shape (`hooks.processes.<name>` with enabled,
priority, transport, command, dir, env, observe, intercept), so a block copied from
a PicoClaw config runs here unchanged; the fields after those are ours and optional.
As in PicoClaw, a process whose `enabled` is not true does not start.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, model_validator

from policy.model import POINTS

__all__ = [
    "EVENT_KINDS",
    "INTERCEPT_POINTS",
    "HookDefaults",
    "HooksConfig",
    "ProcessHookConfig",
    "observe_kinds",
]

#: The points a process hook may intercept, spelt as in PicoClaw's config (the hook
#: points PicoClaw has: policy.model.POINTS says which).
INTERCEPT_POINTS = tuple(spec.point.value for spec in POINTS.values() if spec.picoclaw)

#: PicoClaw's runtime event kinds (`pkg/events/kind.go`), plus the ones our engine emits.
EVENT_KINDS = frozenset(
    {
        "agent.turn.start", "agent.turn.end", "agent.llm.request", "agent.llm.delta",
        "agent.llm.response", "agent.llm.retry", "agent.context.compress",
        "agent.session.summarize", "agent.tool.exec_start", "agent.tool.exec_end",
        "agent.tool.exec_skipped", "agent.steering.injected", "agent.follow_up.queued",
        "agent.interrupt.received", "agent.subturn.spawn", "agent.subturn.end",
        "agent.subturn.result_delivered", "agent.subturn.orphan", "agent.error",
        "channel.lifecycle.started", "channel.lifecycle.initialized",
        "channel.lifecycle.start_failed", "channel.lifecycle.stopped",
        "channel.webhook.registered", "channel.webhook.unregistered",
        "channel.message.outbound_queued", "channel.message.outbound_sent",
        "channel.message.outbound_failed", "channel.rate_limited", "bus.publish.failed",
        "bus.close.started", "bus.close.completed", "bus.close.drained", "gateway.start",
        "gateway.ready", "gateway.shutdown", "gateway.reload.started",
        "gateway.reload.completed", "gateway.reload.failed", "mcp.server.connected",
        "mcp.server.connecting", "mcp.server.failed", "mcp.tool.discovered",
        "mcp.tool.call.start", "mcp.tool.call.end",
        "policy.decision",
    }
)  # fmt: skip
#: PicoClaw's short spellings in `observe` (`hook_mount.go`).
_SHORT_KINDS = {
    "turn_start": "agent.turn.start",
    "turn_end": "agent.turn.end",
    "llm_request": "agent.llm.request",
    "llm_delta": "agent.llm.delta",
    "llm_response": "agent.llm.response",
    "llm_retry": "agent.llm.retry",
    "context_compress": "agent.context.compress",
    "session_summarize": "agent.session.summarize",
    "tool_exec_start": "agent.tool.exec_start",
    "tool_exec_end": "agent.tool.exec_end",
    "tool_exec_skipped": "agent.tool.exec_skipped",
    "steering_injected": "agent.steering.injected",
    "follow_up_queued": "agent.follow_up.queued",
    "interrupt_received": "agent.interrupt.received",
    "subturn_spawn": "agent.subturn.spawn",
    "subturn_end": "agent.subturn.end",
    "subturn_result_delivered": "agent.subturn.result_delivered",
    "subturn_orphan": "agent.subturn.orphan",
    "error": "agent.error",
}
_ALL = frozenset({"", "*", "all"})


def observe_kinds(observe: list[str]) -> frozenset[str] | None:
    """The event kinds an `observe` list selects; None means every kind.

    ValueError names an unknown kind, as PicoClaw refuses to mount such a hook.
    """
    kinds: set[str] = set()
    for kind in observe:
        if kind in _ALL:
            return None
        full = kind if kind in EVENT_KINDS else _SHORT_KINDS.get(kind)
        if full is None:
            raise ValueError(f"unknown observe event {kind!r}")
        kinds.add(full)
    return frozenset(kinds)


Name = Annotated[str, StringConstraints(min_length=1)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProcessHookConfig(_Strict):
    """One `hooks.processes.<name>` entry."""

    enabled: bool = False
    priority: int = 0
    transport: Literal["stdio"] = "stdio"
    command: list[Name] = Field(default_factory=list)
    dir: Path | None = None
    env: dict[str, str] = Field(default_factory=dict)
    observe: list[Name] = Field(default_factory=list)
    intercept: list[
        Literal["before_tool", "after_tool", "before_llm", "after_llm", "approve_tool"]
    ] = Field(default_factory=list)
    # ours, beyond PicoClaw's fields:
    failure_policy: Literal["fail", "ignore"] | None = None
    timeout_ms: int | None = Field(None, gt=0)
    start_timeout_ms: int = Field(5000, gt=0)
    restart_backoff_ms: int = Field(500, gt=0)
    restart_backoff_max_ms: int = Field(30000, gt=0)

    @model_validator(mode="after")
    def _runnable(self) -> ProcessHookConfig:
        if self.enabled and not self.command:
            raise ValueError("an enabled process hook needs a command: [program, arg, ...]")
        if self.enabled and not (self.intercept or self.observe):
            raise ValueError("an enabled process hook needs intercept or observe points")
        observe_kinds(self.observe)
        return self


class HookDefaults(_Strict):
    """PicoClaw's `hooks.defaults`: budgets for the process hooks only (0 = the engine's)."""

    observer_timeout_ms: int = Field(default=0, ge=0)
    interceptor_timeout_ms: int = Field(default=0, ge=0)
    approval_timeout_ms: int = Field(default=0, ge=0)


class HooksConfig(_Strict):
    """The `hooks:` setting."""

    enabled: bool = True
    defaults: HookDefaults = Field(default_factory=HookDefaults)
    processes: dict[Name, ProcessHookConfig] = Field(default_factory=dict)
