"""Answers remembered for short arguments only.

`functools.lru_cache(maxsize=N)` bounds how many answers a memo keeps, not how large
each key is, and a memo keyed by what a call sent (a path, a host, a command line, a
pattern) keeps the caller's text: 8,192 paths of 1 MiB each is 8 GiB, and a service
that decides for hours would hold it. `remember_short` keeps an answer only when each
argument is short — a string of at most `longest` characters, a tuple whose strings
add up to at most that; any other argument counts as short — and works a longer one
out again each time, so a memo never holds more than about `maxsize x longest`
characters whatever its callers send.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["remember_short"]

P = ParamSpec("P")
R = TypeVar("R")


def remember_short(maxsize: int, longest: int) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """`functools.lru_cache(maxsize)` for calls whose every argument is short (above);
    a call with a longer one, or with keyword arguments, is answered afresh."""

    def decorate(function: Callable[P, R]) -> Callable[P, R]:
        kept = functools.lru_cache(maxsize=maxsize)(function)

        @functools.wraps(function)
        def answer(*args: P.args, **kwargs: P.kwargs) -> R:
            if kwargs or not _short(args, longest):
                return function(*args, **kwargs)
            return kept(*args)

        answer.cache_clear = kept.cache_clear  # type: ignore[attr-defined]
        answer.cache_info = kept.cache_info  # type: ignore[attr-defined]
        return answer

    return decorate


def _short(args: tuple[object, ...], longest: int) -> bool:
    for value in args:
        if type(value) is str:
            if len(value) > longest:
                return False
        elif type(value) is tuple:
            total = 0
            for item in value:
                if type(item) is str:
                    total += len(item)
            if total > longest:
                return False
    return True
