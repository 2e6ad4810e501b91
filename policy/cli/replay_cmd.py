"""`policy replay LOG [PATHS]`: what a pack change would have changed in real traffic.

The last step before a rule goes from `enforcement: audit` to `enforce` (docs/authoring.md):
replay the decision log the agents produced against the new packs and read, per old →
new outcome, how many calls change, which rules are responsible and a few examples.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from policy.cli._output import ProgressBar, error, pack_paths
from policy.errors import PolicyError

if TYPE_CHECKING:
    from policy.settings import Settings

__all__ = ["render", "run"]


def _capture_dir(args: argparse.Namespace, settings: Settings) -> Path | None:
    """`--capture`, else where the settings capture (if anything was captured there)."""
    from policy.audit import capture_settings

    if args.capture:
        return Path(args.capture)
    configured, _ = capture_settings(
        settings.audit_capture_dir,
        settings.audit_capture_retention,
        capture_args=settings.audit_capture_args,
        data_dir=settings.data_dir,
    )
    return configured if configured is not None and configured.is_dir() else None


def _captured(directory: Path | None) -> dict[str, Mapping[str, Any]]:
    if directory is None:
        return {}
    if not directory.is_dir():
        raise PolicyError(f"--capture {directory}: no such directory")
    from policy.audit_capture import read_capture
    from policy.replay.records import captures_by_id

    unreadable: list[str] = []
    captured = captures_by_id(read_capture(directory, unreadable.append))
    for problem in unreadable[:5]:
        error(f"skipped: {problem}")  # its decision is then replayed from the log, or not
    if len(unreadable) > 5:
        error(f"skipped {len(unreadable) - 5} more unreadable capture line(s)")
    return captured


def run(args: argparse.Namespace) -> int:
    from policy.replay.run import replay
    from policy.settings import load_settings

    if args.examples < 0:
        error("--examples: a count, 0 or more")
        return 2
    try:
        settings = load_settings(args.config)
        packs = pack_paths(args.paths, settings.packs, Path(args.log))
        if packs is None:
            return 2
        captured = _captured(_capture_dir(args, settings))
        progress: Callable[[int, int], None] | None = (
            ProgressBar(sys.stderr, "replaying") if sys.stderr.isatty() else None
        )
        report = replay(
            settings,
            Path(args.log),
            packs,
            captured=captured,
            examples=args.examples,
            progress=progress,
        )
    except PolicyError as exc:
        error(str(exc))
        return 2
    data = report.to_json()
    if args.format == "json":
        sys.stdout.buffer.write(orjson.dumps(data, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        sys.stdout.write("\n".join(render(data)) + "\n")
    return 1 if args.fail_on_change and report.changed else 0


def render(data: Mapping[str, Any]) -> Iterator[str]:
    """The text form of a replay report (`Report.to_json`)."""
    skipped = data["not_replayable"]
    yield (
        f"replayed {data['replayed']} of {data['decisions']} decision(s) in {data['log']} "
        f"against {', '.join(data['packs'])} ({data['seconds']:.1f} s)"
    )
    if data["approval_answers"]:
        yield (
            f"approval answers in the log: {data['approval_answers']}, reused for "
            f"{data['approvals_reused']} call(s) that ask again"
        )
    if skipped["total"]:
        yield f"not replayable: {skipped['total']}"
        for reason, count in skipped["reasons"].items():
            yield f"  {count:>6}  {reason}"
    yield f"unchanged: {data['unchanged']}" + (
        f" ({data['rules_changed']} decided by other rules)" if data["rules_changed"] else ""
    )
    uncertain = data["uncertain"]
    if uncertain["total"]:
        yield (
            f"uncertain: {uncertain['total']} (a rate limit or contract decided, after calls "
            "of the same sender or session that could not be replayed)"
        )
        for change in uncertain["changes"]:
            yield f"  {change['count']:>6}  {change['from']} -> {change['to']}"
    yield f"changed: {data['changed']}"
    for change in data["changes"]:
        rules = ", ".join(f"{rule} ({count})" for rule, count in change["rules"].items())
        yield f"  {change['count']:>6}  {change['from']} -> {change['to']}" + (
            f"   by {rules}" if rules else ""
        )
        for example in change["examples"]:
            yield f"          line {example['line']} {example['ts']}  {example['call']}"
            if example["reason"]:
                yield f"            {example['reason']}"
