"""Running the `tests:` of a pack against the pack alone.

Each test builds the call (or result, request, prompt) it describes, runs it
through an engine that has only that pack loaded, and compares the decision with
`expect`. Above the engine (it builds one), hence not inside `policy.packs`, which
the engine loads. `expect.action` speaks the pack's language: `allow` is a continue that
an allow rule exempted from approval, `ask` a continue that needs approval,
`deny` a deny_tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policy.codec import PART_TYPES, from_dict
from policy.errors import InputError
from policy.model import POINTS, Action, Decision
from policy.packs.schema import Expect, PackTest

__all__ = ["TestOutcome", "run_pack_tests", "verdict"]

_ACTIONS = {
    "deny": Action.DENY_TOOL,
    "modify": Action.MODIFY,
    "respond": Action.RESPOND,
    "abort_turn": Action.ABORT_TURN,
    "hard_abort": Action.HARD_ABORT,
}


@dataclass(frozen=True, slots=True)
class TestOutcome:
    pack: str
    name: str
    line: int
    passed: bool
    problems: tuple[str, ...]
    decision: Decision | None


def _action_of(decision: Decision) -> str:
    if decision.action is Action.CONTINUE:
        if decision.needs_approval:
            return "ask"
        return "allow" if decision.allowed else "continue"
    if decision.action is Action.DENY_TOOL:
        return "deny"
    return decision.action.value


def verdict(pack: str, expect: Expect, decision: Decision) -> list[str]:
    """What differs between `decision` and `expect` (empty when the test passes)."""
    problems: list[str] = []
    actual = _action_of(decision)
    if expect.action is not None and expect.action != actual:
        problems.append(f"action: expected {expect.action}, got {actual}")
    wanted = [expect.rule] if expect.rule else []
    wanted += expect.rules or []
    for rule in wanted:
        full = rule if "/" in rule else f"{pack}/{rule}"
        if full not in decision.rule_ids:
            problems.append(f"rule: expected {full} among {list(decision.rule_ids)}")
    if expect.approval is not None and decision.needs_approval != expect.approval:
        problems.append(f"approval: expected {expect.approval}, got {decision.needs_approval}")
    if expect.approvers is not None:
        named = sorted({a for gate in decision.gates for a in gate.approvers})
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


def _run(engine: Any, test: PackTest) -> Decision:
    parts = []
    for name in POINTS[test.on].parts:
        data = getattr(test, name)
        if data is None:
            raise InputError(f"a test on {test.on} needs `{name}:`")
        parts.append(from_dict(PART_TYPES[name], data, name))
    decision: Decision = engine.decide_at(test.on, *parts)
    return decision


#: The interceptor budget while a pack's tests run: ten minutes, no deadline in practice.
_NO_DEADLINE_MS = 600_000


def run_pack_tests(path: Path, *, cel_engine: str = "cel-expr-python") -> list[TestOutcome]:
    """Run every test of the pack at `path` (a PackError if the pack does not load)."""
    import io

    from policy.engine import Engine
    from policy.packs.load import read_pack
    from policy.settings import Settings

    loaded, problems = read_pack(path)
    if loaded is None:
        from policy.packs.diagnostics import PackError

        raise PackError(problems)
    outcomes: list[TestOutcome] = []
    # A pack's tests start from zero every run: their rate limits and contracts count in
    # this engine alone, never in the user's shared state file (policy.state).
    # They judge what a rule decides, not how fast: the interceptor budget of a
    # deployment (5 s) is no limit here, or a loaded CI machine running the pure-Python
    # engine turns a slow decision into a timeout's denial and a failed test.
    settings = Settings(
        packs=[path],
        cel_engine=cel_engine,
        limits_storage_uri="memory://",
        interceptor_timeout_ms=_NO_DEADLINE_MS,
    )
    with Engine(settings, audit_stream=io.StringIO()) as engine:
        for index, test in enumerate(loaded.model.tests):
            line = loaded.doc.mark(("tests", index)) or None
            try:
                decision = _run(engine, test)
            except InputError as exc:
                outcomes.append(
                    TestOutcome(
                        loaded.name, test.name, line.line if line else 1, False, (str(exc),), None
                    )
                )
                continue
            issues = verdict(loaded.name, test.expect, decision)
            outcomes.append(
                TestOutcome(
                    loaded.name,
                    test.name,
                    line.line if line else 1,
                    not issues,
                    tuple(issues),
                    decision,
                )
            )
    return outcomes
