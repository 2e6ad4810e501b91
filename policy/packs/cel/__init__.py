"""CEL for rule packs: one interface, three engines.

* `native` (default): conditions compiled to Python over the call's own values,
  cel-expr-python for what they do not cover (`policy.packs.cel.native`, decision
  0021). Its answers are cel-expr-python's; only their cost differs.
* `cel-expr-python` (Google's cel-cpp): type-checked at compile time,
  ≈ 2 µs an evaluation, thread-safe. A runtime error comes back as a Value of
  type ERROR — which is truthy if read carelessly — and is turned into
  `CelEvalError` here, always.
* `cel-python` (portable, pure Python): interpreted runner only (its compiled
  runner gives wrong results under threads), no type checker.

All see the same variables (`VARIABLES_AT`) and the same custom functions
(`glob`, `path.normalize`, `path.within`, `path.within_folded`,
`path.within_any_folded`, `path.holds_any_folded`, `path.resolve`,
`path.contained`, `path.matches`, `path.names`, `path.inside`, `path.inside_folded`,
`path.inside_any_folded`, `shell.commands`, `shell.has_substitution`,
`shell.parse_error`, `regex.replace`, `regex.matches`).
`path.matches`, `path.names` and the `_folded` functions compare names as macOS and
Windows do (case and Unicode normalisation folded): they are what denials ask;
`path.within` and `path.inside` compare exactly, for allows and exemptions. Whatever engine
runs the rules, `Checker` type-checks every expression with cel-expr-python, so
nothing loads that cannot be evaluated.

A program evaluates several expressions in one pass (the conditions of every rule
that can apply to a tool) and returns one result per expression. Pack variables
(`vars.x`) are computed once per program run: cel-expr-python binds them with
`cel.bind(vars, {...}, ...)` inside the program; native and cel-python compute
them in Python before the expressions that need them.

One module a concept: `interface` (variables, errors, the program and engine
interfaces), `functions` (the custom functions every engine offers), `native`,
`expr` and `celpython` (one engine each), `checker` (load-time checks), `types` (the facts as
message types, for the checker). This package picks an engine by name.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from policy.analysis._lazy_module import names_on_first_use
from policy.packs.cel.functions import UNPORTABLE, take_gave_up
from policy.packs.cel.interface import (
    VARIABLES_AT,
    CelCompileError,
    CelEngine,
    CelEvalError,
    CelIssue,
    CelProgram,
    referenced_names,
)

__all__ = [
    "ENGINES",
    "UNPORTABLE",
    "VARIABLES_AT",
    "CelCompileError",
    "CelEngine",
    "CelEvalError",
    "CelIssue",
    "CelProgram",
    "CheckResult",
    "Checker",
    "ExprEngine",
    "PyEngine",
    "get_engine",
    "parse_issues",
    "referenced_names",
    "take_gave_up",
    "whole_vars_offset",
]

ENGINES = ("native", "cel-expr-python", "cel-python")

if TYPE_CHECKING:
    from policy.packs.cel.celpython import PyEngine
    from policy.packs.cel.checker import Checker, CheckResult
    from policy.packs.cel.expr import ExprEngine, parse_issues, whole_vars_offset

#: Names whose modules load on first use (PEP 562): a one-event hook evaluating
#: natively needs neither the other engines nor the checker — nor cel-expr-python's
#: wrapper, until a program the native engine leaves to it is built.
_ON_USE = {
    "PyEngine": "celpython",
    "Checker": "checker",
    "CheckResult": "checker",
    "ExprEngine": "expr",
    "parse_issues": "expr",
    "whole_vars_offset": "expr",
}

__getattr__ = names_on_first_use(__name__, _ON_USE, globals())


_engines: dict[str, CelEngine] = {}
_engines_lock = threading.Lock()


def get_engine(name: str) -> CelEngine:
    """The shared engine called `name` (one of `ENGINES`)."""
    with _engines_lock:
        engine = _engines.get(name)
        if engine is None:
            if name == "native":
                from policy.packs.cel.native import NativeEngine

                engine = NativeEngine()
            elif name == "cel-expr-python":
                from policy.packs.cel.expr import ExprEngine

                engine = ExprEngine()
            elif name == "cel-python":
                from policy.packs.cel.celpython import PyEngine

                engine = PyEngine()
            else:
                raise ValueError(f"unknown CEL engine {name!r} (known: {', '.join(ENGINES)})")
            _engines[name] = engine
        return engine
