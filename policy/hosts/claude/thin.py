"""`policy hook claude|agentao` as a thin client: the host's payload goes to `policy
serve` as it is, and the answer the service decided comes back to print.

A service is configured (the `server` setting, or `--server`), so this process decides
nothing itself: the service holds the policy, the counters and the approvals. It
never falls back to deciding alone — a service that is unreachable, not run by the
configured owner, too slow for `--deadline` or answering nonsense is a refusal, shaped
for the event, as every failure of `policy hook` is.

It runs once per tool call, so it is built to start in about the interpreter's own
time (tests/bench/bench_cold_start.py; docs/decisions/0025-plain-thin-client.md):
`policy.cli.main` hands it the command line read without argparse
(policy.hosts.hook_command) and it forwards when the settings need no validating —
nothing configures them, or an earlier start validated and kept them
(policy._fast_settings); anything else goes the in-process way, which validates them
(pydantic) and comes back here when they name a service. Its imports are the
interpreter's built-in modules and the few of ours that hold to that
(tests/test_thin_client.py lists what it may load).
"""

from __future__ import annotations

import _thread
import sys
import time

from policy._plain_json import dumps, loads
from policy.client.transport import ServiceError, query, server_from_settings
from policy.hosts._watchdog import Watchdog, end_process, no_answer_within, on_signal
from policy.hosts.claude.wire import answer_denied

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NoReturn

    from policy.hosts.hook_command import HookCommand

__all__ = ["forward", "forward_if_served"]

#: Time kept back from --deadline to print the answer after the service replied.
_MARGIN = 0.5


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


def forward_if_served(command: HookCommand) -> None:
    """Forward this event to the service when one is configured for `command`; return
    otherwise, having done nothing, for the in-process path to take it."""
    try:
        settings = _service_settings(command.config)
    except Exception:  # noqa: BLE001 - the full path reads them again, and refuses naming why
        return
    if settings is None or not (command.server or settings.server):
        return
    forward(command, settings)


def _finish(answer: Any, once: Any) -> NoReturn:
    """Print one answer (the first to get here wins) and end the process. The line is
    made before anything is printed: an answer that cannot be written as JSON raises
    here, for the caller to refuse instead, rather than leaving the host nothing."""
    line = "" if answer is None else dumps(answer) + "\n"
    if once.acquire(False):
        try:
            sys.stdout.write(line)
        finally:
            end_process()
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

    try:
        Watchdog().watch(ends_at, lambda: refuse(no_answer_within(args.deadline)))
        # The host gives up on the hook: the refusal goes out before the process does
        # (and the service, seeing the connection close, expires what it waited on).
        on_signal(refuse, lambda number: f"policy hook stopped by signal {number}")
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
        if not budget > 0:  # (a --deadline of nan too)
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
