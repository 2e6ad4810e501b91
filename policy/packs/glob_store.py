"""Long glob lists' indexes kept on disk for the next one-event process
(policy.analysis.paths `keep_indexes_in`).

A pack's long lists (credential places, startup files: 30 to 250 globs each) are
indexed at their first use by a path: bracex's import, each glob's braces expanded
and its letters folded, its literal parts found — ≈ 5 ms of a one-event hook's start
for a call its packs have not answered before, built again by every process. The
index is a pure function of the list, the home `~` stands for and the code that
built it, so it is kept, as JSON, beside the packs' compiled programs and under the
terms of the shell lines' facts (policy.packs.line_store, decisions 0011, 0020 and
0030): only where every pack is the user's, in this user's private files with a
valid checksum, named by a digest of the list, the home, whether it is folded and
the code (`analysis_salt`: the analysis's modules, bracex's files, hookpolicy's
version, Python's), each entry beginning with its own key. An entry that does not
read back as an index (`paths._Globs.from_parts` checks each field) is a miss, and
the index is built again.
"""

from __future__ import annotations

import os
from typing import Any

from policy import _json_bytes
from policy._hashes import sha256
from policy._trusted_store import read_entry, write_entry
from policy.packs.line_store import analysis_salt

__all__ = ["KeptGlobIndexes"]

#: The entry format: an entry written by another format is never read.
FORMAT = 1
#: Entries kept in the directory (the shipped packs have ≈ 20 long lists).
KEEP = 128
SLACK = 32
#: Libraries whose files decide an index (bracex expands the braces).
_PACKAGES = ("bracex",)


class KeptGlobIndexes:
    """Glob lists' indexes under `directory` (policy.analysis.paths.IndexStore)."""

    __slots__ = ("_directory", "_salt")

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self._directory = os.fspath(directory)
        self._salt: bytes | None = None

    def get(self, patterns: tuple[str, ...], home: str, folded: bool) -> Any:
        """The parts kept for this list's index, or None (a miss, for any reason)."""
        try:
            key = self._key(patterns, home, folded)
            body = read_entry(self._directory, "globs-" + key.hex())
            if body is None or body[: len(key)] != key:
                return None
            return _json_bytes.loads(body[len(key) :])
        except Exception:  # noqa: BLE001 - a miss: the index is built, as without a store
            return None

    def keep(self, patterns: tuple[str, ...], home: str, folded: bool, parts: Any) -> None:
        """Keep `parts`, this list's index; a failure only means the next process builds
        it again."""
        try:
            key = self._key(patterns, home, folded)
            body = key + _json_bytes.dumps(parts)
            write_entry(self._directory, "globs-" + key.hex(), body, keep=KEEP, slack=SLACK)
        except Exception:  # noqa: BLE001 - unkept (a lone surrogate orjson refuses, ...)
            return

    def _key(self, patterns: tuple[str, ...], home: str, folded: bool) -> bytes:
        salt = self._salt
        if salt is None:
            salt = self._salt = analysis_salt(FORMAT, _PACKAGES)
        digest = sha256(salt)
        # (JSON: no list, home or flag can spell another's)
        digest.update(_json_bytes.dumps([list(patterns), home, folded]))
        return digest.digest()
