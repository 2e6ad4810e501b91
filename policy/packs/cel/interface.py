"""What both CEL engines are to the rest of packs: the variables an expression may
use at each point, the errors, and the program and engine interfaces.

The engines (`policy.packs.cel.expr`, `policy.packs.cel.celpython`) implement these;
the pack runtime and compiler program against them, and `policy.packs.cel.get_engine`
picks one by name.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from policy._named_tuple import NamedTuple
from policy.analysis._lazy_re import LazyPattern
from policy.model import POINTS

__all__ = [
    "VARIABLES_AT",
    "CelCompileError",
    "CelEngine",
    "CelEvalError",
    "CelIssue",
    "CelProgram",
    "referenced_names",
    "strings_are_certain",
    "var_references",
]

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

_IDENT = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*")


#: String literals of CEL.
_STRINGS = LazyPattern(
    r"""[rRbB]{0,2}(?:\"\"\"(?:\\.|[^\\])*?\"\"\"|'''(?:\\.|[^\\])*?'''"""
    r"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""
)
#: Where the next comment or string literal may begin, scanning left to right.
_NEXT_TOKEN = LazyPattern(r"//|[rRbB]{0,2}(?:\"\"\"|'''|\"|')")


#: What ends, escapes or breaks a string literal opened by each quote.
_STOPS = {
    quote: LazyPattern("|".join(("\\\\", "\n", quote)))  # (no quote is special in a regex)
    for quote in ('"', "'", '"""', "'''")
}

_VAR_REF = LazyPattern(r"\bvars\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[\s*[\"']([^\"']+)[\"']\s*\])")


def var_references(source: str) -> list[tuple[str, int]]:
    """(name, offset) of every `vars.name` / `vars["name"]` in a CEL source, strings
    and comments included: a superset of the pack variables it reads."""
    return [(m.group(1) or m.group(2), m.start()) for m in _VAR_REF.finditer(source)]


def strings_are_certain(source: str) -> bool:
    """Whether the string literals of `source` can be told from the rest with
    certainty: read left to right as CEL's lexer reads it, it holds no comment (`//`,
    which may hold a quote), no raw string (where a backslash escapes nothing) and no
    string that does not end. Scans that skip strings give up otherwise. A `//` or
    an `r"` inside a string, or at its end (`"://"`, `["f", "r"]`), is the string's."""
    at = 0
    while (token := _NEXT_TOKEN.search(source, at)) is not None:
        text = token.group()
        if text == "//":
            return False  # a comment
        quote = text.lstrip("rRbB")
        prefix = text[: len(text) - len(quote)]
        before = source[token.start() - 1] if token.start() else ""
        if prefix and ("r" in prefix.lower() or before.isalnum() or before == "_"):
            return False  # a raw string, or letters glued to a quote (no CEL token)
        at = _string_end(source, token.end(), quote)
        if at < 0:
            return False  # a string that does not end
    return True


def _string_end(source: str, at: int, quote: str) -> int:
    """Where the string literal (not raw) whose opening `quote` ends at `at` ends;
    -1 if it does not. (Jumps from one character that matters to the next: pack
    sources are scanned at every start of a one-event hook, char by char cost ms.)"""
    stops = _STOPS[quote]
    while (stop := stops.search(source, at)) is not None:
        text = stop.group()
        if text == "\\":
            at = stop.end() + 1  # (escapes the next character, whatever it is)
        elif text == "\n":
            if len(quote) == 1:
                return -1
            at = stop.end()
        else:
            return stop.end()
    return -1


@functools.lru_cache(maxsize=4096)  # (a pack's sources: asked for each program holding one)
def referenced_names(source: str) -> frozenset[str]:
    """Every identifier in `source` outside its string literals (a superset of the
    variables it reads: a word in a message or a regex reads nothing, and counting
    it would hand the program values it never reads). When the source holds a
    comment or a raw string, whose ends this scan cannot be sure of, every identifier
    counts, strings' and comments' too."""
    if strings_are_certain(source):
        source = _STRINGS.sub(" ", source)
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


class CelProgram(ABC):
    """Several expressions evaluated together; `needs` are the variables they read."""

    needs: frozenset[str]

    @abstractmethod
    def run(self, data: Mapping[str, Any], call: object | None = None) -> list[Any]:
        """One result per expression: a plain Python value, or a CelEvalError.

        `call`: the object being decided, when the packs deciding it may share what
        they converted of `data` (an engine may use it so; None: nothing shared)."""

    def run_mask(self, data: Mapping[str, Any], call: object | None = None) -> int | None:
        """Bit i set when expression i is true; None when any is not a bool.

        The hot path of a pack asks for this first: an int is cheaper to get
        out of an engine than a list, and is itself the key of the memoised
        outcome. None sends the caller to `run` for each expression's result.
        """
        mask = 0
        for index, value in enumerate(self.run(data, call)):
            if value is True:
                mask |= 1 << index
            elif value is not False:
                return None
        return mask

    def build_all(self) -> int:
        """Build now whatever this program would build when a call first needs it; the
        number of expressions built. Engines that build everything at compile time
        build nothing here."""
        return 0


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
