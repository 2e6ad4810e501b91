"""Guards: what a condition needs of the call's facts before it can hold, checked in a
few lookups, so that a condition is compiled only when a call it may hold for comes.

A one-event hook (Claude Code and Agentao start one per tool call) builds the programs
of its call at every start, and compiling a condition to Python is most of that. Most
of a shipped pack's conditions ask about something most calls do not have:
`access.writes.exists(p, ...)` needs a write, `commands.exists(c, c.name in
vars.disk_tools && ...)` a command of those names. Until a condition is built, a call
whose facts fail its guard gets `false` for it without building it (the program's
`_mask`): `ls -la` builds 18 of the 62 shipped conditions for `bash`. (A condition
calling a `shell.*` function has no guard: `need_of`.) Once built, a
condition is evaluated whatever its guard says — on warm memos a guard costs about
what the evaluation it would spare does. A guard is derived once, from the condition's tree:

* `L.exists(x, body)` needs L to be a non-empty list, one element of which meets
  what `body` needs of `x` (`x.name in [...]`, `x.network`, `x.deletes.exists(...)`,
  `x == "lit"`, `x.name.startsWith("lit")`); `[L1, L2].exists(l, l.exists(...))`
  needs one of them to;
* `L.exists(x, x in [...])` (or `x == "lit"`, or `"lit" in L`) needs L to hold one of
  those strings;
* `regex.matches(x.f, "^(kubectl|gcloud) ...")` needs `x.f` to start with (or, for an
  unanchored pattern, to hold) one of the texts every match holds — for a start that
  may be left out, `^(?:[^ ]*/)?(kubectl|gcloud) `, to start with the rest's texts or
  hold the start's (`/`) (policy.packs.cel.native.literals); so does CEL's own
  `x.f.matches(P)` (RE2), where RE2 and Python read P alike;
* `a && b` needs what both need; `a || b` what either needs; `a ? b : c` what `a` or
  `c` needs (`a ? b : false`: what `a` needs);
* a pack variable that reads the call is looked through: `vars.x` (a `vars.x == true`)
  needs what the variable's own expression needs, and `vars.x.exists(c, body)`, for
  `x: L.filter(c, f)`, what `L.exists(c, f)` needs;
* everything else needs nothing (the guard always passes).

Sound in the strict sense the mask needs: when a guard fails, the condition's value
is `false` — not an error — because each fact it rests on is one CEL reads without
error (an empty list's `exists` is false, a string's `in` a list of strings is a bool,
a `false` operand makes `&&` false whatever the other side is). A value the facts do
not have in the expected type (a field missing, a list that is not one) passes the
guard: the condition is built, and says what it says. So a condition skipped and one
evaluated give the same bit, which tests/test_cel_guard.py checks on the shipped packs
and the corpus."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from policy.packs.cel.native.syntax import TREE_DEPTH, Node, literal

__all__ = ["Guard", "Need", "Pruning", "check_of", "guard_of", "kept_need", "need_of", "read_need"]

#: May the condition hold, judged from the call's variables (the program's frame).
Guard = Callable[[Mapping[str, Any]], bool]
_Check = Callable[[Any], bool]
_Path = tuple[str, ...]

_MISSING = object()
_LISTS = (list, tuple)
#: How many pack variables deep a need is looked for (a variable may read another).
_VARIABLE_DEPTH = 8

# The needs, as tuples: ("exists", path, need | None), ("and", a, b), ("or", a, b),
# ("in", path, frozenset), ("has", path, frozenset), ("prefix", path, str),
# ("prefixes", path, (str, ...)) (a string starting with one of them), ("contains",
# path, (str, ...)) (a string holding one of them), ("true", path), ("missing", paths)
# (holds when one of them is not there). None: needs nothing.
_Need = tuple[Any, ...] | None
#: What a condition needs of the call's facts (the tuples above), or None.
Need = _Need


def need_of(
    tree: Node,
    variables: Mapping[str, str],
    constants: Mapping[str, Any],
    call_vars: Mapping[str, Node] | None = None,
) -> Need:
    """What the condition `tree` needs of the facts before it can hold, at a point whose
    variables are `variables`, its pack's constant variables `constants`; None when it
    needs nothing a guard can check — and for a condition that runs the analysis
    (`shell.*`): one that gives up refuses the call whatever the condition's value
    (policy.packs.cel.functions), so skipping it would not give what evaluating it
    does, and whether it was skipped would hang on what was built before (a red
    team: a warmed engine refused a call a cold one let through). `call_vars`: the
    pack's variables that read the call, by name (their trees), looked through."""
    if _runs_analysis(tree):
        return None
    roots = {name: (name,) for name in variables if name != "vars"}
    return _Needs(constants, call_vars or {}, roots).of(tree, roots, ())


def _runs_analysis(tree: Node) -> bool:
    """Whether `tree` calls a `shell.*` function."""
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        if node and node[0] == "call" and node[2] == ("id", "shell"):
            return True
        stack.extend(part for part in node if type(part) is tuple)
    return False


def guard_of(
    tree: Node, variables: Mapping[str, str], constants: Mapping[str, Any]
) -> Guard | None:
    """The guard of the condition `tree` (`need_of`); None when it needs nothing a
    guard can check."""
    need = need_of(tree, variables, constants)
    return None if need is None else _check(need)


def check_of(need: tuple[Any, ...]) -> Guard:
    """The guard that checks `need` (`need_of`'s, not None)."""
    return _check(need)


class _Needs:
    """Derives what a tree needs. `names`: the identifiers that stand for a place in
    the current root (a top-level variable, or a macro's element and what it walks);
    `bound`: every macro variable in scope (one named `vars` hides the constants)."""

    def __init__(
        self,
        constants: Mapping[str, Any],
        call_vars: Mapping[str, Node],
        roots: Mapping[str, _Path],
    ) -> None:
        self.constants = constants
        #: the pack's variables that read the call (their trees), looked through
        self.call_vars = call_vars
        #: the point's own variables: the names a pack variable's expression reads
        self.roots = roots
        #: how many pack variables are being looked through (each may name others)
        self.depth = 0

    def of(self, node: Node, names: Mapping[str, _Path], bound: tuple[str, ...]) -> _Need:
        kind = node[0]
        if kind == "and":
            return _and(self.of(node[1], names, bound), self.of(node[2], names, bound))
        if kind == "or":
            return _or(self.of(node[1], names, bound), self.of(node[2], names, bound))
        if kind == "cond":
            # true only where `a` is true and `b` is, or `a` is false (not an error:
            # a failed need says so) and `c` is
            test = self.of(node[1], names, bound)
            if node[3][0] == "lit" and node[3][1] is False:  # (not 0: `0 == False`)
                return test
            return _or(test, self.of(node[3], names, bound))
        if kind == "macro" and node[1] == "exists" and len(node[4]) == 1:
            return self._exists(node[2], node[3], node[4][0], names, bound)
        if kind == "op" and node[1] == "==" and _true(node[2]) != _true(node[3]):
            other = node[3] if _true(node[2]) else node[2]
            variable = self._call_var(other, bound)
            if variable is not None:  # `vars.x == true`: x's own expression
                return self._through(variable)
        if kind == "op" and node[1] in ("in", "=="):
            return self._membership(node[1], node[2], node[3], names, bound)
        if kind == "call" and node[1] == "matches" and node[2] == ("id", "regex"):
            return self._matches(node[3], names, bound)
        if kind == "call" and node[1] == "matches" and node[2] is not None and len(node[3]) == 1:
            return self._matches((node[2], node[3][0]), names, bound, re2=True)
        if kind == "call" and node[1] == "startsWith" and node[2] is not None and len(node[3]) == 1:
            path = _path(node[2], names)
            fixed, prefix = literal(node[3][0])
            if path is not None and fixed and type(prefix) is str:
                return ("prefix", path, prefix)
            return None
        if kind == "sel":
            variable = self._call_var(node, bound)
            if variable is not None:
                return self._through(variable)
            path = _path(node, names)
            return None if path is None else ("true", path)
        return None

    def _call_var(self, node: Node, bound: tuple[str, ...]) -> Node | None:
        """The expression of the pack variable `node` reads (`vars.x`), when it reads
        the call and stands outside every macro; else None. (A variable's need names
        places from the call's root: inside a macro's body the element is the root, and
        `vars.in_prod` — `cwd.startsWith(...)` — would be read as the element's `cwd`: a
        red team.)"""
        if (
            not bound
            and node[0] == "sel"
            and node[1] == ("id", "vars")
            and node[2] in self.call_vars
        ):
            return self.call_vars[node[2]]
        return None

    def _through(self, tree: Node) -> _Need:
        """What a pack variable's expression needs, read where pack variables are
        worked out: over the point's own variables, no macro's in scope."""
        if self.depth >= _VARIABLE_DEPTH or _runs_analysis(tree):
            return None
        self.depth += 1
        try:
            return self.of(tree, self.roots, ())
        finally:
            self.depth -= 1

    def _matches(
        self,
        args: tuple[Node, ...],
        names: Mapping[str, _Path],
        bound: tuple[str, ...],
        *,
        re2: bool = False,
    ) -> _Need:
        """`regex.matches(x.f, P)` (Python's `re`) or `x.f.matches(P)` (CEL's own, RE2:
        `re2`) for a constant P: x.f starts with, or holds, one of the texts every match
        of P holds (policy.packs.cel.native.literals)."""
        if len(args) != 2 or (not re2 and "regex" in bound):
            return None
        path = _path(args[0], names)
        fixed, pattern = literal(args[1])
        if (
            not fixed
            and args[1][0] == "sel"
            and args[1][1] == ("id", "vars")
            and "vars" not in bound
            and args[1][2] in self.constants
            and args[1][2] not in self.call_vars
        ):
            fixed, pattern = True, self.constants[args[1][2]]
        if path is None or not fixed or type(pattern) is not str:
            return None
        from policy.packs.cel.native.literals import required_texts, required_texts_re2

        texts = required_texts_re2(pattern) if re2 else required_texts(pattern)
        if texts is None:
            return None
        if texts[0] == "prefix or contains":
            return ("or", ("prefixes", path, texts[1]), ("contains", path, texts[2]))
        return ("prefixes" if texts[0] == "prefix" else "contains", path, texts[1])

    def _exists(
        self,
        target: Node,
        variable: str,
        body: Node,
        names: Mapping[str, _Path],
        bound: tuple[str, ...],
    ) -> _Need:
        inner = (*bound, variable)
        if target[0] == "list":
            # [L1, L2].exists(l, body): body, with l standing for each of them in turn
            paths = [_path(item, names) for item in target[1]]
            if not paths or any(p is None for p in paths):
                return None
            # (building the list reads every one: one that is not there is an error)
            need: _Need = ("missing", tuple(paths))
            for path in paths:
                assert path is not None
                need = _or(need, self.of(body, {**names, variable: path}, inner))
            return need
        filtered = self._call_var(target, bound)
        if filtered is not None:
            # `vars.x.exists(c, ...)` for `x: L.filter(c, f)`: an element of L meeting f
            # (the body runs only on those; an element f errs on errs the variable)
            if (
                filtered[0] != "macro"
                or filtered[1] != "filter"
                or len(filtered[4]) != 1
                or self.depth >= _VARIABLE_DEPTH
                or _runs_analysis(filtered)
            ):
                return None
            self.depth += 1
            try:
                return self._exists(filtered[2], filtered[3], filtered[4][0], self.roots, ())
            finally:
                self.depth -= 1
        path = _path(target, names)
        if path is None:
            return None
        # (inside, the element is the root: names of outer places are not followed)
        element = self.of(body, {variable: ()}, inner)
        if element is not None and element[0] == "in" and element[1] == ():
            # `L.exists(x, x in [...])`: L holds one of them (an element that is not a
            # string passes either check)
            return ("has", path, element[2])
        return ("exists", path, element)

    def _membership(
        self,
        symbol: str,
        left: Node,
        right: Node,
        names: Mapping[str, _Path],
        bound: tuple[str, ...],
    ) -> _Need:
        if symbol == "==":
            for place, other in ((left, right), (right, left)):
                path = _path(place, names)
                fixed, value = literal(other)
                if path is not None and fixed and type(value) is str:
                    return ("in", path, frozenset((value,)))
            return None
        path = _path(left, names)
        if path is not None:  # x.name in ["a", "b"]
            values = self._strings(right, bound)
            return None if values is None else ("in", path, values)
        path = _path(right, names)
        fixed, value = literal(left)
        if path is not None and fixed and type(value) is str:  # "f" in x.flags
            return ("has", path, frozenset((value,)))
        return None

    def _strings(self, node: Node, bound: tuple[str, ...]) -> frozenset[str] | None:
        """The strings of a constant list of strings (a literal or a constant pack
        variable), or None."""
        fixed, value = literal(node)
        if (
            not fixed
            and node[0] == "sel"
            and node[1] == ("id", "vars")
            and "vars" not in bound
            and node[2] in self.constants
            and node[2] not in self.call_vars
        ):
            fixed, value = True, self.constants[node[2]]
        if fixed and type(value) is tuple and all(type(v) is str for v in value):
            return frozenset(value)
        return None


def _true(node: Node) -> bool:
    """Whether `node` is the literal `true` (not `1`: `1 == True` in Python)."""
    return node[0] == "lit" and node[1] is True


def _path(node: Node, names: Mapping[str, _Path]) -> _Path | None:
    """The place `node` reads (`x.a.b` as x's path and a, b), or None."""
    fields: list[str] = []
    while node[0] == "sel":
        fields.append(node[2])
        node = node[1]
    if node[0] != "id" or node[1] not in names:
        return None
    return names[node[1]] + tuple(reversed(fields))


def _and(left: _Need, right: _Need) -> _Need:
    if left is None:
        return right
    if right is None:
        return left
    return ("and", left, right)


def _or(left: _Need, right: _Need) -> _Need:
    if left is None or right is None:
        return None
    if left[0] == right[0] == "in" and left[1] == right[1]:
        return ("in", left[1], left[2] | right[2])
    return ("or", left, right)


# ------------------------------------------------------------------ kept needs

#: The needs' kinds, by the parts after the kind they hold (`_Need`).
_PAIRS = frozenset({"and", "or"})
_PATH_AND_SET = frozenset({"in", "has"})
_PATH_AND_TEXTS = frozenset({"prefixes", "contains"})


def kept_need(need: Need, depth: int = 0) -> Any:
    """`need` as JSON (lists for tuples, sorted lists for sets), for the program store:
    a one-event hook reads its programs' needs back instead of deriving them from every
    condition's tree at each start (policy.packs.cel.native.program). TypeError for a
    need nested deeper than `read_need` reads (`[L1, ..., L300].exists(...)`): a shape
    holding one is not kept, rather than written at every start and never read."""
    if need is None:
        return None
    if depth > TREE_DEPTH:
        raise TypeError("a need nested deeper than a kept one may be")
    kind = need[0]
    if kind in _PAIRS:
        return [kind, kept_need(need[1], depth + 1), kept_need(need[2], depth + 1)]
    if kind == "exists":
        return [kind, list(need[1]), kept_need(need[2], depth + 1)]
    if kind in _PATH_AND_SET:
        return [kind, list(need[1]), sorted(need[2])]
    if kind == "prefix":
        return [kind, list(need[1]), need[2]]
    if kind in _PATH_AND_TEXTS:
        return [kind, list(need[1]), list(need[2])]
    if kind == "true":
        return [kind, list(need[1])]
    if kind == "missing":
        return [kind, [list(path) for path in need[1]]]
    raise TypeError(f"not a need: {kind!r}")  # (a shape holding one is not kept)


def read_need(value: Any, depth: int = 0) -> Need:
    """A kept need read back, every part checked to be of the form `need_of` makes
    (ValueError otherwise): a guard built from it is one `need_of` could have built.
    What it says is the entry's, as a kept tree's is (policy.packs.cache: entries are
    read only for packs the user controls)."""
    if value is None:
        return None
    if type(value) is not list or not value or depth > TREE_DEPTH:  # (a tree's own bound)
        raise ValueError("not a need")
    kind, parts = value[0], value[1:]
    if kind in _PAIRS and len(parts) == 2:
        first, second = read_need(parts[0], depth + 1), read_need(parts[1], depth + 1)
        if first is None or second is None:
            raise ValueError("not a need")
        return (kind, first, second)
    if kind == "exists" and len(parts) == 2:
        return (kind, _kept_path(parts[0]), read_need(parts[1], depth + 1))
    if kind in _PATH_AND_SET and len(parts) == 2 and type(parts[1]) is list:
        if not all(type(v) is str for v in parts[1]):
            raise ValueError("not a need")
        return (kind, _kept_path(parts[0]), frozenset(parts[1]))
    if kind == "prefix" and len(parts) == 2 and type(parts[1]) is str:
        return (kind, _kept_path(parts[0]), parts[1])
    if kind in _PATH_AND_TEXTS and len(parts) == 2 and type(parts[1]) is list and parts[1]:
        if not all(type(v) is str and v for v in parts[1]):
            raise ValueError("not a need")
        return (kind, _kept_path(parts[0]), tuple(parts[1]))
    if kind == "true" and len(parts) == 1:
        return (kind, _kept_path(parts[0]))
    if kind == "missing" and len(parts) == 1 and type(parts[0]) is list and parts[0]:
        return (kind, tuple(_kept_path(path) for path in parts[0]))
    raise ValueError(f"not a need: {kind!r}")


def _kept_path(value: Any) -> _Path:
    if type(value) is not list or not all(type(part) is str for part in value):
        raise ValueError("not a path")
    return tuple(value)


# ------------------------------------------------------------------ checking


def _at(root: Any, path: _Path) -> Any:
    for field in path:
        if not isinstance(root, dict):
            return _MISSING
        root = root.get(field, _MISSING)
        if root is _MISSING:
            return _MISSING
    return root


def _check(need: tuple[Any, ...]) -> _Check:
    kind = need[0]
    if kind == "and":
        first, second = _check(need[1]), _check(need[2])
        return lambda root: first(root) and second(root)
    if kind == "or":
        first, second = _check(need[1]), _check(need[2])
        return lambda root: first(root) or second(root)
    if kind == "missing":
        paths = need[1]
        return lambda root: any(_at(root, path) is _MISSING for path in paths)
    path = need[1]
    if kind == "exists":
        element = None if need[2] is None else _check(need[2])

        def exists(root: Any) -> bool:
            items = _at(root, path)
            if not isinstance(items, _LISTS):
                return True  # (not a list: evaluated, and CEL says what it is)
            if element is None:
                return len(items) > 0
            return any(element(item) for item in items)

        return exists
    if kind == "in":
        values = need[2]

        def among(root: Any) -> bool:
            value = _at(root, path)
            return type(value) is not str or value in values

        return among
    if kind == "has":
        wanted = need[2]

        def has(root: Any) -> bool:
            items = _at(root, path)
            if not isinstance(items, _LISTS):
                return True
            return any(type(item) is not str or item in wanted for item in items)

        return has
    if kind == "prefix" or kind == "prefixes":
        prefix = need[2]

        def starts(root: Any) -> bool:
            value = _at(root, path)
            return type(value) is not str or value.startswith(prefix)

        return starts
    if kind == "contains":
        texts = need[2]

        def holds(root: Any) -> bool:
            value = _at(root, path)
            return type(value) is not str or any(text in value for text in texts)

        return holds
    if kind == "true":
        return lambda root: _at(root, path) is not False
    raise ValueError(f"not a need: {kind!r}")


# ------------------------------------------------------------------ pruning

#: A fact a condition needs, checked once a call for every condition of a program that
#: needs it: ("list", path) a list at `path` that is not empty; ("in", path, field,
#: values) an element of the list at `path` whose `field` is one of `values`;
#: ("prefix", path, field, prefix) one whose `field` starts with `prefix` (or one of a
#: tuple of them); ("contains", path, field, texts) one whose `field` holds one of
#: `texts`; ("items", path, field, values) one whose `field` is a list holding one of
#: `values`; ("true", path, field) one whose `field` is not false; ("list", path,
#: field) one whose `field` is a list that is not empty. Each holds too where the facts
#: are not of the shape it expects (not a list, an element that is not a map, a field
#: missing or of another type), as the guard it comes from passes them.
_Key = tuple[Any, ...]
_ANY = object()  # (a field's values: one of them is not a string)


def _keys(need: tuple[Any, ...]) -> list[_Key] | None:
    """Facts one of which the condition needs (None: none known): when none holds, its
    guard fails — so it is false."""
    kind = need[0]
    if kind in ("and", "or"):
        return _combined(kind, _keys(need[1]), _keys(need[2]))
    if kind == "exists":
        inner = None if need[2] is None else _element_keys(need[1], need[2])
        return [("list", need[1])] if inner is None else inner
    return None


def _element_keys(path: _Path, need: tuple[Any, ...]) -> list[_Key] | None:
    """`_keys` of what an element of the list at `path` needs (`need`, relative to it)."""
    kind = need[0]
    if kind in ("and", "or"):
        return _combined(
            kind, _element_keys(path, need[1]), _element_keys(path, need[2])
        )
    if kind == "in":
        return [("in", path, need[1], need[2])]
    if kind == "has":  # (a list of strings the element holds: one of these among them)
        return [("items", path, need[1], need[2])]
    if kind in ("prefix", "prefixes"):
        return [("prefix", path, need[1], need[2])]
    if kind == "contains":
        return [("contains", path, need[1], need[2])]
    if kind == "true":
        return [("true", path, need[1])]
    if kind == "exists":  # (a list of its own: not empty, whatever else it needs)
        return [("list", path, need[1])]
    return None


def _combined(
    kind: str, left: list[_Key] | None, right: list[_Key] | None
) -> list[_Key] | None:
    """Both sides needed (`and`): either side's facts, the more telling (a list that
    is not empty tells little: most commands have arguments), then the fewer; one side
    (`or`): both sides' — when each is known."""
    if kind == "and":
        if left is None or right is None:
            return left if right is None else right
        return min(left, right, key=lambda keys: (_vague(keys), len(keys)))
    return None if left is None or right is None else left + right


def _vague(keys: list[_Key]) -> bool:
    """Whether one of `keys` only asks for a list that is not empty."""
    return any(key[0] == "list" for key in keys)


def _strings(values: list[Any]) -> Any:
    """`values` as a set, or `_ANY` when one is not a string."""
    if all(type(value) is str for value in values):
        return frozenset(values)
    return _ANY


#: One fact about the elements of a list: (kind, field, its table / prefix / None, the
#: conditions it lets through).
_Fact = tuple[str, _Path, Any, int]
_GATHERED = ("table", "prefix", "contains")  # (the kinds that read a field's values as a set)


def _read(target: str, root: str, path: _Path, indent: str) -> list[str]:
    """Statements setting `target` to `_at(root, path)`, written out."""
    out = [f"{indent}{target} = {root}"]
    for field in path:
        read = f"{target}.get({field!r}, _M) if isinstance({target}, dict) else _M"
        out.append(f"{indent}{target} = {read}")
    return out


def _enabled_source(
    always: int, by_list: dict[_Path, list[_Fact]], bind: Callable[[Any], str]
) -> str:
    """The source of `Pruning.enabled`: each list the facts name read once and walked
    once, whatever the number of facts about its elements; a fact not checked where the
    conditions it lets through are let through already."""
    out = ["def enabled(F):", f"    mask = {always}"]
    for path, facts in by_list.items():
        every = 0
        for fact in facts:
            every |= fact[3]
        out += [
            *_read("items", "F", path, "    "),
            "    if not isinstance(items, _LISTS):",
            f"        mask |= {every}  # (not a list: evaluated, and CEL says what it is)",
            "    else:",
        ]
        # each field's values, gathered in the walk, and made a set when first asked
        gathered = {
            field: n
            for n, field in enumerate(dict.fromkeys(f[1] for f in facts if f[0] in _GATHERED))
        }
        for n in gathered.values():
            out += [f"        values{n} = []", f"        strings{n} = None"]
        # each list field's items, all elements' together (`odd`: an element whose
        # field is not a list, which lets every condition of that field through)
        listed = {
            field: n
            for n, field in enumerate(dict.fromkeys(f[1] for f in facts if f[0] == "items"))
        }
        for n in listed.values():
            out += [f"        held{n} = []", f"        odd{n} = False"]
        per_item = [f for f in facts if f[0] in ("true", "element")]
        if per_item or gathered or listed:
            out.append("        for item in items:")
            for field, n in gathered.items():
                out += _read("value", "item", field, "            ")
                out.append(f"            values{n}.append(value)")
            for field, n in listed.items():
                out += _read("value", "item", field, "            ")
                out += [
                    "            if isinstance(value, _LISTS):",
                    f"                held{n}.extend(value)",
                    "            else:",
                    f"                odd{n} = True",
                ]
            for kind, field, _argument, bits in per_item:
                out += _read("value", "item", field, "            ")
                holds = (
                    "value is not False"
                    if kind == "true"
                    else "not isinstance(value, _LISTS) or len(value) > 0"
                )
                out.append(f"            if mask & {bits} != {bits} and ({holds}): mask |= {bits}")
        for kind, field, argument, bits in facts:
            if kind == "listed":
                out.append(f"        if len(items) > 0: mask |= {bits}")
            elif kind in _GATHERED:
                n = gathered[field]
                out += [
                    f"        if mask & {bits} != {bits}:",
                    f"            if strings{n} is None: strings{n} = _strings(values{n})",
                    f"            if strings{n} is _ANY: mask |= {bits}",
                ]
                if kind == "table":
                    out.append(
                        f"            else: mask |= _lets_through({bind(argument)}, strings{n})"
                    )
                elif kind == "prefix":
                    out.append(
                        f"            elif any(value.startswith({bind(argument)}) for value in "
                        f"strings{n}): mask |= {bits}"
                    )
                else:
                    out.append(
                        f"            elif any(text in value for value in strings{n} "
                        f"for text in {bind(argument)}): mask |= {bits}"
                    )
            elif kind == "items":
                n = listed[field]
                out += [
                    f"        if mask & {bits} != {bits}:",
                    f"            if odd{n}: mask |= {bits}",
                    "            else:",
                    f"                held = _strings(held{n})",
                    f"                if held is _ANY: mask |= {bits}",
                    f"                else: mask |= _lets_through({bind(argument)}, held)",
                ]
    out.append("    return mask")
    return "\n".join(out) + "\n"


def _lets_through(table: dict[str, int], values: frozenset[str]) -> int:
    mask = 0
    for value in values:
        mask |= table.get(value, 0)
    return mask


class Pruning:
    """Which of a program's conditions a call's facts leave to evaluate, in a few set
    operations: each distinct fact the conditions need (`_keys`) is checked once, and
    a condition none of whose facts hold is false without being evaluated. The facts
    that name values of a field (`c.name in [...]`) are one table a field: the call's
    values are looked up in it, whatever the number of conditions.

    Sound as the guards are (each key is implied by the guard it comes from, so a
    condition ruled out is one whose guard fails), and cheaper: a guard checked per
    condition cost about what evaluating it did (≈ 1.6 µs each, two thirds of a
    shipped program's conditions ruled out on the corpus)."""

    __slots__ = ("always", "enabled", "tables")

    #: The conditions left to evaluate for a frame (bit i: condition i): a function
    #: written for this program's facts (`_enabled_source`). Checking each fact through
    #: a closure, the list it reads looked up again for each, cost twice as much: 34
    #: against 17 µs a shipped decision on a new line (5.4 programs).
    enabled: Callable[[Mapping[str, Any]], int]

    def __init__(
        self,
        always: int,
        tables: list[tuple[_Path, _Path, dict[str, int], int]],
        keys: list[tuple[_Key, int]],
        item_tables: Sequence[tuple[_Path, _Path, dict[str, int], int]] = (),
    ) -> None:
        #: The conditions evaluated whatever the facts (bit i: condition i).
        self.always = always
        #: (list, field, the conditions each value lets through, all of them).
        self.tables = tables
        by_list: dict[_Path, list[_Fact]] = {}
        for path, field, table, every in tables:
            by_list.setdefault(path, []).append(("table", field, table, every))
        for path, field, table, every in item_tables:
            by_list.setdefault(path, []).append(("items", field, table, every))
        for key, bits in keys:
            kind, path = key[0], key[1]
            if kind == "list" and len(key) == 2:
                by_list.setdefault(path, []).append(("listed", (), None, bits))
            elif kind == "list":
                by_list.setdefault(path, []).append(("element", key[2], None, bits))
            elif kind in ("prefix", "contains"):
                by_list.setdefault(path, []).append((kind, key[2], key[3], bits))
            elif kind == "true":
                by_list.setdefault(path, []).append(("true", key[2], None, bits))
            else:
                raise ValueError(f"not a fact to prune by: {key!r}")
        names: dict[str, Any] = {
            "_M": _MISSING,
            "_LISTS": _LISTS,
            "_ANY": _ANY,
            "_strings": _strings,
            "_lets_through": _lets_through,
        }

        def bind(value: Any) -> str:
            name = f"_k{len(names)}"
            names[name] = value
            return name

        exec(compile(_enabled_source(always, by_list, bind), "<pruning>", "exec"), names)
        self.enabled = names["enabled"]

    @classmethod
    def of(cls, needs: list[Need]) -> Pruning | None:
        """The pruning of conditions needing `needs` (`need_of`'s, in order); None when
        no condition's needs give a fact to check."""
        always = 0
        enables: dict[_Key, int] = {}
        # ("in": a field's value among strings; "items": a list field holding one)
        tables: dict[str, dict[tuple[_Path, _Path], dict[str, int]]] = {"in": {}, "items": {}}
        # (every condition of a table, whatever its values: one naming none — `c.name
        # in []` — still errs where a value is missing or not a string)
        every: dict[tuple[str, _Path, _Path], int] = {}
        for index, need in enumerate(needs):
            keys = None if need is None else _keys(need)
            if keys is None:
                always |= 1 << index
                continue
            for key in keys:
                if key[0] in tables:
                    where = (key[1], key[2])
                    table = tables[key[0]].setdefault(where, {})
                    for value in key[3]:
                        table[value] = table.get(value, 0) | 1 << index
                    every[(key[0], *where)] = every.get((key[0], *where), 0) | 1 << index
                else:
                    enables[key] = enables.get(key, 0) | 1 << index
        if not enables and not tables["in"] and not tables["items"]:
            return None

        def listed(kind: str) -> list[tuple[_Path, _Path, dict[str, int], int]]:
            return [
                (path, field, table, every[kind, path, field])
                for (path, field), table in tables[kind].items()
            ]

        return cls(always, listed("in"), list(enables.items()), listed("items"))
