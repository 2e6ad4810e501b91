"""Whose permissions the analysis looks at the disk with.

The analysis looks at the disk to judge a call: it follows links (`paths.resolve`),
expands globs, reads a repository's git config. In a hook that is the agent's own
process, so it sees what the agent sees. `policy serve` decides for other users' hooks
and runs as a user of its own, who may see what the agent may not: answering about a
file the agent cannot reach (allowed, denied as a credential, a link followed into
`/etc/shadow`) tells the agent what is there. So while deciding for another uid the
analysis looks with that uid's permissions (`looking_as`): a directory the agent could
not search, or a file it could not read, is one the analysis cannot inspect either —
which resolving treats as "cannot be judged" (a denial) and a git config as absent (git,
run by the agent, could not read it either).

The check follows the mode bits the kernel checks first: owner, then group (the uid's
groups from the group database), then others; root passes. ACL entries beyond the mode
bits are not read.
"""

from __future__ import annotations

import contextlib
import functools
import os
import posixpath
import stat
from collections.abc import Iterator
from contextvars import ContextVar

from policy._lazy_dataclass import dataclass, field

__all__ = [
    "Viewer",
    "looking_as",
    "may_list",
    "may_read",
    "may_search",
    "may_search_physical",
]

_SEARCH, _READ = 1, 4
#: Directories and files whose mode one viewer remembers (one decision rarely needs many).
_REMEMBERED = 4096


@dataclass(frozen=True, slots=True)
class Viewer:
    """A uid and its groups, with what it was found to be allowed so far."""

    uid: int
    groups: frozenset[int]
    _seen: dict[tuple[str, int], bool] = field(default_factory=dict, compare=False)

    def allows(self, path: str, want: int) -> bool:
        """Whether this uid may `want` (search or read) `path` itself (links followed)."""
        key = (path, want)
        found = self._seen.get(key)
        if found is None:
            try:
                info = os.stat(path)
            except OSError:
                found = False
            else:
                found = self._by_mode(info, want)
            if len(self._seen) >= _REMEMBERED:
                self._seen.clear()
            self._seen[key] = found
        return found

    def _by_mode(self, info: os.stat_result, want: int) -> bool:
        if self.uid == 0:
            # Root passes the read and search checks (execute needs one x bit; not asked).
            return True
        mode = stat.S_IMODE(info.st_mode)
        if info.st_uid == self.uid:
            return bool(mode & (want << 6))
        if info.st_gid in self.groups:
            return bool(mode & (want << 3))
        return bool(mode & want)

    def reaches(self, path: str) -> bool:
        """Whether this uid may search every directory above `path` (absolute)."""
        directory = posixpath.dirname(path.rstrip("/") or "/")
        parts = [part for part in directory.split("/") if part]
        here = "/"
        if not self.allows(here, _SEARCH):
            return False
        for part in parts:
            here = posixpath.join(here, part)
            if not self.allows(here, _SEARCH):
                return False
        return True


@functools.lru_cache(maxsize=256)
def _groups_of(uid: int) -> frozenset[int]:
    import pwd

    try:
        entry = pwd.getpwuid(uid)
    except KeyError:
        return frozenset()
    return frozenset(os.getgrouplist(entry.pw_name, entry.pw_gid))


_viewer: ContextVar[Viewer | None] = ContextVar("policy_viewer", default=None)


@contextlib.contextmanager
def looking_as(uid: int | None) -> Iterator[None]:
    """Within this block (and the threads it hands work to with its context), look at
    the disk as `uid` would; None (or this process's own uid): as this process."""
    viewer = None if uid is None or uid == os.geteuid() else Viewer(uid, _groups_of(uid))
    token = _viewer.set(viewer)
    try:
        yield
    finally:
        _viewer.reset(token)


def may_search_physical(directory: str) -> bool:
    """Whether the viewer may look up names in `directory`, a path with no symbolic
    links in it (what `paths.resolve` has walked so far): every directory above it, and
    it, searchable."""
    viewer = _viewer.get()
    return viewer is None or (viewer.reaches(directory) and viewer.allows(directory, _SEARCH))


def _may(path: str, *wants: int) -> bool:
    """Whether the viewer may do each of `wants` to `path` (absolute), reached as the
    kernel reaches it: links followed, the viewer's permissions checked on every
    directory it passes through (`paths.resolve`, which fails for one it may not
    search). Checking the written path's prefixes instead would let a link the agent
    made (`/tmp/l -> /root/secret`) carry it past a directory it may not search."""
    viewer = _viewer.get()
    if viewer is None:
        return True
    from policy.analysis import paths

    try:
        real = paths.resolve(path)
    except paths.UnsafePathError:
        return False
    return all(viewer.allows(real, want) for want in wants)


def may_search(directory: str) -> bool:
    """Whether the viewer may look up names in `directory` (absolute; links followed)."""
    return _may(directory, _SEARCH)


def may_list(directory: str) -> bool:
    """Whether the viewer may list `directory` (absolute; links followed)."""
    return _may(directory, _SEARCH, _READ)


def may_read(path: str) -> bool:
    """Whether the viewer may open `path` (absolute; links followed) for reading."""
    return _may(path, _READ)
