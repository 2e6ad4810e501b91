"""How long `policy replay` takes over a decision log of real traffic.

    .venv/bin/python tests/bench/bench_replay.py [--decisions N] [--rules DIR]

Writes a decision log and its capture of N decisions (default 10,000) on the shipped
rules (`rules/` next to the imported `policy`), made of the corpus calls
(tests/corpus/*.jsonl, everyday and dangerous alike, round-robin, with a web fetch
every tenth call so the rate limit counts), then replays it twice against the same
rules: from the capture, and from the masked log alone. Prints the seconds each took,
per decision, and the baseline in the same process — reading and parsing the log's
lines with orjson — so a slower machine moves both alike. Issue 22 asks for ≤ 60 s
for 10,000 decisions.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _calls(count: int) -> list[dict[str, Any]]:
    lines = [
        orjson.loads(line)
        for name in ("everyday.jsonl", "dangerous.jsonl")
        for line in (CORPUS / name).read_bytes().splitlines()
        if line.strip()
    ]
    calls = []
    for index in range(count):
        if index % 10 == 9:
            calls.append({"tool": "WebFetch", "args": {"url": f"https://docs.example.com/{index}"}})
        else:
            entry = lines[index % len(lines)]
            if "cmd" in entry:  # a Bash call (tests/corpus/README.md)
                calls.append({"tool": "Bash", "args": {"command": entry["cmd"]}})
            else:
                calls.append({"tool": entry["tool"], "args": entry["args"]})
    return calls


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=10_000)
    parser.add_argument("--rules", type=Path, default=None)
    args = parser.parse_args()

    import policy
    from policy import Engine
    from policy.audit_capture import read_capture
    from policy.model import ToolCall
    from policy.replay import replay
    from policy.replay.records import captures_by_id
    from policy.settings import Settings

    rules = args.rules or Path(policy.__file__).resolve().parent.parent / "rules"
    with tempfile.TemporaryDirectory() as scratch:
        where = Path(scratch)
        log = where / "decisions.log"
        settings = Settings(
            packs=[rules],
            data_dir=where / "data",
            audit_path=log,
            audit_capture_dir=where / "capture",
            workspace="/home/dev/project",
        )
        started = time.perf_counter()
        with Engine(settings) as engine:
            for number, call in enumerate(_calls(args.decisions)):
                engine.before_tool(
                    ToolCall(
                        tool=call["tool"],
                        args=call["args"],
                        sender=f"agent-{number % 7}",
                        session=f"s{number % 13}",
                        cwd="/home/dev/project",
                        call_id=f"c{number}",
                    )
                )
        written = time.perf_counter() - started

        started = time.perf_counter()
        for line in log.read_bytes().splitlines():
            orjson.loads(line)
        baseline = time.perf_counter() - started

        quiet = Settings(data_dir=where / "replay", audit_path=None)
        started = time.perf_counter()
        captured = captures_by_id(read_capture(where / "capture"))
        full = replay(quiet, log, [rules], captured=captured)
        with_capture = time.perf_counter() - started
        started = time.perf_counter()
        alone = replay(quiet, log, [rules])
        log_only = time.perf_counter() - started

    decisions = full.decisions
    print(f"decisions logged: {decisions} (live engine: {written:.1f} s)")
    print(f"baseline (orjson over the log's lines): {baseline * 1000:.1f} ms")
    for label, seconds, report in (
        ("replay with capture", with_capture, full),
        ("replay from the log alone", log_only, alone),
    ):
        print(
            f"{label}: {seconds:.1f} s, {seconds / decisions * 1e3:.2f} ms a decision, "
            f"{seconds / baseline:.0f}x baseline; replayed {report.replayed}, "
            f"changed {report.changed}, not replayable {sum(report.not_replayable.values())}"
        )
    return 0 if full.changed == 0 and alone.changed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
