"""Small helpers shared by CLI commands (standard library only)."""

from __future__ import annotations

import sys


def error(message: str) -> None:
    """Print `policy: message` to stderr."""
    sys.stderr.write(f"policy: {message}\n")
    sys.stderr.flush()
