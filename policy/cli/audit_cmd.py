"""`policy audit verify|tail`: prove and read the decision log (standard library + orjson)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from policy.audit_chain import GENESIS, verify_file
from policy.cli._output import error
from policy.errors import PolicyError


def run(args: argparse.Namespace) -> int:
    if args.audit_command == "verify":
        return _verify(args)
    return _tail(args)


def _verify(args: argparse.Namespace) -> int:
    key: bytes | None = None
    if args.key_env:
        value = os.environ.get(args.key_env)
        if not value:
            error(f"--key-env {args.key_env}: the variable is not set")
            return 2
        key = value.encode()
    try:
        report = verify_file(
            args.file, key=key, anchor=args.anchor or GENESIS, expect_head=args.expect_head
        )
    except OSError as exc:
        error(f"{args.file}: {exc.strerror}")
        return 2
    if args.format == "json":
        sys.stdout.write(
            orjson.dumps(
                {
                    "file": args.file,
                    "ok": report.ok,
                    "lines": report.lines,
                    "head": report.head,
                    "broken_line": report.broken_line,
                    "problem": report.problem or None,
                }
            ).decode()
            + "\n"
        )
    elif report.ok:
        sys.stdout.write(f"{args.file}: OK, {report.lines} lines, head {report.head}\n")
    else:
        sys.stdout.write(f"{args.file}:{report.broken_line}: {report.problem}\n")
    return 0 if report.ok else 1


def _default_log() -> Path | None:
    from policy.settings import load_settings

    return load_settings().audit_path


def _text(line: bytes) -> str:
    try:
        record: Any = orjson.loads(line)
    except orjson.JSONDecodeError:
        return line.decode("utf-8", "replace").rstrip("\n")
    if not isinstance(record, dict):
        return line.decode("utf-8", "replace").rstrip("\n")
    subject = record.get("tool") or record.get("model") or ""
    rules = ",".join(record.get("rule_ids") or ())
    parts = [
        str(record.get("ts", "")),
        f"{record.get('point', ''):<12}",
        f"{record.get('action', ''):<10}",
        f"{subject:<12}",
    ]
    if record.get("reason"):
        parts.append(repr(record["reason"]))
    if record.get("hook"):
        parts.append(f"[{record['hook']}]")
    if rules:
        parts.append(f"({rules})")
    return " ".join(parts)


def _last_lines(path: Path, count: int) -> tuple[list[bytes], int]:
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        block = 65536
        start = size
        data = b""
        while start > 0 and data.count(b"\n") <= count:
            start = max(0, start - block)
            handle.seek(start)
            data = handle.read(size - start)
        lines = data.splitlines(keepends=True)
        if start > 0:
            lines = lines[1:]  # the first one may be partial
        return lines[-count:] if count > 0 else [], size


def _tail(args: argparse.Namespace) -> int:
    try:
        path = Path(args.file) if args.file else _default_log()
    except PolicyError as exc:
        error(str(exc))
        return 2
    if path is None:
        error("no FILE given and the audit_path setting is unset")
        return 2
    try:
        lines, position = _last_lines(path, max(args.lines, 0))
    except OSError as exc:
        error(f"{path}: {exc.strerror}")
        return 2
    emit = (lambda b: b.decode("utf-8", "replace").rstrip("\n")) if args.format == "json" else _text
    for line in lines:
        sys.stdout.write(emit(line) + "\n")
    sys.stdout.flush()
    if not args.follow:
        return 0
    pending = b""
    while True:
        time.sleep(0.2)
        try:
            size = path.stat().st_size
        except OSError:
            continue
        if size < position:  # rotated or truncated: start over
            position = 0
        if size == position:
            continue
        with open(path, "rb") as handle:
            handle.seek(position)
            chunk = handle.read(size - position)
        position = size
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            sys.stdout.write(emit(line + b"\n") + "\n")
        sys.stdout.flush()
