"""Constant arguments of the pack functions, passed to them by handle.

A shipped rule asks `path.matches(p, vars.places)` of every path a call reads, and
`vars.places` is a literal list of ≈ 100 globs. cel-expr-python turns that list into
a new Python list on every call of the function, and keeps it: each call from CEL
into Python leaks its argument tuple (cel-expr-python 0.1.3; one tuple and what it
holds per call, measured in tests/bench/bench_realistic.py). Converting the list
was most of a realistic decision's time, and keeping it most of the memory a
decision left behind.

So, before a program is compiled for cel-expr-python, a call of one of the functions
in `HANDLED` whose second argument is a constant — a literal list of strings or a
string, written in the call or as a pack variable whose whole source is one — gets
that argument as an int handle instead, and the call is to the handle's own function
(`_h_path_matches(p, 7034…)`), declared only in the run-time environments and taking
an int only: `policy check` never sees the rewritten source (and refuses the name),
and a number from the call's data, which a public function such as `path.matches`
refuses as CEL does, can never pass for a handle. The function reads the value back from
`VALUES`. The handle is a digest of the value, so a program compiled in one process
and read back from the program store in another names the same value; the rewrite
registers it before any program that uses it is compiled or read back.

Only what is certainly a constant is rewritten: string literals with the escapes
listed in `_ESCAPES`, raw strings without a backslash; anything else keeps the
ordinary call, and a source holding a comment or a raw string is not rewritten at
all (`interface.strings_are_certain`: the scan could take a comment's quote for a
string's, or a call in a comment for code). cel-python calls Python functions
without either cost and is not rewritten.

The other rewrites of run-time sources live here too, on the same string-aware
scanning: CEL's `matches` on RE2 compiled once (`with_native_matches`, decision record
0017), and the bool functions answered as ints and `path.base` answered in CEL
(`with_int_answers`, `with_native_base`, decision record 0018). None touches a source
that binds a variable named as a function's namespace (`xs.exists(path, …)`).
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import re
import threading
from collections.abc import Mapping

from policy.analysis._lazy_re import LazyPattern
from policy.packs.cel.interface import strings_are_certain

__all__ = [
    "HANDLED",
    "HANDLE_FUNCTIONS",
    "RE2_MATCHES",
    "RE2_MATCHES_BY_HANDLE",
    "VALUES",
    "constant",
    "register",
    "with_handles",
    "with_native_matches",
]

#: Function -> the kind of constant its second argument takes.
HANDLED: Mapping[str, type] = {
    "path.matches": tuple,
    "path.names": tuple,
    "path.inside": tuple,
    "path.inside_folded": tuple,
    "path.inside_any_folded": tuple,
    "path.within_any_folded": tuple,
    "path.holds_any_folded": tuple,
    "regex.matches": str,
    "glob": str,
}

#: Function -> the function a rewritten call names instead: the same question, its
#: constant by handle. Declared in run-time environments only, and taking an int
#: only, so no pack can call one and no value from a call can pass for a handle.
HANDLE_FUNCTIONS: Mapping[str, str] = {name: f"_h_{name.replace('.', '_')}" for name in HANDLED}

#: Handle -> constant value (a str, or a tuple of str). Bounded by `_LIMIT`.
VALUES: dict[int, str | tuple[str, ...]] = {}
_LIMIT = 65536
_lock = threading.Lock()

_STRING = LazyPattern(
    r"""(?P<raw>[rR])?(?:"(?P<d>(?:\\.|[^"\\\n])*)"|'(?P<s>(?:\\.|[^'\\\n])*)')"""
)
_ITEM = LazyPattern(r"""[rR]?(?:"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')""")
#: A list literal of string literals only (a trailing comma allowed).
_LIST = LazyPattern(rf"\[\s*(?:(?:{_ITEM.pattern})\s*,\s*)*(?:(?:{_ITEM.pattern})\s*,?\s*)?\]")
_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t", "r": "\r", "?": "?", "`": "`"}
_CALL = LazyPattern(r"(?<![\w.])(" + "|".join(re.escape(n) for n in HANDLED) + r")\s*\(")
_VAR = LazyPattern(r"""\s*vars\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*(["'])([A-Za-z_]\w*)\2\s*\])\s*\Z""")
#: What a CEL source may hold besides a call: string literals (skipped whole),
#: brackets, and the commas that split a call's arguments at its own depth.
_TOKENS = LazyPattern(r"""[rRbB]{0,2}(?:\"\"\"|''')|[rRbB]{0,2}["']|[()\[\]{},]""")
_STRING_START = LazyPattern(r"""[rRbB]{0,2}["']""")


def _string(text: str) -> str | None:
    """The value of one CEL string literal `text` (whole), or None if not certain."""
    match = _STRING.fullmatch(text.strip())
    if match is None:
        return None
    body = match.group("d") if match.group("d") is not None else match.group("s")
    if "\\" not in body:
        return body
    if match.group("raw"):
        return None
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\":
            decoded = _ESCAPES.get(body[i + 1 : i + 2])
            if decoded is None:
                return None
            out.append(decoded)
            i += 2
            continue
        out.append(char)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def constant(source: str) -> str | tuple[str, ...] | None:
    """The value of `source` if it is a string literal or a list literal of them."""
    text = source.strip()
    if text.startswith("["):
        if _LIST.fullmatch(text) is None:
            return None  # not only string literals (`["a"] + ["b"]`, a variable, ...)
        values = [_string(item.group()) for item in _ITEM.finditer(text)]
        if any(value is None for value in values):
            return None
        return tuple(value for value in values if value is not None)
    return _string(text)


def _skip_string(source: str, start: int) -> int | None:
    """The end of the string literal opening at `start`, or None if it does not end."""
    match = _TOKENS.match(source, start)
    if match is None:
        return None
    opener = match.group().lstrip("rRbB")
    raw = "r" in match.group()[: -len(opener)].lower()
    i = match.end()
    while i < len(source):
        if source.startswith(opener, i):
            return i + len(opener)
        if source[i] == "\\" and not raw:
            i += 2
            continue
        if source[i] == "\\" and raw and source.startswith(opener, i + 1):
            i += 1 + len(opener)  # `\"` does not close a raw string either
            continue
        if source[i] == "\n" and len(opener) == 1:
            return None
        i += 1
    return None


def _split(text: str, start: int = 0) -> tuple[list[str], int] | None:
    """`text[start:]` split at the commas of its own depth, up to the bracket that
    closes it (or its end), and where that is; None if a string or a bracket does not
    close."""
    parts: list[str] = []
    depth = 0
    last = start
    i = start
    while i < len(text):
        match = _TOKENS.search(text, i)
        if match is None:
            break
        token = match.group()
        if token[-1] in "\"'":
            end = _skip_string(text, match.start())
            if end is None:
                return None
            i = end
            continue
        if token in "([{":
            depth += 1
        elif token in ")]}":
            if depth == 0:
                parts.append(text[last : match.start()])
                return parts, match.start()
            depth -= 1
        elif token == "," and depth == 0:
            parts.append(text[last : match.start()])
            last = match.end()
        i = match.end()
    if depth:
        return None
    parts.append(text[last:])
    return parts, len(text)


def _digest(value: str | tuple[str, ...]) -> int:
    digest = hashlib.blake2b(repr(value).encode("utf-8", "surrogatepass"), digest_size=8)
    return int.from_bytes(digest.digest(), "big") >> 2  # a positive CEL int


def register(handle: int, value: str | tuple[str, ...]) -> bool:
    """Make `handle` name `value` again in this process, as `with_handles` did in the
    one that kept a program plan: False (the plan is not used) unless `handle` is the
    digest of `value` and the registry takes it."""
    if type(handle) is not int or type(value) not in (str, tuple):
        return False
    if type(value) is tuple and any(type(item) is not str for item in value):
        return False
    return _digest(value) == handle and _handle(value) == handle


def _handle(value: str | tuple[str, ...]) -> int | None:
    handle = _digest(value)
    with _lock:
        known = VALUES.get(handle)
        if known is None:
            if len(VALUES) >= _LIMIT:
                return None  # the ordinary call then: slower, never different
            VALUES[handle] = value
        elif known != value:
            return None
    return handle


def with_handles(
    source: str,
    variables: Mapping[str, str],
    used: dict[int, str | tuple[str, ...]] | None = None,
) -> str:
    """`source` with the constant second argument of each `HANDLED` call as a handle;
    `variables` are the pack's variables' sources, by name (only those a call names
    are read). Each handle put in is added to `used`, with its value."""
    if _CALL.search(source) is None or not strings_are_certain(source):
        return source  # (a comment or a raw string: the scan could misread them)
    if _shadows_a_namespace(source):
        return source  # (`path.matches(x, …)` may be a call on a variable named path)
    spans = _string_spans(source)
    starts = [m.start() for m in _CALL.finditer(source) if not _in_string(spans, m.start())]
    for start in reversed(starts):  # an edit changes no earlier position
        match = _CALL.match(source, start)
        if match is None:
            continue
        split = _split(source, match.end())
        if split is None or split[1] == len(source) or len(split[0]) != 2:
            continue
        if _after_dot(source, match.start()):
            continue
        args = split[0]
        wanted = HANDLED[match.group(1)]
        second = args[1]
        named = _VAR.match(second)
        if named:
            variable = variables.get(named.group(1) or named.group(3))
            value = constant(variable) if variable is not None else None
        else:
            value = constant(second)
        if value is None or type(value) is not wanted:
            continue
        handle = _handle(value)
        if handle is None:
            continue
        if used is not None:
            used[handle] = value
        # only the argument's own text: what surrounds it (a line's end) stays
        at = match.end() + len(args[0]) + 1 + (len(second) - len(second.lstrip()))
        source = f"{source[:at]}{handle}{source[at + len(second.strip()) :]}"
        # and the call is to the handle's own function: an int from the call's data
        # (`path.matches(p, args.n)`) never reaches a function that reads `VALUES`
        name = match.group(1)
        source = f"{source[: match.start(1)]}{HANDLE_FUNCTIONS[name]}{source[match.end(1) :]}"
    return source


#: `.matches(` as a member call: not `path.matches(` or `regex.matches(`, which are
#: functions of their own (a bare `path.` or `regex.` before the dot).
_MEMBER_MATCHES = LazyPattern(r"(?<![\w.])(?:path|regex)\s*\.\s*matches\s*\(|\.\s*matches\s*\(")

#: The member functions the rewrite calls instead of `matches`: with the pattern as
#: it is, and with a literal pattern by handle (an int only: see HANDLE_FUNCTIONS).
#: Declared in run-time environments only.
RE2_MATCHES = "_re2_matches"
RE2_MATCHES_BY_HANDLE = "_re2_matches_h"


def with_native_matches(
    source: str, used: dict[int, str | tuple[str, ...]] | None = None
) -> str:
    """`source` with each member call `X.matches(P)` as `X._re2_matches(P)`: the same
    RE2 match (policy.packs.cel.functions.fn_re2_matches), its pattern compiled once
    per process instead of at every call. A certain string literal `P` goes by handle
    (as in `with_handles`), and each handle put in is added to `used`; any other `P`
    (a variable, a comprehension's) is passed as it is."""
    if ".matches" not in source.replace(" ", "") or not strings_are_certain(source):
        return source
    spans = _string_spans(source)
    found = [
        m
        for m in _MEMBER_MATCHES.finditer(source)
        if m.group().startswith(".") and not _in_string(spans, m.start())
    ]
    for match in reversed(found):  # an edit changes no earlier position
        split = _split(source, match.end())
        if split is None or split[1] == len(source) or len(split[0]) != 1:
            continue
        argument = split[0][0]
        if not argument.strip():
            continue
        value = constant(argument)
        handle = _handle(value) if isinstance(value, str) else None
        if handle is None or not isinstance(value, str):
            source = f"{source[: match.start()]}.{RE2_MATCHES}({source[match.end() :]}"
            continue
        if used is not None:
            used[handle] = value
        source = f"{source[: match.start()]}.{RE2_MATCHES_BY_HANDLE}({handle}{source[split[1] :]}"
    return source


def _string_spans(source: str) -> tuple[list[int], list[int]]:
    """Where the string literals of `source` start and end ([start, end)), in order;
    one that does not end runs to the end of the source."""
    starts: list[int] = []
    ends: list[int] = []
    i = 0
    while True:
        match = _STRING_START.search(source, i)
        if match is None:
            return starts, ends
        end = _skip_string(source, match.start())
        starts.append(match.start())
        ends.append(len(source) if end is None else end)
        if end is None:
            return starts, ends
        i = end


def _in_string(spans: tuple[list[int], list[int]], position: int) -> bool:
    """Whether `position` lies inside one of the string literals `spans` locates."""
    starts, ends = spans
    at = bisect.bisect_right(starts, position) - 1
    return at >= 0 and position < ends[at]


#: A macro's or `cel.bind`'s variable named as one of the functions' namespaces: in
#: such a source `path.matches(x)` may be a member call on that variable, not the
#: function, and no call in it is rewritten.
_SHADOWING = LazyPattern(
    r"\b(?:exists_one|exists|all|map|filter|bind)\s*\(\s*(?:path|regex|shell|glob)\s*,"
)


def _shadows_a_namespace(source: str) -> bool:
    return _SHADOWING.search(source) is not None


def _after_dot(source: str, start: int) -> bool:
    """Whether what precedes `start` (spaces aside) is a `.`: `m. path.within(…)` is a
    member chain on `m`, never the function."""
    j = _last_visible(source, start)
    return j >= 0 and source[j] == "."


def _last_call(
    pattern: re.Pattern[str] | LazyPattern, source: str, at: int
) -> tuple[re.Match[str], tuple[list[int], list[int]]] | None:
    """The last match of `pattern` before `at` outside string literals, with the
    literals' spans; rewrites go leftwards, so an edit moves nothing still to do."""
    spans = _string_spans(source)
    found = None
    for match in pattern.finditer(source, 0, at):
        if not _in_string(spans, match.start()):
            found = match
    return None if found is None else (found, spans)


def int_name(name: str) -> str:
    """The run-time-only function `with_int_answers` calls instead of `name`: the same
    question, answered 1 or 0 (`_int_path_within`, `_int_h_path_matches`)."""
    return "_int_" + name.lstrip("_").replace(".", "_")


def with_int_answers(source: str, functions: Mapping[str, int], members: frozenset[str]) -> str:
    """`source` with each call of a bool function in `functions` (global, with the
    number of arguments it takes) or `members` (member calls, one argument) as
    `(F'(…) != 0)`, F' = `int_name(F)`.

    Why (policy.packs.cel.crossing): an answer crosses back from Python into
    cel-expr-python without leaving anything behind either as a wrapper message
    (≈ 2.5 µs more a call) or as an int (≈ 0.8 µs), and only an int needs the call
    rewritten. A call this cannot place exactly — a member call whose receiver it
    cannot delimit, a source with a comment or a raw string — keeps its own name,
    whose answer comes back as a wrapper: slower, never different."""
    if not strings_are_certain(source) or _shadows_a_namespace(source):
        return source
    pattern = _int_pattern(tuple(sorted(functions.items())), members)
    at = len(source)
    while True:
        last = _last_call(pattern, source, at)
        if last is None:
            return source
        found, spans = last
        at = found.start()  # the next, leftwards: an edit here moves nothing before it
        split = _split(source, found.end())
        if split is None or split[1] == len(source):
            continue
        end = split[1] + 1  # after the call's `)`
        name = re.sub(r"\s", "", found.group("function") or found.group("member"))
        arity = functions.get(name, 1) if found.group("function") else 1
        if len(split[0]) != arity or not all(part.strip() for part in split[0]):
            continue  # not the declared function: CEL answers it as it is
        if found.group("function") and _after_dot(source, found.start()):
            continue
        renamed = int_name(name)
        arguments = source[found.end() : end]
        start = found.start() if found.group("function") else _receiver_start(source, at, spans)
        if start is None:
            continue
        receiver = "" if found.group("function") else f"{source[start:at]}."
        source = f"{source[:start]}({receiver}{renamed}({arguments} != 0){source[end:]}"


@functools.lru_cache(maxsize=4)
def _int_pattern(
    functions: tuple[tuple[str, int], ...], members: frozenset[str]
) -> re.Pattern[str]:
    def spelt(name: str) -> str:  # `path.within` also as `path . within`
        return r"\s*\.\s*".join(re.escape(part) for part in name.split("."))

    by_length = sorted((name for name, _ in functions), key=len, reverse=True)
    member_names = sorted(members, key=len, reverse=True)
    return re.compile(
        r"(?<![\w.])(?P<function>" + "|".join(spelt(n) for n in by_length) + r")\s*\("
        r"|\.\s*(?P<member>" + "|".join(re.escape(n) for n in member_names) + r")\s*\("
    )


_IDENT_CHAR = LazyPattern(r"\w")
#: Words before a bracket that are operators, not a callee: `x in [a, b].exists(…)`.
_KEYWORDS = frozenset({"in"})


def _receiver_start(source: str, dot: int, spans: tuple[list[int], list[int]]) -> int | None:
    """Where the receiver of the member call whose `.` is at `dot` starts, or None.

    Read right to left as CEL binds it: elements (an identifier, a string literal, a
    bracketed group) joined by `.`, or a group directly after an element (`f(x)`,
    `a[0]`, `T{…}`). It ends at anything else: an operator, a comma, an opening
    bracket. None when no element precedes the `.`, or one cannot be read."""
    pos = dot  # the receiver found so far is source[pos:dot]
    needed = True  # after a `.`: an element must come
    grouped = False  # the last element read was a bracketed group
    while True:
        j = _last_visible(source, pos)
        char = source[j] if j >= 0 else ""
        literal = _literal_ending_at(spans, j + 1) if j >= 0 else None
        if not needed:
            if char == ".":
                pos, needed = j, True
                continue
            callee = (char != "" and char in ")]}") or literal is not None or (
                _IDENT_CHAR.match(char) is not None and not _keyword_at(source, j)
            )
            if not (grouped and callee):
                return pos
        if j < 0:
            return None
        if literal is not None:
            start, grouped = literal, False
        elif char != "" and char in ")]}":
            opened = _opening(source, j, spans)
            if opened is None:
                return None
            start, grouped = opened, True
        elif _IDENT_CHAR.match(char):
            start = j
            while start > 0 and _IDENT_CHAR.match(source[start - 1]):
                start -= 1
            if source[start].isdigit() or source[start : j + 1] in _KEYWORDS:
                return None
            grouped = False
        else:
            return None
        pos, needed = start, False


def _last_visible(source: str, pos: int) -> int:
    """The index of the last non-space character before `pos`, or -1."""
    j = pos - 1
    while j >= 0 and source[j].isspace():
        j -= 1
    return j


def _keyword_at(source: str, j: int) -> bool:
    start = j
    while start > 0 and _IDENT_CHAR.match(source[start - 1]):
        start -= 1
    return source[start : j + 1] in _KEYWORDS


def _literal_ending_at(spans: tuple[list[int], list[int]], end: int) -> int | None:
    """The start of the string literal ending at `end`, if one does."""
    starts, ends = spans
    at = bisect.bisect_right(starts, end - 1) - 1
    if at >= 0 and ends[at] == end:
        return starts[at]
    return None


def _opening(source: str, close: int, spans: tuple[list[int], list[int]]) -> int | None:
    """The bracket that the one at `close` closes, skipping string literals."""
    pairs = {")": "(", "]": "[", "}": "{"}
    stack = [pairs[source[close]]]
    j = close - 1
    while j >= 0:
        literal = _literal_ending_at(spans, j + 1)
        if literal is not None:
            j = literal - 1
            continue
        char = source[j]
        if char in pairs:
            stack.append(pairs[char])
        elif char in "([{":
            if stack.pop() != char:
                return None
            if not stack:
                return j
        j -= 1
    return None


_BASE_CALL = LazyPattern(r"(?<![\w.])path\s*\.\s*base\s*\(")


#: What `with_native_base` may read three times: a name or a chain of field names.
_PLAIN_OPERAND = LazyPattern(r"\s*[A-Za-z_]\w*(?:\s*\.\s*[A-Za-z_]\w*)*\s*\Z")


def with_native_base(source: str) -> str:
    """`source` with each `path.base(X)`, X a name or a chain of fields (`p`,
    `c.path`), answered in CEL itself where it can be: the text after the last `/` of
    an X that does not end with `/` (what functions.fn_path_base answers then), the
    call into Python only for one that does. A rule asks it of every path a call
    writes; each crossing into Python costs ≈ 3 µs (policy.packs.cel.crossing).

    Never through `cel.bind`: cel-cpp's lazily bound value reads a stale slot after a
    comprehension that stopped early (a red team's finding), so any other X keeps the
    call."""
    if (
        _BASE_CALL.search(source) is None
        or not strings_are_certain(source)
        or _shadows_a_namespace(source)
    ):
        return source
    at = len(source)
    while True:
        last = _last_call(_BASE_CALL, source, at)
        if last is None:
            return source
        found = last[0]
        at = found.start()
        split = _split(source, found.end())
        if split is None or split[1] == len(source) or len(split[0]) != 1:
            continue
        operand = split[0][0]
        if _PLAIN_OPERAND.match(operand) is None or _after_dot(source, found.start()):
            continue
        x = re.sub(r"\s", "", operand)
        native = (
            f'({x}.endsWith("/") ? path.base({x}) : {x}.substring({x}.lastIndexOf("/") + 1))'
        )
        source = f"{source[: found.start()]}{native}{source[split[1] + 1 :]}"
