"""Path normalisation and containment, lexically (no file system access).

Symlink resolution and per-call working directories arrive with issue C; until
then `normalize` resolves `~`, `.`, `..` and repeated slashes, and `within` is not
fooled by prefixes (`/srv/work2` is not inside `/srv/work`).
"""

from __future__ import annotations

import os
import posixpath

__all__ = ["normalize", "within"]


def normalize(path: str, cwd: str = "") -> str:
    """An absolute, normalised form of `path` (relative paths against `cwd`, if given)."""
    if "\x00" in path:
        raise ValueError("path contains a NUL byte")
    if path.startswith("~"):
        path = os.path.expanduser(path)
    if not path.startswith("/") and cwd:
        path = posixpath.join(cwd, path)
    normal = posixpath.normpath(path) if path else ""
    if normal.startswith("//"):
        normal = "/" + normal.lstrip("/")
    return normal


def within(path: str, root: str) -> bool:
    """True when `path` is `root` or below it, after normalising both."""
    p, r = normalize(path), normalize(root)
    if not p or not r:
        return False
    if r == "/":
        return p.startswith("/")
    return p == r or p.startswith(r + "/")
