"""Private files that only this user could have written, and what may stand on them.

Processes that live for one event (Claude Code and Agentao start `policy hook` per
tool call) keep the results of slow, pure work on disk: compiled packs
(policy.packs.cache) and validated settings (policy._fast_settings). Both store
their entries here, under the same rules:

* an entry is read only when it is a regular file (not a symlink), owned by this
  process's effective user and writable by no one else, whose first line is the
  SHA-256 of the rest; anything else is a miss (`read_entry`);
* writes go to a private temporary file renamed into place, and a directory keeps
  its newest entries only (`write_entry`); a failure only means the next start does
  the work again;
* the packs' programs' answers (policy.packs.recall.AnswerStore) are one file of
  small records instead, read and appended on the same terms (`read_private`,
  `append_private`), each record checked by its reader; the shell lines' lexical
  facts (policy.packs.line_store) are entries of their own, a directory pruned past a
  slack (`write_entry(..., slack=)`);
* a key names the code that made an entry: the size and mtime of hookpolicy's own
  modules (`code_stamps`) and of the libraries involved (`package_stamps`), so an
  edited checkout or a reinstall never reads what older code wrote.

Trust in the file keeps other users out; it cannot keep out the user itself. So an
entry may only stand for inputs the user could change anyway (`user_controls`):
whatever the entry says, that user could have written.

Nothing here knows what an entry holds, and nothing here imports packs or settings:
both callers import this module, not each other. Nor does it import `pathlib` or
`hashlib`: the thin client of `policy serve` reads its settings' entry through here
(paths are whatever the `os` functions take; policy._hashes).
"""

from __future__ import annotations

import os
import stat
import sys

from policy._hashes import sha256
from policy._logger import logger

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

    #: A path as the `os` functions take it.
    PathLike = str | os.PathLike[str]

__all__ = [
    "KEEP",
    "MAX_ENTRY_BYTES",
    "SYSTEM",
    "FileAccess",
    "append_private",
    "code_stamps",
    "package_stamps",
    "read_entry",
    "read_private",
    "user_controls",
    "write_entry",
]

log = logger("policy.store")

#: Entries kept per directory; older ones are removed when a new one is written.
KEEP = 32
#: An entry larger than this is not read (10,000 rules take about 3 MB).
MAX_ENTRY_BYTES = 256 * 1024 * 1024
_SUFFIX = ".entry"
#: The `policy` package: `code_stamps` paths are relative to it.
_PACKAGE = os.path.dirname(os.path.realpath(__file__))


# ------------------------------------------------------------------ what made an entry


def _stamp(path: str) -> list[Any]:
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns]


def package_stamps(name: str) -> list[Any]:
    """Size and mtime of a package's top-level code files (a reinstall changes them),
    read once a process (`_PACKAGE_STAMPS`). Do not change the list."""
    stamps = _PACKAGE_STAMPS.get(name)
    if stamps is None:
        spec = _find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            raise OSError(f"package {name} not found")
        stamps = [name]
        for location in spec.submodule_search_locations:
            for entry in sorted(os.listdir(location)):
                if entry.endswith((".so", ".py", ".pyd")):
                    stamps.append([entry, *_stamp(os.path.join(location, entry))])
        _PACKAGE_STAMPS[name] = stamps
    return stamps


#: Each package's stamps, as this process first read them: the settings cache and the
#: pack cache both key their entries on pydantic's, PyYAML's (a hook's start read
#: them twice, ≈ 100 `stat`s), and the code a process runs is the code it first
#: found — a library upgraded on disk while it runs is not what it has loaded, so its
#: entries are keyed on what made them.
_PACKAGE_STAMPS: dict[str, list[Any]] = {}


def _find_spec(name: str) -> Any:
    """`importlib.util.find_spec(name)` for a top-level `name` not imported yet, asked of
    the import system's finders as that function asks them (without importing
    `importlib.util`, and `contextlib` with it)."""
    if name in sys.modules:
        module = sys.modules[name]
        return None if module is None else module.__spec__
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec = find(name, None) if find is not None else None
        if spec is not None:
            return spec
    return None


def code_stamps(sources: Iterable[str]) -> list[Any]:
    """Size and mtime of hookpolicy's own modules (paths relative to policy/)."""
    return [[name, *_stamp(os.path.join(_PACKAGE, name))] for name in sources]


# ------------------------------------------------------------------ who controls the inputs


class FileAccess:
    """What `user_controls` decides from: the effective user, and what it may do to a
    path. The system's answers by default; a separate object so that tests can pose as
    a user who may not write a file (they also run as root, to whom the system says
    yes to everything)."""

    def euid(self) -> int:
        """The user whose cache entries these are (`os.geteuid`)."""
        return os.geteuid()

    def may(self, path: PathLike, mode: int) -> bool:
        """`os.access` for the effective user (the one writing entries), not the real one."""
        return os.access(path, mode, effective_ids=_EFFECTIVE_IDS)


_EFFECTIVE_IDS = os.access in os.supports_effective_ids
#: The system's answers; what `load_packs` and the settings cache use.
SYSTEM = FileAccess()


def user_controls(
    path: PathLike, access: FileAccess = SYSTEM, *, directory: bool = False
) -> bool:
    """Whether the effective user could make `path` hold anything it likes.

    True for root, and for a path the user may write (a directory: write and search).
    Nothing else counts — not even a directory the user may write that holds the path:
    a read-only bind mount there (common for policy files in containers) cannot be
    unlinked or renamed, and an immutable or read-only-mounted file cannot be changed,
    so "the user could replace it" is not a fact the permission bits can prove. Being
    strict costs a compile; being lax would let a cache entry override a file the
    user cannot change. A path whose last part is `..` or empty is resolved first.
    """
    if access.euid() == 0:
        return True
    if _last_part(os.fspath(path)) in ("", ".."):
        path = os.path.realpath(path)
    return access.may(path, os.W_OK | (os.X_OK if directory else 0))


def _last_part(path: str) -> str:
    """What `Path(path).name` is: the last part but "." ("" for none, or the root)."""
    parts = [part for part in path.split("/") if part not in ("", ".")]
    return parts[-1] if parts else ""


# ------------------------------------------------------------------ entries


def _entry_path(directory: PathLike, key: str) -> str:
    return os.path.join(directory, f"{key}{_SUFFIX}")


def read_entry(directory: PathLike, key: str) -> bytes | None:
    """The body of entry `key`: None unless it is a private file of this user whose
    checksum line matches."""
    data = read_private(_entry_path(directory, key))
    if data is None:
        return None
    checksum, _, body = data.partition(b"\n")
    if sha256(body).hexdigest().encode() != checksum:
        log.debug("cache: entry %s in %s is damaged; ignored", key, directory)
        return None
    return body


def write_entry(
    directory: PathLike, key: str, body: bytes, *, keep: int = KEEP, slack: int = 0
) -> bool:
    """Write entry `key` atomically as a private file, then prune to the newest `keep`
    (with `slack`: only once more than `keep + slack` entries are there — listing the
    names is cheap, looking at every entry's age is not); whether it was written (a
    failure is otherwise ignored)."""
    data = sha256(body).hexdigest().encode() + b"\n" + body
    final = _entry_path(directory, key)
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
    except OSError as exc:
        log.debug("cache: cannot write %s: %s", final, exc)
        return False
    if not _replace_private(final, data):
        return False
    _prune(directory, keep, slack)
    return True


def append_private(path: PathLike, record: bytes, limit: int) -> None:
    """Append `record` to a private file of this user, made if missing. A file that is
    not private (another owner, a link, writable by others) is left alone; one that
    would pass `limit` bytes, or whose size is not a whole number of records (one was
    cut short), is started again, holding `record` alone (renamed into place). One
    `write` of a few bytes to a file opened for appending: records from processes
    writing at once do not interleave. Failures are ignored: what the file keeps is
    only ever work a process can do again."""
    try:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NO_SURPRISES, 0o600)
    except OSError as exc:
        log.debug("cache: cannot append to %s: %s", path, exc)
        return
    try:
        st = os.fstat(fd)
        if not _private(st):
            log.debug("cache: %s is not a private file of this user; not written", path)
            return
        if st.st_size + len(record) > limit or st.st_size % len(record):
            _replace_private(path, record)
            return
        os.write(fd, record)
    except OSError as exc:
        log.debug("cache: cannot append to %s: %s", path, exc)
    finally:
        os.close(fd)


def _replace_private(path: PathLike, data: bytes) -> bool:
    """Put `data` at `path` as a new private file, renamed into place (a link or a file
    there is replaced, never followed); False when it could not be."""
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, f".{name}.{os.getpid()}.{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(
            temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
        )
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except OSError as exc:
        log.debug("cache: cannot write %s: %s", path, exc)
        try:
            os.unlink(temporary)
        except OSError as gone:  # never made, or removed already
            log.debug("cache: %s not removed: %s", temporary, gone)
        return False
    return True


#: How a private file is opened: never through a link, and without blocking (a FIFO
#: planted at the path would block the open before `fstat` could refuse it; on a
#: regular file O_NONBLOCK changes nothing).
_NO_SURPRISES = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def _private(st: os.stat_result) -> bool:
    """A regular file of this process's effective user that nobody else may write."""
    return (
        stat.S_ISREG(st.st_mode)
        and st.st_uid == os.geteuid()
        and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def read_private(path: PathLike, limit: int = MAX_ENTRY_BYTES) -> bytes | None:
    """The bytes of a file only this user could have written, at most `limit` of them
    (a longer file is None, as is one that is not private: the caller's miss)."""
    try:
        fd = os.open(path, os.O_RDONLY | _NO_SURPRISES)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not _private(st) or st.st_size > limit:
            log.debug("cache: %s is not a private file of this user; ignored", path)
            return None
        chunks: list[bytes] = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _prune(directory: PathLike, keep: int, slack: int = 0) -> None:
    """Keep the newest `keep` entries; every edit of the inputs leaves one behind otherwise.
    With `slack`, nothing is done while at most `keep + slack` entries are there."""
    try:
        if slack:
            with os.scandir(directory) as scan:
                names = sum(1 for item in scan if item.name.endswith(_SUFFIX))
            if names <= keep + slack:
                return
        entries = []
        with os.scandir(directory) as scan:
            for item in scan:
                if item.name.endswith(_SUFFIX) and item.is_file(follow_symlinks=False):
                    st = item.stat(follow_symlinks=False)
                    if st.st_uid == os.geteuid():
                        entries.append((st.st_mtime_ns, item.path))
        entries.sort(reverse=True)
        for _, path in entries[keep:]:
            os.unlink(path)
    except OSError as exc:
        log.debug("cache: cannot prune %s: %s", directory, exc)
