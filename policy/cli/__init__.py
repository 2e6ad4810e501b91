"""The `policy` command.

`main` reads the command line and runs the command's module. The command line's
grammar (argparse) is `policy.cli.commands`, imported only when needed: a Claude
Code or Agentao hook event bound for `policy serve` — one process per tool call —
goes to the service before any of it is built (policy.hosts.claude.thin), and a
command's own module is imported when that command runs: `policy --version` and
`policy audit verify` never import pydantic, structlog or the engine.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["hook"]:
        from policy.hosts.claude.thin import forward_if_served

        forward_if_served(given[1:])  # never returns when the service takes the event
    import importlib

    from policy.cli.commands import command_in, parser
    from policy.hosts import SERVERS

    built = parser(command_in(given))
    args = built.parse_args(given)
    if not getattr(args, "module", None):
        built.print_help(sys.stderr)
        return 2
    # `policy hook HOST` is served by the host's own server (policy.hosts.SERVERS).
    name = SERVERS[args.host] if args.module == "hook" else f"policy.cli.{args.module}"
    module = importlib.import_module(name)
    try:
        code: int = module.run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return code
