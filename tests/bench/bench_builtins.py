"""What each builtin adds to one before_tool decision (no decision log line).

    .venv/bin/python tests/bench/bench_builtins.py [--calls N]

Baseline: the same engine without builtins, in the same process. Shell lines are
memoised by `analysis.shell.analyze`, so the shell rows measure a repeated line.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from timing import measure

from policy import Engine, ToolCall
from policy.settings import Settings

HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\nname: bench\n"
CASES = {
    "no builtins": ("", ToolCall(tool="Read", args={"file_path": "/srv/work/a.py"})),
    "autonomy, mode only": (
        "builtins:\n  autonomy: {mode: supervised}\n",
        ToolCall(tool="Read", args={"file_path": "/srv/work/a.py"}),
    ),
    "autonomy, forbidden + workspace (path arg)": (
        "builtins:\n  autonomy: {mode: full, workspace: /srv/work, workspace_only: true,"
        " forbidden_paths: ['~/.ssh/**', '/etc/**', '**/.env']}\n",
        ToolCall(tool="Read", args={"file_path": "/srv/work/src/a.py"}),
    ),
    "autonomy, allowed_commands (bash)": (
        "builtins:\n  autonomy: {mode: full, shell: {allowed_commands: ['git *', 'ls *']}}\n",
        ToolCall(tool="Bash", args={"command": "git status && ls -la"}),
    ),
    "contract_scope, tools + max_tool_calls": (
        "builtins:\n  contract_scope: {contracts: [{id: c, sessions: ['*'], tools: ['*'],"
        " max_tool_calls: 100000000}]}\n",
        ToolCall(tool="Read", args={"file_path": "/x"}, session="s1"),
    ),
    "tool_policy, 1 rate limit (memory)": (
        "builtins:\n  tool_policy: {rate_limits: [{tools: Read, limit: '1000000000/minute'}]}\n",
        ToolCall(tool="Read", args={"file_path": "/x"}, sender="alice"),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20000)
    options = parser.parse_args()
    base: float | None = None
    print(f"{'case':45} {'p50 µs':>8} {'p99 µs':>8} {'p50/base':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for index, (name, (section, call)) in enumerate(CASES.items()):
            pack = Path(tmp) / f"p{index}.yaml"
            pack.write_text(HEADER + section)
            engine = Engine(
                Settings(
                    packs=[pack],
                    audit_path=Path(tmp) / f"log{index}",
                    limits_storage_uri="memory://",  # in process, as the row says
                )
            )
            engine.before_tool(call)
            p50, p99 = measure(lambda e=engine, c=call: e._decide_before_tool(c), options.calls)  # type: ignore[misc]
            engine.close()
            base = base or p50
            print(f"{name:45} {p50:8.2f} {p99:8.2f} {p50 / base:9.1f}")
    print(f"python {sys.version.split()[0]}, {options.calls} calls per row")


if __name__ == "__main__":
    main()
