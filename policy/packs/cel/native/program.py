"""A native program: its expressions' fast forms, their exact forms when needed, the
pack variables, and the shape they are built from — kept between processes.

A one-event hook builds the programs of the call it decides at every start; parsing
the shipped packs' conditions is most of that. So the shape of a program (its trees,
which pack variables are constants and their values, the variables it reads) is kept
in the pack cache's program store (`policy.packs.cache.ProgramStore`, the same trust
rules as the compiled packs), with what each condition's guard needs. It is data, not
code: the needs are checked part by part as they are read back, and a kept tree node
by node (kinds, arities, names that are identifiers, literal values that are scalars)
when its condition is first built; the Python source is written again from it here.
A need that does not check makes the entry a miss; a tree, its program's calls
cel-expr-python's.

A condition is built in tiers (decision 0027): its exact form for its first
evaluation, its fast form for its second — a one-event hook evaluates each once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

from policy._json_bytes import dumps, loads
from policy._named_tuple import NamedTuple
from policy.analysis._lazy_re import LazyPattern
from policy.packs.cel.functions import take_gave_up
from policy.packs.cel.interface import (
    VARIABLES_AT,
    CelEvalError,
    CelProgram,
    referenced_names,
    var_references,
)
from policy.packs.cel.native.exact import _Compiler
from policy.packs.cel.native.fast import _FastCompiler, _FastUnsupported
from policy.packs.cel.native.guard import Need, Pruning, check_of, kept_need, need_of, read_need
from policy.packs.cel.native.syntax import (
    _MACROS,
    IDENTIFIER,
    TREE_DEPTH,
    Node,
    Unsupported,
    parse,
)
from policy.packs.cel.native.values import _NAMESPACES, _SEQUENCES, Fn, Frame, _Gap

__all__ = ["NativeProgram"]

#: The layout of a kept shape; another one is a miss. (3: with the guards' needs, and
#: each tree kept as a JSON text of its own, parsed when its condition is first built;
#: 4: needs looked through the pack's variables, and read from `regex.matches` patterns.)
_FORMAT = 4
_SYMBOLS = frozenset({"<", "<=", ">", ">=", "==", "!=", "in", "+", "-", "*", "/", "%"})
_ONE = frozenset({"not", "neg"})
_TWO = frozenset({"and", "or", "index"})
#: An expression's tiers (`NativeProgram._promote`): not built; its exact form built
#: before its first evaluation (an expression without a guard is built with its
#: program); its exact form evaluated once; its fast form built, or found not to exist.
_UNBUILT, _READY, _EXACT, _FAST = 0, 1, 2, 3


class _Shape(NamedTuple):
    """What a program is built from."""

    #: the expressions' trees (read back from a kept shape one by one, when first asked
    #: for: `_KeptTrees`)
    trees: Sequence[Node]
    #: (name, tree) of the pack variables that read the call, in dependency order
    call_vars: tuple[tuple[str, Node], ...]
    #: the values of those that read nothing of it (lists of globs, names)
    constants: dict[str, Any]
    needs: frozenset[str]
    #: what each expression needs of the call's facts before it can hold (its guard:
    #: policy.packs.cel.native.guard)
    guard_needs: tuple[Need, ...]


class _KeptTrees(Sequence[Node]):
    """A kept shape's trees, each parsed from its JSON text and checked (`_node`) when
    first asked for: a call builds a fraction of its programs' conditions (the guards
    rule out the rest), and parsing and checking every kept tree was most of reading a
    shape back. A tree that does not check is beyond this engine (Unsupported): its
    program's call goes to cel-expr-python, which compiles the source."""

    __slots__ = ("_kept", "_read")

    def __init__(self, kept: list[str]) -> None:
        self._kept = kept
        self._read: list[Node | None] = [None] * len(kept)

    def __len__(self) -> int:
        return len(self._kept)

    @overload
    def __getitem__(self, index: int) -> Node: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Node]: ...

    def __getitem__(self, index: int | slice) -> Node | Sequence[Node]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        tree = self._read[index]
        if tree is None:
            try:
                tree = _node(loads(self._kept[index]))
            except (ValueError, TypeError, RecursionError):  # (orjson's error is a ValueError)
                raise Unsupported("a kept tree that does not check") from None
            self._read[index] = tree
        return tree


def _reads_constants(source: str, constants: set[str]) -> bool:
    """Whether every use of `vars` in `source` names a pack variable among `constants`
    (`vars.x`, `vars["x"]`): a variable made of constants only is a constant too, worked
    out once (`'^(?:' + vars.commands.join('|') + ')'`), not at every call. `vars` used
    any other way (`size(vars)`) reads the call's whole map."""
    reads = var_references(source)
    return len(reads) == len(_VARS.findall(source)) and all(n in constants for n, _ in reads)


_VARS = LazyPattern(r"\bvars\b")


def _shape_of(point: str, exprs: Sequence[str], var_layers: Sequence[Mapping[str, str]]) -> _Shape:
    variables = VARIABLES_AT[point]
    known = variables.keys() | {"vars"}
    exact = _Compiler(variables)
    constant_vars: list[tuple[str, Fn]] = []
    call_vars: list[tuple[str, Node]] = []
    folded: set[str] = set()  # (the constants so far: the layers come in dependency order)
    defined: set[str] = set()
    for layer in var_layers:
        for name, source in layer.items():
            if name in defined:
                # (a later layer's definition shadows an earlier one, as nested binds do:
                # packs never hand such layers, one written through the engine's API is
                # cel-expr-python's to read, rather than a constant taken for the call's)
                raise Unsupported(f"the pack variable {name} defined twice")
            defined.add(name)
            tree = parse(source)
            names = referenced_names(source)
            reads_call = names & (known - {"vars"}) or names & _NAMESPACES or "glob" in names
            if reads_call or ("vars" in names and not _reads_constants(source, folded)):
                call_vars.append((name, tree))
            else:
                constant_vars.append((name, exact.compile(tree)))
                folded.add(name)
    constants: dict[str, Any] = {}
    frame = {"vars": constants}
    for name, compiled in constant_vars:
        try:
            constants[name] = compiled(frame)
        except (Exception, _Gap):  # noqa: BLE001 - see _frame: a failed variable is cel-cpp's
            raise Unsupported(f"the pack variable {name} fails") from None
    needed: set[str] = set()
    for source in (*exprs, *(s for layer in var_layers for s in layer.values())):
        needed |= referenced_names(source)
    trees = tuple(parse(source) for source in exprs)
    return _Shape(
        trees,
        tuple(call_vars),
        constants,
        frozenset(needed & variables.keys()) - {"vars"},
        tuple(need_of(tree, variables, constants, dict(call_vars)) for tree in trees),
    )


# ------------------------------------------------------------------ kept shapes


def _encode(value: Any) -> Any:
    kind = type(value)
    if kind in (str, int, bool, type(None)):
        return value
    if kind is float:
        return {"f": repr(value)}
    if kind is tuple:
        return {"t": [_encode(v) for v in value]}
    if kind is list:
        return {"l": [_encode(v) for v in value]}
    if kind is dict:
        return {"d": [[_encode(k), _encode(v)] for k, v in value.items()]}
    raise TypeError(f"cannot keep a {kind.__name__}")


def _decode(value: Any) -> Any:
    kind = type(value)
    if kind in (str, int, bool, type(None)):
        return value
    if kind is dict and len(value) == 1:
        ((tag, body),) = value.items()
        if tag == "f" and type(body) is str:
            return float(body)
        if tag in ("t", "l") and type(body) is list:
            items = [_decode(v) for v in body]
            return tuple(items) if tag == "t" else items
        if tag == "d" and type(body) is list:
            return {_decode(k): _decode(v) for k, v in body}
    raise ValueError("not a kept value")


def _tree(node: Node) -> Any:
    """A tree as JSON: lists for tuples, literals as `_encode` writes them."""
    kind = node[0]
    if kind == "lit":
        return ["lit", _encode(node[1])]
    if kind == "call":
        target = None if node[2] is None else _tree(node[2])
        return ["call", node[1], target, [_tree(a) for a in node[3]]]
    if kind == "list":
        return ["list", [_tree(a) for a in node[1]]]
    if kind == "map":
        return ["map", [[_tree(k), _tree(v)] for k, v in node[1]]]
    if kind == "macro":
        return ["macro", node[1], _tree(node[2]), node[3], [_tree(a) for a in node[4]]]
    return [kind, *(_tree(part) if type(part) is tuple else part for part in node[1:])]


def _name(value: Any) -> str:
    if type(value) is not str or IDENTIFIER.fullmatch(value) is None:
        raise ValueError("not an identifier")
    return value


def _node(value: Any, depth: int = 1) -> Node:
    """A kept tree read back, every node checked: only what `parse` makes passes (no
    deeper than it reads, either)."""
    if type(value) is not list or not value or type(value[0]) is not str:
        raise ValueError("not a node")
    if depth > TREE_DEPTH:
        raise ValueError("too deep")
    depth += 1
    kind, parts = value[0], value[1:]
    if kind == "lit" and len(parts) == 1:
        literal = _decode(parts[0])
        if type(literal) not in (str, int, bool, float, type(None)) or (
            type(literal) is int and not -(1 << 63) <= literal < 1 << 63
        ):
            raise ValueError("not a literal parse makes")
        return ("lit", literal)
    if kind == "id" and len(parts) == 1:
        return ("id", _name(parts[0]))
    if kind in ("sel", "has") and len(parts) == 2:
        return (kind, _node(parts[0], depth), _name(parts[1]))
    if kind in _TWO and len(parts) == 2:
        return (kind, _node(parts[0], depth), _node(parts[1], depth))
    if kind in _ONE and len(parts) == 1:
        return (kind, _node(parts[0], depth))
    if kind == "cond" and len(parts) == 3:
        return ("cond", *(_node(p, depth) for p in parts))
    if kind == "op" and len(parts) == 3 and parts[0] in _SYMBOLS:
        return ("op", parts[0], _node(parts[1], depth), _node(parts[2], depth))
    if kind == "list" and len(parts) == 1 and type(parts[0]) is list:
        return ("list", tuple(_node(p, depth) for p in parts[0]))
    if kind == "map" and len(parts) == 1 and type(parts[0]) is list:
        return ("map", tuple((_node(k, depth), _node(v, depth)) for k, v in parts[0]))
    if kind == "call" and len(parts) == 3 and type(parts[2]) is list:
        target = None if parts[1] is None else _node(parts[1], depth)
        return ("call", _name(parts[0]), target, tuple(_node(p, depth) for p in parts[2]))
    if (
        kind == "macro"
        and len(parts) == 4
        and parts[0] in _MACROS
        and type(parts[3]) is list
        and len(parts[3]) in (1, 2)
    ):
        args = tuple(_node(p, depth) for p in parts[3])
        return ("macro", parts[0], _node(parts[1], depth), _name(parts[2]), args)
    raise ValueError(f"not a node: {kind!r}")


def _kept(shape: _Shape) -> bytes:
    return dumps(
        {
            "format": _FORMAT,
            "trees": [dumps(_tree(t)).decode() for t in shape.trees],
            "call_vars": [[name, _tree(t)] for name, t in shape.call_vars],
            "constants": [[name, _encode(v)] for name, v in shape.constants.items()],
            "needs": sorted(shape.needs),
            "guard_needs": [kept_need(need) for need in shape.guard_needs],
        }
    )


def _read_back(point: str, body: bytes) -> _Shape:
    entry = loads(body)
    if type(entry) is not dict or entry.get("format") != _FORMAT:
        raise ValueError("another layout")
    kept = entry["trees"]
    if type(kept) is not list or not all(type(tree) is str for tree in kept):
        raise ValueError("not a list of trees")
    call_vars = tuple((_name(n), _node(t)) for n, t in entry["call_vars"])
    constants = {_name(n): _decode(v) for n, v in entry["constants"]}
    needs = frozenset(_name(n) for n in entry["needs"])
    if not needs <= VARIABLES_AT[point].keys() - {"vars"}:
        raise ValueError("needs a variable the point does not have")
    guard_needs = tuple(read_need(need) for need in entry["guard_needs"])
    if len(guard_needs) != len(kept):
        raise ValueError("not a need for each tree")
    return _Shape(_KeptTrees(kept), call_vars, constants, needs, guard_needs)


def _shape(
    point: str, exprs: Sequence[str], var_layers: Sequence[Mapping[str, str]], store: Any
) -> _Shape:
    """The program's shape: kept, or worked out (and kept)."""
    if store is None:
        return _shape_of(point, exprs, var_layers)
    source = dumps([list(exprs), [dict(layer) for layer in var_layers]]).decode()
    body = store.get(f"native:{point}", source)
    if body is not None:
        try:
            shape = _read_back(point, body)
        except Exception:  # noqa: BLE001 - an entry we cannot read is a miss
            pass
        else:
            if len(shape.trees) == len(exprs):
                return shape
    shape = _shape_of(point, exprs, var_layers)
    try:
        kept = _kept(shape)
    except TypeError:  # a constant no entry can hold: not kept
        return shape
    store.put(f"native:{point}", source, kept)
    return shape


# ------------------------------------------------------------------ programs


def _handed_over() -> None:
    """Forget a `shell.*` give-up this engine met before handing the call to
    cel-expr-python: the engine that answers is the one whose give-ups refuse it. (This
    one works out every variable the program binds before any condition, cel-expr-python
    only those a condition reads: a variable calling `shell.*` that gave up, read by no
    condition the call reaches, refused every call here and none there — a red team.)
    cel-expr-python runs the whole program again and notes any give-up it meets."""
    take_gave_up()


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


class NativeProgram(CelProgram):
    """The expressions of one pack at one point, compiled to Python."""

    def __init__(
        self,
        point: str,
        exprs: Sequence[str],
        var_layers: Sequence[Mapping[str, str]],
        fallback: Callable[[], CelProgram],
        store: Any = None,
    ) -> None:
        shape = _shape(point, exprs, var_layers, store)
        self._variables = VARIABLES_AT[point]
        self._trees = shape.trees
        self._constants = shape.constants
        self.needs = shape.needs
        self._fast_compiler = _FastCompiler(self._variables, self._constants)
        self._lock = threading.Lock()
        #: Each expression's guard (policy.packs.cel.native.guard), None for one that
        #: needs nothing a guard checks: until it is built, an expression whose guard
        #: fails is false without being built. (Once built, it is evaluated unless
        #: the pruning rules it out: a guard checked per expression costs about what
        #: evaluating it does.)
        needs = shape.guard_needs
        self._guards = [None if need is None else check_of(need) for need in needs]
        self._needs = list(needs)
        #: The facts the expressions need, each checked once a call for all of them —
        #: written and compiled for the program's second mask (`_prune`): its first
        #: asks each expression's guard instead, which compiles nothing.
        self._pruning: Pruning | None = None
        self._pruned = False
        self._masked = False
        self._fast: list[Fn | None] = [None] * len(shape.trees)
        self._exact: list[Fn | None] = [None] * len(shape.trees)
        #: Each expression's tier (which of its forms are built: `_promote`).
        self._tier = [_UNBUILT] * len(shape.trees)
        for index, guard in enumerate(self._guards):
            # (one without a guard is evaluated at every call: built now, as they always
            # were; a guarded one is built when its guard first passes: a one-event
            # hook builds only what its call needs)
            if guard is None and self._first_build(index) is not None:
                self._tier[index] = _READY
        #: (name, fast form or None, tree) of the variables that read the call: their
        #: exact forms are built now, their fast forms when a second frame is made
        #: (`_frame`), as the expressions' are at their second evaluation.
        self._var_exact: dict[str, Fn] = {}
        self._call_vars: list[tuple[str, Fn | None, Node]] = [
            (name, self._first_var_form(name, tree), tree) for name, tree in shape.call_vars
        ]
        self._vars_fast = not shape.call_vars
        self._framed = False
        self._fallback_of = fallback
        self._fallback: CelProgram | None = None
        #: Set when an expression built on first need turned out to be beyond both
        #: forms: from then on every call is cel-expr-python's.
        self._unsupported = False

    @staticmethod
    def _fast_form(fast: _FastCompiler, tree: Node) -> Fn | None:
        try:
            return fast.function(tree)
        except (_FastUnsupported, SyntaxError, RecursionError, MemoryError):
            return None  # (Python's own parser refuses very deep nesting)

    @property
    def _built(self) -> list[bool]:
        """Whether each expression is built (in any form)."""
        return [tier != _UNBUILT for tier in self._tier]

    def _first_build(self, index: int) -> Fn | None:
        """Expression `index` built for its first evaluation: its exact form, which is
        returned; where the exact form does not cover it, its fast form (`_build`;
        None returned), or Unsupported when neither does."""
        try:
            exact = _Compiler(self._variables).compile(self._trees[index])
        except (Unsupported, RecursionError):
            self._build(index)
            return None
        self._exact[index] = exact
        self._tier[index] = _EXACT
        return exact

    def _build(self, index: int) -> None:
        """Expression `index`'s fast form, and its exact form where it has none (an
        expression neither covers raises Unsupported: at build, the whole program is
        cel-expr-python's; later, each call)."""
        quick = self._fast[index] = self._fast_form(self._fast_compiler, self._trees[index])
        if quick is None and self._exact[index] is None:
            # (no fast form: the exact one is the expression's only)
            self._exact[index] = _Compiler(self._variables).compile(self._trees[index])
        self._tier[index] = _FAST

    def _promote(self, index: int) -> Fn | None:
        """Expression `index` one tier up, at an evaluation before its fast form is
        built. Unbuilt, it gets its exact form, which is returned to evaluate this
        time; evaluated once already, its fast form (None returned: that answers).

        A one-event hook evaluates each condition once: writing and compiling the fast
        form costs about four times what building the exact one does, and evaluating
        either once costs less than building it (decision 0027). Both forms answer
        alike — the fast one raises where it is not sure, and the exact one answers
        then (tests/test_cel_native.py) — so which one a call met is never seen in its
        answer."""
        with self._lock:
            try:
                tier = self._tier[index]
                if tier == _UNBUILT:
                    exact = self._first_build(index)
                    if exact is not None:
                        return exact
                elif tier == _READY:
                    self._tier[index] = _EXACT
                    return self._exact[index]
                elif tier == _EXACT:
                    self._build(index)
            except (Unsupported, RecursionError):  # (as at build: see NativeEngine)
                self._unsupported = True
                raise _Gap from None
        return None

    def build_all(self) -> int:
        """Every expression whose fast form is not built yet, built now, with the
        pruning and the variables' fast forms (for a process that will decide many
        calls: its first calls then pay no build). One that fails to build — neither
        form covers it — is left as it was, as when its guard never passes: a call
        that needs it then fails over to cel-expr-python, or fails, as it would have."""
        built = 0  # (fast forms built)
        for index in range(len(self._trees)):
            with self._lock:  # (one at a time: a call on another thread builds between)
                if self._tier[index] == _FAST:
                    continue
                try:
                    self._build(index)
                except Exception:  # noqa: BLE001 - left for the call that needs it (above)
                    continue
                built += 1
        self._prune()
        self._fast_vars()
        return built

    def _prune(self) -> Pruning | None:
        """The pruning, written and compiled on first need."""
        if not self._pruned:
            with self._lock:
                if not self._pruned:
                    self._pruning = Pruning.of(self._needs)
                    self._pruned = True
        return self._pruning

    def _fast_vars(self) -> None:
        """The fast forms of the variables that read the call, built once."""
        if not self._vars_fast:
            with self._lock:
                if not self._vars_fast:
                    self._call_vars = [
                        (name, self._var_fast_form(name, quick, tree), tree)
                        for name, quick, tree in self._call_vars
                    ]
                    self._vars_fast = True

    def _exact_form(self, index: int) -> Fn:
        """Expression `index`'s exact form, built on first need."""
        exact = self._exact[index]
        if exact is None:
            try:
                exact = _Compiler(self._variables).compile(self._trees[index])
            except Unsupported:  # (the fast form compiled it: never expected)
                raise _Gap from None
            self._exact[index] = exact
        return exact

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
        if not self._call_vars:
            if self._constants:  # (read only: no form writes into `vars`)
                frame["vars"] = self._constants
            return frame
        bound = frame["vars"] = dict(self._constants)
        if not self._vars_fast:
            if self._framed:  # (a second frame: the fast forms will pay for themselves)
                self._fast_vars()
            self._framed = True
        for name, quick, tree in self._call_vars:
            if quick is not None:
                try:
                    bound[name] = quick(frame)
                    continue
                except Exception:  # noqa: BLE001 - the exact form decides
                    pass
            try:
                bound[name] = self._var_exact_form(name, tree)(frame)
            except Exception:  # noqa: BLE001 - see below
                # A variable that fails fails its readers on cel-expr-python, and more:
                # `has(vars.x)` errs, and so may a sibling bound in the same map. That is
                # left to it, for this call.
                raise _Gap from None
        return frame

    def _first_var_form(self, name: str, tree: Node) -> Fn | None:
        """A variable that reads the call, built with its program: its exact form (kept
        in `_var_exact`; None returned), or where the exact form does not cover it its
        fast form — and Unsupported when that does not either, which makes the whole
        program cel-expr-python's (NativeEngine), as an expression without a guard
        beyond both forms does."""
        try:
            self._var_exact[name] = _Compiler(self._variables).compile(tree)
        except (Unsupported, RecursionError):
            return self._fast_form(self._fast_compiler, tree)
        return None

    def _var_fast_form(self, name: str, quick: Fn | None, tree: Node) -> Fn | None:
        if quick is not None or name not in self._var_exact:
            return quick  # (built with the program, the exact form not covering it)
        try:
            return self._fast_form(self._fast_compiler, tree)
        except (Unsupported, RecursionError):  # (the exact form answers, as it did)
            return None

    def _var_exact_form(self, name: str, tree: Node) -> Fn:
        exact = self._var_exact.get(name)
        if exact is None:
            try:
                exact = self._var_exact[name] = _Compiler(self._variables).compile(tree)
            except (Unsupported, RecursionError):  # beyond both forms: cel-expr-python's
                self._unsupported = True
                raise _Gap from None
        return exact

    def _one(self, index: int, frame: Frame) -> Any:
        """Expression `index`'s value: the fast form's, or, where it raised (an error
        CEL may absorb), the exact form's — which raises CEL's error if there is one."""
        if self._tier[index] != _FAST:
            exact = self._promote(index)
            if exact is not None:
                return exact(frame)
        quick = self._fast[index]
        if quick is not None:
            try:
                return quick(frame)
            except Exception:  # noqa: BLE001 - the exact form decides
                pass
        return self._exact_form(index)(frame)

    def run_mask(self, data: Mapping[str, Any], call: object | None = None) -> int | None:
        if self._unsupported:
            return self._on_cel_expr().run_mask(data, call)
        try:
            return self._mask(data)
        except _Gap:
            _handed_over()
            return self._on_cel_expr().run_mask(data, call)
        except Exception:  # noqa: BLE001 - `run` says which expression fails, and why
            return None

    def _mask(self, data: Mapping[str, Any]) -> int | None:
        frame = self._frame(data)
        # (the first mask asks every guard; the pruning is built for the second)
        first = not self._pruned and not self._masked
        if first:
            self._masked = True
            enabled = -1
        else:
            pruning = self._prune()
            enabled = -1 if pruning is None else pruning.enabled(frame)
        guards = self._guards
        enabled &= (1 << len(guards)) - 1
        mask = 0
        one = self._one
        tier = self._tier
        while enabled:  # (the conditions left, in order: a call leaves few)
            bit = enabled & -enabled
            enabled ^= bit
            index = bit.bit_length() - 1
            guard = guards[index]
            if (first or tier[index] == _UNBUILT) and guard is not None and not guard(frame):
                continue  # (false: see policy.packs.cel.native.guard)
            held = one(index, frame)
            if held is True:
                mask |= bit
            elif held is not False:
                return None
        return mask

    def run(self, data: Mapping[str, Any], call: object | None = None) -> list[Any]:
        if self._unsupported:
            return self._on_cel_expr().run(data, call)
        try:
            return self._results(data)
        except _Gap:
            _handed_over()
            return self._on_cel_expr().run(data, call)

    def _results(self, data: Mapping[str, Any]) -> list[Any]:
        frame = self._frame(data)
        results: list[Any] = []
        for index in range(len(self._trees)):
            try:
                results.append(_plain(self._one(index, frame)))
            except Exception as exc:  # noqa: BLE001 - this expression's error
                results.append(_error(exc))
        return results
