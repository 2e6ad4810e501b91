"""Logged decisions, read back as calls to decide again — or as the reason they cannot be.

The decision log is written to be shared: arguments masked, strings cut at 256
characters, and at before_tool the call *as decided* (a rewrite's result), not as asked.
So a record is replayed only when it holds the whole call the host asked about:

* a capture line with its `decision_id` (`audit_capture_dir`: the asked parts and who
  asked, verbatim) is always preferred;
* otherwise a before_tool record whose logged arguments hash to its `args_digest` (the
  digest is of the real arguments, so nothing was masked or cut), none of whose context
  fields was cut, and that no hook rewrote.

Anything else is *not replayable*, with the reason, and never counted as a change: a
masked argument replayed as `***` would be a different call. Records of a decision that
failed for a reason outside the packs (a timeout, a hook that raised, the log itself)
are not replayable either: no pack change explains a difference.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from policy._lazy_dataclass import dataclass
from policy.codec import from_dict, parts_from_json
from policy.digest import args_digest
from policy.errors import InputError
from policy.facts import Caller
from policy.model import Action, HookPoint, ToolCall

__all__ = [
    "Logged",
    "approval_key",
    "captures_by_id",
    "is_log_record",
    "logged_from",
    "outcome_of",
    "read_log",
]

#: The context fields a record keeps of a call (policy.audit.context_fields).
_CONTEXT = ("host", "session", "sender", "channel", "chat_id", "agent", "turn", "cwd")
#: Every string a record may have cut that the replayed call or its caller needs whole.
_WHOLE = (*_CONTEXT, "tool", "tool_raw", "call_id", "home", "workspace")
#: How `policy.audit.cut` marks a string it shortened.
_CUT = re.compile(r"…\(\+\d+ chars\)\Z")
#: Failures the packs make again from the same call: an analysis that gave up on it
#: (`limit`), a hook's answer that is no valid action (`invalid`). A timeout, a hook
#: that raised (a state store down) or a log that could not be written say nothing of
#: the packs, so their records are not replayed.
_DETERMINISTIC_FAILURES = ("limit", "invalid")
#: The actions after which a call may still run (an approval then decides).
_PASSES = (Action.CONTINUE.value, Action.MODIFY.value)


@dataclass(frozen=True, slots=True)
class Logged:
    """One logged decision: what was decided then, and what to decide again now."""

    line: int
    ts: float
    point: str
    decision_id: str
    #: The outcome then: the action, or `ask` for a call that needed approval.
    outcome: str
    rule_ids: tuple[str, ...]
    #: The parts to decide again (None when not replayable) and who asked.
    parts: tuple[Any, ...] | None
    caller: Caller | None
    #: Why this record cannot be replayed ("" when it can).
    skip: str
    #: Identifies the call an approval record answers (`approval_key`).
    key: tuple[str, ...]
    #: What the call was about, for a person: the tool and its command, path or URL.
    summary: str


def is_log_record(value: Any) -> bool:
    """Whether a JSON value read as input is a decision-log line (not a call)."""
    return isinstance(value, Mapping) and "event" in value and "ts" in value


def outcome_of(point: str, action: str, needs_approval: bool) -> str:
    """The outcome a person compares: the action, or `ask` when the call waited for one."""
    if point == HookPoint.BEFORE_TOOL.value and needs_approval and action in _PASSES:
        return "ask"
    return action


def approval_key(record: Mapping[str, Any]) -> tuple[str, ...]:
    """The call a before_tool or approve_tool record is about: who asked (principal,
    session), which call (call id, tool) with which arguments (their digest)."""
    return tuple(
        str(record.get(name, ""))
        for name in ("principal", "session", "call_id", "tool", "args_digest")
    )


def _timestamp(record: Mapping[str, Any], where: str) -> float:
    value = record.get("ts")
    if not isinstance(value, str):
        raise InputError(f"{where}.ts: expected an ISO 8601 time")
    try:
        moment = _dt.datetime.fromisoformat(value)
    except ValueError:
        raise InputError(f"{where}.ts: not an ISO 8601 time: {value!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=_dt.UTC)
    return moment.timestamp()


def _caller(principal: Any, home: Any, workspace: Any) -> Caller | None:
    """Who asked, as the record names them; None when it names nobody (in process)."""
    who = principal if isinstance(principal, str) else ""
    home_dir = home if isinstance(home, str) and home else None
    project = workspace if isinstance(workspace, str) and workspace else None
    if not (who or home_dir or project):
        return None
    return Caller(home=home_dir, workspace=project, principal=who)


def _summary(call: ToolCall | None, record: Mapping[str, Any]) -> str:
    tool = call.tool if call is not None else str(record.get("tool") or record.get("point", ""))
    args: Any = call.args if call is not None else record.get("args")
    detail = ""
    if isinstance(args, Mapping):
        for name in ("command", "file_path", "path", "url", "query", "pattern"):
            value = args.get(name)
            if isinstance(value, str):
                detail = value
                break
    text = f"{tool} {detail}".strip()
    return text if len(text) <= 120 else text[:119] + "…"


def _from_capture(point: HookPoint, captured: Mapping[str, Any], where: str) -> tuple[Any, ...]:
    parts = parts_from_json(point, captured.get("parts"), f"{where} (capture)")
    return tuple(parts)


def _from_log(record: Mapping[str, Any], where: str) -> tuple[tuple[Any, ...] | None, str]:
    """The before_tool call a masked record still holds whole, or why it holds none."""
    if "cwd" not in record:
        return None, "written before the log recorded cwd (no capture line)"
    cut = [
        name for name in _WHOLE if isinstance(record.get(name), str) and _CUT.search(record[name])
    ]
    if cut:
        return None, f"the log cut its {cut[0]} (turn on audit_capture_dir)"
    if record.get("rewritten") or record.get("action") == Action.MODIFY.value:
        return None, "the log shows the call as rewritten, not as asked (turn on audit_capture_dir)"
    args = record.get("args")
    if not isinstance(args, Mapping):
        return None, "the log keeps no arguments"
    try:
        digest = args_digest(args)
    except (RecursionError, TypeError, ValueError) as exc:
        return None, f"unreadable arguments ({type(exc).__name__})"
    if digest != record.get("args_digest"):
        return None, "arguments masked or cut in the log (turn on audit_capture_dir)"
    fields: dict[str, Any] = {
        name: record[name] for name in _CONTEXT if isinstance(record.get(name), str)
    }
    fields["tool"] = record.get("tool")
    fields["tool_raw"] = record.get("tool_raw") or record.get("tool")
    fields["call_id"] = record.get("call_id") or ""
    fields["args"] = dict(args)
    return (from_dict(ToolCall, fields, where),), ""


def logged_from(
    record: Mapping[str, Any],
    line: int,
    captured: Mapping[str, Any] | None = None,
    where: str | None = None,
) -> Logged:
    """The record at `line` of a decision log (event `decision`), with its capture line
    when there is one. InputError, naming `where` (default: the line), when the record
    is not a decision record at all."""
    where = where or f"line {line}"
    if record.get("event") != "decision":
        raise InputError(f"{where}: a {record.get('event')!r} record, not a decision")
    ts = _timestamp(record, where)
    point_name = str(record.get("point", ""))
    try:
        point = HookPoint(point_name)
    except ValueError:
        raise InputError(f"{where}.point: unknown hook point {point_name!r}") from None
    action = str(record.get("action", ""))
    rules = record.get("rule_ids")
    rule_ids = tuple(str(r) for r in rules) if isinstance(rules, list) else ()
    outcome = outcome_of(point_name, action, bool(record.get("needs_approval")))
    parts: tuple[Any, ...] | None = None
    skip = ""
    caller = _caller(record.get("principal"), record.get("home"), record.get("workspace"))
    if point is HookPoint.APPROVE_TOOL or point is HookPoint.EVENT:
        skip = "an approver's answer (reused for the call it answers)"
    elif record.get("failure") and record["failure"] not in _DETERMINISTIC_FAILURES:
        skip = f"the decision failed then ({record['failure']}), the packs did not make it"
    elif captured is not None:
        try:
            parts = _from_capture(point, captured, where)
        except (InputError, RecursionError, TypeError, ValueError) as exc:
            skip = f"the capture line is unreadable: {exc}"
        else:
            given = captured.get("caller")
            if isinstance(given, Mapping):
                caller = _caller(given.get("principal"), given.get("home"), given.get("workspace"))
    elif point is not HookPoint.BEFORE_TOOL:
        skip = f"the log keeps no payload at {point_name} (turn on audit_capture_dir)"
    else:
        try:
            parts, skip = _from_log(record, where)
        except (InputError, RecursionError, TypeError, ValueError) as exc:
            parts, skip = None, f"the logged call is not a call: {exc}"
    call = parts[0] if parts and isinstance(parts[0], ToolCall) else None
    return Logged(
        line=line,
        ts=ts,
        point=point_name,
        decision_id=str(record.get("decision_id", "")),
        outcome=outcome,
        rule_ids=rule_ids,
        parts=parts,
        caller=caller,
        skip=skip,
        key=approval_key(record),
        summary=_summary(call, record),
    )


def captures_by_id(lines: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """Capture lines by the decision id they belong to."""
    out: dict[str, Mapping[str, Any]] = {}
    for captured in lines:
        decision_id = captured.get("decision_id")
        if isinstance(decision_id, str) and decision_id:
            out[decision_id] = captured
    return out


def read_log(lines: Iterable[bytes]) -> Iterator[tuple[int, Mapping[str, Any] | None]]:
    """(line number, record) for each line of a decision log; None for a line that is
    not a JSON object (a torn write, a foreign line)."""
    import orjson

    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            yield number, None
            continue
        yield number, value if isinstance(value, dict) else None
