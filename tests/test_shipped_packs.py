"""The packs under rules/ and examples/packs/ pass their own tests, on both CEL engines."""

from __future__ import annotations

from pathlib import Path

import pytest

from policy.pack_tests import run_pack_tests

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


def test_every_rule_of_the_shipped_packs_is_exercised() -> None:
    for pack in RULES:
        outcomes = run_pack_tests(pack)
        hit = {rid for o in outcomes if o.decision for rid in o.decision.rule_ids}
        from policy.packs.load import read_pack

        loaded, _ = read_pack(pack)
        assert loaded is not None
        missing = {f"{loaded.name}/{r.id}" for r in loaded.model.rules} - hit
        assert missing == set(), f"{pack.name}: no test reaches {sorted(missing)}"
