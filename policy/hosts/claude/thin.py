"""`policy hook claude|agentao` as a thin client: the host's payload goes to `policy
serve` as it is, and the answer the service decided comes back to print.

A service is configured (the `server` setting, or `--server`), so this process decides
nothing itself: the service holds the policy, the counters and the approvals. It
never falls back to deciding alone — a service that is unreachable, not run by the
configured owner, too slow for `--deadline` or answering nonsense is a refusal, shaped
for the event, as every failure of `policy hook` is. Imports: the standard library,
`policy.client.transport`, `claude.wire` (for the refusal's shape) and the watchdog and
signal handling every hook process shares (`hosts._hook_process`) — a hook via the
service costs little more than the interpreter's start (tests/bench/bench_service.py).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any, NoReturn
from urllib.parse import urlencode

from policy.client.transport import ServiceError, server_from_settings
from policy.hosts._hook_process import Watchdog, no_answer_within, on_signal
from policy.hosts.claude.wire import answer_denied

__all__ = ["forward"]

#: Time kept back from --deadline to print the answer after the service replied.
_MARGIN = 0.5


def _print(answer: Any) -> None:
    if answer is not None:
        sys.stdout.write(json.dumps(answer, ensure_ascii=True, separators=(",", ":")) + "\n")


def _finish(answer: Any, once: threading.Lock) -> NoReturn:
    """Print one answer (the first to get here wins) and end the process."""
    if once.acquire(blocking=False):
        try:
            _print(answer)
        finally:
            for stream in (sys.stdout, sys.stderr):
                try:
                    stream.flush()
                except (OSError, ValueError):
                    continue
            os._exit(0)
    threading.Event().wait()  # the other path is printing and exiting
    raise AssertionError("unreachable")


def forward(args: Any, settings: Any) -> NoReturn:
    """Send this event to the service and print its answer (or a refusal); never returns."""
    ends_at = time.monotonic() + args.deadline
    once = threading.Lock()
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
            payload = json.loads(raw)
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
        query = urlencode({"approval": args.approval, "budget": f"{max(budget - 0.5, 0):.3f}"})
        status, _headers, answer = server.request(
            "POST", f"/v1/hosts/{args.host}/event?{query}", raw_body=raw, timeout=budget
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
