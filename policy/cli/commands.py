"""The `policy` command line: every command, its options and their help.

Built with the standard library only (argparse); policy.cli imports this module
once it knows the command line needs it (a hook event bound for `policy serve`
does not), and a subcommand's own module only when that subcommand runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from policy._version import __version__
from policy.hosts import HOOK_APPROVALS, HOOK_DEFAULT_APPROVAL, HOOK_DEFAULT_DEADLINE, SERVERS
from policy.hosts.claude.dialect import DIALECTS

#: policy.packs.cel.ENGINES, spelled here so that building the parser imports no engine.
ENGINE_NAMES = ("native", "cel-expr-python", "cel-python")

__all__ = ["ENGINE_NAMES", "EVAL_POINTS", "command_in", "parser"]



class _EvalPoints:
    """The choices of `policy eval --point`: every point that answers, read from the one
    table (policy.model.POINTS) when argparse first looks — `policy --version` and the
    hook commands build this parser and must not pay for importing the model."""

    def _names(self) -> tuple[str, ...]:
        from policy.model import POINTS, HookPoint

        return tuple(str(point) for point in POINTS if point != HookPoint.EVENT)

    def __contains__(self, value: object) -> bool:
        return value in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())


EVAL_POINTS = _EvalPoints()


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, its width found without `shutil`: argparse makes one at
    every `add_argument`, and `shutil.get_terminal_size` imports shutil, bz2 and lzma
    (≈ 3 ms of a one-event hook's start). The same width: `COLUMNS`, else the
    terminal's, else 80; less 2."""

    def __init__(self, prog: str, *args: Any, **kwargs: Any) -> None:
        if len(args) < 3 and "width" not in kwargs:
            kwargs["width"] = _terminal_columns() - 2
        super().__init__(prog, *args, **kwargs)


def _terminal_columns() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):
        return 80


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line; with `only` (a command's name), only that command's part:
    a one-event `policy hook` builds one subcommand, not twenty (≈ 8 ms a start)."""
    built = _Parser(
        prog="policy",
        description="Policy-as-configuration governance for AI-agent hooks.",
    )
    built.add_argument("--version", action="version", version=f"hookpolicy {__version__}")
    commands = built.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, add in _COMMANDS.items():
        if only is None or name == only:
            add(commands)
    return built


def _add_eval(commands: Any) -> None:
    ev = commands.add_parser(
        "eval",
        help="decide calls given as JSON and print the decisions",
        description=(
            "Run calls through the chain and print one Decision per line as JSON. INPUT is "
            "JSON text, @FILE, or - for stdin: one object, an array, or JSON lines. An object "
            "is a bare call for --point, or {point, call, result, request, response, prompt, "
            "stop}; a decision-log line is decided as the call it logged."
        ),
    )
    ev.add_argument("input", nargs="?", default="-", metavar="INPUT")
    ev.add_argument(
        "--point",
        choices=EVAL_POINTS,
        metavar="POINT",  # argparse lists `choices` in help only (it would load the model)
        default="before_tool",
        help="default hook point: %(choices)s",
    )
    ev.add_argument(
        "--hook",
        action="append",
        default=[],
        metavar="SPEC",
        help="register a code hook: path/to/file.py:Name or package.module:Name (repeatable)",
    )
    ev.add_argument("--config", metavar="FILE", help="settings file (default: $POLICY_CONFIG)")
    ev.add_argument(
        "--packs",
        action="append",
        default=[],
        metavar="PATH",
        help="rule pack file or directory (repeatable; default: the packs setting)",
    )
    ev.add_argument("--audit-log", metavar="FILE", help="decision-log file (overrides audit_path)")
    ev.add_argument("--pretty", action="store_true", help="indent the JSON output")
    ev.add_argument(
        "--explain",
        action="store_true",
        help="show why: the call's facts, the candidate rules and their condition values, "
        "what each hook said, the winning rule and the final decision, with timings",
    )
    ev.add_argument(
        "--format",
        choices=("text", "json"),
        default=None,
        help="with --explain: text for people (default) or one JSON object per call",
    )
    ev.set_defaults(module="eval_cmd")


def _add_facts(commands: Any) -> None:
    facts = commands.add_parser(
        "facts",
        help="print what the shell analysis makes of a command line",
        description=(
            "Print the `commands` and `access` facts a rule would see for a Bash call "
            "running COMMAND: every simple command with its args, flags, options and their "
            "values, the paths it reads, writes and deletes, the hosts, what is dynamic."
        ),
    )
    facts.add_argument("line", metavar="COMMAND", help="the command line, quoted")
    facts.add_argument("--cwd", metavar="DIR", help="where it runs (default: this directory)")
    facts.add_argument("--home", metavar="DIR", help="what ~ means (default: your home)")
    facts.add_argument(
        "--workspace", metavar="DIR", help="the rules' `workspace` (default: the cwd)"
    )
    facts.add_argument("--format", choices=("text", "json"), default="text")
    facts.set_defaults(module="facts_cmd")


def _add_check(commands: Any) -> None:
    check = commands.add_parser(
        "check",
        help="validate and lint rule packs (the CI gate)",
        description=(
            "Check rule packs and report every problem of every layer in one run: YAML, "
            "schema, CEL syntax and types, builtins, test entries, lint. Exit 0 when clean "
            "(warnings allowed), 1 on errors (or warnings with --strict), 2 on usage errors."
        ),
    )
    check.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or directories (default: packs setting)"
    )
    check.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text")
    check.add_argument("--strict", action="store_true", help="treat warnings as errors")
    check.add_argument(
        "--lenient",
        action="store_true",
        help="a tool name no pack declares is a warning, not an error",
    )
    check.add_argument(
        "--snippets",
        action="store_true",
        help="text format: show each problem's source line with a caret (default on a terminal)",
    )
    check.add_argument("--cel-engine", choices=ENGINE_NAMES, default=None)
    check.add_argument("--config", metavar="FILE", help="settings file (default: $POLICY_CONFIG)")
    check.add_argument(
        "--host",
        choices=tuple(DIALECTS),
        help="also check how the packs are mounted in this host's hooks file (--settings)",
    )
    check.add_argument(
        "--settings",
        metavar="FILE",
        help="the host's settings/hooks file whose `policy hook` commands run the packs "
        "(e.g. .claude/settings.json)",
    )
    check.set_defaults(module="check_cmd")


def _add_test(commands: Any) -> None:
    test = commands.add_parser(
        "test",
        help="run the tests of rule packs (their tests: and *_test.yaml files)",
        description=(
            "Run every pack's tests: and every *_test.yaml under PATHS, alone or beside the "
            "packs under --with. Exit 0 when all pass, 1 on a failure (or coverage below "
            "--threshold), 2 when a pack or test file does not load."
        ),
    )
    test.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or directories (default: packs setting)"
    )
    test.add_argument(
        "--with",
        dest="with_paths",
        action="append",
        default=[],
        metavar="PATH",
        help="also load these packs beside the ones under test, e.g. rules/ (repeatable)",
    )
    test.add_argument("--format", choices=("text", "json", "junit", "github"), default="text")
    test.add_argument(
        "--filter", metavar="TEXT", help="run only tests whose name, pack or file contains TEXT"
    )
    test.add_argument(
        "--coverage",
        action="store_true",
        help="report the rules, builtin gates, rate limits and contracts no test exercised",
    )
    test.add_argument(
        "--threshold",
        type=float,
        metavar="PERCENT",
        help="exit 1 when coverage is below PERCENT (implies --coverage)",
    )
    test.add_argument(
        "--watch", action="store_true", help="run again whenever a file under the paths changes"
    )
    test.add_argument("-v", "--verbose", action="store_true", help="list passing tests too")
    test.add_argument("--cel-engine", choices=ENGINE_NAMES, default=None)
    test.add_argument("--config", metavar="FILE", help="settings file (default: $POLICY_CONFIG)")
    test.set_defaults(module="test_cmd")


def _add_replay(commands: Any) -> None:
    replay = commands.add_parser(
        "replay",
        help="re-decide the calls of a decision log against packs: what would change",
        description=(
            "Decide every logged call again against the packs at PATHS, each at its record's "
            "time, with rate-limit and contract state rebuilt from the replayed calls and the "
            "logged approval answers reused; print how many outcomes change, from what to "
            "what, the rules responsible and the first examples. Records the log masked or "
            "cut (and no capture line completes) are counted as not replayable, never as "
            "changes. Exit 0 (1 with --fail-on-change when something changes), 2 when the "
            "log or the packs cannot be read."
        ),
    )
    replay.add_argument("log", metavar="LOG", help="a decision log (audit_path)")
    replay.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="pack files or directories (default: the packs setting)",
    )
    replay.add_argument(
        "--capture",
        metavar="DIR",
        help="capture directory with the full calls (default: the audit_capture_dir setting)",
    )
    replay.add_argument("--format", choices=("text", "json"), default="text")
    replay.add_argument(
        "--examples", type=int, default=3, metavar="N", help="examples per change (default 3)"
    )
    replay.add_argument(
        "--fail-on-change", action="store_true", help="exit 1 when any outcome changes"
    )
    replay.add_argument("--config", metavar="FILE", help="settings file (default: $POLICY_CONFIG)")
    replay.set_defaults(module="replay_cmd")


def _add_bench(commands: Any) -> None:
    bench = commands.add_parser(
        "bench",
        help="measure what the packs cost per decision: latency, memory, slowest rules",
        description=(
            "Decide each call of --calls (the bundled mix by default) against the packs at "
            "PATHS, with an engine built from the settings (its decision log and state in a "
            "temporary directory), after a warm-up pass; every decision is a line the "
            "analysis has not seen. Print per hook point p50/p90/p99 and decisions/s, "
            "resident memory before and after and its growth per decision, and the rules "
            "whose conditions cost the most CEL time, with where they are written."
        ),
    )
    bench.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="pack files or directories (default: the packs setting)",
    )
    bench.add_argument(
        "--calls",
        metavar="FILE",
        help="calls as policy eval reads them, one per line (default: the bundled mix, "
        "examples/bench/calls.jsonl)",
    )
    bench.add_argument("--config", metavar="FILE", help="settings file (default: $POLICY_CONFIG)")
    how_many = bench.add_mutually_exclusive_group()
    how_many.add_argument(
        "--rounds", type=int, metavar="N", help="counted passes over the calls (default 5)"
    )
    how_many.add_argument("--count", type=int, metavar="N", help="counted decisions in all")
    bench.add_argument("--format", choices=("text", "json"), default="text")
    bench.set_defaults(module="bench_cmd")


def _add_fmt(commands: Any) -> None:
    fmt = commands.add_parser(
        "fmt",
        help="rewrite rule packs in canonical key order and indentation, keeping comments",
        description=(
            "Put each pack's keys in the order of the pack format's fields and indent them "
            "as the shipped packs are, keeping comments and quoting; files are replaced "
            "atomically. With --check, write nothing and list the files that would change. "
            "Exit 0 when formatted, 1 when --check finds changes, 2 when a file is not YAML."
        ),
    )
    fmt.add_argument(
        "paths", nargs="*", metavar="PATH", help="files or directories (default: packs setting)"
    )
    fmt.add_argument("--check", action="store_true", help="change nothing; exit 1 if any would")
    fmt.add_argument("--config", metavar="FILE", help="settings file (default: $POLICY_CONFIG)")
    fmt.set_defaults(module="fmt_cmd")


def _add_schema(commands: Any) -> None:
    schema = commands.add_parser(
        "schema",
        help="print the JSON Schema of a pack file (for editors)",
        description=(
            "Print the JSON Schema of a rule pack, generated from the pack models: the file "
            "shipped as policy/packs/pack.schema.json, which a pack names on its first line "
            "with `# yaml-language-server: $schema=PATH`."
        ),
    )
    schema.add_argument(
        "--output", "-o", metavar="FILE", help="write it to FILE instead of standard output"
    )
    schema.set_defaults(module="schema_cmd")


def _add_audit(commands: Any) -> None:
    audit = commands.add_parser("audit", help="read and prove the decision log")
    audit_commands = audit.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    verify = audit_commands.add_parser(
        "verify",
        help="prove a decision log's hash chain; name the first broken line",
        description="Exit 0 when every line's hash and prev link hold, 1 at the first broken line.",
    )
    verify.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="the log (with its rotated files, oldest first, proven as one chain), or files "
        "of a set in order",
    )
    verify.add_argument(
        "--key-env",
        metavar="VAR",
        help="environment variable holding the HMAC key (as audit_key was set)",
    )
    verify.add_argument("--anchor", metavar="HASH", help="prev of the first line (rotated logs)")
    verify.add_argument("--expect-head", metavar="HASH", help="hash the last line must have")
    verify.add_argument("--format", choices=("text", "json"), default="text")
    verify.set_defaults(module="audit_cmd")
    tail = audit_commands.add_parser("tail", help="print the last decisions of a log")
    tail.add_argument("file", nargs="?", metavar="FILE", help="default: the audit_path setting")
    tail.add_argument("-n", "--lines", type=int, default=10, metavar="N")
    tail.add_argument("-f", "--follow", action="store_true", help="keep printing new lines")
    tail.add_argument("--format", choices=("text", "json"), default="text")
    tail.set_defaults(module="audit_cmd")


def _add_approvals(commands: Any) -> None:
    approvals = commands.add_parser(
        "approvals",
        help="list, decide and purge the approval requests calls are waiting on",
        description="Work with the store the approvals_store setting names (SQLite by default). "
        "The approver is the OS user running this, mapped through approvers_map.",
    )
    common = _Parser(add_help=False)
    common.add_argument("--config", metavar="FILE", help="settings file ($POLICY_CONFIG)")
    common.add_argument("--store", metavar="URI", help="store URI (overrides approvals_store)")
    common.add_argument(
        "--server",
        metavar="unix:PATH|URL",
        help="decide through this policy serve (overrides the server setting); the "
        "approver is then the identity of the token in $HOOKPOLICY_TOKEN or --token-file "
        "(no token: the uid you connect as, which may deny only requests it filed)",
    )
    common.add_argument(
        "--token-file", metavar="FILE", help="file holding the bearer token for --server"
    )
    approval_commands = approvals.add_subparsers(
        dest="approvals_command", metavar="ACTION", required=True
    )
    listing = approval_commands.add_parser("list", help="requests, oldest first", parents=[common])
    listing.add_argument(
        "--state", choices=("pending", "approved", "denied", "expired", "all"), default="pending"
    )
    listing.add_argument("--format", choices=("text", "json"), default="text")
    show = approval_commands.add_parser("show", help="one request, whole", parents=[common])
    show.add_argument("id", metavar="ID")
    show.add_argument("--format", choices=("text", "json"), default="text")
    for name, what in (
        ("approve", "approve a pending request"),
        ("deny", "deny a pending request, or withdraw one you filed"),
    ):
        decision = approval_commands.add_parser(name, help=what, parents=[common])
        decision.add_argument("id", metavar="ID")
        decision.add_argument("--reason", metavar="TEXT", help="why (logged with the decision)")
        decision.add_argument(
            "--as",
            dest="identity",
            metavar="NAME",
            help="root only: decide as approver NAME (everybody else decides as their OS "
            "user, mapped through the approvers_map setting)",
        )
        if name == "approve":
            decision.add_argument(
                "--grant",
                metavar="once|session|window=15m",
                default="once",
                help="also admit the same call later: in this session, or for a window",
            )
    purge = approval_commands.add_parser(
        "purge",
        help="delete requests and grants that ended long ago (approvals_retention)",
        parents=[common],
    )
    purge.add_argument(
        "--before",
        metavar="DURATION",
        help="keep what ended within this long, like 30d or 12h (default: approvals_retention)",
    )
    approvals.set_defaults(module="approvals_cmd")


def _add_init(commands: Any) -> None:
    init = commands.add_parser(
        "init",
        help="start a team's pack: a sample pack with tests, a CI workflow, pre-commit",
        description=(
            "Write packs/NAME.yaml (a deny, an approval, a rate limit and a redaction, each "
            "with a test), .github/workflows/policy.yml (check and test on every push, SARIF "
            "for code scanning) and .pre-commit-config.yaml into DIRECTORY. Writes nothing "
            "if any of them exists (exit 2)."
        ),
    )
    init.add_argument("directory", nargs="?", default=".", metavar="DIRECTORY")
    init.add_argument("--name", default="team", help="the pack's name (default: team)")
    init.set_defaults(module="init_cmd")


def _add_hook(commands: Any) -> None:
    hook = commands.add_parser(
        "hook",
        help="answer one hook event of an agent host (stdin payload, stdout answer)",
        description=(
            "Serve as a command hook. Every internal error is printed as an explicit JSON "
            "refusal with exit 0, within --deadline: the hosts let the call run otherwise."
        ),
    )
    hook.add_argument("host", choices=tuple(SERVERS), help="which host's wire format")
    hook.add_argument("--config", metavar="FILE", help="settings file ($POLICY_CONFIG)")
    hook.add_argument(
        "--packs", action="append", default=[], metavar="PATH", help="rule packs (repeatable)"
    )
    hook.add_argument(
        "--approval",
        choices=HOOK_APPROVALS,
        default=HOOK_DEFAULT_APPROVAL,
        help="who approves a call the policy gates (claude, agentao). auto (default): the "
        "approvers the policy names (defer), else the host's own dialog; ask: always the "
        "host's dialog; wait: the named approvers, waiting for them within --deadline; "
        "defer: deny now naming the request, run the same call retried once approved",
    )
    hook.add_argument(
        "--deadline",
        type=float,
        default=HOOK_DEFAULT_DEADLINE,
        metavar="SECONDS",
        help="answer (a refusal if need be) within this time; keep it below the host's "
        "hook timeout (default %(default)g)",
    )
    hook.add_argument(
        "--server",
        metavar="unix:PATH|URL",
        help="let this policy serve decide (overrides the server setting); an unreachable "
        "service is a refusal, never a decision made here instead",
    )
    hook.set_defaults(module="hook")


def _add_serve(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="run the service: one engine, its state and approvals, for thin hook clients",
        description="Load the policy once and serve decisions, approvals and contracts over a "
        "Unix socket (and HTTP with --http). The decision log goes to audit_path, else "
        "stdout; the operational log to stderr. docs/service.md.",
    )
    serve.add_argument("--config", metavar="FILE", help="settings file ($POLICY_CONFIG)")
    serve.add_argument(
        "--packs", action="append", default=[], metavar="PATH", help="rule packs (repeatable)"
    )
    serve.add_argument(
        "--socket",
        metavar="PATH",
        help="Unix socket (default: service.socket, else under the runtime dir)",
    )
    serve.add_argument(
        "--socket-mode",
        metavar="OCTAL",
        default=None,
        help="permissions of the socket (default 0600: its owner only; 0660 for a group)",
    )
    serve.add_argument(
        "--http", metavar="HOST:PORT", help="also serve HTTP here (loopback unless allowed)"
    )
    serve.add_argument(
        "--approver-socket",
        metavar="PATH",
        help="a second Unix socket for approvers (approvals and health only; its mode and "
        "group are service.approver_socket_mode / _group)",
    )
    serve.add_argument(
        "--watch",
        action="store_true",
        help="reload the packs when their files change (service.watch); SIGHUP and "
        "POST /v1/packs/reload reload them too, keeping the last good set on an error",
    )
    serve.add_argument(
        "--log-format",
        choices=("auto", "json", "console"),
        default="auto",
        help="operational log: JSON lines, or key=value (auto: key=value on a terminal)",
    )
    serve.set_defaults(module="serve_cmd")


def _add_token(commands: Any) -> None:
    token = commands.add_parser(
        "token",
        help="make a bearer token for policy serve and the settings lines that admit it",
    )
    token.add_argument("name", help="who the token is for (recorded in decisions)")
    token.add_argument(
        "--role",
        action="append",
        choices=("agent", "approver", "operator"),
        required=True,
        help="what it may do (repeatable)",
    )
    token.add_argument(
        "--approver-name",
        action="append",
        default=[],
        metavar="NAME",
        help="approver names matched against the policy's approvers (default: the name)",
    )
    token.add_argument(
        "--sender",
        action="append",
        default=[],
        metavar="GLOB",
        help="senders the token may decide for (repeatable; default: the name only)",
    )
    token.set_defaults(module="token_cmd")


_COMMANDS: dict[str, Callable[[Any], None]] = {
    "eval": _add_eval,
    "facts": _add_facts,
    "check": _add_check,
    "test": _add_test,
    "replay": _add_replay,
    "bench": _add_bench,
    "fmt": _add_fmt,
    "schema": _add_schema,
    "audit": _add_audit,
    "approvals": _add_approvals,
    "init": _add_init,
    "hook": _add_hook,
    "serve": _add_serve,
    "token": _add_token,
}


def command_in(argv: Sequence[str]) -> str | None:
    """The command `argv` names first, if it names one before any option."""
    first = argv[0] if argv else None
    return first if first in _COMMANDS else None
