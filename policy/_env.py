"""Where hookpolicy's configuration comes from in the process environment.

The variables' prefix, the config-file variable and the default data directory are
read by the pydantic settings, by their pydantic-free twin (`policy._fast_settings`)
and by what protects the policy's own files; one home, so the three cannot drift.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CONFIG_ENV", "ENV_PREFIX", "default_data_dir"]

#: Every setting's variable starts with this (`POLICY_PACKS`, `POLICY_AUDIT_PATH`).
ENV_PREFIX = "POLICY_"
#: The variable naming the YAML settings file.
CONFIG_ENV = "POLICY_CONFIG"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "hookpolicy"
