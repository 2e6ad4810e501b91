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

import itertools
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, cast

from policy._hashes import blake2b
from policy._json_bytes import dumps, loads
from policy.analysis._lazy_re import lazy_bytes
from policy.analysis.environ import home_variable
from policy.facts import decision_number
from policy.model import CelList, CelMap, ContentKey, FrozenDict
from policy.packs.cel.functions import IMPURE_NAMES
from policy.packs.cel.interface import VARIABLES_AT, referenced_names

__all__ = [
    "READS_BEYOND_ARGUMENTS",
    "AnswerStore",
    "ReadTogether",
    "Recall",
    "Together",
    "first_time",
    "forget",
    "read_together",
    "recallable",
]

#: Identifiers whose presence in a program's source (outside its strings) means the
#: program may read more than its inputs: a function that reads the file system or
#: runs the analysis (`policy.packs.cel.functions.READ_BEYOND_ARGUMENTS`: `resolve`,
#: `contained`, the `shell` namespace), or the time (`now`). (Names, not calls: a pack
#: variable called `shell` makes its programs merely not recalled.)
READS_BEYOND_ARGUMENTS = IMPURE_NAMES | {"now"}

#: Entries one program keeps (each a key of a few short strings and 16-byte digests).
LIMIT = 1024

#: Strings longer than this are kept as their digest.
_SHORT = 64

_TILDE_USER = lazy_bytes(rb'"~[^/"]')  # (compiled when a `"~` comes)

_PLAIN_MAPS = (dict, FrozenDict, CelMap)
_PLAIN_LISTS = (list, tuple, CelList)
_STR_ONLY = {str}


#: Bumped by `forget`: a memo made before it is emptied at its next use.
_generation = 0


def forget() -> None:
    """Forget every answer recalled so far, in every pack, and every call decided (the
    next ones are new to `first_time`): what `policy bench` does before each decision,
    so each costs what a call not seen before costs."""
    global _generation
    _generation += 1
    _seen.clear()
    _by_content.clear()


class _FirstTime(threading.local):
    """`first_time`'s answer for the call this thread's packs are deciding."""

    def __init__(self) -> None:
        self.of: tuple[Any, Any, str, int] = (None, None, "", -1)
        self.first = False


_first = _FirstTime()

#: The calls this process has decided, each as a hash of its point, tool, working
#: directory and arguments; forgotten all at once past `SEEN_LIMIT` (a call then is
#: new again, and decided without a key: the same answer, one key later).
_seen: dict[int, None] = {}
SEEN_LIMIT = 4096


def first_time(point: str, subject: Any, payload: Any) -> bool:
    """Whether this process has not decided this tool call before (the same point,
    tool, working directory and arguments), answered once a decision for all its packs
    (the same call object decided again is a call seen before).

    Only a guess at whether a recalled answer can exist, never part of one: a call
    taken for new is evaluated (what a recalled answer holds), and one taken for
    seen makes its key as before. Other points' payloads, and arguments that do not
    hash, are always taken for seen."""
    state = _first
    of = state.of
    decision = decision_number()
    if of[0] is subject and of[1] is payload and of[2] == point and of[3] == decision:
        return state.first
    first = False
    if payload is subject:
        args = getattr(subject, "args", None)
        try:
            seen = hash((point, subject.tool, subject.cwd, args))
        except (TypeError, AttributeError):  # (taken for seen: keyed, as before)
            seen = None
        if seen is not None and seen not in _seen:
            first = True
            if len(_seen) >= SEEN_LIMIT:
                _seen.clear()  # (one call, safe while another thread reads)
            _seen[seen] = None
    state.of = (subject, payload, point, decision)
    state.first = first
    return first


def recallable(sources: Iterable[str]) -> bool:
    """Whether a program compiled from `sources` (its expressions and the pack
    variables they read) answers from its inputs alone."""
    return not _named(sources) & READS_BEYOND_ARGUMENTS


def _named(sources: Iterable[str]) -> frozenset[str]:
    """Every identifier the sources name outside their strings."""
    return frozenset().union(*[referenced_names(source) for source in sources])


class NamesStore(Protocol):
    """Where a program's names are kept between processes (`policy.packs.cache.
    ProgramStore`: a private file of this user, under the salt of this code)."""

    def get(self, point: str, source: str) -> bytes | None: ...

    def put(self, point: str, source: str, program: bytes) -> None: ...


def _kept_names(
    point: str,
    conditions: Sequence[str],
    variables: Sequence[Mapping[str, str]],
    programs: NamesStore | None,
) -> frozenset[str]:
    """`_named` of a program's conditions and pack variables, read back from
    `programs` when an earlier process worked them out: scanning the shipped packs'
    sources for their strings is ≈ 4 ms of a one-event hook's start, every start.
    An entry that does not read back as a list of strings is worked out again."""
    sources = [*conditions, *(s for layer in variables for s in layer.values())]
    if programs is None:
        return _named(sources)
    # (every source delimited: no two lists of sources serialise alike)
    key = dumps(sources).decode()
    body = programs.get(f"names:{point}", key)
    if body is not None:
        try:
            kept = loads(body)
        except ValueError:  # (orjson's error is a ValueError)
            kept = None
        if type(kept) is list and all(type(name) is str for name in kept):
            return frozenset(kept)
    named = _named(sources)
    programs.put(f"names:{point}", key, dumps(sorted(named)))
    return named


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
        if type(value) in _FACTS:
            # (kept on the facts object: a repeated call whose line nothing on disk
            # changed is handed the same facts, policy.facts, whatever came between)
            kept: object = getattr(value, "digest", _UNSET)
            if kept is not _UNSET:
                known = cast("bytes | None", kept)
                _digests.last[name] = (value, known)
                return known
    content = value.content_key() if type(value) is FrozenDict else None
    if content is not None:
        # (a call's small flat arguments, a new mapping at each call an agent repeats)
        kept_digest = _by_content.get(content, _UNSET)
        if kept_digest is not _UNSET:
            found = cast("bytes | None", kept_digest)
            _digests.last[name] = (value, found)
            return found
    digest: bytes | None = None
    # (the facts are the analysis's own data, made of the command's words: strings,
    # ints, bools, None, lists and maps; tests/test_recall.py walks the corpus's)
    if type(value) in _FACTS or _exact(value):
        try:
            serialised = dumps(value)
        except (TypeError, RecursionError):  # (an int beyond 64 bits, a
            pass  # lone surrogate, nesting deeper than orjson goes: not compared)
        else:
            # A string `~name...`: where it points is the account database's to say
            # (a path function normalising it asks), which no key holds.
            if b'"~' not in serialised or not _TILDE_USER().search(serialised):
                digest = blake2b(b"j" + serialised, digest_size=16).digest()
    if frozen:
        _digests.last[name] = (value, digest)
        if type(value) in _FACTS:
            value.digest = digest
    if content is not None:
        if len(_by_content) >= LIMIT:
            _by_content.clear()  # (one call, safe while another thread reads)
        _by_content[content] = digest
    return digest


_UNSET = object()

#: Digests of small flat arguments by their contents (`FrozenDict.content_key`).
_by_content: dict[ContentKey, bytes | None] = {}


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


def part(name: str, value: Any) -> str | bytes | None:
    """What input `name`, of value `value`, puts in a key (`Recall.key`): a short
    string as it is, other values as a digest; None when it cannot be compared."""
    if type(value) is str and len(value) <= _SHORT:
        if value[:1] == "~" and value[1:2] not in ("", "/"):
            return None  # (`~name`: the account database says where)
        return value
    return _digest(name, value)


class ReadTogether:
    """What the recalled programs deciding one kind of call (a point and a tool) read,
    all together: the names a call's key is made of (`Recall.get_by_call`).

    One table for the packs an engine loads together (`Engine`: at start and at each
    reload). The packs deciding a call each key their program by what it reads (`Recall.key`),
    which takes each pack a few µs of its ≈ 6 on a repeated call; a key of everything
    any of them reads is made once a call, and each program also remembers its mask
    by that key. The names only grow (a pack's program is built when its first call
    comes); each set of them has a number of its own, never given again, in every key
    made of it, so two keys made of different names are never equal. Past
    `_READ_TOGETHER_LIMIT` points and tools, every set is forgotten at once and a new
    epoch begins: a program counted in an earlier epoch is counted again before its
    next lookup, and a key is only taken for a program counted in its own epoch."""

    __slots__ = ("_epoch", "_lock", "_names")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: (point, tool) -> (the epoch, the number of these names, the names in order)
        self._names: dict[tuple[str, str], Together] = {}
        self._epoch = 0

    @property
    def epoch(self) -> int:
        return self._epoch

    def add(self, point: str, tool: str, names: Iterable[str]) -> Together:
        """Count `names` among what the programs at `point` for `tool` read: the set of
        names, numbered, that holds them all — a key made of it, or of a later set of
        the same epoch for the same point and tool, holds every input of the program
        reading `names`."""
        wanted = set(names)
        with self._lock:
            found = self._names.get((point, tool))
            if found is not None and wanted <= set(found[2]):
                return found
            if found is None and len(self._names) >= _READ_TOGETHER_LIMIT:
                self._names.clear()  # (every program counts itself again: `epoch`)
                self._epoch += 1
            together = tuple(sorted(wanted.union(found[2] if found is not None else ())))
            made = (self._epoch, next(_numbers), together)
            self._names[(point, tool)] = made
            return made

    def get(self, point: str, tool: str) -> Together | None:
        return self._names.get((point, tool))


#: (the epoch, the number of a set of names, the names in order)
Together = tuple[int, int, tuple[str, ...]]

#: The (point, tool) pairs `ReadTogether` holds at most (a set naming thousands of
#: tools adds a pair at each one's first call).
_READ_TOGETHER_LIMIT = 4096

#: The numbers of the sets of names, of every `ReadTogether` of the process: no two
#: sets share one, so no key of one table's names equals a key of another's.
_numbers = itertools.count(1)

#: The names of the packs an engine did not load together (an engine gives the packs
#: it loads at once a table of their own: what packs loaded elsewhere, or before a
#: reload, read is no part of their calls' keys).
read_together = ReadTogether()


class Recall:
    """One program's remembered masks, by a key of its inputs (`key`); with a `store`,
    also those other processes remembered (`AnswerStore`: a one-event hook's); in
    memory, also by the key of the whole call (`get_by_call`)."""

    __slots__ = ("_by_call", "_generation", "_masks", "_program", "_store", "names")

    @classmethod
    def of(
        cls,
        point: str,
        conditions: Sequence[str],
        variables: Sequence[Mapping[str, str]] = (),
        store: AnswerStore | None = None,
        programs: NamesStore | None = None,
    ) -> Recall | None:
        """The memo of the program made of `conditions` and the pack `variables` they
        read (by dependency layer), or None when it reads beyond its inputs.
        `programs`: where the names the sources hold are kept for the next process."""
        named = _kept_names(point, conditions, variables, programs)
        if named & READS_BEYOND_ARGUMENTS:
            return None
        return cls(point, conditions, variables, store, named)

    def __init__(
        self,
        point: str,
        conditions: Sequence[str],
        variables: Sequence[Mapping[str, str]] = (),
        store: AnswerStore | None = None,
        named: frozenset[str] | None = None,
    ) -> None:
        # (a program is handed the call's every field, so that the packs of one call
        # share one activation; it reads those its sources name)
        if named is None:
            named = _named([*conditions, *(s for layer in variables for s in layer.values())])
        read = named & VARIABLES_AT[point].keys()
        #: The variables the key is made of, in a fixed order: all the program reads.
        self.names = tuple(sorted(read - {"vars"}))
        self._masks: dict[Key, int] = {}
        self._by_call: dict[Key, int] = {}
        self._generation = _generation
        self._store = store
        # (the program, by all it is made of — the point, its conditions in order, each
        # pack variable by name and source: in a store shared by processes, only the
        # same program under the same code and libraries answers alike. JSON: every
        # string delimited, so no two programs serialise alike.)
        layers = [sorted(layer.items()) for layer in variables]
        self._program = (
            blake2b(dumps([point, list(conditions), layers])).digest()
            if store is not None
            else b""
        )

    @property
    def kept_across_processes(self) -> bool:
        """Whether what this memo keeps is read by later processes (a one-event hook's
        `AnswerStore`): then a call's first key is worth making too."""
        return self._store is not None

    def key(self, data: Mapping[str, Any], home: str) -> Key | None:
        """The key of these inputs (`home`: what `~` means to the path functions), or
        None when they cannot be compared exactly: short strings as they are, other
        values by a digest of their exact serialisation (a str is never equal to bytes,
        so neither is taken for the other). `$HOME` too: the lexical path functions
        that normalise (`path.within`, `path.within_any_folded`, ...) read `~` from it,
        where `home` is the caller's for `policy serve`."""
        parts: list[str | bytes] = [home, home_variable() or ""]
        for name in self.names:
            made = part(name, data[name])
            if made is None:
                return None
            parts.append(made)
        return tuple(parts)

    def get(self, key: Key) -> int | None:
        if self._generation != _generation:
            self._forget()
            return None
        mask = self._masks.get(key)
        if mask is None and self._store is not None:
            mask = self._store.get(self._program, key)
            if mask is not None:
                self._remember(key, mask)
        return mask

    def keep(self, key: Key, mask: int) -> None:
        self._remember(key, mask)
        if self._store is not None:
            self._store.keep(self._program, key, mask)

    def _remember(self, key: Key, mask: int) -> None:
        masks = self._masks
        if len(masks) >= LIMIT:
            masks.clear()  # (one call, safe while another thread reads)
        masks[key] = mask

    def _forget(self) -> None:
        self._generation = _generation
        self._masks.clear()
        self._by_call.clear()

    def get_by_call(self, key: Key) -> int | None:
        """The mask remembered for a call whose key (made of `ReadTogether`'s names, a
        superset of this program's) is `key`; in memory only, never a store's: a
        one-event hook decides one call."""
        if self._generation != _generation:
            self._forget()
            return None
        return self._by_call.get(key)

    def keep_by_call(self, key: Key, mask: int) -> None:
        if self._generation != _generation:
            self._forget()
        by_call = self._by_call
        if len(by_call) >= LIMIT:
            by_call.clear()
        by_call[key] = mask


def _key_bytes(program: bytes, key: Key) -> bytes:
    """`key` of `program` as bytes that tell every key apart: each part tagged with its
    type and length."""
    out = [program]
    for part in key:
        raw = part.encode("utf-8", "surrogatepass") if type(part) is str else part
        tag = b"s" if type(part) is str else b"b"
        out.append(tag + len(raw).to_bytes(4, "little") + raw)  # type: ignore[operator]
    return b"".join(out)


class AnswerStore:
    """Programs' answers kept on disk for the next process: a one-event hook (Claude
    Code and Agentao start `policy hook` per tool call) asked about a call it has seen
    answers its packs without building CEL's environment or evaluating a program.

    One private file of this user (`policy._trusted_store` rules: read only when it
    is a regular file owned by this user and writable by nobody else), made only for
    packs the user controls, whose answers the user could change anyway (the pack
    cache's rule, `policy.packs.cache.ProgramStore`), under the pack cache's directory
    for this code and these libraries (`salt`: every record is checked against it).
    Records are appended, 40 bytes each: a 16-byte digest of the program and its key,
    the mask, and a check of both under the salt; a record that does not check is a
    miss. The file holds at most `RECORDS` and is started again when full; a write
    that fails only means the next process evaluates again.
    """

    RECORDS = 4096
    _SIZE = 40

    __slots__ = ("_data", "_path", "_salt")

    def __init__(self, path: Path, salt: bytes) -> None:
        self._path = path
        self._salt = blake2b(salt).digest()  # (64 bytes: a BLAKE2b key)
        self._data: bytes | None = None

    def _record_of(self, program: bytes, key: Key) -> bytes:
        return blake2b(_key_bytes(program, key), digest_size=16, key=self._salt).digest()

    def _check(self, digest: bytes, mask: bytes) -> bytes:
        return blake2b(digest + mask, digest_size=16, key=self._salt).digest()

    def get(self, program: bytes, key: Key) -> int | None:
        if self._data is None:
            from policy._trusted_store import read_private

            self._data = read_private(self._path, self.RECORDS * self._SIZE) or b""
        data = self._data
        digest = self._record_of(program, key)
        at = data.find(digest)
        while at >= 0:
            if at % self._SIZE == 0:
                mask = data[at + 16 : at + 24]
                if data[at + 24 : at + 40] == self._check(digest, mask):
                    return int.from_bytes(mask, "little")
            at = data.find(digest, at + 1)
        return None

    def keep(self, program: bytes, key: Key, mask: int) -> None:
        from policy._trusted_store import append_private

        if not 0 <= mask < 1 << 64:
            return
        digest = self._record_of(program, key)
        raw = mask.to_bytes(8, "little")
        record = digest + raw + self._check(digest, raw)
        append_private(self._path, record, self.RECORDS * self._SIZE)
