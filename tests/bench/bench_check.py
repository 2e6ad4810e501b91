"""`policy check` on large packs, and the memory an engine with 10,000 rules holds.

    .venv/bin/python tests/bench/bench_check.py [--runs N] [--sizes 1000,10000]

1. `policy check PACK` on `bench_packs.write_pack` packs of 1,000 and 10,000 rules: the
   wall time of the command as a subprocess, start to exit (it must exit 0: the packs
   are clean). The baseline is `python -c pass` of the same interpreter, N runs of each,
   interleaved with the check runs so a noisy neighbour slows both alike; one untimed
   run of each first (page cache, `.pyc`). DESIGN §9's target: 0.25 s at 1,000 rules.
2. RSS of a fresh process holding an `Engine` on the 10,000-rule pack, its decision log
   to a file, after one decision (`ls -la`, which compiles the `bash` candidates'
   program), read from /proc/self/statm after `gc.collect()` — once with the pack
   compiled from its YAML (`pack_cache: false`) and once read back from the pack cache
   a previous process filled. The baselines, same run: the RSS of an empty interpreter
   (`python -c` reading its own statm) and of an engine on the 10-rule pack. DESIGN §9's
   target: 100 MB at 10,000 rules.

The environment has no `POLICY_*` variable and a fresh `XDG_DATA_HOME`. Not a test:
nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_packs import write_pack

#: Run in a fresh interpreter: prints its RSS in bytes; with a pack, after an engine
#: on it decided one call.
RSS = """\
import gc, os, sys
from pathlib import Path
if len(sys.argv) > 1:
    from policy import Engine, ToolCall
    from policy.settings import Settings
    engine = Engine(Settings(packs=[sys.argv[1]], audit_path=sys.argv[2],
                             pack_cache=sys.argv[3] == "cache"))
    engine.before_tool(ToolCall(tool="Bash", args={"command": "ls -la"}))
gc.collect()
print(int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE"))
"""


def _run(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Wall time in ms of one process, and its stdout; exit 0 or stop."""
    start = time.perf_counter_ns()
    done = subprocess.run(argv, capture_output=True, env=env, check=False, text=True)
    elapsed = (time.perf_counter_ns() - start) / 1e6
    if done.returncode != 0:
        raise SystemExit(f"{argv} exited {done.returncode}:\n{done.stdout}{done.stderr[-2000:]}")
    return elapsed, done.stdout


def check_time(sizes: list[int], runs: int, directory: Path, env: dict[str, str]) -> None:
    python = sys.executable
    rows = {"python -c pass": [python, "-c", "pass"]}
    policy = str(Path(python).with_name("policy"))
    for size in sizes:
        rows[f"policy check, {size:,} rules"] = [policy, "check", str(write_pack(directory, size))]
    times: dict[str, list[float]] = {label: [] for label in rows}
    said = {label: _run(argv, env)[1].strip().splitlines()[-1:] for label, argv in rows.items()}
    for _ in range(runs):
        for label, argv in rows.items():
            times[label].append(_run(argv, env)[0])
    base = statistics.median(times["python -c pass"])
    print(f"1. policy check, wall ms ({runs} runs each, interleaved; one untimed run first)")
    print(f"{'run':30} {'median':>9} {'min':>9} {'x base':>8}  output")
    for label, samples in times.items():
        median = statistics.median(samples)
        print(
            f"{label:30} {median:9.1f} {min(samples):9.1f} {median / base:8.1f}  "
            f"{' '.join(said[label])}"
        )
    print(
        f"target (DESIGN §9): policy check, 1,000 rules <= 0.25 s "
        f"(= {250 / base:.1f}x this run's python -c pass)"
    )


def memory(directory: Path, env: dict[str, str]) -> None:
    python = sys.executable
    script = directory / "rss.py"
    script.write_text(RSS)
    big, small = write_pack(directory, 10000), write_pack(directory, 10)
    log = str(directory / "rss.log")
    _run([python, str(script), str(big), log, "cache"], env)  # fills the pack cache
    rows = {
        "empty interpreter (baseline)": [python, str(script)],
        "Engine, 10 rules": [python, str(script), str(small), log, "compile"],
        "Engine, 10,000 rules, compiled": [python, str(script), str(big), log, "compile"],
        "Engine, 10,000 rules, pack cache": [python, str(script), str(big), log, "cache"],
    }
    print("\n2. RSS after one decision, each in a fresh process")
    print(f"{'process':34} {'RSS MiB':>8} {'MB':>6} {'- base':>8} {'x base':>7} {'start s':>8}")
    base = 0
    for label, argv in rows.items():
        elapsed, out = _run(argv, env)
        rss = int(out.strip())
        base = base or rss
        print(
            f"{label:34} {rss / 2**20:8.1f} {rss / 1e6:6.0f} {(rss - base) / 2**20:8.1f} "
            f"{rss / base:7.1f} {elapsed / 1000:8.2f}"
        )
    print("target (DESIGN §9): RSS with 10,000 rules loaded <= 100 MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each (5)")
    parser.add_argument("--sizes", default="1000,10000", help="pack sizes to check (1000,10000)")
    options = parser.parse_args()
    sizes = [int(size) for size in options.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.upper().startswith("POLICY_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        env["XDG_DATA_HOME"] = str(directory / "xdg")
        check_time(sizes, options.runs, directory, env)
        memory(directory, env)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
