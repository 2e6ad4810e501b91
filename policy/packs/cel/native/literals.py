"""What every match of a pack's regular expression must hold, read from the pattern:
the texts one of which a matched string starts with, or holds.

`regex.matches(c.raw, vars.printing)` — one search a command, at every call, for a
pattern that begins `^(kubectl ...|gcloud auth ...|aws ...|...)` — is false for any
command line that starts with none of those words. The guards
(policy.packs.cel.native.guard) check that in one `str.startswith` (or `in`) a call,
once for every condition that needs it, instead of evaluating the conditions.

Read from the pattern's parse (Python's own `re._parser`, as `re.compile` reads it),
so what is a literal here is one to the matcher. Sound, never complete: anything this
does not follow with certainty — a case-insensitive part, a class of many characters,
a repeat that may match nothing, a back-reference, a conditional — ends the text there,
and a pattern with none left gives nothing to check (None).
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["required_texts", "required_texts_re2"]

#: The most texts a need holds: past that, the texts found so far stand (shorter ones).
_MOST = 256
#: The most texts a need that a value holds one of may name: each is looked for in the
#: value on its own (`in`), where the texts a value starts with are one `startswith`;
#: past this, asking them would cost more than the search they spare.
_MOST_HELD = 16
#: The most characters of a class spelt out as texts of their own (`[.]`, `[-_]`).
_CLASS = 4

_Texts = tuple[frozenset[str], bool]  # (the texts, whether the part is nothing but them)


def required_texts(pattern: str) -> tuple[Any, ...] | None:
    """("prefix", texts): every string `re.search(pattern, s)` finds a match in starts
    with one of `texts`; ("contains", texts): holds one of them; ("prefix or contains",
    texts, others): starts with one of `texts` or holds one of `others` — a pattern
    whose start may be left out (`^(?:[^ ]*/)?(kubectl|gcloud) `: a program named by its
    path or by its name); None when the pattern gives none of these (or does not
    compile: the condition errs, and is left to say so)."""
    from re import _constants as c
    from re import _parser

    try:
        re.compile(pattern)  # (a lookbehind of varying width parses, and does not compile)
        parsed = _parser.parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError):
        return None
    flags = parsed.state.flags
    if flags & (re.IGNORECASE | re.LOCALE):
        return None
    items = list(parsed.data)
    anchored = (
        bool(items)
        and items[0][0] is c.AT
        and (items[0][1] is c.AT_BEGINNING_STRING
             or (items[0][1] is c.AT_BEGINNING and not flags & re.MULTILINE))
    )
    if anchored:
        texts, _ = _leading(items[1:], c)
        if "" not in texts:
            return ("prefix", tuple(sorted(texts)))
        either = _optional_start(items[1:], c)
        if either is not None:
            return either
    found = _somewhere(items, c)
    if found is None or "" in found or len(found) > _MOST_HELD:
        return None
    return ("contains", tuple(sorted(found)))


def required_texts_re2(pattern: str) -> tuple[Any, ...] | None:
    """`required_texts` of a pattern CEL's own `matches` searches with, RE2 — read from
    Python's parse only where the two read it alike: never for syntax RE2 reads
    otherwise (a POSIX class `[[:alpha:]]`, which Python reads as a class and literal
    text; `x{,3}`, literal text to RE2) or that only RE2 has (`\\p{L}`, `\\Q...\\E`,
    `\\C`, `\\z`), nor for a pattern RE2 does not take. Elsewhere RE2's classes
    (`\\s`, `\\d`, `\\w`: ASCII) hold no more than Python's (Unicode), so a string RE2
    finds a match in, Python finds one in too, and holds the same texts."""
    if _RE2_APART.search(pattern):
        return None
    try:
        import re2  # (google-re2, what CEL's `matches` runs: policy.packs.cel.functions)

        options = re2.Options()
        options.log_errors = False  # (the condition errs, and says so, when it runs)
        re2.compile(pattern, options)
    except Exception:  # noqa: BLE001 - see above: no need is read from it
        return None
    return required_texts(pattern)


#: What RE2 reads otherwise than Python's `re`, or Python not at all.
_RE2_APART = re.compile(r"\[:|\{,|\\[pPQECz]")


def _optional_start(items: list[Any], c: Any) -> tuple[Any, ...] | None:
    """For an anchored sequence that starts with a part that may match nothing (`A?`,
    `A*`, `A{0,n}`): every match either left it out, and starts with what the rest starts
    with, or matched it, and holds what each of its repetitions holds."""
    if not items or items[0][0] not in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        return None
    least, _most, inner = items[0][1]
    if least != 0:
        return None
    rest, _ = _leading(items[1:], c)
    held = _somewhere(list(inner.data), c)
    if "" in rest or held is None or "" in held or len(held) > _MOST_HELD:
        return None
    return ("prefix or contains", tuple(sorted(rest)), tuple(sorted(held)))


def _leading(items: list[Any], c: Any) -> _Texts:
    """The texts every match of the sequence `items` starts with, and whether the
    sequence matches nothing but them."""
    texts = frozenset({""})
    for op, av in items:
        part = _part(op, av, c)
        if part is None:
            return texts, False
        more, whole = part
        if len(texts) * len(more) > _MOST:
            return texts, False
        texts = frozenset(a + b for a in texts for b in more)
        if not whole:
            return texts, False
    return texts, True


def _part(op: Any, av: Any, c: Any) -> _Texts | None:
    """What one item of a sequence starts with (None: nothing known, or a part that
    may match no text: the texts end before it)."""
    if op is c.LITERAL:
        return frozenset({chr(av)}), True
    if op is c.IN:
        chars = _class(av, c)
        return None if chars is None else (chars, True)
    if op is c.SUBPATTERN:
        _group, add, _remove, inner = av
        if add & (re.IGNORECASE | re.MULTILINE | re.LOCALE):
            return None
        return _leading(list(inner.data), c)
    if op is c.ATOMIC_GROUP:
        return _leading(list(av.data), c)
    if op is c.BRANCH:
        texts: set[str] = set()
        whole = True
        for branch in av[1]:
            more, all_of = _leading(list(branch.data), c)
            texts |= more
            whole = whole and all_of
            if len(texts) > _MOST:
                return None
        return frozenset(texts), whole
    if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
        least, _most, inner = av
        if least < 1:
            return None
        more, whole = _leading(list(inner.data), c)
        return more, whole and least == _most == 1
    return None


def _class(av: Any, c: Any) -> frozenset[str] | None:
    """The characters of a class of a few literal ones (`[.]`, `[-_]`), or None."""
    chars: set[str] = set()
    for op, value in av:
        if op is not c.LITERAL:
            return None
        chars.add(chr(value))
    return frozenset(chars) if 0 < len(chars) <= _CLASS else None


def _somewhere(items: list[Any], c: Any) -> frozenset[str] | None:
    """Texts one of which every match of the sequence `items` holds: the best of its
    parts' (a run of literals; a group, a branch or a repeat that must match), or
    None. Best: the longest shortest text, then the fewest texts."""
    best: frozenset[str] | None = None

    def offer(texts: frozenset[str] | None) -> None:
        nonlocal best
        if not texts or "" in texts or len(texts) > _MOST:
            return
        if best is None or (min(map(len, texts)), -len(texts)) > (
            min(map(len, best)),
            -len(best),
        ):
            best = texts

    run = ""
    for op, av in items:
        if op is c.LITERAL:
            run += chr(av)
            continue
        offer(frozenset({run}) if run else None)
        run = ""
        if op is c.SUBPATTERN:
            _group, add, _remove, inner = av
            if not add & (re.IGNORECASE | re.LOCALE):
                offer(_somewhere(list(inner.data), c))
        elif op is c.ATOMIC_GROUP:
            offer(_somewhere(list(av.data), c))
        elif op is c.BRANCH:
            each = [_somewhere(list(branch.data), c) for branch in av[1]]
            if all(each):
                offer(frozenset().union(*each))  # type: ignore[arg-type]
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            offer(_somewhere(list(av[2].data), c))
    offer(frozenset({run}) if run else None)
    return best
