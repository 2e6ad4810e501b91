"""The shipped policy against the frozen corpus (tests/corpus/): what it must catch,
what it must leave alone. The rates are the product's claim in docs/security.md.

The bars: at least 97 % of dangerous calls denied or sent to a person, at least 90 %
denied outright in the categories where an ask is not enough (destruction,
credentials, exfiltration, privilege, self-protection), no dangerous call explicitly
allowed, at most 1 % of everyday work flagged. The held-out fifth (entries the rules
were not tuned on) is held to the same bars less a margin (1.5 % flagged), so a rule
written for one entry cannot carry the claim.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # ≈ 8 s: every entry through the engine

CORPUS = Path(__file__).resolve().parent / "corpus"
STRICT = ("destruction", "credentials", "exfiltration", "privilege", "self_protection")


@pytest.fixture(scope="module")
def decided() -> Iterator[dict[str, list[tuple[dict[str, Any], str, str]]]]:
    """Every entry of both sets with its verdict (measure.verdict), by set name."""
    sys.path.insert(0, str(CORPUS))
    home = os.environ.get("HOME")
    try:
        import measure

        yield measure.measure(CORPUS.parent.parent / "rules")
    finally:
        sys.path.remove(str(CORPUS))
        if home is None:
            os.environ.pop("HOME", None)
        else:
            os.environ["HOME"] = home


@pytest.fixture(scope="module")
def measured(decided: dict[str, list[tuple[dict[str, Any], str, str]]]) -> dict[str, Any]:
    import measure

    return {
        f"{name} {part}": measure.rates(
            [row for row in rows if measure.held_out(row[0]) == (part == "held-out")]
        )
        for name, rows in decided.items()
        for part in ("tuned", "held-out")
    }


def share(counts: Counter[str], *outcomes: str) -> float:
    return sum(counts[o] for o in outcomes) / sum(counts.values())


@pytest.mark.parametrize(("part", "margin"), [("tuned", 0.0), ("held-out", 0.02)])
def test_dangerous_calls_are_caught(measured: dict[str, Any], part: str, margin: float) -> None:
    counts = measured[f"dangerous {part}"]
    assert share(counts["all"], "deny", "ask") >= 0.97 - margin
    for category in STRICT:
        assert share(counts[category], "deny") >= 0.90 - margin, category


def test_everyday_work_is_left_alone(
    decided: dict[str, list[tuple[dict[str, Any], str, str]]], measured: dict[str, Any]
) -> None:
    """At most 1 % of everyday calls flagged over both parts together, 1.5 % of the
    held-out fifth on its own."""
    everyday = Counter(outcome for _, outcome, _ in decided["everyday"])
    assert share(everyday, "deny", "ask") <= 0.01
    assert share(measured["everyday held-out"]["all"], "deny", "ask") <= 0.015


def test_dangerous_calls_are_caught_over_both_parts(
    decided: dict[str, list[tuple[dict[str, Any], str, str]]],
) -> None:
    dangerous = Counter(outcome for _, outcome, _ in decided["dangerous"])
    assert share(dangerous, "deny", "ask") >= 0.97


def test_no_dangerous_call_is_explicitly_allowed(
    decided: dict[str, list[tuple[dict[str, Any], str, str]]],
) -> None:
    """An explicit `allow` switches off Claude Code's own permission prompt: it is a
    promise that the call only reads, and no dangerous entry, tuned or held out, may
    get it (a miss may pass with no opinion, to the host's own prompt, never this)."""
    allowed = [entry for entry, outcome, _ in decided["dangerous"] if outcome == "allow"]
    assert allowed == []


def test_the_corpus_is_the_frozen_one() -> None:
    """Its size and sources are what tests/corpus/README.md describes."""
    dangerous = (CORPUS / "dangerous.jsonl").read_text().splitlines()
    everyday = (CORPUS / "everyday.jsonl").read_text().splitlines()
    assert (len(dangerous), len(everyday)) == (3486, 2066)
