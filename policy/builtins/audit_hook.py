"""The audit hook: a record of every tool call and every result (DESIGN §6.6).

OpenClaw's AuditLogHook, into our hash-chained decision log: the call (tool,
who, argument size and digest) before it runs, the result (sizes, duration,
whether it failed) after. It never decides anything: it always continues, and
its registration uses failure_policy "ignore", so a record that cannot be
written becomes a warning on the decision, never a denial.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from policy.audit import DecisionLog, context_fields, cut, digested_args
from policy.builtins.priority import DEFAULT_PRIORITY
from policy.model import Decision, ToolCall

if TYPE_CHECKING:
    from policy.builtins.config import AuditHookConfig
    from policy.model.payloads import ToolResult

__all__ = ["AuditHook"]


class AuditHook:
    inline = True
    failure_policy = "ignore"
    #: Not asked again on a rewritten call (policy.rejudge): it records, and the
    #: decision log records the final call.
    rejudge = "never"

    def __init__(self, pack: str, config: AuditHookConfig, log: DecisionLog) -> None:
        self.name = f"builtin:{pack}/audit_hook"
        self.priority = (
            config.priority if config.priority is not None else DEFAULT_PRIORITY["audit_hook"]
        )
        self._log = log
        self._pack = pack
        if "before_tool" in config.points:
            self.before_tool = self._record_call
        if "after_tool" in config.points:
            self.after_tool = self._record_result

    def _who(self, call: ToolCall) -> dict[str, object]:
        """The call as the decision records name it: names cut, the principal given."""
        return {
            "pack": self._pack,
            "tool": cut(call.tool),
            "tool_raw": cut(call.tool_raw),
            "call_id": cut(call.call_id),
            **context_fields(call, self._log.workspace),
        }

    def _record_call(self, call: ToolCall) -> Decision | None:
        record = self._who(call)
        record["args_digest"], record["args_bytes"] = digested_args(call.args)
        # (written with the call's decision, which follows: one write for the two)
        self._log.write_with_next("audit.tool_call", record)
        return None

    def _record_result(self, call: ToolCall, result: ToolResult) -> Decision | None:
        record = self._who(call)
        record["is_error"] = result.is_error
        record["for_llm_chars"] = len(result.for_llm)
        record["for_user_chars"] = len(result.for_user)
        record["duration_ms"] = round(result.duration * 1000, 3)
        self._log.write("audit.tool_result", record)
        return None
