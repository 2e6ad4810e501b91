"""The values of every point but the one a tool call is decided at: what a tool
returned, a request to the model and its response, a user's prompt, the end of a
turn, an approver's verdict, an event for observers.

They are `policy.model`'s value types (immutable, slotted, frozen all the way down;
`policy.model` names them too) kept in a module of their own because a one-event
hook deciding a tool call never makes one: each frozen dataclass costs ≈ 0.6 ms to
build at import (its methods are generated and compiled at every start), ≈ 4.5 ms
for these seven on the path of every `policy hook claude` process. `policy.model`
imports this module the first time one of them is asked for.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from policy._lazy_dataclass import dataclass, field
from policy.model import (
    EMPTY,
    CallContext,
    Decision,
    FrozenDict,
    HookPoint,
    ToolCall,
    _frozen_mapping,
    _frozen_seq,
    _Value,
)

if TYPE_CHECKING:  # (the decorator reads the annotation's spelling: no import of dataclasses)
    from dataclasses import KW_ONLY

__all__ = [
    "ApprovalDecision",
    "Event",
    "LLMRequest",
    "LLMResponse",
    "Prompt",
    "Stop",
    "ToolResult",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResult(_Value):
    """What a tool returned (PicoClaw's ToolResult fields). `duration` is in seconds."""

    for_llm: str = ""
    for_user: str = ""
    silent: bool = False
    is_error: bool = False
    async_: bool = False
    media: tuple[str, ...] = ()
    artifact_tags: tuple[str, ...] = ()
    response_handled: bool = False
    duration: float = 0.0

    def __post_init__(self) -> None:
        if type(self.media) is not tuple:
            object.__setattr__(self, "media", tuple(self.media))
        if type(self.artifact_tags) is not tuple:
            object.__setattr__(self, "artifact_tags", tuple(self.artifact_tags))



@dataclass(frozen=True, slots=True, kw_only=True)
class LLMRequest(CallContext):
    """A request about to go to the model (PicoClaw's LLMHookRequest)."""

    model: str = ""
    messages: tuple[Mapping[str, Any], ...] = ()
    tools: tuple[Mapping[str, Any], ...] = ()
    options: Mapping[str, Any] = EMPTY

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "meta", _frozen_mapping(self.meta))
        set_(self, "messages", _frozen_seq(self.messages))
        set_(self, "tools", _frozen_seq(self.tools))
        set_(self, "options", _frozen_mapping(self.options))


@dataclass(frozen=True, slots=True, kw_only=True)
class LLMResponse(CallContext):
    """What the model answered (PicoClaw's LLMHookResponse, flattened)."""

    model: str = ""
    content: str = ""
    reasoning: str = ""
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    finish_reason: str = ""
    usage: Mapping[str, Any] = EMPTY

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "meta", _frozen_mapping(self.meta))
        set_(self, "tool_calls", _frozen_seq(self.tool_calls))
        set_(self, "usage", _frozen_mapping(self.usage))


@dataclass(frozen=True, slots=True, kw_only=True)
class Prompt(CallContext):
    """A user prompt before the agent sees it (Claude Code's UserPromptSubmit)."""

    text: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class Stop(CallContext):
    """The agent is about to end its turn (Claude Code's Stop, and SubagentStop when
    `subagent` names the subagent that is done).

    A hook that wants the agent to go on instead answers `modify` with `instruction`
    set: what the agent is told next ("the tests fail: fix them before you stop").
    Hooks after it see that instruction, and may add to it. The chain's final
    `instruction` decides: empty, the turn ends; otherwise the agent goes on with it.
    `continued` is true when the agent is stopping again after a stop hook made it go
    on (Claude Code's `stop_hook_active`): a hook that always refuses to stop would
    keep it going forever, so a hook checks it.
    """

    #: The agent's last message (Claude Code's `last_assistant_message`).
    message: str = ""
    #: The subagent that is done (SubagentStop's `agent_type`); empty for the agent's turn.
    subagent: str = ""
    #: The agent went on once already because a stop hook asked it to.
    continued: bool = False
    #: What the agent is told to do instead of stopping; empty: the turn ends.
    instruction: str = ""



@dataclass(frozen=True, slots=True)
class ApprovalDecision(_Value):
    """An approver's verdict; the chain's first denial wins.

    `hook` is the approver that decided, `approver` the identity of the person
    (when a human answered), `waited_ms` how long the approval stage took,
    `failure` why an approver gave no answer ("error", "timeout", "invalid").
    """

    approved: bool
    reason: str = ""
    _: KW_ONLY
    hook: str | None = None
    approver: str | None = None
    waited_ms: float = 0.0
    decision_id: str = ""
    failure: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Event(_Value):
    """Something observers hear about: a host runtime event or one of ours.

    Kinds follow PicoClaw's event bus (`agent.tool.exec_start`, ...) plus
    `policy.decision` for every decision the chain makes.
    """

    kind: str
    payload: Mapping[str, Any] = EMPTY
    point: HookPoint | None = None
    call: ToolCall | None = None
    result: ToolResult | None = None
    decision: Decision | ApprovalDecision | None = None
    time: float = field(default_factory=time.time)

    def __post_init__(self) -> None:
        if type(self.payload) is not FrozenDict:
            object.__setattr__(self, "payload", _frozen_mapping(self.payload))
