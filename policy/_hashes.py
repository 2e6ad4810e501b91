"""SHA-256 and BLAKE2b without `hashlib`'s start when nothing else needs it.

`import hashlib` loads OpenSSL's libcrypto (≈ 3 ms pinned on the development machine,
5 to 15 ms unpinned), which a one-event hook would pay at every tool call for digests
of a few KB (decision 0025 for the thin client, 0029 for the standalone hook). The
interpreter's own modules give the same digests with no such start:

- SHA-256: the built-in module is ≈ 7 times slower per byte — nothing for a record or
  a settings file, ≈ 0.5 ms for the shipped packs' 135 KB hashed into the pack cache's
  key. So: the built-in one in a process that decides one event (policy._one_event)
  and has not loaded `hashlib`; `hashlib`'s everywhere else (a service, a deciding
  process, an application), and where the interpreter lacks the built-in module.
- BLAKE2b: `hashlib.blake2b` *is* the built-in `_blake2.blake2b` (OpenSSL's offers no
  key or digest size), so it is taken from there, with `hashlib`'s as the fallback.
"""

from __future__ import annotations

import sys

from policy import _one_event

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _blake2 import blake2b as blake2b
    from _hashlib import HASH
    from typing import Any

__all__ = ["blake2b", "sha256"]


def sha256(data: bytes = b"") -> HASH:
    """A SHA-256 hash object over `data` (`update`, `digest`, `hexdigest`), from the
    cheapest implementation at hand; every one gives the same digests."""
    if _one_event.active and "hashlib" not in sys.modules:
        built_in: HASH = _built_in()(data)
        return built_in
    import hashlib  # (the statement, not `sys.modules`: an import under way is waited for)

    return hashlib.sha256(data)


def _built_in() -> Any:
    """The interpreter's own SHA-256 constructor, looked up once (an import that fails
    searches every entry of sys.path)."""
    global _constructor
    if _constructor is None:
        try:
            module: Any = __import__("_sha2" if sys.version_info >= (3, 12) else "_sha256")
            _constructor = module.sha256
        except ImportError:  # built without it
            import hashlib

            _constructor = hashlib.sha256
    return _constructor


_constructor: Any = None


def __getattr__(name: str) -> Any:
    """`blake2b` (`hashlib.blake2b`'s constructor), looked up when a module first
    imports it: the thin client, which takes only `sha256`, loads no `_blake2`."""
    if name != "blake2b":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from _blake2 import blake2b as constructor
    except ImportError:  # built without it
        from hashlib import blake2b as constructor
    globals()["blake2b"] = constructor
    return constructor
