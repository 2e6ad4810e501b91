"""`policy fmt`: pack files in one canonical layout, their comments kept.

Keys come in the order of the fields of the pack models (`apiVersion`, `kind`,
`name`, `revision`, ... `rules`, `tests`; each rule's keys in `Rule`'s order), read
from the models themselves, so a field added there is placed without touching this
module. Keys the models do not know (`policy check` reports them) follow the known
ones in their own order; free-form maps (`variables`, `aliases`, `set`, a test's
`call`) keep theirs. Indentation is two spaces, list items indented under their
key (`rules:` / `  - id: ...`), as the shipped packs are written.

The file is read and written with ruamel.yaml's round-trip mode
(docs/decisions/0016-ruamel-yaml.md), which keeps comments, quoting and block
scalars (`when: >-`) as written. ruamel.yaml is imported by this module only, and
this module by `policy fmt` only: never on the decision path, nor by `policy check`.

ruamel attaches the comment lines above a key to the end of the value before it;
moving keys moves those lines back above the key they were written over. A result is
written only when it holds the same data as the original (read again with the YAML
loader the engine uses) and every comment line of it: anything else is an error and
the file is left as it was.
"""

from __future__ import annotations

import io
import os
import tempfile
import types
from collections import Counter
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedBase, CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark, MarkedYAMLError, YAMLError
from ruamel.yaml.scalarstring import FoldedScalarString, LiteralScalarString
from ruamel.yaml.tokens import CommentToken

from policy._lazy_dataclass import dataclass
from policy.errors import PolicyError
from policy.pack_node import Node
from policy.packs.diagnostics import Diagnostic
from policy.packs.schema import RulePack

__all__ = ["FormatError", "FormatResult", "format_file", "format_paths", "format_text"]

#: How a field holds a model: itself, a list of them, or a map whose values are them.
_Holding = Literal["node", "list", "dict"]


class FormatError(PolicyError):
    """A file cannot be formatted; `diagnostic` says where and why."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(str(diagnostic))
        self.diagnostic = diagnostic


@dataclass(frozen=True, slots=True)
class FormatResult:
    """One file: whether formatting changes it, or why it could not be formatted."""

    path: Path
    changed: bool
    error: Diagnostic | None = None


def format_paths(paths: Iterable[str | os.PathLike[str]], *, check: bool) -> list[FormatResult]:
    """Format every pack file under `paths` (as `policy check` finds them: other tools'
    YAML under a directory is left alone, a file named is always formatted), in place
    unless `check`. A path that does not exist raises PackError."""
    from policy.packs.load import discover_walked

    return [format_file(path, check=check) for path in discover_walked(paths)[0]]


def format_file(path: Path, *, check: bool) -> FormatResult:
    """Format one file, in place unless `check`; an unreadable or unformattable file is
    reported in the result and left untouched."""
    try:
        original = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        return FormatResult(
            path, False, _error(str(path), 1, 1, "unreadable", f"cannot read: {why}")
        )
    try:
        formatted = format_text(original, str(path))
    except FormatError as exc:
        return FormatResult(path, False, exc.diagnostic)
    changed = formatted != original
    if changed and not check:
        _replace(path, formatted)
    return FormatResult(path, changed)


def format_text(text: str, source: str = "<text>") -> str:
    """The canonical form of one pack file's text; FormatError at file:line:col when it
    is not YAML, holds more than one document, or would not survive formatting."""
    yaml = _yaml()
    try:
        data = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        message = _yaml_message(exc)
        code = "duplicate-key" if "duplicate key" in message else "yaml-syntax"
        raise FormatError(_error(source, line, col, code, message)) from None
    except YAMLError as exc:
        raise FormatError(_error(source, 1, 1, "yaml-syntax", str(exc))) from None
    if data is None:
        return text  # empty, or comments only: nothing to order
    before = _comment_lines(data)
    if isinstance(data, CommentedMap):
        try:
            _canonical(data, RulePack)
        except _Unmovable:
            raise FormatError(
                _error(
                    source,
                    1,
                    1,
                    "fmt-unsafe",
                    "a comment sits where formatting cannot move it; the file is left as it is",
                )
            ) from None
    out = io.StringIO()
    yaml.dump(data, out)
    formatted = out.getvalue()
    if formatted != text:  # an unchanged file needs no proof (and most files are)
        _same_meaning(text, formatted, before, source)
    return formatted


# ------------------------------------------------------------------ the order


@cache
def _fields(model: type[Node]) -> tuple[dict[str, int], dict[str, tuple[_Holding, type[Node]]]]:
    """A model's YAML keys with their position, and the keys that hold models."""
    order: dict[str, int] = {}
    nested: dict[str, tuple[_Holding, type[Node]]] = {}
    for index, (name, field) in enumerate(model.model_fields.items()):
        held = _held_model(field.annotation)
        for key in {name, field.alias or name}:  # populate_by_name: both are read
            order[key] = index
            if held is not None:
                nested[key] = held
    return order, nested


def _held_model(annotation: Any) -> tuple[_Holding, type[Node]] | None:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _held_model(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        for arg in get_args(annotation):
            held = _held_model(arg)
            if held is not None:
                return held
        return None
    if origin in (list, dict):
        inner = get_args(annotation)[-1]
        if isinstance(inner, type) and issubclass(inner, Node):
            return ("list" if origin is list else "dict"), inner
        return None
    if isinstance(annotation, type) and issubclass(annotation, Node):
        return "node", annotation
    return None


def _canonical(node: CommentedMap, model: type[Node]) -> None:
    """Put `node`'s keys (and those of the models inside it) in the model's order."""
    order, nested = _fields(model)
    for key, value in node.items():
        held = nested.get(key) if isinstance(key, str) else None
        if held is None:
            continue
        holding, inner = held
        if holding == "node" and isinstance(value, CommentedMap):
            _canonical(value, inner)
        elif holding == "list" and isinstance(value, CommentedSeq):
            for item in value:
                if isinstance(item, CommentedMap):
                    _canonical(item, inner)
        elif holding == "dict" and isinstance(value, CommentedMap):
            for item in value.values():
                if isinstance(item, CommentedMap):
                    _canonical(item, inner)
    keys = list(node)
    unknown = len(order)
    wanted = sorted(keys, key=lambda k: order.get(k, unknown) if isinstance(k, str) else unknown)
    if wanted != keys:
        _reorder(node, keys, wanted)


def _reorder(node: CommentedMap, keys: list[Any], wanted: list[Any]) -> None:
    """Reorder `node` to `wanted`, taking each key's comment lines along.

    What follows a key's value is one comment token: the end of its last line (an
    end-of-line comment, or just the line break) and then the lines above the next
    key. The first part stays with the key; the rest goes with the next key, or stays
    at the end of the map when the key was the last one.
    """
    eol: dict[int, str] = {}
    lead: dict[int, str] = {}
    for index, key in enumerate(keys):
        text = _tail_text(node, key)
        cut = text.find("\n") + 1 if "\n" in text else len(text)
        eol[index] = text[:cut]
        lead[index + 1] = text[cut:]  # lines above the next key (or the map's end)
    lead[0] = ""  # above the first key: the map's own comment, kept outside it
    trailing = lead.pop(len(keys))
    position = {key: index for index, key in enumerate(keys)}
    for key in wanted:
        node.move_to_end(key)
    for place, key in enumerate(wanted):
        following = lead[position[wanted[place + 1]]] if place + 1 < len(wanted) else trailing
        if place == 0 and lead[position[key]]:
            _add_head(node, lead[position[key]])  # above the map's first key
        own = eol[position[key]]
        if following and not own.endswith("\n"):
            own += "\n"
        _set_tail_text(node, key, own + following)


def _add_head(node: CommentedMap, text: str) -> None:
    """Comment lines above a map's first key (after its parent's key, or its `-`)."""
    if node.ca.comment is not None and isinstance(node.ca.comment[0], CommentToken):
        # the end of the parent key's line (`builtins:  # ...`) and the lines after it
        node.ca.comment[0].value += text
        return
    if node.ca.comment is None:
        node.ca.comment = [None, []]
    if node.ca.comment[1] is None:
        node.ca.comment[1] = []
    node.ca.comment[1].append(CommentToken(text, CommentMark(0), None))


def _tail_owner(container: CommentedMap | CommentedSeq, key: Any) -> tuple[Any, Any, int]:
    """Where the comment after `container[key]`'s value lives: ruamel keeps it on the
    deepest last item of a block collection, else on the item itself."""
    value = container[key]
    if isinstance(value, CommentedMap | CommentedSeq) and len(value) and not _flow(value):
        last = next(reversed(value)) if isinstance(value, CommentedMap) else len(value) - 1
        return _tail_owner(value, last)
    return container, key, 2 if isinstance(container, CommentedMap) else 0


def _flow(value: CommentedMap | CommentedSeq) -> bool:
    return bool(value.fa.flow_style())


def _tail_text(container: CommentedMap, key: Any) -> str:
    """The text after `container[key]`'s value, from the end of its last line."""
    owner, item, slot = _tail_owner(container, key)
    entry = owner.ca.items.get(item)
    token = entry[slot] if entry is not None else None
    if token is None:
        return ""
    if not isinstance(token, CommentToken):
        raise _Unmovable()
    text = str(token.value)
    if _block_scalar(owner[item]):
        # A block scalar (`when: >-`) ends its own last line; the emitter indents the
        # first comment line by the token's column.
        indent = " " * token.column if text[:1] not in ("", "\n") else ""
        return "\n" + indent + text
    return text


def _set_tail_text(container: CommentedMap, key: Any, text: str) -> None:
    owner, item, slot = _tail_owner(container, key)
    entry = owner.ca.items.get(item)
    token = entry[slot] if entry is not None else None
    if _block_scalar(owner[item]):
        rest = text[1:] if text.startswith("\n") else text
        if entry is not None:
            entry[slot] = None
        if rest:
            body = rest.lstrip(" ")
            entry = _entry(owner, item)
            entry[slot] = CommentToken(body, CommentMark(len(rest) - len(body)), None)
        elif entry is not None and not any(entry):
            del owner.ca.items[item]
        return
    if isinstance(token, CommentToken):
        token.value = text or "\n"  # shared with a flow value's own record: edit in place
        return
    if not text or text == "\n":
        return
    _entry(owner, item)[slot] = CommentToken(text, CommentMark(0), None)


def _entry(owner: CommentedMap | CommentedSeq, item: Any) -> list[Any]:
    entry: list[Any] | None = owner.ca.items.get(item)
    if entry is None:
        entry = [None, None, None, None] if isinstance(owner, CommentedMap) else [None, None]
        owner.ca.items[item] = entry
    return entry


def _block_scalar(value: Any) -> bool:
    return isinstance(value, LiteralScalarString | FoldedScalarString)


class _Unmovable(Exception):
    """A comment ruamel records in a shape this module does not move."""


# ------------------------------------------------------------- the guarantees


def _same_meaning(original: str, formatted: str, comments: Counter[str], source: str) -> None:
    """Fail unless `formatted` holds the data and the comment lines of `original`."""
    import yaml as pyyaml

    loader = getattr(pyyaml, "CSafeLoader", pyyaml.SafeLoader)
    try:
        same = pyyaml.load(original, Loader=loader) == pyyaml.load(formatted, Loader=loader)
    except pyyaml.YAMLError:
        same = False
    if not same:
        raise FormatError(
            _error(
                source,
                1,
                1,
                "fmt-unsafe",
                "formatting would change what the file says; "
                "the file is left as it is (please report this)",
            )
        )
    kept = _comment_lines(_yaml().load(formatted))
    if kept != comments:
        lost = ", ".join(repr(line) for line in (comments - kept)) or "their order"
        raise FormatError(
            _error(
                source,
                1,
                1,
                "fmt-unsafe",
                f"formatting would lose comments ({lost}); the file is left as it is",
            )
        )


def _comment_lines(data: Any) -> Counter[str]:
    """Every comment line in a loaded document (each token counted once)."""
    seen: set[int] = set()
    found: Counter[str] = Counter()
    for token in _tokens(data):
        if id(token) in seen:
            continue
        seen.add(id(token))
        for line in str(token.value).splitlines():
            text = line.strip()
            if text.startswith("#"):
                found[text] += 1
    return found


def _tokens(value: Any) -> Iterator[CommentToken]:
    if isinstance(value, CommentedBase):
        yield from _tokens_in(value.ca.comment)
        yield from _tokens_in(list(value.ca.items.values()))
        yield from _tokens_in(getattr(value.ca, "end", None))
    if isinstance(value, dict):
        for item in value.values():
            yield from _tokens(item)
    elif isinstance(value, list):
        for item in value:
            yield from _tokens(item)


def _tokens_in(value: Any) -> Iterator[CommentToken]:
    if isinstance(value, CommentToken):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _tokens_in(item)


# ------------------------------------------------------------------- helpers


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True  # a CEL string keeps the quotes (and escapes) it had
    yaml.width = 4096  # never fold a long line of CEL
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _yaml_message(exc: MarkedYAMLError) -> str:
    parts = [exc.context, exc.problem]
    return "; ".join(str(part) for part in parts if part) or "not valid YAML"


def _error(source: str, line: int, col: int, code: str, message: str) -> Diagnostic:
    return Diagnostic(source, line, col, "error", code, message)


def _replace(path: Path, text: str) -> None:
    """Write `text` over `path` atomically: a reader sees the old file or the new one.
    A symbolic link is followed: its target is formatted and the link stays a link."""
    path = path.resolve()
    mode = path.stat().st_mode & 0o7777
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".fmt", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
