"""`policy test`: run the tests of rule packs — their `tests:` and `*_test.yaml` files —
alone or beside other packs (`--with`), and gate CI on them and on their coverage.

Exit 0 when every test passes (and coverage reaches `--threshold`), 1 on a failed test
or coverage below the threshold, 2 when a pack or test file does not load or the
command is used wrong. `--watch` runs again whenever a file under PATHS or `--with`
changes (its modification times are polled; nothing else is needed).
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from policy.cli._output import error

if TYPE_CHECKING:
    from policy.pack_tests.coverage import Coverage
    from policy.pack_tests.run import TestOutcome
    from policy.pack_tests.suite import Suite
    from policy.packs.schema import PackTest

__all__ = ["run"]

#: How often `--watch` looks at the files' modification times, in seconds.
WATCH_INTERVAL = 0.5


# ------------------------------------------------------------------ outputs


def _where(o: TestOutcome) -> str:
    return f"{o.path}:{o.line}"


def _decided(o: TestOutcome) -> str:
    if o.decision is None:
        return "no decision (the call could not be made)"
    if not o.decided_by:
        return "no rule (nothing matched the call)"
    return f"{o.decided_by}" + (f" ({o.decided_at})" if o.decided_at else "")


def _text(
    outcomes: Sequence[TestOutcome], cov: Coverage | None, seconds: float, verbose: bool
) -> str:
    lines: list[str] = []
    for o in outcomes:
        if o.passed:
            if verbose:
                lines.append(f"PASS {_where(o)} {o.pack}: {o.name}")
            continue
        lines.append(f"FAIL {_where(o)} {o.pack}: {o.name}")
        lines.extend(f"  {problem}" for problem in o.problems)
        lines.append(f"  decided by: {_decided(o)}")
        if o.decision is not None and o.decision.reason:
            lines.append(f"  reason: {o.decision.reason}")
    failed = sum(not o.passed for o in outcomes)
    lines.append(
        f"{len(outcomes)} test(s): {len(outcomes) - failed} passed, {failed} failed "
        f"({seconds:.2f} s)"
    )
    if cov is not None:
        lines.extend(_coverage_lines(cov))
    return "\n".join(lines) + "\n"


def _coverage_lines(cov: Coverage) -> list[str]:
    done = len(cov.units) - len(cov.uncovered)
    lines = [f"coverage: {done}/{len(cov.units)} units ({cov.percent:.1f} %)"]
    lines.extend(f"  not covered: {u.name} [{u.kind}] ({u.path}:{u.line})" for u in cov.uncovered)
    return lines


def _decision_json(o: TestOutcome) -> list[dict[str, Any]]:
    from policy.pack_tests.verdict import action_of

    return [
        {
            "step": s.index,
            "name": s.name,
            "action": action_of(s.decision) if s.decision is not None else None,
            "rule_ids": list(s.decision.rule_ids) if s.decision is not None else [],
            "reason": s.decision.reason if s.decision is not None else "",
            "problems": list(s.problems),
        }
        for s in o.steps
    ]


def _json(outcomes: Sequence[TestOutcome], cov: Coverage | None, seconds: float) -> str:
    failed = sum(not o.passed for o in outcomes)
    payload: dict[str, Any] = {
        "tests": len(outcomes),
        "passed": len(outcomes) - failed,
        "failed": failed,
        "seconds": round(seconds, 3),
        "results": [
            {
                "pack": o.pack,
                "name": o.name,
                "path": o.path,
                "line": o.line,
                "passed": o.passed,
                "problems": list(o.problems),
                "decided_by": o.decided_by,
                "decided_at": o.decided_at,
                "seconds": round(o.seconds, 4),
                "steps": _decision_json(o),
            }
            for o in outcomes
        ],
    }
    if cov is not None:
        payload["coverage"] = {
            "units": len(cov.units),
            "covered": len(cov.units) - len(cov.uncovered),
            "percent": round(cov.percent, 2),
            "uncovered": [
                {"name": u.name, "kind": u.kind, "path": u.path, "line": u.line}
                for u in cov.uncovered
            ],
        }
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode() + "\n"


def _junit(outcomes: Sequence[TestOutcome], cov: Coverage | None, seconds: float) -> str:
    import xml.etree.ElementTree as ET

    failed = sum(not o.passed for o in outcomes)
    root = ET.Element(
        "testsuites",
        name="policy test",
        tests=str(len(outcomes)),
        failures=str(failed),
        errors="0",
        time=f"{seconds:.3f}",
    )
    by_file: dict[str, list[TestOutcome]] = {}
    for o in outcomes:
        by_file.setdefault(o.path, []).append(o)
    for path, group in by_file.items():
        suite = ET.SubElement(
            root,
            "testsuite",
            name=path,
            tests=str(len(group)),
            failures=str(sum(not o.passed for o in group)),
            errors="0",
            skipped="0",
            time=f"{sum(o.seconds for o in group):.3f}",
        )
        if cov is not None:
            props = ET.SubElement(suite, "properties")
            ET.SubElement(props, "property", name="coverage", value=f"{cov.percent:.2f}")
        for o in group:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=o.pack,
                name=o.name,
                file=o.path,
                line=str(o.line),
                time=f"{o.seconds:.4f}",
            )
            if not o.passed:
                failure = ET.SubElement(
                    case, "failure", message=o.problems[0] if o.problems else "failed"
                )
                failure.text = "\n".join([*o.problems, f"decided by: {_decided(o)}"])
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def _github(outcomes: Sequence[TestOutcome], cov: Coverage | None, seconds: float) -> str:
    lines = []
    for o in outcomes:
        if o.passed:
            continue
        body = "\n".join([*o.problems, f"decided by: {_decided(o)}"])
        lines.append(
            f"::error file={_escape(o.path, prop=True)},line={o.line},"
            f"title={_escape(f'policy test: {o.name}', prop=True)}::{_escape(body)}"
        )
    if cov is not None:
        lines.extend(
            f"::warning file={_escape(u.path, prop=True)},line={u.line},"
            f"title={_escape('policy test coverage', prop=True)}::"
            f"{_escape(f'no test exercises {u.name} [{u.kind}]')}"
            for u in cov.uncovered
        )
    failed = sum(not o.passed for o in outcomes)
    summary = f"{len(outcomes)} test(s): {len(outcomes) - failed} passed, {failed} failed"
    if cov is not None:
        summary += f"; coverage {cov.percent:.1f} %"
    lines.append(f"::notice title=policy test::{_escape(summary)}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ running


def _selector(pattern: str | None) -> Callable[[Suite, PackTest], bool] | None:
    if not pattern:
        return None
    needle = pattern.lower()

    def keep(suite: Suite, test: PackTest) -> bool:
        names = [test.name, *suite.under_test, str(suite.source)]
        return any(needle in name.lower() for name in names)

    return keep


def _once(args: argparse.Namespace, paths: list[str], settings: Any) -> int:
    from policy.errors import PolicyError
    from policy.pack_tests.coverage import coverage
    from policy.pack_tests.run import run_collection
    from policy.pack_tests.suite import collect
    from policy.packs.diagnostics import PackError

    start = time.perf_counter()
    try:
        found = collect(paths, args.with_paths)
    except PackError as exc:
        for diagnostic in exc.diagnostics:
            sys.stderr.write(f"{diagnostic}\n")
        error(f"{len(exc.diagnostics)} error(s) in the packs or tests: nothing was run")
        return 2
    except PolicyError as exc:
        error(str(exc))
        return 2
    if not found.suites:
        error(f"no tests (`tests:` of a pack, or *_test.yaml) under {', '.join(paths)}")
        return 2
    try:
        outcomes = run_collection(
            found,
            cel_engine=args.cel_engine or settings.cel_engine,
            aliases=settings.aliases,
            select=_selector(args.filter),
        )
    except PolicyError as exc:
        error(str(exc))
        return 2
    if not outcomes:
        error(f"no test matches --filter {args.filter!r}")
        return 2
    seconds = time.perf_counter() - start
    wants = args.coverage or args.threshold is not None
    cov = coverage(found.under_test, outcomes) if wants else None
    if args.format == "text":
        sys.stdout.write(_text(outcomes, cov, seconds, args.verbose))
    elif args.format == "json":
        sys.stdout.write(_json(outcomes, cov, seconds))
    elif args.format == "junit":
        sys.stdout.write(_junit(outcomes, cov, seconds))
    else:
        sys.stdout.write(_github(outcomes, cov, seconds))
    if cov is not None and args.format == "junit":
        sys.stderr.write("\n".join(_coverage_lines(cov)) + "\n")
    sys.stdout.flush()
    code = 1 if any(not o.passed for o in outcomes) else 0
    if cov is not None and args.threshold is not None and cov.percent < args.threshold:
        error(f"coverage {cov.percent:.1f} % is below the threshold {args.threshold:g} %")
        code = 1
    return code


def _snapshot(paths: Sequence[str]) -> dict[str, float]:
    """Modification times of every YAML file under `paths` (and of the paths)."""
    seen: dict[str, float] = {}
    for raw in paths:
        path = Path(raw)
        candidates = [path] if path.is_file() else sorted(path.rglob("*.y*ml"))
        for file in candidates:
            try:
                seen[str(file)] = file.stat().st_mtime_ns / 1e9
            except OSError:
                continue
    return seen


def _watch(args: argparse.Namespace, paths: list[str], settings: Any) -> int:
    watched = [*paths, *args.with_paths]
    while True:
        before = _snapshot(watched)
        code = _once(args, paths, settings)
        error(f"exit {code}; watching {len(before)} file(s) for changes (Ctrl-C stops)")
        while _snapshot(watched) == before:
            time.sleep(WATCH_INTERVAL)
        sys.stdout.write("\n--- files changed, running again ---\n")


def run(args: argparse.Namespace) -> int:
    from policy.errors import PolicyError
    from policy.settings import load_settings

    if args.threshold is not None and not 0 <= args.threshold <= 100:
        error("--threshold is a percentage between 0 and 100")
        return 2
    try:
        settings = load_settings(args.config)
    except PolicyError as exc:
        error(str(exc))
        return 2
    paths = list(args.paths) or [str(p) for p in settings.packs]
    if not paths:
        error("no PATHS given and the packs setting is empty")
        return 2
    missing = [p for p in [*paths, *args.with_paths] if not Path(p).exists()]
    if missing:
        error(f"no such file or directory: {', '.join(missing)}")
        return 2
    # A test's `approve:` files requests nobody waits on: the notice each filing logs
    # for the approvers (policy.builtins.approval) is not for this output.
    logging.getLogger("policy.approvals").addHandler(logging.NullHandler())
    logging.getLogger("policy.approvals").propagate = False
    if args.watch:
        return _watch(args, paths, settings)
    return _once(args, paths, settings)
