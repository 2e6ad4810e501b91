"""The hash chain of the decision log: sealing lines and proving a file.

Each line is a JSON object whose last two members are `prev` (the previous line's
hash; 64 zeros on the first line) and `hash`, the SHA-256 (HMAC-SHA-256 with a
key) of the line's own bytes up to and including `prev`. Editing any byte of a
line breaks that line's hash; deleting or reordering lines breaks `prev`.

Deleting lines at the end cannot be seen from the file alone: record the head
hash `verify` prints somewhere else (a ticket, a second log pipeline) and pass it
back with `expect_head`.

A write cut short (a full disk, a process killed mid-write) leaves bytes after the
last newline: a torn tail. The writer (policy.audit) moves them verbatim into a
sidecar file next to the log, cuts the log back to its last complete line and
chains a `log_torn` record naming the sidecar, the offset, the length and the
SHA-256 of the bytes. `verify` reports each such record as a healed tear; only a
partial *last* line is ever healed, so a line deleted or edited in the middle
still breaks the chain.

This module imports only the standard library and orjson, so `policy audit
verify` starts fast.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import BinaryIO

import orjson

__all__ = [
    "GENESIS",
    "TORN_EVENT",
    "Tail",
    "Tear",
    "VerifyReport",
    "last_hash_of_open",
    "make_digest",
    "read_tail",
    "seal",
    "sidecar_prefix",
    "verify_file",
    "verify_lines",
]

GENESIS = "0" * 64
#: The event of the record that names a torn tail moved aside.
TORN_EVENT = "log_torn"
#: Every record starts so (`ts` is rendered first): a file of one partial line is
#: taken for a torn first record only if it starts so too.
_RECORD_START = b'{"ts":"'
_BLOCK = 8192
_SUFFIX = re.compile(rb',"hash":"([0-9a-f]{64})"\}$')
_PREV = re.compile(rb'"prev":"([0-9a-f]{64})"\}$')

Digest = Callable[[bytes], str]


def make_digest(key: bytes | None) -> Digest:
    if key:
        return lambda content: hmac.new(key, content, hashlib.sha256).hexdigest()
    return lambda content: hashlib.sha256(content).hexdigest()


def seal(body: bytes, prev: str, digest: Digest) -> tuple[bytes, str]:
    """Append `prev` and `hash` to a serialized JSON object; returns (line, hash)."""
    if not body.endswith(b"}"):
        raise ValueError("a log record must serialize to a JSON object")
    sep = b"" if body == b"{}" else b","
    content = body[:-1] + sep + b'"prev":"' + prev.encode() + b'"}'
    line_hash = digest(content)
    return content[:-1] + b',"hash":"' + line_hash.encode() + b'"}', line_hash


def sidecar_prefix(log_name: str) -> str:
    """The file-name prefix of a log's sidecars: `<log name>.torn-` (+ UTC time)."""
    return f"{log_name}.torn-"


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
        match = _SUFFIX.search(line)
        if match is None:
            return broken(number, "no hash at the end of the line")
        content = line[: match.start()] + b"}"
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
        if not hmac.compare_digest(digest(content), match.group(1).decode()):
            return broken(number, "hash does not match the line (edited?)")
        prev = match.group(1).decode()
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


@dataclass(frozen=True, slots=True)
class Tail:
    """The end of a log file: the hash of its last complete line (GENESIS when it
    has none), where that line ends (`end`: just past its newline), and how many
    bytes follow it (`torn`: a write cut short; 0 for a whole log)."""

    head: str
    end: int
    torn: int


def _rfind_newline(fd: int, before: int) -> int:
    """Offset of the last newline before offset `before` (-1: none)."""
    position = before
    block = _BLOCK
    while position > 0:
        start = max(0, position - block)
        chunk = os.pread(fd, position - start, start)
        found = chunk.rfind(b"\n")
        if found != -1:
            return start + found
        position = start
        block = min(block * 2, 1 << 22)
    return -1


def read_tail(fd: int, size: int) -> Tail:
    """Where the log open as `fd` (`size` bytes) stops being a whole chain.

    Raises ValueError when the last complete line carries no hash (appending after
    a damaged line would hide the damage inside a valid-looking chain), or when the
    file holds no complete line and does not start like a record (it is no
    decision log: never cut it back).
    """
    if size == 0:
        return Tail(GENESIS, 0, 0)
    start = max(0, size - _BLOCK)
    chunk = os.pread(fd, size - start, start)
    found = chunk.rfind(b"\n")
    newline = start + found if found != -1 else _rfind_newline(fd, start)
    if newline == -1:
        if not _RECORD_START.startswith(os.pread(fd, len(_RECORD_START), 0)):
            raise ValueError("the file holds no complete line and does not start like a record")
        return Tail(GENESIS, 0, size)
    # The last complete line: from just past the newline before it (or the file's start).
    inner = chunk.rfind(b"\n", 0, found) if found != -1 else -1
    if found != -1 and (inner != -1 or start == 0):
        last = chunk[inner + 1 : found]
    else:
        begin = _rfind_newline(fd, start if found != -1 else newline) + 1
        last = os.pread(fd, newline - begin, begin)
    match = _SUFFIX.search(last)
    if match is None:
        raise ValueError("the last complete line carries no hash")
    return Tail(match.group(1).decode(), newline + 1, size - newline - 1)


def last_hash_of_open(handle: BinaryIO, size: int) -> str:
    """The hash of the last line of an open log (GENESIS for an empty one).

    Raises ValueError when the last line carries no hash or is not terminated.
    """
    tail = read_tail(handle.fileno(), size)
    if tail.torn:
        raise ValueError("the last line is not terminated (a write was cut short)")
    return tail.head
