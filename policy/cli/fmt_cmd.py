"""`policy fmt`: rewrite pack files in canonical key order and indentation, keeping
their comments; `--check` only lists the files that would change (for CI).

Exit 0 when every file is (now) formatted, 1 with `--check` when some would change,
2 when a file cannot be formatted (not YAML: its file:line:col; such a file is left
untouched) or on a usage error. The work is policy.packs.fmt's.
"""

from __future__ import annotations

import argparse
import sys

from policy.cli._output import error
from policy.errors import PolicyError


def run(args: argparse.Namespace) -> int:
    from policy.packs.diagnostics import PackError
    from policy.packs.fmt import format_paths

    paths: list[str] = list(args.paths)
    try:
        if not paths:
            from policy.settings import load_settings

            paths = [str(p) for p in load_settings(args.config).packs]
            if not paths:
                error("no PATHS given and the packs setting is empty")
                return 2
        results = format_paths(paths, check=args.check)
    except PackError as exc:
        for diagnostic in exc.diagnostics:
            error(f"{diagnostic.path}: {diagnostic.message}")
        return 2
    except PolicyError as exc:
        error(str(exc))
        return 2
    if not results:
        error(f"no rule packs (*.yaml, *.yml) found in {', '.join(paths)}")
        return 2
    failed = [r for r in results if r.error is not None]
    changed = [r for r in results if r.changed]
    for result in failed:
        sys.stderr.write(f"{result.error}\n")
    verb = "would reformat" if args.check else "reformatted"
    for result in changed:
        sys.stdout.write(f"{verb} {result.path}\n")
    summary = (
        f"{len(changed)} file(s) {verb}, {len(results) - len(changed) - len(failed)} unchanged"
    )
    if failed:
        summary += f", {len(failed)} could not be formatted"
    sys.stderr.write(summary + "\n")
    if failed:
        return 2
    return 1 if args.check and changed else 0
