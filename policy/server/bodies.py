"""What a `/v1/decide/{point}` body asks, read and decided the same way wherever it is
decided: on one of the service's deciding threads, or in one of its deciding processes
(`policy.server.deciders`).

Free of FastAPI and Starlette: a deciding process imports this, never the app.
"""

from __future__ import annotations

from typing import Any

import orjson

from policy import _lazy_dataclass
from policy.codec import parts_from_json, to_dict
from policy.errors import InputError
from policy.model import CallContext, Decision, HookPoint
from policy.server.asker import Asker

__all__ = [
    "MAX_NAME",
    "as_sent_by",
    "bounded",
    "decide_body",
    "host_event_of",
    "json_object",
    "judge_event",
    "parsed",
]

#: The longest name a call may carry in a context field (a session, a sender, a cwd, a
#: tool): ids are short, and these become rate-limit keys and decision-log fields.
MAX_NAME = 4096
_NAMED_FIELDS = (
    "sender",
    "channel",
    "chat_id",
    "session",
    "agent",
    "turn",
    "cwd",
    "host",
    "tool",
    "tool_raw",
    "call_id",
    "model",
)


def parsed(raw: bytes) -> Any:
    """A request body as JSON (None when empty); the guard saw to its Content-Type.
    Called off the event loop: a body may be tens of MiB."""
    if not raw.strip():
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"the body is not JSON: {exc}") from None


def json_object(body: Any, where: str) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise InputError(f"{where}: expected an object")
    return body


def bounded(subject: Any) -> None:
    """InputError naming the first context field of `subject` longer than MAX_NAME."""
    for name in _NAMED_FIELDS:
        value = getattr(subject, name, "")
        if isinstance(value, str) and len(value) > MAX_NAME:
            raise InputError(f"{name}: longer than {MAX_NAME} characters ({len(value)})")


def as_sent_by(who: Asker, subject: Any) -> Any:
    """`subject` with the sender it is recorded, budgeted and granted as; a name longer
    than any id is refused before it becomes a key or a log field."""
    bounded(subject)
    sender = who.sender(subject.sender)
    return subject if sender == subject.sender else _lazy_dataclass.replace(subject, sender=sender)


def decide_body(engine: Any, who: Asker, point: str, raw: bytes) -> tuple[bytes, str] | None:
    """The rendered Decision of `engine` for a `/v1/decide/{point}` body and its
    decision id (None: the point is an event, and the observers were told). Run within
    `policy.facts.deciding_for` the caller's facts."""
    body = json_object(parsed(raw), point)
    parts = parts_from_json(
        HookPoint(point),
        body,
        each=lambda part: as_sent_by(who, part) if isinstance(part, CallContext) else part,
    )
    decision = engine.decide_at(point, *parts)
    if not isinstance(decision, Decision):
        return None
    return orjson.dumps(to_dict(decision)), decision.decision_id


def host_event_of(raw: bytes, host: str) -> Any:
    """The hook event in a host's payload, its names no longer than MAX_NAME."""
    from policy.hosts.claude.wire import event_of

    event = event_of(parsed(raw), host)
    for name in ("session", "cwd", "tool", "tool_use_id"):
        value = getattr(event, name)
        if len(value) > MAX_NAME:
            raise InputError(f"{name}: longer than {MAX_NAME} characters ({len(value)})")
    return event


def judge_event(
    engine: Any, who: Asker, host: str, approval: str, budget: float | None, raw: bytes
) -> tuple[bytes | None, Decision | None]:
    """A host's hook event (`/v1/hosts/{host}/event`) answered as `policy hook` answers
    it, in a deciding process: (the answer rendered, None) — or (None, its before_tool
    Decision) when answering it goes on to the approvers (files a request, or waits):
    that part is the service's, whose approval store tells the notifiers and the inbox."""
    from policy.hosts.claude.decide import decide as decide_event
    from policy.hosts.claude.decide import route_approval
    from policy.hosts.claude.wire import EVENTS, call_of

    event = host_event_of(raw, host)
    # The hosts send no user: the kernel's (or the token's) stands in.
    event.user = who.sender("")
    decision = None
    if EVENTS.get(event.name) == "before_tool":
        decision = engine.before_tool(call_of(event))
        if decision.needs_approval and route_approval(approval, decision) != "ask":
            return None, decision
    answer = decide_event(engine, event, approval, budget, per_event=False, decided=decision)
    return orjson.dumps({"answer": answer}), None
