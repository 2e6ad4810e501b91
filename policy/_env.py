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

__all__ = [
    "CONFIG_ENV",
    "ENV_PREFIX",
    "MAX_CONFIG_BYTES",
    "data_home",
    "default_data_dir",
    "read_config",
]

#: Every setting's variable starts with this (`POLICY_PACKS`, `POLICY_AUDIT_PATH`).
ENV_PREFIX = "POLICY_"
#: The variable naming the YAML settings file.
CONFIG_ENV = "POLICY_CONFIG"
#: A settings file larger than this is not read (they are a few KB).
MAX_CONFIG_BYTES = 16 << 20


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


def read_config(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the settings file at `path`; OSError (with its `strerror`) for what
    is not a regular file or is longer than MAX_CONFIG_BYTES. Opened without blocking:
    a FIFO, a device or a terminal there must not hold a hook process (whose host takes
    silence as no objection) before its watchdog runs."""
    import errno
    import stat

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if st.st_size > MAX_CONFIG_BYTES:
            raise OSError(errno.EFBIG, f"longer than {MAX_CONFIG_BYTES >> 20} MiB")
        chunks = []
        size = 0
        while chunk := os.read(fd, 1 << 16):
            size += len(chunk)
            if size > MAX_CONFIG_BYTES:  # grew while read
                raise OSError(errno.EFBIG, f"longer than {MAX_CONFIG_BYTES >> 20} MiB")
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def default_data_dir() -> Path:
    """`data_home()` as a Path (the `data_dir` setting's default)."""
    from pathlib import Path

    return Path(data_home())
