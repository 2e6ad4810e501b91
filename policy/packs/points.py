"""What each rule action and `set:` target may do at each hook point.

Plain data, kept apart from the pydantic schema (`policy.packs.schema` re-exports
it) because compiled packs read it on the decision path, and a pack loaded from
the cache must not import pydantic to apply a `set:`.

Which points take rules, and what is valid at each, is not stated here: it is read
from the one table of hook points (`policy.model.POINTS`). A rule action is valid
where the chain action it stands for is; `allow` and `ask`, which only lift or put
approval gates, where a decision comes before the approval stage; `log` anywhere.
"""

from __future__ import annotations

from policy.model import POINTS, Action

__all__ = ["ACTION_POINTS", "RESPOND_FIELDS", "RULE_POINTS", "SET_TARGETS", "TO_ACTION"]

_RULED = tuple(spec for spec in POINTS.values() if spec.rules)
#: The points rules may name in `on:`, as strings.
RULE_POINTS: tuple[str, ...] = tuple(spec.point.value for spec in _RULED)

#: The chain action each rule action answers with (`log` only logs: none).
TO_ACTION: dict[str, Action] = {
    "allow": Action.CONTINUE,
    "deny": Action.DENY_TOOL,
    "ask": Action.CONTINUE,
    "respond": Action.RESPOND,
    "modify": Action.MODIFY,
    "abort_turn": Action.ABORT_TURN,
    "hard_abort": Action.HARD_ABORT,
}
_GATING = frozenset({"allow", "ask"})


def _valid_at(action: str) -> frozenset[str]:
    if action == "log":
        return frozenset(RULE_POINTS)
    if action in _GATING:
        return frozenset(spec.point.value for spec in _RULED if spec.approval)
    return frozenset(spec.point.value for spec in _RULED if TO_ACTION[action] in spec.actions)


#: Where each rule action may be used.
ACTION_POINTS: dict[str, frozenset[str]] = {
    action: _valid_at(action) for action in (*TO_ACTION, "log")
}

#: `set:` targets per point: a path prefix and the type the value must have.
#: A trailing `.*` accepts any key below (`args.command`, `args.env.PATH`).
SET_TARGETS: dict[str, dict[str, str]] = {
    "before_tool": {"args": "map", "args.*": "any"},
    "after_tool": {
        "result.for_llm": "string",
        "result.for_user": "string",
        "result.is_error": "bool",
        "result.silent": "bool",
    },
    "before_llm": {"request.model": "string", "request.options": "map", "request.options.*": "any"},
    "after_llm": {"response.content": "string", "response.reasoning": "string"},
    "user_prompt": {"prompt": "string"},
    # What the agent goes on with instead of stopping ("" lets it stop).
    "stop": {"stop.instruction": "string"},
}

RESPOND_FIELDS: dict[str, str] = {
    "for_llm": "string",
    "for_user": "string",
    "is_error": "bool",
    "silent": "bool",
}
