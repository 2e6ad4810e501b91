"""Who may decide a request, and what they may grant: checked before the store records it.

Shared by every way of deciding (the CLI today, the HTTP inbox later), so the rules
cannot differ between them: an identity outside the request's approver globs is
refused, the requester may not approve their own call unless the pack allows it,
and a grant must be one the pack allows (a `window` no longer than its cap).
"""

from __future__ import annotations

import time

from policy.approvals.store import AlreadyDecided, ApprovalRequest, ApprovalStore
from policy.errors import PolicyError

__all__ = ["NotAllowed", "decide", "grant_seconds"]


class NotAllowed(PolicyError):
    """This identity may not make this decision; the request stays pending."""


def grant_seconds(grant: str) -> float | None:
    """Seconds of a `window=15m` grant (None for once/session; ValueError if malformed)."""
    from policy.builtins.config import parse_duration

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


def decide(
    store: ApprovalStore,
    request_id: str,
    *,
    approved: bool,
    by: str,
    reason: str = "",
    grant: str = "once",
    now: float | None = None,
) -> ApprovalRequest:
    """Record `by`'s answer if the request's rules allow it; NotAllowed or AlreadyDecided."""
    from wcmatch import fnmatch as wfnmatch

    request = store.get(request_id)
    if request.state != "pending":
        raise AlreadyDecided(request)
    if not by:
        raise NotAllowed("an approver identity is required (--as NAME)")
    flags = wfnmatch.BRACE | wfnmatch.DOTMATCH
    if request.approvers and not wfnmatch.fnmatch(by, list(request.approvers), flags=flags):
        raise NotAllowed(
            f"{by!r} may not decide this request (approvers: {', '.join(request.approvers)})"
        )
    if approved and by == request.requester and not request.self_approval:
        raise NotAllowed(f"self-approval refused: {by!r} asked for this call")
    recorded = _allowed_grant(request, grant) if approved else "once"
    return store.decide(
        request_id,
        approved=approved,
        by=by,
        reason=reason,
        grant=recorded,
        now=time.time() if now is None else now,
    )
