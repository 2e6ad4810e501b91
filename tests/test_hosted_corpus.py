"""Published Claude Code hooks, hosted in our chain, behave as Claude Code runs them.

`tests/hosted_corpus/` holds hook setups exactly as their authors published them: 20
from the repositories issue 23 names, and, in `heldout/`, more from other repositories,
kept apart so that fixes are not tuned to them. Each case records what the real Claude
Code CLI did with a few events (`case.json` → `claude`); `compare.py` replays every event
through `policy hook claude` and through `Engine(Settings(claude_hooks=[...]))` and
says, per case, whether the model and the user are left where Claude Code leaves them
(README.md there says how the recordings were made and what is compared).

The counts below are what was measured when the corpus was built; they may only go up.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

CORPUS = Path(__file__).resolve().parent / "hosted_corpus"

#: Cases (of 20 named, of 11 held out) that behave as under Claude Code, measured on
#: 2026-12-05 with the round-2 fixes that had landed by then (16 of 20 before the last
#: two of them). Raise them as fixes land.
NAMED_SAME_AT_LEAST = 19
HELDOUT_SAME_AT_LEAST = 11


def load_compare() -> ModuleType:
    spec = importlib.util.spec_from_file_location("hosted_corpus_compare", CORPUS / "compare.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


compare = load_compare()


def test_every_case_names_its_source_and_what_claude_code_did_with_each_event() -> None:
    named, heldout = compare.case_dirs("named"), compare.case_dirs("heldout")
    assert len(named) >= 20
    assert len(heldout) >= 8
    for case_dir in named + heldout:
        case = json.loads((case_dir / "case.json").read_text())
        assert re.match(r"https://github\.com/[\w.-]+/[\w.-]+ @ [0-9a-f]{40}: ", case["SOURCE"]), (
            case_dir
        )
        assert (case_dir / case["hooks_file"]).is_file(), case_dir
        ids = [event["id"] for event in case["events"]]
        assert ids and len(ids) == len(set(ids)), case_dir
        for event in case["events"]:
            seen = case["claude"][event["id"]]
            assert seen["version"].startswith("2.1."), (case_dir, event["id"])
            assert seen["payloads"], (case_dir, event["id"])  # what Claude Code sent, replayed


def test_a_repository_is_either_named_or_held_out_never_both() -> None:
    def repos(group: str) -> set[str]:
        return {
            json.loads((d / "case.json").read_text())["SOURCE"].split(" @ ")[0]
            for d in compare.case_dirs(group)
        }

    assert not repos("named") & repos("heldout")


@pytest.mark.slow
def test_published_hooks_behave_in_our_chain_as_under_claude_code() -> None:
    results = compare.core()
    report = "\n".join(
        f"{case.group}/{case.name}: "
        + "; ".join(f"{e.event}: {w}" for e in case.events for w in e.why)
        for cases in results.values()
        for case in cases
        if not case.same
    )
    named_same, named_total = compare.totals(results["named"])
    heldout_same, heldout_total = compare.totals(results["heldout"])
    assert named_same >= NAMED_SAME_AT_LEAST, f"{named_same} of {named_total} named:\n{report}"
    assert heldout_same >= HELDOUT_SAME_AT_LEAST, (
        f"{heldout_same} of {heldout_total} held out:\n{report}"
    )
