"""Regular expressions compiled when first used, and searched only where they can match.

The analysis modules hold ≈ 150 patterns at module level, most of them for one
program or another (`sed`'s write command, `jq`'s modules, a Makefile's recipes).
Compiled at import, they cost a one-event `policy hook` ≈ 25 ms on every start
while deciding `ls` reads none of them. A `LazyPattern` compiles on the first
read of any of its methods and then holds the compiled pattern's bound methods as
its own attributes, so a later `P.match(s)` is one attribute read, as for a
compiled pattern.

The long alternations that read interpreter code (`eval(`, `__import__`,
`os.environ`, ... in policy.analysis.code) begin with `\\b`, which keeps Python's
engine from scanning for their first characters: it tries every alternative at
every position, 40 to 70 µs a search of a 200-character one-liner, 16 of them a line.
When a long pattern's every match must hold one of a few literal strings (worked
out from its parse: `_literals`), a `search`, `finditer` or `findall` of a text
holding none of them answers "nothing" without running it — ≈ 3 µs; and when it is
one alternation, a text is searched with only the alternatives whose own literals it
holds (`_Narrowed`). An alternative that cannot match anywhere in a text changes no
match, so the answers are the pattern's own (tests/test_lazy_re.py).
"""

from __future__ import annotations

import functools
import re
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

__all__ = ["LazyPattern", "compile_all", "lazy_bytes", "may_hold"]

#: Patterns shorter than this are searched as they are (a guard would cost what it spares).
_GUARDED_FROM = 80
#: A guard holds at most this many literals: past it, checking costs what the search does.
_MOST_LITERALS = 64


class LazyPattern:
    """`re.compile(pattern, flags)`, done on first use; reads like the pattern."""

    pattern: str
    flags: int
    # (annotations only: the methods are put in place on first use, by `compiled`)
    match: Callable[..., re.Match[str] | None]
    fullmatch: Callable[..., re.Match[str] | None]
    search: Callable[..., re.Match[str] | None]
    finditer: Callable[..., Iterator[re.Match[str]]]
    findall: Callable[..., list[Any]]
    sub: Callable[..., str]
    subn: Callable[..., tuple[str, int]]
    split: Callable[..., list[str | Any]]
    groupindex: Any
    groups: int

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.__dict__["pattern"] = pattern
        self.__dict__["flags"] = flags
        with _MADE_LOCK:  # (a module imported on one thread while another compiles all)
            _MADE.add(self)

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiling it now if nothing has yet)."""
        found: re.Pattern[str] | None = self.__dict__.get("_compiled")
        if found is None:
            pattern, flags = self.__dict__["pattern"], self.__dict__["flags"]
            found = re.compile(pattern, flags)
            names = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")
            methods: dict[str, Any] = {name: getattr(found, name) for name in names}
            narrowed = _narrowed(found) if len(pattern) >= _GUARDED_FROM else None
            if narrowed is not None:
                methods["search"] = narrowed.method("search", lambda: None)
                methods["finditer"] = narrowed.method("finditer", lambda: iter(()))
                methods["findall"] = narrowed.method("findall", list)
            methods["groupindex"] = found.groupindex
            methods["groups"] = found.groups
            # (two threads may both compile: the same pattern, either one kept)
            self.__dict__.update(methods, _compiled=found)
        return found

    def __getattr__(self, name: str) -> Any:
        # only for names not in the instance yet: the methods before the first use
        if name.startswith("__") or name == "_compiled":
            raise AttributeError(name)
        return getattr(self.compiled, name)

    def __repr__(self) -> str:
        return f"LazyPattern({self.__dict__['pattern']!r}, {self.__dict__['flags']!r})"


def lazy_bytes(pattern: bytes) -> Callable[[], re.Pattern[bytes]]:
    """A pattern of bytes, compiled on first use: `lazy_bytes(rb"...")()` is the
    compiled pattern (a `LazyPattern` reads str)."""
    return functools.cache(lambda: re.compile(pattern))


def may_hold(text: str, words: Iterable[str]) -> bool:
    """Whether `text` may hold one of the lower-case `words` for a case-insensitive
    pattern: an ASCII text lower-cased must (`IGNORECASE` folds only ASCII letters for
    ASCII text); any other text may (the long s matches `s`, the Kelvin sign `k`). What a
    caller asks before a pattern whose every match holds one of `words`, so that a
    text that cannot match needs no pattern compiled."""
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(word in lowered for word in words)


#: Every pattern made (weakly: one made and dropped is not kept alive by this).
_MADE: weakref.WeakSet[LazyPattern] = weakref.WeakSet()
_MADE_LOCK = threading.Lock()


def compile_all() -> int:
    """Compile every pattern made so far that nothing has used yet; how many that was.
    For a process that will decide many calls: the call that first needs a pattern
    would otherwise compile it (up to ≈ 2 ms for the long alternations). The narrowed
    forms (`_Narrowed`) are still compiled when a text first asks for one."""
    with _MADE_LOCK:
        every = list(_MADE)
    count = 0
    for made in every:
        if "_compiled" not in made.__dict__:
            try:
                made.compiled  # noqa: B018 - compiling is the point
            except re.error:  # (its first use raises it, as it would have)
                continue
            count += 1
    return count


#: The narrowed alternations one pattern keeps compiled (past it, the whole pattern runs).
_MOST_NARROWED = 32


class _Narrowed:
    """A pattern searched only where it can match: never in a text that holds none of
    `literals`; and when it is one alternation (`a|b|c`, no capturing group), with only
    the alternatives whose own literals the text holds — an alternative that cannot
    match anywhere in the text fails at every position, so the leftmost match, and
    each match after it, is the same without it (its span, text and groups; its `re`
    is the narrowed pattern, which has no source)."""

    __slots__ = ("alternatives", "flags", "full", "kept", "literals", "needs", "state")

    def __init__(
        self,
        full: re.Pattern[str],
        literals: tuple[str, ...],
        alternatives: list[Any] | None = None,
        needs: list[tuple[str, ...] | None] | None = None,
        state: Any = None,
    ) -> None:
        self.full = full
        self.literals = literals
        self.alternatives = alternatives
        self.needs = needs
        self.state = state
        self.flags = full.flags
        self.kept: dict[tuple[int, ...], re.Pattern[str]] = {}

    def method(self, name: str, nothing: Callable[[], Any]) -> Callable[..., Any]:
        """The pattern's `name` (search, finditer, findall), narrowed to `string` (with
        `pos`/`endpos`, or for a text that is not a `str`, the pattern runs as written)."""
        whole = getattr(self.full, name)
        pick = self.pick

        def narrowed(string: Any, *args: Any, **kwargs: Any) -> Any:
            if args or kwargs or type(string) is not str:
                return whole(string, *args, **kwargs)
            pattern = pick(string)
            return nothing() if pattern is None else getattr(pattern, name)(string)

        return narrowed

    def pick(self, text: str) -> re.Pattern[str] | None:
        """What to search `text` with: None when nothing in it can match."""
        for literal in self.literals:
            if literal in text:
                break
        else:
            return None
        needs = self.needs
        if needs is None:
            return self.full
        possible = []
        for number, need in enumerate(needs):
            if need is None:
                possible.append(number)
                continue
            for literal in need:
                if literal in text:
                    possible.append(number)
                    break
        if len(possible) == len(needs):
            return self.full
        key = tuple(possible)
        found = self.kept.get(key)
        if found is None:
            # (past `_MOST_NARROWED` kept, the whole pattern: compiling a narrowed one
            # for one search costs more than the search — red team)
            found = self._alternation(key) if len(self.kept) < _MOST_NARROWED else self.full
        return found

    def _alternation(self, numbers: tuple[int, ...]) -> re.Pattern[str]:
        from re import _compiler, _constants, _parser  # type: ignore[attr-defined]

        assert self.alternatives is not None
        try:
            tree = _parser.SubPattern(
                self.state,
                [(_constants.BRANCH, (None, [self.alternatives[n] for n in numbers]))],
            )
            found: re.Pattern[str] = _compiler.compile(tree, self.flags)
        except Exception:  # noqa: BLE001 - the stdlib's internals moved: the whole pattern runs
            found = self.full
        self.kept[numbers] = found  # (two threads may both compile it: either is kept)
        return found


def _narrowed(found: re.Pattern[str]) -> _Narrowed | None:
    """`found` narrowed (`_Narrowed`), or None when its parse names no literal every
    match must hold."""
    from re import _constants, _parser  # (the stdlib's own parse)

    try:
        parsed = _parser.parse(found.pattern, found.flags)
    except Exception:  # noqa: BLE001 - an unexpected parse only leaves the pattern unguarded
        return None
    literals = _literals(parsed)
    if not literals:
        return None
    try:
        items = list(parsed)
        if found.groups or len(items) != 1 or items[0][0] is not _constants.BRANCH:
            return _Narrowed(found, literals)
        alternatives = list(items[0][1][1])
        needs: list[tuple[str, ...] | None] = []
        for alternative in alternatives:
            need = _in_every_match(alternative, _constants)
            needs.append(tuple(sorted(need)) if need else None)
    except Exception:  # noqa: BLE001 - an unexpected parse: the literals alone guard it
        return _Narrowed(found, literals)
    return _Narrowed(found, literals, alternatives, needs, parsed.state)


def _literals(parsed: Any) -> tuple[str, ...]:
    """Of a parsed pattern, the literal strings one of which every match holds; () when
    the parse says of none that it must (a case-blind pattern: its literals match other
    spellings; or a guard too wide to be worth it)."""
    from re import _constants

    if parsed.state.flags & re.IGNORECASE:
        return ()
    try:
        found = _in_every_match(parsed, _constants)
    except Exception:  # noqa: BLE001 - an unexpected parse only leaves the pattern unguarded
        return ()
    if not found or len(found) > _MOST_LITERALS:
        return ()
    return tuple(sorted(found))


def _in_every_match(items: Iterable[tuple[Any, Any]], constants: Any) -> frozenset[str] | None:
    """For a parsed sequence: a set of literals one of which every match of it holds
    (the best the sequence offers: the set whose shortest is longest), or None.

    Only what a match must consume counts: a run of literal characters, a group that
    is not case-blind, every alternative of a branch (when each has a set), a repeat
    of at least one. Assertions (`\\b`, lookarounds) consume nothing and classes are
    not literal: they end a run."""
    best: frozenset[str] | None = None

    def consider(candidate: frozenset[str] | None) -> None:
        nonlocal best
        if candidate and (best is None or min(map(len, candidate)) > min(map(len, best))):
            best = candidate

    run: list[str] = []
    for op, av in items:
        if op is constants.LITERAL:
            run.append(chr(av))
            continue
        consider(frozenset(["".join(run)]) if run else None)
        run = []
        if op is constants.SUBPATTERN:
            _group, add_flags, _del_flags, inner = av
            if not add_flags & re.IGNORECASE:
                consider(_in_every_match(inner, constants))
        elif op is constants.BRANCH:
            sets = [_in_every_match(alternative, constants) for alternative in av[1]]
            if all(sets):
                consider(frozenset().union(*sets))  # type: ignore[arg-type]
        elif op in (constants.MAX_REPEAT, constants.MIN_REPEAT, constants.POSSESSIVE_REPEAT):
            least, _most, inner = av
            if least >= 1:
                consider(_in_every_match(inner, constants))
        elif op is constants.ATOMIC_GROUP:
            consider(_in_every_match(av, constants))
    consider(frozenset(["".join(run)]) if run else None)
    return best
