"""The base of every model read from a pack file: strict, closed, position-aware.

Its own module so that the configuration models of the builtins (policy.builtins)
and the pack schema share it without importing each other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, PrivateAttr

if TYPE_CHECKING:
    # Not imported at run time: PyYAML (≈ 10 ms) is needed to read a pack file, not
    # to validate a builtins section again from the pack cache (policy.packs.cache).
    from policy._yaml import Mark, PathKey, YamlDocument

__all__ = ["Node"]


class Node(BaseModel):
    """Base of every pack model: strict, closed, and aware of its source position."""

    # defer_build: a model is built when it first validates (a one-event hook on a
    # cached pack validates a builtins section or two, not the whole schema)
    model_config = ConfigDict(
        extra="forbid", strict=True, frozen=True, populate_by_name=True, defer_build=True
    )

    _doc: YamlDocument | None = PrivateAttr(default=None)
    _path: PathKey = PrivateAttr(default=())

    @property
    def path(self) -> PathKey:
        return self._path

    @property
    def source(self) -> str:
        return self._doc.source if self._doc is not None else "<memory>"

    def mark(self, *field: str | int) -> Mark:
        """Position of this node, or of one of its fields' values."""
        if self._doc is None:
            from policy._yaml import Mark

            return Mark(1, 1)
        return self._doc.mark((*self._path, *field)) or Mark(1, 1)

    def key_mark(self, field: str) -> Mark:
        if self._doc is None:
            from policy._yaml import Mark

            return Mark(1, 1)
        return self._doc.key_mark((*self._path, field)) or self.mark()
