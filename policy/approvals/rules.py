"""Who may decide a request, and what they may grant: checked before the store records it.

Shared by every way of deciding (the CLI today, the HTTP inbox later), so the rules
cannot differ between them: an identity (policy.approvals.identity: who the OS, or
later the inbox, says is deciding) none of whose names matches the request's approver
globs is refused, the requester may not approve their own call unless the pack
allows it, and a grant must be one the pack allows (a `window` no longer than its cap).

The requester may always withdraw — deny — their own pending call, approver or not
(`withdraws`): who filed it is what the kernel or a token said when it was filed, the
uid (`agent_uid`) or `policy serve`'s principal, never a name the caller gives.
"""

from __future__ import annotations

import time

from policy.approvals.identity import Identity
from policy.approvals.store import AlreadyDecided, ApprovalRequest, ApprovalStore
from policy.errors import PolicyError

#: The longest reason an answer may give (a decision's reason is cut at the same length).
MAX_REASON = 4096

__all__ = ["NotAllowed", "decide", "grant_seconds", "withdraws"]

#: What `decided_by` adds for a denial by the requester, and the reason it records when
#: they give none.
WITHDRAWN = "requester, withdrawn"


class NotAllowed(PolicyError):
    """This identity may not make this decision; the request stays pending."""


def grant_seconds(grant: str) -> float | None:
    """Seconds of a `window=15m` grant (None for once/session; ValueError if malformed)."""
    from policy.durations import parse_duration

    if grant.startswith("window="):
        return parse_duration(grant.split("=", 1)[1])
    return None


def _allowed_grant(request: ApprovalRequest, grant: str) -> str:
    kind = grant.split("=", 1)[0]
    offered = {g.split("=", 1)[0]: g for g in request.grants}
    if kind not in offered:
        offers = ", ".join(request.grants)
        raise NotAllowed(f"grant {grant!r} is not offered for this request (offered: {offers})")
    if kind != "window":
        return kind
    cap = grant_seconds(offered["window"]) if "=" in offered["window"] else None
    asked = grant_seconds(grant) if "=" in grant else cap
    if asked is None:
        raise NotAllowed("a window grant needs a length: window=15m")
    if cap is not None and asked > cap:
        raise NotAllowed(f"grant {grant!r} is longer than the pack allows ({offered['window']})")
    # Whole seconds when whole (`window=1800s`); never exponent notation.
    return f"window={int(asked)}s" if asked.is_integer() else f"window={asked:.3f}s"


def withdraws(request: ApprovalRequest, identity: Identity) -> bool:
    """Whether `identity` denying `request` is its requester withdrawing the call.

    Through `policy serve` (`identity.principal` set): the principal the service
    recorded when the request was filed — the Unix-socket peer's uid, or a token —
    is the one asking now. From the OS (the CLI, `channel` "os user"): the uid the OS
    vouches for is the uid that filed it (`agent_uid`). Anything else — a request with
    no recorded filer, root acting `--as` somebody, an anonymous caller — is not."""
    if identity.principal:
        return (
            bool(request.principal)
            and request.principal == identity.principal
            and identity.principal != "anonymous"
        )
    return (
        identity.channel == "os user"
        and identity.uid is not None
        and request.agent_uid is not None
        and identity.uid == request.agent_uid
    )


def decide(
    store: ApprovalStore,
    request_id: str,
    *,
    approved: bool,
    identity: Identity | None = None,
    by: str | None = None,
    reason: str = "",
    grant: str = "once",
    now: float | None = None,
) -> ApprovalRequest:
    """Record `identity`'s answer if the request's rules allow it; NotAllowed or
    AlreadyDecided otherwise (the request then stays as it was).

    The request's approver globs admit the identity if any of its names matches, and
    `decided_by` records the first that does, with the OS user when it differs
    (`secops-alice (os user alice)`). Approving is self-approval — refused unless the
    request allows it — when the requester is the OS user or any of the names.
    `by="name"` is short for `identity=Identity("name")`, for callers that
    authenticated the name themselves. A denial by the requester (`withdraws`) needs
    no approver glob: `decided_by` records `name (requester, withdrawn)`.
    """
    from wcmatch import fnmatch as wfnmatch

    if len(reason) > MAX_REASON:
        # It goes into the store and the decision log, and anyone who files a request
        # may now withdraw it with one: bounded like a decision's reason.
        raise NotAllowed(f"the reason is longer than {MAX_REASON} characters ({len(reason)})")
    if identity is None:
        identity = Identity(by) if by else None
    request = store.get(request_id)
    if request.state != "pending":
        raise AlreadyDecided(request)
    if identity is None or not identity.user:
        raise NotAllowed("an approver identity is required")
    if not approved and withdraws(request, identity):
        return store.decide(
            request_id,
            approved=False,
            by=f"{identity.user} ({WITHDRAWN})",
            reason=reason or "withdrawn by the requester",
            now=time.time() if now is None else now,
        )
    flags = wfnmatch.BRACE | wfnmatch.DOTMATCH
    candidates = identity.candidates
    if request.approvers:
        matching = [
            name
            for name in candidates
            if wfnmatch.fnmatch(name, list(request.approvers), flags=flags)
        ]
        if not matching:
            names = " / ".join(repr(name) for name in candidates)
            user = "" if candidates == (identity.user,) else f"; os user {identity.user!r}"
            raise NotAllowed(
                f"{names} may not decide this request "
                f"(approvers: {', '.join(request.approvers)}{user})"
            )
        chosen = matching[0]
    else:
        chosen = candidates[0]
    if (
        approved
        and not request.self_approval
        and request.requester
        and request.requester in {identity.user, *candidates}
    ):
        who = "" if request.requester == chosen else f" (you are {identity})"
        raise NotAllowed(f"self-approval refused: {request.requester!r} asked for this call{who}")
    if (
        approved
        and not request.self_approval
        and identity.uid is not None
        and identity.uid == request.agent_uid
    ):
        # The requester's name comes from the host's environment; the uid that filed
        # the request does not. Approving from the agent's own uid is self-approval.
        raise NotAllowed(
            f"self-approval refused: uid {identity.uid} ({identity.user}) filed this request"
        )
    recorded = _allowed_grant(request, grant) if approved else "once"
    return store.decide(
        request_id,
        approved=approved,
        by=identity.label(chosen),
        reason=reason,
        grant=recorded,
        now=time.time() if now is None else now,
    )
