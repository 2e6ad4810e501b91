"""`policy bench`: per-point latency, memory and the slowest rules, on calls you give.

These tests read the report's shape and its counts, never its times: a benchmark
prints figures, a test asserts what they are figures of.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policy import Engine
from policy.bench import BUNDLED_CALLS
from policy.cli import main
from policy.cli.bench_cmd import read_calls
from policy.settings import Settings

REPO = Path(__file__).resolve().parent.parent

PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: tiny
revision: "1"
rules:
  - id: no-rm
    tools: [bash]
    when: commands.exists(c, c.name == "rm")
    action: deny
    message: no rm here
  - id: redact-secret
    on: after_tool
    when: result.for_llm.contains("secret")
    action: modify
    set:
      result.for_llm: '"[removed]"'
"""

CALLS = [
    {"tool": "Bash", "args": {"command": "ls -la"}, "cwd": "/tmp"},
    {"tool": "Bash", "args": {"command": "rm -rf build"}, "cwd": "/tmp"},
    {"tool": "Bash", "args": {"command": "git status"}, "cwd": "/tmp"},
    {
        "point": "after_tool",
        "call": {"tool": "Bash", "args": {"command": "cat .env"}},
        "result": {"for_llm": "token=secret"},
    },
]


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    path.write_text(PACK)
    return path


def write_calls(path: Path, calls: list[object]) -> Path:
    path.write_text("".join(json.dumps(call) + "\n" for call in calls))
    return path


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    return write_calls(tmp_path / "calls.jsonl", CALLS)


def bench_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(["bench", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_the_table_has_a_row_for_each_point_seen_and_names_the_slowest_rules(
    pack: Path, calls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", str(pack), "--calls", str(calls), "--count", "8"]) == 0
    out = capsys.readouterr().out
    assert "4 call(s)" in out and "8 decision(s) after a warm-up of 4" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.strip()}
    assert rows["before_tool"][1] == "6"  # the three Bash calls, twice
    assert rows["after_tool"][1] == "2"
    assert rows["all"][1] == "8"
    assert "bytes per decision" in out
    assert "slowest rules by cumulative CEL time" in out
    assert f"tiny/no-rm  ({pack}:6)" in out
    assert f"tiny/redact-secret  ({pack}:11)" in out


def test_json_carries_the_same_figures_under_the_documented_keys(
    pack: Path, calls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = bench_json(capsys, str(pack), "--calls", str(calls), "--rounds", "3")
    assert set(report) == {
        "calls_file",
        "paths",
        "cel_engine",
        "calls",
        "decisions",
        "warmup",
        "packs",
        "memos_cleared",
        "points",
        "overall",
        "memory",
        "slowest_rules",
        "rules_skipped_calls",
    }
    assert report["calls_file"] == str(calls)
    assert report["paths"] == [str(pack)]
    assert list(report["packs"]) == ["tiny"]  # type: ignore[arg-type]
    assert (report["calls"], report["decisions"], report["warmup"]) == (4, 12, 4)
    points = {p["point"]: p for p in report["points"]}  # type: ignore[attr-defined]
    assert {name: p["count"] for name, p in points.items()} == {
        "before_tool": 9,
        "after_tool": 3,
    }
    overall = report["overall"]
    for figures in [*points.values(), overall]:
        assert set(figures) >= {"count", "p50_us", "p90_us", "p99_us", "mean_us"}
        assert 0 < figures["p50_us"] <= figures["p90_us"] <= figures["p99_us"]
        assert figures["decisions_per_s"] > 0
    assert overall["count"] == 12 and overall["seconds"] > 0  # type: ignore[index]
    memory = report["memory"]
    assert memory["source"] in ("rss", "max_rss")  # type: ignore[index]
    assert memory["before_bytes"] > 0 and memory["after_bytes"] > 0  # type: ignore[index]
    assert memory["growth_bytes"] == memory["after_bytes"] - memory["before_bytes"]  # type: ignore[index]
    rules = {r["rule"]: r for r in report["slowest_rules"]}  # type: ignore[attr-defined]
    # each candidate rule's condition, once per call of the mix that reaches it
    assert rules["tiny/no-rm"]["evaluations"] == 3
    assert rules["tiny/redact-secret"]["evaluations"] == 1
    lines = pack.read_text().splitlines()
    for rule in rules.values():
        file, _, line = rule["at"].rpartition(":")
        assert file == str(pack)
        assert lines[int(line) - 1].strip() == f"- id: {rule['rule'].split('/')[1]}"
        assert rule["errors"] == 0 and rule["total_us"] >= rule["mean_us"] > 0
    totals = [r["total_us"] for r in report["slowest_rules"]]  # type: ignore[attr-defined]
    assert totals == sorted(totals, reverse=True)


def test_count_is_the_number_of_decisions_going_round_the_mix(
    pack: Path, calls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = bench_json(capsys, str(pack), "--calls", str(calls), "--count", "5")
    points = {p["point"]: p["count"] for p in report["points"]}  # type: ignore[attr-defined]
    assert report["decisions"] == 5 and points == {"before_tool": 4, "after_tool": 1}


def test_the_packs_setting_is_the_default_paths(
    pack: Path, calls: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "settings.yaml"
    config.write_text(f"packs: [{pack}]\n")
    report = bench_json(capsys, "--config", str(config), "--calls", str(calls), "--count", "2")
    assert report["paths"] == [str(pack)]


def test_without_paths_or_a_packs_setting_it_refuses(
    calls: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["bench", "--calls", str(calls)]) == 2
    assert "no PATHS given and the packs setting is empty" in capsys.readouterr().err


def test_a_bad_calls_line_is_named_by_file_and_line(
    pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(CALLS[0]) + "\n" + '{"tool": "Bash", "args": \n')
    assert main(["bench", str(pack), "--calls", str(broken)]) == 2
    assert f"{broken}:2: not valid JSON" in capsys.readouterr().err

    unknown = write_calls(tmp_path / "unknown.jsonl", [CALLS[0], {"point": "nowhere", "call": {}}])
    assert main(["bench", str(pack), "--calls", str(unknown)]) == 2
    assert f"{unknown}:2.point: unknown hook point 'nowhere'" in capsys.readouterr().err

    shapeless = write_calls(tmp_path / "shapeless.jsonl", [CALLS[0], CALLS[1], ["ls"]])
    assert main(["bench", str(pack), "--calls", str(shapeless)]) == 2
    assert f"{shapeless}:3: expected an object" in capsys.readouterr().err


def test_approve_tool_is_not_benched(
    pack: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asking = write_calls(
        tmp_path / "asking.jsonl", [CALLS[0], {"point": "approve_tool", "call": CALLS[0]}]
    )
    assert main(["bench", str(pack), "--calls", str(asking)]) == 2
    assert f"{asking}:2: approve_tool asks approvers and people" in capsys.readouterr().err


def test_nothing_is_written_beside_the_settings(
    pack: Path, calls: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The decision log and the state go to a directory of the run's own."""
    data_dir, log = tmp_path / "data", tmp_path / "decisions.log"
    config = tmp_path / "settings.yaml"
    config.write_text(f"data_dir: {data_dir}\naudit_path: {log}\n")
    bench_json(capsys, str(pack), "--config", str(config), "--calls", str(calls), "--count", "2")
    assert not log.exists() and not data_dir.exists()


# ------------------------------------------------------------------ the bundled mix


def test_the_bundled_mix_is_the_example_file_shipped_in_the_package() -> None:
    assert BUNDLED_CALLS.read_bytes() == (REPO / "examples/bench/calls.jsonl").read_bytes()


def test_the_bundled_mix_is_the_default_calls(
    pack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = bench_json(capsys, str(pack), "--count", "3")
    assert report["calls_file"] == str(BUNDLED_CALLS)
    assert report["calls"] == len(BUNDLED_CALLS.read_text().splitlines())


def test_every_call_of_the_bundled_mix_decides_without_error_on_the_shipped_rules(
    tmp_path: Path,
) -> None:
    calls = read_calls(BUNDLED_CALLS)
    assert 150 <= len(calls) <= 250
    tools = {part.tool_raw for call in calls for part in call.parts if hasattr(part, "tool_raw")}
    assert {"Bash", "Read", "Write", "Edit", "WebFetch", "WebSearch"} <= tools
    actions: set[str] = set()
    settings = Settings(
        packs=[REPO / "rules"], data_dir=tmp_path / "data", audit_path=tmp_path / "log"
    )
    with Engine(settings) as engine:
        for call in calls:
            decision = engine.decide_at(call.point, *call.parts)
            assert decision is not None, call.where
            assert decision.failure is None, (call.where, decision.reason)
            assert "condition failed" not in decision.reason, (call.where, decision.reason)
            actions.add(str(decision.action))
    # everyday work goes ahead, dangerous calls are refused, secrets in output redacted
    assert {"continue", "deny_tool", "modify"} <= actions
