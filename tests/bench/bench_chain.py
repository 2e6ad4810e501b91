"""Chain overhead: before_tool latency with code hooks, against a baseline in the same process.

    .venv/bin/python tests/bench/bench_chain.py [--calls N]

The baseline is the same hook called directly (what a hand-written hook script
costs in-process); every other row is the engine deciding the same call with
the decision log written to a file. Prints p50/p99 in µs and the ratio of each
p50 to the baseline's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from timing import measure

from policy import Action, Decision, Engine, ToolCall
from policy.settings import Settings


class Guard:
    name = "guard"

    def before_tool(self, call: ToolCall) -> Decision | None:
        if "sudo" in str(call.args.get("command", "")):
            return Decision(Action.DENY_TOOL, reason="no sudo")
        return None


def engine_row(tmp: Path, name: str, hooks: int, inline: bool) -> Engine:
    engine = Engine(Settings(audit_path=tmp / f"{name}.log"))
    for index in range(hooks):
        engine.register(Guard(), name=f"guard-{index}", inline=inline)
    return engine


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20000)
    calls = parser.parse_args().calls
    call = ToolCall(tool="Bash", args={"command": "ls -la"}, sender="alice", session="s1")
    guard = Guard()
    rows: list[tuple[str, float, float]] = []
    base50, base99 = measure(lambda: guard.before_tool(call), calls)
    rows.append(("baseline: the hook called directly", base50, base99))
    with tempfile.TemporaryDirectory() as tmp:
        for index, (label, hooks, inline) in enumerate(
            [
                ("engine, no hooks, log to file", 0, True),
                ("engine, 1 inline hook, log to file", 1, True),
                ("engine, 10 inline hooks, log to file", 10, True),
                ("engine, 1 thread hook (enforced timeout), log to file", 1, False),
            ]
        ):
            engine = engine_row(Path(tmp), f"row{index}", hooks, inline)
            p50, p99 = measure(lambda e=engine: e.before_tool(call), calls)  # type: ignore[misc]
            engine.close()
            rows.append((label, p50, p99))
    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  {'p50 µs':>8}  {'p99 µs':>8}  {'p50 / baseline':>14}")
    for label, p50, p99 in rows:
        print(f"{label:<{width}}  {p50:8.2f}  {p99:8.2f}  {p50 / base50:14.1f}")
    print(f"python {sys.version.split()[0]}, {calls} calls per row after 1000 warm-up calls")


if __name__ == "__main__":
    main()
