"""What the analysis reads of the process's surroundings beyond a line's own text:
`$HOME` as the process environment holds it, read the cheap way, and whether the
account database was asked for a home (`~name`).

The path functions (`~` in a pattern, the folded root checks), the engines' memory of
their answers and the recalled answers' keys ask for `$HOME` about thirty times a
decision; `os.environ.get` encodes the key and decodes the value at each.

A line whose facts hold a home the account database gave is a fact about the database
as well as the line: the lexical facts kept for the next process
(policy.analysis.kept_lines) must not stand for it. The lookups are counted per thread
(`note_account_lookup`, `account_lookups`), so the analysis of one line can tell.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable

__all__ = ["account_lookups", "home_variable", "note_account_lookup"]


class _Lookups(threading.local):
    def __init__(self) -> None:
        self.count = 0


_lookups = _Lookups()


def note_account_lookup() -> None:
    """A home is being taken from the account database (`~name`, or `~` without
    `$HOME`), by this thread — answered from a memo or not."""
    _lookups.count += 1


def account_lookups() -> int:
    """How many homes this thread has taken from the account database so far."""
    return _lookups.count


def home_variable() -> str | None:
    """`os.environ.get("HOME")`, kept for as long as the environment holds the same
    object for it (setting HOME, even to the same text, replaces the object)."""
    data = _ENVIRON_DATA
    if data is None:  # (not CPython's os._Environ: asked the plain way)
        return os.environ.get("HOME")
    raw = data.get(_HOME_KEY)
    if raw is None:
        return None
    last = _last_home
    if last[0] is raw:
        return last[1]
    return _keep_home(raw)


def _keep_home(raw: object) -> str:
    global _last_home
    assert _DECODE is not None  # (`_ENVIRON_DATA` is None without it)
    value: str = _DECODE(raw)
    _last_home = (raw, value)  # (one tuple, replaced whole: any thread reads a whole one)
    return value


_data = getattr(os.environ, "_data", None)
_DECODE: Callable[[object], str] | None = getattr(os.environ, "decodevalue", None)
#: The dict `os.environ` keeps its encoded items in (None where it is not one).
_ENVIRON_DATA: dict[object, object] | None = (
    _data if type(_data) is dict and _DECODE is not None else None
)
_HOME_KEY: object = os.environ.encodekey("HOME") if hasattr(os.environ, "encodekey") else "HOME"
#: (the object os.environ held for HOME, its value)
_last_home: tuple[object, str] = (None, "")
