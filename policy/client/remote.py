"""An engine whose decisions come from `policy serve`: what the long-running hook
servers (PicoClaw, OpenClaw) decide with when a service is configured.

It has the part of the Engine's surface those servers use — the decision points,
`approve_tool`, `emit`, `close` — and each call is one request to the service, which
holds the policy, the counters and the approvals. A call the service cannot answer
raises ServiceError, which the servers turn into a refusal of that call: there is no
local engine to fall back to, by design.
"""

from __future__ import annotations

import _socket
import contextlib
import socket
import sys
import threading
from typing import Any

from policy.client.transport import ServiceClient, ServiceRefused
from policy.codec import approval_from_dict, decision_from_dict, parts_to_json, to_dict
from policy.model import (
    ApprovalDecision,
    ApprovalGate,
    Decision,
    Event,
    HookPoint,
    LLMRequest,
    LLMResponse,
    Prompt,
    ToolCall,
    ToolResult,
)

__all__ = ["RemoteEngine"]

#: Seconds a decision may take at the service before this client refuses the call:
#: under PicoClaw's interceptor timeout (5 s), which skips — lets run — a hook that
#: answers later; a refusal must arrive in time to count.
DECISION_TIMEOUT = 4.0
#: Added to an approval's own budget for the answer to travel back.
_APPROVAL_MARGIN = 5.0
#: The longest an approval is waited on when the caller gives no timeout.
_APPROVAL_CAP = 24 * 3600.0


class RemoteEngine:
    """Decisions, approvals and events through the service at `server`."""

    #: A service that enforces nothing refuses at /readyz, and each decision says why.
    no_policy = ""

    def __init__(self, server: ServiceClient, *, timeout: float = DECISION_TIMEOUT) -> None:
        self.server = server
        self.timeout = timeout
        #: Connections of approve_tool calls in flight (abandon_approvals hangs them up).
        self._waiting: set[_socket.socket] = set()
        self._lock = threading.Lock()

    def _post(
        self, path: str, body: Any, timeout: float, track: set[_socket.socket] | None = None
    ) -> Any:
        status, _headers, answer = self.server.request(
            "POST", path, body, timeout=timeout, track=track, lock=self._lock
        )
        if status >= 300:
            detail = answer.get("error", answer.get("detail")) if isinstance(answer, dict) else None
            raise ServiceRefused(
                f"policy serve answered {status}: {detail if detail is not None else answer!r}",
                status,
                answer,
            )
        return answer

    def _decide(self, point: HookPoint, *parts: Any) -> Decision:
        body = parts_to_json(point, parts)
        return decision_from_dict(self._post(f"/v1/decide/{point}", body, self.timeout))

    def decide_at(
        self, point: HookPoint | str, *parts: Any, **options: Any
    ) -> Decision | ApprovalDecision | None:
        """`Engine.decide_at` through the service: the same parts, the same answers."""
        point = HookPoint(point)
        if point is HookPoint.APPROVE_TOOL:
            return self.approve_tool(*parts, **options)
        if point is HookPoint.EVENT:
            self.emit(*parts)
            return None
        return self._decide(point, *parts)

    def before_tool(self, call: ToolCall) -> Decision:
        return self._decide(HookPoint.BEFORE_TOOL, call)

    def after_tool(self, call: ToolCall, result: ToolResult) -> Decision:
        return self._decide(HookPoint.AFTER_TOOL, call, result)

    def before_llm(self, request: LLMRequest) -> Decision:
        return self._decide(HookPoint.BEFORE_LLM, request)

    def after_llm(self, response: LLMResponse) -> Decision:
        return self._decide(HookPoint.AFTER_LLM, response)

    def user_prompt(self, prompt: Prompt) -> Decision:
        return self._decide(HookPoint.USER_PROMPT, prompt)

    def approve_tool(
        self,
        call: ToolCall,
        *,
        timeout: float | None = None,
        required: bool = True,
        gates: tuple[ApprovalGate, ...] | None = None,
        defer: bool = False,
    ) -> ApprovalDecision:
        """The service asks the approvers and waits (within `timeout`, when given).
        `gates` are not sent: who must approve is the service's packs' answer for the
        call, never a client's (a client could name itself an easier gate)."""
        body: dict[str, Any] = {
            "call": to_dict(call),
            "timeout": timeout,
            "required": required,
            "defer": defer,
        }
        budget = (timeout if timeout is not None else _APPROVAL_CAP) + _APPROVAL_MARGIN
        return approval_from_dict(self._post("/v1/approve_tool", body, budget, track=self._waiting))

    def emit(self, event: Event) -> None:
        """Tell the service's observers; a failure is reported, never raised (observers
        decide nothing)."""
        try:
            self._post(
                "/v1/decide/event", parts_to_json(HookPoint.EVENT, (event,)), self.timeout
            )
        except Exception as exc:  # noqa: BLE001 - an event lost is logged, not a refusal
            sys.stderr.write(f"policy: event {event.kind} not delivered: {exc}\n")

    def abandon_approvals(self, reason: str) -> int:
        """Hang up every approval this client is waiting on: the service sees the
        connection close and expires those requests (policy.server.app), so nobody
        approves a call this host was already told is refused. The count hung up."""
        with self._lock:
            waiting = list(self._waiting)
        for sock in waiting:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        return len(waiting)

    def close(self) -> None:
        """Nothing is held between requests (one connection per request)."""
