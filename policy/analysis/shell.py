"""Shell commands -> the simple commands they would run.

This is the minimal splitter that rule packs use until the tree-sitter-bash parser
lands (issue C). It tokenises with `shlex` (POSIX rules, operators as tokens) and
splits on `;`, `&&`, `||`, `|`, `&`, newlines and parentheses. Wrapper programs
(`sudo`, `env`, `timeout`, `nohup`, `xargs`, ...) are unwrapped so the real program
is reported. It does NOT look inside `$(...)`, backticks, `bash -c` strings or
`eval`; `has_substitution` flags those so a rule can refuse what it cannot see
(`shell.has_substitution(cmd)`).
"""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass, field
from typing import Any

__all__ = ["SimpleCommand", "commands", "has_substitution", "parse_error"]

_SEPARATORS = frozenset({";", "&&", "||", "|", "&", "|&", ";;", "(", ")", "\n"})
_REDIRECT_OPS = frozenset({">", ">>", "<", "<<", "<<<", ">&", "<&", ">|", "&>", "&>>"})
_MAX_INPUT = 1 << 20
# Prefix programs that run another program; the real program is reported.
_WRAPPERS = frozenset(
    {
        "sudo",
        "doas",
        "env",
        "command",
        "exec",
        "nohup",
        "nice",
        "time",
        "timeout",
        "xargs",
        "stdbuf",
        "ionice",
        "setsid",
    }
)
# Options of wrappers that take a value in the next word.
_WRAPPER_OPTION_ARGS = {
    "sudo": frozenset({"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U"}),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S"}),
    "nice": frozenset({"-n"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "xargs": frozenset({"-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a"}),
    "ionice": frozenset({"-c", "-n", "-p"}),
}


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One program invocation: `name` is the program's base name (`/bin/rm` -> `rm`)."""

    name: str
    argv: tuple[str, ...]
    args: tuple[str, ...]
    flags: tuple[str, ...]
    redirects: tuple[str, ...] = field(default=())
    raw: str = ""

    def to_cel(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "argv": list(self.argv),
            "args": list(self.args),
            "flags": list(self.flags),
            "redirects": list(self.redirects),
            "raw": self.raw,
        }


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command.replace("\n", " ; "), posix=True, punctuation_chars=";&|()<>")
    lexer.whitespace_split = True
    lexer.commenters = ""
    return list(lexer)


def _flags(args: list[str]) -> tuple[str, ...]:
    flags: list[str] = []
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--") and len(arg) > 2:
            flags.append(arg[2:].split("=", 1)[0])
        elif arg.startswith("-") and len(arg) > 1 and not arg[1:].isdigit():
            flags.extend(arg[1:])
    return tuple(flags)


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


def _unwrap(words: list[str]) -> list[str]:
    """Drop leading assignments and wrapper programs (`sudo -u x env A=1 rm` -> `rm`)."""
    for _ in range(16):
        while words and _is_assignment(words[0]):
            words = words[1:]
        if not words:
            return words
        wrapper = posixpath.basename(words[0])
        if wrapper not in _WRAPPERS:
            return words
        takes_value = _WRAPPER_OPTION_ARGS.get(wrapper, frozenset())
        rest = words[1:]
        while rest and rest[0].startswith("-") and rest[0] != "-":
            option = rest.pop(0)
            if option == "--":
                break
            if option in takes_value and rest:
                rest.pop(0)
        if wrapper == "timeout" and rest:
            rest = rest[1:]  # the duration
        if not rest:
            return words  # the wrapper alone (`sudo -v`, `env`) is the command
        words = rest
    return words


def _build(words: list[str], redirects: list[str]) -> SimpleCommand | None:
    words = _unwrap(words)
    if not words:
        return None
    name = posixpath.basename(words[0]) or words[0]
    args = words[1:]
    return SimpleCommand(
        name=name,
        argv=tuple(words),
        args=tuple(args),
        flags=_flags(args),
        redirects=tuple(redirects),
        raw=" ".join(words),
    )


def commands(command: str) -> list[SimpleCommand]:
    """The simple commands in `command`, in order. Never raises; unparsable input gives []."""
    if len(command) > _MAX_INPUT:
        return []
    try:
        tokens = _tokens(command)
    except ValueError:
        return []
    out: list[SimpleCommand] = []
    words: list[str] = []
    redirects: list[str] = []
    pending_redirect: str | None = None
    for token in tokens:
        if pending_redirect is not None:
            redirects.append(f"{pending_redirect}{token}")
            pending_redirect = None
            continue
        if token in _SEPARATORS:
            built = _build(words, redirects)
            if built is not None:
                out.append(built)
            words, redirects = [], []
        elif token in _REDIRECT_OPS:
            fd = words.pop() if words and words[-1].isdigit() else ""
            pending_redirect = fd + token
        else:
            words.append(token)
    built = _build(words, redirects)
    if built is not None:
        out.append(built)
    return out


def has_substitution(command: str) -> bool:
    """True when the command runs code this splitter cannot see: `$(...)`, backticks,
    process substitution, `${...}` expansions, `eval` or a `-c` script."""
    in_single = False
    escaped = False
    for index, char in enumerate(command):
        if escaped:
            escaped = False
            continue
        if char == "\\" and not in_single:
            escaped = True
            continue
        if char == "'":
            in_single = not in_single
            continue
        if in_single:
            continue
        if char == "`":
            return True
        if char == "$" and command[index + 1 : index + 2] in ("(", "{"):
            return True
        if char in "<>" and command[index + 1 : index + 2] == "(":
            return True
    return any(
        c.name in ("eval", "source", ".")
        or (c.name in ("bash", "sh", "zsh", "dash") and "c" in c.flags)
        for c in commands(command)
    )


def parse_error(command: str) -> str:
    """Why the command cannot be tokenised (`No closing quotation`), or ''."""
    if len(command) > _MAX_INPUT:
        return "command longer than 1 MiB"
    try:
        _tokens(command)
    except ValueError as exc:
        return str(exc)
    return ""
