"""Compile-time checks of pack expressions, whatever engine evaluates them.

Every expression is type-checked with cel-expr-python when a pack loads, so nothing
loads that cel-cpp's checker refuses (nor one whose type cel-cpp cannot build: a map
keyed by a list); an expression that reads the call's facts is checked where they
are message types (`policy.packs.cel.types`). Some errors only run-time values show
(a map built in a macro with keys of a type cel-cpp refuses, a `google.protobuf.Any`
made from nothing) are left to the rule's `on_error` when they come. An issue comes
with a hint where one can be told: the field, variable or function meant (from the
names the environment declares), a raw string for a regex escape, `x in list` for
`list contains x`.
"""

from __future__ import annotations

import hashlib
import re
import sys
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from policy._named_tuple import NamedTuple
from policy.packs.cel.expr import _expr_envs, _ExprEnvs, _named_vars, _typed_envs
from policy.packs.cel.interface import CelCompileError, CelIssue, referenced_names

__all__ = ["CheckResult", "Checker"]


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
        source, in dependency order): their facts' types flow into the check.

        Remembered for the process (`_Checked`): the answer is a function of these
        arguments and of the environments, which this code declares once, and cel-cpp's
        type check is most of a pack's compile (≈ 0.5 ms a shipped condition) — paid
        again for every pack of a set compiled anew because one of them changed (a
        reload), and by every engine of a process built on the same packs."""
        key = (point, source, _digest(bound) if bound else b"")
        found = _checked.get(key)
        if found is None:
            found = self._check(point, source, bound)
            _checked.keep(key, found)
        return CheckResult(list(found.issues), found.type_name)

    def _check(self, point: str, source: str, bound: Mapping[str, str] | None) -> CheckResult:
        envs = _typed_envs() if _reads_facts(source, bound) else self._envs
        try:
            expr = envs.compile(point, source)
        except CelCompileError as exc:
            return CheckResult(_with_hints(point, source, exc.issues), "")
        if bound:
            issues = _field_issues(envs, point, source, bound)
            if issues:
                return CheckResult(_with_hints(point, source, issues), "")
        try:
            type_name = _type_name(expr.return_type())
        except RuntimeError as exc:  # (cel-cpp refuses a type it checked: `{[1]: 1}`)
            return CheckResult([CelIssue(1, 1, f"its type cannot be built: {exc}")], "")
        return CheckResult([], type_name)


_Key = tuple[str, str, bytes]
#: What an issue holds beside its tuple and message: ints past the small ones, a slot.
_PER_ISSUE = 64


def _digest(bound: Mapping[str, str]) -> bytes:
    """The pack variables a source reads, as one key part: a large variable read by
    every rule of a pack is held once (by the pack), not once a rule by the memory."""
    # (the pairs' repr: unambiguous, and any str has one, a lone surrogate included)
    return hashlib.sha256(repr(tuple(bound.items())).encode("utf-8", "surrogatepass")).digest()


class _Checked:
    """The checks made so far in this process, by (point, source, the pack variables it
    reads), up to `LIMIT` bytes held — the sources, the issues' messages (an issue may
    quote its line) and each entry's own objects (`_ENTRY`): past it they are forgotten
    at once (a pack set larger than that is checked as if it were new, never wrongly)."""

    LIMIT = 4 << 20
    #: What an entry holds beside its strings: the key and result tuples, the list, the
    #: digest, the dict's slot (measured: 260 to 390 bytes).
    _ENTRY = 512

    def __init__(self) -> None:
        self._answers: dict[_Key, CheckResult] = {}
        self._held = 0
        self._lock = threading.Lock()

    def get(self, key: _Key) -> CheckResult | None:
        return self._answers.get(key)

    def keep(self, key: _Key, found: CheckResult) -> None:
        size = self._ENTRY + sys.getsizeof(key[1])
        for issue in found.issues:  # (the issue's tuple, its line and column, its slot)
            size += sys.getsizeof(issue) + sys.getsizeof(issue.message) + _PER_ISSUE
        if size > self.LIMIT:
            return  # (never kept, and nothing else forgotten for it)
        with self._lock:
            if key in self._answers:
                return
            if self._held + size > self.LIMIT:
                self._answers.clear()
                self._held = 0
            self._answers[key] = CheckResult(list(found.issues), found.type_name)
            self._held += size


_checked = _Checked()

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


# -- hints: what the author probably meant

#: CEL's own functions and macros, global and member (cel-spec, and the strings
#: extension both engines offer: policy.packs.cel.functions._STRING_MEMBERS).
_CEL_GLOBALS = (
    "size", "int", "uint", "double", "string", "bytes", "bool", "timestamp", "duration",
    "type", "dyn", "has", "matches", "null",
)  # fmt: skip
_CEL_MEMBERS = (
    "contains", "startsWith", "endsWith", "matches", "size", "exists", "exists_one", "all",
    "map", "filter", "getFullYear", "getMonth", "getDate", "getDayOfMonth", "getDayOfWeek",
    "getDayOfYear", "getHours", "getMinutes", "getSeconds", "getMilliseconds",
)  # fmt: skip
_NAMESPACES = ("path", "shell", "regex")
_UNDECLARED = re.compile(r"undeclared reference to '([^']+)'")
_FIELD = re.compile(r"undefined field '([^']+)' not found in struct '([^']+)'")
_TOKEN = re.compile(r"token recognition error at: '(['\"])\\")
_WORD_OPERATORS = {"and": "&&", "or": "||", "not": "!"}
_MISMATCHED = re.compile(r"(?:mismatched|extraneous) input '([A-Za-z_]+)'")
#: What may follow a backslash in a CEL string (cel-spec, "String and bytes literals").
_CEL_ESCAPES = frozenset("abfnrtv\\'\"`?xuU01234567")


def _with_hints(point: str, source: str, issues: list[CelIssue]) -> list[CelIssue]:
    """Each issue with a "did you mean" where one can be told; an invalid escape's
    knock-on syntax errors are dropped (the first tells what to fix)."""
    out: list[CelIssue] = []
    for issue in issues:
        hint = _hint(point, source, issue)
        out.append(issue._replace(message=f"{issue.message}{hint}") if hint else issue)
        if hint and "raw string" in hint:
            break
    return out


def _hint(point: str, source: str, issue: CelIssue) -> str:
    message = issue.message
    offset = _offset(source, issue.line, issue.col)
    found = _FIELD.search(message)
    if found:
        return _did_you_mean(found[1], _struct_fields(found[2]))
    found = _UNDECLARED.search(message)
    if found:
        return _undeclared_hint(point, source, found[1], offset)
    if _TOKEN.search(message):
        return _escape_hint(source, offset)
    if "token recognition error at: '=" in message:
        return " (CEL compares with `==` and `!=`)"
    found = _MISMATCHED.search(message)
    if found and found[1] == "contains":
        return _contains_hint(source)
    if found and found[1] in _WORD_OPERATORS:
        return f" (CEL writes `{found[1]}` as `{_WORD_OPERATORS[found[1]]}`)"
    return ""


def _offset(source: str, line: int, col: int) -> int:
    lines = source.split("\n")
    line = max(1, min(line, len(lines)))
    return sum(len(text) + 1 for text in lines[: line - 1]) + max(col, 1) - 1


def _did_you_mean(name: str, candidates: Iterable[str]) -> str:
    import difflib

    guess = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    if not guess:
        folded = {c.lower(): c for c in candidates}
        guess = [folded[name.lower()]] if name.lower() in folded else []
    return f" (did you mean `{guess[0]}`?)" if guess else ""


def _struct_fields(struct: str) -> list[str]:
    from policy.packs.cel.types import descriptor_pool

    try:
        message = descriptor_pool().FindMessageTypeByName(struct)
    except KeyError:
        return []
    return [field.name for field in message.fields]


def _undeclared_hint(point: str, source: str, name: str, offset: int) -> str:
    """`tol` -> `tool`, `strng(x)` -> `string`, `x.startwith()` -> `startsWith`,
    `path.withn()` -> `path.within`."""
    from policy.packs.cel.functions import _FUNCTIONS, _STRING_MEMBERS
    from policy.packs.cel.interface import VARIABLES_AT

    qualified = [f[0] for f in _FUNCTIONS if "." in f[0]]
    at = _nearest(source, name, offset)
    before = source[:at].rstrip()
    after = source[at + len(name) :]
    if name in _NAMESPACES or name in _WORD_OPERATORS:
        member = re.match(r"\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)", after)
        if name in _NAMESPACES and member:
            wanted = f"{name}.{member[1]}"
            guess = _did_you_mean(wanted, qualified)
            return (
                f" (`{wanted}` is no function{guess.replace(' (', ': ', 1)[:-1]})" if guess else ""
            )
        if name in _WORD_OPERATORS:
            return f" (CEL writes `{name}` as `{_WORD_OPERATORS[name]}`)"
        return ""
    if before.endswith("."):
        owner = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\.$", before)
        if owner and owner[1] in _NAMESPACES:
            wanted = f"{owner[1]}.{name}"
            return _did_you_mean(wanted, qualified)
        return _did_you_mean(name, [*_CEL_MEMBERS, *_STRING_MEMBERS])
    names = [*VARIABLES_AT.get(point, {}), *_CEL_GLOBALS, *_NAMESPACES]
    names += [f[0] for f in _FUNCTIONS if "." not in f[0]]
    return _did_you_mean(name, names)


def _nearest(source: str, name: str, offset: int) -> int:
    """Where the identifier `name` is written in `source`, nearest to `offset`."""
    places = [m.start() for m in re.finditer(rf"(?<![A-Za-z0-9_]){re.escape(name)}\b", source)]
    return min(places, key=lambda p: abs(p - offset)) if places else offset


def _escape_hint(source: str, offset: int) -> str:
    """`'\\w+'`: CEL has no `\\w` escape; a raw string keeps the backslash for RE2."""
    quote = source[offset : offset + 1]
    if quote not in ("'", '"'):
        return ""
    end = offset + 1
    while end < len(source) and source[end] not in (quote, "\n"):
        end += 2 if source[end] == "\\" else 1
    literal = source[offset : end + 1]
    bad = re.search(r"\\(.)", literal)
    if bad is None or bad[1] in _CEL_ESCAPES:
        return ""
    return (
        f" (`\\{bad[1]}` is no escape in a CEL string: for a regular expression write a raw "
        f"string, r{literal})"
    )


def _contains_hint(source: str) -> str:
    """`c.args contains "apply"` -> `"apply" in c.args` (or `x.contains(y)` for text)."""
    found = re.search(
        r"([A-Za-z_][\w.\[\]\"']*)\s+contains\s+(\"[^\"]*\"|'[^']*'|[A-Za-z_][\w.]*)", source
    )
    if found is None:
        return " (CEL has no `contains` operator: `x in list`, or `text.contains(x)`)"
    left, right = found[1], found[2]
    return (
        f" (CEL has no `contains` operator: write `{right} in {left}` for a list, "
        f"or `{left}.contains({right})` for a string)"
    )
