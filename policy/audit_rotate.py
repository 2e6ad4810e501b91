"""Rotating the decision log by size or age, with its hash chain going on across files.

When the live file (`decisions.jsonl`) reaches `audit_rotate_bytes`, or its first record
is older than `audit_rotate_age`, the writer that notices — holding the log's lock, as
every writer does — puts a new file in its place whose first line is a `log_rotated`
record chained to the old file's last line (`prev`), naming the old file by its new
name (`decisions.jsonl.000042.20261205T235200.123456Z`: a number, the chain's order
whatever the clock does, then the time) and its head. The swap never leaves
the path missing or empty: the new file is written aside first, the old one gets its
rotated name as a hard link, and the new one is renamed over the path. Writers that
held the old file notice at their next write (its inode is no longer the path's) and
follow. `audit_rotate_keep` rotated files are kept (oldest deleted first); unset, all.

`policy audit verify decisions.jsonl` proves the live file with its rotated files,
oldest first, as one chain (`policy.audit_verify.verify_set`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
from pathlib import Path

from policy._json_bytes import loads
from policy._lazy_dataclass import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

__all__ = [
    "ROTATED_EVENT",
    "Rotation",
    "first_record",
    "install",
    "prune",
    "rotated_files",
    "rotated_name",
    "started_at",
]

#: The event of the first record of a file that continues the chain of another.
ROTATED_EVENT = "log_rotated"


@dataclass(frozen=True, slots=True)
class Rotation:
    """When the live log is rotated, and how many rotated files are kept."""

    max_bytes: int | None = None
    max_age: float | None = None
    keep: int | None = None

    def due(self, size: int, adding: int, started: float | None, now: float) -> bool:
        """Whether a log of `size` bytes whose first record is from `started` must be
        rotated before `adding` more bytes are written to it."""
        if size == 0:
            return False
        if self.max_bytes is not None and size + adding > self.max_bytes:
            return True
        return self.max_age is not None and started is not None and now - started >= self.max_age


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(re.escape(name) + r"\.(\d{6,})\.\d{8}T\d{6}\.\d{6}Z$")


def _numbered(path: Path) -> list[tuple[int, str]]:
    pattern = _pattern(path.name)
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    found = []
    for name in names:
        match = pattern.match(name)
        if match is not None:
            found.append((int(match.group(1)), name))
    return sorted(found)


def rotated_name(path: Path, now: datetime) -> Path:
    """The name the live file at `path` takes when rotated at `now`: the next number
    of its rotated files (their order is the chain's, whatever the clock did), then
    the time, for people. A newest rotated name that is still the live file — left by
    a rotation cut off between its link and its rename — is taken back first."""
    numbered = _numbered(path)
    if numbered:
        newest = path.with_name(numbered[-1][1])
        with contextlib.suppress(OSError):
            if os.path.samefile(newest, path):
                newest.unlink()
                numbered.pop()
    number = numbered[-1][0] + 1 if numbered else 1
    from datetime import UTC  # (here: a log that rotates; a one-event hook's start has none)

    stamp = now.astimezone(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    return path.with_name(f"{path.name}.{number:06d}.{stamp}")


def rotated_files(path: Path) -> list[Path]:
    """The rotated files of the live log at `path`, oldest first (by their number)."""
    return [path.with_name(name) for _number, name in _numbered(path)]


def prune(path: Path, keep: int | None) -> list[Path]:
    """Delete all but the newest `keep` rotated files of `path`; those deleted."""
    if keep is None:
        return []
    files = rotated_files(path)
    gone = files[: max(0, len(files) - keep)]
    for old in gone:
        with contextlib.suppress(FileNotFoundError):
            old.unlink()
    return gone


def first_record(fd: int) -> dict[str, object] | None:
    """The first line of the open file `fd` as JSON (None: empty or not a record)."""
    head = os.pread(fd, 1 << 16, 0)
    line, newline, _ = head.partition(b"\n")
    if not newline:
        return None
    try:
        record = loads(line)
    except ValueError:  # (orjson's error, whoever read it)
        return None
    return record if isinstance(record, dict) else None


def started_at(record: dict[str, object] | None) -> float | None:
    """When a file's first record was written (its `ts`), in epoch seconds."""
    if record is None or not isinstance(record.get("ts"), str):
        return None
    from datetime import datetime

    try:
        return datetime.fromisoformat(str(record["ts"]).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def install(path: Path, rotated: Path, first_line: bytes) -> None:
    """Put a new live file holding `first_line` in place of the one at `path`, which
    keeps its bytes under the name `rotated`. The caller holds the log's lock; at no
    moment is the path missing or an empty file."""
    temporary = path.with_name(f".{path.name}.rotating-{os.getpid()}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    with contextlib.suppress(FileNotFoundError):
        temporary.unlink()  # left by a writer that died here
    fd = os.open(temporary, flags, 0o600)
    try:
        os.fchmod(fd, 0o600)
        view = memoryview(first_line)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    linked = False
    try:
        try:
            os.link(path, rotated)
            linked = True
        except OSError as exc:
            if exc.errno not in _NO_LINKS:
                raise  # (a name taken is not overwritten)
            # A file system without hard links: a moment without a live file, which a
            # writer opening the log then creates empty (and this rename replaces).
            os.rename(path, rotated)
        os.rename(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        if linked:  # the live file is not rotated after all: no second name for it
            with contextlib.suppress(OSError):
                rotated.unlink()
        raise
    _sync_directory(path.parent)


#: What `link` fails with on a file system without hard links.
_NO_LINKS = frozenset(
    {errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EMLINK, errno.ENOSYS, errno.EXDEV}
)


def _sync_directory(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
