"""Strict YAML: duplicate keys are errors, and every node keeps its line:col.

PyYAML's safe loader silently keeps the last of two equal keys; in a policy file
that means a reviewer reads one value and the engine enforces another.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

__all__ = ["Mark", "YamlDocument", "YamlError", "load_yaml"]

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

PathKey = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Mark:
    """A 1-based position in a source file."""

    line: int
    col: int


class YamlError(ValueError):
    """A YAML file cannot be read; `str()` is `source:line:col: message`."""

    def __init__(self, source: str, mark: Mark | None, message: str) -> None:
        where = f"{source}:{mark.line}:{mark.col}" if mark else source
        super().__init__(f"{where}: {message}")
        self.source = source
        self.mark = mark
        self.message = message


@dataclass(frozen=True, slots=True)
class YamlDocument:
    """Parsed data plus the position of every value and every mapping key, by path."""

    source: str
    data: Any
    values: dict[PathKey, Mark]
    keys: dict[PathKey, Mark]

    def mark(self, path: PathKey) -> Mark | None:
        """The closest known position for `path` (walks up to a parent if needed)."""
        for end in range(len(path), -1, -1):
            sub = path[:end]
            if sub in self.values:
                return self.values[sub]
        return None

    def key_mark(self, path: PathKey) -> Mark | None:
        return self.keys.get(path) or self.mark(path)


def _mark(node: yaml.Node) -> Mark:
    return Mark(node.start_mark.line + 1, node.start_mark.column + 1)


def _walk(
    loader: yaml.SafeLoader,
    node: yaml.Node,
    path: PathKey,
    source: str,
    values: dict[PathKey, Mark],
    keys: dict[PathKey, Mark],
) -> None:
    values[path] = _mark(node)
    if isinstance(node, yaml.MappingNode):
        seen: dict[Any, Mark] = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise YamlError(source, _mark(key_node), "merge keys (<<) are not allowed")
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, str | int | float | bool) and key is not None:
                raise YamlError(source, _mark(key_node), "mapping keys must be scalars")
            if key in seen:
                first = seen[key]
                raise YamlError(
                    source,
                    _mark(key_node),
                    f"duplicate key {key!r} (first at line {first.line}, column {first.col})",
                )
            seen[key] = _mark(key_node)
            child = (*path, key if isinstance(key, str | int) else str(key))
            keys[child] = _mark(key_node)
            _walk(loader, value_node, child, source, values, keys)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(loader, item, (*path, index), source, values, keys)


def load_yaml(text: str | bytes, source: str | Path) -> YamlDocument:
    """Parse one YAML document; raise YamlError naming source:line:col."""
    name = str(source)
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
            if node is None:
                return YamlDocument(name, None, {}, {})
            values: dict[PathKey, Mark] = {}
            keys: dict[PathKey, Mark] = {}
            _walk(loader, node, (), name, values, keys)
            data = loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Mark(mark.line + 1, mark.column + 1) if mark else None
        message = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        raise YamlError(name, where, message) from None
    except yaml.YAMLError as exc:
        raise YamlError(name, None, str(exc)) from None
    return YamlDocument(name, data, values, keys)
