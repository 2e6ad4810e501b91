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

from collections.abc import Iterable, Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NoReturn, Self

from policy import _lazy_dataclass
from policy._lazy_dataclass import dataclass, field
from policy._named_tuple import NamedTuple
from policy.aliases import DEFAULT_ALIASES

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
    "EMPTY",
    "POINTS",
    "Action",
    "ApprovalDecision",
    "ApprovalGate",
    "CallContext",
    "CelList",
    "CelMap",
    "ContentKey",
    "Decision",
    "Event",
    "FrozenDict",
    "HookPoint",
    "LLMRequest",
    "LLMResponse",
    "PointSpec",
    "Prompt",
    "Stop",
    "ToolCall",
    "ToolResult",
    "freeze",
]

_SCALARS = (str, int, float, bool, type(None))


_FLAT = frozenset({str, bool, int, float, type(None)})


class CelList(list[Any]):
    """A list already in the shape the CEL engines take (plain lists, dicts and scalars
    all the way down), built once per call by the facts (`policy.facts.CallFacts`):
    a pack's program passes it as is instead of copying it, so the facts of a call are
    converted once, not once per pack. Never mutated once built: `digest`, once set,
    is the digest of its value the recalled answers' keys use (policy.packs.recall)."""

    __slots__ = ("digest",)


class CelMap(dict[str, Any]):
    """A map already in the shape the CEL engines take; see `CelList`."""

    __slots__ = ("digest",)


class FrozenDict(dict[str, Any]):
    """A `dict` that refuses mutation and whose values are frozen too.

    It stays a real `dict` subclass on purpose: orjson, `json`, pydantic and the
    CEL engines accept it without conversion, which a `MappingProxyType` would not.
    """

    __slots__ = ("_content", "flat")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if dict.__len__(self) or hasattr(self, "flat"):  # (`__init__` again: a mutation)
            self._refuse()
        dict.__init__(self, *args, **kwargs)
        self._content: ContentKey | object | None = _UNMADE  # (`content_key`, made once)
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

    def content_key(self) -> ContentKey | None:
        """A key that tells these contents apart from every mapping CEL or the decision
        log could tell apart: each name, its value's type and the value (as its `repr`
        but for a string: `-0.0` is not `0.0`, `1.0` is not `1`, `True` is not `1`) —
        never a digest, which two different calls can share. Made for a flat mapping small
        enough for a memo to hold whole (`_KEY_ITEMS` names, `_KEY_CHARS` characters of
        names and strings, no integer wider than 64 bits: a Write's content may be
        64 MiB, a body may hold 60,000 names); None for any other. An agent repeats its
        calls, each a new mapping: what is worked out of their arguments (their digest,
        their masked form) is kept by this. Made once a mapping (it never changes): the
        log, the recall keys and the approvals each ask it of one call."""
        made = self._content
        if made is _UNMADE:
            made = self._content = self._made_content_key()
        return made  # type: ignore[return-value]

    def _made_content_key(self) -> ContentKey | None:
        if not self.flat or dict.__len__(self) > _KEY_ITEMS:
            return None
        size = 0
        for name, value in dict.items(self):
            if type(name) is not str:
                return None  # (a name that is not a string, as odd callers send)
            size += len(name)
            if type(value) is str:
                size += len(value)
            elif type(value) is int and value.bit_length() > 64:
                return None
            if size > _KEY_CHARS:
                return None
        # (every value but a string as its repr: a memo's dict hashes its keys, and ints
        # that differ by 2**61 - 1, or -1 and -2, hash alike, so a caller could make
        # thousands of keys of one hash; a string's hash is salted per process)
        return tuple(
            (name, type(value), value if type(value) is str else repr(value))
            for name, value in dict.items(self)
        )


ContentKey = tuple[tuple[str, type, str], ...]
_UNMADE = object()
_KEY_ITEMS = 64
_KEY_CHARS = 4096

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
    """Where in an agent's loop a hook runs (PicoClaw's names, plus Claude Code's prompt
    and the end of a turn)."""

    BEFORE_LLM = "before_llm"
    AFTER_LLM = "after_llm"
    BEFORE_TOOL = "before_tool"
    APPROVE_TOOL = "approve_tool"
    AFTER_TOOL = "after_tool"
    USER_PROMPT = "user_prompt"
    STOP = "stop"
    EVENT = "event"


class Action(StrEnum):
    """What an interceptor asks the host to do; the values are PicoClaw's strings."""

    CONTINUE = "continue"
    MODIFY = "modify"
    RESPOND = "respond"
    DENY_TOOL = "deny_tool"
    ABORT_TURN = "abort_turn"
    HARD_ABORT = "hard_abort"


#: Actions that end the chain at the hook that returned them.
TERMINAL = frozenset({Action.RESPOND, Action.DENY_TOOL, Action.ABORT_TURN, Action.HARD_ABORT})
#: Actions after which the host must not run the tool or go on with the turn.
BLOCKING = frozenset({Action.DENY_TOOL, Action.ABORT_TURN, Action.HARD_ABORT})


class _Value:
    """Shared helpers of the value types (no fields of its own)."""

    __slots__ = ()

    def replace(self, **changes: Any) -> Self:
        """A copy with `changes` applied; the original is untouched."""
        return _lazy_dataclass.replace(self, **changes)


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
        return _lazy_dataclass.replace(self, **changes)


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
    #: What the rule that asked says to the person deciding (its `message`); the approval
    #: request keeps it for `approvals show`. Not part of the gate's identity: two asks
    #: of one gate are one gate whatever they say.
    message: str = field(default="", compare=False)


class Decision(NamedTuple):
    """The answer of one hook, and of the whole chain at one point.

    From a hook: `action` plus the payload the action needs (`call` for modify
    at before_tool, `result` for respond or modify at after_tool, `request`,
    `response` or `prompt` at the LLM and prompt points). From the chain: the
    payload fields carry the final values, `hook` names the hook that decided,
    and `decision_id` matches the decision-log line. `allowed` says an `allow`
    rule matched (it exempts the call from approval gates, never from a denial).
    `allowed_by` names a hook that vouched for the call without being one of our
    packs — a hosted Claude Code hook's `permissionDecision: allow` (an auto-approver):
    on the chain's decision only when it is `continue`/`modify` and needs no approval,
    it exempts the call from nothing here, but `policy hook claude` passes it on to the
    host as `allow` (setting `claude_hooks_allow`). `context` is text hooks added for
    the model at before_tool (Claude Code's PreToolUse `additionalContext`), which a
    host that can show it shows after the tool's result.

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
    #: The hook whose `allow` the host is given (the first that allowed, in chain order).
    allowed_by: str | None = None
    #: Context for the model at before_tool: each hook's piece, in the order they ran,
    #: a line break between them.
    context: str = ""
    #: The end of the turn as the hooks leave it (stop): its `instruction`, when set,
    #: is what the agent goes on with instead of stopping.
    stop: Stop | None = None

    @property
    def blocked(self) -> bool:
        """True when the host must not run the tool or continue the turn."""
        return self.action in BLOCKING

    def replace(self, **changes: Any) -> Decision:
        """A copy with `changes` applied."""
        return self._replace(**changes)


# --------------------------------------------------------------------------- points


class PointSpec:
    """What one hook point means, for every layer that handles it.

    The chain checks answers and fails hooks by it, the engine logs by it, packs
    check and apply rules by it, CEL declares its variables from it and host
    adapters map their events and refusals through it. One row per point in one
    table (`POINTS`), so no layer restates what a point is — its payload, its
    actions, what a failure there becomes — and no two layers can disagree.

    Read-only. A plain slotted class rather than a frozen dataclass: building a
    dataclass costs about half a millisecond at import, on the path of every
    one-event hook process, for a table that is built once.
    """

    __slots__ = (
        "_payload",
        "actions",
        "approval",
        "fail_action",
        "field",
        "method",
        "parts",
        "picoclaw",
        "point",
        "rules",
        "slot",
        "tool",
        "variables",
    )

    point: HookPoint
    #: The method a code hook implements to join this point (`on_event` for observers).
    method: str
    _payload: type | str
    #: The Decision attribute that carries the payload back; None where hooks do not
    #: answer with a Decision (approvers answer an ApprovalDecision, observers nothing).
    field: str | None
    #: The index of `field` in a Decision (None with `field`): the chain reads by it.
    slot: int | None
    #: The actions an interceptor may return here. Anything else is an error that the
    #: hook's failure policy handles; it is never silently ignored. Empty where hooks
    #: are not interceptors.
    actions: frozenset[Action]
    #: What refusing here is: what a failing hook (policy `fail`), a decision that
    #: cannot be logged, and a rule's `deny` or failed condition become. deny_tool
    #: where a tool is about to run (an approver that fails denies too), abort_turn
    #: where there is no tool to skip, continue for observers (their failures change
    #: nothing).
    fail_action: Action
    #: Comes before the approval stage: a decision here may send the call to approval
    #: (`needs_approval`, gates), and an `allow` rule may lift a gate.
    approval: bool
    #: The payload is, or comes with, a ToolCall: rules may filter by `tools:` and CEL
    #: sees the call's variables.
    tool: bool
    #: Rule packs may have rules here (a rule's `on:`).
    rules: bool
    #: The CEL variables this point's payload adds to the caller's context
    #: (name -> CEL type name, as policy.packs.cel declares them).
    variables: Mapping[str, str]
    #: One of PicoClaw's own points: a PicoClaw process hook may intercept it.
    picoclaw: bool
    #: What a decision here is asked about, in the order hooks receive it, by the
    #: names the wire formats give them: the payload (`field`, or `event`), after
    #: the call it comes with at tool points (`("call", "result")` at after_tool).
    #: `Engine.decide_at(point, *parts)` takes them in this order; `policy.codec`
    #: reads them from JSON by these names.
    parts: tuple[str, ...]

    def __init__(
        self,
        point: HookPoint,
        *,
        method: str,
        payload_type: type | str,
        field: str | None,
        actions: frozenset[Action],
        fail_action: Action,
        approval: bool,
        tool: bool,
        rules: bool,
        variables: Mapping[str, str],
        picoclaw: bool,
    ) -> None:
        set_ = object.__setattr__
        set_(self, "point", point)
        set_(self, "method", method)
        set_(self, "_payload", payload_type)
        set_(self, "field", field)
        set_(self, "slot", None if field is None else Decision._fields.index(field))
        set_(self, "actions", actions)
        set_(self, "fail_action", fail_action)
        set_(self, "approval", approval)
        set_(self, "tool", tool)
        set_(self, "rules", rules)
        set_(self, "variables", FrozenDict(variables))
        set_(self, "picoclaw", picoclaw)
        own = field or ("call" if tool else point.value)
        set_(self, "parts", ("call", own) if tool and own != "call" else (own,))

    @property
    def payload_type(self) -> type:
        """What hooks receive last at this point (after_tool hooks get the call first).
        Given by name for the types `policy.model.payloads` holds: read when first asked."""
        kind = self._payload
        if type(kind) is str:
            kind = __getattr__(kind)
            object.__setattr__(self, "_payload", kind)
        return kind  # type: ignore[return-value]

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"PointSpec is read-only (cannot set {name!r})")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"PointSpec is read-only (cannot delete {name!r})")

    def __repr__(self) -> str:
        return f"PointSpec({self.point.value!r})"


_AROUND = frozenset({Action.CONTINUE, Action.MODIFY, Action.ABORT_TURN, Action.HARD_ABORT})

#: Every hook point's meaning, in HookPoint order (see PointSpec). Keyed by HookPoint,
#: which is a str: packs and CEL look a point up by the name a rule gives.
POINTS: Mapping[str, PointSpec] = {
    spec.point: spec
    for spec in (
        PointSpec(
            HookPoint.BEFORE_LLM,
            method="before_llm",
            payload_type="LLMRequest",
            field="request",
            actions=_AROUND,
            fail_action=Action.ABORT_TURN,
            approval=False,
            tool=False,
            rules=True,
            variables={"request": "map"},
            picoclaw=True,
        ),
        PointSpec(
            HookPoint.AFTER_LLM,
            method="after_llm",
            payload_type="LLMResponse",
            field="response",
            actions=_AROUND,
            fail_action=Action.ABORT_TURN,
            approval=False,
            tool=False,
            rules=True,
            variables={"response": "map"},
            picoclaw=True,
        ),
        PointSpec(
            HookPoint.BEFORE_TOOL,
            method="before_tool",
            payload_type=ToolCall,
            field="call",
            actions=frozenset(Action),
            fail_action=Action.DENY_TOOL,
            approval=True,
            tool=True,
            rules=True,
            variables={},
            picoclaw=True,
        ),
        PointSpec(
            HookPoint.APPROVE_TOOL,
            method="approve_tool",
            payload_type=ToolCall,
            field=None,
            actions=frozenset(),
            fail_action=Action.DENY_TOOL,
            approval=False,
            tool=True,
            rules=False,
            variables={},
            picoclaw=True,
        ),
        PointSpec(
            HookPoint.AFTER_TOOL,
            method="after_tool",
            payload_type="ToolResult",
            field="result",
            actions=_AROUND,
            fail_action=Action.ABORT_TURN,
            approval=False,
            tool=True,
            rules=True,
            variables={"result": "map", "duration": "duration"},
            picoclaw=True,
        ),
        PointSpec(
            HookPoint.USER_PROMPT,
            method="user_prompt",
            payload_type="Prompt",
            field="prompt",
            actions=_AROUND,
            fail_action=Action.ABORT_TURN,
            approval=False,
            tool=False,
            rules=True,
            variables={"prompt": "string"},
            picoclaw=False,
        ),
        # The end of a turn (Claude Code's Stop / SubagentStop; PicoClaw has no
        # interceptor there, only the `agent.turn.end` event). `modify` with
        # `stop.instruction` keeps the agent going; refusing (a failing hook, a rule's
        # failed condition) ends the turn with an error, never keeps it going.
        PointSpec(
            HookPoint.STOP,
            method="on_stop",
            payload_type="Stop",
            field="stop",
            actions=_AROUND,
            fail_action=Action.ABORT_TURN,
            approval=False,
            tool=False,
            rules=True,
            variables={"stop": "map"},
            picoclaw=False,
        ),
        PointSpec(
            HookPoint.EVENT,
            method="on_event",
            payload_type="Event",
            field=None,
            actions=frozenset(),
            fail_action=Action.CONTINUE,
            approval=False,
            tool=False,
            rules=False,
            variables={},
            picoclaw=False,
        ),
    )
}


#: The value types `policy.model.payloads` holds, named here too: a tool call's decision
#: never makes one, so a one-event hook does not build them (see that module).
_PAYLOADS = frozenset(
    {"ApprovalDecision", "Event", "LLMRequest", "LLMResponse", "Prompt", "Stop", "ToolResult"}
)


def __getattr__(name: str) -> Any:
    if name in _PAYLOADS:
        from policy.model import payloads

        value = getattr(payloads, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
