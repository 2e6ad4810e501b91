"""The capture: each decision's parts exactly as the host asked them, kept apart.

The decision log is masked and cut so it can be shared; `policy replay` needs the
calls whole (every argument, every identity field) and who asked. Those go here,
one JSON line per decision, into `<dir>/capture-YYYY-MM-DD.jsonl` (the UTC date of
the record), joined to the decision log by `decision_id` and `ts`:

    {"ts": "...", "decision_id": "...", "point": "before_tool",
     "parts": <policy.codec.parts_to_json(point, parts)>,
     "caller": {"principal": "...", "home": "...", "workspace": "..."}}

Capture holds secrets verbatim, so the directory is made 0700 and each file 0600
whatever the umask, a file is never opened through a symbolic link nor written when
another uid owns it, and files older than the retention are deleted: when a process
first opens a capture file, then at most once an hour (a directory listing). Only
names of the form `capture-YYYY-MM-DD.jsonl` are ever deleted. Each line is one
`write` under an exclusive `flock` (several hook processes append to one file); a
line cut short by a process killed mid-write is cut off by the next writer.

Imported only when capture is on (the decision path of an engine without it does
not load this module).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import fcntl
import os
import re
import stat
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from policy._owner_only import private_parents
from policy.codec import parts_to_json
from policy.digest import json_line
from policy.errors import AuditError
from policy.model import HookPoint

__all__ = ["DEFAULT_RETENTION", "CaptureLog", "capture_name", "read_capture"]

#: Seven days, in seconds: the default of `audit_capture_retention`.
DEFAULT_RETENTION = 7 * 86400.0

_NAME = re.compile(r"^capture-(\d{4}-\d{2}-\d{2})\.jsonl$")
_PRUNE_EVERY = 3600.0
_CHUNK = 1 << 16


def capture_name(ts: str) -> str:
    """The file a record stamped `ts` (ISO UTC, as the decision log writes it) goes to."""
    return f"capture-{ts[:10]}.jsonl"


def _private_dirs(directory: Path) -> None:
    """`directory` and its missing parents made 0700 whatever the umask; an existing
    one of ours that others may read or write is tightened. OSError propagates."""
    private_parents(directory / "capture")  # the directory itself, and above it
    info = os.lstat(directory)
    if stat.S_ISLNK(info.st_mode):
        raise AuditError(f"{directory}: the capture directory is a symbolic link; not using it")
    if not stat.S_ISDIR(info.st_mode):
        raise NotADirectoryError(errno.ENOTDIR, "not a directory", str(directory))
    if info.st_uid != os.geteuid():
        # Another user could plant tomorrow's file, or read and remove today's.
        raise AuditError(
            f"{directory}: the capture directory belongs to uid {info.st_uid}, not "
            f"{os.geteuid()}; not writing unmasked calls there"
        )
    mode = stat.S_IMODE(info.st_mode)
    if mode & (stat.S_ISVTX | 0o022):
        # A shared directory (/tmp): tightening it would break everyone else's use.
        raise AuditError(
            f"{directory}: the capture directory is writable by others; give "
            "audit_capture_dir a directory of its own"
        )
    if mode & 0o077:
        os.chmod(directory, mode & 0o700, follow_symlinks=False)


def _open_file(path: Path) -> int:
    """A capture file of this uid, created 0600, never through a symbolic link."""
    flags = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        fd = os.open(path, flags)
    else:
        os.fchmod(fd, 0o600)  # exactly, whatever the umask
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid() or info.st_nlink != 1:
        # A hard link would put unmasked calls in a file readable wherever its other
        # name lives (a link into a public directory keeps that file's mode).
        os.close(fd)
        raise AuditError(
            f"{path}: the capture file is not a regular file of uid {os.geteuid()} with "
            "one name; not writing to it"
        )
    if stat.S_IMODE(info.st_mode) != 0o600:
        os.fchmod(fd, 0o600)  # loosened since: tightened before anything is written
    return fd


def _cut_torn_tail(fd: int, size: int) -> int:
    """Cut bytes after the last newline (a line a killed writer left unfinished);
    returns the size after. Called under the lock."""
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return size
    end = size - 1
    while end > 0:
        start = max(0, end - _CHUNK)
        chunk = os.pread(fd, end - start, start)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            end = start + newline + 1
            break
        end = start
    os.ftruncate(fd, end)
    return end


def _write_all(fd: int, data: memoryview) -> None:
    while data:
        count = os.write(fd, data)
        if count == 0:  # no error, no progress: call it what it is likely to be
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        data = data[count:]


class CaptureLog:
    """Appends capture lines to `<directory>/capture-YYYY-MM-DD.jsonl`; thread-safe.

    `retention`: seconds a day's file is kept after its day ended (None: kept until
    deleted by hand)."""

    def __init__(self, directory: Path, retention: float | None = DEFAULT_RETENTION) -> None:
        self.directory = Path(directory)
        self.retention = retention
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._name = ""
        self._pruned_at: float | None = None
        self._closed = False

    def write(
        self,
        ts: str,
        decision_id: str,
        point: HookPoint,
        parts: tuple[Any, ...],
        caller: Mapping[str, str],
    ) -> None:
        """Append one record; AuditError when it cannot be written."""
        line = json_line(
            {
                "ts": ts,
                "decision_id": decision_id,
                "point": point.value,
                "parts": parts_to_json(point, parts),
                "caller": dict(caller),
            }
        )
        with self._lock:
            if self._closed:
                raise AuditError("the capture log is closed")
            try:
                fd = self._file_for(capture_name(ts))
                self._append(fd, line + b"\n")
            except AuditError:
                raise
            except OSError as exc:
                self._drop_file()
                where = exc.filename or self.directory / capture_name(ts)
                raise AuditError(f"{where}: cannot write capture: {exc.strerror}") from None

    def _file_for(self, name: str) -> int:
        if self._fd is not None and name == self._name:
            if time.monotonic() - (self._pruned_at or 0.0) >= _PRUNE_EVERY:
                self._prune()
            return self._fd
        self._drop_file()
        _private_dirs(self.directory)
        self._fd = _open_file(self.directory / name)
        self._name = name
        self._prune()
        return self._fd

    def _append(self, fd: int, data: bytes) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            size = _cut_torn_tail(fd, os.fstat(fd).st_size)
            try:
                _write_all(fd, memoryview(data))
            except OSError:
                with contextlib.suppress(OSError):  # else the next writer cuts it
                    os.ftruncate(fd, size)  # never leave a part of a line behind
                raise
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)

    def _prune(self) -> None:
        """Delete the dated files whose day ended more than `retention` ago."""
        self._pruned_at = time.monotonic()
        if self.retention is None:
            return
        now = _dt.datetime.now(_dt.UTC)
        try:
            oldest_kept = (now - _dt.timedelta(seconds=self.retention)).date()
        except OverflowError:
            return  # a retention longer than the calendar: nothing is ever old enough
        for entry in os.scandir(self.directory):
            match = _NAME.match(entry.name)
            if match is None or not entry.is_file(follow_symlinks=False):
                continue
            try:
                ended = _dt.date.fromisoformat(match[1]) + _dt.timedelta(days=1)
            except (ValueError, OverflowError):  # capture-9999-12-31.jsonl: no day of ours
                continue
            # The day's last record is at most its end: gone once that is too old.
            if ended <= oldest_kept and entry.name != self._name:
                try:
                    os.unlink(entry.path)
                except FileNotFoundError:
                    continue

    def _drop_file(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            self._name = ""
            with contextlib.suppress(OSError):
                os.close(fd)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._drop_file()


def read_capture(
    directory: Path, unreadable: Callable[[str], None] | None = None
) -> Iterator[dict[str, Any]]:
    """Every record in `directory`'s capture files, oldest day first, in file order.

    An unfinished last line (a writer killed mid-write) is skipped; any other line
    that is not a JSON object raises AuditError naming the file and line — or, with
    `unreadable`, is handed to it (that message) and skipped."""
    directory = Path(directory)
    try:
        names = sorted(
            entry.name
            for entry in os.scandir(directory)
            if _NAME.match(entry.name) and entry.is_file(follow_symlinks=False)
        )
    except OSError as exc:
        raise AuditError(f"{directory}: cannot read captures: {exc.strerror}") from None
    for name in names:
        path = directory / name
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise AuditError(f"{path}: cannot read capture: {exc.strerror}") from None
        lines = data.split(b"\n")
        last = len(lines) - 1  # the bytes after the last newline: "" or unfinished
        for number, line in enumerate(lines, start=1):
            if number - 1 == last or not line.strip():
                continue
            problem = ""
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                problem = f"{path}:{number}: not a capture record: {exc}"
            else:
                if not isinstance(record, dict):
                    problem = f"{path}:{number}: not a capture record: not an object"
            if problem:
                if unreadable is None:
                    raise AuditError(problem)
                unreadable(problem)
                continue
            yield record
