"""Module loggers that import `logging` when something is first logged.

Every module on a hook's path names its logger at import, but a one-event hook logs
nothing on a call that goes well, and `logging` (with `traceback`, `string`,
`textwrap` and `threading` behind it) is ≈ 5 ms of that hook's start (`-X
importtime`). The logger returned is `logging.getLogger(name)` from its first use on:
the same names, levels, handlers and `caplog` as before.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from typing import Any

__all__ = ["logger"]


class _Deferred:
    __slots__ = ("_found", "_name")

    def __init__(self, name: str) -> None:
        self._name = name
        self._found: logging.Logger | None = None

    def __getattr__(self, attribute: str) -> Any:
        found = self._found
        if found is None:
            import logging

            found = self._found = logging.getLogger(self._name)
        return getattr(found, attribute)

    def __repr__(self) -> str:
        if self._found is None:
            return f"<logger {self._name!r}, not used yet>"
        return repr(self._found)


def logger(name: str) -> logging.Logger:
    """`logging.getLogger(name)`, looked up (and `logging` imported) at its first use."""
    deferred: Any = _Deferred(name)  # stands for the Logger it looks up
    return deferred  # type: ignore[no-any-return]
