"""`policy schema`: print (or write) the JSON Schema of a pack file, for editors.

The same text as the `policy/packs/pack.schema.json` shipped in the package, generated
again from the pack models (policy.packs.json_schema).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from policy.cli._output import error


def run(args: argparse.Namespace) -> int:
    from policy.packs.json_schema import render_pack_json_schema

    text = render_pack_json_schema()
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
        return 0
    target = Path(args.output)
    temporary: str | None = None
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except OSError as exc:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        error(f"cannot write {target}: {exc.strerror}")
        return 2
    sys.stderr.write(f"wrote {target}\n")
    return 0
