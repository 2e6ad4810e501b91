"""`policy audit verify|tail`: prove and read the decision log (standard library + orjson)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import orjson

from policy.audit_chain import TORN_EVENT
from policy.audit_verify import Tear
from policy.cli._output import error
from policy.errors import PolicyError


def run(args: argparse.Namespace) -> int:
    if args.audit_command == "verify":
        return _verify(args)
    return _tail(args)


def _verify(args: argparse.Namespace) -> int:
    from policy.audit_verify import in_order, verify_set

    key: bytes | None = None
    if args.key_env:
        value = os.environ.get(args.key_env)
        if not value:
            error(f"--key-env {args.key_env}: the variable is not set")
            return 2
        key = value.encode()
    files = in_order([Path(name) for name in args.files])
    try:
        proven = verify_set(files, key=key, anchor=args.anchor, expect_head=args.expect_head)
    except OSError as exc:
        error(f"{exc.filename or args.files[0]}: {exc.strerror}")
        return 2
    ok = all(item.report.ok for item in proven) and len(proven) == len(files)
    if args.format == "json":
        shown = [_report_json(item) for item in proven]
        if len(files) == 1:
            document: Any = shown[0]
        else:
            document = {
                "ok": ok,
                "head": proven[-1].report.head if ok else None,
                "lines": sum(item.report.lines for item in proven),
                "files": shown,
            }
        sys.stdout.write(orjson.dumps(document).decode() + "\n")
    else:
        out = []
        for item in proven:
            out.extend(_report_text(item))
        if len(files) > 1 and ok:
            total = sum(item.report.lines for item in proven)
            out.append(
                f"{len(files)} files, one chain: OK, {total} lines, head {proven[-1].report.head}\n"
            )
        sys.stdout.write("".join(out))
    for name in files:
        _warn_if_world_readable(str(name))
    return 0 if ok else 1


def _report_json(item: Any) -> dict[str, Any]:
    report = item.report
    shown: dict[str, Any] = {
        "file": str(item.path),
        "ok": report.ok,
        "lines": report.lines,
        "head": report.head,
        "broken_line": report.broken_line,
        "problem": report.problem or None,
        "tears": [
            {
                "line": tear.line,
                "offset": tear.offset,
                "length": tear.length,
                "sha256": tear.sha256,
                "sidecar": tear.sidecar,
                "sidecar_state": tear.sidecar_state,
            }
            for tear in report.tears
        ],
        "orphan_sidecars": list(report.orphans),
    }
    if item.note:
        shown["note"] = item.note
    return shown


def _report_text(item: Any) -> list[str]:
    report, file = item.report, str(item.path)
    out = []
    if item.note:
        out.append(f"{file}: note: {item.note}\n")
    if report.ok:
        tears = len(report.tears)
        healed = f", {tears} healed tear{'s' if tears != 1 else ''}" if tears else ""
        out.append(f"{file}: OK, {report.lines} lines, head {report.head}{healed}\n")
    out.extend(f"{file}:{tear.line}: {_tear_text(tear)}\n" for tear in report.tears)
    out.extend(
        f"{file}: note: sidecar {name} is named by no log_torn record "
        "(a heal whose record could not be written?)\n"
        for name in report.orphans
    )
    if not report.ok:
        out.append(f"{file}:{report.broken_line}: {report.problem}\n")
    return out


_SIDECAR_STATE = {
    "kept": "the sidecar holds exactly these bytes",
    "missing": "the sidecar is missing",
    "differs": "the sidecar DIFFERS from them",
    "outside": "not a file of the log's directory, not read",
    "": "sidecar not checked",
}


def _tear_text(tear: Tear) -> str:
    state = _SIDECAR_STATE.get(tear.sidecar_state, tear.sidecar_state)
    return (
        f"healed tear: {tear.length} bytes of a line cut short at offset {tear.offset} "
        f"were moved to {tear.sidecar} (sha256 {tear.sha256}); {state}"
    )


def _warn_if_world_readable(file: str) -> None:
    try:
        mode = os.stat(file).st_mode
    except OSError:
        return
    if mode & 0o007:
        error(
            f"warning: {file} is open to other users (mode {mode & 0o777:04o}); "
            f"`chmod 600 {file}` (new logs are created 0600)"
        )


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
    if record.get("event") == TORN_EVENT:
        return (
            f"{record.get('ts', '')} {TORN_EVENT:<12} {record.get('length')} bytes cut short "
            f"at offset {record.get('offset')} moved to {record.get('sidecar')}"
        )
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
