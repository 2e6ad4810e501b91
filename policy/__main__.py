"""`python -m policy` is the `policy` command."""

from policy.cli import command

raise SystemExit(command())
