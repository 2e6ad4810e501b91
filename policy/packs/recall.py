"""What a pack's program answered, recalled when it is asked again on equal inputs.

An agent runs the same commands over and over (`git status`, `ls`, the tests), and a
pack's program is a pure function of what it reads: the CEL variables it needs, the
user's home (what `~` means to the path functions) and its compiled constants. So
the mask a program gave can be recalled for a later call whose inputs are equal,
which skips CEL's conversion and evaluation, the larger part of a decision on the
shipped packs. The facts themselves are still worked out on every call (they read
the file system: a link, a git directory, a hard link); only what CEL made of them
is recalled.

Recall is exact or absent:

- a program that reads anything beyond its inputs is never recalled: one that
  names a function that reads the file system or the analysis's state
  (`READS_BEYOND_ARGUMENTS`), or the time (`now`);
- inputs are compared by value, through a serialisation that keeps every
  distinction CEL makes (types, key order aside); a value it could blur — a float
  that is not finite (JSON has no NaN), a type that is not plain data — makes the
  call one that is not recalled;
- an evaluation that failed, or gave up, is not remembered;
- the memo is bounded, and emptied when full.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from policy.model import CelList, CelMap, FrozenDict
from policy.packs.cel.interface import referenced_names

__all__ = ["READS_BEYOND_ARGUMENTS", "Recall", "forget", "recallable"]

#: Identifiers whose presence in a program's source (outside its strings) means the
#: program may read more than its inputs: `path.resolve` reads the file system, the
#: `shell.*` functions run the analysis (which stats paths and can give up), `now`
#: is the time. (Names, not calls: a pack variable called `shell` makes its programs
#: merely not recalled.)
READS_BEYOND_ARGUMENTS = frozenset({"resolve", "shell", "now"})

#: Entries one program keeps (each a key of a few short strings and 16-byte digests).
LIMIT = 1024

#: Strings longer than this are kept as their digest.
_SHORT = 64

_PLAIN_MAPS = (dict, FrozenDict, CelMap)
_PLAIN_LISTS = (list, tuple, CelList)
_STR_ONLY = {str}


#: Bumped by `forget`: a memo made before it is emptied at its next use.
_generation = 0


def forget() -> None:
    """Forget every answer recalled so far, in every pack: what `policy bench` does
    before each decision, so each costs what it costs a one-event hook (which recalls
    nothing: its process decides one call)."""
    global _generation
    _generation += 1


def recallable(sources: Iterable[str]) -> bool:
    """Whether a program compiled from `sources` (its expressions and the pack
    variables they read) answers from its inputs alone."""
    return not any(referenced_names(source) & READS_BEYOND_ARGUMENTS for source in sources)


class _Digests(threading.local):
    """The digest of the last value of each variable on this thread, by identity: the
    packs deciding one call are handed the same objects (its facts, its arguments, the
    protected paths), so each is serialised once a call, not once a pack."""

    def __init__(self) -> None:
        self.last: dict[str, tuple[Any, bytes | None]] = {}


_digests = _Digests()

#: Values that are never changed once built, so a digest can be kept by identity:
#: `FrozenDict` refuses mutation, `CelList`/`CelMap` (the facts) are never mutated.
_FROZEN = (tuple, FrozenDict, CelList, CelMap)
_FACTS = (CelList, CelMap)


def _digest(name: str, value: Any) -> bytes | None:
    """`value` of variable `name` as a digest, None when it cannot be compared exactly."""
    frozen = type(value) in _FROZEN
    if frozen:
        last = _digests.last.get(name)
        if last is not None and last[0] is value:
            return last[1]
    digest: bytes | None = None
    # (the facts are the analysis's own data, made of the command's words: strings,
    # ints, bools, None, lists and maps; tests/test_recall.py walks the corpus's)
    if type(value) in _FACTS or _exact(value):
        try:
            serialised = orjson.dumps(value)
        except (orjson.JSONEncodeError, RecursionError):  # (an int beyond 64 bits, a
            pass  # lone surrogate, nesting deeper than orjson goes: not compared)
        else:
            digest = hashlib.blake2b(b"j" + serialised, digest_size=16).digest()
    if frozen:
        _digests.last[name] = (value, digest)
    return digest


def _exact(value: Any) -> bool:
    """`value` is plain data whose JSON form tells it apart from every other value CEL
    could see: str, bool, int, finite float, None, and lists and str-keyed maps of
    them."""
    kind = type(value)
    if kind is str or kind is bool or kind is int or value is None:
        return True
    if kind is float:
        return bool(value - value == 0.0)  # (false for NaN and the infinities: JSON's null)
    if kind in _PLAIN_LISTS:
        return set(map(type, value)) <= _STR_ONLY or all(_exact(item) for item in value)
    if kind in _PLAIN_MAPS:
        if not set(map(type, value)) <= _STR_ONLY:
            return False
        return set(map(type, value.values())) <= _STR_ONLY or all(
            _exact(item) for item in value.values()
        )
    return False


Key = tuple[str | bytes, ...]


class Recall:
    """One program's remembered masks, by a key of its inputs (`key`)."""

    __slots__ = ("_generation", "_masks", "names")

    def __init__(self, needs: Iterable[str], sources: Iterable[str]) -> None:
        # (a program is handed the call's every field, so that the packs of one call
        # share one activation; it reads those its sources name)
        needs = frozenset(needs) & frozenset().union(*[referenced_names(s) for s in sources])
        #: The variables the key is made of, in a fixed order.
        self.names = tuple(sorted(needs))
        self._masks: dict[Key, int] = {}
        self._generation = _generation

    def key(self, data: Mapping[str, Any], home: str) -> Key | None:
        """The key of these inputs (`home`: what `~` means to the path functions), or
        None when they cannot be compared exactly: short strings as they are, other
        values by a digest of their exact serialisation (a str is never equal to bytes,
        so neither is taken for the other)."""
        parts: list[str | bytes] = [home]
        for name in self.names:
            value = data[name]
            if type(value) is str and len(value) <= _SHORT:
                parts.append(value)
                continue
            digest = _digest(name, value)
            if digest is None:
                return None
            parts.append(digest)
        return tuple(parts)

    def get(self, key: Key) -> int | None:
        if self._generation != _generation:
            self._generation = _generation
            self._masks.clear()
            return None
        return self._masks.get(key)

    def keep(self, key: Key, mask: int) -> None:
        masks = self._masks
        if len(masks) >= LIMIT:
            masks.clear()  # (one call, safe while another thread reads)
        masks[key] = mask
