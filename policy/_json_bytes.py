"""orjson's JSON, byte for byte, without importing orjson in a process that has not.

orjson is what hookpolicy writes and reads JSON with: the decision log's lines (whose
bytes the audit chain seals), the canonical JSON that argument digests and approvals
bind to, the pack cache, the kept answers and program shapes. Importing it costs a
one-event hook (`policy hook claude|agentao`, started once per tool call) ≈ 15 ms —
more than the interpreter's own start — because orjson loads `dataclasses`,
`inspect`, `uuid`, `platform`, `datetime` and `json` when it is imported, and such a
process needs none of them (decision 0029).

So `dumps` and `loads` here give exactly what `orjson.dumps` and `orjson.loads` give,
and use orjson itself unless the process decides one event (policy._one_event) and
has not loaded it. Then they run the standard library's C codec (`_json`, what
`json` runs) on what it is proven to treat as orjson does — strings, integers within
64 bits, floats written without an exponent, booleans, None, lists, tuples, dicts
with string keys, at most `_DEPTH` deep (tests/test_json_bytes.py compares the two on
every code point, on random numbers and on random documents) — and hand anything
else to orjson, imported then: its bytes, its answer and its errors are the answer.
Errors are therefore always orjson's own (`orjson.JSONEncodeError`, a `TypeError`;
`orjson.JSONDecodeError`, a `ValueError`): callers catch `TypeError` and
`ValueError` so as not to import orjson to name them.
"""

from __future__ import annotations

import sys

from policy import _one_event
from policy._plain_json import _Decoding, on_c_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["dumps", "loads"]

#: How deep the plain path writes before it leaves a value to orjson, which refuses
#: to write one nested 254 levels or more.
_DEPTH = 128
#: How deep orjson reads: arrays and objects nested more than this are an error.
_READ_DEPTH = 1024
_INT_MIN, _INT_END = -(2**63), 2**64  # what orjson writes and reads as an integer
#: JSON's white space (orjson's and `json`'s).
_SPACE = " \t\n\r"


class _Unsure(Exception):
    """The plain path cannot promise orjson's answer for this value: ask orjson."""


def _int(text: str) -> int:
    """An integer as orjson reads it: beyond 64 bits orjson makes it a float."""
    value = int(text)
    if not _INT_MIN <= value < _INT_END:
        raise _Unsure
    return value


def _float(text: str) -> float:
    """A float as orjson reads it (both round correctly); orjson refuses infinity."""
    value = float(text)
    if value - value != 0.0:
        raise _Unsure
    return value


def _constant(_text: str) -> Any:
    """NaN, Infinity and -Infinity, which `json` reads and orjson refuses."""
    raise _Unsure


class _AsOrjson(_Decoding):
    """`_json.make_scanner`'s settings with every number checked against orjson's
    reading, and no constant that is not JSON."""

    __slots__ = ()

    def __init__(self) -> None:
        super().__init__()
        self.parse_int = _int
        self.parse_float = _float
        self.parse_constant = _constant


def _codec(c: Any) -> tuple[Any, Any, Any]:
    """(scanner, unsorted encoder, sorted encoder) of `_json`. The encoders keep no
    state (no circular check: `_alike` bounds the depth), so one of each serves every
    value."""
    scanner = c.make_scanner(_AsOrjson())
    unsorted, by_key = (
        c.make_encoder(None, None, c.encode_basestring, None, ":", ",", order, False, False)
        for order in (False, True)
    )
    return scanner, unsorted, by_key


_scan, _encode, _encode_sorted = on_c_json(_codec, 3)


def dumps(
    value: Any,
    *,
    sort_keys: bool = False,
    non_str_keys: bool = False,
    default: Callable[[Any], Any] | None = None,
) -> bytes:
    """`orjson.dumps(value, default=default, option=...)` with `OPT_SORT_KEYS` and
    `OPT_NON_STR_KEYS` as asked: the same bytes, or the same error."""
    orjson = _loaded()
    if orjson is None:
        if _encode is not None and _alike(value, 0):
            try:
                chunks = (_encode_sorted if sort_keys else _encode)(value, 0)
                return "".join(chunks).encode("utf-8")
            except Exception:  # noqa: BLE001 - a lone surrogate, say: orjson answers below
                pass
        orjson = _orjson()
    option = (orjson.OPT_SORT_KEYS if sort_keys else 0) | (
        orjson.OPT_NON_STR_KEYS if non_str_keys else 0
    )
    result: bytes = orjson.dumps(value, default=default, option=option)
    return result


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """`orjson.loads(data)`: the same value, or the same error."""
    if _scan is not None and _loaded() is None:
        try:
            return _plain_loads(data)
        except (_Unsure, ValueError, RecursionError, StopIteration):
            pass  # orjson answers: its value (a float for a long integer) or its error
    return _orjson().loads(data)


def _loaded() -> Any:
    """orjson — unless this process decides one event (policy._one_event) and no import
    of it has begun: then None, and the plain path is tried first. Imported by the
    `import` statement, never read from `sys.modules`, which lists a module from the
    moment its import starts: another thread must wait for it, not use it half made."""
    if _one_event.active and "orjson" not in sys.modules:
        return None
    import orjson

    return orjson


def _orjson() -> Any:
    """orjson, imported now if it was not."""
    import orjson

    return orjson


def _plain_loads(data: bytes | bytearray | memoryview | str) -> Any:
    """The value of `data` read by `_json`, or an exception when orjson may read it
    otherwise: text that is not UTF-8 (orjson refuses a lone surrogate, which
    `json` reads), a byte-order mark, an escaped surrogate, a number orjson reads
    differently, white space or text around the value the scanner leaves."""
    # (orjson reads these four types and no subclass of them; anything else is its to refuse)
    if isinstance(data, str) and type(data) is str:
        text = data
        if not text.isascii():
            text.encode("utf-8")  # UnicodeEncodeError (a ValueError) for a surrogate
    elif (isinstance(data, bytes | bytearray) and type(data) in (bytes, bytearray)) or (
        isinstance(data, memoryview) and data.contiguous and data.format == "B"
    ):
        text = str(data, "utf-8")
    else:
        raise _Unsure
    if text.startswith("\ufeff") or _escapes_a_surrogate(text):
        raise _Unsure
    start = len(text) - len(text.lstrip(_SPACE))
    value, end = _scan(text, start)
    if end != len(text.rstrip(_SPACE)):
        raise _Unsure
    # The scanner goes as deep as the interpreter's recursion allows, which may be
    # deeper than orjson reads (a raised limit; from 3.12 a limit of its own). Only a
    # text with more brackets than that can be nested that deep, and only where the
    # limit allows it: walking a pack cache's entry cost a hook ≈ 0.4 ms a start.
    if (
        _scanner_may_go_deeper()
        and text.count("[") + text.count("{") > _READ_DEPTH
        and _deeper_than_orjson_reads(value)
    ):
        raise _Unsure
    return value


def _scanner_may_go_deeper() -> bool:
    """Whether `_json`'s scanner may read deeper than orjson: on 3.11 each level is a
    call counted against the recursion limit (the default 1,000 stops it first); later
    interpreters count the C calls against a limit of their own."""
    return sys.version_info >= (3, 12) or sys.getrecursionlimit() > _READ_DEPTH


def _deeper_than_orjson_reads(value: Any) -> bool:
    """Whether `value` (what the scanner read) nests arrays and objects past
    `_READ_DEPTH`."""
    stack = [(value, 1)]
    while stack:
        held, depth = stack.pop()
        kind = type(held)
        if kind is not dict and kind is not list:
            continue
        if depth > _READ_DEPTH:
            return True
        stack.extend((item, depth + 1) for item in (held.values() if kind is dict else held))
    return False


def _escapes_a_surrogate(text: str) -> bool:
    """Whether `text` may hold a `\\uD800`-`\\uDFFF` escape (paired or lone: orjson
    reads a pair as `json` does, but refuses a lone one). An escaped backslash before
    `u` counts too: a false alarm only sends the text to orjson."""
    at = text.find("\\u")
    while at >= 0:
        if text[at + 2 : at + 3] in ("d", "D") and text[at + 3 : at + 4] in _HIGH_HEX:
            return True
        at = text.find("\\u", at + 2)
    return False


_HIGH_HEX = frozenset("89abcdefABCDEF")


def _alike(value: Any, depth: int) -> bool:
    """Whether `_json` writes `value` as orjson does (a string's lone surrogate aside,
    which fails when the text is encoded)."""
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        integer: int = value
        return _INT_MIN <= integer < _INT_END
    if kind is float:  # finite and written without an exponent: repr's digits are orjson's
        number: float = value
        return number - number == 0.0 and "e" not in float.__repr__(number)
    if depth >= _DEPTH:
        return False
    if kind is list or kind is tuple or (
        isinstance(value, list) and kind.__iter__ is list.__iter__  # (no iteration of its own)
    ):
        return all(_alike(item, depth + 1) for item in value)
    if isinstance(value, dict):
        # `_json` asks a subclass for its items(), orjson reads the dict underneath: a
        # subclass's own `items` (on the class or the instance) would differ
        if kind is not dict and (
            kind.items is not dict.items or "items" in getattr(value, "__dict__", ())
        ):
            return False
        return all(type(k) is str and _alike(v, depth + 1) for k, v in dict.items(value))
    return False
