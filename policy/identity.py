"""What a rewrite may not change: who asks and from where, the call's id, an LLM
request's system prompt and tools; and the tool's canonical name after a rewrite.

The chain applies these to every `modify` (`Fold.take`), so they live below both the
chain and the engine: the chain calls them directly instead of calling back into the
engine that started it (DESIGN §9, issue 24 item 7). An engine builds one
`CallNormalizer` for its alias table (fixed for the engine's life) and hands it to
the chain and to the re-judgment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policy import _lazy_dataclass
from policy._logger import logger
from policy.aliases import DEFAULT_ALIASES, AliasTable
from policy.model import CallContext, ToolCall

__all__ = ["CallNormalizer", "keep_identity", "normalize_request"]

log = logger("policy.engine")

#: The caller's identity: the fields of CallContext every payload carries.
IDENTITY = tuple(f.name for f in _lazy_dataclass.fields(CallContext))


def keep_identity(old: Any, new: Any, hook: str) -> tuple[Any, str | None]:
    """`new` with `old`'s identity (and call id): a modify may change what is asked,
    never who asks or where. A warning when the hook tried."""
    warning = None
    if any(getattr(old, f) != getattr(new, f) for f in IDENTITY) or (
        isinstance(old, ToolCall) and old.call_id != new.call_id
    ):
        keep = {f: getattr(old, f) for f in IDENTITY}
        if isinstance(old, ToolCall):
            keep["call_id"] = old.call_id
        new = _lazy_dataclass.replace(new, **keep)
        warning = f"hook {hook!r} tried to change the caller's identity fields; kept the originals"
    return new, warning


def normalize_request(old: Any, new: Any, hook: str) -> tuple[Any, str | None]:
    """A rewritten LLM request keeps its identity, system prompt and tool definitions."""
    new, warning = keep_identity(old, new, hook)
    if _system_messages(old.messages) != _system_messages(new.messages):
        new = new.replace(messages=old.messages)
        warning = f"hook {hook!r} tried to change the system prompt; original messages kept"
        log.warning(warning)
    if old.tools != new.tools:
        new = new.replace(tools=old.tools)
        warning = f"hook {hook!r} tried to change tool definitions; original tools kept"
        log.warning(warning)
    return new, warning


class CallNormalizer:
    """A rewritten tool call: its identity kept, its tool named canonically (a hook
    that rewrites `Bash` to `shell` still meets every bash rule)."""

    __slots__ = ("_aliases",)

    def __init__(self, aliases: AliasTable) -> None:
        self._aliases = aliases

    def canonical(self, call: ToolCall) -> ToolCall:
        """`call` with its tool's canonical name (`tool_raw` keeps the host's)."""
        if self._aliases is DEFAULT_ALIASES:
            return call
        tool = self._aliases.canonical(call.tool)
        if tool == call.tool:
            return call
        return call.replace(tool=tool, tool_raw=call.tool_raw)

    def __call__(self, old: Any, new: Any, hook: str) -> tuple[Any, str | None]:
        new, warning = keep_identity(old, new, hook)
        return self.canonical(new), warning


def _system_messages(
    messages: tuple[Mapping[str, Any], ...],
) -> list[tuple[int, Mapping[str, Any]]]:
    return [(i, m) for i, m in enumerate(messages) if m.get("role") == "system"]
