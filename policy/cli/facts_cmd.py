"""`policy facts 'COMMAND'`: what the shell analysis makes of a command line.

Rules judge a shell call by its `commands` and `access` facts (docs/packs.md, "The
call's facts"); this prints them for one line, as a rule would see them, without
packs or an engine — so an author learns that `c.args` keeps `--max-time=5` and
`c.flags` holds `max-time`, before writing the rule. The text form is also how
`policy eval --explain` shows a call's facts.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from policy.cli._output import error

#: Command fields shown after name, args, flags and options, when not empty or false.
_SHOWN = (
    "subcommand", "cwd", "reads", "lists", "writes", "deletes", "recursive", "network",
    "hosts", "sends", "redirects", "assignments", "variables", "hidden", "downloaded",
    "privileged", "forks", "reads_only",
)  # fmt: skip
_ACCESS = ("reads", "lists", "writes", "deletes", "hosts", "sends", "statements", "parse_error")


def _value(value: Any) -> str:
    """A fact as CEL would spell it: lists and odd strings quoted, the rest as is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(orjson.dumps(item).decode() for item in value) + "]"
    text = str(value)
    return text if text.isprintable() and text == text.strip() else orjson.dumps(text).decode()


def _options(options: Sequence[Mapping[str, Any]]) -> str:
    shown: list[str] = []
    for option in options:
        name, values = option["option"], option["values"]
        if not values:
            shown.append(name)
        for value in values:
            joined = f"{name}={value}" if name.startswith("--") else f"{name} {value}"
            shown.append(orjson.dumps(joined).decode() if " " in value else joined)
    return ", ".join(shown)


def render_facts(report: Mapping[str, Any], indent: str = "") -> list[str]:
    """The text form of `policy.explain.facts_report`."""
    if "limit" in report:
        return [
            f"{indent}the analysis gave up: {report['limit']}",
            f"{indent}(no rule is asked: the chain refuses the call)",
        ]
    lines: list[str] = []
    commands = report.get("commands", [])
    if not commands:
        lines.append(f"{indent}commands: none")
    for number, (command, options) in enumerate(
        zip(commands, report.get("options", []), strict=False), 1
    ):
        marks = []
        if command.get("dynamic"):
            marks.append("dynamic")
        if command.get("via"):
            marks.append(f"via {command['via']}")
        if command.get("wrappers"):
            marks.append(f"unwrapped from {' '.join(command['wrappers'])}")
        name = command.get("name") or '""'
        head = f"{indent}commands[{number - 1}]: {name}"
        lines.append(head + (f"  ({'; '.join(marks)})" if marks else ""))
        lines.append(f"{indent}  {'args:':<12}{_value(command.get('args', []))}")
        lines.append(f"{indent}  {'flags:':<12}{_value(command.get('flags', []))}")
        if options:
            lines.append(f"{indent}  {'options:':<12}{_options(options)}")
        for field in _SHOWN:
            value = command.get(field)
            if value:
                lines.append(f"{indent}  {field + ':':<12}{_value(value)}")
    access = report.get("access", {})
    shown = [f"{key} {_value(access[key])}" for key in _ACCESS if access.get(key)]
    lines.append(f"{indent}access: {'; '.join(shown) if shown else 'nothing'}")
    lines.append(
        f"{indent}workspace: {report.get('workspace') or '(none)'}   "
        f"home: {report.get('home') or '(none)'}"
    )
    return lines


def _directory(option: str, value: str | None) -> str | None:
    if value is None:
        return None
    if not value.startswith("/"):
        raise ValueError(f"{option} {value!r}: must be an absolute path")
    return os.path.normpath(value)


def run(args: argparse.Namespace) -> int:
    try:
        cwd = _directory("--cwd", args.cwd) or os.getcwd()
        home = _directory("--home", args.home)
        workspace = _directory("--workspace", args.workspace)
    except ValueError as exc:
        error(str(exc))
        return 2
    if not args.line.strip():
        error("COMMAND: empty (give the command line to analyse, quoted)")
        return 2
    from policy.explain import facts_report
    from policy.facts import Caller, FactsContext, deciding_for
    from policy.model import ToolCall

    call = ToolCall(tool="bash", args={"command": args.line}, cwd=cwd)
    context = FactsContext(workspace=workspace or "")
    caller = Caller(home=home) if home is not None else None
    with deciding_for(caller):
        report = facts_report(call, context)
    if args.format == "json":
        out = {"command": args.line, "cwd": cwd, **report}
        sys.stdout.buffer.write(orjson.dumps(out, option=orjson.OPT_INDENT_2) + b"\n")
    else:
        print(args.line)
        print("\n".join(render_facts(report, "  ")))
    return 0
