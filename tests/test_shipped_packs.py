"""The packs under rules/ and examples/packs/ pass their own tests, on both CEL engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from policy.pack_tests import run_pack_tests
from policy.pack_tests.coverage import coverage
from policy.pack_tests.run import run_collection
from policy.pack_tests.suite import collect

ROOT = Path(__file__).resolve().parent.parent
RULES = sorted([*(ROOT / "rules").glob("*.yaml"), *(ROOT / "examples" / "packs").glob("*.yaml")])


@pytest.mark.parametrize("engine", ["cel-expr-python", "cel-python"])
@pytest.mark.parametrize("pack", RULES, ids=[p.stem for p in RULES])
def test_pack_tests_pass(pack: Path, engine: str) -> None:
    outcomes = run_pack_tests(pack, cel_engine=engine)
    assert outcomes, f"{pack.name} has no tests"
    failures = [
        f"{o.name} (line {o.line}): {'; '.join(o.problems)}" for o in outcomes if not o.passed
    ]
    assert failures == []


def test_every_rule_and_builtin_gate_of_the_shipped_packs_is_exercised() -> None:
    # the units `policy test --coverage` counts: every rule, builtin gate, rate limit
    # and contract of each pack, exercised by the pack's own tests
    found = collect(RULES)
    report = coverage(found.under_test, run_collection(found))
    assert [unit.name for unit in report.uncovered] == []
    assert report.percent == 100.0
