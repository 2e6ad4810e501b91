"""The exact form of an expression: closures over a frame that do what CEL does with
errors — `false && error` is false, an `exists` another element makes true is true —
at the cost of a Python call a node. Built when an expression's fast form raises
(policy.packs.cel.native.fast), or has none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from policy.packs.cel.native.syntax import Node, Unsupported, literal
from policy.packs.cel.native.values import (
    _ARITHMETIC,
    _FOREIGN_TYPES,
    Fn,
    Frame,
    _eq,
    _Gap,
    _in,
    _index,
    _items,
    _kind,
    _negate,
    _no_overload,
    _order,
    _ordered_items,
    _select,
    function_of,
)


def _the_vars(frame: Frame) -> Any:
    return frame["vars"]


class _Compiler:
    """One expression's tree to a closure over a frame (the call's variables, `vars`,
    and the macros' own variables)."""

    def __init__(self, variables: Mapping[str, str]) -> None:
        self.variables = variables
        self.scope: list[str] = []

    def compile(self, node: Node) -> Fn:
        return getattr(self, "_" + node[0])(*node[1:])  # type: ignore[no-any-return]

    def _lit(self, value: Any) -> Fn:
        return lambda frame: value

    def _id(self, name: str) -> Fn:
        if name not in self.scope:
            kind = self.variables.get(name)
            if kind is None or name == "vars":
                # (`vars` is read a variable at a time: `vars.x`, `has(vars.x)`,
                # `vars["x"]`; as a whole map packs refuse it, and cel-expr-python
                # binds only what each expression reads)
                raise Unsupported(f"the name {name}")
            if kind in _FOREIGN_TYPES:
                raise Unsupported(f"a {kind}")

        def read(frame: Frame) -> Any:
            return frame[name]

        return read

    def _operand(self, operand: Node) -> Fn:
        """The operand of a field read: `vars` itself when it is the pack variables."""
        if operand == ("id", "vars") and "vars" not in self.scope:
            return _the_vars
        return self.compile(operand)

    def _sel(self, operand: Node, field: str) -> Fn:
        of = self._operand(operand)

        def select(frame: Frame) -> Any:
            value = of(frame)
            if type(value) is dict:
                return value[field]
            return _select(value, field)

        return select

    def _has(self, operand: Node, field: str) -> Fn:
        of = self._operand(operand)

        def has(frame: Frame) -> bool:
            value = of(frame)
            if isinstance(value, Mapping):
                return field in value
            raise TypeError(f"has() on a {_kind(value)}")

        return has

    def _index(self, operand: Node, index: Node) -> Fn:
        if operand == ("id", "vars") and (index[0] != "lit" or type(index[1]) is not str):
            raise Unsupported("vars indexed by what is not a name")
        of, at = self._operand(operand), self.compile(index)
        return lambda frame: _index(of(frame), at(frame))

    def _list(self, items: tuple[Node, ...]) -> Fn:
        fixed, value = literal(("list", items))
        if fixed:
            return lambda frame: value
        each = [self.compile(item) for item in items]
        return lambda frame: [f(frame) for f in each]

    def _map(self, pairs: tuple[tuple[Node, Node], ...]) -> Fn:
        literal = [k[1] for k, _ in pairs if k[0] == "lit"]
        if len(set(map(repr, literal))) != len(literal):
            raise Unsupported("a map literal that repeats a key")  # (the whole program fails)
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
            fixed, values = literal(right)
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
        _, function, receiver = function_of(name, target, {*self.scope, *self.variables})
        if receiver and target is not None:
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


def _quantifier(decides: bool) -> Callable[[Fn, str, list[Fn]], Fn]:
    """`exists` (decided by an element that holds) or `all` (by one that does not):
    an element's error is absorbed when another decides, raised otherwise."""
    operator = "_||_" if decides else "_&&_"
    deciding, other = (True, False) if decides else (False, True)

    def build(over: Fn, variable: str, parts: list[Fn]) -> Fn:
        (test,) = parts

        def quantified(frame: Frame) -> bool:
            items = _items(over(frame))
            before = _bound(frame, variable)
            error: Exception | None = None
            try:
                for item in items:
                    frame[variable] = item
                    try:
                        held = test(frame)
                    except Exception as exc:  # noqa: BLE001 - absorbed if another decides
                        error = error or exc
                        continue
                    if held is deciding:
                        return bool(held)
                    if held is not other:
                        error = error or _no_overload(operator, held)
            finally:
                _restore(frame, variable, before)
            if error is not None:
                raise error
            return other

        return quantified

    return build


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
        items = _ordered_items(over(frame))
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
    """`filter`: `map` keeping each element that holds, as it is."""
    return _map_macro(over, variable, [parts[0], lambda frame: frame[variable]])


_MACRO_BUILDERS: dict[str, Callable[[Fn, str, list[Fn]], Fn]] = {
    "exists": _quantifier(True),
    "all": _quantifier(False),
    "exists_one": _exists_one,
    "map": _map_macro,
    "filter": _filter,
}
