"""Canonical JSON and digests of tool arguments.

The decision log records a digest instead of raw arguments by default, and
approvals bind to a digest; both must give the same bytes for the same value,
whatever the key order or the host that sent it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policy._hashes import sha256
from policy._json_bytes import dumps

__all__ = ["args_digest", "args_digest_and_size", "canonical_json", "json_line", "json_safe"]

def _fallback(value: Any) -> Any:
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return repr(value)


def json_safe(value: Any) -> Any:
    """`value` with what orjson refuses made representable: integers beyond 64 bits
    as strings, lone surrogates escaped, keys as strings, other objects by repr."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, bool) or value is None or isinstance(value, float):
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else str(value)
    if isinstance(value, Mapping):
        return {json_safe(str(k)): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return json_safe(_fallback(value))


def canonical_json(value: Any) -> bytes:
    """Sorted keys, no whitespace, UTF-8; never an error for any input."""
    try:
        return dumps(value, sort_keys=True, non_str_keys=True, default=_fallback)
    except TypeError:  # (orjson's error is a TypeError)
        return dumps(json_safe(value), sort_keys=True, non_str_keys=True)


def json_line(value: Any) -> bytes:
    """`value` as one JSON line's bytes, keys in their own order (a log record); never
    an error for any input: what orjson refuses is made representable (`json_safe`)."""
    try:
        return dumps(value, default=_fallback)
    except TypeError:  # (orjson's error is a TypeError)
        return dumps(json_safe(value))


def args_digest(args: Mapping[str, Any]) -> str:
    """SHA-256 hex of the canonical JSON of `args`."""
    return args_digest_and_size(args)[0]


def args_digest_and_size(args: Mapping[str, Any]) -> tuple[str, int]:
    """(`args_digest(args)`, the bytes of the canonical JSON it digests)."""
    data = canonical_json(args)
    return sha256(data).hexdigest(), len(data)
