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


#: Lines a shipped condition once searched with Python's `re` in time quadratic in
#: their length, the interpreter lock held all along — so a long-running hook's
#: watchdog could not refuse at its deadline, nor its readers read the next request,
#: and the host skipped the hook: 10 s for the first at 160 KB, 2.4 s for the second.
#: Each is now searched with RE2 (CEL's own `matches`), in time linear in the line.
LONG_LINES = {
    "kubectl get secret": "kubectl '" + "get secret " * 36_000 + "' ; gh auth token",
    "docker container": "docker '" + "-a container " * 20_000 + "' ; gh auth token",
    "kubectl config": "kubectl '" + "-a config " * 26_000 + "' ; gh auth token",
    "a secret's copy": "cat '" + "adminsdk." * 29_000 + "' ; gh auth token",
}


@pytest.mark.parametrize("engine", ["native", "cel-expr-python"])
@pytest.mark.parametrize("line", list(LONG_LINES.values()), ids=list(LONG_LINES))
def test_a_long_line_is_decided_well_within_a_hooks_deadline(
    line: str, engine: str, tmp_path: Path
) -> None:
    import time

    from policy import Engine, ToolCall
    from policy.settings import Settings

    settings = Settings(
        packs=[ROOT / "rules"], audit_path=tmp_path / "decisions.log", cel_engine=engine
    )
    with Engine(settings) as policy:
        started = time.monotonic()
        decision = policy.before_tool(ToolCall(tool="Bash", args={"command": line}, cwd="/srv"))
        took = time.monotonic() - started
    assert "credentials/deny-credential-commands" in decision.rule_ids
    assert took < 4.0  # (a long-running hook's deadline; linear, it takes ≈ 0.1 s)


@pytest.mark.parametrize("engine", ["native", "cel-expr-python"])
def test_a_long_tool_name_is_decided_well_within_a_hooks_deadline(
    engine: str, tmp_path: Path
) -> None:
    """A model chooses an MCP tool's name: exfiltration's `mcp_writer` once took 14.7 s
    over one of 100 KB with Python's `re`; RE2 is linear in it."""
    import time

    from policy import Engine, ToolCall
    from policy.settings import Settings

    settings = Settings(
        packs=[ROOT / "rules"], audit_path=tmp_path / "decisions.log", cel_engine=engine
    )
    workflow = {"path": ".github/workflows/ci.yml", "content": "on: push"}
    with Engine(settings) as policy:
        started = time.monotonic()
        policy.before_tool(ToolCall(tool="mcp__x" + "__add" * 40_000 + "!", args=workflow))
        took = time.monotonic() - started
        writer = policy.before_tool(ToolCall(tool="mcp__gh__create_or_update_file", args=workflow))
    assert took < 4.0  # (a long-running hook's deadline; linear, it takes ≈ 0.1 s)
    assert writer.rule_ids == ("exfiltration/ask-remote-ci-workflow",) and writer.needs_approval
