"""What a long-running hook's request costs in process, and what the rest of the machine
adds to it by taking its caches.

    .venv/bin/python tests/bench/bench_working_set.py [--calls N] [--touch 0,256,1024,4096]

`bench_picoclaw.py` times `policy hook picoclaw`'s round trip against an echo process;
the hook's decision there takes about twice what the same decision takes in a loop.
This script splits that round trip's work apart, in one process, on the bench's
repeated mix (bench_picoclaw.MIX, PicoClaw's exact params):

1. `request`: the hook's handling of a request line (`_Server._dispatch` and the work
   it returns: parse, watchdog, `ToolCall`, decision, ledger, answer written to
   /dev/null), and `decision`: `Engine.before_tool` inside it (the decision log to a
   file). `the hook alone`: the handling with each command's decision taken as given
   (decided once, then handed back): what the hook adds around a decision.
2. `--touch`: the same decisions (`Engine.before_tool` on the mix), with KiB of other
   memory written between two of them, as the bench process and the echo process do
   between two requests on one core. The first size is the baseline.

Each figure is the p50 (and p99) of N requests or decisions, timed as every bench
times a call (`timing.measure`); `--touch` times each decision alone, the writes
between two left out. Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

from bench_picoclaw import MIX, request
from timing import measure

ROOT = Path(__file__).resolve().parent.parent.parent


def hook_request(calls: int, packs: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    import policy.hosts.picoclaw.hook_process as hook_process
    from policy.engine import Engine

    args = types.SimpleNamespace(config=None, packs=[str(packs)], server=None, deadline=4.0)
    server = hook_process._Server(args)
    real_stdout = sys.stdout
    with open(os.devnull, "w") as devnull, ThreadPoolExecutor(max_workers=2) as approvals:
        sys.stdout = devnull  # (the answers: the hook writes them to sys.stdout)
        try:
            server.start()
            hello = (
                b'{"jsonrpc":"2.0","id":0,"method":"hook.hello",'
                b'"params":{"modes":["tool","approve"]}}'
            )
            server._dispatch(hello, approvals)
            engine = server._slot.get()
            if server._slot.warming is not None:
                server._slot.warming.join()
            lines = itertools.cycle([request(n + 1, command) for n, command in enumerate(MIX)])

            def handle() -> None:
                work = server._dispatch(next(lines), approvals)
                if work is not None:
                    work()

            whole = measure(handle, calls, warmup=2000)
            decided: list[int] = []

            def before_tool(call: Any, *, _inner: Any = Engine.before_tool) -> Any:
                start = time.perf_counter_ns()
                try:
                    return _inner(engine, call)
                finally:
                    decided.append(time.perf_counter_ns() - start)

            engine.before_tool = before_tool  # (this engine's calls only)
            for _ in range(calls):
                handle()
            decision = statistics.median(decided) / 1000
            given: dict[str, Any] = {}

            def as_given(call: Any, *, _inner: Any = Engine.before_tool) -> Any:
                found = given.get(call.args["command"])
                if found is None:
                    found = given[call.args["command"]] = _inner(engine, call)
                return found

            engine.before_tool = as_given
            own = measure(handle, calls)
        finally:
            sys.stdout = real_stdout
    print(f"1. a PicoClaw request in process, the repeated mix ({calls} requests)")
    print(f"{'':44} {'p50 µs':>9} {'p99 µs':>9}")
    print(f"{'request':44} {whole[0]:9.1f} {whole[1]:9.1f}")
    print(f"{'decision (Engine.before_tool inside it)':44} {decision:9.1f}")
    print(f"{'the hook alone, the decision taken as given':44} {own[0]:9.1f} {own[1]:9.1f}")


def touched(calls: int, sizes: list[int], packs: Path, state: Path) -> None:
    from policy.engine import Engine
    from policy.hosts.picoclaw import wire
    from policy.settings import Settings

    engine = Engine(Settings(packs=[packs], audit_path=state / "decisions.log"))
    engine.warm()
    params = [
        {"meta": {"SessionKey": "s"}, "tool": "exec", "arguments": {"command": command}}
        for command in MIX
    ]
    for one in itertools.islice(itertools.cycle(params), 2000):
        engine.before_tool(wire.call_of(one))
    print(f"\n2. the mix's decisions with other memory written between two ({calls} each)")
    print(f"{'KiB between':>12} {'p50 µs':>9} {'x first':>8}")
    first = 0.0
    for size in sizes:
        other = bytearray(size * 1024)
        samples = []  # (not timing.measure: the writes between two are not timed)
        for one in itertools.islice(itertools.cycle(params), calls):
            for at in range(0, len(other), 64):  # (a write to every cache line)
                other[at] ^= 1
            call = wire.call_of(one)
            start = time.perf_counter_ns()
            engine.before_tool(call)
            samples.append(time.perf_counter_ns() - start)
        p50 = statistics.median(samples) / 1000
        first = first or p50
        print(f"{size:12,} {p50:9.1f} {p50 / first:8.2f}")
    engine.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=8000, help="requests a round (8000)")
    parser.add_argument("--touch", default="0,256,1024,4096", help="KiB between two decisions")
    parser.add_argument("--packs", type=Path, default=ROOT / "rules", help="default: rules/")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_DATA_HOME"] = str(Path(tmp) / "xdg")  # (the pack cache, kept apart)
        # (the hook's decision log to a file, as the other benches write theirs)
        os.environ["POLICY_AUDIT_PATH"] = str(Path(tmp) / "hook-decisions.log")
        hook_request(options.calls, options.packs)
        sizes = [int(size) for size in options.touch.split(",")]
        touched(options.calls, sizes, options.packs, Path(tmp))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
