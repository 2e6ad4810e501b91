"""Tool-name sets and path globs, compiled once per builtin.

Tool patterns follow the packs' rules: a plain name is canonicalised (`Bash` and
`shell` both mean `bash`), a glob is tried against every spelling of the tool, and
the answer is memoised per tool name. Path globs are wcmatch globs (`**` crosses
directories, dotfiles match), with `~` expanded; a pattern ending in `/**` also
matches the directory itself, since forbidding `/etc/**` means `/etc` too.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from policy.aliases import AliasTable

__all__ = ["PathGlobs", "ToolSet", "is_glob"]

_GLOB_CHARS = frozenset("*?[{!")
_MEMO_LIMIT = 4096


def is_glob(pattern: str) -> bool:
    return any(c in _GLOB_CHARS for c in pattern)


class ToolSet:
    """A set of tools given by names and globs; `tool in toolset`."""

    __slots__ = ("_aliases", "_exact", "_globs", "_memo", "patterns")

    def __init__(self, patterns: Iterable[str], aliases: AliasTable) -> None:
        self.patterns = tuple(patterns)
        self._aliases = aliases
        self._exact = frozenset(aliases.canonical(p) for p in self.patterns if not is_glob(p))
        globs = [p for p in self.patterns if is_glob(p)]
        self._globs: Callable[[str], bool] | None = None
        if globs:  # (wcmatch is imported only for globs: most sets name their tools)
            from wcmatch import fnmatch as wfnmatch

            flags = wfnmatch.BRACE | wfnmatch.EXTMATCH
            self._globs = wfnmatch.compile(globs, flags=flags).match
        self._memo: dict[str, bool] = {}

    def __contains__(self, tool: object) -> bool:
        if not isinstance(tool, str):
            return False
        found = self._memo.get(tool)
        if found is None:
            canonical = self._aliases.canonical(tool)
            found = canonical in self._exact or (
                self._globs is not None
                and any(self._globs(s) for s in (tool, *self._aliases.spellings(canonical)))
            )
            if len(self._memo) < _MEMO_LIMIT:
                self._memo[tool] = found
        return found

    def __bool__(self) -> bool:
        return bool(self.patterns)


class PathGlobs:
    """Path patterns; `match(path)` is the first pattern that covers `path`, or None."""

    __slots__ = ("_compiled", "_expanded", "_memo", "patterns")

    def __init__(self, patterns: Iterable[str], home: str | None = None) -> None:
        from wcmatch import glob as wglob

        flags = wglob.GLOBSTAR | wglob.BRACE | wglob.DOTGLOB | wglob.EXTGLOB
        self.patterns = tuple(patterns)
        self._compiled: list[tuple[str, Callable[[str], bool]]] = []
        self._expanded: list[tuple[str, str]] = []
        for pattern in self.patterns:
            expanded = _expand_home(pattern, home)
            self._expanded.append((pattern, expanded))
            variants = [expanded]
            if expanded.endswith("/**"):
                variants.append(expanded[:-3] or "/")
            matcher = wglob.compile(variants, flags=flags)
            self._compiled.append((pattern, matcher.match))
        self._memo: dict[str, str | None] = {}

    def match(self, path: str) -> str | None:
        """(Memoised: the same files come up call after call.)"""
        if path in self._memo:
            return self._memo[path]
        found = next((pattern for pattern, matches in self._compiled if matches(path)), None)
        if len(self._memo) < _MEMO_LIMIT:
            self._memo[path] = found
        return found

    def covers(self, path: str) -> bool:
        """For a `path` that is itself a pattern: does every file it names match?"""
        from policy.analysis.paths import inside

        return inside(path, [expanded for _, expanded in self._expanded])

    def may_match(self, path: str) -> str | None:
        """For a `path` that is itself a pattern (`/e?c/*`, `DIR/**`): the first of
        these patterns it may reach."""
        from policy.analysis.paths import matches

        for pattern, expanded in self._expanded:
            if matches(path, [expanded]):
                return pattern
        return None


def _expand_home(pattern: str, home: str | None) -> str:
    if pattern == "~" or pattern.startswith("~/"):
        base = home if home is not None else os.path.expanduser("~")
        return base.rstrip("/") + pattern[1:]
    return pattern
