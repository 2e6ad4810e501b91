"""Regular expressions compiled when first used.

The analysis modules hold ≈ 150 patterns at module level, most of them for one
program or another (`sed`'s write command, `jq`'s modules, a Makefile's recipes).
Compiled at import, they cost a one-event `policy hook` ≈ 25 ms on every start
while deciding `ls` reads none of them. A `LazyPattern` compiles on the first
read of any of its methods and then holds the compiled pattern's bound methods as
its own attributes, so a later `P.match(s)` is one attribute read, as for a
compiled pattern.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["LazyPattern"]


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

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiling it now if nothing has yet)."""
        found: re.Pattern[str] | None = self.__dict__.get("_compiled")
        if found is None:
            found = re.compile(self.__dict__["pattern"], self.__dict__["flags"])
            names = ("match", "fullmatch", "search", "finditer", "findall", "sub", "subn", "split")
            methods: dict[str, Any] = {name: getattr(found, name) for name in names}
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
