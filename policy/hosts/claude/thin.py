"""`policy hook claude|agentao` as a thin client: the host's payload goes to `policy
serve` as it is, and the answer the service decided comes back to print.

A service is configured (the `server` setting, or `--server`), so this process decides
nothing itself: the service holds the policy, the counters and the approvals. It
never falls back to deciding alone — a service that is unreachable, not run by the
configured owner, too slow for `--deadline` or answering nonsense is a refusal, shaped
for the event, as every failure of `policy hook` is.

It runs once per tool call, so it is built to start in about the interpreter's own
time (tests/bench/bench_cold_start.py; docs/decisions/0025-plain-thin-client.md):
`policy.cli.main` hands it a `hook` command line before building the parser
(`forward_if_served`), which it reads with the option table `policy.hosts.HOOK_OPTIONS`
— anything that table does not read plainly goes to argparse instead, as does a
command whose settings must be validated (pydantic) rather than read back from what
an earlier start validated (policy._fast_settings). Its imports are the
interpreter's built-in modules and the few of ours that hold to that
(tests/test_thin_client.py lists what it may not load).
"""

from __future__ import annotations

import _thread
import os
import sys
import time

from policy._plain_json import dumps, loads
from policy.client.transport import ServiceError, query, server_from_settings
from policy.hosts import HOOK_DEFAULT_APPROVAL, HOOK_DEFAULT_DEADLINE, HOOK_OPTIONS
from policy.hosts._watchdog import Watchdog, no_answer_within, on_signal
from policy.hosts.claude.dialect import DIALECTS
from policy.hosts.claude.wire import answer_denied

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn

__all__ = ["HookCommand", "forward", "forward_if_served", "hook_command"]

#: Time kept back from --deadline to print the answer after the service replied.
_MARGIN = 0.5


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
    """`argv` (after `policy hook`) as argparse would read it, when it is a Claude-like
    host followed by options of HOOK_OPTIONS, each spelt whole (`--name VALUE` or
    `--name=VALUE`) with a valid value; None for anything else — help, a prefix of an
    option, a value that looks like an option, an unknown word — which argparse reads
    (and refuses) as it always has."""
    if not argv or argv[0] not in DIALECTS:
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


class _ServiceSettings:
    """The settings a thin client reads: where the service is and whom it runs as."""

    __slots__ = ("server", "server_owner")

    def __init__(self, server: str | None = None, server_owner: str | None = None) -> None:
        self.server = server
        self.server_owner = server_owner


def _service_settings(config: str | None) -> _ServiceSettings | None:
    """The service the settings name (none: the defaults), when they need no validating
    here: nothing configures them, or the settings file was validated and kept by an
    earlier start. None otherwise: the full path reads them (policy.hosts._settings)."""
    from policy import _fast_settings as fast

    if fast.is_unconfigured(config):
        return _ServiceSettings()
    fields = fast.cached_fields(fast.settings_key(config))
    if fields is None:
        return None
    return _ServiceSettings(fields["server"], fields["server_owner"])


def forward_if_served(argv: Sequence[str]) -> None:
    """Forward this event to the service when `argv` (after `policy hook`) is a plain
    hook command line and a service is configured for it; return otherwise, having
    done nothing, for the parser and the in-process path to take it."""
    command = hook_command(argv)
    if command is None:
        return
    try:
        settings = _service_settings(command.config)
    except Exception:  # noqa: BLE001 - the full path reads them again, and refuses naming why
        return
    if settings is None or not (command.server or settings.server):
        return
    forward(command, settings)


def _print(answer: Any) -> None:
    if answer is not None:
        sys.stdout.write(dumps(answer) + "\n")


def _finish(answer: Any, once: Any) -> NoReturn:
    """Print one answer (the first to get here wins) and end the process."""
    if once.acquire(False):
        try:
            _print(answer)
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    continue
            os._exit(0)
    never = _thread.allocate_lock()  # the other path is printing and exiting
    never.acquire()
    never.acquire()
    raise AssertionError("unreachable")


def forward(args: Any, settings: Any) -> NoReturn:
    """Send this event to the service and print its answer (or a refusal); never returns.
    `args` holds the command's options (a HookCommand, or argparse's namespace)."""
    ends_at = time.monotonic() + args.deadline
    once = _thread.allocate_lock()
    event: str | None = None
    flat = False

    def refuse(reason: str) -> NoReturn:
        _finish(answer_denied(event, reason, flat=flat), once)

    Watchdog().watch(ends_at, lambda: refuse(no_answer_within(args.deadline)))
    # The host gives up on the hook: the refusal goes out before the process does
    # (and the service, seeing the connection close, expires what it waited on).
    on_signal(refuse, lambda number: f"policy hook stopped by signal {number}")
    try:
        raw = sys.stdin.buffer.read()
        try:
            payload = loads(raw)
        except ValueError as exc:
            refuse(f"policy hook failed closed: the payload is not JSON: {exc}")
        if isinstance(payload, dict):
            name = payload.get("hook_event_name", payload.get("event"))
            event = name if isinstance(name, str) else None
            flat = "hook_event_name" not in payload and "data" in payload
        server = server_from_settings(settings, args.server, config=args.config)
        if server is None:
            refuse("policy hook failed closed: no service is configured")
        budget = ends_at - time.monotonic() - _MARGIN
        if budget <= 0:
            refuse(no_answer_within(args.deadline))
        # The service waits for approvers within what is left, minus its own answer.
        parameters = {"approval": args.approval, "budget": f"{max(budget - 0.5, 0):.3f}"}
        status, _headers, answer = server.request(
            "POST",
            f"/v1/hosts/{args.host}/event?{query(parameters)}",
            raw_body=raw,
            timeout=budget,
        )
        if status != 200 or not isinstance(answer, dict) or "answer" not in answer:
            detail = answer.get("error", answer.get("detail")) if isinstance(answer, dict) else None
            refuse(
                f"policy hook failed closed: policy serve answered {status}: "
                f"{detail if detail is not None else answer!r}"
            )
        verdict = answer["answer"]
        if verdict is not None and not isinstance(verdict, dict):
            refuse("policy hook failed closed: policy serve sent an answer that is not an object")
        _finish(verdict, once)
    except ServiceError as exc:
        refuse(f"policy hook failed closed: {exc}")
    except Exception as exc:  # noqa: BLE001 - every failure becomes an explicit refusal
        refuse(f"policy hook failed closed: {type(exc).__name__}: {exc}")
