"""Keys the service reads from files (the inbox's session key, the webhooks' secrets):
only from a regular file the service's user (or root) owns, that nobody else may write
or read. Whoever reads one forges sessions or signatures; whoever writes one chooses
them."""

from __future__ import annotations

import os
import stat
from pathlib import Path

__all__ = ["read_secret"]


def read_secret(path: Path, setting: str) -> bytes:
    """A key from a file only the service's user (and root) may write and nobody else
    may read: the agent must not learn it, nor choose it. ValueError otherwise."""
    info = path.stat()
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{setting} {path}: not a regular file")
    if info.st_uid not in (0, os.geteuid()):
        raise ValueError(f"{setting} {path}: owned by uid {info.st_uid}, not by the service's")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH | stat.S_IROTH):
        raise ValueError(
            f"{setting} {path}: mode {info.st_mode & 0o777:04o}; "
            f"`chmod 600 {path}` (0640 for a group of the service's)"
        )
    return path.read_bytes().strip()
