"""Small helpers shared by CLI commands (standard library only)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO


def error(message: str) -> None:
    """Print `policy: message` to stderr."""
    sys.stderr.write(f"policy: {message}\n")
    sys.stderr.flush()


def pack_paths(paths: Iterable[str], configured: Iterable[Path], *also: Path) -> list[Path] | None:
    """The packs a command runs on: PATHS, else the `packs` setting. None, with the
    error printed, when there are none or one of them (or of `also`) does not exist."""
    packs = [Path(p) for p in paths] or list(configured)
    if not packs:
        error("no PATHS given and the packs setting is empty")
        return None
    missing = [str(p) for p in [*also, *packs] if not p.exists()]
    if missing:
        error(f"no such file or directory: {', '.join(missing)}")
        return None
    return packs


class ProgressBar:
    """Progress on a terminal's stderr (`policy replay`, `policy bench`), redrawn at
    most ten times a second; `label` says what is in progress."""

    def __init__(self, stream: IO[str], label: str) -> None:
        self._stream = stream
        self._label = label
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - self._last < 0.1:
            return
        self._last = now
        width = 30
        filled = width * done // max(total, 1)
        bar = f"[{'#' * filled}{'.' * (width - filled)}]"
        self._stream.write(f"\r{self._label} {bar} {done}/{total}")
        if done >= total:
            self._stream.write("\n")
        self._stream.flush()
