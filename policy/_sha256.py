"""SHA-256 without `hashlib`'s start when nothing else needs it.

`import hashlib` loads OpenSSL's libcrypto (≈ 5 to 15 ms on the development machine),
which the thin client of `policy serve` would pay at every tool call for the one digest
it takes (its settings' key, policy._fast_settings). The interpreter's own SHA-256
module gives the same digests with no such start, and ≈ 7 times slower per byte — nothing
for a few KB, felt for a pack cache of megabytes. So: `hashlib`'s when the process has
loaded it already (a deciding process has), else the built-in one, else `hashlib`'s.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["sha256"]


def sha256(data: bytes = b"") -> Any:
    """A SHA-256 hash object over `data` (`update`, `digest`, `hexdigest`), from the
    cheapest implementation at hand; every one gives the same digests."""
    loaded: Any = sys.modules.get("hashlib")
    if loaded is not None:
        return loaded.sha256(data)
    return _built_in()(data)


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
