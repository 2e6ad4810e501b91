"""Process hooks in the chain: what one JSON-RPC round trip adds to a decision.

    .venv/bin/python tests/bench/bench_process_hook.py [--calls N]

Rows, each the engine deciding the same before_tool call with the decision log
written to a file: no hooks (the baseline, same process), the same call through
a pass-through process hook (the seed's review_gate.py, which answers `{"args"}`),
and through a process hook answering upstream's `{"action": "continue"}`. Prints
p50/p99 in µs and each p50's ratio to the baseline.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from timing import measure

from policy import Engine, ToolCall
from policy.settings import Settings

HERE = Path(__file__).resolve().parent
REVIEW_GATE = HERE.parent.parent / "examples" / "process-hooks" / "review_gate.py"
SCRIPTED = HERE.parent / "fixtures" / "scripted_process_hook.py"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=5000)
    calls = parser.parse_args().calls
    call = ToolCall(tool="exec", args={"command": "ls -la"}, session="s", sender="alice")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        script = tmp / "answers.json"
        script.write_text(json.dumps({"hook.before_tool": {"action": "continue"}}))
        processes = {
            "seed review_gate.py": [sys.executable, str(REVIEW_GATE)],
            "upstream-dialect hook": [
                sys.executable,
                str(SCRIPTED),
                str(script),
                str(tmp / "received"),
            ],
        }
        rows: list[tuple[str, Engine]] = [
            ("no hooks (baseline)", Engine(Settings(audit_path=tmp / "base.log")))
        ]
        for index, (label, command) in enumerate(processes.items()):
            hooks = {
                "gate": {
                    "enabled": True,
                    "command": command,
                    "intercept": ["before_tool"],
                    "env": {"PICOCLAW_HOOK_LOG_FILE": str(tmp / "gate.log")},
                }
            }
            settings = Settings(audit_path=tmp / f"{index}.log", hooks={"processes": hooks})
            rows.append((label, Engine(settings)))
        base = 0.0
        print(f"{'row':28} {'p50 µs':>9} {'p99 µs':>9} {'x base':>7}")
        for label, engine in rows:
            p50, p99 = measure(lambda engine=engine: engine.before_tool(call), calls, 200)
            base = base or p50
            print(f"{label:28} {p50:9.1f} {p99:9.1f} {p50 / base:7.1f}")
            engine.close()


if __name__ == "__main__":
    main()
