"""Approvals: requests that wait for a person, the stores they wait in, and grants.

The `approval` builtin (policy.builtins.approval) creates a request when a call
needs approval and waits on the store until somebody decides it — through
`policy approvals approve ID`, or any code holding the same store — or until its
deadline, when the call is denied. See docs/approvals.md.
"""

from __future__ import annotations

from policy.approvals.store import (
    AlreadyClaimed,
    AlreadyDecided,
    ApprovalRequest,
    ApprovalStore,
    Grant,
    RequestNotFound,
    StoreError,
    call_digest,
    open_store,
)

__all__ = [
    "AlreadyClaimed",
    "AlreadyDecided",
    "ApprovalRequest",
    "ApprovalStore",
    "Grant",
    "RequestNotFound",
    "StoreError",
    "call_digest",
    "open_store",
]
