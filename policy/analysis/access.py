"""Which files a tool call touches, for every tool, not only the shell.

A policy that judges `Bash` by the paths its commands read but `Read`, `Glob`,
`Grep`, `MultiEdit`, `NotebookEdit` or `apply_patch` by one argument (or not at all)
is walked around through the other tools. Here every call gets the same answer:
the paths it reads, writes and deletes, located against the call's working
directory like a shell command's (`effects`), with a recursive read written as
`DIR/**` so that "does this read reach `~/.ssh`" has one answer for `cat`, `grep -r`,
`Grep {"path": "~"}` and `Glob {"pattern": "/home/*/.ssh/*"}`.

Shell tools are analysed by `effects`; their facts are merged in here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from policy.analysis import effects
from policy.analysis.operands import host_of, is_unknown, locate
from policy.analysis.shell import MAX_ARGUMENT_VALUES, too_many_paths

__all__ = ["KNOWN_TOOLS", "SHELL_TOOLS", "Access", "of_call", "shell_start"]

#: Canonical tools whose `command` argument is a shell command line.
SHELL_TOOLS = frozenset({"bash"})

#: Argument names that hold a path, in any tool we do not know better.
_PATH_KEYS = frozenset(
    {
        "path",
        "paths",
        "file_path",
        "filePath",
        "filepath",
        "filename",
        "file",
        "files",
        "notebook_path",
        "absolute_path",
        "target_file",
        "target",
        "destination",
        "source",
        "directory",
        "dir",
        "dir_path",
        "folder",
        "old_path",
        "new_path",
        "src",
        "dst",
    }
)
_DIRECTORY_KEYS = ("cwd", "working_dir", "workdir", "working_directory", "directory", "dir")
_READERS = frozenset({"read_file", "list_dir", "grep", "glob", "web_fetch", "web_search"})
_WRITERS = frozenset({"write_file", "edit_file", "apply_patch"})
#: Tools whose arguments this module reads by what they are.
#: Tools that show names, never contents.
_LISTERS = frozenset({"glob", "list_dir"})
KNOWN_TOOLS = SHELL_TOOLS | _READERS | _WRITERS
_PATCH_FILE = re.compile(
    r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$"
    r"|^(?:---|\+\+\+) (?:[ab]/)?(.+?)(?:\t.*)?\s*$|^diff --git a/(\S+) b/(\S+)",
    re.MULTILINE,
)
_PATCH_DELETE = re.compile(r"^\*\*\* Delete File: (.+?)\s*$|^\+\+\+ /dev/null", re.MULTILINE)
#: Values looked at in one call's arguments; a call with more is refused (every value
#: is read: a path after the first few thousand must not go unseen).
_MAX_WALK = MAX_ARGUMENT_VALUES


@dataclass(frozen=True, slots=True)
class Access:
    """Everything one call touches. `commands` are the shell commands' facts."""

    commands: tuple[effects.Command, ...]
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    deletes: tuple[str, ...]
    hosts: tuple[str, ...]
    sends: tuple[str, ...]
    parse_error: str = ""
    #: Paths whose names and metadata it shows, never contents (`ls`, `find`, Glob).
    lists: tuple[str, ...] = ()
    #: Why the analysis gave up ("" when it did not): a cap it met, named, or an
    #: error it failed with (`effects.Line.limit`). The rest is then not what the call
    #: does, and a policy must refuse the call (`policy.facts` does).
    limit: str = ""

    def to_cel(self) -> dict[str, Any]:
        return {
            "reads": list(self.reads),
            "lists": list(self.lists),
            "writes": list(self.writes),
            "deletes": list(self.deletes),
            "hosts": list(self.hosts),
            "sends": list(self.sends),
            "parse_error": self.parse_error,
        }


def shell_start(args: Mapping[str, Any], cwd: str, home: str) -> str:
    """Where a shell tool's command starts: its own directory argument (PicoClaw's
    `working_dir`), located against the call's cwd, or the call's cwd."""
    for key in _DIRECTORY_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            located = locate(value, cwd or "", home)
            return "" if is_unknown(located) else located
    return cwd if cwd.startswith("/") else ""


def of_call(
    tool: str, args: Mapping[str, Any], cwd: str, home: str, *, disk: bool = True
) -> Access:
    """The access of one call of canonical tool `tool` made from `cwd` (with `disk`:
    globs expanded and links resolved as of now)."""
    base = cwd if cwd.startswith("/") else ""
    if tool in SHELL_TOOLS:
        command = args.get("command")
        if isinstance(command, str):
            start = shell_start(args, base, home)
            line = effects.analyze(command, start, home, disk=disk)
            if line.limit:
                return Access((), (), (), (), (), (), line.parse_error, limit=line.limit)
            reads = [start] if start else []
            writes: list[str] = []
            deletes: list[str] = []
            hosts: list[str] = []
            sends: list[str] = []
            lists: list[str] = []
            for c in line.commands:
                reads += c.reads
                lists += c.lists
                writes += c.writes
                deletes += c.deletes
                hosts += c.hosts
                sends += c.sends
            return Access(
                line.commands,
                _unique(reads),
                _unique(writes),
                _unique(deletes),
                _unique(hosts),
                _unique(sends),
                line.parse_error,
                _unique(lists),
            )
    try:
        reads, writes, deletes, hosts = _tool_paths(tool, args)
    except _TooManyValues as exc:
        return Access((), (), (), (), (), (), str(exc), limit=str(exc))
    f = _Located(base, home)
    located = (f.all(reads), f.all(writes), f.all(deletes))
    refused = too_many_paths(p for found in located for p in found)
    if refused:
        return Access((), (), (), (), (), (), refused, limit=refused)
    r, w, d = (_disk(p, home) if disk else _unique(p) for p in located)
    refused = too_many_paths((*r, *w, *d), on_disk=disk)
    if refused:
        return Access((), (), (), (), (), (), refused, limit=refused)
    if tool in _LISTERS:
        return Access((), (), w, d, _unique(hosts), (), lists=r)
    return Access((), r, w, d, _unique(hosts), ())


class _Located:
    def __init__(self, cwd: str, home: str) -> None:
        self.cwd = cwd
        self.home = home

    def all(self, words: Iterable[str]) -> list[str]:
        return [locate(w, self.cwd, self.home) for w in words if w]


def _disk(paths: list[str], home: str) -> tuple[str, ...]:
    return effects.resolve_all(_unique(paths), home)


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


def _tool_paths(
    tool: str, args: Mapping[str, Any]
) -> tuple[list[str], list[str], list[str], list[str]]:
    reads: list[str] = []
    writes: list[str] = []
    deletes: list[str] = []
    hosts: list[str] = []
    if tool == "glob":
        root = _text(args, "path", "dir_path", "directory") or "."
        pattern = _text(args, "pattern", "glob") or "*"
        reads += [root, _join(root, pattern)]
        return reads, writes, deletes, hosts
    if tool == "grep":
        root = _text(args, "path", "dir_path", "directory") or "."
        reads += [root, _join(root, "**")]
        for key in ("glob", "include"):
            pattern = _text(args, key)
            if pattern:
                reads.append(_join(root, pattern if "/" in pattern else "**/" + pattern))
        return reads, writes, deletes, hosts
    if tool == "list_dir":
        reads.append(_text(args, "path", "dir_path", "directory") or ".")
        return reads, writes, deletes, hosts
    if tool in ("web_fetch", "web_search"):
        url = _text(args, "url")
        if url:
            hosts.append(host_of(url))
            if url.startswith("file:"):
                reads.append(url)
        return reads, writes, deletes, hosts
    if tool == "apply_patch":
        text = _text(args, "input", "patch", "diff", "content")
        for match in _PATCH_FILE.finditer(text):
            name = next(g for g in match.groups() if g)
            if name != "/dev/null":
                writes.append(name)
        for match in _PATCH_DELETE.finditer(text):
            if match[1]:
                deletes.append(match[1])
    found = list(_path_values(args))
    if tool in _WRITERS:
        writes += found
        if tool == "edit_file":
            reads += found  # an edit finds the text it replaces: it reads the file
    elif tool == "read_file" or tool in _READERS:
        reads += found
    else:
        # a tool we do not know: whatever it names may be read or written
        reads += found
        writes += [p for p in found if tool not in _READERS]
    return reads, writes, deletes, hosts


def _text(args: Mapping[str, Any], *keys: str) -> str:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _join(root: str, pattern: str) -> str:
    if pattern.startswith(("/", "~")):
        return pattern
    return root.rstrip("/") + "/" + pattern


class _TooManyValues(Exception):
    pass


def _path_values(value: Any) -> Iterable[str]:
    """Strings under a path-like key anywhere in the arguments (`edits[].file_path`)."""
    stack: list[tuple[str, Any]] = [("", value)]
    seen = 0
    while stack:
        if seen >= _MAX_WALK:
            raise _TooManyValues(
                f"the arguments hold more than {_MAX_WALK} values "
                "(cap: analysis.max_argument_values)"
            )
        key, current = stack.pop()
        seen += 1
        if isinstance(current, str):
            if key in _PATH_KEYS and current:
                yield current
        elif isinstance(current, Mapping):
            stack.extend((str(k), v) for k, v in current.items())
        elif isinstance(current, list | tuple):
            stack.extend((key, v) for v in current)
