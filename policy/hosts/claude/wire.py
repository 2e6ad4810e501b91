"""Claude Code's hook vocabulary, which Agentao speaks too: payloads both ways, the
event list, and the JSON answers.

Pure mapping, no engine, and cheap to import (it is on the path of every one-event
`policy hook claude`). Used in both directions: `event_of` reads a payload the host
sent us (Claude Code's snake_case one, or Agentao's flat `{event, data{toolName,
toolInput, sessionId, ...}}` envelope) into a `HookEvent`, and `call_of` / `result_of`
/ `prompt_of` make the model's objects of it; `payload` / `*_fields` write the same
shapes for the hooks we run ourselves (`claude.hosted`); the `answer_*` functions turn
our decisions into the JSON each host reads. `EVENTS` is the one list of the hosts'
events and the point of our chain each runs at, for the hook process and the
hooks-file loader alike. What differs between the hosts (the `host` id of their calls,
which of them speak the flat shape) is their `claude.dialect`.

Facts this follows (DESIGN §7, checked by running the hosts): both hosts FAIL OPEN on
a hook that crashes, times out or prints anything but JSON, so every refusal is an
explicit JSON answer with exit 0. Claude Code's PreToolUse reads
`hookSpecificOutput.permissionDecision` allow/deny/ask (+ reason, + `updatedInput`
that replaces the whole input; `updatedInput` without a decision is applied too, and
Claude Code's own permission flow then judges the rewritten input); PostToolUse,
UserPromptSubmit and Stop read `decision: "block"` + `reason`; `continue: false` +
`stopReason` ends the session's turn. Agentao reads `permissionDecision`; it applies
`updatedInput` and honours exit 2 only for hooks in Claude's nested shape (checked by
running 0.5.17), not in its flat one. A call no rule decided gets no opinion (empty
output), so the host's own permission rules still apply.
"""

from __future__ import annotations

from policy.errors import InputError
from policy.hosts.claude.dialect import DIALECTS

# The thin client imports this module for its refusals (`answer_denied`) and loads
# neither `typing` nor `collections` (policy.hosts.claude.thin): `Mapping` is imported
# where a payload is read.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal

    from policy.hosts.claude.dialect import Dialect
    from policy.model import CallContext, Prompt, Stop, ToolCall, ToolResult

__all__ = [
    "EVENTS",
    "GUARD_EVENTS",
    "POINT_EVENTS",
    "REFUSING_EVENTS",
    "TOOL_EVENTS",
    "HookEvent",
    "answer_denied",
    "answer_post_tool",
    "answer_pre_tool",
    "answer_prompt",
    "answer_rewritten",
    "answer_stop",
    "answer_stop_turn",
    "call_of",
    "event_of",
    "payload",
    "prompt_fields",
    "prompt_of",
    "result_fields",
    "result_of",
    "stop_fields",
    "stop_of",
    "tool_fields",
]

#: Every hook event the hosts know, and the point of our chain it runs at (None: no
#: point — `policy hook` only observes it, and a hooks file we host may not use it).
#: The first four are in the order the loader's messages list them.
EVENTS: Mapping[str, str | None] = {
    "PreToolUse": "before_tool",
    "PostToolUse": "after_tool",
    "PostToolUseFailure": "after_tool",
    "UserPromptSubmit": "user_prompt",
    "Stop": "stop",
    "StopFailure": None,
    "SubagentStart": None,
    "SubagentStop": "stop",
    "SessionStart": None,
    "SessionEnd": None,
    "Setup": None,
    "PreCompact": None,
    "PostCompact": None,
    "Notification": None,
    "PermissionRequest": None,
    "PermissionDenied": None,
    "PostToolBatch": None,
    "UserPromptExpansion": None,
    "TaskCreated": None,
    "TaskCompleted": None,
    "TeammateIdle": None,
    "WorktreeCreate": None,
    "WorktreeRemove": None,
    "ConfigChange": None,
    "InstructionsLoaded": None,
    "CwdChanged": None,
    "FileChanged": None,
    "Elicitation": None,
    "ElicitationResult": None,
}
#: The events that have a point in our chain.
POINT_EVENTS = tuple(name for name, point in EVENTS.items() if point is not None)
#: The events about one tool call (they carry tool_name and tool_input).
TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure"})
#: The events at which a hook guards: its verdict can stop the call or the prompt
#: before anything happens.
GUARD_EVENTS = frozenset({"PreToolUse", "UserPromptSubmit"})
#: Events with no point in our chain whose hooks can still refuse something in Claude
#: Code: a permission (PermissionRequest), a slash command's prompt, a settings change,
#: an MCP server's request for input. Their hooks stay the host's business, and `policy
#: check` says so, since a file that lists them guards less here than where it came from.
REFUSING_EVENTS = frozenset(
    {"PermissionRequest", "UserPromptExpansion", "ConfigChange", "Elicitation"}
)


# -------------------------------------------------------------- payload -> model


class HookEvent:
    """One hook invocation, whatever host shape it came in.

    A plain class, not a dataclass: building a dataclass costs ≈ 1 ms at import, a
    noticeable share of a one-event process."""

    __slots__ = (
        "cwd",
        "dialect",
        "flat",
        "host",
        "name",
        "prompt",
        "raw",
        "session",
        "tool",
        "tool_input",
        "tool_response",
        "tool_use_id",
        "user",
    )

    def __init__(
        self,
        host: str,  # which host's command started us (`policy hook claude|agentao`)
        name: str,  # Claude Code's hook_event_name
        session: str,
        cwd: str,
        tool: str = "",
        tool_input: Mapping[str, Any] | None = None,
        tool_use_id: str = "",
        tool_response: Any = None,
        prompt: str = "",
        raw: Mapping[str, Any] | None = None,
        flat: bool = False,  # Agentao's flat `{event, data}` envelope (its flat hooks.json)
        user: str | None = None,
    ) -> None:
        self.host = host
        self.dialect: Dialect = DIALECTS[host]
        self.name = name
        self.session = session
        self.cwd = cwd
        self.tool = tool
        self.tool_input = tool_input
        self.tool_use_id = tool_use_id
        self.tool_response = tool_response
        self.prompt = prompt
        self.raw = raw
        self.flat = flat
        #: Who asks, when a service decides for a hook (the socket peer's user): the
        #: hosts send no user id of their own.
        self.user = user

    def __repr__(self) -> str:
        return f"<HookEvent {self.host} {self.name} {self.tool!r}>"

    @property
    def sender(self) -> str:
        """Who is at the keyboard: the hosts send no user id, so the OS user stands in —
        the uid's name, not `$USER` / `$LOGNAME`, which whoever starts the hook sets;
        through `policy serve`, the user the kernel names as the hook's (`user`)."""
        if self.user is not None:
            return self.user
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


def event_of(payload: Any, host: str) -> HookEvent:
    """The hook event `host` (a `claude.dialect` name) sent in `payload`; InputError
    naming the field when it is malformed."""
    from collections.abc import Mapping

    if not isinstance(payload, Mapping):
        raise InputError(f"the hook payload must be a JSON object, not {type(payload).__name__}")
    if DIALECTS[host].flat_payloads and "event" in payload and "data" in payload:
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
    if name not in EVENTS:
        raise InputError(f"unknown hook event {name!r}")
    if name in TOOL_EVENTS:
        if not fields["tool"]:
            raise InputError(f"{name} without a tool name")
        if not isinstance(tool_input, Mapping):
            raise InputError(f"{name}: tool input must be an object")
    return HookEvent(host=host, name=name, raw=payload, **fields)


def call_of(event: HookEvent) -> ToolCall:
    """The tool call a tool event is about."""
    from policy.model import ToolCall

    return ToolCall(
        tool=event.tool,
        args=dict(event.tool_input or {}),
        session=event.session,
        cwd=event.cwd,
        sender=event.sender,
        host=event.dialect.host_id,
        call_id=event.tool_use_id,
    )


def result_of(event: HookEvent) -> ToolResult:
    """The result PostToolUse / PostToolUseFailure reports (as text: JSON when the host
    sent a structure)."""
    from policy._json_bytes import dumps
    from policy.model import ToolResult

    response = event.tool_response
    text = response if isinstance(response, str) else dumps(response).decode()
    return ToolResult(for_llm=text, is_error=event.name == "PostToolUseFailure")


def prompt_of(event: HookEvent) -> Prompt:
    """The prompt UserPromptSubmit carries."""
    from policy.model import Prompt

    return Prompt(
        text=event.prompt,
        session=event.session,
        cwd=event.cwd,
        sender=event.sender,
        host=event.dialect.host_id,
    )


def stop_of(event: HookEvent) -> Stop:
    """The end of the turn Stop / SubagentStop reports. Claude Code (2.1.197 and
    2.1.332, run) sends `stop_hook_active` and `last_assistant_message` at Stop;
    SubagentStop adds `agent_id` and `agent_type`. The transcript's path goes in
    `meta`, so the Stop hooks we host get it as Claude Code gave it."""
    from collections.abc import Mapping

    from policy.model import Stop

    raw: Mapping[str, Any] = event.raw or {}
    if event.flat:
        data = raw.get("data")
        raw = data if isinstance(data, Mapping) else {}
    active = raw.get("stop_hook_active", False)
    if not isinstance(active, bool):
        raise InputError(f"stop_hook_active must be true or false, not {active!r}")
    subagent = _text(raw.get("agent_type"), "agent_type")
    if event.name == "SubagentStop" and not subagent:
        subagent = "subagent"  # an older Claude Code that names no agent type
    meta = {key: raw[key] for key in ("transcript_path", "permission_mode") if key in raw}
    for key, value in meta.items():
        _text(value, key)
    return Stop(
        message=_text(raw.get("last_assistant_message"), "last_assistant_message"),
        subagent=subagent if event.name == "SubagentStop" else "",
        continued=active,
        session=event.session,
        cwd=event.cwd,
        agent=_text(raw.get("agent_id"), "agent_id"),
        sender=event.sender,
        host=event.dialect.host_id,
        meta=meta,
    )


# -------------------------------------------------------------- model -> payload


def payload(
    dialect: Dialect, event: str, context: CallContext, cwd: str, fields: Mapping[str, Any]
) -> dict[str, Any]:
    """The stdin document a hook in `dialect`'s file shape is sent at `event` (`fields`
    from the `*_fields` functions below), as its host sends it: Claude Code's nested
    hooks.json entries get Claude's snake_case payload, Agentao's flat entries its
    `{event, data}` envelope."""
    if dialect.flat_payloads:
        return {"event": event, "data": {**fields, "sessionId": context.session, "cwd": cwd}}
    meta = context.meta
    transcript = meta.get("transcript_path")
    mode = meta.get("permission_mode")
    return {
        "session_id": context.session,
        "transcript_path": transcript if isinstance(transcript, str) else None,
        "cwd": cwd,
        "permission_mode": mode if isinstance(mode, str) else "default",
        "hook_event_name": event,
        **fields,
    }


def tool_fields(
    dialect: Dialect, tool: str, tool_input: Mapping[str, Any], call_id: str
) -> dict[str, Any]:
    """The fields naming the tool call (names already the host's)."""
    if dialect.flat_payloads:
        return {"toolName": tool, "toolInput": tool_input, "toolUseId": call_id}
    return {"tool_name": tool, "tool_input": tool_input, "tool_use_id": call_id}


def result_fields(dialect: Dialect, *, failure: bool, text: str, duration: float) -> dict[str, Any]:
    """The fields PostToolUse (`failure`: PostToolUseFailure) adds about the result."""
    if dialect.flat_payloads:
        fields: dict[str, Any] = (
            {"error": text, "isInterrupt": None} if failure else {"toolOutput": text}
        )
        fields["durationMs"] = round(duration * 1000) if duration else None
        return fields
    return {"error": text} if failure else {"tool_response": text}


def prompt_fields(dialect: Dialect, text: str) -> dict[str, Any]:
    """The field UserPromptSubmit carries the prompt in."""
    return {"userMessage": text} if dialect.flat_payloads else {"prompt": text}


def stop_fields(stop: Stop) -> dict[str, Any]:
    """The fields Claude Code's Stop (SubagentStop when `stop.subagent`) sends: the
    keys 2.1.197 and 2.1.332 were seen sending (`background_tasks` and
    `session_crons`, which only Claude Code knows, are left out)."""
    fields: dict[str, Any] = {
        "stop_hook_active": stop.continued,
        "last_assistant_message": stop.message,
    }
    if stop.subagent:
        fields["agent_id"] = stop.agent
        fields["agent_type"] = stop.subagent
    return fields


# ------------------------------------------------------------- decision -> answer


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


def answer_rewritten(updated_input: Any) -> dict[str, Any]:
    """A rewrite with no permission decision. Claude Code (2.1.197 and 2.1.332, run)
    applies `updatedInput` alone and then runs its own permission flow on the
    rewritten input — rules, mode, dialog — where `allow` would have skipped it."""
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated_input}}


def with_pre_tool_context(answer: dict[str, Any] | None, context: str) -> dict[str, Any] | None:
    """`answer` (None: no opinion) with PreToolUse `additionalContext` for the model.
    Claude Code (2.1.197 and 2.1.332, run) shows it after the tool's result — and after
    a refusal's reason too — as "PreToolUse:<tool> hook additional context: …"; with no
    `permissionDecision` beside it, its own permission flow decides as usual."""
    if not context:
        return answer
    answer = dict(answer or {})
    specific = dict(answer.get("hookSpecificOutput") or {"hookEventName": "PreToolUse"})
    specific["additionalContext"] = context
    answer["hookSpecificOutput"] = specific
    return answer


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


def answer_stop(instruction: str) -> dict[str, Any]:
    """Keep the agent going at Stop / SubagentStop: Claude Code (2.1.197 and 2.1.332,
    run) hands `reason` to the model as the next user message ("Stop hook feedback:
    …"; 2.1.332 "Stop hook blocking error from command: …") and the turn goes on."""
    return {"decision": "block", "reason": instruction}


def answer_denied(event: str | None, reason: str, *, flat: bool = False) -> dict[str, Any]:
    """The refusal a failing hook prints: what blocks at `event` (a PreToolUse deny
    when the event is unknown, since that is the call most worth stopping)."""
    if event in ("PostToolUse", "PostToolUseFailure"):
        return answer_post_tool(event, reason)
    if event == "UserPromptSubmit":
        return answer_prompt(reason, flat=flat)
    if event in ("Stop", "SubagentStop"):
        return answer_stop_turn(reason)  # refusing at stop ends the turn (POINTS)
    return answer_pre_tool("deny", reason)
