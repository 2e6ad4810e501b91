"""JSON through the standard library's C codec, without importing the `json` package.

`import json` imports `re` (for two patterns its C code does not use), and `re` brings
`enum`, `functools` and `collections`: on the thin client's path (a hook via `policy
serve`, started once per tool call) that is as long again as the interpreter's own
start. The C scanner and encoder (`_json`) are what `json.loads` and `json.dumps` run
anyway; this module calls them directly, with the settings those functions use, and
hands anything unusual — a byte-order mark, an encoding other than UTF-8, text that is
not one JSON value, an interpreter without `_json` — to `json` itself, so answers and
error messages are `json`'s own (docs/decisions/0025-plain-thin-client.md).

Only `loads(data)` and `dumps(value)` (ASCII, no spaces, and no NaN or Infinity, which
are not JSON: a host reading `{"x":NaN}` would find no answer in it) are offered: what
the thin client and the settings cache need.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

__all__ = ["dumps", "loads"]

#: What JSON counts as white space around a value (json.decoder.WHITESPACE).
_SPACE = " \t\n\r"
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Decoding:
    """The attributes `_json.make_scanner` reads from a `json.JSONDecoder` — those of
    `json.loads(data)` with no options."""

    __slots__ = (
        "object_hook",
        "object_pairs_hook",
        "parse_constant",
        "parse_float",
        "parse_int",
        "strict",
    )

    def __init__(self) -> None:
        self.strict = True
        self.object_hook = None
        self.object_pairs_hook = None
        self.parse_float: Any = float
        self.parse_int: Any = int
        self.parse_constant: Any = _CONSTANTS.__getitem__


def _no_default(value: object) -> object:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def on_c_json(build: Callable[[Any], tuple[Any, ...]], size: int) -> tuple[Any, ...]:
    """`build(_json)`: the scanner and encoders a module makes from the standard
    library's C codec; `size` Nones on an interpreter without `_json`, or with one
    whose functions take other arguments (the caller then goes through `json` or
    orjson)."""
    try:
        import _json
    except ImportError:  # another interpreter
        return (None,) * size
    try:
        return build(_json)
    except (AttributeError, TypeError):  # another _json
        return (None,) * size


def _codec(c: Any) -> tuple[Any, Any, Any]:
    """(scanner, make_encoder, ASCII string encoder) of `_json`, checked callable with
    `json`'s arguments."""
    scanner = c.make_scanner(_Decoding())
    c.make_encoder({}, _no_default, c.encode_basestring_ascii, None, ":", ",", False, False, False)
    return scanner, c.make_encoder, c.encode_basestring_ascii


_scan, _make_encoder, _ascii = on_c_json(_codec, 3)


def loads(data: bytes | bytearray | str) -> Any:
    """`json.loads(data)`: the same value, and for anything it refuses, its error."""
    if _scan is not None:
        try:
            text = data.decode("utf-8") if isinstance(data, bytes | bytearray) else data
            if not text.startswith("\ufeff"):
                start = len(text) - len(text.lstrip(_SPACE))
                value, end = _scan(text, start)
                if end == len(text.rstrip(_SPACE)):
                    return value
        except (StopIteration, ValueError):  # UnicodeDecodeError is a ValueError
            pass
    import json

    return json.loads(data)


def dumps(value: Any) -> str:
    """`json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)`:
    ValueError for a float that is no number or infinite."""
    if _make_encoder is not None:
        # As json.dumps builds it for these options: a new encoder per value, whose
        # `markers` (the circular check) are that value's alone.
        encode = _make_encoder({}, _no_default, _ascii, None, ":", ",", False, False, False)
        return "".join(encode(value, 0))
    import json

    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
