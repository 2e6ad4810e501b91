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
"""

from __future__ import annotations

import bisect
import functools
import hashlib
import re
import threading
from collections.abc import Mapping

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

_STRING = re.compile(r"""(?P<raw>[rR])?(?:"(?P<d>(?:\\.|[^"\\\n])*)"|'(?P<s>(?:\\.|[^'\\\n])*)')""")
_ITEM = re.compile(r"""[rR]?(?:"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')""")
#: A list literal of string literals only (a trailing comma allowed).
_LIST = re.compile(rf"\[\s*(?:(?:{_ITEM.pattern})\s*,\s*)*(?:(?:{_ITEM.pattern})\s*,?\s*)?\]")
_ESCAPES = {"\\": "\\", '"': '"', "'": "'", "n": "\n", "t": "\t", "r": "\r", "?": "?", "`": "`"}
_CALL = re.compile(r"(?<![\w.])(" + "|".join(re.escape(n) for n in HANDLED) + r")\s*\(")
_VAR = re.compile(r"""\s*vars\s*(?:\.\s*([A-Za-z_]\w*)|\[\s*(["'])([A-Za-z_]\w*)\2\s*\])\s*\Z""")
#: What a CEL source may hold besides a call: string literals (skipped whole),
#: brackets, and the commas that split a call's arguments at its own depth.
_TOKENS = re.compile(r"""[rRbB]{0,2}(?:\"\"\"|''')|[rRbB]{0,2}["']|[()\[\]{},]""")
_STRING_START = re.compile(r"""[rRbB]{0,2}["']""")


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
    spans = _string_spans(source)
    starts = [m.start() for m in _CALL.finditer(source) if not _in_string(spans, m.start())]
    for start in reversed(starts):  # an edit changes no earlier position
        match = _CALL.match(source, start)
        if match is None:
            continue
        split = _split(source, match.end())
        if split is None or split[1] == len(source) or len(split[0]) != 2:
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
_MEMBER_MATCHES = re.compile(r"(?<![\w.])(?:path|regex)\s*\.\s*matches\s*\(|\.\s*matches\s*\(")

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
