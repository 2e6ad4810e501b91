"""Which paths a tool call touches, for the autonomy and contract builtins.

Both ask one question of a call — which files does it reach — so both take the
answer from the call's facts (policy.facts): every path any tool reads, writes or
deletes, located where it would really act (`cd` followed, `dd if=/of=`, `-C DIR`,
`git -C`, `tar -C`, `--output=`, interpreter one-liners, `Glob`/`Grep` patterns,
`MultiEdit` edits, `apply_patch` files), plus the call's own working directory (the
agent chooses it, so it is judged too) and the values of the arguments a pack names
in `path_args` (tools the analysis does not know).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from policy._lazy_dataclass import dataclass
from policy.facts import CallFacts, FactsContext, facts_of, home_dir
from policy.model import ToolCall

__all__ = [
    "DEFAULT_PATH_ARGS",
    "Touched",
    "path_arguments",
    "shell_command",
    "touched",
]

DEFAULT_PATH_ARGS: tuple[str, ...] = (
    "path",
    "paths",
    "file_path",
    "filepath",
    "filename",
    "file",
    "notebook_path",
    "cwd",
    "working_directory",
    "workdir",
    "directory",
    "dir",
    "target",
    "destination",
    "source",
)


@dataclass(frozen=True, slots=True)
class Touched:
    """The paths a call reaches (absolute, or `?...` when their place is unknown),
    and its facts."""

    paths: tuple[str, ...]
    facts: CallFacts


def path_arguments(call: ToolCall, path_args: Mapping[str, Sequence[str]]) -> list[str]:
    """The values of the arguments that hold paths for `call`'s tool (strings, or
    lists of strings)."""
    names = path_args.get(call.tool) or path_args.get("*") or DEFAULT_PATH_ARGS
    found: list[str] = []
    for name in names:
        value = call.args.get(name)
        if isinstance(value, str) and value:
            found.append(value)
        elif isinstance(value, (list, tuple)):
            found.extend(v for v in value if isinstance(v, str) and v)
    return found


def shell_command(call: ToolCall) -> str | None:
    """The command line of a shell tool call, or None when it has none."""
    value: Any = call.args.get("command")
    return value if isinstance(value, str) else None


def touched(
    call: ToolCall,
    context: FactsContext,
    path_args: Mapping[str, Sequence[str]],
    base: str,
    *,
    follow_symlinks: bool = True,
) -> Touched:
    """Everything `call` reaches, its relative paths located against its cwd, or
    `base` (the workspace) when it names none. A tool the analysis does not know,
    named in `path_args`, reaches what those arguments name and nothing else; with
    `follow_symlinks` false, paths are judged as written (no links followed, no
    globs expanded)."""
    from policy.analysis import access as _access
    from policy.analysis.operands import locate

    if follow_symlinks and (call.cwd or not base):
        facts = facts_of(call, context)  # the very facts the packs judge this call on
    else:
        # judged from the workspace (the call names no cwd) or as written: facts of
        # their own, without building a second call
        home = home_dir()
        located = _access.of_call(
            call.tool,
            call.args,
            call.cwd or base,
            home,
            disk=follow_symlinks,
            tool_raw=call.tool_raw,
        )
        facts = CallFacts(located, context.workspace or base, home)
    access = facts.access
    found: list[str] = []
    known = call.tool in _access.KNOWN_TOOLS
    if known or call.tool not in path_args:
        found += [*access.reads, *access.lists, *access.writes, *access.deletes]
    cwd = call.cwd or base
    cwd = cwd if cwd.startswith("/") else ""
    if cwd:
        found.append(cwd)
    if not known or call.tool in path_args:
        # a tool the analysis does not know: what its path arguments name
        for raw in path_arguments(call, path_args):
            found.append(locate(raw, cwd, facts.home))
    return Touched(tuple(dict.fromkeys(p for p in found if p)), facts)
