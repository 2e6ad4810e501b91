"""The `cel-python` engine (portable, pure Python).

Interpreted runner only (its compiled runner gives wrong results under threads), no
type checker: `policy.packs.cel.checker` checks with cel-expr-python whatever engine
evaluates. Pack variables are computed in Python, lazily, before the expressions
that need them. Named `celpython`, not `celpy`: that is the library it wraps.
"""

from __future__ import annotations

import datetime as _dt
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from policy.packs.cel.functions import _FUNCTIONS, _STRING_MEMBERS, fn_glob
from policy.packs.cel.interface import (
    VARIABLES_AT,
    CelCompileError,
    CelEngine,
    CelEvalError,
    CelIssue,
    CelProgram,
    referenced_names,
)

__all__ = ["PyEngine"]


class _Namespace:
    """The value bound to `shell`, `path` and `regex` in cel-python activations:
    cel-python parses `shell.commands(x)` as a member call on `shell`."""

    def __init__(self, name: str) -> None:
        self.name = name


class _PyRuntime:
    def __init__(self) -> None:
        import celpy
        from celpy import celtypes
        from celpy.adapter import json_to_cel
        from celpy.celparser import CELParseError
        from celpy.evaluation import CELEvalError

        self.celpy = celpy
        self.celtypes = celtypes
        self.json_to_cel = json_to_cel
        self.parse_error = CELParseError
        self.eval_error = CELEvalError
        self.env = celpy.Environment()
        self.functions: dict[str, Callable[..., Any]] = {"glob": self._wrap(fn_glob)}
        by_namespace: dict[str, dict[str, Callable[..., Any]]] = {}
        members: dict[str, Callable[..., Any]] = dict(_STRING_MEMBERS)
        for name, _params, _ret, impl, _member in _FUNCTIONS:
            if "." in name:
                namespace, function = name.split(".", 1)
                by_namespace.setdefault(function, {})[namespace] = impl
        from celpy.evaluation import base_functions

        for name in {*by_namespace, *members}:
            # `path.matches(p, globs)` and `s.matches(re)` share a name: a member call
            # that is not on a namespace goes to cel-python's own function.
            builtin = base_functions.get(name)
            self.functions[name] = self._dispatch(
                name,
                by_namespace.get(name, {}),
                members.get(name) or builtin,
                raw=builtin is not None and name not in members,
            )
        self.functions["string"] = self._string
        self.namespaces = {
            ns: celtypes.MapType({celtypes.StringType("__namespace__"): celtypes.StringType(ns)})
            for ns in ("shell", "path", "regex")
        }

    def _string(self, value: Any) -> Any:
        """cel-python's string() gives 'True' for true and 'None' for null; CEL says
        'true', and no string(null) overload exists."""
        celtypes = self.celtypes
        if isinstance(value, celtypes.BoolType):
            return celtypes.StringType("true" if value else "false")
        if value is None or isinstance(value, celtypes.NullType):
            raise TypeError("no matching overload for string(null)")
        return celtypes.StringType(value)

    def _wrap(self, impl: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any) -> Any:
            return self.to_cel(impl(*(self.to_python(a) for a in args)))

        return call

    def _dispatch(
        self,
        name: str,
        namespaced: Mapping[str, Callable[..., Any]],
        member: Callable[..., Any] | None,
        *,
        raw: bool = False,
    ) -> Callable[..., Any]:
        """cel-python sees `shell.commands(x)` and `s.split(",")` alike: a member
        call on the receiver. A namespace marker tells the two apart."""
        celtypes = self.celtypes
        marker_key = celtypes.StringType("__namespace__")

        def call(target: Any, *args: Any) -> Any:
            if isinstance(target, celtypes.MapType) and marker_key in target:
                impl = namespaced.get(str(target[marker_key]))
                if impl is None:
                    raise TypeError(f"no function {target[marker_key]}.{name}()")
                return self.to_cel(impl(*(self.to_python(a) for a in args)))
            if member is None:
                raise TypeError(f"no function {name}() on {type(target).__name__}")
            if raw:  # cel-python's own function takes and gives CEL values
                return member(target, *args)
            return self.to_cel(member(self.to_python(target), *(self.to_python(a) for a in args)))

        return call

    def to_cel(self, value: Any) -> Any:
        celtypes = self.celtypes
        if isinstance(value, _dt.datetime):
            return celtypes.TimestampType(value)
        if isinstance(value, _dt.timedelta):
            return celtypes.DurationType(value)
        if isinstance(value, Mapping):
            return celtypes.MapType(
                {celtypes.StringType(str(k)): self.to_cel(v) for k, v in value.items()}
            )
        if isinstance(value, list | tuple):
            return celtypes.ListType([self.to_cel(v) for v in value])
        return self.json_to_cel(value)

    def to_python(self, value: Any) -> Any:
        celtypes = self.celtypes
        if isinstance(value, celtypes.BoolType):
            return bool(value)
        if isinstance(value, celtypes.StringType):
            return str(value)
        if isinstance(value, celtypes.IntType | celtypes.UintType):
            return int(value)
        if isinstance(value, celtypes.DoubleType):
            return float(value)
        if isinstance(value, celtypes.ListType):
            return [self.to_python(v) for v in value]
        if isinstance(value, celtypes.MapType):
            return {self.to_python(k): self.to_python(v) for k, v in value.items()}
        if isinstance(value, celtypes.BytesType):
            return bytes(value)
        if isinstance(value, celtypes.TimestampType):
            return _dt.datetime.fromtimestamp(value.timestamp(), tz=_dt.UTC)
        if isinstance(value, celtypes.DurationType):
            return _dt.timedelta(seconds=value.total_seconds())
        if value is None or isinstance(value, celtypes.NullType):
            return None
        return value

    def compile(self, source: str) -> Any:
        try:
            ast = self.env.compile(source)
        except self.parse_error as exc:
            line = getattr(exc, "line", None) or 1
            col = getattr(exc, "column", None) or 1
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else "syntax error"
            raise CelCompileError([CelIssue(line, col, f"Syntax error: {first}")]) from None
        return self.env.program(ast, functions=self.functions)

    def evaluate(self, program: Any, activation: Mapping[str, Any]) -> Any:
        try:
            value = program.evaluate(activation)
        except self.eval_error as exc:
            return CelEvalError(_celpy_message(exc))
        except Exception as exc:  # noqa: BLE001 - any failure is this expression's error
            return CelEvalError(f"{type(exc).__name__}: {exc}")
        if isinstance(value, self.eval_error):
            return CelEvalError(_celpy_message(value))
        return self.to_python(value)


def _celpy_message(exc: BaseException) -> str:
    args = getattr(exc, "args", ())
    return str(args[0]) if args else type(exc).__name__


@functools.lru_cache(maxsize=1)
def _py_runtime() -> _PyRuntime:
    return _PyRuntime()


class _PyProgram(CelProgram):
    def __init__(
        self,
        runtime: _PyRuntime,
        point: str,
        exprs: Sequence[str],
        var_layers: Sequence[Mapping[str, str]],
    ) -> None:
        self._rt = runtime
        self._exprs = [runtime.compile(e) for e in exprs]
        self._vars = [
            {name: runtime.compile(src) for name, src in layer.items()} for layer in var_layers
        ]
        names: set[str] = set()
        for source in (*exprs, *(s for layer in var_layers for s in layer.values())):
            names |= referenced_names(source)
        self.needs = frozenset(names & VARIABLES_AT[point].keys()) - {"vars"}
        # Variables that read nothing of the call (lists of globs, regexes) are the same
        # on every call: evaluated once. The interpreted engine would otherwise rebuild
        # a list of a hundred strings per call, per variable.
        known = VARIABLES_AT[point].keys() | {"vars"}
        self._constant = {
            name
            for layer in var_layers
            for name, src in layer.items()
            if not referenced_names(src) & known
        }
        self._constants: dict[str, Any] | None = None

    def run(self, data: Mapping[str, Any], call: object | None = None) -> list[Any]:
        try:
            return self._run(data)
        except Exception as exc:  # noqa: BLE001 - input CEL cannot take fails every expression
            error = CelEvalError(f"cannot evaluate: {type(exc).__name__}: {exc}")
            return [error] * len(self._exprs)

    def _run(self, data: Mapping[str, Any]) -> list[Any]:
        rt = self._rt
        activation: dict[str, Any] = {k: rt.to_cel(v) for k, v in data.items()}
        activation.update(rt.namespaces)
        if self._vars:
            constants = self._constants
            if constants is None:
                constants = self._constants = self._evaluate_constants()
            bound: dict[Any, Any] = dict(constants)
            key = rt.celtypes.StringType
            for layer in self._vars:
                activation["vars"] = rt.celtypes.MapType(bound)
                for name, program in layer.items():
                    if name in self._constant:
                        continue
                    value = rt.evaluate(program, activation)
                    if isinstance(value, CelEvalError):
                        # Leave it out: expressions that read it fail with a clear error.
                        continue
                    bound[key(name)] = rt.to_cel(value)
            activation["vars"] = rt.celtypes.MapType(bound)
        return [rt.evaluate(program, activation) for program in self._exprs]

    def _evaluate_constants(self) -> dict[Any, Any]:
        rt = self._rt
        activation: dict[str, Any] = dict(rt.namespaces)
        found: dict[Any, Any] = {}
        for layer in self._vars:
            for name, program in layer.items():
                if name not in self._constant:
                    continue
                value = rt.evaluate(program, activation)
                if not isinstance(value, CelEvalError):
                    found[rt.celtypes.StringType(name)] = rt.to_cel(value)
        return found


class PyEngine(CelEngine):
    name = "cel-python"

    def __init__(self) -> None:
        self._rt = _py_runtime()

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
        return _PyProgram(self._rt, point, exprs, var_layers)
