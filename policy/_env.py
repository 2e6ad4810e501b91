"""Where hookpolicy's configuration comes from in the process environment.

The variables' prefix, the config-file variable and the default data directory are
read by the pydantic settings, by their pydantic-free twin (`policy._fast_settings`)
and by what protects the policy's own files; one home, so the three cannot drift.
`$HOME` is read here too, for the path functions that ask it at every call.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CONFIG_ENV", "ENV_PREFIX", "default_data_dir", "home_variable"]

#: Every setting's variable starts with this (`POLICY_PACKS`, `POLICY_AUDIT_PATH`).
ENV_PREFIX = "POLICY_"
#: The variable naming the YAML settings file.
CONFIG_ENV = "POLICY_CONFIG"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "hookpolicy"


def home_variable() -> str | None:
    """`os.environ.get("HOME")`, for the path functions and the recalled answers' keys
    that ask it about thirty times a decision: reading `os.environ` encodes the key and
    decodes the value every time, so the value is kept for as long as the environment
    holds the same object for it (setting HOME, even to the same text, replaces it)."""
    data = _ENVIRON_DATA
    if data is None:  # (not CPython's os._Environ: asked the plain way)
        return os.environ.get("HOME")
    raw = data.get(_HOME_KEY)
    last = _last_home
    if last[0] is raw and raw is not None:
        return last[1]
    return _keep_home(raw)


def _keep_home(raw: object) -> str | None:
    global _last_home
    value = os.environ.get("HOME")
    if raw is not None:
        _last_home = (raw, value)
    return value


_data = getattr(os.environ, "_data", None)
#: The dict `os.environ` keeps its encoded items in (None where it is not one).
_ENVIRON_DATA: dict[object, object] | None = _data if type(_data) is dict else None
_HOME_KEY: object = os.environ.encodekey("HOME") if hasattr(os.environ, "encodekey") else "HOME"
#: (the object os.environ held for HOME, its value): one tuple, replaced whole.
_last_home: tuple[object, str | None] = (None, None)
