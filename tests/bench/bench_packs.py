"""Decision cost as rule packs grow: 10, 100, 1,000 and 10,000 rules.

    .venv/bin/python tests/bench/bench_packs.py [--calls N] [--cel-engine NAME]

Each generated pack has rules on distinct tools (`tool_00042`, ...) plus a handful
of rules on `bash`, some of which match the measured call (`bash`, `ls -la`), so
the cost should follow the rules that can apply, not the pack's size.

Rows: `decide` is the chain and packs alone (what DESIGN §9 bounds at 10 µs p50 for
1,000 rules); `+ log` adds the hash-chained decision-log line written to a file
(bound: 20 µs p50). The baseline, measured in the same process, is a dict lookup
plus one precompiled CEL evaluation — the least a rule engine can do per call.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from timing import measure

from policy import Engine, ToolCall
from policy.packs.cel import get_engine
from policy.settings import Settings

SIZES = (10, 100, 1000, 10000)
MATCHING = """
  - id: deny-rm-root
    tools: [bash]
    when: vars.cmd.startsWith("rm ") && vars.cmd.contains(" /")
    action: deny
    message: recursive delete of the root is blocked
  - id: ask-push
    tools: [bash]
    when: vars.cmd.startsWith("git push")
    action: ask
  - id: allow-readonly
    tools: [bash]
    when: vars.cmd.split(" ")[0] in ["ls", "cat", "pwd", "rg"]
    action: allow
  - id: log-bash
    tools: [bash]
    action: log
"""


def write_pack(directory: Path, size: int) -> Path:
    lines = [
        "apiVersion: hookpolicy/v1",
        "kind: RulePack",
        f"name: generated-{size}",
        "variables:",
        "  cmd: 'has(args.command) ? string(args.command) : \"\"'",
        "aliases:",
    ]
    others = size - 4
    lines += [f"  tool_{i:05d}: tool_{i:05d}" for i in range(others)]
    lines.append("rules:")
    for i in range(others):
        lines += [
            f"  - id: rule-{i:05d}",
            f"    tools: [tool_{i:05d}]",
            f'    when: has(args.x) && string(args.x).contains("{i}")',
            "    action: deny",
        ]
    path = directory / f"generated-{size}.yaml"
    path.write_text("\n".join(lines) + "\n" + MATCHING)
    return path


def _floor(engine: Engine, call: ToolCall, calls: int) -> tuple[float, float]:
    """The unavoidable work of one decision, reaching into the pack's internals."""
    from policy import Action, Decision
    from policy.audit import new_decision_id

    pack: Any = engine._chain.snapshot.ordered[0].hook
    index = pack._index["before_tool"]
    engine._decide_before_tool(call)  # fills the memos

    def unavoidable() -> Decision:
        candidates = index.memo[call.tool]
        outcome = candidates.by_results[candidates.program.run_mask({"args": call.args})]
        return Decision(
            Action.CONTINUE,
            outcome.reason,
            call=call,
            rule_ids=outcome.rule_ids,
            allowed=outcome.allowed,
            decision_id=new_decision_id(),
        )

    return measure(unavoidable, calls)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--cel-engine", default="native")
    options = parser.parse_args()
    call = ToolCall(tool="Bash", args={"command": "ls -la"}, sender="alice", session="s1")

    program = get_engine(options.cel_engine).program(
        "before_tool", ['string(args.command).startsWith("ls")'], []
    )
    index = {"bash": program}
    data = {"args": dict(call.args)}
    base50, base99 = measure(lambda: index["bash"].run(data), options.calls)
    print(
        f"engine {options.cel_engine}; baseline (dict lookup + one CEL evaluation): "
        f"p50 {base50:.2f} µs, p99 {base99:.2f} µs\n"
    )
    print(
        f"{'rules':>6}  {'load s':>7}  {'decide p50':>10}  {'p99':>7}  {'+ log p50':>9}  {'p99':>7}  "
        f"{'decide/base':>11}  decision"
    )
    first: float | None = None
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for size in SIZES:
            pack = write_pack(directory, size)
            started = time.perf_counter()
            engine = Engine(
                Settings(
                    packs=[pack],
                    audit_path=directory / f"log-{size}",
                    cel_engine=options.cel_engine,
                )
            )
            load = time.perf_counter() - started
            decision = engine.before_tool(call)
            if size == 1000:
                floor = _floor(engine, call, options.calls)
            d50, d99 = measure(lambda e=engine: e._decide_before_tool(call), options.calls)  # type: ignore[misc]
            l50, l99 = measure(lambda e=engine: e.before_tool(call), options.calls)  # type: ignore[misc]
            engine.close()
            first = first or d50
            print(
                f"{size:>6}  {load:>7.2f}  {d50:>10.2f}  {d99:>7.2f}  {l50:>9.2f}  {l99:>7.2f}  "
                f"{d50 / base50:>11.1f}  {decision.action.value} {list(decision.rule_ids)}"
            )
    assert first is not None
    print(f"\ngrowth 10 -> 10,000 rules (decide p50): {d50 / first:.2f}x")
    print(
        f"floor for the 1,000-rule pack (memo lookup + its CEL program + memoised outcome "
        f"+ one Decision, no chain): p50 {floor[0]:.2f} µs, p99 {floor[1]:.2f} µs"
    )
    print(f"python {sys.version.split()[0]}, {options.calls} calls per row")


if __name__ == "__main__":
    main()
