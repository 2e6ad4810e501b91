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

One module a concern: `syntax` (source to tree), `values` (CEL's values and functions),
`exact` and `fast` (the two forms of an expression), `guard` (what an expression needs
of the facts before it can hold, and the pruning that checks it once a call: the ones
that cannot are not evaluated), `program` (a
program, and its shape kept between processes); this one is the engine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from policy.packs.cel.interface import CelEngine, CelProgram

if TYPE_CHECKING:
    from policy.packs.cel.native.program import NativeProgram

__all__ = ["NativeEngine", "NativeProgram"]


def __getattr__(name: str) -> Any:
    # (the programs' modules are loaded when a program is first made: a one-event hook
    # whose packs answer its call from the answers kept on disk makes none)
    if name != "NativeProgram":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from policy.packs.cel.native.program import NativeProgram

    globals()[name] = NativeProgram
    return NativeProgram


class NativeEngine(CelEngine):
    """CEL compiled to Python; cel-expr-python for what is not (see the module)."""

    name = "native"

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
            # (the shared engine, asked for when first needed: `get_engine` holds its
            # lock while it builds this one)
            from policy.packs.cel import get_engine

            return get_engine("cel-expr-python").program(
                point, exprs, var_layers, expr_layers, checked=checked, store=store
            )

        if not checked:
            # Unchecked sources are checked, and their errors reported, by cel-expr-python.
            on_cel_expr()
        from policy.packs.cel.native.program import NativeProgram
        from policy.packs.cel.native.syntax import Unsupported

        try:
            return NativeProgram(point, exprs, var_layers, on_cel_expr, store)
        except (Unsupported, RecursionError):
            return on_cel_expr()
