"""The `cel-expr-python` engine (Google's cel-cpp; the default).

Type-checked at compile time, ≈ 2 µs an evaluation, thread-safe. A runtime error
comes back as a Value of type ERROR — which is truthy if read carelessly — and is
turned into `CelEvalError` here, always. Pack variables are bound inside the
program with `cel.bind`: the source rewriting that does it lives here too, and the
checker (`policy.packs.cel.checker`), built on this engine's environments, reads it.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from policy import _lazy_dataclass
from policy._named_tuple import NamedTuple
from policy.analysis._lazy_re import LazyPattern
from policy.analysis.environ import home_variable
from policy.facts import home_dir
from policy.model import CallContext, CelList, CelMap, FrozenDict
from policy.packs.cel import constants
from policy.packs.cel import crossing as crossings
from policy.packs.cel.functions import (
    _FUNCTIONS,
    READS_ENV_HOME,
    READS_HOME,
    REMEMBERED_LENGTH,
    fn_re2_matches_constant,
    re2_matches_remembered,
)
from policy.packs.cel.interface import (
    VARIABLES_AT,
    CelCompileError,
    CelEngine,
    CelEvalError,
    CelIssue,
    CelProgram,
    referenced_names,
    var_references,
)

__all__ = ["ExprEngine", "parse_issues", "whole_vars_offset"]


def _var_layers_source(layers: Sequence[Mapping[str, str]], body: str) -> str:
    """Wrap `body` in `cel.bind(vars, {...}, ...)`, one bind per dependency layer.

    Values are bound as `dyn(...)`: a map literal of one double would otherwise
    type as map(string, double), stricter than the checker's map(string, dyn).

    Layer 0 holds variables that read no other variable; each later layer re-binds
    the names of the layers outside it, so `vars.a` stays visible further in.
    """
    wrapped = body
    for index in range(len(layers) - 1, -1, -1):
        outer = [name for layer in layers[:index] for name in layer]
        entries = [f'"{name}": vars.{name}' for name in outer]
        entries += [f'"{name}": dyn({source}\n)' for name, source in layers[index].items()]
        wrapped = f"cel.bind(vars, {{{', '.join(entries)}}}, {wrapped})"
    return wrapped


#: What `_named_vars` must tell apart in a CEL source: comments and string literals
#: (skipped: a quote in a comment starts no string),
#: `has(vars.x)` (a presence test, not a read), `x.vars` (someone else's field),
#: `vars.x` / `vars["x"]`, and any other use of `vars` (the whole map).
_VARS_TOKENS = LazyPattern(
    r"""
    (?P<comment>//[^\n]*)
    | (?P<string>[rRbB]{0,2}(?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''
        |"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'))
    | (?P<has>\bhas\s*\(\s*vars\b)
    | (?P<field>\.\s*vars\b)
    | (?P<ref>\bvars\s*(?:\.\s*(?P<n1>[A-Za-z_][A-Za-z0-9_]*)
        |\[\s*(?P<q>["'])(?P<n2>[A-Za-z_][A-Za-z0-9_]*)(?P=q)\s*\]))
    | (?P<whole>\bvars\b)
    """,
    re.VERBOSE,
)


def _named_vars(source: str) -> str | None:
    """`source` with each `vars.x` read as the identifier `_var_x`, or None.

    None when the source uses `vars` in a way a plain identifier cannot stand
    for (`has(vars.x)`, `vars` as a map), or holds a raw string with a
    backslash, whose end the scanner cannot be sure of.
    """
    out: list[str] = []
    last = 0
    for match in _VARS_TOKENS.finditer(source):
        kind = match.lastgroup
        if kind == "string":
            text = match.group("string")
            if "r" in text[:2].lower() and "\\" in text:
                return None
            continue
        if kind in ("field", "comment"):
            continue
        if match.group("ref") is None:
            return None
        out.append(source[last : match.start()])
        out.append(f"_var_{match.group('n1') or match.group('n2')}")
        last = match.end()
    out.append(source[last:])
    return "".join(out)


def whole_vars_offset(source: str) -> int | None:
    """Where `source` uses `vars` as a whole map (`"x" in vars`), or None.

    Packs bind only the variables an expression names, so such a use would
    read an unbound `vars` at run time: the checker refuses it at load.
    """
    for match in _VARS_TOKENS.finditer(source):
        if match.lastgroup == "whole":
            return match.start()
    return None


def _named_source(layers: Sequence[Mapping[str, str]], body: str) -> str | None:
    """`body` under one `cel.bind` per variable, outermost first; None if it cannot be.

    Cheaper to evaluate than the map of `_var_layers_source` (no map built per
    call, no map lookup per read), so the hot path compiles this form when every
    source allows it, and falls back to the map form otherwise. Both forms bind
    `dyn(...)`, as the checker types `vars.x`: without it, a variable's static
    type would refuse programs the checker accepted (`vars.half > 2` on a double).
    """
    wrapped = _named_vars(body)
    if wrapped is None:
        return None
    binds = [(name, src) for layer in layers for name, src in layer.items()]
    for name, source in reversed(binds):
        named = _named_vars(source)
        if named is None:
            return None
        wrapped = f"cel.bind(_var_{name}, dyn({named}\n), {wrapped})"
    return wrapped


def _cel_module() -> Any:
    from cel_expr_python import cel

    return cel


class _ExprEnvs:
    """One cel-expr-python environment per hook point (declarations differ).

    Each is built when a point first needs it (≈ 1.2 ms apiece): a one-event
    `policy hook` compiles for one point only.
    """

    def __init__(self, typed: bool = False, handles: bool = False) -> None:
        cel = _cel_module()
        from cel_expr_python.ext import ext_bindings, ext_strings

        self.cel = cel
        t = cel.Type
        self.bool_type = t.BOOL
        self.error_type = t.ERROR
        self._pool: Any = None
        if typed:
            from policy.packs.cel import types as cel_types

            self._pool = cel_types.descriptor_pool()
            command = t(cel_types.COMMAND)
            access = t(cel_types.ACCESS)
        else:
            command = access = t.Map(t.STRING, t.DYN)
        types = {
            "string": t.STRING,
            "map": t.Map(t.STRING, t.DYN),
            "timestamp": t.TIMESTAMP,
            "duration": t.DURATION,
            "bool": t.BOOL,
            "list_of_maps": t.List(t.Map(t.STRING, t.DYN)),
            "list_of_strings": t.List(t.STRING),
            "list_of_commands": t.List(command),
            "access": access,
            "int": t.INT,
        }
        overloads: dict[str, list[Any]] = {}

        def crossing(name: str, ret: str, impl: Any) -> tuple[Any, Any]:
            # run-time environments: a bool or string answer through a crossing
            # (policy.packs.cel.crossing), which leaves nothing behind; the checker's
            # environments keep the plain declarations and their exact types
            if handles and ret == "bool":
                return t(crossings.BOOL_WRAPPER), crossings.bool_crossing(impl, name)
            if handles and ret == "string":
                return t(crossings.STRING_WRAPPER), crossings.string_crossing(impl, name)
            if handles and ret.startswith("list_"):
                return types[ret], crossings.result_crossing(impl)
            return types[ret], impl

        def int_answered(name: str, params: list[Any], member: bool, impl: Any) -> None:
            # the same question answered 1 or 0, which rewritten calls compare
            # (constants.with_int_answers): the cheapest answer that leaves nothing
            int_name = constants.int_name(name)
            overloads[int_name] = [
                cel.Overload(
                    f"{int_name}_{len(params)}",
                    t.INT,
                    params,
                    is_member=member,
                    impl=crossings.int_crossing(impl, name),
                )
            ]

        for name, params, ret, impl, member in _FUNCTIONS:
            if handles and ret == "bool":
                int_answered(name, [types[p] for p in params], member, impl)
            returns, called = crossing(name, ret, impl)
            overloads.setdefault(name, []).append(
                cel.Overload(
                    f"{name.replace('.', '_')}_{'_'.join(params)}",
                    returns,
                    [types[p] for p in params],
                    is_member=member,
                    impl=called,
                )
            )
            if handles and name in constants.HANDLED:
                # the constant second argument by handle (policy.packs.cel.constants),
                # under a name of its own that only rewritten sources call
                handled = constants.HANDLE_FUNCTIONS[name]
                by_handle = _by_handle(
                    impl, home=name in READS_HOME, env_home=name in READS_ENV_HOME
                )
                int_answered(handled, [types[params[0]], t.INT], member, by_handle)
                returns, called = crossing(handled, ret, by_handle)
                overloads[handled] = [
                    cel.Overload(
                        f"{handled}_{params[0]}_int",
                        returns,
                        [types[params[0]], t.INT],
                        is_member=member,
                        impl=called,
                    )
                ]
        if handles:
            # `X.matches("literal")`, rewritten to name its pattern by handle
            # (constants.with_native_matches): RE2 compiled once, not at every call
            re2_by_handle = _by_handle(fn_re2_matches_constant, home=False)
            re2_members = (
                (constants.RE2_MATCHES_BY_HANDLE, "int", re2_by_handle),
                (constants.RE2_MATCHES, "string", re2_matches_remembered),
            )
            for name, pattern, impl in re2_members:
                int_answered(name, [t.STRING, types[pattern]], True, impl)
                returns, called = crossing(name, "bool", impl)
                overloads[name] = [
                    cel.Overload(
                        f"{name}_string_{pattern}",
                        returns,
                        [t.STRING, types[pattern]],
                        is_member=True,
                        impl=called,
                    ),
                ]
        self._types = types
        self._decls = [cel.FunctionDecl(name, group) for name, group in overloads.items()]
        self._extensions = (ext_bindings, ext_strings)
        self._envs: dict[str, Any] = {}
        self._lock = threading.Lock()

    def env(self, point: str) -> Any:
        found = self._envs.get(point)
        if found is None:
            with self._lock:
                found = self._envs.get(point)
                if found is None:
                    bindings, strings = self._extensions
                    types = self._types
                    found = self.cel.NewEnv(
                        descriptor_pool=self._pool,
                        variables={name: types[kind] for name, kind in VARIABLES_AT[point].items()},
                        functions=self._decls,
                        extensions=[bindings.ExtBindings(), strings.ExtStrings()],
                    )
                    self._envs[point] = found
        return found

    def compile(self, point: str, source: str, *, checked: bool = False, store: Any = None) -> Any:
        """`source` compiled; `checked`: the checker has passed every expression in it
        already (a pack's rules are checked when the pack loads), so the type check is
        skipped — a quarter of the compile, on the path of a one-event hook. With a
        `store`, a program compiled by an earlier process is read back instead."""
        env = self.env(point)
        if store is not None:
            kept = store.get(point, source)
            # a program that does not read back is compiled from its source, as on a miss
            with contextlib.suppress(Exception):
                if kept is not None:
                    _compiled_in(env)
                    return env.deserialize(kept)
        try:
            expr = env.compile(source, disable_check=checked)
        except RuntimeError as exc:
            raise CelCompileError(parse_issues(str(exc))) from None
        _COMPILED_IN[id(env)] = env
        if store is not None:
            store.put(point, source, expr.serialize())
        return expr




#: The environments (by id, held) that have compiled an expression in this process.
_COMPILED_IN: dict[int, Any] = {}


def _compiled_in(env: Any) -> None:
    """`env` made to have compiled something before a program is read back into it.

    cel-expr-python sets part of an environment up in its first `compile`, and
    `deserialize` does not: a program read back into an environment that had compiled
    nothing refused a `datetime` in its activation ("Non-CEL value type for 'now'"),
    so from a one-event hook's second start on, every rule reading `now` failed and
    denied the call (decision 0011 saw the same with a `dict` subclass). One compile
    of a constant (≈ 1.3 ms, once an environment, only where programs are read back)
    makes a read-back program run as a compiled one does."""
    if id(env) not in _COMPILED_IN:
        env.compile("true", disable_check=True)
        _COMPILED_IN[id(env)] = env


def _by_handle(impl: Any, *, home: bool, env_home: bool = False) -> Any:
    """`impl` taking its constant by handle, its answers remembered (bounded): the
    handled functions are lexical, so the same value asked of the same constant (by
    the same user, for those whose constant may say `~`: `home`; with the same `$HOME`,
    for those that normalise: `env_home`) has the same answer on every call."""
    values = constants.VALUES

    @functools.lru_cache(maxsize=4096)
    def answer(value: Any, handle: int, home: str) -> Any:
        return impl(value, values[handle])

    def call(value: Any, handle: int) -> Any:
        if len(value) > REMEMBERED_LENGTH:  # (a whole command line, up to 1 MiB: asked
            return impl(value, values[handle])  # again rather than kept 4,096 times)
        if home:
            return answer(value, handle, home_dir())
        return answer(value, handle, (home_variable() or "") if env_home else "")

    return call


_ISSUE = LazyPattern(r"ERROR: <input>:(\d+):(\d+): (.*)")


def parse_issues(message: str) -> list[CelIssue]:
    """cel-cpp's error text -> issues (it reports every error of an expression)."""
    issues = [CelIssue(int(m[1]), int(m[2]), m[3].strip()) for m in _ISSUE.finditer(message)]
    # an error inside an expression makes its type `*error*`, and cel-cpp reports each
    # use of that too: only the cause is news
    causes = [i for i in issues if "*error*" not in i.message]
    return causes or issues or [CelIssue(1, 1, message.strip())]


@functools.lru_cache(maxsize=1)
def _expr_envs() -> _ExprEnvs:
    return _ExprEnvs()


@functools.lru_cache(maxsize=1)
def _run_envs() -> _ExprEnvs:
    """The environments programs run in: `_expr_envs`' declarations and the handle
    overloads of `constants`, which only rewritten sources call (the checker's
    environments do not declare them, so a pack cannot)."""
    return _ExprEnvs(handles=True)


@functools.lru_cache(maxsize=1)
def _typed_envs() -> _ExprEnvs:
    """Environments where the facts are message types (`Command`, `Access`), so the
    checker refuses a misspelt field (`c.wrtes`) at its line:col. Only the checker
    uses them: at run time the facts are maps, which both engines take."""
    return _ExprEnvs(typed=True)


_PLAIN = frozenset({str, bool, int, float, type(None)})
#: Expressions per int mask: CEL ints are signed 64-bit.
_MASK_BITS = 62


def _to_expr_value(value: Any) -> Any:
    """cel-expr-python takes plain dicts and lists only (no tuples, no subclasses
    below the top level), so frozen values are copied into plain ones. The facts of
    a call come in that shape already (CelList, CelMap) and are passed as they are."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is CelList:
        return list(value)
    if kind is CelMap:
        return dict(value)
    if kind is FrozenDict or kind is dict or isinstance(value, Mapping):
        for item in value.values():
            if type(item) not in _PLAIN:
                return {str(k): _to_expr_value(v) for k, v in value.items()}
        return dict(value)
    if kind is tuple or kind is list:
        return [_to_expr_value(v) for v in value]
    return value


#: Fields of the call that cost nothing to hand a program and are the same objects for
#: every pack deciding one call: who asked and from where (CallContext), the tool's
#: names and the protected paths. Not `args` (reading it may refuse a long command),
#: not the facts (reading them runs the analysis), not `now` or `mode` (per pack).
_SHARED_FIELDS = frozenset(
    {*(f.name for f in _lazy_dataclass.fields(CallContext)), "tool", "tool_raw", "protected"}
)

#: Per thread: the environment, the call, the values (by identity) the last activation
#: was built from, the activation, and the converted values it borrows.
_shared = threading.local()
_ABSENT = object()


def _activation(env: Any, data: Mapping[str, Any], call: object | None) -> Any:
    """An activation holding `data`, shared by the programs that decide one call.

    cel-expr-python converts a value the first time a program reads it and keeps the
    conversion in the activation, so the packs deciding one call (each its own
    program, in the same environment per point) read the call's facts converted
    once, not once per pack. The last activation is reused only for the same `call`
    (the object being decided, held so its identity is not reused) and only when
    every value `data` names is the very object it was built from (values here are
    never mutated: CelList, CelMap, FrozenDict, str, tuples); names another program
    of the same call added stay in it unread. Another call, or none (`call` None:
    an explanation, a test), always starts from `data` alone: a program never reads
    a value of another call, and one missing from `data` is an error, never stale.
    """
    entry = getattr(_shared, "entry", None)
    merged: dict[str, Any]
    if call is not None and entry is not None and entry[0] is env and entry[1] is call:
        held: dict[str, Any] = entry[2]
        same = True
        for name, value in data.items():
            known = held.get(name, _ABSENT)
            if known is not value:
                if known is not _ABSENT:
                    held = {}  # a value of this call changed (per pack): start over
                same = False
        if same:
            return entry[3]
        merged = {**held, **data}
    else:
        merged = dict(data)
    converted = {}
    for name, value in merged.items():
        kind = type(value)
        if kind is CelList:
            value = list(value)  # one level: what is inside is plain already
        elif kind is CelMap or (kind is FrozenDict and value.flat):
            value = dict(value)
        elif kind not in _PLAIN:
            value = _to_expr_value(value)
        # (exact types only: a program read back from the program store refuses a
        # subclass in an activation, "Non-CEL value type")
        converted[name] = value
    activation = env.Activation(converted)
    # `converted` is kept with it: an activation borrows the Python values it was built
    # from (read when a program first reads them), it does not own them
    _shared.entry = (env, call, merged, activation, converted)
    return activation


def _used_layers(layers: Sequence[Mapping[str, str]], exprs: Sequence[str]) -> list[dict[str, str]]:
    """`layers` without the variables no expression reads any more (directly or through
    another variable): a constant passed by handle need not be built on every run.
    What is read is `var_references`' superset (strings and comments included), so a
    variable is dropped only when no text of the program names it."""
    sources = {name: source for layer in layers for name, source in layer.items()}
    wanted: set[str] = set()
    stack = [name for e in exprs for name, _ in var_references(e)]
    while stack:
        name = stack.pop()
        if name in wanted or name not in sources:
            continue
        wanted.add(name)
        stack.extend(ref for ref, _ in var_references(sources[name]))
    kept = [{n: src for n, src in layer.items() if n in wanted} for layer in layers]
    return [layer for layer in kept if layer]


def _balanced_sum(terms: Sequence[str]) -> str:
    """`terms` added up as a balanced tree, `((a + b) + (c + d))`: cel-cpp's parser
    nests a chain of `+` one level per term and refuses a source nested deeper than
    32, so a long flat sum inside one `cel.bind` per variable (the named form) would
    not parse, and every start would pay for the failed compile before the map form."""
    if not terms:
        return "0"
    if len(terms) == 1:
        return terms[0]
    half = len(terms) // 2
    return f"({_balanced_sum(terms[:half])} + {_balanced_sum(terms[half:])})"


class _Plan(NamedTuple):
    """What a program is compiled from, worked out from a pack's sources: the
    expressions with their constants by handle, the variables they still read, the
    call's fields they need, and the sources of the mask and list forms in the
    named-binding form (None when that form cannot hold them).

    Working it out scans every source with regular expressions, ≈ 20 ms for the
    shipped packs: on the path of every one-event `policy hook`. So it is kept in the
    program store next to the programs (same trust rules), keyed by what it is worked
    out from, and read back with the handles it registered."""

    exprs: list[str]
    var_layers: list[dict[str, str]]
    expr_layers: list[list[dict[str, str]]] | None
    needs: frozenset[str]
    handles: dict[int, str | tuple[str, ...]]
    mask_named: str | None
    list_named: str | None

    def to_bytes(self) -> bytes:
        import orjson

        return orjson.dumps(
            {
                "exprs": self.exprs,
                "var_layers": self.var_layers,
                "expr_layers": self.expr_layers,
                "needs": sorted(self.needs),
                "handles": [[h, v] for h, v in self.handles.items()],
                "mask_named": self.mask_named,
                "list_named": self.list_named,
            }
        )

    @classmethod
    def from_bytes(cls, body: bytes) -> _Plan | None:
        """The plan `to_bytes` wrote, its handles registered again; None when it is
        not one, or a handle cannot be registered (then it is worked out again)."""
        import orjson

        try:
            kept = orjson.loads(body)
            strings = _strings
            handles: dict[int, str | tuple[str, ...]] = {}
            for handle, value in kept["handles"]:
                constant = value if type(value) is str else tuple(strings(value))
                if not constants.register(handle, constant):
                    return None
                handles[handle] = constant
            expr_layers = kept["expr_layers"]
            return cls(
                exprs=strings(kept["exprs"]),
                var_layers=[_string_map(layer) for layer in kept["var_layers"]],
                expr_layers=None
                if expr_layers is None
                else [[_string_map(layer) for layer in layers] for layers in expr_layers],
                needs=frozenset(strings(kept["needs"])),
                handles=handles,
                mask_named=_string_or_none(kept["mask_named"]),
                list_named=_string_or_none(kept["list_named"]),
            )
        except (ValueError, TypeError, KeyError, AttributeError):
            return None


def _strings(value: Any) -> list[str]:
    if type(value) is not list or any(type(item) is not str for item in value):
        raise TypeError("not a list of strings")
    return value


def _string_map(value: Any) -> dict[str, str]:
    if type(value) is not dict or any(type(v) is not str for v in value.values()):
        raise TypeError("not a map of strings")
    return value


def _string_or_none(value: Any) -> str | None:
    if value is not None and type(value) is not str:
        raise TypeError("not a string")
    return value


def _work_out(
    point: str,
    exprs: Sequence[str],
    var_layers: Sequence[Mapping[str, str]],
    expr_layers: Sequence[Sequence[Mapping[str, str]]] | None,
    *,
    answers: bool = True,
) -> _Plan:
    """The plan of a program. `answers`: with `_int_answers`' rewrites, which nest a
    source deeper (a program near cel-cpp's depth of 32 is worked out again without)."""
    last: Any = _int_answers if answers else _as_it_is
    sources = {name: src for layer in var_layers for name, src in layer.items()}
    handles: dict[int, str | tuple[str, ...]] = {}
    rewritten = [
        constants.with_native_matches(constants.with_handles(e, sources, handles), handles)
        for e in exprs
    ]

    def matches_rewritten(layers: list[dict[str, str]]) -> list[dict[str, str]]:
        return [
            {
                name: last(constants.with_native_matches(src, handles))
                for name, src in layer.items()
            }
            for layer in layers
        ]

    used = matches_rewritten(_used_layers(var_layers, rewritten))
    used_per_expr = (
        None
        if expr_layers is None
        else [
            matches_rewritten(_used_layers(layers, [e]))
            for layers, e in zip(expr_layers, rewritten, strict=True)
        ]
    )
    rewritten = [last(e) for e in rewritten]
    names: set[str] = set()
    for source in (*rewritten, *(s for layer in used for s in layer.values())):
        names |= referenced_names(source)
    known = VARIABLES_AT[point].keys()
    # (and the call's own fields, read by some pack or other: handed to every
    # program, they let the packs of one call share one activation)
    needs = frozenset((names | _SHARED_FIELDS) & known) - {"vars"}
    return _Plan(
        exprs=rewritten,
        var_layers=used,
        expr_layers=used_per_expr,
        needs=needs,
        handles=handles,
        mask_named=_named_source(used, _mask_body(rewritten))
        if len(rewritten) <= _MASK_BITS
        else None,
        list_named=_named_source(used, _list_body(rewritten)),
    )


#: The bool functions of run-time environments, global and member, whose calls
#: `_int_answers` rewrites to their int-answering twins.
_INT_FUNCTIONS: Mapping[str, int] = {
    **{
        name: len(params)
        for name, params, ret, _i, member in _FUNCTIONS
        if ret == "bool" and not member
    },
    **dict.fromkeys(constants.HANDLE_FUNCTIONS.values(), 2),
}
_INT_MEMBERS = frozenset({constants.RE2_MATCHES, constants.RE2_MATCHES_BY_HANDLE})


def _as_it_is(source: str) -> str:
    return source


def _int_answers(source: str) -> str:
    """The last rewrites of a run-time source: `path.base` answered in CEL where it
    can be, and the bool functions answered as ints (policy.packs.cel.crossing)."""
    return constants.with_int_answers(
        constants.with_native_base(source), _INT_FUNCTIONS, _INT_MEMBERS
    )


# (Each source embedded in a wrapper ends in a line break: a source may end in a `//`
# comment, which would otherwise swallow the wrapper's closing parenthesis.)


def _mask_body(exprs: Sequence[str]) -> str:
    """The expressions summed into one int: `(e) ? 1 : 0` fails, and so fails the
    whole sum, when `e` errors or is not a bool."""
    return _balanced_sum([f"(({e}\n) ? {1 << i} : 0)" for i, e in enumerate(exprs)])


def _list_body(exprs: Sequence[str]) -> str:
    return "[" + ", ".join(f"({e}\n)" for e in exprs) + "]"


def _plan_key(
    exprs: Sequence[str],
    var_layers: Sequence[Mapping[str, str]],
    expr_layers: Sequence[Sequence[Mapping[str, str]]] | None,
) -> str:
    """What a plan is worked out from, as the program store's key for it."""
    import orjson

    return orjson.dumps(
        [
            list(exprs),
            [dict(layer) for layer in var_layers],
            None if expr_layers is None else [[dict(x) for x in ls] for ls in expr_layers],
        ]
    ).decode()


class _ExprProgram(CelProgram):
    def __init__(
        self,
        envs: _ExprEnvs,
        point: str,
        exprs: Sequence[str],
        var_layers: Sequence[Mapping[str, str]],
        expr_layers: Sequence[Sequence[Mapping[str, str]]] | None,
        *,
        checked: bool = False,
        store: Any = None,
    ) -> None:
        self._envs = envs
        self._checked = checked
        self._store = store
        self._env = envs.env(point)
        self._point = point
        self._plan_key = _plan_key(exprs, var_layers, expr_layers) if store is not None else ""
        kept = store.get(f"plan:{point}", self._plan_key) if store is not None else None
        plan = _Plan.from_bytes(kept) if kept is not None else None
        if plan is None:
            plan = _work_out(point, exprs, var_layers, expr_layers)
            self._keep(plan)
        self._use(plan)
        self._program: Any = None
        self._lock = threading.Lock()
        self._mask: Any = None
        try:
            self._compile_plan()
        except CelCompileError:
            # nested past cel-cpp's depth by the int answers' rewrite? Worked out again
            # without it: slower, as before; a program that fails that way too fails so
            again = _work_out(point, exprs, var_layers, expr_layers, answers=False)
            if again.exprs == plan.exprs and again.var_layers == plan.var_layers:
                raise
            self._use(again)
            self._keep(again)
            self._compile_plan()
        self.needs = self._plan.needs
        self._singles: list[Any] | None = None

    def _compile_plan(self) -> None:
        plan = self._plan
        if len(plan.exprs) <= _MASK_BITS:
            # An expression that is not a condition does not compile: `run` alone serves.
            with contextlib.suppress(CelCompileError):
                self._mask = self._compile(plan.var_layers, _mask_body(plan.exprs), "mask_named")
        if self._mask is None:
            # Compiled now, so that an expression that cannot compile fails here.
            self._program = self._compile(plan.var_layers, self._body, "list_named")
        # else the list form waits for the first `run`: the mask serves every call whose
        # conditions all give a bool (a cold `policy hook` compiles one program, not two).

    def _use(self, plan: _Plan) -> None:
        self._plan = plan
        self._exprs = plan.exprs
        self._expr_layers = plan.expr_layers
        self._var_layers = plan.var_layers
        self._body = _list_body(plan.exprs)

    def _list_program(self) -> Any:
        program = self._program
        if program is None:
            with self._lock:
                if self._program is None:
                    self._program = self._compile(self._var_layers, self._body, "list_named")
                program = self._program
        return program

    def _keep(self, plan: _Plan) -> None:
        if self._store is not None:
            self._store.put(f"plan:{self._point}", self._plan_key, plan.to_bytes())

    def _compile(self, layers: Sequence[Mapping[str, str]], body: str, form: str = "") -> Any:
        """The named-binding form when it compiles, else the map form. `form` names the
        plan's field that holds the named source (worked out here without one); when
        that source does not compile (cel-cpp refuses a source nested deeper than 32:
        one `cel.bind` per variable), the kept plan forgets it, so that later starts
        go straight to the map form."""
        named = getattr(self._plan, form) if form else _named_source(layers, body)
        if named is not None:
            try:
                return self._envs.compile(
                    self._point, named, checked=self._checked, store=self._store
                )
            except CelCompileError:  # the map form then says why, if it fails too
                if form == "mask_named":
                    self._plan = self._plan._replace(mask_named=None)
                    self._keep(self._plan)
                elif form == "list_named":
                    self._plan = self._plan._replace(list_named=None)
                    self._keep(self._plan)
        return self._envs.compile(
            self._point, _var_layers_source(layers, body), checked=self._checked, store=self._store
        )

    def run_mask(self, data: Mapping[str, Any], call: object | None = None) -> int | None:
        if self._mask is None:
            return super().run_mask(data, call)
        try:
            mask = self._mask.eval(_activation(self._env, data, call)).plain_value()
        except Exception:  # noqa: BLE001 - `run` says which expression fails, and why
            return None
        finally:
            crossings.settle()
        # An ERROR Value's plain value is its message, a str: never a mask.
        return mask if type(mask) is int else None

    def run(self, data: Mapping[str, Any], call: object | None = None) -> list[Any]:
        # Outside the `try`: a program that cannot compile is the hook's failure (denied
        # by the chain), as when it was compiled with the rest, never a CEL runtime error.
        program = self._list_program()
        # The program is a list literal: a list back means success. An error comes
        # back as a Value of type ERROR whose plain value is its message (a str),
        # which must never be read as a result.
        try:
            activation = _activation(self._env, data, call)
            result = program.eval(activation).plain_value()
            crossings.keep_nulls(result)
            if type(result) is list:
                return result
            # Some expression failed: evaluate each alone to say which.
            return [self._run_single(i, activation) for i in range(len(self._exprs))]
        except Exception as exc:  # noqa: BLE001 - input CEL cannot take fails every expression
            error = CelEvalError(f"cannot evaluate: {type(exc).__name__}: {exc}")
            return [error] * len(self._exprs)
        finally:
            crossings.settle()

    def _run_single(self, index: int, activation: Any) -> Any:
        singles = self._singles
        if singles is None:
            with self._lock:
                if self._singles is None:
                    self._singles = [None] * len(self._exprs)
                singles = self._singles
        program = singles[index]
        if program is None:
            layers = self._expr_layers[index] if self._expr_layers is not None else []
            program = self._compile(layers, f"[({self._exprs[index]}\n)]")
            singles[index] = program
        value = program.eval(activation).plain_value()
        crossings.keep_nulls(value)
        if type(value) is list:
            return value[0]
        return CelEvalError(str(value))


class ExprEngine(CelEngine):
    name = "cel-expr-python"

    def __init__(self) -> None:
        # Loaded with the first program: packs read from the cache compile
        # nothing until a call needs a program.
        self._loaded: _ExprEnvs | None = None

    @property
    def _envs(self) -> _ExprEnvs:
        if self._loaded is None:
            self._loaded = _run_envs()
        return self._loaded

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
        return _ExprProgram(
            self._envs, point, exprs, var_layers, expr_layers, checked=checked, store=store
        )
