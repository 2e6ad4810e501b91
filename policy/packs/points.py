"""What each rule action and `set:` target may do at each hook point.

Plain data, kept apart from the pydantic schema (`policy.packs.schema` re-exports
it) because compiled packs read it on the decision path, and a pack loaded from
the cache must not import pydantic to apply a `set:`.
"""

from __future__ import annotations

__all__ = ["ACTION_POINTS", "RESPOND_FIELDS", "RULE_POINTS", "SET_TARGETS"]

RULE_POINTS: tuple[str, ...] = (
    "before_tool",
    "after_tool",
    "before_llm",
    "after_llm",
    "user_prompt",
)

#: Where each rule action may be used.
ACTION_POINTS: dict[str, frozenset[str]] = {
    "allow": frozenset({"before_tool"}),
    "deny": frozenset({"before_tool"}),
    "ask": frozenset({"before_tool"}),
    "respond": frozenset({"before_tool"}),
    "modify": frozenset(RULE_POINTS),
    "abort_turn": frozenset(RULE_POINTS),
    "hard_abort": frozenset(RULE_POINTS),
    "log": frozenset(RULE_POINTS),
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
}

RESPOND_FIELDS: dict[str, str] = {
    "for_llm": "string",
    "for_user": "string",
    "is_error": "bool",
    "silent": "bool",
}
