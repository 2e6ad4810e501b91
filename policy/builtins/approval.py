"""The approval builtin: a call on a governed tool waits for a person (DESIGN §6.4).

It is an approver in the chain: `engine.approve_tool(call)` (or `run_tool`) reaches
it for every call its `tools` cover. It

1. admits the call without asking when a grant covers it — the same tool and
   arguments (the SHA-256 of their canonical JSON), in the same session (`session`)
   or from the same requester before the window closes (`window`);
2. denies without asking once the same call was denied `max_denials` times in the
   session;
3. otherwise files a request in the approval store and waits until a person
   decides it (`policy approvals approve ID`) or the timeout passes. Nobody
   answering is a denial; that is not configurable.

The answer names who decided and why; the engine logs it with the wait time.
Runs on a worker thread (not inline): it blocks for as long as the person takes.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time

from policy.aliases import AliasTable
from policy.approvals.rules import grant_seconds
from policy.approvals.store import (
    ApprovalRequest,
    ApprovalStore,
    Grant,
    GrantScope,
    StoreError,
    call_digest,
)
from policy.builtins._match import ToolSet
from policy.builtins.config import DEFAULT_PRIORITY, ApprovalConfig
from policy.digest import json_safe
from policy.model import ApprovalDecision, ToolCall

__all__ = ["Approval"]

log = logging.getLogger("policy.approvals")

#: The chain's own budget for this approver exceeds its wait by this much, so the
#: builtin's answer (with the request id and a clear reason) is the one that lands.
_GRACE_MS = 2000
_REMEMBERED = 4096  # sessions whose last approval is kept, to report changed arguments


class Approval:
    inline = False
    failure_policy = "fail"

    def __init__(
        self,
        pack: str,
        config: ApprovalConfig,
        aliases: AliasTable,
        store: ApprovalStore,
        *,
        default_timeout: float,
    ) -> None:
        self.name = f"builtin:{pack}/approval"
        self.pack = pack
        self.priority = (
            config.priority if config.priority is not None else DEFAULT_PRIORITY["approval"]
        )
        self.timeout = config.timeout_seconds or default_timeout
        self.timeout_ms = round(self.timeout * 1000) + _GRACE_MS
        self._tools = ToolSet(config.tools, aliases)
        self._approvers = tuple(config.approvers)
        self._self_approval = config.self_approval
        self._grants = tuple(config.grants)
        self._max_denials = config.max_denials
        self._store = store
        # (session, tool) -> (digest, request id) of the last approval: to say so when
        # the same tool comes back with other arguments. Bounded; memory only.
        self._last_approved: dict[tuple[str, str], tuple[str, str]] = {}
        # Requests being waited on, by call: what `abandon` withdraws.
        self._waiting: dict[tuple[str, str, str], str] = {}
        self._lock = threading.Lock()

    def covers(self, call: ToolCall) -> bool:
        return call.tool in self._tools

    def approve_tool(self, call: ToolCall) -> ApprovalDecision:
        digest = call_digest(call.tool, call.args, call.cwd)
        now = time.time()
        try:
            grant = self._store.find_grant(self.pack, digest, call.session, call.sender, now)
            if grant is not None:
                return ApprovalDecision(
                    True,
                    f"grant {grant.scope} by {grant.approver} (request {grant.request_id}) "
                    "covers this call",
                    approver=grant.approver,
                )
            if self._max_denials is not None:
                denied = self._store.denials(self.pack, digest, call.session)
                if denied >= self._max_denials:
                    return ApprovalDecision(
                        False,
                        f"this call was denied {denied} times in session {call.session!r}; "
                        "not asking again",
                    )
            return self._ask(call, digest, now)
        except StoreError as exc:
            return ApprovalDecision(False, f"approval store unavailable: {exc}")

    def _ask(self, call: ToolCall, digest: str, now: float) -> ApprovalDecision:
        request = ApprovalRequest(
            id=secrets.token_hex(6),
            tool=call.tool,
            digest=digest,
            # Verbatim: a person approves exactly what will run. Masking here let a
            # payload hide behind something that looked like a secret (`--password=x;curl|sh`).
            args=json_safe(call.args),
            requester=call.sender,
            session=call.session,
            pack=self.pack,
            created=now,
            deadline=now + self.timeout,
            approvers=self._approvers,
            self_approval=self._self_approval,
            grants=self._grants,
        )
        self._store.create(request)
        log.warning(
            "approval request %s: %s by %r waits up to %.0f s (policy approvals approve %s)",
            request.id,
            call.tool,
            call.sender,
            self.timeout,
            request.id,
        )
        previous = self._last_approved.get((call.session, call.tool))
        changed = (
            f"arguments changed since request {previous[1]} was approved; "
            if previous is not None and previous[0] != digest
            else ""
        )
        key = (digest, call.session, call.sender)
        with self._lock:
            self._waiting[key] = request.id
        try:
            final = self._store.wait(request.id, until=request.deadline)
        finally:
            with self._lock:
                if self._waiting.get(key) == request.id:
                    del self._waiting[key]
        if final.state == "pending":
            final = self._store.expire(request.id)
        if final.state == "approved":
            self._remember(final, call)
            suffix = f": {final.reason}" if final.reason else ""
            return ApprovalDecision(
                True,
                f"{changed}approved by {final.decided_by} (request {final.id}, "
                f"grant {final.grant}){suffix}",
                approver=final.decided_by,
            )
        if final.state == "denied":
            suffix = f": {final.reason}" if final.reason else ""
            return ApprovalDecision(
                False,
                f"{changed}denied by {final.decided_by} (request {final.id}){suffix}",
                approver=final.decided_by,
            )
        return ApprovalDecision(
            False, f"{changed}no approval within {self.timeout:g} s (request {final.id}): denied"
        )

    def abandon(self, call: ToolCall) -> None:
        """The chain gave up on this call (the caller's timeout was shorter than ours):
        expire its request now, so nobody approves a call that was already denied and
        the waiting thread returns."""
        key = (call_digest(call.tool, call.args, call.cwd), call.session, call.sender)
        with self._lock:
            request_id = self._waiting.get(key)
        if request_id is not None:
            self._store.expire(request_id)

    def _remember(self, request: ApprovalRequest, call: ToolCall) -> None:
        if len(self._last_approved) >= _REMEMBERED:
            self._last_approved.clear()
        self._last_approved[(call.session, call.tool)] = (request.digest, request.id)
        kind = request.grant.split("=", 1)[0]
        scope: GrantScope
        if kind == "session":
            scope, seconds = "session", None
        elif kind == "window":
            scope, seconds = "window", grant_seconds(request.grant)
        else:
            return
        self._store.add_grant(
            Grant(
                digest=request.digest,
                pack=self.pack,
                scope=scope,
                requester=call.sender,
                session=call.session,
                approver=request.decided_by,
                request_id=request.id,
                expires=None if seconds is None else time.time() + seconds,
            )
        )
