"""OpenClaw.NET plugin-bridge hooks: its `hook_before` / `hook_after` params in, `{allow}` out.

Facts from OpenClaw.NET's `src/OpenClaw.Agent/Plugins/BridgedToolHook.cs`,
`PluginBridgeProcess.cs`, `BridgeTransportBase.cs` and `src/OpenClaw.Core/Plugins/
PluginModels.cs` (the code wins where `docs/HOOKS.md` differs):

* params are camelCase (`eventName`, `toolName`, `arguments`; hook_after adds `result`,
  `durationMs`, `failed`). `arguments` is the call's arguments as a JSON *string*, not an
  object. Nothing says who asked: BridgedToolHook is a plain `IToolHook`, so no session,
  channel, sender or call id ever reaches a bridge.
* The host reads `result.allow` and nothing else. No answer within 5 s, an error reply, a
  result without `allow`, or an `allow` that is not a boolean all ALLOW the call. So a
  refusal is always `{"allow": false}`, never an error; `reason` is for logs and the JS
  side only (the model is told "Tool execution denied by hook: plugin:<id>").
* The bridge cannot rewrite a call or supply its result, and a hook has no time to wait
  for a person: those decisions become denials that say why.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from policy.errors import InputError
from policy.model import Action, Decision, ToolCall, ToolResult

__all__ = [
    "AFTER_EVENT",
    "APPROVAL_DENIED",
    "BEFORE_EVENT",
    "HOST",
    "before_answer",
    "call_of",
    "init_answer",
    "refusal",
    "result_of",
]

HOST = "openclaw"
BEFORE_EVENT = "tool:before"
AFTER_EVENT = "tool:after"

#: Why a call our rules send to approval is denied on OpenClaw rather than held.
APPROVAL_DENIED = (
    "OpenClaw's bridge allows a call whose hook has not answered within 5 s, so nobody can "
    "approve it in time: denied"
)


def _param(params: Mapping[str, Any], name: str) -> Any:
    # plugin-bridge.mjs's getParam reads camelCase, then PascalCase; so do we.
    value = params.get(name)
    if value is None:
        value = params.get(name[:1].upper() + name[1:])
    return value


def _arguments(params: Mapping[str, Any]) -> dict[str, Any]:
    raw = _param(params, "arguments")
    if not isinstance(raw, str):
        kind = "missing" if raw is None else _kind(raw)
        raise InputError(f"params.arguments must be the arguments as a JSON string; it is {kind}")
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError(f"params.arguments is not valid JSON: {exc}") from exc
    if not isinstance(parsed, dict):
        raise InputError(f"params.arguments must encode a JSON object; it encodes {_kind(parsed)}")
    return parsed


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return "null"


def call_of(params: Any) -> ToolCall:
    """The call a `hook_before` / `hook_after` describes; InputError when it cannot be read.

    The engine canonicalises the tool name (`shell` -> `bash`); `tool_raw` keeps OpenClaw's.
    """
    if not isinstance(params, Mapping):
        raise InputError("params must be an object")
    tool = _param(params, "toolName")
    if not isinstance(tool, str) or not tool:
        raise InputError("params.toolName must be a tool name")
    event = _param(params, "eventName")
    return ToolCall(
        tool=tool,
        args=_arguments(params),
        host=HOST,
        meta={"eventName": event if isinstance(event, str) else ""},
    )


def result_of(params: Mapping[str, Any]) -> ToolResult:
    text = _param(params, "result")
    duration = _param(params, "durationMs")
    return ToolResult(
        for_llm=text if isinstance(text, str) else "",
        is_error=_param(params, "failed") is True,
        duration=duration / 1000 if isinstance(duration, int | float) else 0.0,
    )


def refusal(reason: str) -> dict[str, Any]:
    return {"allow": False, "reason": reason}


def before_answer(decision: Decision) -> dict[str, Any]:
    """`{allow, reason}` for a before_tool decision: allow only a call to run as asked."""
    action = decision.action
    reason = decision.reason
    if action in (Action.DENY_TOOL, Action.ABORT_TURN, Action.HARD_ABORT):
        # OpenClaw has no way to end the turn from a hook; refusing the call is the most.
        return refusal(reason or f"{action.value} by policy")
    if action is Action.RESPOND:
        return refusal(
            f"the policy answers this call itself ({reason or 'respond'}), and OpenClaw's "
            "bridge cannot hand a tool result back: denied"
        )
    if action is Action.MODIFY:
        return refusal(
            f"the policy rewrites this call ({reason or 'modify'}), and OpenClaw's bridge can "
            "only allow or deny: denied rather than run unrewritten"
        )
    if decision.needs_approval:
        return refusal(f"{reason or 'approval required'}; {APPROVAL_DENIED}")
    return {"allow": True, "reason": reason or "allowed by policy"}


def init_answer(diagnostics: list[dict[str, Any]]) -> dict[str, Any]:
    """A `BridgeInitResult` that subscribes to both tool events.

    Always `compatible: true`: an incompatible (or failed) init unloads the plugin, and an
    unloaded plugin is no hook at all — every call would run. A broken engine is reported
    in `diagnostics` and refuses each call instead.
    """
    return {
        "tools": [],
        "channels": [],
        "commands": [],
        "eventSubscriptions": [BEFORE_EVENT, AFTER_EVENT],
        "providers": [],
        "capabilities": ["hooks"],
        "diagnostics": diagnostics,
        "compatible": True,
    }
