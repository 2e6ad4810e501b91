"""CEL for rule packs: one interface, two engines.

* `cel-expr-python` (default; Google's cel-cpp): type-checked at compile time,
  ≈ 2 µs an evaluation, thread-safe. A runtime error comes back as a Value of
  type ERROR — which is truthy if read carelessly — and is turned into
  `CelEvalError` here, always.
* `cel-python` (portable, pure Python): interpreted runner only (its compiled
  runner gives wrong results under threads), no type checker.

Both see the same variables (`VARIABLES_AT`) and the same custom functions
(`glob`, `path.normalize`, `path.within`, `path.within_folded`,
`path.within_any_folded`, `path.holds_any_folded`, `path.resolve`,
`path.contained`, `path.matches`, `path.names`, `path.inside`, `path.inside_folded`,
`shell.commands`, `shell.has_substitution`, `shell.parse_error`, `regex.replace`,
`regex.matches`).
`path.matches`, `path.names` and the `_folded` functions compare names as macOS and
Windows do (case and Unicode normalisation folded): they are what denials ask;
`path.within` and `path.inside` compare exactly, for allows and exemptions. Whatever engine
runs the rules, `Checker` type-checks every expression with cel-expr-python, so
nothing loads that cannot be evaluated.

A program evaluates several expressions in one pass (the conditions of every rule
that can apply to a tool) and returns one result per expression. Pack variables
(`vars.x`) are computed once per program run: cel-expr-python binds them with
`cel.bind(vars, {...}, ...)` inside the program; cel-python computes them in
Python, lazily, before the expressions that need them.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from policy.model import POINTS, FrozenDict

__all__ = [
    "ENGINES",
    "UNPORTABLE",
    "VARIABLES_AT",
    "CelCompileError",
    "CelEngine",
    "CelEvalError",
    "CelIssue",
    "CelProgram",
    "Checker",
    "get_engine",
    "referenced_names",
    "take_gave_up",
]

ENGINES = ("cel-expr-python", "cel-python")

_CONTEXT = {
    "sender": "string",
    "channel": "string",
    "chat_id": "string",
    "session": "string",
    "agent": "string",
    "turn": "string",
    "cwd": "string",
    "host": "string",
    "now": "timestamp",
    "mode": "string",
    "vars": "map",
}
_TOOL = {
    "tool": "string",
    "tool_raw": "string",
    "args": "map",
    # what the call does (policy.facts): the shell commands and their facts, the
    # paths every tool touches, where it is judged against, what protects the policy
    "commands": "list_of_commands",
    "access": "access",
    "workspace": "string",
    "home": "string",
    "protected": "list_of_strings",
}

#: The variables a CEL expression may use at each point rules may name, with their
#: types: the call's (at tool points), the caller's context, and what the point's
#: payload adds (`PointSpec.variables` in the one table of points, policy.model).
VARIABLES_AT: Mapping[str, Mapping[str, str]] = {
    spec.point.value: {**(_TOOL if spec.tool else {}), **_CONTEXT, **spec.variables}
    for spec in POINTS.values()
    if spec.rules
}

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def referenced_names(source: str) -> frozenset[str]:
    """Every identifier in `source` (a superset of the variables it reads)."""
    return frozenset(_IDENT.findall(source))


class CelIssue(NamedTuple):
    """A compile problem at a 1-based line and column of the expression."""

    line: int
    col: int
    message: str


class CelCompileError(Exception):
    def __init__(self, issues: Sequence[CelIssue]) -> None:
        super().__init__("; ".join(f"{i.line}:{i.col}: {i.message}" for i in issues))
        self.issues = list(issues)


class CelEvalError(Exception):
    """A runtime error of one expression (missing key, bad conversion, ...)."""


# ----------------------------------------------------------- custom functions


@functools.lru_cache(maxsize=4096)
def _glob_matcher(pattern: str) -> Callable[[str], bool]:
    from wcmatch import glob as wglob

    flags = wglob.GLOBSTAR | wglob.BRACE | wglob.DOTGLOB | wglob.NEGATE | wglob.EXTGLOB
    matcher = wglob.compile(pattern, flags=flags)
    match: Callable[[str], bool] = matcher.match
    return match


def fn_glob(value: str, pattern: str) -> bool:
    return _glob_matcher(pattern)(value)


# policy.analysis is imported by the functions that use it, on their first call:
# the shell analyser alone costs ≈ 13 ms to import, and most decisions of a
# one-event `policy hook` never call it.


def fn_path_normalize(path: str) -> str:
    from policy.analysis import paths

    return paths.normalize(path)


def fn_path_within(path: str, root: str) -> bool:
    from policy.analysis import paths

    return paths.within(path, root)


def fn_path_within_any_folded(path: str, roots: list[str]) -> bool:
    from policy.analysis import paths

    return paths.within_any_folded(path, roots)


def fn_path_holds_any_folded(path: str, roots: list[str]) -> bool:
    from policy.analysis import paths

    return paths.holds_any_folded(path, roots)


def fn_path_within_folded(path: str, root: str) -> bool:
    # for denials: also within on a file system that folds case and normalisation
    from policy.analysis import paths

    return paths.within_folded(path, root)


def fn_path_resolve(path: str) -> str:
    # Reads the file system (lstat/readlink per component); an UnsafePathError (a
    # relative path, a loop, NUL) is a runtime error, so the pack's on_error decides.
    from policy.analysis import paths

    return paths.resolve(path)


def fn_path_contained(path: str, root: str) -> bool:
    from policy.analysis import paths

    return paths.contained(path, root)


def fn_path_matches(path: str, patterns: list[str]) -> bool:
    from policy.analysis import paths
    from policy.facts import home_dir

    return paths.matches(path, patterns, home_dir())


def fn_path_names(path: str, patterns: list[str]) -> bool:
    from policy.analysis import paths
    from policy.facts import home_dir

    return paths.names(path, patterns, home_dir())


def fn_path_inside(path: str, patterns: list[str]) -> bool:
    from policy.analysis import paths
    from policy.facts import home_dir

    return paths.inside(path, patterns, home_dir())


def fn_path_inside_folded(path: str, patterns: list[str]) -> bool:
    from policy.analysis import paths
    from policy.facts import home_dir

    return paths.inside_folded(path, patterns, home_dir())


def fn_path_base(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def fn_path_is_pattern(path: str) -> bool:
    from policy.analysis import paths

    return paths.is_pattern(path)


# A `shell.*` function on a line whose analysis gave up (a cap, policy.analysis.shell)
# has no answer: it fails, and notes why here, so that the pack refuses the call
# whatever its `on_error` says (the engines turn the exception into an error value,
# which `on_error: skip` would skip). Per thread: a program runs on its caller's.
_gave_up = threading.local()


def _refuse(function: str, limit: str) -> None:
    reason = f"{function}: the command cannot be analysed: {limit}"
    _gave_up.limit = reason
    raise ValueError(reason)


def take_gave_up() -> str:
    """Why a `shell.*` function run since the last call could not answer ("" if none
    could not); forgotten once read. The pack runtime reads it after each program."""
    limit: str = getattr(_gave_up, "limit", "")
    if limit:
        _gave_up.limit = ""
    return limit


def fn_shell_commands(command: str) -> list[dict[str, Any]]:
    # A command line with no call around it: its working directory is not known, so
    # relative paths stay relative (inside no workspace); `commands` has them located.
    from policy.analysis import effects
    from policy.facts import home_dir

    line = effects.analyze(command, "", home_dir())
    if line.limit:
        _refuse("shell.commands", line.limit)
    return line.to_cel()


def fn_shell_has_substitution(command: str) -> bool:
    from policy.analysis import shell

    analysis = shell.analyze(command)
    if analysis.limit:
        _refuse("shell.has_substitution", analysis.limit)
    return analysis.has_substitution


def fn_shell_parse_error(command: str) -> str:
    from policy.analysis import shell

    analysis = shell.analyze(command)
    if analysis.limit:
        _refuse("shell.parse_error", analysis.limit)
    return analysis.parse_error


@functools.lru_cache(maxsize=1024)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def fn_regex_replace(value: str, pattern: str, replacement: str) -> str:
    return _regex(pattern).sub(replacement, value)


def fn_regex_matches(value: str, pattern: str) -> bool:
    """CEL's `matches`, with the pattern compiled once per process. cel-expr-python
    compiles a `matches` pattern on every call — literal or not — which for the long
    alternations packs use (credential-printing commands, backup names of secrets)
    costs more than the rest of the decision."""
    return _regex(pattern).search(value) is not None


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def fn_lower_ascii(value: str) -> str:
    return value.translate(_ASCII_LOWER)


def fn_upper_ascii(value: str) -> str:
    return value.translate(_ASCII_UPPER)


def fn_trim(value: str) -> str:
    return value.strip()


def fn_split(value: str, separator: str, limit: int = -1) -> list[str]:
    if limit == 0:
        return []
    if separator == "":
        parts = list(value)
        return parts if limit < 0 else [*parts[: limit - 1], "".join(parts[limit - 1 :])]
    return value.split(separator, limit - 1 if limit > 0 else -1)


def fn_replace(value: str, old: str, new: str, limit: int = -1) -> str:
    return value.replace(old, new, limit)


def fn_substring(value: str, start: int, end: int | None = None) -> str:
    stop = len(value) if end is None else end
    if start < 0 or stop < start or stop > len(value):
        raise ValueError(f"substring({start}, {stop}) out of range for a string of {len(value)}")
    return value[start:stop]


def fn_index_of(value: str, needle: str, start: int = 0) -> int:
    if start < 0 or start > len(value):
        raise ValueError(f"indexOf start {start} out of range for a string of {len(value)}")
    return value.find(needle, start)


def fn_last_index_of(value: str, needle: str, end: int | None = None) -> int:
    if end is None:
        return value.rfind(needle)
    if end < 0 or end >= len(value) + 1:
        raise ValueError(f"lastIndexOf end {end} out of range for a string of {len(value)}")
    return value.rfind(needle, 0, end + len(needle))


def fn_char_at(value: str, index: int) -> str:
    if index < 0 or index > len(value):
        raise ValueError(f"charAt({index}) out of range for a string of {len(value)}")
    return value[index : index + 1]


def fn_join(values: list[str], separator: str = "") -> str:
    return separator.join(values)


# (name, parameter types, return type, implementation, member function?)
# Member functions take their receiver as the first parameter.
_FUNCTIONS: tuple[tuple[str, tuple[str, ...], str, Callable[..., Any], bool], ...] = (
    ("glob", ("string", "string"), "bool", fn_glob, False),
    ("path.normalize", ("string",), "string", fn_path_normalize, False),
    ("path.within", ("string", "string"), "bool", fn_path_within, False),
    ("path.within_folded", ("string", "string"), "bool", fn_path_within_folded, False),
    (
        "path.within_any_folded",
        ("string", "list_of_strings"),
        "bool",
        fn_path_within_any_folded,
        False,
    ),
    (
        "path.holds_any_folded",
        ("string", "list_of_strings"),
        "bool",
        fn_path_holds_any_folded,
        False,
    ),
    ("path.resolve", ("string",), "string", fn_path_resolve, False),
    ("path.contained", ("string", "string"), "bool", fn_path_contained, False),
    ("path.matches", ("string", "list_of_strings"), "bool", fn_path_matches, False),
    ("path.inside", ("string", "list_of_strings"), "bool", fn_path_inside, False),
    ("path.inside_folded", ("string", "list_of_strings"), "bool", fn_path_inside_folded, False),
    ("path.names", ("string", "list_of_strings"), "bool", fn_path_names, False),
    ("path.is_pattern", ("string",), "bool", fn_path_is_pattern, False),
    ("path.base", ("string",), "string", fn_path_base, False),
    ("shell.commands", ("string",), "list_of_commands", fn_shell_commands, False),
    ("shell.has_substitution", ("string",), "bool", fn_shell_has_substitution, False),
    ("shell.parse_error", ("string",), "string", fn_shell_parse_error, False),
    ("regex.replace", ("string", "string", "string"), "string", fn_regex_replace, False),
    ("regex.matches", ("string", "string"), "bool", fn_regex_matches, False),
)

# cel-go's strings extension: native in cel-expr-python (ExtStrings, no Python
# callback), emulated for cel-python by the functions below. The shared corpus
# checks that both agree. ExtStrings' other functions (format, quote, reverse)
# have no emulation, so `policy check` refuses them (see `UNPORTABLE`).
_STRING_MEMBERS: dict[str, Callable[..., Any]] = {
    "lowerAscii": fn_lower_ascii,
    "upperAscii": fn_upper_ascii,
    "trim": fn_trim,
    "split": fn_split,
    "replace": fn_replace,
    "substring": fn_substring,
    "indexOf": fn_index_of,
    "lastIndexOf": fn_last_index_of,
    "charAt": fn_char_at,
    "join": fn_join,
}

#: Functions cel-expr-python knows that the cel-python engine cannot run.
UNPORTABLE = re.compile(r"\.\s*(format|quote|reverse)\s*\(|\bstrings\s*\.\s*quote\s*\(")


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
        entries += [f'"{name}": dyn({source})' for name, source in layers[index].items()]
        wrapped = f"cel.bind(vars, {{{', '.join(entries)}}}, {wrapped})"
    return wrapped


#: What `_named_vars` must tell apart in a CEL source: string literals (skipped),
#: `has(vars.x)` (a presence test, not a read), `x.vars` (someone else's field),
#: `vars.x` / `vars["x"]`, and any other use of `vars` (the whole map).
_VARS_TOKENS = re.compile(
    r"""
    (?P<string>[rRbB]{0,2}(?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''
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
        if kind == "field":
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
        wrapped = f"cel.bind(_var_{name}, dyn({named}), {wrapped})"
    return wrapped


# --------------------------------------------------------------- interfaces


class CelProgram(ABC):
    """Several expressions evaluated together; `needs` are the variables they read."""

    needs: frozenset[str]

    @abstractmethod
    def run(self, data: Mapping[str, Any]) -> list[Any]:
        """One result per expression: a plain Python value, or a CelEvalError."""

    def run_mask(self, data: Mapping[str, Any]) -> int | None:
        """Bit i set when expression i is true; None when any is not a bool.

        The hot path of a pack asks for this first: an int is cheaper to get
        out of an engine than a list, and is itself the key of the memoised
        outcome. None sends the caller to `run` for each expression's result.
        """
        mask = 0
        for index, value in enumerate(self.run(data)):
            if value is True:
                mask |= 1 << index
            elif value is not False:
                return None
        return mask


class CelEngine(ABC):
    name: str

    @abstractmethod
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
        """Compile `exprs` for `point`.

        `var_layers` are the pack variables all of them need, by dependency depth;
        `expr_layers[i]`, when given, are those expression i needs alone (used to
        attribute errors when the combined evaluation fails). `checked`: the checker
        has passed each of them (a loaded pack's), so an engine may skip its own check;
        `store` (a policy.packs.cache.ProgramStore) keeps compiled programs between
        processes, for engines that can serialise them. Raises CelCompileError.
        """


# ----------------------------------------------------------- cel-expr-python


def _cel_module() -> Any:
    from cel_expr_python import cel

    return cel


class _ExprEnvs:
    """One cel-expr-python environment per hook point (declarations differ).

    Each is built when a point first needs it (≈ 1.2 ms apiece): a one-event
    `policy hook` compiles for one point only.
    """

    def __init__(self, typed: bool = False) -> None:
        cel = _cel_module()
        from cel_expr_python.ext import ext_bindings, ext_strings

        self.cel = cel
        t = cel.Type
        self.bool_type = t.BOOL
        self.error_type = t.ERROR
        self._pool: Any = None
        if typed:
            from policy.packs import cel_types

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
        for name, params, ret, impl, member in _FUNCTIONS:
            overloads.setdefault(name, []).append(
                cel.Overload(
                    f"{name.replace('.', '_')}_{'_'.join(params)}",
                    types[ret],
                    [types[p] for p in params],
                    is_member=member,
                    impl=impl,
                )
            )
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
                    return env.deserialize(kept)
        try:
            expr = env.compile(source, disable_check=checked)
        except RuntimeError as exc:
            raise CelCompileError(parse_issues(str(exc))) from None
        if store is not None:
            store.put(point, source, expr.serialize())
        return expr


_ISSUE = re.compile(r"ERROR: <input>:(\d+):(\d+): (.*)")


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
    below the top level), so frozen values are copied into plain ones."""
    kind = type(value)
    if kind in _PLAIN:
        return value
    if kind is FrozenDict or kind is dict or isinstance(value, Mapping):
        for item in value.values():
            if type(item) not in _PLAIN:
                return {str(k): _to_expr_value(v) for k, v in value.items()}
        return dict(value)
    if kind is tuple or kind is list:
        return [_to_expr_value(v) for v in value]
    return value


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
        self._exprs = list(exprs)
        self._expr_layers = list(expr_layers) if expr_layers is not None else None
        self._var_layers = var_layers
        self._body = "[" + ", ".join(f"({e})" for e in exprs) + "]"
        self._program: Any = None
        self._lock = threading.Lock()
        self._mask: Any = None
        if len(exprs) <= _MASK_BITS:
            # The same expressions summed into one int: `(e) ? 1 : 0` fails, and so
            # fails the whole sum, when `e` errors or is not a bool.
            terms = " + ".join(f"(({e}) ? {1 << i} : 0)" for i, e in enumerate(exprs))
            # An expression that is not a condition does not compile: `run` alone serves.
            with contextlib.suppress(CelCompileError):
                self._mask = self._compile(var_layers, terms or "0")
        if self._mask is None:
            # Compiled now, so that an expression that cannot compile fails here.
            self._program = self._compile(var_layers, self._body)
        # else the list form waits for the first `run`: the mask serves every call whose
        # conditions all give a bool (a cold `policy hook` compiles one program, not two).
        names: set[str] = set()
        for source in (*exprs, *(s for layer in var_layers for s in layer.values())):
            names |= referenced_names(source)
        self.needs = frozenset(names & VARIABLES_AT[point].keys()) - {"vars"}
        self._singles: list[Any] | None = None

    def _list_program(self) -> Any:
        program = self._program
        if program is None:
            with self._lock:
                if self._program is None:
                    self._program = self._compile(self._var_layers, self._body)
                program = self._program
        return program

    def _compile(self, layers: Sequence[Mapping[str, str]], body: str) -> Any:
        """The named-binding form when it compiles, else the map form."""
        named = _named_source(layers, body)
        if named is not None:
            with contextlib.suppress(CelCompileError):  # the map form then says why
                return self._envs.compile(
                    self._point, named, checked=self._checked, store=self._store
                )
        return self._envs.compile(
            self._point, _var_layers_source(layers, body), checked=self._checked, store=self._store
        )

    def run_mask(self, data: Mapping[str, Any]) -> int | None:
        if self._mask is None:
            return super().run_mask(data)
        converted = {}
        for name, value in data.items():
            kind = type(value)
            # A FrozenDict of scalars is taken as is one level down (not deeper).
            if kind not in _PLAIN and not (kind is FrozenDict and value.flat):
                value = _to_expr_value(value)
            converted[name] = value
        try:
            mask = self._mask.eval(data=converted).plain_value()
        except Exception:  # noqa: BLE001 - `run` says which expression fails, and why
            return None
        # An ERROR Value's plain value is its message, a str: never a mask.
        return mask if type(mask) is int else None

    def run(self, data: Mapping[str, Any]) -> list[Any]:
        # Outside the `try`: a program that cannot compile is the hook's failure (denied
        # by the chain), as when it was compiled with the rest, never a CEL runtime error.
        program = self._list_program()
        converted = {k: _to_expr_value(v) for k, v in data.items()}
        # The program is a list literal: a list back means success. An error comes
        # back as a Value of type ERROR whose plain value is its message (a str),
        # which must never be read as a result.
        try:
            result = program.eval(data=converted).plain_value()
            if type(result) is list:
                return result
            # Some expression failed: evaluate each alone to say which.
            activation = self._env.Activation(converted)
            return [self._run_single(i, activation) for i in range(len(self._exprs))]
        except Exception as exc:  # noqa: BLE001 - input CEL cannot take fails every expression
            error = CelEvalError(f"cannot evaluate: {type(exc).__name__}: {exc}")
            return [error] * len(self._exprs)

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
            program = self._compile(layers, f"[({self._exprs[index]})]")
            singles[index] = program
        value = program.eval(activation).plain_value()
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
            self._loaded = _expr_envs()
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


# ----------------------------------------------------------------- cel-python


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

    def run(self, data: Mapping[str, Any]) -> list[Any]:
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


_engines: dict[str, CelEngine] = {}
_engines_lock = threading.Lock()


def get_engine(name: str) -> CelEngine:
    """The shared engine called `name` (`cel-expr-python` or `cel-python`)."""
    with _engines_lock:
        engine = _engines.get(name)
        if engine is None:
            if name == "cel-expr-python":
                engine = ExprEngine()
            elif name == "cel-python":
                engine = PyEngine()
            else:
                raise ValueError(f"unknown CEL engine {name!r} (known: {', '.join(ENGINES)})")
            _engines[name] = engine
        return engine


# ------------------------------------------------------------------- checker


class CheckResult(NamedTuple):
    issues: list[CelIssue]
    type_name: str


class Checker:
    """Compile-time checks with cel-expr-python, whatever engine evaluates.

    An expression that reads the call's facts (`commands`, `access`,
    `shell.commands(...)`) is checked where they are typed, so a field that does
    not exist is an error at its own line:col rather than a failure at run time."""

    def __init__(self) -> None:
        self._envs = _expr_envs()

    def check(self, point: str, source: str, bound: Mapping[str, str] | None = None) -> CheckResult:
        """Check `source` at `point`. `bound` are the pack variables it reads (name ->
        source, in dependency order): their facts' types flow into the check."""
        envs = _typed_envs() if _reads_facts(source, bound) else self._envs
        try:
            expr = envs.compile(point, source)
        except CelCompileError as exc:
            return CheckResult(exc.issues, "")
        if bound:
            issues = _field_issues(envs, point, source, bound)
            if issues:
                return CheckResult(issues, "")
        return CheckResult([], _type_name(expr.return_type()))


_FACT_NAMES = frozenset({"commands", "access", "shell"})


def _reads_facts(source: str, bound: Mapping[str, str] | None) -> bool:
    sources = [source, *(bound.values() if bound else ())]
    return any(referenced_names(s) & _FACT_NAMES for s in sources)


def _field_issues(
    envs: _ExprEnvs, point: str, source: str, bound: Mapping[str, str]
) -> list[CelIssue]:
    """Misspelt fields read through pack variables (`vars.cmds.exists(c, c.wrtes)`):
    the expression is checked again with each variable bound to its own typed source,
    and only unknown fields are reported, at their place in `source`."""
    named = _named_vars(source)
    if named is None or len(named) != len(source):
        return []
    prefix = ""
    closing = ""
    for name, var_source in bound.items():
        var_named = _named_vars(var_source)
        if var_named is None:
            return []
        prefix += f"cel.bind(_var_{name}, ({var_named}), "
        closing += ")"
    wrapped = prefix + "\n" + named + "\n" + closing
    try:
        envs.compile(point, wrapped)
    except CelCompileError as exc:
        shift = 1 + prefix.count("\n")
        return [
            CelIssue(max(1, issue.line - shift), issue.col, issue.message)
            for issue in exc.issues
            if "undefined field" in issue.message and issue.line > shift
        ]
    return []


def _type_name(cel_type: Any) -> str:
    name = str(cel_type.name()).lower()
    return {"string": "string", "bool": "bool", "dyn": "dyn"}.get(name, name)
