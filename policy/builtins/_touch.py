"""Which paths a tool call touches: its path arguments, and the paths in its shell command.

autonomy and contract_scope ask the same question of a call, so they share the
answer. OpenClaw reads one argument (`path`, or `cwd` for git); hosts name it
`file_path` (Claude Code), `notebook_path`, `working_directory`, ... so the names
are a table, extendable per tool in the pack.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from policy.analysis import shell
from policy.model import ToolCall

__all__ = [
    "DEFAULT_PATH_ARGS",
    "expanded_by_the_shell",
    "path_arguments",
    "redirect_file",
    "redirect_writes",
    "shell_command",
    "shell_paths",
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


def path_arguments(call: ToolCall, path_args: Mapping[str, Sequence[str]]) -> list[str]:
    """The path-valued arguments of `call` (strings, or lists of strings)."""
    names = path_args.get(call.tool) or path_args.get("*") or DEFAULT_PATH_ARGS
    found: list[str] = []
    for name in names:
        value = call.args.get(name)
        if isinstance(value, str) and value:
            found.append(value)
        elif isinstance(value, list | tuple):
            found.extend(v for v in value if isinstance(v, str) and v)
    return found


def shell_command(call: ToolCall) -> str | None:
    """The command line of a shell tool call, or None when it has none."""
    value: Any = call.args.get("command")
    return value if isinstance(value, str) else None


def _may_be_path(word: str) -> bool:
    return bool(word) and word != "$?" and not word.startswith("-") and "://" not in word


def _operand_paths(word: str) -> list[str]:
    """The paths one word may name: itself, an option's attached value, a file URL."""
    if word.startswith("--") and "=" in word:
        word = word.split("=", 1)[1]  # --output=/etc/x
    elif word.startswith("-") and not word.startswith("--") and len(word) > 2:
        attached = word[2:]  # -o/etc/x, -C/etc
        return [attached] if attached.startswith(("/", "~", ".")) or "/" in attached else []
    if word.startswith("file://"):
        return [word[len("file://") :] or "/"]
    return [word] if _may_be_path(word) else []


def shell_paths(analysis: shell.Analysis) -> list[str]:
    """Every word of every simple command that may name a file, and every redirect target.

    Any operand may be a file name (`cp .env /tmp/leak` names `.env` relative to
    the cwd, `cat escape` may follow a symlink out of the workspace), so all
    operands count; so do the values of `--opt=value` and of `-o/path` (a short
    option with its value attached), and the path of a `file://` URL. Other URLs
    and bare options do not.
    """
    found: list[str] = []
    for command in analysis.commands:
        for word in command.args:
            found.extend(_operand_paths(word))
        for redirect in command.redirects:
            target = redirect_file(redirect)
            if target is not None:
                found.append(target)
    return found


_GLOB_CHARS = frozenset("*?[")


def expanded_by_the_shell(word: str) -> bool:
    """A word with glob characters names whatever bash expands it to at run time,
    not itself; a path policy cannot judge it ahead of time. (Quoted globs are
    caught too: the analysis has removed the quotes. That errs on the side of no.)"""
    return any(c in _GLOB_CHARS for c in word)


_REDIRECT = re.compile(r"^(\d*)(&>>|&>|>>|>\||>&|<&|<<<|<<-|<<|<>|>|<)(.*)$", re.DOTALL)
_WRITES = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})


def _parts(redirect: str) -> tuple[str, str]:
    match = _REDIRECT.match(redirect)
    return (match[2], match[3]) if match else ("", "")


def redirect_file(redirect: str) -> str | None:
    """The file a redirect (`>out.txt`, `2>/dev/null`, `<in`) opens, or None.

    None for heredocs and herestrings (their text is no file), descriptor copies
    (`2>&1`, `>&-`) and targets that are not known statically.
    """
    operator, target = _parts(redirect)
    if not operator or operator.startswith("<<") or not target or target == "$?":
        return None
    if operator in (">&", "<&") and (target.isdigit() or target == "-"):
        return None
    return target


def redirect_writes(redirect: str) -> bool:
    """Whether the redirect opens a file for writing."""
    operator, _ = _parts(redirect)
    return operator in _WRITES and redirect_file(redirect) is not None
