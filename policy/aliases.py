"""Tool names across agent hosts.

One rule pack governs PicoClaw, Claude Code, Agentao and OpenClaw at once only if
`Bash`, `exec`, `run_shell_command` and `shell` are the same tool to it. Rules and
hooks therefore see canonical names; `ToolCall.tool_raw` keeps the host's spelling.
Names no table knows (MCP tools, a host's own plugins) pass through unchanged.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Mapping

from policy.errors import PolicyError

__all__ = [
    "BUILTIN_SPELLINGS",
    "DEFAULT_ALIASES",
    "MCP_ALIASES",
    "AliasConflictError",
    "AliasTable",
]

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


#: MCP servers' tools (Claude Code names them `mcp__<server>__<tool>`) that run a
#: shell command or code, or read and write files, judged as the canonical tool they
#: act like: a shell command under `command`/`cmd`/`script` (or a program and its
#: `args`) as `bash`, code under `code` as the interpreter its `language` names
#: (Python by default, IPython's `!cmd` included), what `interact_with_process` types
#: as Python and shell both, and asked about, keys typed into a terminal
#: (`send_keys`) as a shell line, notebook cells as Python, a CLI's `args` as that CLI's
#: (policy.analysis.access reads the arguments by the shape of their names). Names are
#: globs over the whole tool name; a spelling given exactly, and any alias of the
#: settings or a pack, wins over these (`{mcp__x__run: mcp__x__run}` keeps a tool
#: out). Checked against modelcontextprotocol/servers `src/filesystem`,
#: wonderwhy-er/DesktopCommanderMCP and Claude Code's `mcp__ide__executeCode`.
MCP_ALIASES: Mapping[str, str] = {
    # shell commands and programs
    **dict.fromkeys(
        (
            "mcp__*__run_command",
            "mcp__*__run_shell_command",
            "mcp__*__execute_command",
            "mcp__*__exec_command",
            "mcp__*__shell_command",
            "mcp__*__shell_exec",
            "mcp__*__run_in_terminal",
            "mcp__*__terminal_run",
            "mcp__*__bash",
            "mcp__*__shell",
            "mcp__*__sh",
            "mcp__*__exec",
            "mcp__*__execute",
            "mcp__*__run",
            "mcp__*__start_process",
            "mcp__*__interact_with_process",
            "mcp__*__run_script",
            # keys typed into a terminal (tmux, iTerm, a terminal server's `send_keys`)
            "mcp__*__send_keys",
            "mcp__*__send-keys",
            "mcp__*__sendKeys",
            "mcp__*__send_text",
            "mcp__*__send_input",
            "mcp__*__send_command",
            "mcp__*__write_to_terminal",
            "mcp__*__type_in_terminal",
            "mcp__*__terminal_write",
            "mcp__*__terminal_input",
            "mcp__*__terminal_send",
            # a program named by the tool, its argument list under `args`/`argv`
            "mcp__*__kubectl",
            "mcp__*__helm",
            "mcp__*__oc",
            "mcp__*__docker",
            "mcp__*__podman",
            "mcp__*__terraform",
            # code
            "mcp__*__executeCode",
            "mcp__*__execute_code",
            "mcp__*__run_code",
            "mcp__*__run_python",
            "mcp__*__execute_python",
            "mcp__*__python",
            "mcp__*__eval",
            "mcp__*__evaluate",
            "mcp__*__run_*_code",
            "mcp__*__execute_*_code",
            "mcp__*__exec_*_code",
            "mcp__*__eval_*_code",
            "mcp__*__run_code_*",
            "mcp__*__execute_code_*",
            "mcp__*__run_python_*",
            "mcp__*__run_javascript",
            "mcp__*__run_js",
            "mcp__*__run_node",
            "mcp__*__execute_cell",
            "mcp__*__execute_cells",
            "mcp__*__run_cell",
            "mcp__*__run_cells",
            "mcp__*__execute_notebook_cell",
            "mcp__*__run_notebook_cell",
            "mcp__*__insert_execute_code_cell",
            "mcp__*__append_execute_code_cell",
        ),
        "bash",
    ),
    # files (the filesystem server's names and Desktop Commander's)
    **dict.fromkeys(
        (
            "mcp__*__read_file",
            "mcp__*__read_text_file",
            "mcp__*__read_media_file",
            "mcp__*__read_multiple_files",
        ),
        "read_file",
    ),
    **dict.fromkeys(
        ("mcp__*__write_file", "mcp__*__create_directory", "mcp__*__move_file"), "write_file"
    ),
    **dict.fromkeys(("mcp__*__edit_file", "mcp__*__edit_block"), "edit_file"),
    **dict.fromkeys(
        (
            "mcp__*__list_directory",
            "mcp__*__list_directory_with_sizes",
            "mcp__*__directory_tree",
            "mcp__*__get_file_info",
        ),
        "list_dir",
    ),
    "mcp__*__search_files": "glob",
    # the fetch server's `fetch {url}`
    **dict.fromkeys(("mcp__*__fetch", "mcp__*__fetch_url"), "web_fetch"),
    **dict.fromkeys(("mcp__*__search_code", "mcp__*__start_search"), "grep"),
}

#: Names resolved through the globs, remembered (tool names are few).
_MEMO_SIZE = 4096


class AliasConflictError(PolicyError):
    """One spelling was declared for two different canonical tools."""


class AliasTable:
    """An immutable spelling -> canonical-name table.

    Extending returns a new table, so an engine's table can be swapped atomically
    while calls are being decided with the old one.
    """

    __slots__ = ("_canonical", "_globs", "_matcher", "_memo", "_spelt", "_to_canonical")

    def __init__(
        self, spellings: Mapping[str, Iterable[str]], globs: Mapping[str, str] | None = None
    ) -> None:
        to_canonical: dict[str, str] = {}
        canonical: set[str] = set()
        for name, others in spellings.items():
            canonical.add(name)
            for spelling in (name, *others):
                _add(to_canonical, spelling, name)
        self._to_canonical = to_canonical
        self._canonical = frozenset(canonical)
        self._set_globs(tuple((globs or {}).items()))

    def _set_globs(self, globs: tuple[tuple[str, str], ...]) -> None:
        """Glob spellings, first match wins: (pattern, canonical or the pattern itself,
        which keeps a matching name its own). Their matcher is built when a name no
        spelling names is first asked: one alternation of ≈ 80 globs costs ≈ 5 ms to
        compile, on the start of every one-event hook whose tool is a known one."""
        self._globs = globs
        self._memo: dict[str, str] = {}
        self._matcher: re.Pattern[str] | None = None
        self._spelt: dict[str, tuple[str, ...]] | None = None  # (`spellings`, made once)

    def canonical(self, name: str) -> str:
        """The canonical name of `name`; unknown names come back unchanged."""
        found = self._to_canonical.get(name)
        if found is not None:
            return found
        if not self._globs:
            return name
        found = self._memo.get(name)
        if found is None:
            found = self._glob_canonical(name)
            if len(self._memo) < _MEMO_SIZE:
                self._memo[name] = found
        return found

    def _glob_canonical(self, name: str) -> str:
        matcher = self._matcher
        if matcher is None:  # (two threads may both build it: the same matcher)
            alternatives = (
                f"(?P<g{i}>{fnmatch.translate(p)})" for i, (p, _) in enumerate(self._globs)
            )
            matcher = re.compile("|".join(alternatives))
            self._matcher = matcher
        match = matcher.match(name)
        if match is None or match.lastgroup is None:
            return name
        pattern, target = self._globs[int(match.lastgroup[1:])]
        return name if target == pattern else target

    def knows(self, name: str) -> bool:
        """True when `name` is a canonical name or a known spelling of one."""
        return name in self._to_canonical or self.canonical(name) != name

    @property
    def canonical_names(self) -> frozenset[str]:
        return self._canonical

    def spellings(self, canonical: str) -> tuple[str, ...]:
        """Every spelling that maps to `canonical`, the canonical name first."""
        spelt = self._spelt
        if spelt is None:  # (`policy check` asks of every tool: one pass, not one each)
            others: dict[str, list[str]] = {}
            for spelling, name in self._to_canonical.items():
                if spelling != name:
                    others.setdefault(name, []).append(spelling)
            spelt = {name: (name, *sorted(found)) for name, found in others.items()}
            self._spelt = spelt
        return spelt.get(canonical) or (canonical,)

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
        globs: list[tuple[str, str]] = []
        for spelling, target in aliases.items():
            if "*" in spelling or "?" in spelling or "[" in spelling:  # (a glob's characters)
                # a glob: ahead of this table's own, so settings and packs override
                # the shipped ones; mapped to itself it keeps matching names their own
                resolved = target if target == spelling else table.get(target, target)
                if resolved != spelling:
                    canonical.add(resolved)
                    table.setdefault(resolved, resolved)
                globs.append((spelling, resolved))
                continue
            target = table.get(target, target)
            canonical.add(target)
            table.setdefault(target, target)
            _add(table, spelling, target)
        new._to_canonical = table
        new._canonical = frozenset(canonical)
        new._set_globs((*globs, *(g for g in self._globs if g[0] not in dict(globs))))
        return new

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, AliasTable)
            and other._to_canonical == self._to_canonical
            and other._globs == self._globs
        )

    def __hash__(self) -> int:
        return hash((frozenset(self._to_canonical.items()), self._globs))


def _add(table: dict[str, str], spelling: str, canonical: str) -> None:
    if not spelling:
        raise AliasConflictError("a tool alias cannot be empty")
    existing = table.get(spelling)
    if existing is not None and existing != canonical:
        raise AliasConflictError(
            f"tool alias {spelling!r} already means {existing!r}; cannot also mean {canonical!r}"
        )
    table[spelling] = canonical


DEFAULT_ALIASES = AliasTable(BUILTIN_SPELLINGS, MCP_ALIASES)
