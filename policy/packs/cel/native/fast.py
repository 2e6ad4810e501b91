"""The fast form of an expression: one Python function, CEL's operators written as
Python's where the two agree on values that raise nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any

from policy.analysis.environ import home_variable
from policy.facts import home_dir
from policy.packs.cel.functions import (
    _FUNCTIONS,
    READ_BEYOND_ARGUMENTS,
    READS_ENV_HOME,
    READS_HOME,
    REMEMBERED_LENGTH,
)
from policy.packs.cel.native.syntax import Node, Unsupported, literal
from policy.packs.cel.native.values import (
    _ARITHMETIC,
    _CUSTOM,
    _FOREIGN_TYPES,
    Fn,
    _add,
    _eq,
    _in,
    _index,
    _items,
    _kind,
    _negate,
    _no_overload,
    _order,
    _ordered_items,
    constant_matches,
    function_of,
)


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


def _holds(container: Any, item: str) -> bool:
    """`L.exists(x, x == "lit")`: one membership test, not a generator a call. A string
    equals only a string, so Python's `in` over a list (or a map's keys) answers it."""
    if type(container) is list or type(container) is tuple or isinstance(container, Mapping):
        return item in container
    raise _no_overload("comprehension range", container)


def _meets(container: Any, names: frozenset[str]) -> bool:
    """`L.exists(x, x in ["a", "b"])`: whether L and the names share an element. An
    element that is not a string is in no set of strings (CEL's `in` compares a number to
    a string as unequal); one that cannot be hashed raises, and the exact form decides."""
    if type(container) is list or type(container) is tuple or isinstance(container, Mapping):
        return not names.isdisjoint(container)
    raise _no_overload("comprehension range", container)


def _as_key(value: Any) -> Any:
    """A list of strings as a tuple (hashable); anything else as it is."""
    return tuple(value) if type(value) is list else value


class _Constant:
    """A constant list of a program, by identity: the key under which a function's
    answers for it are remembered (hashing a hundred globs at every call would cost
    what the memory saves)."""

    __slots__ = ("value",)

    def __init__(self, value: tuple[str, ...]) -> None:
        self.value = value




def _remembering(name: str) -> Callable[[Any, _Constant], Any]:
    impl = _CUSTOM[name][2]
    reads_home, reads_env = name in READS_HOME, name in READS_ENV_HOME

    @functools.lru_cache(maxsize=4096)
    def answer(value: str, constant: _Constant, home: str) -> Any:
        return impl(value, constant.value)

    def call(value: Any, constant: _Constant) -> Any:
        if type(value) is not str:
            raise _no_overload(name, value, constant.value)
        if len(value) > REMEMBERED_LENGTH:
            return impl(value, constant.value)
        if reads_home:
            return answer(value, constant, home_dir())
        return answer(value, constant, (home_variable() or "") if reads_env else "")

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
    "_holds": _holds,
    "_meets": _meets,
    "_order": _order,
    "_add": _add,
    "_negate": _negate,
    "_index": _index,
    "_items": _items,
    "_ordered_items": _ordered_items,
    "_has_field": _has_field,
    "_as_key": _as_key,
    **{f"_op_{ord(symbol)}": apply for symbol, apply in _ARITHMETIC.items()},
}


#: How many elements' answers a body keeps (`_ElementMemo`); past that it starts again.
#: With the longest element kept (`_KEPT_ELEMENT`) that is ≈ 0.3 MB a body at most —
#: ≈ 25 MB for the shipped packs' 81 such bodies, whatever paths a flood of calls names.
_ELEMENT_ANSWERS = 512
#: The longest element whose answer is kept: paths are shorter, most by far.
_KEPT_ELEMENT = 256
#: The kinds of the call's variables an element's answer may be kept under: strings,
#: and lists of strings (as a tuple: the facts give `protected` as one) ...
_KEYED_KINDS = ("string", "list_of_strings")
#: ... of at most this many characters, or items: a key holds what it is made of.
_KEYED_LENGTH = REMEMBERED_LENGTH


class _ElementMemo:
    """What the body of one `exists`/`all` answered for a string element, kept under
    the element, the call's variables the body reads and `$HOME` (as both `home_dir`
    and the environment's, which path functions read): the paths a call reads — its
    working directory, the files agents read again and again — recur from call to call.
    The body is a function of those alone (`_free`: no call that reads beyond its
    arguments, no variable of an enclosing macro, pack variables only constant ones),
    so a kept answer is the one it would give. An error is not kept: it raises again,
    and the exact form decides."""

    __slots__ = ("answers", "body")

    def __init__(self) -> None:
        self.answers: dict[tuple[Any, ...], bool] = {}
        self.body: Callable[[Any, Any], bool] | None = None

    def __call__(self, element: Any, frame: Any, *read: Any) -> bool:
        body = self.body
        assert body is not None  # (set once the condition is built)
        if type(element) is not str or len(element) > _KEPT_ELEMENT:
            return body(element, frame)
        for value in read:  # (a prompt may be megabytes: asked again, not kept)
            if len(value) > _KEYED_LENGTH:
                return body(element, frame)
        key = (element, home_dir(), home_variable(), *read)
        answers = self.answers
        found = answers.get(key)
        if found is None:
            found = body(element, frame)
            if len(answers) >= _ELEMENT_ANSWERS:
                answers.clear()
            answers[key] = found
        return found


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
        #: The values bound while writing the current function (`bind`), its globals
        #: with the helpers: each function holds its own, not every one bound before
        #: it (a program of N conditions held N² names: 36 KB a condition at 1,000).
        self.names: dict[str, Any] = {}
        self._bound = 0
        #: The bodies written as functions of their own (`_ElementMemo`): (the memo's
        #: name, the macro variable, the body's source); the function is `<name>_body`.
        self.bodies: list[tuple[str, str, str]] = []

    def function(self, node: Node) -> Fn:
        self.bodies = []
        self.names = {}
        source, _ = self.write(node)
        text = "".join(
            f"def {memo}_body(c_{variable}, F):\n    return {body}\n"
            for memo, variable, body in self.bodies
        )
        code = compile(f"{text}def _condition(F):\n    return {source}\n", "<cel>", "exec")
        namespace = {**_HELPERS, **self.names}
        exec(code, namespace)
        for memo, _variable, _body in self.bodies:
            namespace[memo].body = namespace[f"{memo}_body"]
        fn: Fn = namespace["_condition"]
        return fn

    def bind(self, value: Any) -> str:
        name = f"_k{self._bound}"
        self._bound += 1
        self.names[name] = value
        return name

    def write(self, node: Node) -> tuple[str, bool]:
        """(Python source, whether it is known to give a bool)."""
        return getattr(self, "_" + node[0])(*node[1:])  # type: ignore[no-any-return]

    def truth(self, node: Node) -> str:
        source, boolean = self.write(node)
        return source if boolean else f"_truth({source})"

    def constant(self, node: Node) -> tuple[bool, Any]:
        """A literal's value (`syntax.literal`), or a pack variable's that is a constant."""
        fixed, value = literal(node)
        if fixed:
            return fixed, value
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
        if kind is None or name == "vars" or kind in _FOREIGN_TYPES:
            raise Unsupported(f"the name {name}")  # (`vars`: see exact._Compiler._id)
        return f"F[{name!r}]", False

    def _operand(self, operand: Node) -> str:
        if operand == ("id", "vars") and "vars" not in self.scope:
            return "F['vars']"
        return self.write(operand)[0]

    def _sel(self, operand: Node, field: str) -> tuple[str, bool]:
        return f"{self._operand(operand)}[{field!r}]", False

    def _has(self, operand: Node, field: str) -> tuple[str, bool]:
        return f"_has_field({self._operand(operand)}, {field!r})", True

    def _index(self, operand: Node, index: Node) -> tuple[str, bool]:
        if operand == ("id", "vars") and (index[0] != "lit" or type(index[1]) is not str):
            raise Unsupported("vars indexed by what is not a name")
        return f"_index({self._operand(operand)}, {self.write(index)[0]})", False

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
        key, impl, receiver = function_of(name, target, {*self.scope, *self.variables})
        boolean = key in _BOOL_FUNCTIONS
        if receiver and target is not None:
            args = (target, *args)
        elif key in _REMEMBERING and len(args) == 2:
            fixed, value = self.constant(args[1])
            if fixed and isinstance(value, tuple):
                remembering = self.bind(_REMEMBERING[key])
                constant = self.bind(_Constant(value))
                return f"{remembering}({self.write(args[0])[0]}, {constant})", boolean
        if key == "matches" and len(args) == 2:
            fixed, pattern = self.constant(args[1])
            if fixed and type(pattern) is str:
                # (the program's own pattern: compiled once, however long)
                function = self.bind(constant_matches)
                return f"{function}({self.write(args[0])[0]}, {self.bind(pattern)})", boolean
        function = self.bind(impl)
        return f"{function}(" + ", ".join(self.write(a)[0] for a in args) + ")", boolean

    def _macro(
        self, name: str, target: Node, variable: str, args: tuple[Node, ...]
    ) -> tuple[str, bool]:
        listed = self.write(target)[0]  # (out of the macro's scope: it names the list)
        ordered = name in ("map", "filter")  # (their list keeps the order they ran in)
        over = f"{'_ordered_items' if ordered else '_items'}({listed})"
        local = f"c_{variable}"
        self.scope.append(variable)
        try:
            if name == "exists":
                membership = self._membership(listed, variable, args[0])
                if membership is not None:
                    return membership, True
            if name in ("exists", "all"):
                test = self.remembered(target, variable, args[0]) or self.truth(args[0])
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

    def remembered(self, target: Node, variable: str, body: Node) -> str | None:
        """The body of `target.exists(variable, body)` (or `all`) through an
        `_ElementMemo`, when it may be (see there) and the elements are likely strings
        (not a list of lists, not the commands); None otherwise. (Called with
        `variable` in scope.)"""
        if target[0] == "list" or target == ("id", "commands"):
            return None
        free = _free(body, frozenset({variable}), {*self.scope, *self.variables})
        if free is None:
            return None
        read: list[str] = []
        for name in sorted(free):
            if name.startswith("vars."):
                if name[5:] not in self.constant_vars:
                    return None  # (a variable worked out from the call)
            elif name in self.scope or self.variables.get(name) not in _KEYED_KINDS:
                return None
            else:
                read.append(f"_as_key(F[{name!r}])")
        source = self.truth(body)  # (first: the bodies it holds are written on the way)
        memo = self.bind(_ElementMemo())
        self.bodies.append((memo, variable, source))
        return f"{memo}(c_{variable}, F{''.join(', ' + r for r in read)})"

    def _membership(self, listed: str, variable: str, body: Node) -> str | None:
        """`L.exists(x, x == "lit")` and `L.exists(x, x in [strings])`, L written as
        `listed`, as one membership test (`_holds`, `_meets`); None for any other body.
        (Called with `variable` in scope: an element named `vars` is no pack variable.)"""
        if body[0] != "op" or body[1] not in ("==", "in"):
            return None
        element = ("id", variable)
        left, right = body[2], body[3]
        if body[1] == "==" and right == element:
            left, right = right, left
        if left != element:
            return None
        if body[1] == "==":
            if right[0] != "lit" or type(right[1]) is not str:
                return None
            return f"_holds({listed}, {right[1]!r})"
        fixed, values = self.constant(right)
        if not fixed or not isinstance(values, tuple) or any(type(v) is not str for v in values):
            return None
        return f"_meets({listed}, {self.bind(frozenset(values))})"


def _free(tree: Node, bound: frozenset[str], names: set[str]) -> set[str] | None:
    """The names `tree` reads from outside it — the call's variables and enclosing
    macros' by name, the pack's variables as `vars.<name>` — with `bound` the macro
    variables bound where it stands; None when it calls a function that reads beyond
    its arguments (the disk, the shell) or reads `vars` other than by a name.
    `names`: the variables in scope (a namespace they shadow is no namespace)."""
    kind = tree[0]
    if kind == "lit":
        return set()
    if kind == "id":
        return set() if tree[1] in bound else {tree[1]}
    if kind in ("sel", "has"):
        if tree[1] == ("id", "vars") and "vars" not in bound:
            return {f"vars.{tree[2]}"}
        return _free(tree[1], bound, names)
    if kind == "call":
        _name, target, args = tree[1], tree[2], tree[3]
        key, _impl, receiver = function_of(_name, target, {*names, *bound})
        if key in READ_BEYOND_ARGUMENTS:
            return None
        parts = [*args, target] if receiver and target is not None else list(args)
        return _union(parts, bound, names)
    if kind == "macro":
        inner = _free(tree[2], bound, names)
        body = _union(list(tree[4]), bound | {tree[3]}, names)
        return None if inner is None or body is None else inner | body
    if kind == "list":
        return _union(list(tree[1]), bound, names)
    if kind == "map":
        return _union([node for pair in tree[1] for node in pair], bound, names)
    if kind == "op":
        return _union([tree[2], tree[3]], bound, names)
    if kind == "index":
        if tree[1] == ("id", "vars") and "vars" not in bound:
            return None  # (`vars[...]`: which variable is the call's to say)
        return _union([tree[1], tree[2]], bound, names)
    return _union(list(tree[1:]), bound, names)  # cond, and, or, not, neg


def _union(nodes: list[Node], bound: frozenset[str], names: set[str]) -> set[str] | None:
    found: set[str] = set()
    for node in nodes:
        part = _free(node, bound, names)
        if part is None:
            return None
        found |= part
    return found
