"""The decision log: one hash-chained JSON line per decision.

Each record is stamped (`ts`, ISO UTC) and rendered with orjson; the sink seals
each rendered line into the chain (see `audit_chain`) and writes it with one
`write` under an exclusive `flock`, so several processes can append to one file
(each `policy hook claude` is its own process) without forking the chain. The
pipeline is written out here rather than run through structlog, whose import
alone (≈ 75 ms) was most of a one-event hook's budget (docs/decisions/0011).

A log heals: a write that fails part way (full disk) is cut back by the writer
that made it; bytes after the last newline that stay behind anyway (a process
killed mid-write, a failed cut) are moved verbatim into a 0600 sidecar
`<log>.torn-<UTC time>` by the next writer, under the lock, and the chain goes on
with a `log_torn` record naming them. A new log is created 0600 and the
directories made for it 0700, whatever the umask.

Arguments are always masked: values under secret-looking keys, and
secret-looking substrings (tokens, keys, passwords in commands and URLs) inside
any string, become `***`, and long strings are cut, so the log stays safe to
share. The args digest is always of the real arguments. Each record also names
the call's `cwd` and the workspace the decision was made in (the engine's setting,
else the caller's through `policy serve`, as policy.facts chooses). What was asked,
whole, goes to the capture when it is on (`audit_capture_dir`, policy.audit_capture),
a line per decision with the same `ts` and `decision_id`.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import itertools
import os
import re
import sys
import threading
import time
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, BinaryIO

from policy import telemetry
from policy._hashes import sha256
from policy._owner_only import private_parents
from policy.analysis._lazy_re import LazyPattern, may_hold
from policy.audit_chain import GENESIS, TORN_EVENT, make_digest, read_tail, seal, sidecar_prefix
from policy.audit_rotate import ROTATED_EVENT, Rotation, first_record, started_at
from policy.digest import args_digest_and_size, json_line
from policy.errors import AuditError
from policy.facts import Caller, current_caller
from policy.model import Action, ContentKey, Decision, FrozenDict, HookPoint, ToolCall

if TYPE_CHECKING:
    from policy.audit_capture import CaptureLog
    from policy.model.payloads import (
        ApprovalDecision,
        LLMRequest,
        LLMResponse,
        Prompt,
        ToolResult,
    )

__all__ = [
    "MASK",
    "DecisionLog",
    "capture_settings",
    "context_fields",
    "cut",
    "mask_args",
    "mask_text",
    "new_decision_id",
]

MASK = "***"
_MAX_STRING = 256
_MAX_ITEMS = 64
_MAX_DEPTH = 8

_SECRET_KEY = LazyPattern(
    r"(?i)(passw(or)?d|passwd|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|"
    r"credential|authorization|cookie|session[-_]?key)"
)
#: What every match of `_SECRET_KEY` holds, lower-cased (`may_hold`): a name like
#: `command` or `file_path` is told apart without compiling the pattern.
_SECRET_KEY_WORDS = ("passw", "secret", "token", "key", "credential", "authorization", "cookie")


def secret_name(name: str) -> bool:
    """Whether an argument named `name` is masked whole in the log (`_SECRET_KEY`)."""
    return may_hold(name, _SECRET_KEY_WORDS) and _SECRET_KEY.search(name) is not None

# (prefix kept, secret masked) pairs, one alternation so each string is scanned once;
# compiled on first use: most logged texts hold none of `_SECRET_HINTS`, and a
# one-event hook need not pay ≈ 1 ms to compile it.
_NAME_WORDS = r"(?i:password|passwd|secret|token|api_?key|access_?key|private_?key)"
_SECRET_TEXT = LazyPattern(
    r"(?P<pem>-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$))"
    r"|(?P<aws>\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)"
    r"|(?P<gh>\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}))"
    r"|(?P<sk>\bsk-[A-Za-z0-9_-]{16,})"
    r"|(?P<slack>\bxox[abposr]-[A-Za-z0-9-]{10,})"
    r"|(?P<gapi>\bAIza[0-9A-Za-z_-]{35})"
    r"|(?P<jwt>\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
    r"|(?P<bearer_p>(?i:bearer)\s+)(?P<bearer>[A-Za-z0-9._~+/=-]{8,})"
    r"|(?P<url_p>://[^/\s:@]+:)(?P<url>[^@\s/]+)(?=@)"
    r"|(?P<flag_p>--?(?i:password|passwd|token|secret|api[-_]?key)[= ])(?P<flag>\S+)"
    # (a name holding one of the words, then `=` or `:`. Each part of the name around
    # the word is at most 1,024 characters: unbounded, each occurrence of the word in
    # a long name rescanned the rest of it -- 60 s for 160 KB of `token`. A longer
    # name is wider than the `_MAX_STRING` characters a record keeps, which it would
    # show as they are, so its value lies past them either way.)
    r"|(?P<assign_p>\b[A-Za-z0-9_]{0,1024}" + _NAME_WORDS + r"[A-Za-z0-9_]{0,1024}\s*[=:]\s*)"
    r"(?P<assign>\"[^\"]*\"|'[^']*'|[^\s;&|]+)"
)
_KEEP_PREFIX = {"bearer": "bearer_p", "url": "url_p", "flag": "flag_p", "assign": "assign_p"}


def _mask_match(match: re.Match[str]) -> str:
    for value_group, prefix_group in _KEEP_PREFIX.items():
        if match.group(value_group) is not None:
            return match.group(prefix_group) + MASK
    return MASK


#: Every match of `_SECRET_TEXT` holds one of these, in an ASCII text lowered: a text
#: with none of them is scanned once for all of them (≈ 1 µs) instead of trying the
#: eleven alternatives at each of its characters (≈ 10 µs for a command line).
_SECRET_HINTS = (
    "-----begin", "akia", "asia", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_",
    "sk-", "xox", "aiza", "eyj", "bearer", "://", "pass", "token", "secret", "api", "key",
)  # fmt: skip


def _may_hold_secret(text: str) -> bool:
    # (a text that is not ASCII is always scanned: case-insensitive matching relates
    # letters `lower()` does not, such as U+017F and s)
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(hint in lowered for hint in _SECRET_HINTS)


def mask_text(text: str, *, limit: int = _MAX_STRING) -> str:
    """Mask secret-looking substrings and cut the text to `limit` characters. A long
    text is masked only as far as the kept characters go (`_masked_head`): scanning a
    1 MiB URL whole took 250 ms for the 256 characters a record keeps. `+N chars`
    counts what was cut as the text has it past the part looked at."""
    if len(text) <= _SCANNED_WHOLE:
        masked = _SECRET_TEXT.sub(_mask_match, text) if _may_hold_secret(text) else text
        if len(masked) > limit:
            return f"{masked[:limit]}…(+{len(masked) - limit} chars)"
        return masked
    head, read = _masked_head(text, limit)
    cut_off = len(head) - limit + len(text) - read
    if cut_off <= 0:
        return head
    return f"{head[:limit]}…(+{cut_off} chars)"


#: The longest text masked with one `sub` over all of it (≈ 0.25 ms); a longer one is
#: masked from its start until `limit` characters are made.
_SCANNED_WHOLE = 1024


def _masked_head(text: str, limit: int) -> tuple[str, int]:
    """At least the first `limit` characters of `_SECRET_TEXT.sub(_mask_match, text)`
    (all of it when shorter), and how many characters of `text` they took. `sub` tries
    a match at each position in turn and goes on after each one; so does this, one
    position at a time, stopping once `limit` characters are made — a secret that
    begins among them is matched whole, however far it runs, and nothing past it is
    looked at."""
    match = _SECRET_TEXT.compiled.match
    pieces: list[str] = []
    made = read = 0
    end = len(text)
    while made < limit and read < end:
        found = match(text, read)
        if found is None:
            pieces.append(text[read])
            made += 1
            read += 1
        else:
            masked = _mask_match(found)
            pieces.append(masked)
            made += len(masked)
            read = found.end()
    return "".join(pieces), read


#: Values (strings, numbers, keys) one record's arguments keep: 64 items a level, 8
#: levels deep would otherwise let one call write 64^8 of them.
_MAX_VALUES = 1024


def _mask(value: Any, depth: int, left: list[int]) -> Any:
    """`value` masked and cut; `left` (a one-item list) is what the record may still
    hold — a value past it is written as `…`."""
    left[0] -= 1
    if left[0] < 0:
        return "…"
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, bool | int | float) or value is None:
        return value
    if depth >= _MAX_DEPTH:
        return "…"
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for index, (key, item) in enumerate(value.items()):
            if index >= _MAX_ITEMS or left[0] <= 0:
                out["…"] = f"+{len(value) - index} keys"
                break
            name = str(key)
            secret = secret_name(name)
            # A key is the caller's to choose too: cut, and masked where it holds one.
            out[mask_text(name)] = MASK if secret else _mask(item, depth + 1, left)
        return out
    if isinstance(value, list | tuple):
        items = []
        for index, item in enumerate(value[:_MAX_ITEMS]):
            if left[0] <= 0:
                items.append(f"…(+{len(value) - index} items)")
                break
            items.append(_mask(item, depth + 1, left))
        else:
            if len(value) > _MAX_ITEMS:
                items.append(f"…(+{len(value) - _MAX_ITEMS} items)")
        return items
    return mask_text(repr(value))


def mask_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `args` safe to log: secrets masked, long values cut."""
    masked = _mask(args, 0, [_MAX_VALUES])
    assert isinstance(masked, dict)
    return masked


def _now(tz: Any) -> Any:
    """`datetime.datetime.now(tz)`: the clock a rotated file and a torn log's sidecar are
    named by. `datetime` is imported here, for them only: a one-event hook does not
    rotate, and its records are stamped by `_stamp`."""
    import datetime

    return datetime.datetime.now(tz)


def _utc() -> Any:
    import datetime

    return datetime.UTC


def _stamp(ns: int | None = None) -> str:
    """A record's `ts`: `datetime.now(UTC).isoformat()` with `Z` for `+00:00` (the
    microseconds left out when they are none, as `isoformat` leaves them), written from
    `time` — importing `datetime` is ≈ 2 ms of a one-event hook's start."""
    global _last_second
    seconds, rest = divmod(time.time_ns() if ns is None else ns, 1_000_000_000)
    micro = rest // 1000
    last = _last_second
    if last[0] == seconds:
        day_time = last[1]  # (a second's records share their date and time: written once)
    else:
        t = time.gmtime(seconds)  # (fields, not strftime: `%Y` is not padded below 1000)
        day_time = (
            f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}"
            f"T{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
        )
        _last_second = (seconds, day_time)  # (one tuple, replaced whole: thread-safe)
    return f"{day_time}.{micro:06d}Z" if micro else f"{day_time}Z"


#: The last second `_stamp` wrote, and its text (none yet: no second is None).
_last_second: tuple[int | None, str] = (None, "")
_id_counter = itertools.count()
_id_prefix = int.from_bytes(os.urandom(3)) << 24
_next_id = _id_counter.__next__
_time_ns = time.time_ns


def new_decision_id() -> str:
    """Time-ordered, unique: ns timestamp, a per-process random prefix, a counter."""
    # 28 hex digits: 16 of time, 6 of prefix, 6 of counter; as one int, since
    # int -> bytes -> hex costs 0.3 µs where string formatting costs 0.5.
    return ((_time_ns() << 48) | _id_prefix | (_next_id() & 0xFFFFFF)).to_bytes(14).hex()


def _open_own(path: Path) -> BinaryIO:
    """An existing decision log of this process's own uid, never through a symbolic link.

    For a process that runs as somebody else than the agent (an approver, root): the
    log sits where the agent writes, so a link planted there, or a file the agent made,
    must not become a file this process writes — as root, any file on the machine.
    """
    flags = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        # Made here only in a directory nobody else may write (no link can race in).
        parent = os.lstat(path.parent)
        if parent.st_uid != os.geteuid() or parent.st_mode & 0o022:
            raise AuditError(
                f"{path}: no decision log there, and its directory is not this uid's alone; "
                "not creating one"
            ) from None
        fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
        os.fchmod(fd, 0o600)
    owner = os.fstat(fd).st_uid
    if owner != os.geteuid():
        os.close(fd)
        raise AuditError(
            f"{path}: the decision log belongs to uid {owner}, not to this process's "
            f"uid {os.geteuid()}; not writing to it"
        )
    return open(fd, "a+b", buffering=0, closefd=True)


def _open_log(path: Path) -> BinaryIO:
    """The decision log at `path`; a new one is created 0600 whatever the umask (an
    existing one keeps its mode)."""
    private_parents(path)
    flags = os.O_RDWR | os.O_APPEND | os.O_CLOEXEC
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        fd = os.open(path, flags | os.O_CREAT, 0o600)
    else:
        os.fchmod(fd, 0o600)
    return open(fd, "a+b", buffering=0, closefd=True)


#: The time rotation by age is judged in (a test moves it on).
_wall_clock = time.time

# The sink's system calls, looked up at each call so tests can make them fail.
_write = os.write
_truncate = os.ftruncate


def _write_all(fd: int, data: memoryview) -> None:
    while data:
        count = _write(fd, data)
        if count == 0:  # no error, no progress: call it what it is likely to be
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        data = data[count:]


def _copy_verbatim(source: int, start: int, stop: int, target: int) -> str:
    """Copy bytes `start`..`stop` of `source` to `target` and sync it; returns
    their SHA-256 (hex)."""
    digest = sha256()
    position = start
    while position < stop:
        chunk = os.pread(source, min(stop - position, 1 << 20), position)
        if not chunk:
            raise OSError(errno.EIO, "the torn tail vanished while it was copied")
        digest.update(chunk)
        _write_all(target, memoryview(chunk))
        position += len(chunk)
    os.fsync(target)
    return digest.hexdigest()


class _WriteFailed(AuditError):
    """Writing (not reading) the log failed: a full disk, a file-size limit."""


def _identity(fd: int) -> tuple[int, int]:
    held = os.fstat(fd)
    return held.st_dev, held.st_ino


#: Records waiting to be written with the next (`msg_with_next`), at most.
_MAX_QUEUED = 64


class _ChainedSink:
    """Seals each rendered record into the chain and writes it.

    Invariant: `_size` is -1 or the file's size when this sink last held the
    lock, and then `head` is the hash of the file's last line at that size; the
    sink never advances either past what is in the file.
    """

    def __init__(
        self,
        path: Path | None,
        stream: IO[Any] | None,
        key: bytes | None,
        own_file_only: bool = False,
        rotation: Rotation | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._own_file_only = own_file_only
        self._rotation = rotation
        #: When the open file's first record was written (for `audit_rotate_age`).
        self._started: float | None = None
        self._digest = make_digest(key)
        self._fd: int | None = None
        self._stream: IO[Any] | None = None
        self._closed = False
        #: `log_torn` records of tears moved aside whose record is not written yet.
        self._torn: list[bytes] = []
        #: Records to write with the next (`msg_with_next`), after the `log_torn` ones.
        self._queued: list[bytes] = []
        self.head = GENESIS
        if path is not None:
            try:
                self._file = _open_own(path) if own_file_only else _open_log(path)
            except OSError as exc:
                raise AuditError(f"{path}: cannot open decision log: {exc.strerror}") from None
            self._fd = self._file.fileno()
            #: (device, inode) of the file `_fd` holds.
            self._held = _identity(self._fd)
            self._path = path
            self._size = -1
            if rotation is not None:
                self._started = started_at(first_record(self._fd))
            # Read the chain's head now, so a damaged log stops the engine at start;
            # a torn tail is healed now (or, while the disk is full, at the first
            # write that succeeds: every decision is refused until then).
            try:
                with self._lock:
                    self._write_file(None)
            except _WriteFailed:
                pass
            except AuditError:
                self._file.close()
                raise
        else:
            self._stream = stream if stream is not None else sys.stderr

    def msg(self, body: bytes) -> None:
        with self._lock:
            if self._closed:
                raise AuditError("the decision log is closed")
            if self._fd is not None:
                self._write_file(body)
            else:
                self._write_stream(body)

    info = msg

    def msg_with_next(self, body: bytes) -> None:
        """Write `body` with the next record, sealed before it under the same lock and
        in the same write: the audit hook's record of a call goes with the call's
        decision (one lock and one write a decision, not two; to a stream, one write
        and one flush). Written now when `_MAX_QUEUED` records already wait (a log
        that cannot be written keeps what waits, and refuses the decisions that
        follow)."""
        with self._lock:
            if self._closed:
                raise AuditError("the decision log is closed")
            if len(self._queued) < _MAX_QUEUED:
                self._queued.append(body)
                return
        self.msg(body)

    def _write_file(self, body: bytes | None) -> None:
        """Append `body` sealed into the chain (None: only catch up with the file)."""
        fd = self._fd
        assert fd is not None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            raise AuditError(f"{self._path}: cannot lock decision log: {exc.strerror}") from None
        try:
            fd, size = self._following(fd)
            if size != self._size:
                # Another writer appended (or a write was cut short) since our last line.
                size = self._catch_up(fd, size)
            rotation = self._rotation
            if rotation is not None and self._started is None and size:
                self._started = started_at(first_record(fd))  # (a file new at our open)
            if (
                body is not None
                and rotation is not None
                and rotation.due(size, len(body) + 256, self._started, _wall_clock())
            ):
                fd, size = self._rotate(fd, size)
            if self._torn or self._queued:
                data, line_hash = self._seal_pending(body)
            elif body is None:
                self._size = size
                return
            else:
                line, line_hash = seal(body, self.head, self._digest)
                data = line + b"\n"
            written = _write(fd, data)
            if written != len(data):
                self._write_rest(fd, data, written, size)
            self._size = size + len(data)
            self.head = line_hash
            self._torn.clear()
            self._queued.clear()
        except _WriteFailed:
            self._size = -1
            raise
        except OSError as exc:
            self._size = -1
            raise _WriteFailed(f"{self._path}: cannot write decision log: {exc.strerror}") from None
        except ValueError as exc:
            self._size = -1
            raise AuditError(
                f"{self._path}: cannot continue the hash chain: {exc}; "
                "run `policy audit verify` and move the damaged file aside"
            ) from None
        finally:
            if self._fd is not None:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _following(self, fd: int) -> tuple[int, int]:
        """The file now at the log's path, locked (`fd` when it still is that file),
        and its size: after another writer rotated the log, the next line goes to the
        new file. (One `stat` of the path: the file held is known by its device and
        inode, which stay its own while it is open; its size is the path's, locked.)"""
        while True:
            try:
                at_path = os.stat(self._path)
            except OSError as exc:
                raise AuditError(
                    f"{self._path}: the decision log is gone: {exc.strerror}"
                ) from None
            if (at_path.st_dev, at_path.st_ino) == self._held:
                return fd, at_path.st_size
            try:
                file = _open_own(self._path) if self._own_file_only else _open_log(self._path)
            except OSError as exc:
                problem = exc.strerror
                raise AuditError(f"{self._path}: cannot open decision log: {problem}") from None
            new = file.fileno()
            fcntl.flock(new, fcntl.LOCK_EX)
            fcntl.flock(fd, fcntl.LOCK_UN)
            self._file.close()
            self._file, self._fd, fd = file, new, new
            self._held = _identity(new)
            self._size = -1
            self._started = started_at(first_record(fd))

    def _rotate(self, fd: int, size: int) -> tuple[int, int]:
        """Put a new live file in place, its first line a `log_rotated` record chained
        to this file's last (audit_rotate); the new file, locked, and its size."""
        from policy.audit_rotate import install, prune, rotated_name

        assert self._rotation is not None
        now = _now(_utc())
        rotated = rotated_name(self._path, now)
        record = {
            "previous": rotated.name,
            "previous_head": self.head,
            "previous_bytes": size,
        }
        ts = now.isoformat().replace("+00:00", "Z")
        body = _render(None, "info", {"record": record, "event": ROTATED_EVENT, "ts": ts})
        line, _ = seal(body, self.head, self._digest)
        install(self._path, rotated, line + b"\n")
        fd, size = self._following(fd)
        size = self._catch_up(fd, size)
        self._size = size
        prune(self._path, self._rotation.keep)
        return fd, size

    def _catch_up(self, fd: int, size: int) -> int:
        """Read the head from the file's last complete line; move a torn tail aside.
        Returns the file's size after."""
        try:
            tail = read_tail(fd, size)
        except OSError as exc:
            raise AuditError(f"{self._path}: cannot read decision log: {exc.strerror}") from None
        self.head = tail.head
        if tail.torn:
            self._move_aside(fd, tail.end, size)
            return tail.end
        return size

    def _move_aside(self, fd: int, end: int, size: int) -> None:
        """Copy bytes `end`..`size` verbatim into a new 0600 sidecar (synced), cut the
        log back to `end`, and queue the `log_torn` record that names them."""
        now = _now(_utc())
        name = f"{sidecar_prefix(self._path.name)}{now.strftime('%Y%m%dT%H%M%S.%fZ')}"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        for attempt in itertools.count(1):
            sidecar = self._path.with_name(name if attempt == 1 else f"{name}-{attempt}")
            try:
                side = os.open(sidecar, flags, 0o600)
                break
            except FileExistsError:
                if attempt >= 100:
                    raise
        try:
            try:
                os.fchmod(side, 0o600)  # exactly, whatever the umask
                digest = _copy_verbatim(fd, end, size, side)
            finally:
                os.close(side)
            _truncate(fd, end)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(sidecar)  # nothing was moved
            raise
        self._torn.append(
            _render(
                None,
                "info",
                {
                    "record": {
                        "sidecar": sidecar.name,
                        "offset": end,
                        "length": size - end,
                        "sha256": digest,
                    },
                    "event": TORN_EVENT,
                    "ts": now.isoformat().replace("+00:00", "Z"),
                },
            )
        )

    def _seal_pending(self, body: bytes | None) -> tuple[bytes, str]:
        """The records waiting (`log_torn` records, records written with the next),
        then `body`, sealed as consecutive lines."""
        head = self.head
        lines = []
        waiting = [*self._torn, *self._queued]
        for item in [*waiting, body] if body is not None else waiting:
            line, head = seal(item, head, self._digest)
            lines.append(line)
        lines.append(b"")
        return b"\n".join(lines), head

    def _write_rest(self, fd: int, data: bytes, written: int, size: int) -> None:
        """Finish a short write, still under the lock (so no other writer's line can
        come between); if it fails, cut this write's bytes back off (they were never a
        record) and raise. If even that fails, the next writer moves them aside."""
        try:
            _write_all(fd, memoryview(data)[written:])
        except OSError:
            with contextlib.suppress(OSError):
                _truncate(fd, size)
            raise

    def _write_stream(self, body: bytes | None) -> None:
        """Write what waits and `body` (None: only what waits) to the stream."""
        stream = self._stream
        assert stream is not None
        data, line_hash = self._seal_pending(body)
        if not data:
            return
        try:
            buffer = getattr(stream, "buffer", None)
            if buffer is not None:
                buffer.write(data)
                buffer.flush()
            else:
                stream.write(data.decode())
                stream.flush()
        except (OSError, ValueError) as exc:
            raise AuditError(f"cannot write decision log to stream: {exc}") from None
        self.head = line_hash
        self._torn.clear()
        self._queued.clear()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._torn or self._queued:
                # (a call's record whose decision never came: written if it can be;
                # one that cannot was of a call refused for want of its log)
                with contextlib.suppress(AuditError):
                    if self._fd is not None:
                        self._write_file(None)
                    else:
                        self._write_stream(None)
            if self._fd is not None:
                self._file.close()
                self._fd = None


def _render(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> bytes:
    """orjson renderer: `ts` and `event` first, then the record, then anything else.

    Keeps the signature of the structlog processor it was, so the rendered bytes
    (and so every hash in existing logs' chains) stay the same.
    """
    record = event_dict.pop("record", None) or {}
    ts = event_dict.pop("ts", None)
    event = event_dict.pop("event", None)
    # Integers beyond 64 bits, lone surrogates, non-string keys: logged anyway.
    return json_line({"ts": ts, "event": event, **record, **event_dict})


#: Default of `audit_capture_retention` (seven days, in seconds); policy.audit_capture
#: holds the same number, and is not imported unless capture is on.
CAPTURE_RETENTION = 7 * 86400.0

_capture_args_warned = False


def capture_settings(
    capture_dir: Path | None,
    retention: float | None,
    *,
    capture_args: bool,
    data_dir: Path,
) -> tuple[Path | None, float | None]:
    """Where capture goes and how long it is kept, from the settings.

    `audit_capture_args: true` (deprecated) once wrote unmasked arguments into the
    decision log; now, without `audit_capture_dir`, it turns capture on in
    `<data_dir>/capture`, and says so once per process."""
    global _capture_args_warned
    if capture_dir is not None or not capture_args:
        return capture_dir, retention
    directory = data_dir / "capture"
    if not _capture_args_warned:
        _capture_args_warned = True
        import logging

        logging.getLogger(__name__).warning(
            "audit_capture_args is deprecated: the decision log is masked now; "
            "full arguments go to %s (set audit_capture_dir instead)",
            directory,
        )
    return directory, retention


def rotation_of(settings: Any) -> Rotation | None:
    """When the decision log of `settings` rotates (`audit_rotate_*`); None: never."""
    size, age = settings.audit_rotate_bytes, settings.audit_rotate_age
    if size is None and age is None:
        return None
    return Rotation(max_bytes=size, max_age=age, keep=settings.audit_rotate_keep)


def _payload_fields(subject: object) -> dict[str, Any]:
    """What a decision's record says of a request to the model, its response or a
    prompt: their sizes, the model, and the prompt masked."""
    from policy.model.payloads import LLMRequest, LLMResponse, Prompt

    if isinstance(subject, LLMRequest):
        return {
            "model": cut(subject.model),
            "messages": len(subject.messages),
            "tools": len(subject.tools),
        }
    if isinstance(subject, LLMResponse):
        return {
            "model": cut(subject.model),
            "content_chars": len(subject.content),
            "tool_calls": len(subject.tool_calls),
        }
    if isinstance(subject, Prompt):
        return {"prompt_chars": len(subject.text), "prompt": mask_text(subject.text)}
    return {}


class DecisionLog:
    """Writes decision records; thread-safe; one instance per engine."""

    def __init__(
        self,
        *,
        path: Path | None = None,
        stream: IO[Any] | None = None,
        key: bytes | None = None,
        own_file_only: bool = False,
        workspace: str | None = None,
        capture_dir: Path | None = None,
        capture_retention: float | None = CAPTURE_RETENTION,
        rotation: Rotation | None = None,
    ) -> None:
        """`own_file_only`: write `path` only if it exists, is no symbolic link and belongs
        to this process's uid (AuditError otherwise) — for processes that are not the
        agent writing where the agent can (`policy approvals`). `workspace`: the
        engine's (`settings.workspace`), recorded when no caller names one.
        `capture_dir`: also write what each decision was asked, whole, there
        (policy.audit_capture), kept `capture_retention` seconds. `rotation`: when
        the file at `path` gives way to a new one (policy.audit_rotate)."""
        self.workspace = workspace or ""
        self._capture: CaptureLog | None = None
        if capture_dir is not None:
            from policy.audit_capture import CaptureLog

            self._capture = CaptureLog(capture_dir, capture_retention)
        self._sink = _ChainedSink(path, stream, key, own_file_only, rotation)

    @property
    def head(self) -> str:
        """Hash of the last line this log wrote (or found at the end of its file)."""
        return self._sink.head

    def write(self, event: str, record: Mapping[str, Any], *, ts: str | None = None) -> None:
        """Append one record; raises AuditError when it cannot be written.

        The record is not copied into keyword arguments: expanding thirty keys
        twice cost 6 µs a decision.
        """
        if ts is None:
            ts = _stamp()
        self._sink.msg(_render(None, "info", {"record": record, "event": event, "ts": ts}))

    def write_with_next(self, event: str, record: Mapping[str, Any]) -> None:
        """Append one record with the next one written (`_ChainedSink.msg_with_next`):
        its own `ts`, sealed before the next in the chain."""
        ts = _stamp()
        self._sink.msg_with_next(
            _render(None, "info", {"record": record, "event": event, "ts": ts})
        )

    def close(self) -> None:
        try:
            self._sink.close()
        finally:
            if self._capture is not None:
                self._capture.close()

    @property
    def capturing(self) -> bool:
        """Whether decisions are also captured whole (`audit_capture_dir`)."""
        return self._capture is not None

    def _write_decision(
        self,
        point: HookPoint,
        decision_id: str,
        fields: Mapping[str, Any],
        asked: tuple[Any, ...] | None,
        caller: Caller | None,
    ) -> None:
        """The capture line (when capture is on), then the record; one `ts` for both.
        The capture goes first: a decision whose capture fails is refused, with no
        record saying it was decided otherwise."""
        ts = _stamp()
        if self._capture is not None and asked is not None:
            self._capture.write(ts, decision_id, point, asked, self._caller(caller))
        started = time.perf_counter_ns()
        self.write("decision", fields, ts=ts)
        telemetry.LOG_WRITE_SECONDS.observe_ns(time.perf_counter_ns() - started)
        # counted once written: the counters are the log's `decision` records
        telemetry.DECISIONS.inc(point.value, fields["action"], fields["hook"] or "")

    def _caller(self, caller: Caller | None) -> dict[str, str]:
        fields: dict[str, str] = {}
        if caller is not None:
            if caller.principal:
                fields["principal"] = caller.principal
            if caller.home:
                fields["home"] = caller.home
        # The workspace the decision was made in, as policy.facts chooses it: the
        # engine's setting first, else the one the caller names.
        if self.workspace:
            fields["workspace"] = self.workspace
        elif caller is not None and caller.workspace:
            fields["workspace"] = caller.workspace
        return fields

    # ------------------------------------------------------------ record builders

    def decision(
        self,
        point: HookPoint,
        decision: Decision,
        *,
        subject: ToolCall | LLMRequest | LLMResponse | Prompt,
        result: ToolResult | None = None,
        latency_ns: int,
        packs: Mapping[str, str],
        asked: tuple[Any, ...] | None = None,
    ) -> None:
        """Log `decision`; `asked` is the point's parts as the host asked them (before
        any hook rewrote them), which the capture keeps whole."""
        fields: dict[str, Any] = {
            "decision_id": decision.decision_id,
            "point": point.value,
            "action": decision.action.value,
            "reason": cut(decision.reason, _MAX_REASON),
            "hook": decision.hook,
            "rule_ids": decision.rule_ids,
        }
        caller = current_caller()
        fields.update(context_fields(subject, self.workspace, caller))
        if isinstance(subject, ToolCall):
            fields.update(self._tool_fields(subject))
            if point is HookPoint.BEFORE_TOOL:
                fields["needs_approval"] = decision.needs_approval
                fields["respond"] = decision.action is Action.RESPOND
                if asked and _rewritten(asked[0], subject):
                    # The record shows the call as a hook rewrote it (whatever decided
                    # after): not the call asked, which `policy replay` must know.
                    fields["rewritten"] = True
                if decision.allowed_by is not None:
                    # A hosted hook's `allow`, passed on to the host: whose promise it is.
                    fields["allowed_by"] = decision.allowed_by
        else:
            fields.update(_payload_fields(subject))
        if result is not None:
            fields["result"] = _result_fields(result)
        if decision.result is not None and point is HookPoint.BEFORE_TOOL:
            fields["result"] = _result_fields(decision.result)
        fields["enforcement"] = "audit" if decision.would_action is not None else "enforce"
        if decision.would_action is not None:
            fields["would_action"] = decision.would_action.value
        if decision.failure:
            fields["failure"] = decision.failure
        if decision.ignored:
            fields["ignored"] = decision.ignored
        fields["packs"] = packs
        fields["latency_us"] = round(latency_ns / 1000, 1)
        self._write_decision(point, decision.decision_id, fields, asked, caller)
        telemetry.DECISION_SECONDS.observe_ns(latency_ns)

    def approval(
        self,
        call: ToolCall,
        answer: ApprovalDecision,
        *,
        latency_ns: int,
        packs: Mapping[str, str],
        capture: bool = True,
    ) -> None:
        """Log an approver's answer about `call` (captured with it, unless `capture` is
        False: the refusal that follows a capture that failed)."""
        fields: dict[str, Any] = {
            "decision_id": answer.decision_id,
            "point": HookPoint.APPROVE_TOOL.value,
            "action": Action.CONTINUE.value if answer.approved else Action.DENY_TOOL.value,
            "reason": cut(answer.reason, _MAX_REASON),
            "hook": answer.hook,
            "rule_ids": (),
        }
        caller = current_caller()
        fields.update(context_fields(call, self.workspace, caller))
        fields.update(self._tool_fields(call))
        fields["approval"] = {
            "approved": answer.approved,
            "approver": answer.approver,
            "waited_ms": round(answer.waited_ms, 1),
        }
        fields["enforcement"] = "enforce"
        fields["packs"] = packs
        fields["latency_us"] = round(latency_ns / 1000, 1)
        point = HookPoint.APPROVE_TOOL
        asked = (call,) if capture else None
        self._write_decision(point, answer.decision_id, fields, asked, caller)
        telemetry.APPROVALS.inc("approved" if answer.approved else _ending(answer.failure))

    def _tool_fields(self, call: ToolCall) -> dict[str, Any]:
        return {
            "tool": cut(call.tool),
            "tool_raw": cut(call.tool_raw),
            "call_id": cut(call.call_id),
            "args_digest": digested_args(call.args)[0],
            "args": _masked_args(call.args),
        }


def digested_args(args: Mapping[str, Any]) -> tuple[str, int]:
    """(`args_digest`, bytes of the canonical JSON) of a call's arguments, kept for the
    last ones seen when they cannot change (frozen whole, `FrozenDict`) — the audit
    hook's record of a call and the call's decision each record its digest — and by
    their contents when they are small and flat (`FrozenDict.content_key`): an agent
    repeats its calls, each a new mapping."""
    global _last_args
    last = _last_args
    if last[0] is args:
        return last[1], last[2]
    if type(args) is not FrozenDict:
        return args_digest_and_size(args)
    key = args.content_key()
    kept = _digested.get(key) if key is not None else None
    found = kept if kept is not None else args_digest_and_size(args)
    if key is not None and kept is None:
        if len(_digested) >= _MASKED_KEPT:
            _digested.clear()  # (one call: safe while another thread reads)
        _digested[key] = found
    _last_args = (args, *found)  # (replaced whole: any thread reads a whole one)
    return found


#: (the frozen arguments last digested, their digest, their size)
_last_args: tuple[object, str, int] = (None, "", 0)


def _masked_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """`mask_args(args)`, kept by the arguments' contents when they are small and flat
    (`FrozenDict.content_key`): an agent repeats its calls, and masking scans every
    string for secrets. The kept dicts are only ever rendered."""
    key = args.content_key() if type(args) is FrozenDict else None
    if key is None:
        return mask_args(args)  # (a file's whole content is not kept as a key)
    masked = _masked.get(key)
    if masked is None:
        masked = mask_args(args)
        if len(_masked) >= _MASKED_KEPT:
            _masked.clear()  # (one call: safe while another thread reads)
        _masked[key] = masked
    return masked


_masked: dict[ContentKey, dict[str, Any]] = {}
_digested: dict[ContentKey, tuple[str, int]] = {}
_MASKED_KEPT = 1024


def forget_masked() -> None:
    """Forget the masked arguments kept, so the next call costs what a call never seen
    costs (what `policy bench` and tests/bench measure); and their digests."""
    _masked.clear()
    _digested.clear()


def _ending(failure: str | None) -> str:
    """How a request that was not approved ended, for the approvals counter."""
    return {"timeout": "expired", "abandoned": "abandoned"}.get(failure or "", "denied")


#: Longest reason a record keeps whole (a hosted hook's reason is its own to choose).
_MAX_REASON = 4096


def cut(text: str, limit: int = _MAX_STRING) -> str:
    """`text`, cut to `limit` characters: what the caller names (a session, a channel, a
    tool) is the caller's to choose, and a log line must not grow with it."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}…(+{len(text) - limit} chars)"


_NO_CALLER = Caller()


def _rewritten(asked: Any, logged: ToolCall) -> bool:
    if asked is logged or not isinstance(asked, ToolCall):
        return False
    return asked.args != logged.args or asked.tool != logged.tool


def context_fields(
    subject: ToolCall | LLMRequest | LLMResponse | Prompt,
    workspace: str = "",
    caller: Caller | None = _NO_CALLER,
) -> dict[str, Any]:
    """Who asked, from where, as every record names it: the call's own fields (cut),
    the workspace the decision was made in, as policy.facts chooses it — `workspace`
    (the engine's setting), else the caller's (`policy serve`), else no key — and,
    through `policy serve`, the principal the kernel or a token named. `caller`:
    `current_caller()`, when the record's builder has it."""
    fields = {
        "host": cut(subject.host),
        "session": cut(subject.session),
        "sender": cut(subject.sender),
        "channel": cut(subject.channel),
        "chat_id": cut(subject.chat_id),
        "agent": cut(subject.agent),
        "turn": cut(subject.turn),
        "cwd": cut(subject.cwd),
    }
    if caller is _NO_CALLER:
        caller = current_caller()
    if workspace:
        fields["workspace"] = cut(workspace)
    elif caller is not None and caller.workspace:
        fields["workspace"] = cut(caller.workspace)
    if caller is not None and caller.home:
        fields["home"] = cut(caller.home)  # what `~` meant for this caller
    if caller is not None and caller.principal:
        # `policy serve`: who the kernel or a token says asked, and a TCP caller's address.
        fields["principal"] = caller.principal
        if caller.peer:
            fields["peer"] = caller.peer
    return fields


def _result_fields(result: ToolResult) -> dict[str, Any]:
    return {
        "is_error": result.is_error,
        "for_llm_chars": len(result.for_llm),
        "for_user_chars": len(result.for_user),
        "duration_ms": round(result.duration * 1000, 3),
    }
