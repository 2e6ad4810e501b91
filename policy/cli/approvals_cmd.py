"""`policy approvals`: list, show, decide and purge the approval requests calls wait on.

Works against the store the `approvals_store` setting names (SQLite under the data
dir by default), so a person in another terminal — or a script on another machine,
with `redis://` — answers the call an agent is blocked on. The person deciding is
the OS user running this (mapped through `approvers_map`; policy.approvals.identity),
never a name typed on the command line: `--as` is for root alone. The uid that filed
a request may always deny (withdraw) it (policy.approvals.rules.withdraws). What it
shows is what a person can still act on: a pending request past its deadline is
`expired` (`ApprovalRequest.shown_state`). Exit 0 done, 1 refused (not an approver,
self-approval, already decided), 2 bad input or settings.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import sys
from typing import TYPE_CHECKING, Any

import orjson

from policy.cli._output import error
from policy.errors import PolicyError

if TYPE_CHECKING:
    from policy.approvals.identity import Identity


def _when(epoch: float | None) -> str:
    if epoch is None:
        return "-"
    return dt.datetime.fromtimestamp(epoch, dt.UTC).isoformat(timespec="seconds")


def _clean(text: str) -> str:
    """What the agent wrote, with every character that could drive the approver's
    terminal, or show them another command than the one that will run, escaped
    (policy._visible)."""
    from policy._visible import visible

    return visible(text)


def _json(value: Any) -> str:
    """`value` as indented JSON with the same characters escaped (`\\uXXXX`), which any
    JSON reader reads back as the same strings."""
    from policy._visible import visible_json

    return visible_json(orjson.dumps(value, option=orjson.OPT_INDENT_2).decode())


def _rule(request: Any) -> str:
    """The rule that asked, compactly: its id, and how many more asked with it."""
    if not request.rules:
        return "-"
    more = f" +{len(request.rules) - 1}" if len(request.rules) > 1 else ""
    return str(request.rules[0]) + more


def _line(request: Any) -> str:
    args = _clean(orjson.dumps(dict(request.args)).decode())
    if len(args) > 80:
        args = args[:60] + f"... (policy approvals show {request.id})"
    now = dt.datetime.now(dt.UTC).timestamp()
    state = request.shown_state(now)
    if state == "pending":
        state = f"pending ({request.deadline - now:.0f} s left)"
    requester = _clean(request.requester or "-")
    if request.agent_uid is not None:
        requester += f" (uid {request.agent_uid})"  # the name is the caller's; the uid is not
    return (
        _clean(f"{request.id}  {state:22}  {request.tool:12} {_rule(request):24} {requester:12} ")
        + args
    )


def _show(request: Any) -> str:
    request = request.as_shown()
    rows = [
        ("id", request.id),
        ("state", request.state),
        ("rules", ", ".join(request.rules) or "-"),
        ("message", request.message or "-"),
        ("tool", request.tool),
        ("args", _clean(orjson.dumps(dict(request.args)).decode())),
        ("cwd", request.cwd or "-"),
        ("digest", request.digest),
        ("requester", request.requester or "-"),
        ("session", request.session or "-"),
        ("pack", request.pack),
        ("created", _when(request.created)),
        ("deadline", _when(request.deadline)),
        ("approvers", ", ".join(request.approvers) or "anyone"),
        ("self_approval", str(request.self_approval).lower()),
        ("grants", ", ".join(request.grants)),
        ("agent_uid", "-" if request.agent_uid is None else str(request.agent_uid)),
    ]
    if request.state != "pending":
        rows += [
            ("decided_by", request.decided_by or "-"),
            ("decided_at", _when(request.decided_at)),
            ("reason", request.reason or "-"),
            ("grant", request.grant or "-"),
        ]
    if request.state == "approved":
        rows.append(("claimed_at", _when(request.claimed_at)))
    return "".join(f"{key:14}{_clean(value)}\n" for key, value in rows)


def _log_refusal(
    settings: Any, args: argparse.Namespace, identity: Identity | None, reason: str
) -> None:
    """A refused decision (self-approval, not an approver) goes into the decision log
    (`_log`); the request stays pending."""
    _log(
        settings,
        "approval.refused",
        {
            "request_id": args.id,
            "action": args.approvals_command,
            "identity": ", ".join(identity.candidates) if identity else "",
            "os_user": identity.user if identity else "",
            "reason": reason,
        },
        "refusal",
    )


def _log(settings: Any, kind: str, fields: dict[str, Any], what: str) -> None:
    """A record of this command (`what`: a refusal, a withdrawal) goes into the decision log
    when one is configured and this user owns it, next to the call's own lines. The
    approver is often another uid than the agent (root, even) and the log sits where
    the agent writes: a file the agent made or a link it planted is never written
    through (stderr says so instead)."""
    if settings.audit_path is None:
        return
    from policy.audit import DecisionLog

    try:
        log = DecisionLog(
            path=settings.audit_path, key=settings.audit_key_bytes, own_file_only=True
        )
    except PolicyError as exc:
        error(f"{what} not logged: {exc}")
        return
    try:
        log.write(kind, fields)
    except PolicyError as exc:
        error(f"{what} not logged: {exc}")
    finally:
        log.close()


def _purge(store: Any, uri: str, settings: Any, args: argparse.Namespace) -> int:
    from policy.durations import parse_duration

    if args.before is not None:
        keep = parse_duration(args.before)
    elif settings.approvals_retention is not None:
        keep = float(settings.approvals_retention)
    else:
        error("approvals_retention is null (keep everything): say how much to keep, --before 30d")
        return 2
    before = dt.datetime.now(dt.UTC).timestamp() - keep
    gone = store.purge(before)
    sys.stdout.write(
        f"purged {gone} requests and grants that ended before {_when(before)} from {uri}\n"
    )
    return 0


def _identity(args: argparse.Namespace, settings: Any, agent_uid: int | None) -> Identity:
    """Who is deciding: root's `--as NAME`, else the OS user mapped through
    approvers_map (refused, with the reason on stderr, when the agent could write it)."""
    from policy.approvals.identity import resolve

    return resolve(
        as_name=args.identity,
        approvers_map=settings.approvers_map,
        agent_uid=agent_uid,
        uid=os.getuid(),
        warn=error,
    )


def _decide(store: Any, args: argparse.Namespace, identity: Identity, settings: Any) -> int:
    from policy.approvals.rules import decide, withdraws

    approved = args.approvals_command == "approve"
    withdrawing = not approved and withdraws(store.get(args.id), identity)
    decided = decide(
        store,
        args.id,
        approved=approved,
        identity=identity,
        reason=args.reason or "",
        grant=getattr(args, "grant", None) or "once",
    )
    if withdrawing:
        # Logged like the denial it is, with who withdrew (the uid that filed it).
        _log(
            settings,
            "approval.withdrawn",
            _withdrawal(decided, identity.user, identity.uid),
            "withdrawal",
        )
    _print_decided(decided, approved)
    return 0


def _withdrawal(decided: Any, user: str, uid: int | None) -> dict[str, Any]:
    """The decision-log record of a requester withdrawing their call."""
    return {
        "request_id": decided.id,
        "action": "deny",
        "tool": decided.tool,
        "rule_ids": list(decided.rules),
        "withdrawn_by": user,
        "uid": uid,
        "decided_by": decided.decided_by,
        "reason": decided.reason,
    }


def _print_list(requests: list[Any], args: argparse.Namespace, where: str) -> None:
    if args.format == "json":
        sys.stdout.write(_json([r.as_shown().to_dict() for r in requests]) + "\n")
    elif not requests:
        sys.stdout.write(f"no {args.state} approval requests {where}\n")
    else:
        sys.stdout.write("".join(_line(r) + "\n" for r in requests))


def _print_request(request: Any, args: argparse.Namespace) -> None:
    if args.format == "json":
        sys.stdout.write(_json(request.as_shown().to_dict()) + "\n")
    else:
        sys.stdout.write(_show(request))


def _print_decided(decided: Any, approved: bool) -> None:
    grant = f", grant {decided.grant}" if approved else ""
    sys.stdout.write(_clean(f"{decided.id}: {decided.state} by {decided.decided_by}{grant}") + "\n")



def _dispatch(store: Any, uri: str, args: argparse.Namespace) -> int:
    from policy.approvals.store import listing

    action = args.approvals_command
    if action == "list":
        state = None if args.state == "all" else args.state
        _print_list(listing(store, state), args, f"in {uri}")
        return 0
    if action == "show":
        _print_request(store.get(args.id), args)
        return 0
    raise AssertionError(f"unknown action {action!r}")


#: The environment variable holding an approver's token for `--server`. Not POLICY_*:
#: every POLICY_ variable is a setting, and an unknown one stops the settings loading.
TOKEN_ENV = "HOOKPOLICY_TOKEN"


def _token(args: argparse.Namespace) -> str | None:
    if args.token_file:
        try:
            with open(args.token_file, encoding="utf-8") as handle:
                return handle.read().strip() or None
        except OSError as exc:
            raise PolicyError(f"{args.token_file}: cannot read the token: {exc.strerror}") from None
    return os.environ.get(TOKEN_ENV) or None


def _via_service(settings: Any, args: argparse.Namespace) -> int:
    """The same actions against `policy serve`, as the identity of the bearer token
    (`--token-file`, else $HOOKPOLICY_TOKEN): the service, not this process, knows who
    may decide what."""
    from urllib.parse import quote

    from policy.approvals.store import ApprovalRequest
    from policy.client.transport import ServiceError, ServiceRefused, server_from_settings

    action = args.approvals_command
    if action == "purge":
        error("purge works on the store itself: run it where the service keeps it, as its user")
        return 2
    if getattr(args, "identity", None) is not None:
        error("--as does not apply with --server: you are the identity of your token")
        return 2
    server = server_from_settings(settings, args.server, token=_token(args))
    assert server is not None
    if server.kind == "http" and server.token:
        error(
            f"{server.address}: a token is sent over the Unix socket only, whose server's "
            "user is checked; over http:// it goes to whoever holds the port"
        )
        return 2
    try:
        if action == "list":
            answer = server.call("GET", f"/v1/approvals?state={args.state}")
            requests = [ApprovalRequest.from_dict(r) for r in answer["requests"]]
            _print_list(requests, args, f"at {server.address}")
            return 0
        path = f"/v1/approvals/{quote(args.id, safe='')}"
        if action == "show":
            _print_request(ApprovalRequest.from_dict(server.call("GET", path)), args)
            return 0
        body = {"reason": args.reason or ""}
        if action == "approve":
            body["grant"] = args.grant or "once"
        decided = ApprovalRequest.from_dict(server.call("POST", f"{path}/{action}", body))
    except ServiceRefused as exc:
        error(_clean(str(exc)))
        return 1 if exc.status in (401, 403, 409) else 2
    except ServiceError as exc:
        error(_clean(str(exc)))
        return 2
    except (KeyError, TypeError, ValueError) as exc:
        error(f"{server.address} answered something that is not an approval request: {exc!r}")
        return 2
    _print_decided(decided, action == "approve")
    return 0


def run(args: argparse.Namespace) -> int:
    from policy.approvals import AlreadyDecided, RequestNotFound, open_store
    from policy.approvals.rules import NotAllowed
    from policy.approvals.store import StoreMissing
    from policy.settings import load_settings

    action = args.approvals_command
    deciding = action in ("approve", "deny")
    identity: Identity | None = None
    try:
        settings = load_settings(args.config)
        if args.server or settings.server:
            return _via_service(settings, args)
        if deciding and args.identity is not None:
            # Known without the request: a non-root --as is refused before the store opens.
            identity = _identity(args, settings, None)
        uri = args.store or settings.approvals_store_uri
        store = open_store(uri, create=False)
    except StoreMissing as exc:
        # Nothing has asked there yet; the agent creates its store, never an approver.
        if action == "list":
            if args.format == "json":
                sys.stdout.write("[]\n")
            else:
                sys.stdout.write(f"no {args.state} approval requests ({exc})\n")
            return 0
        error(_clean(str(exc)))
        return 2
    except PolicyError as exc:
        error(_clean(str(exc)))
        return 2
    try:
        if action == "purge":
            return _purge(store, uri, settings, args)
        if not deciding:
            return _dispatch(store, uri, args)
        if identity is None:
            # The mapping is judged against the uid of the agent that filed this request.
            identity = _identity(args, settings, store.get(args.id).agent_uid)
        return _decide(store, args, identity, settings)
    except RequestNotFound as exc:
        error(_clean(str(exc)))
        return 2
    except NotAllowed as exc:
        error(_clean(str(exc)))
        _log_refusal(settings, args, identity, str(exc))
        return 1
    except AlreadyDecided as exc:
        error(_clean(str(exc)))
        return 1
    except (PolicyError, ValueError) as exc:
        error(_clean(str(exc)))
        return 2
    finally:
        store.close()
