"""The hash chain of the decision log: sealing lines and proving a file.

Each line is a JSON object whose last two members are `prev` (the previous line's
hash; 64 zeros on the first line) and `hash`, the SHA-256 (HMAC-SHA-256 with a
key) of the line's own bytes up to and including `prev`. Editing any byte of a
line breaks that line's hash; deleting or reordering lines breaks `prev`.

Deleting lines at the end cannot be seen from the file alone: record the head
hash `verify` prints somewhere else (a ticket, a second log pipeline) and pass it
back with `expect_head`.

This module imports only the standard library and orjson, so `policy audit
verify` starts fast.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import BinaryIO

import orjson

__all__ = [
    "GENESIS",
    "VerifyReport",
    "last_hash_of_open",
    "make_digest",
    "seal",
    "verify_file",
    "verify_lines",
]

GENESIS = "0" * 64
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


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """Outcome of `verify_*`: ok, or the first broken line (1-based) and why."""

    ok: bool
    lines: int
    head: str
    broken_line: int | None = None
    problem: str = ""


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
    for number, raw in enumerate(lines, 1):
        count = number
        line = raw[:-1] if raw.endswith(b"\n") else raw
        if not raw.endswith(b"\n"):
            return VerifyReport(False, number, prev, number, "line is not terminated (cut short?)")
        match = _SUFFIX.search(line)
        if match is None:
            return VerifyReport(False, number, prev, number, "no hash at the end of the line")
        content = line[: match.start()] + b"}"
        prev_match = _PREV.search(content)
        if prev_match is None:
            return VerifyReport(False, number, prev, number, "no prev hash before the hash")
        try:
            record = orjson.loads(content)
        except orjson.JSONDecodeError:
            return VerifyReport(False, number, prev, number, "line is not valid JSON")
        if not isinstance(record, dict) or record.get("prev") != prev_match.group(1).decode():
            return VerifyReport(False, number, prev, number, "prev hash is not the record's own")
        if prev_match.group(1).decode() != prev:
            what = "the chain's anchor" if number == 1 else f"the hash of line {number - 1}"
            return VerifyReport(
                False,
                number,
                prev,
                number,
                f"prev hash does not match {what} (line removed or reordered?)",
            )
        if not hmac.compare_digest(digest(content), match.group(1).decode()):
            return VerifyReport(
                False, number, prev, number, "hash does not match the line (edited?)"
            )
        prev = match.group(1).decode()
    if expect_head is not None and prev != expect_head:
        return VerifyReport(
            False,
            count,
            prev,
            count + 1,
            f"chain ends at {prev}, expected head {expect_head} (lines removed at the end?)",
        )
    return VerifyReport(True, count, prev)


def verify_file(
    path: str | os.PathLike[str],
    *,
    key: bytes | None = None,
    anchor: str = GENESIS,
    expect_head: str | None = None,
) -> VerifyReport:
    with open(path, "rb") as handle:
        return verify_lines(handle, key=key, anchor=anchor, expect_head=expect_head)


def _last_hash_of_open(fh: BinaryIO, size: int, block: int) -> str:
    start = size
    tail = b""
    while start > 0:
        start = max(0, start - block)
        fh.seek(start)
        tail = fh.read(size - start)
        if tail.rstrip(b"\n").rfind(b"\n") != -1 or start == 0:
            break
    if not tail.endswith(b"\n"):
        raise ValueError("the last line is not terminated (a write was cut short)")
    last = tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]
    match = _SUFFIX.search(last)
    if match is None:
        raise ValueError("the last line carries no hash")
    return match.group(1).decode()


def last_hash_of_open(handle: BinaryIO, size: int) -> str:
    """The hash of the last line of an open log (GENESIS for an empty one).

    Raises ValueError when the last line carries no hash: appending after a
    damaged line would hide the damage inside a valid-looking chain.
    """
    if size == 0:
        return GENESIS
    return _last_hash_of_open(handle, size, 65536)
