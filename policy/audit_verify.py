"""Proving a decision log: a file's hash chain line by line, the sidecars its healed
tears name, and a live log with its rotated files as one chain.

`policy audit verify` and the tests read these; a process that only writes the log
(policy.audit, policy.audit_chain, policy.audit_rotate) never imports this module —
a one-event hook writes one line, and building the reports' dataclasses cost it
≈ 2 ms at every start.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

import orjson

from policy._lazy_dataclass import dataclass, replace
from policy.audit_chain import (
    GENESIS,
    TORN_EVENT,
    make_digest,
    sealed_hash,
    sidecar_prefix,
)
from policy.audit_rotate import ROTATED_EVENT, first_record, rotated_files

#: The `prev` before a sealed record's hash (`policy.audit_chain.seal`).
_PREV = re.compile(rb'"prev":"([0-9a-f]{64})"\}$')

__all__ = [
    "Proven",
    "Tear",
    "VerifyReport",
    "in_order",
    "verify_file",
    "verify_lines",
    "verify_set",
]


@dataclass(frozen=True, slots=True)
class Tear:
    """A torn tail that was moved aside, as its `log_torn` record names it.

    `sidecar_state` is filled by `verify_file`: "kept" (the sidecar holds exactly
    those bytes), "missing", "differs", or "outside" (the name is not a file of
    the log's directory, so it is not read); "" when not checked.
    """

    line: int
    offset: int
    length: int
    sha256: str
    sidecar: str
    sidecar_state: str = ""


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Outcome of `verify_*`: ok, or the first broken line (1-based) and why.

    `tears`: the healed tears found (before the break, if any). `orphans`:
    sidecars of this log that no `log_torn` record names (a heal whose record
    could not be written); a note, not a failure.
    """

    ok: bool
    lines: int
    head: str
    broken_line: int | None = None
    problem: str = ""
    tears: tuple[Tear, ...] = ()
    orphans: tuple[str, ...] = ()


def _tear(number: int, record: dict[str, object]) -> Tear:
    def number_of(key: str) -> int:
        value = record.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else -1

    return Tear(
        line=number,
        offset=number_of("offset"),
        length=number_of("length"),
        sha256=str(record.get("sha256", "")),
        sidecar=str(record.get("sidecar", "")),
    )


def verify_lines(
    lines: Iterable[bytes],
    *,
    key: bytes | None = None,
    anchor: str = GENESIS,
    expect_head: str | None = None,
) -> VerifyReport:
    digest = make_digest(key)
    prev = anchor
    count = 0
    tears: list[Tear] = []

    def broken(number: int, problem: str) -> VerifyReport:
        return VerifyReport(False, number, prev, number, problem, tuple(tears))

    for number, raw in enumerate(lines, 1):
        count = number
        line = raw[:-1] if raw.endswith(b"\n") else raw
        if not raw.endswith(b"\n"):
            return broken(
                number,
                "line is not terminated (cut short? a torn last line not healed yet: "
                "the next write moves it aside)",
            )
        sealed = sealed_hash(line)
        if sealed is None:
            return broken(number, "no hash at the end of the line")
        at, sealed_with = sealed
        content = line[:at] + b"}"
        prev_match = _PREV.search(content)
        if prev_match is None:
            return broken(number, "no prev hash before the hash")
        try:
            record = orjson.loads(content)
        except orjson.JSONDecodeError:
            return broken(number, "line is not valid JSON")
        if not isinstance(record, dict) or record.get("prev") != prev_match.group(1).decode():
            return broken(number, "prev hash is not the record's own")
        if prev_match.group(1).decode() != prev:
            what = "the chain's anchor" if number == 1 else f"the hash of line {number - 1}"
            return broken(number, f"prev hash does not match {what} (line removed or reordered?)")
        if not hmac.compare_digest(digest(content), sealed_with):
            return broken(number, "hash does not match the line (edited?)")
        prev = sealed_with
        if record.get("event") == TORN_EVENT:
            tears.append(_tear(number, record))
    if expect_head is not None and prev != expect_head:
        return VerifyReport(
            False,
            count,
            prev,
            count + 1,
            f"chain ends at {prev}, expected head {expect_head} (lines removed at the end?)",
            tuple(tears),
        )
    return VerifyReport(True, count, prev, tears=tuple(tears))


def verify_file(
    path: str | os.PathLike[str],
    *,
    key: bytes | None = None,
    anchor: str = GENESIS,
    expect_head: str | None = None,
) -> VerifyReport:
    """Prove the log at `path`, and check the sidecars its `log_torn` records name
    (in the log's directory): a sidecar that is there but does not hold the bytes
    its record names fails the proof; a missing one is only reported."""
    with open(path, "rb") as handle:
        report = verify_lines(handle, key=key, anchor=anchor, expect_head=expect_head)
    directory = os.path.dirname(os.fspath(path)) or "."
    tears = tuple(_check_sidecar(directory, tear) for tear in report.tears)
    named = {tear.sidecar for tear in tears}
    prefix = sidecar_prefix(os.path.basename(os.fspath(path)))
    try:
        orphans = tuple(
            sorted(
                name
                for name in os.listdir(directory)
                if name.startswith(prefix) and name not in named
            )
        )
    except OSError:
        orphans = ()
    ok, broken_line, problem = report.ok, report.broken_line, report.problem
    differs = next((tear for tear in tears if tear.sidecar_state == "differs"), None)
    if ok and differs is not None:
        ok, broken_line = False, differs.line
        problem = (
            f"sidecar {differs.sidecar} does not hold the {differs.length} torn bytes "
            "this record names (edited?)"
        )
    return VerifyReport(ok, report.lines, report.head, broken_line, problem, tears, orphans)


def _check_sidecar(directory: str, tear: Tear) -> Tear:
    name = tear.sidecar
    if not name or name in (".", "..") or "/" in name or "\x00" in name:
        return replace(tear, sidecar_state="outside")
    digest = hashlib.sha256()
    length = 0
    try:
        fd = os.open(os.path.join(directory, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return replace(tear, sidecar_state="missing")
    try:
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
            length += len(chunk)
    except OSError:
        return replace(tear, sidecar_state="missing")
    finally:
        os.close(fd)
    same = length == tear.length and hmac.compare_digest(digest.hexdigest(), tear.sha256)
    return replace(tear, sidecar_state="kept" if same else "differs")


def in_order(paths: Sequence[Path]) -> list[Path]:
    """Each live log given with its rotated files before it (oldest first); a rotated
    file given by name stands alone."""
    ordered: list[Path] = []
    for path in paths:
        for rotated in rotated_files(path):
            if rotated not in ordered:
                ordered.append(rotated)
        if path not in ordered:
            ordered.append(path)
    return ordered


@dataclass(frozen=True, slots=True)
class Proven:
    """One file of a set, proven: its report, and what to know about where it starts."""

    path: Path
    report: VerifyReport
    note: str = ""


def verify_set(
    paths: Sequence[Path],
    *,
    key: bytes | None = None,
    anchor: str | None = None,
    expect_head: str | None = None,
) -> list[Proven]:
    """Prove `paths` (oldest first) as one chain: each file's first line chained to
    the last line of the file before it, a `log_rotated` record naming that file. The
    first file starts at `anchor`, else at the chain's genesis — or, when it starts
    with a `log_rotated` record (the files before it removed by `audit_rotate_keep`, or
    not given), at that record's `prev`, said in its note. Stops at the first file
    that does not hold."""
    proven: list[Proven] = []
    head: str | None = None
    for index, path in enumerate(paths):
        with open(path, "rb") as handle:
            first = first_record(handle.fileno())
        rotated = first is not None and first.get("event") == ROTATED_EVENT
        rotated_from = first.get("previous") if first is not None and rotated else None
        note = ""
        if head is None:
            start = anchor
            if start is None and rotated_from is not None:
                start = str(first.get("prev", GENESIS)) if first else GENESIS
                note = (
                    f"starts where {rotated_from} ended (head {start}); that file is not "
                    "in the set, so what came before is not proven here"
                )
            start = start or GENESIS
        else:
            start = head
            before = paths[index - 1].name
            if rotated_from is not None and rotated_from != before:
                report = VerifyReport(
                    False, 0, head, 1,
                    f"the first record continues {rotated_from}, but the file before it "
                    f"is {before} (a file missing from the set?)",
                )
                proven.append(Proven(path, report))
                return proven
        last = index == len(paths) - 1
        report = verify_file(path, key=key, anchor=start, expect_head=expect_head if last else None)
        proven.append(Proven(path, report, note))
        if not report.ok:
            return proven
        head = report.head
    # A sidecar is named by the file that was live when its tear was healed: across a
    # set, one named by any file of it is no orphan.
    named = {tear.sidecar for item in proven for tear in item.report.tears}
    return [
        replace(item, report=replace(item.report, orphans=tuple(
            name for name in item.report.orphans if name not in named
        )))
        for item in proven
    ]
