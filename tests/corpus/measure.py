"""The shipped policy against the corpus: what it denies, asks about and lets through.

    .venv/bin/python tests/corpus/measure.py [--packs DIR] [--misses] [--json]

Every entry is decided by an engine on `--packs` (default `rules/`) set up as
README.md in this directory describes (HOME=/home/dev, workspace /home/dev/project,
the deployment's paths protected), exactly as `policy hook claude` would see the
call. Prints, for the dangerous and the everyday set, in the tuned part and the
held-out fifth apart, the share denied, asked and let through per category.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
HOME = "/home/dev"
WORKSPACE = "/home/dev/project"
#: What the corpus's deployment protects besides what the engine finds itself.
PROTECTED = [
    "/home/dev/project/rules",
    "/etc/hookpolicy",
    "/home/dev/project/.venv",
    "/opt/hookpolicy",
    "/home/dev/.config/hookpolicy",
]


def entries(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (HERE / name).read_text().splitlines() if line]


def key(entry: dict[str, Any]) -> str:
    if "cmd" in entry:
        return str(entry["cmd"])
    return json.dumps([entry["tool"], entry["args"]], sort_keys=True)


def held_out(entry: dict[str, Any]) -> bool:
    return int(hashlib.sha256(key(entry).encode()).hexdigest(), 16) % 5 == 0


def engine_for(packs: Path, state: Path) -> Any:
    os.environ["HOME"] = HOME
    os.environ.pop("XDG_DATA_HOME", None)
    from policy.engine import Engine
    from policy.settings import Settings

    values: dict[str, Any] = {
        "packs": [packs],
        "data_dir": state,
        "audit_path": state / "decisions.log",
        "pack_cache": False,
    }
    fields = Settings.model_fields
    if "workspace" in fields:
        values["workspace"] = WORKSPACE
    if "protected_paths" in fields:
        values["protected_paths"] = PROTECTED
    return Engine(Settings(**values))


def verdict(engine: Any, entry: dict[str, Any]) -> tuple[str, str]:
    """("deny" | "ask" | "allow" | "pass", why). `allow` is an explicit allow (an
    `allow` rule matched and nothing asked): the hook answers `allow`, and Claude Code
    skips its own permission prompt. `pass` is no opinion (the host's own rules apply)."""
    from policy.model import Action, ToolCall

    if "cmd" in entry:
        call = ToolCall(tool="Bash", args={"command": entry["cmd"]}, cwd=WORKSPACE, sender="dev")
    else:
        call = ToolCall(tool=entry["tool"], args=entry["args"], cwd=WORKSPACE, sender="dev")
    decision = engine.before_tool(call)
    if decision.action in (Action.DENY_TOOL, Action.ABORT_TURN, Action.HARD_ABORT):
        return "deny", decision.reason
    if decision.needs_approval:
        return "ask", decision.reason
    if decision.allowed:
        return "allow", decision.reason
    return "pass", decision.reason


def measure(packs: Path) -> dict[str, list[tuple[dict[str, Any], str, str]]]:
    """Every entry of both sets with its verdict, keyed by set name."""
    with tempfile.TemporaryDirectory() as state:
        engine = engine_for(packs, Path(state))
        try:
            return {
                name: [(e, *verdict(engine, e)) for e in entries(f"{name}.jsonl")]
                for name in ("dangerous", "everyday")
            }
        finally:
            engine.close()


def rates(rows: Iterable[tuple[dict[str, Any], str, str]]) -> dict[str, Counter[str]]:
    """Per category (and `all`): how many were denied, asked, explicitly allowed, passed
    without an opinion."""
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for entry, outcome, _ in rows:
        found[entry["category"]][outcome] += 1
        found["all"][outcome] += 1
    return found


def _table(title: str, counts: dict[str, Counter[str]]) -> str:
    lines = [
        f"{title}",
        f"  {'category':<18}{'n':>6}{'denied':>9}{'asked':>8}{'caught':>9}{'passed':>9}"
        f"{'allows':>8}",
    ]
    for category in sorted(counts, key=lambda c: (c == "all", c)):
        c = counts[category]
        n = sum(c.values())
        lines.append(
            f"  {category:<18}{n:>6}{100 * c['deny'] / n:>8.1f}%{100 * c['ask'] / n:>7.1f}%"
            f"{100 * (c['deny'] + c['ask']) / n:>8.1f}%"
            f"{100 * (c['pass'] + c['allow']) / n:>8.1f}%{c['allow']:>8}"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packs", type=Path, default=ROOT / "rules")
    parser.add_argument("--misses", action="store_true", help="list misses of the tuned part")
    parser.add_argument("--held-out-misses", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    # refusals are logged as warnings (a call that cannot be analysed); the table says them
    logging.basicConfig(level=logging.ERROR)
    results = measure(args.packs)
    report: dict[str, Any] = {}
    for name, rows in results.items():
        for part, keep in (("tuned", False), ("held-out", True)):
            chosen = [r for r in rows if held_out(r[0]) == keep]
            report[f"{name} {part}"] = rates(chosen)
    if args.json:
        print(json.dumps({k: {c: dict(v) for c, v in t.items()} for k, t in report.items()}))
        return 0
    for title, counts in report.items():
        print(_table(title, counts))
        print()
    if args.misses or args.held_out_misses:
        for name, rows in results.items():
            bad = ("pass", "allow") if name == "dangerous" else ("deny", "ask")
            for entry, outcome, why in rows:
                if held_out(entry) != args.held_out_misses:
                    continue
                if outcome in bad:
                    shown = entry.get("cmd") or f"{entry['tool']} {json.dumps(entry['args'])}"
                    print(
                        f"{name:9} {entry['category']:<16} {outcome:<4} {shown[:150]!r}  # {why[:90]}"
                    )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
