"""The `native` engine: CEL conditions compiled to Python closures over the call's own
values, with cel-expr-python for whatever they do not cover.

Why: a shipped-policy decision spent most of its CEL time outside the conditions —
converting the call's facts into CEL values, crossing into Python for every `path.*`
call and back, building protobuf environments at a hook's start (issue 24). Compiled
here, a condition reads the facts as the analysis made them (dicts, lists, strings)
and calls the functions of `policy.packs.cel.functions` directly.

What it is not: a second CEL. Every source is type-checked by cel-expr-python before a
pack loads (`Checker`), so this reads only expressions CEL accepts, and evaluates them
with CEL's semantics as cel-cpp has them (the shared corpus, tests/cel_corpus.yaml, and
every pack test run on it and on both other engines): 64-bit ints that overflow into an
error, division that truncates, heterogeneous equality (`1 == 1.0`, `1 != 'a'`), errors
that `&&`, `||`, `exists` and `all` absorb when the other side decides. What it does
not compile (timestamps and durations, bytes, unsigned ints, messages, functions
outside the table) makes the whole program cel-expr-python's; what it meets at run
time and does not answer with certainty (a double turned into a string, a comparison
of an int with a double, a map keyed by numbers) raises `_Gap`, and that call's program
runs on cel-expr-python instead — built on first need. So the answers are
cel-expr-python's, and this engine only decides how fast they come.
"""

from __future__ import annotations

import functools
import math
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from policy.analysis._lazy_re import LazyPattern
from policy.facts import home_dir
from policy.packs.cel.functions import (
    _FUNCTIONS,
    _STRING_MEMBERS,
    READ_BEYOND_ARGUMENTS,
    fn_glob,
    fn_re2_matches,
)
from policy.packs.cel.interface import (
    VARIABLES_AT,
    CelEngine,
    CelEvalError,
    CelProgram,
    referenced_names,
)
from policy.packs.cel.syntax import Node, Unsupported, parse

__all__ = ["NativeEngine"]

Frame = dict[str, Any]
Fn = Callable[[Frame], Any]

_INT_MIN = -(1 << 63)
_INT_MAX = (1 << 63) - 1
#: The kinds of value this engine reasons about; any other (a datetime, bytes) is a gap.
_SCALARS = (str, int, bool, float, type(None))
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


def _kind(value: Any) -> str:
    names = {str: "string", int: "int", bool: "bool", float: "double", type(None): "null"}
    kind = type(value)
    if kind in names:
        return names[kind]
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
        _kind(item)
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
            return _int(a + b)
        if ta is str or ta is float:
            return a + b
    if isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES):
        return [*a, *b]
    raise _no_overload("_+_", a, b)


def _sub(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb and ta is int:
        return _int(a - b)
    if ta is tb and ta is float:
        return a - b
    raise _no_overload("_-_", a, b)


def _mul(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb and ta is int:
        return _int(a * b)
    if ta is tb and ta is float:
        return a * b
    raise _no_overload("_*_", a, b)


def _div(a: Any, b: Any) -> Any:
    ta, tb = type(a), type(b)
    if ta is tb and ta is int:
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
        if b == 0:
            raise ZeroDivisionError("modulus by zero")
        if a == _INT_MIN and b == -1:
            raise _Gap
        remainder = abs(a) % abs(b)
        return remainder if a >= 0 else -remainder
    raise _no_overload("_%_", a, b)


def _negate(value: Any) -> Any:
    if type(value) is int:
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


# ------------------------------------------------------------------ conversions


def _to_int(value: Any) -> int:
    kind = type(value)
    if kind is int:
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
    return fn_re2_matches(target, pattern)


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


def _string_member(name: str, impl: Callable[..., Any]) -> Callable[..., Any]:
    """cel-go's strings extension (the emulation the cel-python engine runs, which the
    shared corpus holds to cel-expr-python's): on a string (`join`: a list of them),
    with string and int arguments."""

    def call(target: Any, *args: Any) -> Any:
        if name == "join":
            if not isinstance(target, _SEQUENCES) or any(type(v) is not str for v in target):
                raise _no_overload(name, target, *args)
        elif type(target) is not str:
            raise _no_overload(name, target, *args)
        if any(type(a) is not str and type(a) is not int for a in args):
            raise _no_overload(name, target, *args)
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
            elif not isinstance(value, _SEQUENCES) or any(type(v) is not str for v in value):
                raise _no_overload(name, *args)
        answer = impl(*args)
        if boolean and type(answer) is not bool:
            raise TypeError(f"{name} answered {type(answer).__name__}, not bool")
        return answer

    return call


_MEMBER.update({name: _string_member(name, impl) for name, impl in _STRING_MEMBERS.items()})
_NAMESPACED = {name: _custom(name, *spec) for name, spec in _CUSTOM.items()}
_GLOBAL.update({n: f for n, f in _NAMESPACED.items() if "." not in n and n not in _GLOBAL})


# ------------------------------------------------------------------ the compiler


class _Compiler:
    """One expression's tree to a closure over a frame (the call's variables, `vars`,
    and the macros' own variables)."""

    def __init__(self, variables: Mapping[str, str]) -> None:
        self.variables = variables
        self.scope: list[str] = []

    def compile(self, node: Node) -> Fn:
        return getattr(self, "_" + node[0])(*node[1:])  # type: ignore[no-any-return]

    def constant(self, node: Node) -> tuple[bool, Any]:
        """(True, value) for a literal, or a list or map of literals."""
        if node[0] == "lit":
            return True, node[1]
        if node[0] == "list":
            values = [self.constant(item) for item in node[1]]
            if all(ok for ok, _ in values):
                return True, tuple(v for _, v in values)
        return False, None

    def _lit(self, value: Any) -> Fn:
        return lambda frame: value

    def _id(self, name: str) -> Fn:
        if name not in self.scope:
            kind = self.variables.get(name)
            if kind is None and name != "vars":
                raise Unsupported(f"the name {name}")
            if kind in _FOREIGN_TYPES:
                raise Unsupported(f"a {kind}")

        def read(frame: Frame) -> Any:
            return frame[name]

        return read

    def _sel(self, operand: Node, field: str) -> Fn:
        of = self.compile(operand)

        def select(frame: Frame) -> Any:
            value = of(frame)
            if type(value) is dict:
                return value[field]
            return _select(value, field)

        return select

    def _has(self, operand: Node, field: str) -> Fn:
        of = self.compile(operand)

        def has(frame: Frame) -> bool:
            value = of(frame)
            if isinstance(value, Mapping):
                return field in value
            raise TypeError(f"has() on a {_kind(value)}")

        return has

    def _index(self, operand: Node, index: Node) -> Fn:
        of, at = self.compile(operand), self.compile(index)
        return lambda frame: _index(of(frame), at(frame))

    def _list(self, items: tuple[Node, ...]) -> Fn:
        fixed, value = self.constant(("list", items))
        if fixed:
            return lambda frame: value
        each = [self.compile(item) for item in items]
        return lambda frame: [f(frame) for f in each]

    def _map(self, pairs: tuple[tuple[Node, Node], ...]) -> Fn:
        each = [(self.compile(k), self.compile(v)) for k, v in pairs]

        def build(frame: Frame) -> dict[Any, Any]:
            found: dict[Any, Any] = {}
            for key_of, value_of in each:
                key = key_of(frame)
                if type(key) is not str or key in found:
                    raise _Gap  # (numeric keys, and a repeated key's error, are cel-cpp's)
                found[key] = value_of(frame)
            return found

        return build

    def _cond(self, test: Node, then: Node, otherwise: Node) -> Fn:
        if_, yes, no = self.compile(test), self.compile(then), self.compile(otherwise)

        def choose(frame: Frame) -> Any:
            held = if_(frame)
            if held is True:
                return yes(frame)
            if held is False:
                return no(frame)
            raise _no_overload("_?_:_", held)

        return choose

    def _and(self, left: Node, right: Node) -> Fn:
        first, second = self.compile(left), self.compile(right)

        def both(frame: Frame) -> bool:
            try:
                held = first(frame)
            except Exception as exc:
                if second(frame) is False:
                    return False
                raise exc from None
            if held is False:
                return False
            other = second(frame)
            if held is True:
                if other is True or other is False:
                    return other
                raise _no_overload("_&&_", held, other)
            if other is False:
                return False
            raise _no_overload("_&&_", held, other)

        return both

    def _or(self, left: Node, right: Node) -> Fn:
        first, second = self.compile(left), self.compile(right)

        def either(frame: Frame) -> bool:
            try:
                held = first(frame)
            except Exception as exc:
                if second(frame) is True:
                    return True
                raise exc from None
            if held is True:
                return True
            other = second(frame)
            if held is False:
                if other is True or other is False:
                    return other
                raise _no_overload("_||_", held, other)
            if other is True:
                return True
            raise _no_overload("_||_", held, other)

        return either

    def _not(self, operand: Node) -> Fn:
        of = self.compile(operand)

        def negation(frame: Frame) -> bool:
            value = of(frame)
            if value is True:
                return False
            if value is False:
                return True
            raise _no_overload("!_", value)

        return negation

    def _neg(self, operand: Node) -> Fn:
        of = self.compile(operand)
        return lambda frame: _negate(of(frame))

    def _op(self, symbol: str, left: Node, right: Node) -> Fn:
        first, second = self.compile(left), self.compile(right)
        if symbol in ("==", "!="):
            return self._equality(symbol == "==", left, right, first, second)
        if symbol == "in":
            fixed, values = self.constant(right)
            if fixed and isinstance(values, tuple) and all(type(v) is str for v in values):
                names = frozenset(values)

                def among(frame: Frame) -> bool:
                    item = first(frame)
                    if type(item) is str:
                        return item in names
                    return _in(item, values)

                return among
            return lambda frame: _in(first(frame), second(frame))
        if symbol in _ARITHMETIC:
            apply = _ARITHMETIC[symbol]
            return lambda frame: apply(first(frame), second(frame))
        return lambda frame: _order(symbol, first(frame), second(frame))

    @staticmethod
    def _equality(equal: bool, left: Node, right: Node, first: Fn, second: Fn) -> Fn:
        literal = right[1] if right[0] == "lit" else left[1] if left[0] == "lit" else None
        if type(literal) is str:  # a string equals only a string: Python's == is CEL's
            if equal:
                return lambda frame: first(frame) == second(frame)
            return lambda frame: first(frame) != second(frame)
        if equal:
            return lambda frame: _eq(first(frame), second(frame))
        return lambda frame: not _eq(first(frame), second(frame))

    def _call(self, name: str, target: Node | None, args: tuple[Node, ...]) -> Fn:
        if (
            target is not None
            and target[0] == "id"
            and target[1] in _NAMESPACES
            and target[1] not in self.scope
            and target[1] not in self.variables
        ):
            function = _NAMESPACED.get(f"{target[1]}.{name}")
            if function is None:
                raise Unsupported(f"the function {target[1]}.{name}")
            target = None
        elif target is None:
            function = _GLOBAL.get(name)
            if function is None:
                raise Unsupported(f"the function {name}")
        else:
            function = _MEMBER.get(name)
            if function is None:
                raise Unsupported(f"the member {name}")
            args = (target, *args)
        each = [self.compile(a) for a in args]
        if len(each) == 1:
            (only,) = each
            return lambda frame: function(only(frame))
        if len(each) == 2:
            one, two = each
            return lambda frame: function(one(frame), two(frame))
        return lambda frame: function(*[f(frame) for f in each])

    def _macro(self, name: str, target: Node, variable: str, args: tuple[Node, ...]) -> Fn:
        over = self.compile(target)
        self.scope.append(variable)
        try:
            parts = [self.compile(a) for a in args]
        finally:
            self.scope.pop()
        return _MACRO_BUILDERS[name](over, variable, parts)


def _bound(frame: Frame, variable: str) -> Any:
    return frame.get(variable, _UNBOUND)


_UNBOUND = object()


def _restore(frame: Frame, variable: str, before: Any) -> None:
    if before is _UNBOUND:
        frame.pop(variable, None)
    else:
        frame[variable] = before


def _exists(over: Fn, variable: str, parts: list[Fn]) -> Fn:
    (test,) = parts

    def exists(frame: Frame) -> bool:
        items = _items(over(frame))
        before = _bound(frame, variable)
        error: Exception | None = None
        try:
            for item in items:
                frame[variable] = item
                try:
                    held = test(frame)
                except Exception as exc:  # noqa: BLE001 - absorbed if another holds
                    error = error or exc
                    continue
                if held is True:
                    return True
                if held is not False:
                    error = error or _no_overload("_||_", held)
        finally:
            _restore(frame, variable, before)
        if error is not None:
            raise error
        return False

    return exists


def _all(over: Fn, variable: str, parts: list[Fn]) -> Fn:
    (test,) = parts

    def every(frame: Frame) -> bool:
        items = _items(over(frame))
        before = _bound(frame, variable)
        error: Exception | None = None
        try:
            for item in items:
                frame[variable] = item
                try:
                    held = test(frame)
                except Exception as exc:  # noqa: BLE001 - absorbed if another fails
                    error = error or exc
                    continue
                if held is False:
                    return False
                if held is not True:
                    error = error or _no_overload("_&&_", held)
        finally:
            _restore(frame, variable, before)
        if error is not None:
            raise error
        return True

    return every


def _exists_one(over: Fn, variable: str, parts: list[Fn]) -> Fn:
    (test,) = parts

    def exactly_one(frame: Frame) -> bool:
        items = _items(over(frame))
        before = _bound(frame, variable)
        count = 0
        try:
            for item in items:
                frame[variable] = item
                held = test(frame)
                if held is True:
                    count += 1
                elif held is not False:
                    raise _no_overload("_?_:_", held)
        finally:
            _restore(frame, variable, before)
        return count == 1

    return exactly_one


def _map_macro(over: Fn, variable: str, parts: list[Fn]) -> Fn:
    keep, make = (None, parts[0]) if len(parts) == 1 else (parts[0], parts[1])

    def mapped(frame: Frame) -> list[Any]:
        items = _items(over(frame))
        before = _bound(frame, variable)
        found: list[Any] = []
        try:
            for item in items:
                frame[variable] = item
                if keep is not None:
                    held = keep(frame)
                    if held is False:
                        continue
                    if held is not True:
                        raise _no_overload("_?_:_", held)
                found.append(make(frame))
        finally:
            _restore(frame, variable, before)
        return found

    return mapped


def _filter(over: Fn, variable: str, parts: list[Fn]) -> Fn:
    (keep,) = parts

    def kept(frame: Frame) -> list[Any]:
        items = _items(over(frame))
        before = _bound(frame, variable)
        found: list[Any] = []
        try:
            for item in items:
                frame[variable] = item
                held = keep(frame)
                if held is True:
                    found.append(item)
                elif held is not False:
                    raise _no_overload("_?_:_", held)
        finally:
            _restore(frame, variable, before)
        return found

    return kept


_MACRO_BUILDERS: dict[str, Callable[[Fn, str, list[Fn]], Fn]] = {
    "exists": _exists,
    "all": _all,
    "exists_one": _exists_one,
    "map": _map_macro,
    "filter": _filter,
}


# ------------------------------------------------------------------ the fast form


def _truth(value: Any) -> bool:
    if value is True or value is False:
        return value
    raise _no_overload("bool", value)


def _has_field(value: Any, field: str) -> bool:
    if isinstance(value, Mapping):
        return field in value
    raise TypeError(f"has() on a {_kind(value)}")


def _among(item: Any, names: frozenset[str], values: tuple[Any, ...]) -> bool:
    if type(item) is str:
        return item in names
    return _in(item, values)


class _Constant:
    """A constant list of a program, by identity: the key under which a function's
    answers for it are remembered (hashing a hundred globs at every call would cost
    what the memory saves)."""

    __slots__ = ("value",)

    def __init__(self, value: tuple[str, ...]) -> None:
        self.value = value


#: The functions whose answers for a constant list are remembered, and what else their
#: answer reads: `~` as the user's home, or `$HOME` (policy.packs.cel.expr has the same
#: table for its own memory of them).
_READS_HOME = frozenset({"path.matches", "path.names", "path.inside", "path.inside_folded"})
_READS_ENV_HOME = frozenset({"path.within_any_folded", "path.holds_any_folded"})
_REMEMBERED_LENGTH = 1024


def _remembering(name: str) -> Callable[[Any, _Constant], Any]:
    impl = _CUSTOM[name][2]
    reads_home, reads_env = name in _READS_HOME, name in _READS_ENV_HOME

    @functools.lru_cache(maxsize=4096)
    def answer(value: str, constant: _Constant, home: str) -> Any:
        return impl(value, constant.value)

    def call(value: Any, constant: _Constant) -> Any:
        if type(value) is not str:
            raise _no_overload(name, value, constant.value)
        if len(value) > _REMEMBERED_LENGTH:
            return impl(value, constant.value)
        if reads_home:
            return answer(value, constant, home_dir())
        return answer(value, constant, (os.environ.get("HOME") or "") if reads_env else "")

    return call


_REMEMBERING = {
    name: _remembering(name)
    for name, (params, _ret, _impl) in _CUSTOM.items()
    if params == ("string", "list_of_strings") and name not in READ_BEYOND_ARGUMENTS
}
_BOOL_FUNCTIONS = frozenset(
    {"contains", "startsWith", "endsWith", "matches", "glob"}
    | {name for name, _params, ret, _impl, _member in _FUNCTIONS if ret == "bool"}
)
_HELPERS: dict[str, Any] = {
    "_truth": _truth,
    "_eq": _eq,
    "_in": _in,
    "_among": _among,
    "_order": _order,
    "_add": _add,
    "_negate": _negate,
    "_index": _index,
    "_items": _items,
    "_has_field": _has_field,
    **{f"_op_{ord(symbol)}": apply for symbol, apply in _ARITHMETIC.items()},
}


class _FastUnsupported(Exception):
    """A node the fast form does not write; the expression runs in the exact form."""


class _FastCompiler:
    """One expression as one Python function, CEL's operators as Python's where, on
    values that raise nothing, the two agree: `and`/`or`/`any`/`all` short-circuit
    as CEL does on booleans, a string compares equal only to a string. Where CEL
    would absorb an error (`false && error`, an `exists` another element makes
    true), Python raises instead, and the caller evaluates the expression again in
    the exact form (`_Compiler`), which does absorb it. So the fast form answers
    exactly when it answers at all."""

    def __init__(self, variables: Mapping[str, str], constant_vars: Mapping[str, Any]) -> None:
        self.variables = variables
        self.constant_vars = constant_vars
        self.scope: list[str] = []
        self.names: dict[str, Any] = dict(_HELPERS)

    def function(self, node: Node) -> Fn:
        source, _ = self.write(node)
        code = compile(f"def _condition(F):\n    return {source}\n", "<cel>", "exec")
        namespace = dict(self.names)
        exec(code, namespace)
        fn: Fn = namespace["_condition"]
        return fn

    def bind(self, value: Any) -> str:
        name = f"_k{len(self.names)}"
        self.names[name] = value
        return name

    def write(self, node: Node) -> tuple[str, bool]:
        """(Python source, whether it is known to give a bool)."""
        return getattr(self, "_" + node[0])(*node[1:])  # type: ignore[no-any-return]

    def truth(self, node: Node) -> str:
        source, boolean = self.write(node)
        return source if boolean else f"_truth({source})"

    def constant(self, node: Node) -> tuple[bool, Any]:
        if node[0] == "lit":
            return True, node[1]
        if node[0] == "list":
            values = [self.constant(item) for item in node[1]]
            if all(ok for ok, _ in values):
                return True, tuple(v for _, v in values)
        if (
            node[0] == "sel"
            and node[1] == ("id", "vars")
            and "vars" not in self.scope
            and node[2] in self.constant_vars
        ):
            return True, self.constant_vars[node[2]]
        return False, None

    def _lit(self, value: Any) -> tuple[str, bool]:
        if type(value) in (str, int, bool, type(None)):
            return repr(value), type(value) is bool
        return self.bind(value), False

    def _id(self, name: str) -> tuple[str, bool]:
        if name in self.scope:
            return f"c_{name}", False
        kind = self.variables.get(name)
        if (kind is None and name != "vars") or kind in _FOREIGN_TYPES:
            raise Unsupported(f"the name {name}")
        return f"F[{name!r}]", False

    def _sel(self, operand: Node, field: str) -> tuple[str, bool]:
        return f"{self.write(operand)[0]}[{field!r}]", False

    def _has(self, operand: Node, field: str) -> tuple[str, bool]:
        return f"_has_field({self.write(operand)[0]}, {field!r})", True

    def _index(self, operand: Node, index: Node) -> tuple[str, bool]:
        return f"_index({self.write(operand)[0]}, {self.write(index)[0]})", False

    def _list(self, items: tuple[Node, ...]) -> tuple[str, bool]:
        fixed, value = self.constant(("list", items))
        if fixed:
            return self.bind(value), False
        return "[" + ", ".join(self.write(item)[0] for item in items) + "]", False

    def _map(self, pairs: tuple[tuple[Node, Node], ...]) -> tuple[str, bool]:
        raise _FastUnsupported("a map literal")

    def _cond(self, test: Node, then: Node, otherwise: Node) -> tuple[str, bool]:
        yes, yes_bool = self.write(then)
        no, no_bool = self.write(otherwise)
        return f"({yes} if {self.truth(test)} else {no})", yes_bool and no_bool

    def _and(self, left: Node, right: Node) -> tuple[str, bool]:
        return f"({self.truth(left)} and {self.truth(right)})", True

    def _or(self, left: Node, right: Node) -> tuple[str, bool]:
        return f"({self.truth(left)} or {self.truth(right)})", True

    def _not(self, operand: Node) -> tuple[str, bool]:
        return f"(not {self.truth(operand)})", True

    def _neg(self, operand: Node) -> tuple[str, bool]:
        return f"_negate({self.write(operand)[0]})", False

    def _op(self, symbol: str, left: Node, right: Node) -> tuple[str, bool]:
        first, second = self.write(left)[0], self.write(right)[0]
        literal = right[1] if right[0] == "lit" else left[1] if left[0] == "lit" else None
        if symbol in ("==", "!="):
            if type(literal) is str:  # a string equals only a string
                return f"({first} {symbol} {second})", True
            return f"({'' if symbol == '==' else 'not '}_eq({first}, {second}))", True
        if symbol == "in":
            fixed, values = self.constant(right)
            if fixed and isinstance(values, tuple) and all(type(v) is str for v in values):
                return f"_among({first}, {self.bind(frozenset(values))}, {second})", True
            return f"_in({first}, {second})", True
        if symbol == "+" and type(literal) is str:  # str + str, or a TypeError
            return f"({first} + {second})", False
        if symbol in _ARITHMETIC:
            return f"_op_{ord(symbol)}({first}, {second})", False
        return f"_order({symbol!r}, {first}, {second})", True

    def _call(self, name: str, target: Node | None, args: tuple[Node, ...]) -> tuple[str, bool]:
        if (
            target is not None
            and target[0] == "id"
            and target[1] in _NAMESPACES
            and target[1] not in self.scope
            and target[1] not in self.variables
        ):
            qualified = f"{target[1]}.{name}"
            if qualified not in _NAMESPACED:
                raise Unsupported(f"the function {qualified}")
            boolean = qualified in _BOOL_FUNCTIONS
            if qualified in _REMEMBERING and len(args) == 2:
                fixed, value = self.constant(args[1])
                if fixed and isinstance(value, tuple):
                    remembering = self.bind(_REMEMBERING[qualified])
                    constant = self.bind(_Constant(value))
                    return f"{remembering}({self.write(args[0])[0]}, {constant})", boolean
            function = self.bind(_NAMESPACED[qualified])
        elif target is None:
            if name not in _GLOBAL:
                raise Unsupported(f"the function {name}")
            function, boolean = self.bind(_GLOBAL[name]), name in _BOOL_FUNCTIONS
        else:
            if name not in _MEMBER:
                raise Unsupported(f"the member {name}")
            function, boolean = self.bind(_MEMBER[name]), name in _BOOL_FUNCTIONS
            args = (target, *args)
        return f"{function}(" + ", ".join(self.write(a)[0] for a in args) + ")", boolean

    def _macro(
        self, name: str, target: Node, variable: str, args: tuple[Node, ...]
    ) -> tuple[str, bool]:
        over = f"_items({self.write(target)[0]})"
        local = f"c_{variable}"
        self.scope.append(variable)
        try:
            if name in ("exists", "all"):
                test = self.truth(args[0])
                return f"{'any' if name == 'exists' else 'all'}({test} for {local} in {over})", True
            if name == "exists_one":
                return f"(sum(1 for {local} in {over} if {self.truth(args[0])}) == 1)", True
            if name == "filter":
                return f"[{local} for {local} in {over} if {self.truth(args[0])}]", False
            if len(args) == 1:
                return f"[{self.write(args[0])[0]} for {local} in {over}]", False
            keep = self.truth(args[0])
            return f"[{self.write(args[1])[0]} for {local} in {over} if {keep}]", False
        finally:
            self.scope.pop()


# ------------------------------------------------------------------ programs


def _plain(value: Any) -> Any:
    """A result as the other engines give it: lists, dicts, scalars."""
    if isinstance(value, _SEQUENCES):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _error(exc: BaseException) -> CelEvalError:
    if isinstance(exc, KeyError):
        return CelEvalError(f"no such key: {exc.args[0]!r}" if exc.args else "no such key")
    return CelEvalError(f"{type(exc).__name__}: {exc}")


class _NativeProgram(CelProgram):
    def __init__(
        self,
        point: str,
        exprs: Sequence[str],
        var_layers: Sequence[Mapping[str, str]],
        fallback: Callable[[], CelProgram],
    ) -> None:
        variables = VARIABLES_AT[point]
        exact = _Compiler(variables)
        trees = [parse(source) for source in exprs]
        known = variables.keys() | {"vars"}
        constant_vars: list[tuple[str, Fn]] = []
        self._call_vars: list[tuple[str, Fn]] = []
        for layer in var_layers:
            for name, source in layer.items():
                compiled = exact.compile(parse(source))
                names = referenced_names(source)
                if names & known or names & _NAMESPACES or "glob" in names:
                    self._call_vars.append((name, compiled))
                else:
                    constant_vars.append((name, compiled))
        # (the constants are the lists of a pack's `variables`: worked out once, here)
        try:
            self._constants = self._evaluate(constant_vars, {})
        except _Gap:
            raise Unsupported("a constant this engine does not work out") from None
        fast = _FastCompiler(variables, self._constants)
        self._exprs: list[tuple[Fn | None, Fn]] = []
        for tree in trees:
            try:
                quick: Fn | None = fast.function(tree)
            except (_FastUnsupported, SyntaxError, RecursionError, MemoryError):
                quick = None  # (Python's own parser refuses very deep nesting)
            self._exprs.append((quick, exact.compile(tree)))
        self._has_vars = bool(constant_vars or self._call_vars)
        needed: set[str] = set()
        for source in (*exprs, *(s for layer in var_layers for s in layer.values())):
            needed |= referenced_names(source)
        self.needs = frozenset(needed & variables.keys()) - {"vars"}
        self._fallback_of = fallback
        self._fallback: CelProgram | None = None
        self._lock = threading.Lock()

    def _on_cel_expr(self) -> CelProgram:
        """The same program on cel-expr-python, for the calls this one leaves to it."""
        program = self._fallback
        if program is None:
            with self._lock:
                if self._fallback is None:
                    self._fallback = self._fallback_of()
                program = self._fallback
        return program

    def _frame(self, data: Mapping[str, Any]) -> Frame:
        frame = dict(data)
        if self._has_vars:
            bound = dict(self._constants)
            frame["vars"] = bound
            if self._call_vars:
                self._evaluate(self._call_vars, bound, frame)
        return frame

    @staticmethod
    def _evaluate(
        layered: list[tuple[str, Fn]], bound: dict[str, Any], frame: Frame | None = None
    ) -> dict[str, Any]:
        """The variables' values, in dependency order; one that fails is left out, so
        the expressions that read it fail, as in the other engines."""
        frame = frame if frame is not None else {"vars": bound}
        for name, compiled in layered:
            try:
                bound[name] = compiled(frame)
            except Exception:  # noqa: BLE001 - its readers fail with "no such key"
                continue
        return bound

    @staticmethod
    def _one(quick: Fn | None, exact: Fn, frame: Frame) -> Any:
        """An expression's value: the fast form's, or, where it raised (an error CEL
        may absorb), the exact form's — which raises CEL's error if there is one."""
        if quick is not None:
            try:
                return quick(frame)
            except Exception:  # noqa: BLE001 - the exact form decides
                pass
        return exact(frame)

    def run_mask(self, data: Mapping[str, Any], call: object | None = None) -> int | None:
        try:
            return self._mask(data)
        except _Gap:
            return self._on_cel_expr().run_mask(data, call)
        except Exception:  # noqa: BLE001 - `run` says which expression fails, and why
            return None

    def _mask(self, data: Mapping[str, Any]) -> int | None:
        frame = self._frame(data)
        mask = 0
        bit = 1
        one = self._one
        for quick, exact in self._exprs:
            held = one(quick, exact, frame)
            if held is True:
                mask |= bit
            elif held is not False:
                return None
            bit <<= 1
        return mask

    def run(self, data: Mapping[str, Any], call: object | None = None) -> list[Any]:
        try:
            return self._results(data)
        except _Gap:
            return self._on_cel_expr().run(data, call)

    def _results(self, data: Mapping[str, Any]) -> list[Any]:
        frame = self._frame(data)
        results: list[Any] = []
        for quick, exact in self._exprs:
            try:
                results.append(_plain(self._one(quick, exact, frame)))
            except Exception as exc:  # noqa: BLE001 - this expression's error
                results.append(_error(exc))
        return results


class NativeEngine(CelEngine):
    """CEL compiled to Python; cel-expr-python for what is not (see the module)."""

    name = "native"

    def __init__(self) -> None:
        from policy.packs.cel.expr import ExprEngine

        self._cel_expr = ExprEngine()

    def program(
        self,
        point: str,
        exprs: Sequence[str],
        var_layers: Sequence[Mapping[str, str]],
        expr_layers: Sequence[Sequence[Mapping[str, str]]] | None = None,
        *,
        checked: bool = False,
        store: Any = None,
    ) -> CelProgram:
        def on_cel_expr() -> CelProgram:
            return self._cel_expr.program(
                point, exprs, var_layers, expr_layers, checked=checked, store=store
            )

        if not checked:
            # Unchecked sources are checked, and their errors reported, by cel-expr-python.
            on_cel_expr()
        try:
            return _NativeProgram(point, exprs, var_layers, on_cel_expr)
        except (Unsupported, RecursionError):
            return on_cel_expr()
