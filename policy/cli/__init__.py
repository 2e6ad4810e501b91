"""The `policy` command.

`main` reads the command line and runs the command's module. The command line's
grammar (argparse) is `policy.cli.commands`, imported only when needed: `policy hook`
— started once per tool call by Claude Code and Agentao — is read without it
(policy.hosts.hook_command), and a hook event bound for `policy serve` goes there
before anything else is imported (policy.hosts.claude.thin). A command's own module
is imported when that command runs: `policy --version` and `policy audit verify`
never import pydantic, structlog or the engine.

`command` is the `policy` executable (its console script and `python -m policy`):
`main` in a process of its own. There a one-shot command — one that reads its files,
answers and exits (`_one_shot`) — collects garbage rarely while it runs and leaves
what it built out of the interpreter's last collections (`gc.freeze`): a pack's YAML
nodes, models and compiled rules live until exit, and the cyclic collector walking
them again and again was ≈ 15 % of `policy check` on 1,000 rules and ≈ 30 % on
10,000 (docs/performance.md). (So an object still alive in a reference cycle at
exit is not finalized: the commands close what they open, as Python promises no
`__del__` at exit anyway.) `main` called in a process that goes on (a test, an
application) leaves the collector as it is, and so do the commands that go on
(`--watch`, `--follow`).
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

__all__ = ["command", "main"]

#: The commands that read their files, answer and exit (not `serve`, `approvals`,
#: `bench`, whose measurements must see the collector a service runs with, nor `hook`:
#: policy._one_event tunes a one-event hook; the PicoClaw and OpenClaw bridges run on).
_ONE_SHOT = frozenset(
    {"audit_cmd", "check_cmd", "eval_cmd", "facts_cmd", "fmt_cmd", "replay_cmd", "test_cmd"}
)
#: What makes one of them go on until stopped (`policy test --watch`, `policy audit
#: tail --follow`): the collector is left as a long-running process has it.
_GOING_ON = ("watch", "follow")

#: True once `command` runs: this process is the `policy` executable.
_own_process = False

#: The exit status of a command whose output's reader went away (128 + SIGPIPE).
_BROKEN_PIPE = 141


def command() -> int:
    """The `policy` executable: `main`, in a process that ends when it returns."""
    global _own_process
    _own_process = True
    return main()


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["hook"]:
        from policy.hosts.hook_command import hook_command

        command = hook_command(given[1:])
        if command is not None:
            return _hook(command)
    from policy.cli.commands import command_in, parser

    built = parser(command_in(given))
    args = built.parse_args(given)
    if not getattr(args, "module", None):
        built.print_help(sys.stderr)
        return 2
    if args.module == "hook":
        return _hook(args)
    return _run(f"policy.cli.{args.module}", args)


def _hook(command: Any) -> int:
    """`policy hook HOST` (`command`: a policy.hosts.hook_command.HookCommand, or
    argparse's reading of the same options): to the service when one is configured for
    a Claude-like host and its settings need no validating (the thin client), else the
    host's own server (policy.hosts.SERVERS), which may still find a service in the
    settings it reads."""
    from policy.hosts import SERVERS
    from policy.hosts.claude.dialect import DIALECTS

    if command.host in DIALECTS:  # (started once per event: policy._one_event)
        from policy import _one_event
        from policy.hosts.claude.thin import forward_if_served

        _one_event.declare()

        forward_if_served(command)  # never returns when the service takes the event
    return _run(SERVERS[command.host], command)


def _run(name: str, args: Any) -> int:
    import importlib

    one_shot = _own_process and _one_shot(name, args)
    if one_shot:
        from policy._one_event import collect_rarely

        collect_rarely()
    module = importlib.import_module(name)
    try:
        code: int = module.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Whoever read the output went away (`policy check | head -1`): the answer
        # never reached them, so this is no success — a shell's status for a command
        # its pipe's SIGPIPE ended, which `set -o pipefail` then fails on. (Exit 0 hid
        # a pack's errors.) The executable's stdout then goes nowhere, so the flush at
        # exit raises nothing more.
        if _own_process:
            _stdout_nowhere()
        return _BROKEN_PIPE
    finally:
        if one_shot:
            import gc

            gc.freeze()  # (what the command built lives until exit: no last walks over it)
    return code


def _one_shot(name: str, args: Any) -> bool:
    """Whether the command module `name`, run with `args`, reads its files, answers and
    exits."""
    return name.rpartition(".")[2] in _ONE_SHOT and not any(
        getattr(args, option, False) for option in _GOING_ON
    )


def _stdout_nowhere() -> None:
    """Point stdout at /dev/null: what is still buffered for a reader that went away is
    dropped at exit instead of raising there (and changing the exit status to 120)."""
    import os

    try:
        nowhere = os.open(os.devnull, os.O_WRONLY)
    except OSError:
        return
    try:
        os.dup2(nowhere, sys.stdout.fileno())
    except (OSError, AttributeError, ValueError):
        return  # (no stdout at all: nothing to flush)
    finally:
        os.close(nowhere)
