"""What a user pays per tool call on the shipped rules, for lines never seen before.

    .venv/bin/python tests/bench/bench_shipped.py [--calls N] [--rules DIR]

The engine is built on `rules/` next to the `policy` package that is imported (so
`PYTHONPATH=<another checkout>` measures that checkout on its own rules, in a run
next to this one) with the corpus's deployment (tests/corpus/README.md). Each row
decides a set of real commands, one after the other, clearing the per-line analysis
memo before every call: the cost of a line a hook sees for the first time, which is
every line of a per-event hook process (`effects.forget_lines`: the parse and the
lexical facts both). Rows:

* `everyday`: the first 400 entries of tests/corpus/everyday.jsonl (real work);
* `dangerous`: the first 400 entries of tests/corpus/dangerous.jsonl;
* `targeted`: the kinds of call issue P2's families are made of — git in a
  repository, git object reads, filtered searches, environment filters, case
  spellings, write targets built in the line, interpreters, extractors, listeners.

The baseline, in the same process, is `shlex.split` of the same lines: what reading a
command line costs at the least, so a slower machine moves both alike.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent.parent / "corpus"

TARGETED = [
    "git status",
    "git diff --stat && git log --oneline -5",
    "git show HEAD:README.md",
    "git cat-file -p HEAD:src/app.py",
    "git grep -n TODO HEAD -- '*.py'",
    "grep -rn --include='*.py' TODO src",
    "rg --hidden -g '*.ts' useState",
    "jq '.dependencies' package.json",
    "env | grep -i ^node_",
    "cat README.MD",
    'f=out.txt; printf -v g %s "$f"; echo done > "$g"',
    'a=(build dist); rm -rf "${a[@]}"',
    "python3 -m pytest -q tests",
    "deno run --allow-read main.ts",
    "tar -xzf release.tgz -C build",
    "python3 -m http.server 8000 --directory dist",
    "curl -s https://api.github.com/repos/x/y",
    "sed -n '1,20p' src/app.py",
    "ln -s ../shared/config.yaml config.yaml",
    "npx prettier --check src",
]


def commands(name: str, n: int) -> list[str]:
    lines = (CORPUS / name).read_text().splitlines()
    found = [entry["cmd"] for entry in map(json.loads, lines) if "cmd" in entry]
    return found[:n]


def engine_for(rules: Path, state: Path) -> Any:
    os.environ["HOME"] = "/home/dev"
    os.environ.pop("XDG_DATA_HOME", None)
    from policy.engine import Engine
    from policy.settings import Settings

    return Engine(
        Settings(
            packs=[rules],
            data_dir=state,
            audit_path=state / "decisions.log",
            pack_cache=False,
            workspace="/home/dev/project",
            protected_paths=["/home/dev/project/rules", "/home/dev/.config/hookpolicy"],
        )
    )


def split(line: str) -> None:
    with contextlib.suppress(ValueError):  # an unterminated quote: bash gives up too
        shlex.split(line)


def per_call(fn: Any, lines: list[str], rounds: int) -> float:
    """Median over `rounds` of the mean µs per line of one pass over `lines`."""
    samples = []
    for _ in range(rounds):
        started = time.perf_counter_ns()
        for line in lines:
            fn(line)
        samples.append((time.perf_counter_ns() - started) / len(lines) / 1000)
    samples.sort()
    return samples[len(samples) // 2]


def main() -> None:
    import policy
    from policy.analysis.effects import forget_lines
    from policy.model import ToolCall

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--rules", type=Path, default=Path(policy.__file__).parent.parent / "rules")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as state:
        engine = engine_for(options.rules, Path(state))

        def decide(line: str) -> None:
            forget_lines()
            engine.before_tool(
                ToolCall(tool="Bash", args={"command": line}, cwd="/home/dev/project", sender="dev")
            )

        print(f"policy from {Path(policy.__file__).parent}, rules {options.rules}")
        print(f"{'set':10} {'lines':>6} {'µs/call':>9} {'shlex µs':>9} {'ratio':>7}")
        for name, lines in (
            ("everyday", commands("everyday.jsonl", 400)),
            ("dangerous", commands("dangerous.jsonl", 400)),
            ("targeted", TARGETED),
        ):
            per_call(decide, lines, 1)  # warm up: imports, compiled packs
            cost = per_call(decide, lines, options.rounds)
            base = per_call(split, lines, options.rounds)
            print(f"{name:10} {len(lines):6} {cost:9.1f} {base:9.2f} {cost / base:7.0f}")
        engine.close()
    print(f"python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
