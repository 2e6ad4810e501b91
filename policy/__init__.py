"""hookpolicy: policy-as-configuration governance for AI-agent hooks.

    from policy import Engine, ToolCall, Decision, Action, HookPoint

Names are imported on first use, so `import policy` (and every `policy` CLI
command) pays only for what it touches.
"""

from __future__ import annotations

from policy import hosting as _hosting
from policy._version import __version__

# Every `policy` command imports this package, the thin client of `policy serve` among
# them, which must start in about the interpreter's own time: no `typing` (with `re`
# behind it) at run time (policy.hosts.claude.thin).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from policy.engine import Engine
    from policy.errors import (
        HardAborted,
        HookRegistrationError,
        InputError,
        PolicyError,
        SettingsError,
        TurnAborted,
    )
    from policy.hooks import (
        after_llm,
        after_tool,
        approve_tool,
        before_llm,
        before_tool,
        on_event,
        on_stop,
        user_prompt,
    )
    from policy.model import (
        Action,
        ApprovalDecision,
        ApprovalGate,
        CallContext,
        Decision,
        Event,
        HookPoint,
        LLMRequest,
        LLMResponse,
        Prompt,
        Stop,
        ToolCall,
        ToolResult,
    )
    from policy.settings import Settings

_EXPORTS = {
    "Engine": "policy.engine",
    "Settings": "policy.settings",
    "Action": "policy.model",
    "ApprovalDecision": "policy.model",
    "ApprovalGate": "policy.model",
    "CallContext": "policy.model",
    "Decision": "policy.model",
    "Event": "policy.model",
    "HookPoint": "policy.model",
    "LLMRequest": "policy.model",
    "LLMResponse": "policy.model",
    "Prompt": "policy.model",
    "Stop": "policy.model",
    "ToolCall": "policy.model",
    "ToolResult": "policy.model",
    "PolicyError": "policy.errors",
    "SettingsError": "policy.errors",
    "HookRegistrationError": "policy.errors",
    "InputError": "policy.errors",
    "TurnAborted": "policy.errors",
    "HardAborted": "policy.errors",
    "before_tool": "policy.hooks",
    "after_tool": "policy.hooks",
    "before_llm": "policy.hooks",
    "after_llm": "policy.hooks",
    "user_prompt": "policy.hooks",
    "approve_tool": "policy.hooks",
    "on_event": "policy.hooks",
    "on_stop": "policy.hooks",
}

__all__ = [
    "Action",
    "ApprovalDecision",
    "ApprovalGate",
    "CallContext",
    "Decision",
    "Engine",
    "Event",
    "HardAborted",
    "HookPoint",
    "HookRegistrationError",
    "InputError",
    "LLMRequest",
    "LLMResponse",
    "PolicyError",
    "Prompt",
    "Settings",
    "SettingsError",
    "Stop",
    "ToolCall",
    "ToolResult",
    "TurnAborted",
    "__version__",
    "after_llm",
    "after_tool",
    "approve_tool",
    "before_llm",
    "before_tool",
    "on_event",
    "on_stop",
    "user_prompt",
]


def _build_hosted(*args: Any) -> Any:
    """The engine's hosted hooks, built by the hosts layer (policy.hosting): imported
    here, at the edge, and only when a setting names one."""
    from policy.hosts.hosted import build_hosted

    return build_hosted(*args)


_hosting.builder = _build_hosted


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'policy' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return __all__
