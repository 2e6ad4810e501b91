"""`policy bench [PATHS] [--calls FILE.jsonl]`: what your policy costs per decision.

The CLI glue of policy.bench: the settings and packs read as `policy check` and
`policy replay` read them (PATHS, else the packs setting), the calls read as
`policy eval` reads its input (policy.cli.eval_cmd: a bare call for before_tool, or
{point, call, result, ...}; each named `FILE:LINE` in errors), an engine built on a
temporary data_dir and decision log, and the report printed as a table or as one
JSON document. With no --calls, the bundled mix (policy.bench.BUNDLED_CALLS, a copy
of examples/bench/calls.jsonl) is decided.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from policy.cli._output import ProgressBar, error, pack_paths
from policy.errors import InputError, PolicyError

if TYPE_CHECKING:
    from policy.bench import BenchCall
    from policy.settings import Settings

__all__ = ["read_calls", "render", "run"]

#: Passes over the mix when neither --rounds nor --count is given.
DEFAULT_ROUNDS = 5


def read_calls(path: Path) -> list[BenchCall]:
    """The calls of a file in `policy eval`'s input format; InputError names the
    file and line of the first one that is not a call `policy bench` can decide."""
    from policy.bench import BenchCall
    from policy.cli.eval_cmd import _documents, _parts
    from policy.replay.records import is_log_record

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"--calls {path}: {exc.strerror}") from None
    calls = []
    for at, value in _documents(raw, str(path)):
        if is_log_record(value):
            raise InputError(f"{at}: a decision-log line; give the call itself")
        point, parts = _parts("before_tool", at, value)
        if point == "approve_tool":
            raise InputError(
                f"{at}: approve_tool asks approvers and people; bench decides the other points"
            )
        calls.append(BenchCall(at, point, tuple(parts)))
    return calls


def _bench_settings(settings: Settings, scratch: Path, packs: list[Path]) -> Settings:
    """The settings as deployed, with everything a run writes kept in `scratch`: the
    decision log, rate-limit and contract state, approvals, captures, the pack cache."""
    update: dict[str, Any] = {
        "packs": packs,
        "data_dir": scratch,
        "audit_path": scratch / "decisions.log",
        "limits_storage_uri": None,
        "approvals_store": None,
    }
    if settings.audit_capture_dir is not None:
        update["audit_capture_dir"] = scratch / "capture"
    return settings.model_copy(update=update)


def run(args: argparse.Namespace) -> int:
    from policy.bench import BUNDLED_CALLS, run_bench
    from policy.engine import Engine
    from policy.hosts.hosted import build_hosted
    from policy.settings import load_settings

    rounds: int | None = args.rounds
    count: int | None = args.count
    if (rounds is not None and rounds < 1) or (count is not None and count < 1):
        error("--rounds / --count: at least 1")
        return 2
    calls_file = Path(args.calls) if args.calls else BUNDLED_CALLS
    try:
        settings = load_settings(args.config)
        packs = pack_paths(args.paths, settings.packs)
        if packs is None:
            return 2
        calls = read_calls(calls_file)
        if not calls:
            error(f"{calls_file}: no calls")
            return 2
        decisions = count if count is not None else (rounds or DEFAULT_ROUNDS) * len(calls)
        progress = ProgressBar(sys.stderr, "benching") if sys.stderr.isatty() else None
        with tempfile.TemporaryDirectory(prefix="policy-bench-") as scratch:
            bench_settings = _bench_settings(settings, Path(scratch), packs)
            with Engine(bench_settings, hosted=build_hosted) as engine:
                report = run_bench(engine, calls, decisions=decisions, progress=progress)
    except PolicyError as exc:
        error(str(exc))
        return 2
    data = {
        "calls_file": str(calls_file),
        "paths": [str(p) for p in packs],
        "cel_engine": settings.cel_engine,
        **report.to_json(),
    }
    if args.format == "json":
        sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        sys.stdout.write("\n".join(render(data)) + "\n")
    return 0


def _mib(size: float) -> str:
    return f"{size / (1 << 20):.1f} MiB"


def _row(name: str, figures: Mapping[str, Any]) -> str:
    return (
        f"{name:<16}{figures['count']:>8}{figures['p50_us']:>11.1f}{figures['p90_us']:>11.1f}"
        f"{figures['p99_us']:>11.1f}{figures['decisions_per_s']:>14.1f}"
    )


def render(data: Mapping[str, Any]) -> Iterator[str]:
    """The text form of a bench report (`--format json`'s document)."""
    overall = data["overall"]
    yield (
        f"policy bench: {data['calls']} call(s) from {data['calls_file']}, "
        f"{data['decisions']} decision(s) after a warm-up of {data['warmup']} "
        f"({overall['seconds']:.1f} s deciding)"
    )
    yield f"packs: {', '.join(data['paths'])} ({len(data['packs'])} loaded; {data['cel_engine']})"
    yield ""
    yield f"{'point':<16}{'count':>8}{'p50 µs':>11}{'p90 µs':>11}{'p99 µs':>11}{'decisions/s':>14}"
    for figures in data["points"]:
        yield _row(figures["point"], figures)
    if len(data["points"]) > 1:
        yield _row("all", overall)
    memory = data["memory"]
    label = "resident" if memory["source"] == "rss" else "peak resident"
    yield ""
    yield (
        f"memory ({label}): {_mib(memory['before_bytes'])} before, "
        f"{_mib(memory['after_bytes'])} after the counted decisions: "
        f"{memory['growth_bytes'] / 1024:+.1f} KiB, "
        f"{memory['growth_per_decision_bytes']:.0f} bytes per decision"
    )
    rules = data["slowest_rules"]
    yield ""
    if not rules:
        yield "slowest rules: no candidate rule has a condition for these calls"
        return
    yield "slowest rules by cumulative CEL time (each condition alone, once per call):"
    yield f"{'total ms':>10}{'mean µs':>10}{'evals':>7}  rule  (at)"
    for rule in rules:
        errors = f", {rule['errors']} error(s)" if rule["errors"] else ""
        yield (
            f"{rule['total_us'] / 1000:>10.1f}{rule['mean_us']:>10.1f}{rule['evaluations']:>7}"
            f"  {rule['rule']}  ({rule['at'] or 'not located'}{errors})"
        )
    if data["rules_skipped_calls"]:
        yield f"({data['rules_skipped_calls']} call(s) left out: their analysis gave up)"
