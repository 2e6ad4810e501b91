"""`policy hook HOST [options]`, read without argparse.

Claude Code and Agentao start `policy hook` once per tool call, so building argparse's
grammar for it (argparse, gettext, locale, and every option's action: ≈ 5 ms, more than
the whole thin client of `policy serve` costs beyond the interpreter's own start) is
on the path of every call. A hook's command line is short and fixed — a host and the
options of `policy.hosts.HOOK_OPTIONS` — so `policy.cli.main` reads it with that table
and runs the host's server with the result; any command line the table does not read
plainly is left to argparse (policy.cli.commands), which reads it, or refuses it, as
it always has. tests/test_thin_client.py holds the two readings, and the table and the
parser, together.
"""

from __future__ import annotations

from policy.hosts import HOOK_DEFAULT_APPROVAL, HOOK_DEFAULT_DEADLINE, HOOK_OPTIONS, SERVERS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["HookCommand", "hook_command"]


class HookCommand:
    """`policy hook HOST [options]`, read: the attributes argparse would give `run`."""

    __slots__ = ("approval", "config", "deadline", "host", "packs", "server")

    def __init__(self, host: str) -> None:
        self.host = host
        self.config: str | None = None
        self.packs: list[str] = []
        self.approval = HOOK_DEFAULT_APPROVAL
        self.deadline = HOOK_DEFAULT_DEADLINE
        self.server: str | None = None


def hook_command(argv: Sequence[str]) -> HookCommand | None:
    """`argv` (after `policy hook`) as argparse would read it, when it is a host of
    SERVERS followed by options of HOOK_OPTIONS, each spelt whole (`--name VALUE` or
    `--name=VALUE`) with a valid value; None for anything else — help, a prefix of an
    option, a value that looks like an option, an unknown word — which argparse reads
    (and refuses) as it always has."""
    if not argv or argv[0] not in SERVERS:
        return None
    command = HookCommand(argv[0])
    index = 1
    while index < len(argv):
        name, equals, value = argv[index].partition("=")
        kind = HOOK_OPTIONS.get(name)
        if kind is None:
            return None
        if not equals:
            index += 1
            if index == len(argv) or argv[index].startswith("-"):
                return None
            value = argv[index]
        index += 1
        if kind == "seconds":
            try:
                command.deadline = float(value)
            except ValueError:
                return None
        elif kind == "texts":
            command.packs.append(value)
        elif isinstance(kind, tuple):
            if value not in kind:
                return None
            command.approval = value
        else:
            setattr(command, name[2:], value)
    return command
