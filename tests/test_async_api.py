"""The async twins decide exactly as the sync methods do."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from policy import (
    Action,
    ApprovalDecision,
    Decision,
    Engine,
    LLMRequest,
    LLMResponse,
    Prompt,
    ToolCall,
    ToolResult,
)
from policy.errors import TurnAborted
from tests.conftest import make_engine


class Mixed:
    """A sync interceptor and an async approver in one hook."""

    name = "mixed"

    def before_tool(self, call: ToolCall) -> Decision | None:
        if call.args.get("command") == "reboot":
            return Decision(Action.ABORT_TURN, reason="not today")
        if call.args.get("command") == "git push":
            return Decision(Action.CONTINUE, needs_approval=True)
        return None

    async def approve_tool(self, call: ToolCall) -> ApprovalDecision:
        await asyncio.sleep(0)
        return ApprovalDecision(False, reason="async approver says no")

    def covers(self, call: ToolCall) -> bool:
        return call.args.get("command") == "git push"

    async def after_tool(self, call: ToolCall, result: ToolResult) -> Decision:
        return Decision(Action.MODIFY, result=result.replace(for_llm=result.for_llm + "!"))

    async def before_llm(self, request: LLMRequest) -> Decision:
        return Decision(Action.MODIFY, request=request.replace(model="small"))

    def after_llm(self, response: LLMResponse) -> None:
        return None

    async def user_prompt(self, prompt: Prompt) -> Decision:
        return Decision(Action.ABORT_TURN, reason="no prompts today")


@pytest.fixture
def mixed(audit_log: Path) -> Engine:
    engine = make_engine(audit_log)
    engine.register(Mixed())
    return engine


def test_async_twins_match_the_sync_methods(mixed: Engine) -> None:
    def bash(command: str) -> ToolCall:
        return ToolCall(tool="Bash", args={"command": command})

    async def run() -> None:
        for command in ["ls", "reboot", "git push"]:
            sync = mixed.before_tool(bash(command))
            asynchronous = await mixed.abefore_tool(bash(command))
            assert (sync.action, sync.reason, sync.needs_approval) == (
                asynchronous.action,
                asynchronous.reason,
                asynchronous.needs_approval,
            )
        assert not (await mixed.aapprove_tool(bash("git push"))).approved
        assert not mixed.approve_tool(bash("git push")).approved
        after = await mixed.aafter_tool(bash("ls"), ToolResult(for_llm="ok"))
        assert after.result is not None and after.result.for_llm == "ok!"
        request = await mixed.abefore_llm(LLMRequest(model="big"))
        assert request.request is not None and request.request.model == "small"
        assert (await mixed.aafter_llm(LLMResponse(content="x"))).action is Action.CONTINUE
        assert (await mixed.auser_prompt(Prompt(text="hi"))).action is Action.ABORT_TURN

    try:
        asyncio.run(run())
    finally:
        mixed.close()


def test_arun_tool_with_an_async_executor(mixed: Engine) -> None:
    async def execute(call: ToolCall) -> ToolResult:
        await asyncio.sleep(0)
        return ToolResult(for_llm=f"ran {call.args['command']}")

    async def run() -> None:
        result = await mixed.arun_tool(ToolCall(tool="bash", args={"command": "ls"}), execute)
        assert result.for_llm == "ran ls!"
        denied = await mixed.arun_tool(ToolCall(tool="bash", args={"command": "git push"}), execute)
        assert denied.is_error
        assert denied.for_llm == "Tool execution denied by approval hook: async approver says no"
        with pytest.raises(TurnAborted):
            await mixed.arun_tool(ToolCall(tool="bash", args={"command": "reboot"}), execute)

    try:
        asyncio.run(run())
    finally:
        mixed.close()


def test_a_closed_engine_refuses_to_decide(mixed: Engine) -> None:
    from policy.errors import EngineClosedError

    mixed.close()
    mixed.close()  # idempotent
    with pytest.raises(EngineClosedError):
        mixed.before_tool(ToolCall(tool="bash"))
