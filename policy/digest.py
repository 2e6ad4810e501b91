"""Canonical JSON and digests of tool arguments.

The decision log records a digest instead of raw arguments by default, and
approvals bind to a digest; both must give the same bytes for the same value,
whatever the key order or the host that sent it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import orjson

__all__ = ["args_digest", "canonical_json"]

_OPTIONS = orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS


def _fallback(value: Any) -> Any:
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return repr(value)


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no whitespace, UTF-8; unknown objects by `repr` (never an error)."""
    return orjson.dumps(value, option=_OPTIONS, default=_fallback)


def args_digest(args: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of `args`."""
    return hashlib.sha256(canonical_json(args)).hexdigest()
