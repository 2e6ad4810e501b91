"""An example code hook: the kind of guard people write by hand today.

Run it through the chain with
    policy eval --hook examples/hooks/guard.py:Guard @examples/hooks/calls.jsonl
"""

from __future__ import annotations

from policy import Action, ApprovalDecision, Decision, ToolCall, ToolResult


class Guard:
    name = "example-guard"
    priority = 10

    def before_tool(self, call: ToolCall) -> Decision | None:
        command = str(call.args.get("command", ""))
        if call.tool == "bash" and "sudo" in command.split():
            return Decision(
                Action.DENY_TOOL, reason="sudo is not allowed", rule_ids=("guard/no-sudo",)
            )
        if call.tool == "get_weather":
            # A plugin tool implemented by the hook itself (PicoClaw's `respond`).
            return Decision(Action.RESPOND, result=ToolResult(for_llm="sunny, 21 °C"))
        if call.tool == "bash" and command.startswith("git push"):
            # Pushing needs a person; the approver below answers for them here.
            return Decision(Action.CONTINUE, needs_approval=True, rule_ids=("guard/ask-push",))
        if call.tool == "write_file" and str(call.args.get("path", "")).startswith("/tmp/"):
            # Rewrite scratch writes into the workspace instead of refusing them.
            moved = {**call.args, "path": "/srv/work/scratch/" + str(call.args["path"])[5:]}
            return Decision(
                Action.MODIFY, call=call.replace(args=moved), rule_ids=("guard/tmp-to-work",)
            )
        return None

    def approve_tool(self, call: ToolCall) -> ApprovalDecision:
        branch = str(call.args.get("command", "")).split()[-1]
        if branch in {"main", "master"}:
            return ApprovalDecision(False, reason="pushes to main need a pull request")
        return ApprovalDecision(True, reason="feature branch")

    def covers(self, call: ToolCall) -> bool:
        return call.tool == "bash" and str(call.args.get("command", "")).startswith("git push")
