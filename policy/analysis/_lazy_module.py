"""A module imported at the first read of one of its names, by the module that holds it.

The shell analysis is ≈ 12 ms of imports (tree-sitter, the walk, every program's
module) that a one-event hook pays at every tool call. A line whose lexical facts it
read back from the last process that analysed it (policy.analysis.kept_lines) needs
none of them — only what looks at the disk again (policy.analysis.effects._on_disk) —
so the modules that hold those names import them through a `LazyModule`, which the
real module replaces in the holder's namespace at the first read: from then on a read
is a global's, as with a plain `import`.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["LazyModule"]


class LazyModule:
    """Stands for module `name` under the name `alias` in `namespace` (a module's
    `globals()`), until the first read of one of its names imports it and puts it there.

    Two threads may both read first: `importlib` imports once, and both put the same
    module in place."""

    __slots__ = ("_alias", "_name", "_namespace")

    def __init__(self, name: str, namespace: dict[str, Any], alias: str) -> None:
        self._name = name
        self._namespace = namespace
        self._alias = alias

    def __getattr__(self, attribute: str) -> Any:
        module = importlib.import_module(self._name)
        self._namespace[self._alias] = module
        return getattr(module, attribute)

    def __repr__(self) -> str:
        return f"<LazyModule {self._name!r}>"
