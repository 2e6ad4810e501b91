"""`$HOME` as the process environment holds it, read the cheap way.

The path functions (`~` in a pattern, the folded root checks), the engines' memory of
their answers and the recalled answers' keys ask for it about thirty times a decision;
`os.environ.get` encodes the key and decodes the value at each.
"""

from __future__ import annotations

import os
from collections.abc import Callable

__all__ = ["home_variable"]


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
