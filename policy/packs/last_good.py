"""The last set of packs a service compiled without error, kept for its next start.

A pack with an error on disk must not turn a restart of `policy serve` into an outage:
every agent call, even `ls`, would be refused until somebody fixes the file. So after
every successful load and reload the service keeps the compiled set here, and a start
whose packs fail serves this set instead, degraded (`/readyz` says so), unless the
settings ask for `service.strict_start`.

The set is kept as a pack-cache entry (`policy.packs.cache`: plain data, a private
file of this user with a checksum, rebuilt without the compiler) under a name made of
the pack paths as given and the compile environment (hookpolicy's code, the CEL
libraries): after an upgrade there is no last good set until a load succeeds.

Who may stand behind it: the entry is read only as the trusted-file store reads every
cache entry — a regular file of the service's own user, writable by nobody else, its
checksum whole. Unlike the one-event hooks' pack cache it is read also for packs an
administrator protected from that user: the service's user is the trust boundary
(DESIGN §8: `policy serve` under a user of its own, its state directory 0700), and
only a start whose packs fail reads it. A service that shares its user with the
agents it governs gives them that file to write: there, set `service.strict_start`
(docs/service.md#hot-reload-keeping-the-last-good-set).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from policy.aliases import AliasTable

if TYPE_CHECKING:
    from policy.packs import LoadedPacks

__all__ = ["keep", "recall"]


def _name(paths: Sequence[Path], cel_engine: str) -> str | None:
    from policy.packs import cache

    environment = cache.environment(cel_engine)
    if environment is None:
        return None
    digest = hashlib.sha256(b"last-good\0" + environment)
    for path in paths:
        digest.update(os.fsencode(os.path.abspath(path)) + b"\0")
    return "last-good-" + digest.hexdigest()


def keep(paths: Sequence[Path], cel_engine: str, cache_dir: Path, loaded: LoadedPacks) -> bool:
    """Keep `loaded`, compiled from `paths`, as their last good set; whether it was."""
    from policy.packs import cache

    name = _name(paths, cel_engine)
    if name is None:
        return False
    return cache.store(cache_dir, name, loaded) is not None


def recall(
    paths: Sequence[Path], cel_engine: str, cache_dir: Path, aliases: AliasTable
) -> LoadedPacks | None:
    """The last good set of the packs at `paths`, or None: none kept, kept by other
    code, not a private file of this user, or unreadable."""
    from policy.packs import cache
    from policy.packs.cel import get_engine

    name = _name(paths, cel_engine)
    if name is None:
        return None
    return cache.load(cache_dir, name, get_engine(cel_engine), aliases)
