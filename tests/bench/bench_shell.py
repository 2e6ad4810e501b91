"""Shell analysis cost: a typical command, a long pipeline, and hostile input.

    .venv/bin/python tests/bench/bench_shell.py [--calls N]

`analyze` is memoised per distinct string, so every row clears the memo before
each call (the cost of a line seen for the first time). The baseline is
`shlex.split` of the same string in the same process.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time

from timing import measure

from policy.analysis.shell import analyze

CASES = {
    "typical": "git status && rm -rf /tmp/build",
    "pipeline": "cat a.log | grep -v DEBUG | sort | uniq -c | sort -rn | head -20 > top.txt",
    "nested": "bash -c \"echo $(whoami) && eval 'rm -rf /tmp/x'\"",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=5000)
    options = parser.parse_args()
    print(f"{'case':10} {'p50 µs':>9} {'p99 µs':>9} {'shlex p50':>10}  commands")
    for name, command in CASES.items():

        def fresh(command: str = command) -> object:
            analyze.cache_clear()
            return analyze(command)

        p50, p99 = measure(fresh, options.calls)
        base, _ = measure(lambda command=command: shlex.split(command), options.calls)  # type: ignore[misc]
        names = [c.name for c in analyze(command).commands]
        print(f"{name:10} {p50:9.1f} {p99:9.1f} {base:10.1f}  {names}")
    print(f"{'memo hit':10} {measure(lambda: analyze(CASES['typical']), options.calls)[0]:9.2f}")
    for label, hostile in (
        ("10,000 nested $(", "$(" * 10_000),
        ("1 MB of ;", ";" * (1 << 20)),
        ("50,000 pipes", "a|" * 50_000 + "a"),
    ):
        analyze.cache_clear()
        started = time.perf_counter()
        result = analyze(hostile)
        elapsed = time.perf_counter() - started
        print(f"{label:18} {elapsed * 1000:8.1f} ms  error: {result.parse_error[:60]!r}")
    print(f"python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
