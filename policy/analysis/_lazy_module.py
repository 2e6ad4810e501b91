"""Modules, and a package's names, imported at their first read.

The shell analysis is ≈ 12 ms of imports (tree-sitter, the walk, every program's
module) that a one-event hook pays at every tool call. A line whose lexical facts it
read back from the last process that analysed it (policy.analysis.kept_lines) needs
none of them — only what looks at the disk again (policy.analysis.effects._on_disk) —
so the modules that hold those names import them through a `LazyModule`, which the
real module replaces in the holder's namespace at the first read: from then on a read
is a global's, as with a plain `import`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

__all__ = ["LazyModule", "lazy_submodules", "names_on_first_use"]


class LazyModule:
    """Stands for module `name` under the name `alias` in `namespace` (a module's
    `globals()`), until the first read of one of its names imports it and puts it there.

    Two threads may both read first: the import system imports once, and both put the
    same module in place."""

    __slots__ = ("_alias", "_name", "_namespace")

    def __init__(self, name: str, namespace: dict[str, Any], alias: str) -> None:
        self._name = name
        self._namespace = namespace
        self._alias = alias

    def __getattr__(self, attribute: str) -> Any:
        module = _imported(self._name)
        self._namespace[self._alias] = module
        return getattr(module, attribute)

    def __repr__(self) -> str:
        return f"<LazyModule {self._name!r}>"


def lazy_submodules(namespace: dict[str, Any], package: str, *names: str) -> None:
    """`from package import name` for each of `names`, as `LazyModule`s in `namespace`."""
    for name in names:
        namespace[name] = LazyModule(f"{package}.{name}", namespace, name)


def names_on_first_use(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], Any]:
    """A package's module `__getattr__` (PEP 562): name `n` read from `package.homes[n]`
    at its first read, then kept in the package's `namespace` — read from there on as
    if imported at the top. Any other name is an AttributeError."""

    def __getattr__(name: str) -> Any:
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(_imported(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    return __getattr__


def _imported(name: str) -> ModuleType:
    """Module `name`, imported as an `import` statement imports it: `-X importtime`,
    which the tests and tests/bench read to see what a start loads, logs only that
    path, not `importlib.import_module`'s (a module loaded through it would be missing
    from the list, and a test that it is not loaded would pass either way)."""
    __import__(name)
    return sys.modules[name]
