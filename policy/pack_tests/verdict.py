"""How a decision compares with a test's `expect:`, in the pack's own words.

`expect.action` speaks the pack's language: `allow` is a continue that an allow rule
exempted from approval, `ask` a continue that needs approval, `deny` a deny_tool.
"""

from __future__ import annotations

from policy.model import Action, Decision
from policy.packs.schema import Expect

__all__ = ["action_of", "qualify", "verdict"]


def qualify(pack: str, rule: str) -> str:
    """`rule` as a decision names it: `id` (or `contract_scope/ID`) of `pack`, or
    `other-pack/id` as written."""
    if "/" in rule and not rule.startswith("contract_scope/"):
        return rule
    return f"{pack}/{rule}"


def action_of(decision: Decision) -> str:
    """The decision's action as a pack test names it."""
    if decision.action is Action.CONTINUE:
        if decision.needs_approval:
            return "ask"
        return "allow" if decision.allowed else "continue"
    if decision.action is Action.DENY_TOOL:
        return "deny"
    return decision.action.value


def _approvers(decision: Decision) -> list[str]:
    return sorted({a for gate in decision.gates for a in gate.approvers})


def verdict(pack: str, expect: Expect, decision: Decision) -> list[str]:
    """What differs between `decision` and `expect` (empty when the test passes); each
    line names the field, what was expected and what the decision said."""
    problems: list[str] = []
    actual = action_of(decision)
    if expect.action is not None and expect.action != actual:
        problems.append(f"action: expected {expect.action}, got {actual}")
    wanted = [expect.rule] if expect.rule else []
    wanted += expect.rules or []
    for rule in wanted:
        full = qualify(pack, rule)
        if full not in decision.rule_ids:
            problems.append(f"rule: expected {full} among {list(decision.rule_ids)}")
    if expect.approval is not None and decision.needs_approval != expect.approval:
        problems.append(f"approval: expected {expect.approval}, got {decision.needs_approval}")
    if expect.approvers is not None:
        named = _approvers(decision)
        if named != sorted(expect.approvers):
            problems.append(f"approvers: expected {sorted(expect.approvers)}, got {named}")
    if expect.reason is not None and expect.reason not in decision.reason:
        problems.append(f"reason: expected to contain {expect.reason!r}, got {decision.reason!r}")
    if expect.args is not None:
        args = dict(decision.call.args) if decision.call is not None else {}
        for key, value in expect.args.items():
            if args.get(key) != value:
                problems.append(f"args.{key}: expected {value!r}, got {args.get(key)!r}")
    if expect.result is not None:
        text = decision.result.for_llm if decision.result is not None else ""
        if expect.result not in text:
            problems.append(f"result: expected to contain {expect.result!r}, got {text!r}")
    return problems
