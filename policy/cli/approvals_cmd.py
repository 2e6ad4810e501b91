"""`policy approvals`: list, show and decide the approval requests calls are waiting on.

Works against the store the `approvals_store` setting names (SQLite under the data
dir by default), so a person in another terminal — or a script on another machine,
with `redis://` — answers the call an agent is blocked on. Exit 0 done, 1 refused
(not an approver, self-approval, already decided), 2 bad input or settings.
"""

from __future__ import annotations

import argparse
import datetime as dt
import getpass
import sys
from typing import Any

import orjson

from policy.cli._output import error
from policy.errors import PolicyError


def _when(epoch: float | None) -> str:
    if epoch is None:
        return "-"
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat(timespec="seconds")


def _clean(text: str) -> str:
    """Control characters escaped: a tool name or reason must not drive the terminal."""
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def _line(request: Any) -> str:
    args = orjson.dumps(dict(request.args)).decode()
    if len(args) > 80:
        args = args[:60] + f"... (policy approvals show {request.id})"
    left = max(0.0, request.deadline - dt.datetime.now(dt.UTC).timestamp())
    state = request.state if request.state != "pending" else f"pending ({left:.0f} s left)"
    requester = _clean(request.requester or "-")
    return _clean(f"{request.id}  {state:22}  {request.tool:12} {requester:12} ") + args


def _show(request: Any) -> str:
    rows = [
        ("id", request.id),
        ("state", request.state),
        ("tool", request.tool),
        ("args", orjson.dumps(dict(request.args)).decode()),
        ("digest", request.digest),
        ("requester", request.requester or "-"),
        ("session", request.session or "-"),
        ("pack", request.pack),
        ("created", _when(request.created)),
        ("deadline", _when(request.deadline)),
        ("approvers", ", ".join(request.approvers) or "anyone"),
        ("self_approval", str(request.self_approval).lower()),
        ("grants", ", ".join(request.grants)),
    ]
    if request.state != "pending":
        rows += [
            ("decided_by", request.decided_by or "-"),
            ("decided_at", _when(request.decided_at)),
            ("reason", request.reason or "-"),
            ("grant", request.grant or "-"),
        ]
    # args are JSON (already escaped); everything else is cleaned of control characters.
    return "".join(f"{key:14}{value if key == 'args' else _clean(value)}\n" for key, value in rows)


def _log_refusal(settings: Any, args: argparse.Namespace, reason: str) -> None:
    """A refused decision (self-approval, not an approver) goes into the decision log
    when one is configured, next to the call's own lines; the request stays pending."""
    if settings.audit_path is None:
        return
    from policy.audit import DecisionLog

    log = DecisionLog(path=settings.audit_path, key=settings.audit_key_bytes)
    try:
        log.write(
            "approval.refused",
            {
                "request_id": args.id,
                "action": args.approvals_command,
                "identity": args.identity or getpass.getuser(),
                "reason": reason,
            },
        )
    except PolicyError as exc:
        error(f"refusal not logged: {exc}")
    finally:
        log.close()


def _dispatch(store: Any, uri: str, args: argparse.Namespace) -> int:
    from policy.approvals.rules import decide

    action = args.approvals_command
    if action == "list":
        state = None if args.state == "all" else args.state
        requests = store.list(state)
        if args.format == "json":
            sys.stdout.write(
                orjson.dumps([r.to_dict() for r in requests], option=orjson.OPT_INDENT_2).decode()
                + "\n"
            )
        elif not requests:
            sys.stdout.write(f"no {args.state} approval requests in {uri}\n")
        else:
            sys.stdout.write("".join(_line(r) + "\n" for r in requests))
        return 0
    if action == "show":
        request = store.get(args.id)
        if args.format == "json":
            text = orjson.dumps(request.to_dict(), option=orjson.OPT_INDENT_2).decode()
            sys.stdout.write(text + "\n")
        else:
            sys.stdout.write(_show(request))
        return 0
    approved = action == "approve"
    identity = args.identity or getpass.getuser()
    decided = decide(
        store,
        args.id,
        approved=approved,
        by=identity,
        reason=args.reason or "",
        grant=getattr(args, "grant", None) or "once",
    )
    grant = f", grant {decided.grant}" if approved else ""
    sys.stdout.write(f"{decided.id}: {decided.state} by {decided.decided_by}{grant}\n")
    return 0


def run(args: argparse.Namespace) -> int:
    from policy.approvals import AlreadyDecided, RequestNotFound, open_store
    from policy.approvals.rules import NotAllowed
    from policy.settings import load_settings

    try:
        settings = load_settings(args.config)
        uri = args.store or settings.approvals_store_uri
        store = open_store(uri)
    except PolicyError as exc:
        error(str(exc))
        return 2
    try:
        return _dispatch(store, uri, args)
    except RequestNotFound as exc:
        error(str(exc))
        return 2
    except NotAllowed as exc:
        error(str(exc))
        _log_refusal(settings, args, str(exc))
        return 1
    except AlreadyDecided as exc:
        error(str(exc))
        return 1
    except (PolicyError, ValueError) as exc:
        error(str(exc))
        return 2
    finally:
        store.close()
