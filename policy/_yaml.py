"""Strict YAML: duplicate keys are errors, and every node keeps its line:col.

PyYAML's safe loader silently keeps the last of two equal keys; in a policy file
that means a reviewer reads one value and the engine enforces another.
"""

from __future__ import annotations

import re
from collections import deque
from pathlib import Path
from typing import Any

import yaml

from policy._lazy_dataclass import dataclass
from policy._named_tuple import NamedTuple

__all__ = [
    "Mark",
    "PathKey",
    "Scalar",
    "YamlDocument",
    "YamlError",
    "load_yaml",
    "load_yaml_documents",
]

_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_Base):  # type: ignore[misc, valid-type]
    """YAML 1.2 booleans: only true/false. In YAML 1.1 a rule's `on:` key, or a
    value `no` (Norway's country code), silently becomes a boolean."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
        for first, resolvers in _Base.yaml_implicit_resolvers.items()
    }


_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)

PathKey = tuple[str | int, ...]


class Mark(NamedTuple):
    """A 1-based position in a source file. (A tuple: one is kept for every node and
    every key of a pack, ≈ 17,000 for 1,000 rules, and a tuple is made in a third of
    the time a frozen dataclass takes.)"""

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


class Scalar(NamedTuple):
    """Where a scalar's text sits in the source, and how it was written (a tuple, as
    `Mark` is: one is kept for every scalar of a pack)."""

    start: int  # character offset of the node (indicator or quote included)
    end: int
    style: str  # "" plain, "'" or '"' quoted, "|" literal, ">" folded


@dataclass(frozen=True, slots=True)
class YamlDocument:
    """Parsed data plus the position of every value and every mapping key, by path."""

    source: str
    data: Any
    values: dict[PathKey, Mark]
    keys: dict[PathKey, Mark]
    scalars: dict[PathKey, Scalar]
    text: str

    def mark(self, path: PathKey) -> Mark | None:
        """The closest known position for `path` (walks up to a parent if needed)."""
        for end in range(len(path), -1, -1):
            sub = path[:end]
            if sub in self.values:
                return self.values[sub]
        return None

    def key_mark(self, path: PathKey) -> Mark | None:
        return self.keys.get(path) or self.mark(path)

    def locate(self, path: PathKey, line: int, col: int) -> Mark | None:
        """Map a 1-based line:col inside the string value at `path` to the file.

        Walks the scalar's source text and its value side by side, skipping what
        the value does not contain (quotes, escapes, block indentation, folded
        line breaks), so an error in a `>-` block or a quoted string lands on the
        character the user wrote.
        """
        scalar = self.scalars.get(path)
        value = self._value_at(path)
        if scalar is None or not isinstance(value, str):
            return self.mark(path)
        lines = value.split("\n")
        line = max(1, min(line, len(lines)))
        offset = sum(len(text) + 1 for text in lines[: line - 1]) + max(col, 1) - 1
        offset = min(offset, max(len(value) - 1, 0))
        text = self.text
        j = scalar.start
        if scalar.style in ("|", ">"):
            newline = text.find("\n", scalar.start, scalar.end)
            j = newline + 1 if newline != -1 else scalar.start
        elif scalar.style in ("'", '"'):
            j += 1
        i = 0
        while i < offset and j < scalar.end:
            wanted, have = value[i], text[j]
            if scalar.style == '"' and have == "\\":
                following = text[j + 1 : j + 2]
                if following in ("\n", "\r"):
                    j += 2  # an escaped line break: nothing in the value
                    while j < scalar.end and text[j] in " \t\r\n":
                        j += 1
                    continue
                j += {"x": 4, "u": 6, "U": 10}.get(following, 2)
                i += 1
            elif have == wanted:
                i += 1
                j += 1
            elif scalar.style == "'" and text[j : j + 2] == "''":
                j += 2
                i += 1
            elif wanted == " " and have in "\r\n":
                j += 1  # a folded line break; the next line's indentation follows
                while j < scalar.end and text[j] in " \t":
                    j += 1
                i += 1
            else:
                j += 1  # indentation and other source-only characters
        while (
            j < scalar.end and text[j] in " \t\r\n" and i < len(value) and value[i] not in " \t\r\n"
        ):
            j += 1
        line_no = text.count("\n", 0, j) + 1
        return Mark(line_no, j - (text.rfind("\n", 0, j) + 1) + 1)

    def _value_at(self, path: PathKey) -> Any:
        value = self.data
        for part in path:
            try:
                value = value[part]
            except (KeyError, IndexError, TypeError):
                return None
        return value


_STR = "tag:yaml.org,2002:str"


def _mark(node: yaml.Node) -> Mark:
    return Mark(node.start_mark.line + 1, node.start_mark.column + 1)


_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"


class _Reader:
    """One document's nodes read once: every node's position recorded and its value
    built in the same walk. (PyYAML's constructor walking the nodes a second time was
    a third of reading a pack: ≈ 17 ms of 51 for 1,000 rules.) Each structural problem
    (an alias, a merge key, a mapping key that is no scalar, a duplicate key) goes to
    `problems` and the walk goes on past it. A key PyYAML cannot construct ends the
    walk at once; a value it cannot construct (an unknown tag, `!!int ""`) is
    `failed`, raised once the structure is known to be sound — as when PyYAML built
    the document after the walk (then the first in its order, now the first in the
    file's). A collection with a tag of its own (`!!set`, `!!omap`) is built by PyYAML
    whole, its nodes walked for their positions only. One frame a level, as the walk
    before: a document nested as deep as PyYAML composes is read."""

    __slots__ = ("failed", "keys", "loader", "problems", "scalars", "seen", "source", "values")

    def __init__(self, loader: yaml.SafeLoader, source: str) -> None:
        self.loader = loader
        self.source = source
        self.values: dict[PathKey, Mark] = {}
        self.keys: dict[PathKey, Mark] = {}
        self.scalars: dict[PathKey, Scalar] = {}
        self.seen: set[int] = set()
        self.problems: list[YamlError] = []
        self.failed: yaml.MarkedYAMLError | YamlError | None = None

    def read(self, node: yaml.Node, path: PathKey, build: bool = True) -> Any:
        """The value of `node` (None when not `build`), with its position and its
        children's recorded."""
        if id(node) in self.seen:
            self.problems.append(
                YamlError(
                    self.source,
                    _mark(node),
                    "anchors and aliases (&name / *name) are not allowed: "
                    "write each value where it is used",
                )
            )
            return None
        self.seen.add(id(node))
        self.values[path] = _mark(node)
        if isinstance(node, yaml.ScalarNode):
            self.scalars[path] = Scalar(
                node.start_mark.index, node.end_mark.index, node.style or ""
            )
            if not build:
                return None
            return node.value if node.tag == _STR else self._constructed(node)
        if isinstance(node, yaml.MappingNode):
            here = build and node.tag == _MAP  # (built here, else by PyYAML below)
            mapping: dict[Any, Any] = {}
            seen: dict[Any, Mark] = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    self.problems.append(
                        YamlError(self.source, _mark(key_node), "merge keys (<<) are not allowed")
                    )
                    continue
                if not isinstance(key_node, yaml.ScalarNode):
                    self.problems.append(
                        YamlError(self.source, _mark(key_node), "mapping keys must be scalars")
                    )
                    continue
                # (a plain string key is its scalar's text: constructed only when the
                # resolver took it for something else, a number, a bool, null)
                key = key_node.value if key_node.tag == _STR else self._key(key_node)
                if not isinstance(key, str | int | float | bool) and key is not None:
                    self.problems.append(
                        YamlError(self.source, _mark(key_node), "mapping keys must be scalars")
                    )
                    continue
                if key in seen:
                    first = seen[key]
                    self.problems.append(
                        YamlError(
                            self.source,
                            _mark(key_node),
                            f"duplicate key {key!r} (first at line {first.line}, "
                            f"column {first.col})",
                        )
                    )
                    if here:  # (the later value wins, as PyYAML has it; no positions)
                        mapping[key] = self._constructed(value_node)
                    continue
                seen[key] = _mark(key_node)
                child = (*path, key if isinstance(key, str | int) else str(key))
                self.keys[child] = _mark(key_node)
                value = self.read(value_node, child, here)
                if here:
                    mapping[key] = value
            if here:
                return mapping
        else:
            here = build and node.tag == _SEQ
            items: list[Any] = []
            for index, item in enumerate(node.value):
                value = self.read(item, (*path, index), here)
                if here:
                    items.append(value)
            if here:
                return items
        return self._constructed(node) if build else None

    def _key(self, node: yaml.ScalarNode) -> Any:
        """A key PyYAML constructs (a number, a bool, null, a tag of its own); what it
        cannot construct ends the walk."""
        try:
            return self.loader.construct_object(node, deep=True)
        except (yaml.YAMLError, RecursionError):
            raise
        except Exception as exc:  # noqa: BLE001 - a key no value can be: its error, here
            raise _unreadable(self.source, node, exc) from None

    def _constructed(self, node: yaml.Node) -> Any:
        """What PyYAML's safe constructor makes of `node` (built as `construct_document`
        builds, without recursing a level a collection), or None when it cannot
        (`failed`: the first such error, at its place)."""
        loader = self.loader
        try:
            data = loader.construct_object(node)
            while loader.state_generators:
                generators, loader.state_generators = loader.state_generators, []
                for generator in generators:
                    deque(generator, maxlen=0)  # (each fills what it yielded)
        except yaml.MarkedYAMLError as exc:
            failure: yaml.MarkedYAMLError | YamlError = exc
        except RecursionError:
            raise
        except Exception as exc:  # noqa: BLE001 - `!!int ""`: this value's error, reported
            failure = _unreadable(self.source, node, exc)
        else:
            return data
        loader.state_generators = []
        loader.recursive_objects = {}
        if self.failed is None:
            self.failed = failure
        return None


def _unreadable(source: str, node: yaml.Node, exc: Exception) -> YamlError:
    """A value PyYAML's constructor failed on with an error of Python's (`!!int ""`,
    `!!bool maybe`, `2026-02-30`), as a YAML error at its place."""
    tag = str(node.tag).replace("tag:yaml.org,2002:", "!!")
    return YamlError(source, _mark(node), f"not a valid {tag} value ({exc or type(exc).__name__})")


def load_yaml(text: str | bytes, source: str | Path) -> YamlDocument:
    """Parse one YAML document; raise YamlError naming source:line:col."""
    name = str(source)
    doc, problems = _parse(_decode(text, name), name)
    if problems:
        raise problems[0]
    assert doc is not None
    return doc


def load_yaml_documents(
    text: str | bytes, source: str | Path
) -> list[tuple[YamlDocument | None, list[YamlError]]]:
    """Every document of a YAML stream, each parsed on its own with its problems.

    For `policy check`: a syntax error in one document does not hide the others,
    and a duplicate key does not hide the rest of its document (its data is kept,
    the later value winning, so the schema can still be checked; the key is an
    error all the same). Positions are the file's. A document is None when it
    cannot be parsed at all.
    """
    name = str(source)
    try:
        decoded = _decode(text, name)
    except YamlError as exc:
        return [(None, [exc])]
    if "---" not in decoded:
        return [_parse(decoded, name)]  # one document: no marker to split at
    lines = decoded.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if _DOC_START.match(line)]
    if len(starts) < 2 and not (starts and _has_content(lines[: starts[0]])):
        return [_parse(decoded, name)]
    if starts[0] != 0 and not _has_content(lines[: starts[0]]):
        starts[0] = 0  # comments and directives before the first `---` belong to it
    elif starts[0] != 0:
        starts.insert(0, 0)
    found: list[tuple[YamlDocument | None, list[YamlError]]] = []
    for begin, end in zip(starts, [*starts[1:], len(lines)], strict=True):
        chunk = "".join(lines[begin:end])
        if not _has_content(lines[begin:end]):
            continue
        doc, problems = _parse("\n" * begin + chunk, name)
        if doc is not None and doc.data is None and not problems:
            continue
        found.append((doc, problems))
    return found or [(YamlDocument(name, None, {}, {}, {}, decoded), [])]


_DOC_START = re.compile(r"---(?:[ \t]|\r?\n|$)")
_BLANK = re.compile(r"\s*(?:(?:---|\.\.\.)(?=\s|$))?\s*(?:#.*)?|%.*")


def _has_content(lines: list[str]) -> bool:
    return not all(_BLANK.fullmatch(line.rstrip("\r\n")) for line in lines)


def _decode(text: str | bytes, name: str) -> str:
    if isinstance(text, bytes):
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise YamlError(name, None, f"not UTF-8 text (byte {exc.start})") from None
    return text


def _parse(text: str, name: str) -> tuple[YamlDocument | None, list[YamlError]]:
    """One document: itself (None if unreadable) and every problem found in it."""
    loader = _Loader(text)
    reader = _Reader(loader, name)
    problems = reader.problems
    try:
        try:
            node = loader.get_single_node()
            if node is None:
                return YamlDocument(name, None, {}, {}, {}, text), []
            data = reader.read(node, ())
            if any(p.message.startswith(("anchors", "merge", "mapping keys")) for p in problems):
                return None, problems
            if reader.failed is not None:
                raise reader.failed
            values, keys, scalars = reader.values, reader.keys, reader.scalars
        finally:
            loader.dispose()
    except YamlError as exc:
        return None, [*problems, exc]
    except RecursionError:
        return None, [*problems, YamlError(name, None, "nested deeper than can be read")]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Mark(mark.line + 1, mark.column + 1) if mark else None
        message = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        return None, [*problems, YamlError(name, where, message)]
    except yaml.YAMLError as exc:
        return None, [*problems, YamlError(name, None, str(exc))]
    return YamlDocument(name, data, values, keys, scalars, text), problems
