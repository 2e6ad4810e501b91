"""Tool names across agent hosts.

One rule pack governs PicoClaw, Claude Code, Agentao and OpenClaw at once only if
`Bash`, `exec`, `run_shell_command` and `shell` are the same tool to it. Rules and
hooks therefore see canonical names; `ToolCall.tool_raw` keeps the host's spelling.
Names no table knows (MCP tools, a host's own plugins) pass through unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from policy.errors import PolicyError

__all__ = ["BUILTIN_SPELLINGS", "DEFAULT_ALIASES", "AliasConflictError", "AliasTable"]

#: canonical name -> the spellings hosts use for it (Claude Code, PicoClaw,
#: Agentao, OpenClaw, and older names seen in their docs).
BUILTIN_SPELLINGS: Mapping[str, tuple[str, ...]] = {
    "bash": ("Bash", "exec", "run_shell_command", "shell"),
    "read_file": ("Read", "file_read"),
    "write_file": ("Write", "file_write"),
    "edit_file": ("Edit", "MultiEdit", "NotebookEdit", "replace"),
    "apply_patch": ("ApplyPatch",),
    "list_dir": ("LS", "list_directory"),
    "grep": ("Grep", "search_file_content"),
    "glob": ("Glob",),
    "web_fetch": ("WebFetch",),
    "web_search": ("WebSearch",),
}


class AliasConflictError(PolicyError):
    """One spelling was declared for two different canonical tools."""


class AliasTable:
    """An immutable spelling -> canonical-name table.

    Extending returns a new table, so an engine's table can be swapped atomically
    while calls are being decided with the old one.
    """

    __slots__ = ("_canonical", "_to_canonical")

    def __init__(self, spellings: Mapping[str, Iterable[str]]) -> None:
        to_canonical: dict[str, str] = {}
        canonical: set[str] = set()
        for name, others in spellings.items():
            canonical.add(name)
            for spelling in (name, *others):
                _add(to_canonical, spelling, name)
        self._to_canonical = to_canonical
        self._canonical = frozenset(canonical)

    def canonical(self, name: str) -> str:
        """The canonical name of `name`; unknown names come back unchanged."""
        return self._to_canonical.get(name, name)

    def knows(self, name: str) -> bool:
        """True when `name` is a canonical name or a known spelling of one."""
        return name in self._to_canonical

    @property
    def canonical_names(self) -> frozenset[str]:
        return self._canonical

    def spellings(self, canonical: str) -> tuple[str, ...]:
        """Every spelling that maps to `canonical`, the canonical name first."""
        others = sorted(
            s for s, c in self._to_canonical.items() if c == canonical and s != canonical
        )
        return (canonical, *others)

    def extend(self, aliases: Mapping[str, str]) -> AliasTable:
        """A new table with `aliases` ({spelling: canonical}) added.

        A spelling that already means another tool is an error: silently
        re-pointing `shell` away from `bash` would take it out of every bash rule.
        """
        if not aliases:
            return self
        new = AliasTable.__new__(AliasTable)
        table = dict(self._to_canonical)
        canonical = set(self._canonical)
        for spelling, target in aliases.items():
            target = table.get(target, target)
            canonical.add(target)
            table.setdefault(target, target)
            _add(table, spelling, target)
        new._to_canonical = table
        new._canonical = frozenset(canonical)
        return new

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AliasTable) and other._to_canonical == self._to_canonical

    def __hash__(self) -> int:
        return hash(frozenset(self._to_canonical.items()))


def _add(table: dict[str, str], spelling: str, canonical: str) -> None:
    if not spelling:
        raise AliasConflictError("a tool alias cannot be empty")
    existing = table.get(spelling)
    if existing is not None and existing != canonical:
        raise AliasConflictError(
            f"tool alias {spelling!r} already means {existing!r}; cannot also mean {canonical!r}"
        )
    table[spelling] = canonical


DEFAULT_ALIASES = AliasTable(BUILTIN_SPELLINGS)
