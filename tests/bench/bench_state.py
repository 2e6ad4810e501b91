"""What keeping state in the shared SQLite file costs, against limits' memory:// storage.

    .venv/bin/python tests/bench/bench_state.py [--calls N]

Rows, p50 and p99 in µs, each beside memory:// measured in the same run:

* one rate-limit hit (`limiter.hit`, a limit never reached) per strategy, spread over
  200 senders so that each window holds a few dozen entries, as a budget in use does;
* one contract admission (`ContractRegistry.admit`, a max_tool_calls never reached);
* what a one-event hook pays on top: opening the state file (connect, pragmas, schema
  check) and its first hit, in a fresh `SQLiteState` on an existing file;
* `engine.before_tool` on a call a 1e9/minute rate limit governs, default settings
  (the state file) against `limits_storage_uri: memory://`.

The file is in a temporary directory (the same disk as /tmp). docs/decisions/
0013-shared-state-sqlite.md has one run's numbers.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import tempfile
import time
from pathlib import Path

from limits import parse, strategies
from limits.storage import MemoryStorage
from timing import measure

from policy import Engine, ToolCall
from policy.builtins.config import Contract
from policy.builtins.contract_sessions import ContractRegistry
from policy.settings import Settings
from policy.state.db import SQLiteState
from policy.state.sqlite_limits import SQLiteStorage

PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: bench
builtins:
  tool_policy: {rate_limits: [{tools: web_fetch, limit: '1000000000/minute'}]}
"""


def _row(name: str, memory: tuple[float, float], sqlite: tuple[float, float]) -> None:
    print(
        f"{name:44} {memory[0]:9.2f} {memory[1]:9.2f} {sqlite[0]:9.2f} {sqlite[1]:9.2f} "
        f"{sqlite[0] / memory[0]:8.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=5000)
    options = parser.parse_args()
    calls = options.calls
    item = parse("1000000000/minute")
    print(f"{'row':44} {'mem p50':>9} {'mem p99':>9} {'sql p50':>9} {'sql p99':>9} {'x mem':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        uri = f"sqlite:///{directory / 'state.db'}"
        senders = [f"sender{n}" for n in range(200)]
        for strategy, cls in strategies.STRATEGIES.items():
            rows = []
            for limiter in (cls(MemoryStorage()), cls(SQLiteStorage(uri))):
                turn = itertools.cycle(senders)
                rows.append(
                    measure(
                        lambda lim=limiter, t=turn: lim.hit(item, next(t), "web_fetch"), calls, 200
                    )  # type: ignore[misc]
                )
            _row(f"limiter.hit, {strategy}", rows[0], rows[1])

        contract = Contract.model_validate({"id": "c", "tools": ["*"], "max_tool_calls": 10**9})
        in_memory = ContractRegistry(state_uri="memory://")
        shared = ContractRegistry(state_uri=uri)
        _row(
            "ContractRegistry.admit",
            measure(lambda: in_memory.admit("s", contract), calls, 200),
            measure(lambda: shared.admit("s", contract), calls, 200),
        )

        def first_hit() -> None:
            state = SQLiteState(directory / "state.db")
            strategies.MovingWindowRateLimiter(SQLiteStorage(state=state)).hit(item, "a", "b")
            state.close()

        opened = measure(first_hit, max(calls // 10, 50), 20)
        memory_first = measure(
            lambda: strategies.MovingWindowRateLimiter(MemoryStorage()).hit(item, "a", "b"),
            max(calls // 10, 50),
            20,
        )
        _row("open the state file + first hit (one event)", memory_first, opened)

        pack = directory / "bench.yaml"
        pack.write_text(PACK)
        calls_by = [ToolCall(tool="WebFetch", args={"url": "x"}, sender=s) for s in senders]
        call = calls_by[0]
        engines = {}
        for name, extra in (("memory", {"limits_storage_uri": "memory://"}), ("sqlite", {})):
            engine = Engine(
                Settings(
                    packs=[pack],
                    data_dir=directory / "data",
                    audit_path=directory / f"{name}.log",
                    **extra,  # type: ignore[arg-type]
                )
            )
            engine.before_tool(call)
            turn = itertools.cycle(calls_by)
            engines[name] = measure(
                lambda e=engine, t=turn: e._decide_before_tool(next(t)), calls, 200
            )  # type: ignore[misc]
            engine.close()
        _row("engine before_tool, 1 rate limit", engines["memory"], engines["sqlite"])
    print(f"python {sys.version.split()[0]}, {calls} calls per row, {time.strftime('%Y-%m-%d')}")


if __name__ == "__main__":
    main()
