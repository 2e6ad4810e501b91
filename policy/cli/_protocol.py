"""What the hook commands share: stdout is the host's protocol, and nothing else.

An answer that cannot be written is as bad as no answer — every host here treats
silence or garbage as "no objection" — so encoding never fails (orjson refuses lone
surrogates and integers past 64 bits that the stdlib writes), and the decision log
never goes to stdout, whatever `audit_stream` says.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import orjson

from policy.errors import PolicyError

__all__ = ["NoPolicyError", "encode_line", "engine_for_protocol"]


def encode_line(message: Any) -> bytes:
    """`message` as one JSON line; the stdlib's ASCII escapes when orjson refuses it."""
    try:
        return orjson.dumps(message) + b"\n"
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(message, ensure_ascii=True, default=str).encode() + b"\n"


class NoPolicyError(PolicyError):
    """A hook command was started with nothing to enforce."""


def engine_for_protocol(settings: Any, *, per_event: bool = False) -> Any:
    """An Engine on `settings` whose decision log, when not in a file, goes to stderr.

    A hook that enforces no policy — no packs, an empty pack directory, packs with no
    rule and no builtin — would answer every call with "no objection", which every host
    takes as leave to run it; it is refused instead (NoPolicyError), and each adapter
    turns that into the refusal of every call, naming why.

    `per_event`: the process decides one event and exits (`policy hook claude|agentao`),
    so state kept in its memory dies with it; a pack that needs state (a rate limit, a
    contract's max_tool_calls or max_runtime) with `limits_storage_uri: memory://` is
    refused (policy.state.MemoryStateError) rather than silently reset at every event."""
    from policy.engine import Engine

    if settings.audit_path is None:
        engine = Engine(settings, audit_stream=sys.stderr)
    else:
        engine = Engine(settings)
    if engine.no_policy:
        engine.close()
        raise NoPolicyError(f"no policy to enforce: {engine.no_policy}")
    if per_event and str(settings.state_store_uri).startswith("memory:"):
        from policy.state import check_per_event

        try:
            check_per_event(engine)
        except BaseException:
            engine.close()
            raise
    return engine


#: How long giving up may spend expiring requests before the process ends anyway: the
#: host has its answer, but Claude Code only takes it from a hook that has EXITED
#: before its timeout (docs/hosts.md), so a store that hangs must not keep us alive.
_ABANDON_BUDGET = 1.0


def abandon_approvals(engine: Any, reason: str) -> None:
    """Expire, in the store, every approval request `engine` is waiting on, and log
    each denial — for a server that stops waiting from outside the call (watchdog,
    the host hanging up, a signal). Bounded by _ABANDON_BUDGET; never raises."""
    if engine is None:
        return
    import threading

    def expire() -> None:
        try:
            engine.abandon_approvals(reason)
        except Exception as exc:  # noqa: BLE001 - the process is ending; say why on stderr
            sys.stderr.write(f"policy: pending approvals not expired: {exc}\n")

    worker = threading.Thread(target=expire, name="abandon-approvals", daemon=True)
    worker.start()
    worker.join(_ABANDON_BUDGET)


def on_signal(give_up: Any) -> None:
    """Call `give_up(reason)` when the host ends this process with SIGTERM, SIGHUP or
    SIGINT, so that what it was waiting on is expired rather than left approvable."""
    import signal

    def handler(number: int, _frame: Any) -> None:
        give_up(f"policy hook ended by {signal.Signals(number).name} (failed closed)")

    for name in ("SIGTERM", "SIGHUP", "SIGINT"):
        signum = getattr(signal, name, None)
        if signum is not None:
            signal.signal(signum, handler)
