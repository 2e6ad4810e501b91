"""A shell line's lexical facts, kept for the next one-event process: where they are
kept (`in_use`) and what they are kept as (`encoded`, `decoded`).

Claude Code and Agentao start `policy hook` once per tool call, and agents repeat
their commands (`git status`, `ls`, the same test command). The packs' answers for a
call seen before are kept already (policy.packs.recall.AnswerStore), but finding them
needs the call's facts, and the facts need the line's analysis: tree-sitter, the walk
and every program's module, ≈ 12 ms of imports and ≈ 3 ms of work a start — a fifth
of a repeated call. What the analysis reads from the line alone (its lexical facts,
policy.analysis.effects `_lexical`) is a pure function of the line, the directory it
starts in and the user's home, for given code; what the disk says (links, globs, a
repository's config) is looked at again at every call (`effects._on_disk`), as it is
for a line kept in memory. So `effects` asks `in_use` — a store set by the engine of
a one-event hook (policy.packs.line_store, which says where and on what terms) — for
each line its memo keeps, and keeps there what it worked out.

A line read back is made of plain strings: the analysis marks some words with `str`
subclasses (a quoted brace, an unknown value), which only the lexical analysis reads.
This module imports nothing of the analysis until a line is encoded or decoded.
"""

from __future__ import annotations

import functools
from typing import Any, Protocol

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policy.analysis.effects import Line

__all__ = ["LineStore", "decoded", "encoded", "in_use", "keep_lines_in"]


class LineStore(Protocol):
    """Where lines' lexical facts are kept (policy.packs.line_store.KeptLines)."""

    def get(self, command: str, cwd: str, home: str) -> Line | None: ...

    def keep(self, command: str, cwd: str, home: str, line: Line) -> None: ...


#: The store this process reads lines from and keeps them in (`keep_lines_in`): read
#: by policy.analysis.effects for the lines its memo keeps. None: in memory only.
in_use: LineStore | None = None


def keep_lines_in(store: LineStore | None) -> None:
    """Keep the lexical facts of the lines this process analyses in `store` for the next
    process, and read them back from there (None: no longer)."""
    global in_use
    in_use = store


@functools.cache
def _kinds() -> tuple[tuple[str, str], ...]:
    """Each field of a command, and the kind of its value: "tuple" (of strings), "str"
    or "bool" (KeyError for a field of another type: then no line is kept or read)."""
    from policy._lazy_dataclass import fields
    from policy.analysis.effects import Command

    kinds = {"tuple[str, ...]": "tuple", "str": "str", "bool": "bool"}
    return tuple((f.name, kinds[str(f.type)]) for f in fields(Command))


def encoded(line: Line) -> dict[str, Any]:
    """`line` as plain data (JSON's), with whether each command may connect
    (`access.may_connect_all`, read back into `Line.kept`); KeyError when a field of a
    command is of a kind this does not write."""
    from policy.analysis.access import may_connect_all

    commands = [
        [_plain(getattr(command, name), kind) for name, kind in _kinds()]
        for command in line.commands
    ]
    return {
        "commands": commands,
        # (what access asks of the programs' tables about each, answered now)
        "connects": list(may_connect_all(line)),
        "parse_error": str.__str__(line.parse_error),
        "limit": str.__str__(line.limit),
        "cost": line.cost,
        "clocked": line.clocked,
        "built": line.built,
    }


def _plain(value: Any, kind: str) -> Any:
    """A field's value as JSON holds it (the analysis's words are `str` subclasses that
    mark how they were spelt; nothing after the lexical facts reads the marks)."""
    if kind == "tuple":
        return [str.__str__(item) for item in value]
    if kind == "str":
        return str.__str__(value)
    return bool(value)


def decoded(data: Any) -> Line | None:
    """The line `data` holds, or None when it is not exactly what `encoded` writes."""
    from policy.analysis.access import MAY_CONNECT
    from policy.analysis.effects import Command, Line

    if not isinstance(data, dict) or set(data) != _LINE_KEYS:
        return None
    texts = (data["parse_error"], data["limit"])
    numbers = (data["cost"], data["built"])
    if not all(type(text) is str for text in texts) or type(data["clocked"]) is not bool:
        return None
    if not all(type(number) is int and number >= 0 for number in numbers):
        return None
    rows, connects = data["commands"], data["connects"]
    if type(rows) is not list or type(connects) is not list or len(connects) != len(rows):
        return None
    if not all(type(flag) is bool for flag in connects):
        return None
    kinds = _kinds()
    commands = []
    for row in rows:
        if type(row) is not list or len(row) != len(kinds):
            return None
        values: dict[str, Any] = {}
        for (name, kind), value in zip(kinds, row, strict=True):
            if kind == "tuple":
                if type(value) is not list or not all(type(item) is str for item in value):
                    return None
                values[name] = tuple(value)
            elif type(value) is not (str if kind == "str" else bool):
                return None
            else:
                values[name] = value
        commands.append(Command(**values))
    line = Line(
        tuple(commands),
        data["parse_error"],
        data["limit"],
        data["cost"],
        data["clocked"],
        data["built"],
    )
    line.kept[MAY_CONNECT] = tuple(connects)
    return line


_LINE_KEYS = frozenset({"commands", "connects", "parse_error", "limit", "cost", "clocked", "built"})
