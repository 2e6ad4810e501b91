"""The hash chain of the decision log: sealing lines, and where a file's chain ends.

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

Proving a file is `policy.audit_verify`'s. This module imports only the standard
library and orjson, so `policy audit verify` starts fast.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import BinaryIO

from policy._hashes import sha256
from policy._lazy_dataclass import dataclass

__all__ = [
    "GENESIS",
    "TORN_EVENT",
    "Tail",
    "last_hash_of_open",
    "make_digest",
    "read_tail",
    "seal",
    "sidecar_prefix",
]

GENESIS = "0" * 64
#: The event of the record that names a torn tail moved aside.
TORN_EVENT = "log_torn"
#: Every record starts so (`ts` is rendered first): a file of one partial line is
#: taken for a torn first record only if it starts so too.
_RECORD_START = b'{"ts":"'
_BLOCK = 8192
#: How every sealed record ends: `,"hash":"`, 64 lower-case hex digits, `"}`.
_HASH_KEY = b',"hash":"'
_HEX_DIGITS = frozenset(b"0123456789abcdef")
_SEALED_END = len(_HASH_KEY) + 64 + 2


def sealed_hash(line: bytes) -> tuple[int, str] | None:
    r"""Where the seal a record `line` ends with begins (`,"hash":"`) and the hash it
    holds — 64 lower-case hex digits, then `"}`, before a last newline if any — or None
    when the line does not end so. Sliced rather than searched: every one-event hook
    reads its log's last line, and need not compile a pattern for it; the verifier
    reads every line so too (tests/test_pattern_guards.py holds it to the pattern
    `,"hash":"([0-9a-f]{64})"\}$`)."""
    end = len(line) - 1 if line.endswith(b"\n") else len(line)
    start = end - _SEALED_END
    if start < 0 or line[start : start + len(_HASH_KEY)] != _HASH_KEY:
        return None
    if line[end - 2 : end] != b'"}':
        return None
    digest = line[start + len(_HASH_KEY) : end - 2]
    return (start, digest.decode()) if _HEX_DIGITS.issuperset(digest) else None


Digest = Callable[[bytes], str]


def make_digest(key: bytes | None) -> Digest:
    if key:
        import hashlib  # (a keyed chain: OpenSSL's HMAC, loaded for it)
        import hmac

        return lambda content: hmac.new(key, content, hashlib.sha256).hexdigest()
    return lambda content: sha256(content).hexdigest()


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
    sealed = sealed_hash(last)
    if sealed is None:
        raise ValueError("the last complete line carries no hash")
    return Tail(sealed[1], newline + 1, size - newline - 1)


def last_hash_of_open(handle: BinaryIO, size: int) -> str:
    """The hash of the last line of an open log (GENESIS for an empty one).

    Raises ValueError when the last line carries no hash or is not terminated.
    """
    tail = read_tail(handle.fileno(), size)
    if tail.torn:
        raise ValueError("the last line is not terminated (a write was cut short)")
    return tail.head
