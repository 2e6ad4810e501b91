"""Where hookpolicy's configuration comes from in the process environment.

The variables' prefix, the config-file variable and the default data directory are
read by the pydantic settings, by their pydantic-free twin (`policy._fast_settings`)
and by what protects the policy's own files; one home, so the three cannot drift.
Standard library `os` only: the thin client of `policy serve` reads its settings
through here, and `pathlib` (with `re`, `urllib.parse` and `ipaddress` behind it) is
imported when a `Path` is asked for.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["CONFIG_ENV", "ENV_PREFIX", "data_home", "default_data_dir"]

#: Every setting's variable starts with this (`POLICY_PACKS`, `POLICY_AUDIT_PATH`).
ENV_PREFIX = "POLICY_"
#: The variable naming the YAML settings file.
CONFIG_ENV = "POLICY_CONFIG"


def data_home() -> str:
    """The default data directory, as text: `$XDG_DATA_HOME/hookpolicy`, else
    `~/.local/share/hookpolicy`. RuntimeError when there is no home to find (as
    `Path.home()` raises)."""
    base = os.environ.get("XDG_DATA_HOME")
    if not base:
        home = os.path.expanduser("~")
        if home[:1] == "~":
            raise RuntimeError("Could not determine home directory.")
        base = os.path.join(home, ".local", "share")
    return os.path.join(base, "hookpolicy")


def default_data_dir() -> Path:
    """`data_home()` as a Path (the `data_dir` setting's default)."""
    from pathlib import Path

    return Path(data_home())
