"""Bash word expansion, the parts that need no syntax tree: the expanded word and the
marks of what cannot be known (`_Word`, `_Unknown`, `$?` in argv), arrays, escapes
and ANSI-C quoting (`$'\\x72m'`), field splitting on IFS, brace and sequence
expansion (`{rm,-rf,/}`, `{r..r}m`), and the pieces of parameter expansion
(`${X%pat}`, `${X:1:2}`, `${X^^}`, `${!r}`). The walk (policy.analysis.shell.walk)
reads the tree and calls these.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable

from policy.analysis._lazy_re import LazyPattern
from policy.analysis.shell.limits import MAX_WORDS, _Meter, _too_many_words

_DEFAULT_IFS = " \t\n"
_UNKNOWN = "$?"  # how a word whose value cannot be known appears in argv


class _Word:
    """A word after expansion: its fields (None where unknown), whether a variable or
    substitution went into it, and its template: the word with every unknown part
    replaced by `$?` (what a nested script such as `bash -c "..."` is parsed from).
    `split_before` / `split_after`: an unquoted expansion began / ended with a field
    separator, so it does not join the text next to it. `grown`: the bytes expansions
    put into it (what `MAX_WORD_BYTES` bounds; the source's own text is bounded by
    `MAX_INPUT`)."""

    __slots__ = ("dynamic", "grown", "split_after", "split_before", "template", "values")

    def __init__(
        self,
        values: list[str] | None,
        dynamic: bool,
        template: str | None = None,
        split_before: bool = False,
        split_after: bool = False,
        *,
        grown: int = 0,
    ) -> None:
        self.values = values
        self.dynamic = dynamic
        if template is None:
            template = _UNKNOWN if values is None else " ".join(values)
        self.template = template
        self.split_before = split_before
        self.split_after = split_after
        self.grown = grown


class _Unknown(str):
    """`$?` in a word list, remembering the template of the word it stands for."""

    template: str

    def __new__(cls, template: str) -> _Unknown:
        word = super().__new__(cls, _UNKNOWN)
        word.template = template
        return word


class _Array(str):
    """The value of an indexed array the line spells out (`a=(x y)`, `a+=(z)`,
    `read -a`, `mapfile`): as a string it is `${a[0]}`, what `$a` expands to; `items`
    are its elements at indexes 0, 1, ... (a sparse array is not followed: unknown).
    `open`: the last element is an unquoted glob (`a=(*.py)`), which bash replaces by
    any number of files, so any index from it on may be any of them (the pattern)."""

    items: tuple[str, ...]
    open: bool

    def __new__(cls, items: Iterable[str], *, open: bool = False) -> _Array:
        values = tuple(str(item) for item in items)
        array = super().__new__(cls, values[0] if values else "")
        array.items = values
        array.open = open
        return array


class _Quoted(str):
    """A word whose braces were quoted: brace expansion leaves it alone."""


def _add(words: list[str], word: _Word, *, quoted: bool = False) -> bool:
    """Append a word's fields (or `$?`) to `words`; True when it is dynamic. `quoted`:
    its braces are quoted, so bash does not expand them (`'{a,b}'`)."""
    if word.values is None:
        words.append(_Unknown(word.template))
        return True
    if quoted:
        words.extend(_Quoted(value) for value in word.values)
    else:
        words.extend(word.values)
    return word.dynamic


def _template(word: str) -> str:
    return word.template if isinstance(word, _Unknown) else word


def _unescape(text: str) -> str:
    """An unquoted word: a backslash quotes the next character; a backslash-newline vanishes."""
    if "\\" not in text:
        return text
    out: list[str] = []
    chars = iter(text)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            if following != "\n":
                out.append(following)
        else:
            out.append(char)
    return "".join(out)


def _unescape_double(text: str) -> str:
    """Inside double quotes a backslash quotes only $ ` " \\ and newline."""
    if "\\" not in text:
        return text
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _unescape_heredoc(text: str) -> str:
    """An unquoted here-document: a backslash quotes only $ ` \\ and newline."""
    if "\\" not in text:
        return text
    return re.sub(r"\\([$`\\\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _double_quoted(text: str) -> str:
    """A here-document body as the inside of a double-quoted string with the same
    expansions. A `"` of the body itself is quoted (`\\"` there is a backslash and a
    quote); quotes inside `$(...)` and backticks are left alone, they are code."""
    out: list[str] = []
    stack: list[str] = []  # ")" in $(...), "`" in backticks, '"' in a string inside them
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        context = stack[-1] if stack else ""
        if char == "\\":
            pair = text[index : index + 2]
            if len(pair) == 1:
                out.append("\\\\")
            elif not context and pair == '\\"':
                out.append('\\\\\\"')
            else:
                out.append(pair)
            index += 2
            continue
        if text.startswith("$(", index):
            stack.append(")")
            out.append("$(")
            index += 2
            continue
        if char == "`":
            if context == "`":
                stack.pop()
            else:
                stack.append("`")
        elif not context:
            if char == '"':
                char = '\\"'
        elif context == '"':
            if char == '"':
                stack.pop()
        elif char == "'":
            close = text.find("'", index + 1)
            close = size - 1 if close < 0 else close
            out.append(text[index : close + 1])
            index = close + 1
            continue
        elif char == '"':
            stack.append('"')
        elif char == "(" and context == ")":
            stack.append(")")
        elif char == ")" and context == ")":
            stack.pop()
        out.append(char)
        index += 1
    return "".join(out)


_ANSI_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ANSI = LazyPattern(
    r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL
)


def _ansi_c(body: str) -> str:
    def replace(match: re.Match[str]) -> str:
        escape = match.group(1)
        head = escape[0]
        if head in "xuU" and len(escape) > 1:
            return chr(min(int(escape[1:], 16), 0x10FFFF))
        if head in "01234567":
            return chr(int(escape, 8) & 0xFF)
        if head == "c" and len(escape) == 2:
            return chr(ord(escape[1]) & 0x1F)
        return _ANSI_ESCAPES.get(escape, "\\" + escape)

    return _ANSI.sub(replace, body)


def _split_fields(value: str, ifs: str) -> tuple[list[str], bool, bool]:
    """Bash field splitting of an unquoted expansion -> (fields, starts with a
    separator, ends with one)."""
    if not value:
        return [], False, False
    if not ifs:
        return [value], False, False
    white = "".join(c for c in _DEFAULT_IFS if c in ifs)
    other = "".join(c for c in ifs if c not in _DEFAULT_IFS)
    stripped = value.strip(white) if white else value
    before = bool(white) and value[0] in white
    after = bool(white) and value[-1] in white
    if not stripped:
        return [], True, True
    blank = f"[{re.escape(white)}]" if white else ""
    if other:
        separator = f"{blank}*[{re.escape(other)}]{blank}*" if white else f"[{re.escape(other)}]"
        if white:
            separator += f"|{blank}+"
    else:
        separator = f"{blank}+"
    fields = re.split(separator, stripped)
    if len(fields) > 1 and fields[-1] == "":
        fields.pop()  # a trailing separator ends the last field, it opens no new one
        after = True
    return fields, before, after


_BRACE = LazyPattern(r"\{([^{},]*(?:,[^{},]*)+)\}")
_SEQUENCE = LazyPattern(r"\{(-?\d{1,9}|[A-Za-z])\.\.(-?\d{1,9}|[A-Za-z])(?:\.\.(-?\d{1,9}))?\}")


def _brace_choices(word: str) -> tuple[int, int, list[str]] | None:
    """The first brace expansion in `word`: (start, end, alternatives)."""
    best: tuple[int, int, list[str]] | None = None
    match = _BRACE.search(word)
    if match is not None:
        best = (match.start(), match.end(), match.group(1).split(","))
    sequence = _SEQUENCE.search(word)
    if sequence is not None and (best is None or sequence.start() < best[0]):
        items = _sequence(*sequence.groups())
        if items is not None:
            best = (sequence.start(), sequence.end(), items)
    return best


def _sequence(first: str, last: str, step: str | None) -> list[str] | None:
    """`{a..e}`, `{1..10..2}`; None when bash would leave it alone. One longer than
    `MAX_WORDS` is refused before it is built."""
    increment = abs(int(step)) if step else 1
    increment = increment or 1
    letters = first.isalpha() and last.isalpha()
    if not letters and (first.isalpha() or last.isalpha()):
        return None
    low, high = (ord(first), ord(last)) if letters else (int(first), int(last))
    if abs(high - low) // increment >= MAX_WORDS:
        raise _too_many_words("a brace expansion makes")
    direction = 1 if high >= low else -1
    numbers = range(low, high + direction, increment * direction)
    return [chr(n) if letters else str(n) for n in numbers]


def _expand_braces(words: list[str], walker: _Meter) -> list[str]:
    """Bash brace expansion (`{rm,-rf,/}` -> rm -rf /; `a{b,c}` -> ab ac;
    `{r..r}m` -> rm), bounded; each word made is charged to `walker`."""
    out: list[str] = []
    for word in words:
        if "{" not in word or isinstance(word, _Unknown | _Quoted):
            out.append(word)
            continue
        pending = [word]
        done: list[str] = []
        while pending:
            if len(out) + len(done) + len(pending) > MAX_WORDS:
                raise _too_many_words("brace expansion makes")
            current = pending.pop()
            choice = _brace_choices(current)
            if choice is None:
                done.append(current)
                continue
            start, end, items = choice
            head, tail = current[:start], current[end:]
            walker.step(len(items))
            walker.built(len(items) * (len(head) + len(tail)) + sum(len(i) for i in items))
            pending.extend(head + item + tail for item in reversed(items))
        out.extend(done)
    return out


#: What `${!x}` reads when `x` is not known: any variable at all.
_ANY_VARIABLE = "(any variable)"
#: A plain decimal number, as an array index or an integer variable holds it.
_INTEGER = LazyPattern(r"^-?(?:0|[1-9][0-9]{0,17})$")
_IDENTIFIER = LazyPattern(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: What `${!r}` may name: a variable, an array element, a positional parameter.
_REFERENCE = LazyPattern(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\]]*)\])?|([1-9])")
#: Characters that make a word a glob bash expands against the disk.
_GLOB = LazyPattern(r"[*?\[]")
_SUBSTITUTE = frozenset({"/", "//", "/#", "/%"})
#: `${X^^}` and friends: bash's case changes of a whole value or its first letter.
_CASES: dict[str, Callable[[str], str]] = {
    "^^": str.upper,
    ",,": str.lower,
    "^": lambda v: v[:1].upper() + v[1:],
    ",": lambda v: v[:1].lower() + v[1:],
}
#: A `${X/pattern/...}` pattern that is not plain text (a glob, quotes, an expansion,
#: a tilde): not worked out here.
_PATTERN_SPECIAL = LazyPattern(r"[*?\[\]\\$'\"`~(){}]")


def _substring(value: str, spelled: list[str]) -> str | None:
    """`${X:offset}` / `${X:offset:length}` with numbers spelled out, as bash counts
    negative ones (from the end); None for anything else or bash's own error (a
    negative length before the offset)."""
    if len(spelled) == 3 and spelled[1] != ":":
        return None
    numbers = [spelled[0].strip()] + ([spelled[2].strip()] if len(spelled) == 3 else [])
    if len(spelled) not in (1, 3) or not all(_INTEGER.match(n) for n in numbers):
        return None
    size = len(value)
    offset = int(numbers[0])
    if offset < 0:
        offset += size
    if offset < 0 or offset > size:
        return ""
    if len(numbers) == 1:
        return value[offset:]
    length = int(numbers[1])
    end = size + length if length < 0 else offset + length
    if end < offset:
        return None
    return value[offset:end]


_MAX_TRIMMED = 256  # bytes of a value `${X%pattern}` is worked out on (each cut is a match)


def _trim(value: str, operator: str, pattern: str) -> str:
    """`${X%pat}` and friends: the shortest (`%`, `#`) or longest (`%%`, `##`) suffix or
    prefix of `value` that `pattern` matches, removed."""
    cuts = range(len(value) + 1)
    if operator.startswith("%"):
        order = reversed(cuts) if operator == "%" else cuts
        for cut in order:
            if fnmatch.fnmatchcase(value[cut:], pattern):
                return value[:cut]
    else:
        order = cuts if operator == "#" else reversed(cuts)
        for cut in order:
            if fnmatch.fnmatchcase(value[:cut], pattern):
                return value[cut:]
    return value
