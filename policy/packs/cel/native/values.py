"""CEL's values as the native engine computes them: equality, membership, arithmetic,
access, conversions and the function tables, over the Python values the analysis
makes (dicts, lists, tuples, strings, ints, booleans, None).

Each helper either answers as cel-cpp answers, raises an exception (a CEL error: no
such key, no matching overload, overflow), or raises `_Gap` where it does not answer
with certainty (an int against a double, a double turned into a string, a map keyed by
numbers): the call's program then runs on cel-expr-python.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Container, Mapping, Sequence
from typing import Any

from policy.analysis._lazy_re import LazyPattern
from policy.packs.cel.functions import (
    _FUNCTIONS,
    _STRING_MEMBERS,
    REMEMBERED_LENGTH,
    fn_glob,
    fn_re2_matches_constant,
    re2_matches_remembered,
)
from policy.packs.cel.native.syntax import Node, Unsupported

Frame = dict[str, Any]
Fn = Callable[[Frame], Any]

_INT_MIN = -(1 << 63)
_INT_MAX = (1 << 63) - 1
_SEQUENCES = (list, tuple)
_NAMESPACES = frozenset({"path", "shell", "regex"})
#: Variables of a type this engine does not compile (their programs go to cel-expr-python).
_FOREIGN_TYPES = frozenset({"timestamp", "duration"})
_CUSTOM = {name: (params, ret, impl) for name, params, ret, impl, _member in _FUNCTIONS}
_DECIMAL = LazyPattern(r"-?[0-9]{1,19}")


class _Gap(BaseException):
    """A value this engine does not answer for with certainty: the program runs on
    cel-expr-python for this call. A BaseException, so no CEL error handler here
    (they catch Exception) can take it for an error and absorb it."""


_KINDS = {str: "string", int: "int", bool: "bool", float: "double", type(None): "null"}


def _kind(value: Any) -> str:
    """CEL's name for the kind of `value`; a gap for a kind this engine does not know
    (a `str` subclass, a datetime, bytes), as cel-expr-python refuses some of them."""
    name = _KINDS.get(type(value))
    if name is not None:
        return name
    if isinstance(value, Mapping):
        return "map"
    if isinstance(value, _SEQUENCES):
        return "list"
    raise _Gap


def _no_overload(name: str, *values: Any) -> TypeError:
    return TypeError(f"no matching overload for {name}({', '.join(_kind(v) for v in values)})")


def _int(value: int) -> int:
    if not _INT_MIN <= value <= _INT_MAX:
        raise OverflowError("int64 overflow")
    return value


def _ints(a: int, b: int) -> None:
    """Operands of int arithmetic: one outside int64 came from the call's data (a JSON
    number), which cel-cpp reads as a uint or refuses: a gap."""
    if not (_INT_MIN <= a <= _INT_MAX and _INT_MIN <= b <= _INT_MAX):
        raise _Gap


# ------------------------------------------------------------------ equality


def _eq(a: Any, b: Any) -> bool:
    """CEL's heterogeneous equality: values of different kinds are unequal, never an
    error; ints and doubles compare by value (left to cel-expr-python: a gap)."""
    ta, tb = type(a), type(b)
    if ta is tb and (ta is str or ta is int or ta is bool or ta is type(None)):
        return bool(a == b)
    if ta is float or tb is float:
        if (ta is float or ta is int) and (tb is float or tb is int):
            if ta is tb:
                return bool(a == b)
            raise _Gap
        _kind(a), _kind(b)
        return False
    if isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES):
        return len(a) == len(b) and all(_eq(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if len(a) != len(b):
            return False
        for key, value in a.items():
            if type(key) is not str:
                raise _Gap
            if key not in b or not _eq(value, b[key]):
                return False
        return True
    _kind(a), _kind(b)  # (a gap for kinds not reasoned about)
    return False


def _in(item: Any, container: Any) -> bool:
    if isinstance(container, _SEQUENCES):
        if type(item) is str:
            return item in container  # (a string equals only a string)
        return any(_eq(item, element) for element in container)
    if isinstance(container, Mapping):
        if type(item) is str:
            return item in container
        if any(type(key) is not str for key in container):
            raise _Gap
        if _kind(item) in ("null", "list", "map"):  # (no key can be one: no overload)
            raise _no_overload("@in", item, container)
        return False
    raise _no_overload("@in", item, container)


# ------------------------------------------------------------------ arithmetic


def _order(symbol: str, a: Any, b: Any) -> bool:
    ta, tb = type(a), type(b)
    if ta is tb and (ta is str or ta is int or ta is float or ta is bool):
        if symbol == "<":
            return bool(a < b)
        if symbol == "<=":
            return bool(a <= b)
        if symbol == ">":
            return bool(a > b)
        return bool(a >= b)
    if ta in (int, float) and tb in (int, float):
        raise _Gap  # cross-kind numeric ordering
    raise _no_overload(f"_{symbol}_", a, b)


def _add(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb:
        if ta is int:
            _ints(a, b)
            return _int(a + b)
        if ta is str or ta is float:
            return a + b
    if isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES):
        return [*a, *b]
    raise _no_overload("_+_", a, b)


def _sub(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb and ta is int:
        _ints(a, b)
        return _int(a - b)
    if ta is tb and ta is float:
        return a - b
    raise _no_overload("_-_", a, b)


def _mul(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb and ta is int:
        _ints(a, b)
        return _int(a * b)
    if ta is tb and ta is float:
        return a * b
    raise _no_overload("_*_", a, b)


def _div(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb and ta is int:
        _ints(a, b)
        if b == 0:
            raise ZeroDivisionError("division by zero")
        quotient = abs(a) // abs(b)
        return _int(quotient if (a < 0) == (b < 0) else -quotient)
    if ta is tb and ta is float:
        if b == 0.0:
            if a == 0.0 or math.isnan(a):
                return math.nan
            return math.copysign(math.inf, a) * math.copysign(1.0, b)
        return a / b
    raise _no_overload("_/_", a, b)


def _mod(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        _ints(a, b)
        if b == 0:
            raise ZeroDivisionError("modulus by zero")
        if a == _INT_MIN and b == -1:
            raise _Gap
        remainder = abs(a) % abs(b)
        return remainder if a >= 0 else -remainder
    raise _no_overload("_%_", a, b)


def _negate(value: Any) -> Any:
    if type(value) is int:
        _ints(value, 0)
        return _int(-value)
    if type(value) is float:
        return -value
    raise _no_overload("-_", value)


_ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "+": _add,
    "-": _sub,
    "*": _mul,
    "/": _div,
    "%": _mod,
}


# ------------------------------------------------------------------ access


def _select(value: Any, field: str) -> Any:
    if isinstance(value, Mapping):
        return value[field]  # (KeyError: no such key, an error)
    raise TypeError(f"no such field {field!r} on a {_kind(value)}")


def _index(value: Any, index: Any) -> Any:
    if isinstance(value, _SEQUENCES):
        if type(index) is not int:
            if type(index) is float:
                raise _Gap
            raise _no_overload("_[_]", value, index)
        if not 0 <= index < len(value):
            raise IndexError(f"index {index} out of range for a list of {len(value)}")
        return value[index]
    if isinstance(value, Mapping):
        if type(index) is str:
            return value[index]
        raise _Gap
    raise _no_overload("_[_]", value, index)


def _size(value: Any) -> int:
    if type(value) is str or isinstance(value, (*_SEQUENCES, Mapping)):
        return len(value)
    raise _no_overload("size", value)


def _items(value: Any) -> Any:
    """What a macro ranges over: a list's elements, a map's keys."""
    if isinstance(value, (*_SEQUENCES, Mapping)):
        return value
    raise _no_overload("comprehension range", value)


def _ordered_items(value: Any) -> Any:
    """What `map` and `filter` range over, whose order their list keeps: a map's keys
    come in cel-cpp's hash order, which is not Python's: a gap (but for one key)."""
    if isinstance(value, Mapping) and len(value) > 1:
        raise _Gap
    return _items(value)


# ------------------------------------------------------------------ conversions


def _to_int(value: Any) -> int:
    kind = type(value)
    if kind is int:
        _ints(value, 0)
        return int(value)
    if kind is float:
        if not -9.2e18 < value < 9.2e18:  # (NaN too; the edges are cel-expr-python's)
            raise _Gap
        return int(value)
    if kind is str and _DECIMAL.fullmatch(value):
        return _int(int(value))
    raise _Gap


def _to_double(value: Any) -> float:
    if type(value) is float:
        return value
    if type(value) is int:
        return float(value)
    raise _Gap


def _to_string(value: Any) -> str:
    kind = type(value)
    if kind is str:
        return str(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if value is None:
        raise _no_overload("string", value)
    raise _Gap


def _strings(name: str, *values: Any) -> None:
    for value in values:
        if type(value) is not str:
            raise _no_overload(name, *values)


def _contains(target: Any, part: Any) -> bool:
    _strings("contains", target, part)
    return part in target


def _starts_with(target: Any, prefix: Any) -> bool:
    _strings("startsWith", target, prefix)
    return bool(target.startswith(prefix))


def _ends_with(target: Any, suffix: Any) -> bool:
    _strings("endsWith", target, suffix)
    return bool(target.endswith(suffix))


def _matches(target: Any, pattern: Any) -> bool:
    _strings("matches", target, pattern)
    return re2_matches_remembered(target, pattern)


def constant_matches(target: Any, pattern: str) -> bool:
    """`_matches` of a pattern the program holds (policy.packs.cel.native.fast): compiled
    once whatever its length (`fn_re2_matches_constant`), its answers for short texts
    remembered."""
    _strings("matches", target, pattern)
    if len(target) > REMEMBERED_LENGTH:
        return fn_re2_matches_constant(target, pattern)
    return _constant_answer(target, pattern)


_constant_answer = functools.lru_cache(maxsize=4096)(fn_re2_matches_constant)


def _glob(value: Any, pattern: Any) -> bool:
    _strings("glob", value, pattern)
    return fn_glob(value, pattern)


_GLOBAL: dict[str, Callable[..., Any]] = {
    "size": _size,
    "int": _to_int,
    "double": _to_double,
    "string": _to_string,
    "dyn": lambda value: value,
    "matches": _matches,
    "glob": _glob,
}
_MEMBER: dict[str, Callable[..., Any]] = {
    "size": _size,
    "contains": _contains,
    "startsWith": _starts_with,
    "endsWith": _ends_with,
    "matches": _matches,
}


#: Whitespace cel-cpp's `trim` and Python's `strip` both remove; a string whose ends
#: hold other characters Python calls space (`\x1c`-`\x1f`, Unicode spaces) is a gap.
_PLAIN_SPACE = " \t\n\r\x0b\x0c"


def _differs_in_cel_cpp(name: str, target: str, args: tuple[Any, ...]) -> bool:
    """Where cel-cpp's strings extension answers otherwise than the shared emulation
    (policy.packs.cel.functions), found by a red team: `substring(start, end)` with
    `end` at the string's end fails there; `split` by "" keeps an empty string the
    emulation does not, or the other way round; `trim` removes fewer characters."""
    if name == "substring" and len(args) == 2:
        return bool(args[1] == len(target) and args[0] < args[1])
    if name == "split":
        return bool(args and args[0] == "")
    if name == "trim":
        return target.strip() != target.strip(_PLAIN_SPACE)
    return False


def _string_member(name: str, impl: Callable[..., Any]) -> Callable[..., Any]:
    """cel-go's strings extension (the emulation the cel-python engine runs, which the
    shared corpus holds to cel-expr-python's): on a string (`join`: a list of them),
    with string and int arguments; a gap where cel-cpp's answer differs."""

    def call(target: Any, *args: Any) -> Any:
        if name == "join":
            if not isinstance(target, _SEQUENCES) or any(type(v) is not str for v in target):
                raise _no_overload(name, target, *args)
        elif type(target) is not str:
            raise _no_overload(name, target, *args)
        if any(type(a) is not str and type(a) is not int for a in args):
            raise _no_overload(name, target, *args)
        if name != "join" and _differs_in_cel_cpp(name, target, args):
            raise _Gap
        return impl(target, *args)

    return call


def _custom(
    name: str, params: Sequence[str], returns: str, impl: Callable[..., Any]
) -> Callable[..., Any]:
    """A function of the table (`path.*`, `shell.*`, `regex.*`), its arguments checked as
    CEL's overload resolution checks them, and a boolean answer held to be one."""
    boolean = returns == "bool"

    def call(*args: Any) -> Any:
        for param, value in zip(params, args, strict=True):
            if param == "string":
                if type(value) is not str:
                    raise _no_overload(name, *args)
            elif not isinstance(value, _SEQUENCES):  # (its items as they are, as cel-cpp)
                raise _no_overload(name, *args)
        answer = impl(*args)
        if boolean and type(answer) is not bool:
            raise TypeError(f"{name} answered {type(answer).__name__}, not bool")
        return answer

    return call


_MEMBER.update({name: _string_member(name, impl) for name, impl in _STRING_MEMBERS.items()})
_NAMESPACED = {name: _custom(name, *spec) for name, spec in _CUSTOM.items()}
_GLOBAL.update({n: f for n, f in _NAMESPACED.items() if "." not in n and n not in _GLOBAL})


def function_of(
    name: str, target: Node | None, names: Container[str]
) -> tuple[str, Callable[..., Any], bool]:
    """What a call names, as CEL resolves it: (the function's key in the tables, the
    function, whether `target` is its first argument). `path.x(...)` is a function of
    the table unless `path` is one of `names` (a variable: left to cel-expr-python,
    which still calls the function when the arguments fit it). Unsupported for a
    function outside the tables."""
    if target is not None and target[0] == "id" and target[1] in _NAMESPACES:
        if target[1] in names:
            raise Unsupported(f"{target[1]}.{name} with {target[1]} a variable")
        key = f"{target[1]}.{name}"
        if key not in _NAMESPACED:
            raise Unsupported(f"the function {key}")
        return key, _NAMESPACED[key], False
    table = _GLOBAL if target is None else _MEMBER
    if name not in table:
        raise Unsupported(f"the {'function' if target is None else 'member'} {name}")
    return name, table[name], target is not None
