"""Files only their owner may read: the stores that hold calls' arguments and counters.

The approval store holds arguments verbatim (an approver must see what will run), and
the shared state store holds who called what and how often; neither is anybody else's
business on a shared machine. Both are created 0600 inside a 0700 directory, whatever
the process umask says. SQLite gives its `-wal` and `-shm` files the database file's
own mode, so making the database file first is enough for all three.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["private_dir", "private_file", "private_parents"]

_DIR_MODE = 0o700
_FILE_MODE = 0o600


def private_dir(path: Path) -> None:
    """Create `path` (and missing parents) as 0700; tighten it if we own it and it is looser.

    A directory somebody else owns is left as it is: an operator who put the store in
    a shared directory chose so, and changing it is not ours to do. OSError propagates.
    """
    path.mkdir(mode=_DIR_MODE, parents=True, exist_ok=True)
    info = path.stat()
    if info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) & 0o077:
        path.chmod(stat.S_IMODE(info.st_mode) & ~0o077)


def private_file(path: Path) -> None:
    """Create `path` empty as 0600 unless it exists; tighten a file we own that is looser.

    Created with O_EXCL and O_NOFOLLOW, so a link planted at the path is not followed
    into somebody else's file. OSError propagates.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        descriptor = os.open(path, flags, _FILE_MODE)
    except FileExistsError:
        pass
    else:
        os.close(descriptor)
        return
    info = path.lstat()
    if stat.S_ISLNK(info.st_mode):
        raise OSError(f"{path} is a symbolic link; refusing to use it as a store")
    if info.st_uid == os.geteuid() and stat.S_IMODE(info.st_mode) & 0o077:
        path.chmod(_FILE_MODE)


def private_parents(path: Path) -> None:
    """Create the missing directories above `path` 0700, whatever the umask; the ones
    that already exist keep their modes (the decision log's and the capture's: a
    directory made meanwhile by somebody else is not ours to change)."""
    missing: list[Path] = []
    parent = path.parent
    while not os.path.lexists(parent):
        missing.append(parent)
        parent = parent.parent
    for directory in reversed(missing):
        try:
            os.mkdir(directory, _DIR_MODE)
        except FileExistsError:
            continue
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            os.fchmod(fd, _DIR_MODE)  # the umask may have taken the owner's bits too
        finally:
            os.close(fd)
