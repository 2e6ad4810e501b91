"""Tool policy: allow and deny globs, and rate limits per sender per tool (DESIGN §6.3).

OpenClaw's SemanticKernelPolicyHook kept its per-minute counters in process memory,
so every replica counted alone. Here the counters are the `limits` library's, in
the storage `limits_storage_uri` names: by default a SQLite file under the data dir
that every process of the machine shares (policy.state; hooks started once per event
need it), `redis://...` to share one budget between machines, `memory://` for one
long-lived process.

Governed tools are those `applies_to` matches; others pass untouched. Deny wins;
an explicit empty `allow` admits no governed tool; a governed tool no allow glob
matches is denied. A call refused by the limiter does not use up the budget
unless `count_denied: true`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from policy import telemetry
from policy.aliases import AliasTable
from policy.builtins._match import ToolSet
from policy.builtins.priority import DEFAULT_PRIORITY
from policy.facts import current_principal, scoped
from policy.model import Action, Decision, ToolCall

if TYPE_CHECKING:
    from policy.builtins.config import ToolPolicyConfig

__all__ = ["ToolPolicy", "limiter_for", "parse_limits"]


def parse_limits(text: str) -> list[Any]:
    """`30/minute`, `5 per second`, `100/hour;1000/day` -> limits' RateLimitItems.

    ValueError with limits' own message when the notation is wrong.
    """
    from limits import parse_many

    items = list(parse_many(text))
    if not items:
        raise ValueError(f"no rate limit in {text!r}")
    return items


def limiter_for(
    storage_uri: str, strategy: str, clock: Callable[[], float] | None = None
) -> Any:
    """A `limits` rate limiter over the storage at `storage_uri` (sqlite:///PATH,
    memory:// or redis://...), counting in `clock` when one is given."""
    from limits import strategies

    from policy.state import limits_storage

    return strategies.STRATEGIES[strategy](limits_storage(storage_uri, clock))


class _Rule:
    __slots__ = ("_items", "per_channel", "text", "tools")

    def __init__(self, tools: ToolSet, text: str, per_channel: bool) -> None:
        self.tools = tools
        self.text = text
        self._items: list[Any] | None = None
        self.per_channel = per_channel

    @property
    def items(self) -> list[Any]:
        """The limits, parsed when a call first meets the rule (the pack compiler has
        checked the notation already)."""
        if self._items is None:
            self._items = parse_limits(self.text)
        return self._items


class ToolPolicy:
    """One pack's tool policy, as an inline, trusted before_tool hook."""

    inline = True
    failure_policy = "fail"
    #: Asked again only when a rewrite changed the tool (policy.rejudge): its lists
    #: and rate limits then apply to the tool that will run; on the same tool the
    #: call would count twice.
    rejudge = "if_tool_changed"

    def __init__(
        self,
        pack: str,
        config: ToolPolicyConfig,
        aliases: AliasTable,
        limiter: Any,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = f"builtin:{pack}/tool_policy"
        self.rule_id = f"{pack}/tool_policy"
        self.priority = (
            config.priority if config.priority is not None else DEFAULT_PRIORITY["tool_policy"]
        )
        self._governed = ToolSet(config.applies_to, aliases)
        self._allow = ToolSet(config.allow, aliases) if config.allow is not None else None
        self._deny = ToolSet(config.deny, aliases)
        self._rules = [
            _Rule(ToolSet(r.tools, aliases), r.limit, r.per_channel) for r in config.rate_limits
        ]
        self._limiter = limiter
        self._count_denied = config.count_denied
        self._clock = clock
        self._namespace = f"hookpolicy/{pack}"
        #: What this hook must remember between calls (policy.state.check_per_event).
        self.state_needed = (
            f"the rate limit {', '.join(r.limit for r in config.rate_limits)} in pack {pack!r}"
            if config.rate_limits
            else ""
        )

    def before_tool(self, call: ToolCall) -> Decision | None:
        tool = call.tool
        if tool not in self._governed:
            return None
        if tool in self._deny:
            return self._deny_with(f"tool {tool!r} is denied by tool_policy")
        if self._allow is not None and tool not in self._allow:
            return self._deny_with(f"tool {tool!r} is not in tool_policy's allow list")
        for rule in self._rules:
            if tool not in rule.tools:
                continue
            # Per sender within the principal that asked (`policy serve`: the hook's
            # uid or token), so one agent's calls never spend another's budget.
            keys = [self._namespace, scoped(call.sender or "-"), tool]
            if rule.per_channel:
                keys.append(call.channel or "-")
            for item in rule.items:
                refusal = self._take(item, keys, rule, call)
                if refusal is not None:
                    return self._deny_with(refusal)
        return None

    def _take(self, item: Any, keys: list[str], rule: _Rule, call: ToolCall) -> str | None:
        if not self._count_denied and not self._limiter.test(item, *keys):
            return self._over(item, keys, rule, call)
        if not self._limiter.hit(item, *keys):
            return self._over(item, keys, rule, call)
        return None

    def _over(self, item: Any, keys: list[str], rule: _Rule, call: ToolCall) -> str:
        telemetry.RATE_LIMIT_DENIALS.inc()
        stats = self._limiter.get_window_stats(item, *keys)
        wait = max(0, math.ceil(stats.reset_time - self._clock()))
        where = f" in channel {call.channel!r}" if rule.per_channel else ""
        principal = current_principal()
        within = f" ({principal})" if principal else ""
        return (
            f"rate limit {rule.text} for sender {call.sender or '-'!r}{within} on tool "
            f"{call.tool!r}{where} exceeded; resets in {wait} s"
        )

    def _deny_with(self, reason: str) -> Decision:
        return Decision(Action.DENY_TOOL, reason, rule_ids=(self.rule_id,))
