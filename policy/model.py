"""Value types that flow through the chain.

Every value is an immutable, slotted dataclass: a hook that wants to change a call
returns a new one (`Decision(Action.MODIFY, call=call.replace(args=...))`), so no
hook can alter what an earlier hook or the decision log already saw. Mappings are
`FrozenDict` (a read-only `dict`, so JSON encoders and CEL engines take it as is)
and sequences are tuples, all the way down.

Construction is on the decision hot path; `__post_init__` does only what keeps
the invariants (freezing, canonical tool names) and nothing else.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, dataclass
from enum import StrEnum
from typing import Any, NamedTuple, NoReturn, Self

from policy.aliases import DEFAULT_ALIASES

__all__ = [
    "ACTIONS_AT",
    "EMPTY",
    "Action",
    "ApprovalDecision",
    "ApprovalGate",
    "CallContext",
    "Decision",
    "Event",
    "FrozenDict",
    "HookPoint",
    "LLMRequest",
    "LLMResponse",
    "Prompt",
    "ToolCall",
    "ToolResult",
    "freeze",
]

_SCALARS = (str, int, float, bool, type(None))


_FLAT = frozenset({str, bool, int, float, type(None)})


class FrozenDict(dict[str, Any]):
    """A `dict` that refuses mutation and whose values are frozen too.

    It stays a real `dict` subclass on purpose: orjson, `json`, pydantic and the
    CEL engines accept it without conversion, which a `MappingProxyType` would not.
    """

    __slots__ = ("flat",)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        dict.__init__(self, *args, **kwargs)
        #: Every value is a str, bool, int, float or None: CEL engines take it as is.
        self.flat = True
        for key, value in dict.items(self):
            if type(value) not in _FLAT:
                self.flat = False
                if not isinstance(value, _SCALARS) and not _is_frozen(value):
                    dict.__setitem__(self, key, freeze(value))

    def _refuse(self, *_args: Any, **_kwargs: Any) -> NoReturn:
        raise TypeError("FrozenDict is immutable; build a new mapping instead")

    __setitem__ = _refuse
    __delitem__ = _refuse
    __ior__ = _refuse
    clear = _refuse
    pop = _refuse
    popitem = _refuse
    setdefault = _refuse
    update = _refuse

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[type[FrozenDict], tuple[dict[str, Any]]]:
        return (FrozenDict, (dict(self),))

    def __repr__(self) -> str:
        return f"FrozenDict({dict.__repr__(self)})"


EMPTY = FrozenDict()


def _is_frozen(value: Any) -> bool:
    if isinstance(value, FrozenDict):
        return True
    if type(value) is tuple:
        return all(isinstance(v, _SCALARS) or _is_frozen(v) for v in value)
    return False


def freeze(value: Any) -> Any:
    """Return `value` with every mapping made a FrozenDict and every list a tuple."""
    if isinstance(value, (*_SCALARS, FrozenDict)):
        return value
    if isinstance(value, Mapping):
        return FrozenDict({str(k): v for k, v in value.items()})
    if isinstance(value, list | tuple | set | frozenset):
        return tuple(freeze(v) for v in value)
    return value


def _frozen_mapping(value: Mapping[str, Any] | None) -> FrozenDict:
    if value is None:
        return EMPTY
    if type(value) is FrozenDict:
        return value
    return FrozenDict(value)


def _frozen_seq(value: Iterable[Any] | None) -> tuple[Any, ...]:
    if not value:
        return ()
    if type(value) is tuple and _is_frozen(value):
        return value
    return tuple(freeze(v) for v in value)


class HookPoint(StrEnum):
    """Where in an agent's loop a hook runs (PicoClaw's names, plus Claude Code's prompt)."""

    BEFORE_LLM = "before_llm"
    AFTER_LLM = "after_llm"
    BEFORE_TOOL = "before_tool"
    APPROVE_TOOL = "approve_tool"
    AFTER_TOOL = "after_tool"
    USER_PROMPT = "user_prompt"
    EVENT = "event"


class Action(StrEnum):
    """What an interceptor asks the host to do; the values are PicoClaw's strings."""

    CONTINUE = "continue"
    MODIFY = "modify"
    RESPOND = "respond"
    DENY_TOOL = "deny_tool"
    ABORT_TURN = "abort_turn"
    HARD_ABORT = "hard_abort"


_AROUND = frozenset({Action.CONTINUE, Action.MODIFY, Action.ABORT_TURN, Action.HARD_ABORT})

#: The actions an interceptor may return at each point. Anything else is an error
#: that the hook's failure policy handles; it is never silently ignored.
ACTIONS_AT: Mapping[HookPoint, frozenset[Action]] = {
    HookPoint.BEFORE_TOOL: frozenset(Action),
    HookPoint.AFTER_TOOL: _AROUND,
    HookPoint.BEFORE_LLM: _AROUND,
    HookPoint.AFTER_LLM: _AROUND,
    HookPoint.USER_PROMPT: _AROUND,
}

#: Actions that end the chain at the hook that returned them.
TERMINAL = frozenset({Action.RESPOND, Action.DENY_TOOL, Action.ABORT_TURN, Action.HARD_ABORT})
#: Actions after which the host must not run the tool or go on with the turn.
BLOCKING = frozenset({Action.DENY_TOOL, Action.ABORT_TURN, Action.HARD_ABORT})


class _Value:
    """Shared helpers of the value types (no fields of its own)."""

    __slots__ = ()

    def replace(self, **changes: Any) -> Self:
        """A copy with `changes` applied; the original is untouched."""
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


@dataclass(frozen=True, slots=True, kw_only=True)
class CallContext(_Value):
    """Who asked, from where: the fields every call, request and prompt carries."""

    sender: str = ""
    channel: str = ""
    chat_id: str = ""
    session: str = ""
    agent: str = ""
    turn: str = ""
    cwd: str = ""
    host: str = ""
    meta: Mapping[str, Any] = EMPTY

    def __post_init__(self) -> None:
        if type(self.meta) is not FrozenDict:
            object.__setattr__(self, "meta", _frozen_mapping(self.meta))


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCall(CallContext):
    """One tool call as the chain sees it.

    `tool` is always the canonical name (`Bash`, `exec`, `run_shell_command` and
    `shell` all become `bash`); `tool_raw` keeps the host's own spelling so an
    adapter can answer in it. An engine with extra aliases re-canonicalises.
    A hook that modifies a call may change `tool` and `args`; the chain keeps
    the context fields (who, where) of the call it was given.
    """

    tool: str
    tool_raw: str = ""
    args: Mapping[str, Any] = EMPTY
    call_id: str = ""

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if type(self.meta) is not FrozenDict:
            set_(self, "meta", _frozen_mapping(self.meta))
        if type(self.args) is not FrozenDict:
            if not isinstance(self.args, Mapping):
                raise TypeError(f"ToolCall.args must be a mapping, not {type(self.args).__name__}")
            set_(self, "args", FrozenDict(self.args))
        name = self.tool
        if not self.tool_raw:
            set_(self, "tool_raw", name)
        tool = DEFAULT_ALIASES.canonical(name)
        if tool != name:
            set_(self, "tool", tool)

    def replace(self, **changes: Any) -> Self:
        """A copy with `changes`; a new `tool` brings its own `tool_raw` unless one is given."""
        if "tool" in changes and "tool_raw" not in changes:
            changes["tool_raw"] = changes["tool"]
        return dataclasses.replace(self, **changes)


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


@dataclass(frozen=True, slots=True)
class ApprovalGate:
    """Who must approve a call before it runs, and for how long they have.

    Made by a rule with `action: ask` (its `approvers:`, `timeout:`, `grants:`,
    `self_approval:`) or by a pack's `approval` builtin, and carried on the
    before_tool Decision to the approval stage. `exempt_by_allow` is the builtin's:
    an `allow` rule that matched the call lifts it (an `ask` rule's gate it does not).
    `timeout` None means the engine's `approval_timeout_ms`.
    """

    source: str  # `pack/rule-id`, or `pack/approval` for the builtin
    pack: str
    approvers: tuple[str, ...] = ()  # identity globs; empty: anyone
    timeout: float | None = None
    grants: tuple[str, ...] = ("once",)
    self_approval: bool = False
    max_denials: int | None = None
    exempt_by_allow: bool = False
    #: A `respond` rule's own gate: its answer waits for approval, whatever
    #: respond_guard's mode (which judges responds that skip gates).
    holds_respond: bool = False


class Decision(NamedTuple):
    """The answer of one hook, and of the whole chain at one point.

    From a hook: `action` plus the payload the action needs (`call` for modify
    at before_tool, `result` for respond or modify at after_tool, `request`,
    `response` or `prompt` at the LLM and prompt points). From the chain: the
    payload fields carry the final values, `hook` names the hook that decided,
    and `decision_id` matches the decision-log line. `allowed` says an `allow`
    rule matched (it exempts the call from approval gates, never from a denial).

    A NamedTuple rather than a frozen dataclass: it is just as immutable and is
    built on every hook answer of every call, where it costs 0.5 µs instead of
    2.4 µs. Pass fields after `reason` by keyword.
    """

    action: Action
    reason: str = ""
    call: ToolCall | None = None
    result: ToolResult | None = None
    request: LLMRequest | None = None
    response: LLMResponse | None = None
    prompt: Prompt | None = None
    rule_ids: tuple[str, ...] = ()
    hook: str | None = None
    needs_approval: bool = False
    allowed: bool = False
    would_action: Action | None = None
    failure: str | None = None
    ignored: tuple[str, ...] = ()
    decision_id: str = ""
    #: The approval gates that cover the call (before_tool): who must approve it.
    gates: tuple[ApprovalGate, ...] = ()

    @property
    def blocked(self) -> bool:
        """True when the host must not run the tool or continue the turn."""
        return self.action in BLOCKING

    def replace(self, **changes: Any) -> Decision:
        """A copy with `changes` applied."""
        return self._replace(**changes)


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
    time: float = dataclasses.field(default_factory=time.time)

    def __post_init__(self) -> None:
        if type(self.payload) is not FrozenDict:
            object.__setattr__(self, "payload", _frozen_mapping(self.payload))
