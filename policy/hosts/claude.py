"""Claude Code and Agentao command hooks: their stdin payloads in, their JSON answers out.

Pure mapping, no engine: `event_of` reads a payload (Claude Code's snake_case one, or
Agentao's flat `{event, data{toolName, toolInput, sessionId, ...}}` envelope) into an
`Event`; the `answer_*` functions turn our decisions into the JSON each host reads.

Facts this follows (DESIGN §7, checked by running the hosts): both hosts FAIL OPEN on
a hook that crashes, times out or prints anything but JSON, so every refusal is an
explicit JSON answer with exit 0. Claude Code's PreToolUse reads
`hookSpecificOutput.permissionDecision` allow/deny/ask (+ reason, + `updatedInput`
that replaces the whole input); PostToolUse, UserPromptSubmit and Stop read
`decision: "block"` + `reason`; `continue: false` + `stopReason` ends the session's
turn. Agentao reads `permissionDecision`; it applies `updatedInput` and honours exit 2
only for hooks in Claude's nested shape (checked by running 0.5.17), not in its flat
one. A call no rule decided gets no opinion (empty output), so the host's own
permission rules still apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from policy.errors import InputError

__all__ = [
    "TOOL_EVENTS",
    "HookEvent",
    "answer_denied",
    "answer_post_tool",
    "answer_pre_tool",
    "answer_prompt",
    "answer_stop_turn",
    "event_of",
]

Host = Literal["claude", "agentao"]

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
KNOWN_EVENTS = TOOL_EVENTS | {
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
}


@dataclass(frozen=True, slots=True)
class HookEvent:
    """One hook invocation, whatever host shape it came in."""

    host: Host
    name: str  # Claude Code's hook_event_name
    session: str
    cwd: str
    tool: str = ""
    tool_input: Mapping[str, Any] | None = None
    tool_use_id: str = ""
    tool_response: Any = None
    prompt: str = ""
    raw: Mapping[str, Any] | None = None
    flat: bool = False  # Agentao's flat `{event, data}` envelope (its flat hooks.json)

    @property
    def sender(self) -> str:
        """Who is at the keyboard: the hosts send no user id, so the OS user stands in —
        the uid's name, not `$USER` / `$LOGNAME`, which whoever starts the hook sets."""
        import os
        import pwd  # here, not at the top: one import less per hook process

        try:
            return pwd.getpwuid(os.getuid()).pw_name
        except KeyError:
            return f"uid-{os.getuid()}"


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InputError(f"{where} must be a string, not {type(value).__name__}")
    return value


def event_of(payload: Any, host: Host) -> HookEvent:
    """The hook event in `payload`; InputError naming the field when it is malformed."""
    if not isinstance(payload, Mapping):
        raise InputError(f"the hook payload must be a JSON object, not {type(payload).__name__}")
    if host == "agentao" and "event" in payload and "data" in payload:
        data = payload["data"]
        if not isinstance(data, Mapping):
            raise InputError("data must be an object")
        name = _text(payload["event"], "event")
        tool_input = data.get("toolInput")
        fields: dict[str, Any] = {
            "session": _text(data.get("sessionId"), "data.sessionId"),
            "cwd": _text(data.get("cwd"), "data.cwd"),
            "tool": _text(data.get("toolName"), "data.toolName"),
            "tool_input": tool_input,
            "tool_use_id": _text(data.get("toolUseId"), "data.toolUseId"),
            # Agentao 0.5.17 `plugins/hooks/_payload.py`: toolOutput, userMessage.
            "tool_response": data.get("toolOutput", data.get("toolResponse")),
            "prompt": _text(data.get("userMessage", data.get("prompt")), "data.userMessage"),
            "flat": True,
        }
    else:
        name = _text(payload.get("hook_event_name"), "hook_event_name")
        tool_input = payload.get("tool_input")
        fields = {
            "session": _text(payload.get("session_id"), "session_id"),
            "cwd": _text(payload.get("cwd"), "cwd"),
            "tool": _text(payload.get("tool_name"), "tool_name"),
            "tool_input": tool_input,
            "tool_use_id": _text(payload.get("tool_use_id"), "tool_use_id"),
            "tool_response": payload.get("tool_response"),
            "prompt": _text(payload.get("prompt"), "prompt"),
        }
    if not name:
        raise InputError("the payload names no hook event (hook_event_name)")
    if name not in KNOWN_EVENTS:
        raise InputError(f"unknown hook event {name!r}")
    if name in TOOL_EVENTS:
        if not fields["tool"]:
            raise InputError(f"{name} without a tool name")
        if not isinstance(tool_input, Mapping):
            raise InputError(f"{name}: tool input must be an object")
    return HookEvent(host=host, name=name, raw=payload, **fields)


def answer_pre_tool(
    decision: Literal["allow", "deny", "ask"], reason: str, updated_input: Any = None
) -> dict[str, Any]:
    output: dict[str, Any] = {
        "hookEventName": "PreToolUse",
        "permissionDecision": decision,
        "permissionDecisionReason": reason,
    }
    if updated_input is not None:
        output["updatedInput"] = updated_input
    return {"hookSpecificOutput": output}


def answer_post_tool(event: str, reason: str, context: str = "") -> dict[str, Any]:
    """`block` feeds `reason` back to the model (the tool already ran)."""
    answer: dict[str, Any] = {"decision": "block", "reason": reason}
    if context:
        answer["hookSpecificOutput"] = {"hookEventName": event, "additionalContext": context}
    return answer


def answer_prompt(reason: str, *, flat: bool = False) -> dict[str, Any]:
    """Agentao's flat shape reads `blockingError` at UserPromptSubmit, not `decision`."""
    answer: dict[str, Any] = {"decision": "block", "reason": reason}
    if flat:
        answer["blockingError"] = reason
    return answer


def answer_stop_turn(reason: str) -> dict[str, Any]:
    return {"continue": False, "stopReason": reason}


def answer_denied(event: str | None, reason: str, *, flat: bool = False) -> dict[str, Any]:
    """The refusal a failing hook prints: what blocks at `event` (a PreToolUse deny
    when the event is unknown, since that is the call most worth stopping)."""
    if event in ("PostToolUse", "PostToolUseFailure"):
        return answer_post_tool(event, reason)
    if event == "UserPromptSubmit":
        return answer_prompt(reason, flat=flat)
    return answer_pre_tool("deny", reason)
