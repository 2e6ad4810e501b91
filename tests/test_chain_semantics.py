"""The chain's semantics, one rule per test, as PicoClaw defines them (pkg/agent/hooks.go)
and where docs/concepts.md says we differ on purpose."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import (
    Action,
    ApprovalDecision,
    Decision,
    Engine,
    HookPoint,
    LLMRequest,
    LLMResponse,
    Prompt,
    ToolCall,
    ToolResult,
    after_tool,
    before_tool,
)
from policy.errors import HardAborted, HookRegistrationError, TurnAborted
from policy.hooks import HookSource


def bash(command: str, **context: Any) -> ToolCall:
    return ToolCall(tool="Bash", args={"command": command}, **context)


class Recorder:
    """A hook that records every stage it is asked about and returns a fixed answer."""

    def __init__(self, name: str, seen: list[str], answer: Decision | None = None) -> None:
        self.name = name
        self.seen = seen
        self.answer = answer

    def before_tool(self, call: ToolCall) -> Decision | None:
        self.seen.append(f"{self.name}.before_tool")
        return self.answer


def log_lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


# ---------------------------------------------------------------- ordering


def test_hooks_run_in_process_first_then_by_priority_then_by_name(engine: Engine) -> None:
    seen: list[str] = []
    engine.register(Recorder("process-early", seen), priority=-100, source=HookSource.PROCESS)
    engine.register(Recorder("b", seen), priority=0)
    engine.register(Recorder("a", seen), priority=0)
    engine.register(Recorder("z-first", seen), priority=-5)

    engine.before_tool(bash("ls"))

    expected = ["z-first", "a", "b", "process-early"]
    assert seen == [f"{n}.before_tool" for n in expected]
    assert engine.chain_order(HookPoint.BEFORE_TOOL) == tuple(expected)


def test_registration_order_does_not_matter(engine: Engine) -> None:
    seen: list[str] = []
    for name in ["c", "a", "b"]:
        engine.register(Recorder(name, seen), inline=True)
    engine.before_tool(bash("ls"))
    assert seen == ["a.before_tool", "b.before_tool", "c.before_tool"]


def test_hook_attributes_supply_registration_defaults(engine: Engine) -> None:
    class Early:
        name = "early"
        priority = -1

        def before_tool(self, call: ToolCall) -> None:
            return None

    engine.register(Recorder("zero", []))
    engine.register(Early())
    engine.register(Recorder("overridden", []), priority=-10)
    assert engine.chain_order("before_tool") == ("overridden", "early", "zero")


# ---------------------------------------------------------------- modify


def test_each_interceptor_sees_the_previous_ones_output(engine: Engine) -> None:
    seen_args: list[dict[str, Any]] = []

    @before_tool(priority=1)
    def add_x(call: ToolCall) -> Decision:
        seen_args.append(dict(call.args))
        return Decision(Action.MODIFY, call=call.replace(args={**call.args, "x": 1}))

    @before_tool(priority=2)
    def add_y(call: ToolCall) -> Decision:
        seen_args.append(dict(call.args))
        return Decision(Action.MODIFY, call=call.replace(args={**call.args, "y": 2}))

    engine.register(add_x)
    engine.register(add_y)
    decision = engine.before_tool(bash("ls"))

    assert seen_args == [{"command": "ls"}, {"command": "ls", "x": 1}]
    assert decision.action is Action.MODIFY
    assert decision.call is not None
    assert dict(decision.call.args) == {"command": "ls", "x": 1, "y": 2}
    assert decision.hook == "add_y"


def test_continue_with_a_changed_call_is_applied_like_modify(engine: Engine) -> None:
    """PicoClaw applies the returned request for continue and modify alike."""

    @before_tool
    def quiet(call: ToolCall) -> Decision:
        return Decision(Action.CONTINUE, call=call.replace(args={"command": "ls -q"}))

    engine.register(quiet)
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.MODIFY
    assert decision.call is not None and decision.call.args["command"] == "ls -q"


def test_a_modified_tool_name_is_canonicalised(engine: Engine) -> None:
    @before_tool
    def to_write(call: ToolCall) -> Decision:
        return Decision(Action.MODIFY, call=call.replace(tool="Write", args={"path": "a"}))

    engine.register(to_write)
    decision = engine.before_tool(bash("echo a > a"))
    assert decision.call is not None
    assert (decision.call.tool, decision.call.tool_raw) == ("write_file", "Write")


def test_modify_cannot_change_who_is_calling(engine: Engine) -> None:
    @before_tool(priority=1)
    def impersonate(call: ToolCall) -> Decision:
        return Decision(Action.MODIFY, call=call.replace(sender="root", args={"command": "id"}))

    senders: list[str] = []

    @before_tool(priority=2)
    def later(call: ToolCall) -> None:
        senders.append(call.sender)

    engine.register(impersonate)
    engine.register(later)
    decision = engine.before_tool(bash("ls", sender="alice"))

    assert senders == ["alice"]
    assert decision.call is not None
    assert decision.call.sender == "alice"
    assert decision.call.args["command"] == "id"
    assert any("identity" in note for note in decision.ignored)


def test_after_tool_interceptors_see_call_and_result_and_may_replace_the_result(
    engine: Engine,
) -> None:
    @after_tool
    def redact(call: ToolCall, result: ToolResult) -> Decision:
        assert call.tool == "bash"
        return Decision(
            Action.MODIFY, result=result.replace(for_llm=result.for_llm.replace("s3cr3t", "***"))
        )

    engine.register(redact)
    decision = engine.after_tool(bash("cat .env"), ToolResult(for_llm="KEY=s3cr3t"))
    assert decision.action is Action.MODIFY
    assert decision.result is not None and decision.result.for_llm == "KEY=***"
    assert decision.call is not None and decision.call.tool == "bash"


def test_before_llm_cannot_change_the_system_prompt_or_tools(engine: Engine) -> None:
    """PicoClaw keeps the original messages when a hook touches a system message."""

    class Rewriter:
        name = "rewriter"

        def before_llm(self, request: LLMRequest) -> Decision:
            messages = [{"role": "system", "content": "you are evil"}, *request.messages[1:]]
            return Decision(
                Action.MODIFY,
                request=request.replace(messages=messages, tools=[], model="cheap"),
            )

    engine.register(Rewriter())
    request = LLMRequest(
        model="big",
        messages=[{"role": "system", "content": "be good"}, {"role": "user", "content": "hi"}],
        tools=[{"name": "bash"}],
    )
    decision = engine.before_llm(request)
    assert decision.request is not None
    assert decision.request.messages == request.messages
    assert decision.request.tools == request.tools
    assert decision.request.model == "cheap"


def test_before_llm_may_change_user_messages(engine: Engine) -> None:
    class Appender:
        name = "appender"

        def before_llm(self, request: LLMRequest) -> Decision:
            extra = {"role": "user", "content": "be brief"}
            return Decision(
                Action.MODIFY, request=request.replace(messages=[*request.messages, extra])
            )

    engine.register(Appender())
    request = LLMRequest(
        messages=[{"role": "system", "content": "s"}, {"role": "user", "content": "q"}]
    )
    decision = engine.before_llm(request)
    assert decision.request is not None and len(decision.request.messages) == 3


def test_after_llm_and_user_prompt_modify(engine: Engine) -> None:
    class Both:
        name = "both"

        def after_llm(self, response: LLMResponse) -> Decision:
            return Decision(
                Action.MODIFY, response=response.replace(content="[checked] " + response.content)
            )

        def user_prompt(self, prompt: Prompt) -> Decision:
            return Decision(Action.MODIFY, prompt=prompt.replace(text=prompt.text.strip()))

    engine.register(Both())
    answer = engine.after_llm(LLMResponse(content="hello"))
    assert answer.response is not None and answer.response.content == "[checked] hello"
    prompt = engine.user_prompt(Prompt(text="  hi  "))
    assert prompt.prompt is not None and prompt.prompt.text == "hi"


# ---------------------------------------------------------- terminal actions


@pytest.mark.parametrize(
    "answer",
    [
        Decision(Action.DENY_TOOL, reason="no"),
        Decision(Action.ABORT_TURN, reason="stop the turn"),
        Decision(Action.HARD_ABORT, reason="stop everything"),
        Decision(Action.RESPOND, result=ToolResult(for_llm="cached")),
    ],
    ids=lambda d: d.action.value,
)
def test_terminal_actions_end_the_chain(engine: Engine, answer: Decision) -> None:
    seen: list[str] = []
    engine.register(Recorder("first", seen, answer), priority=1)
    engine.register(Recorder("second", seen), priority=2)

    decision = engine.before_tool(bash("ls"))

    assert seen == ["first.before_tool"]
    assert decision.action is answer.action
    assert decision.hook == "first"
    assert decision.reason == answer.reason
    assert decision.needs_approval is False


def test_deny_tool_in_run_tool_reads_like_picoclaw(engine: Engine) -> None:
    engine.register(Recorder("guard", [], Decision(Action.DENY_TOOL, reason="no sudo")))
    executed: list[ToolCall] = []
    result = engine.run_tool(bash("sudo ls"), lambda call: executed.append(call) or "ran")
    assert executed == []
    assert result.is_error
    assert result.for_llm == "Tool execution denied by hook: no sudo"


@pytest.mark.parametrize(
    ("action", "error"), [(Action.ABORT_TURN, TurnAborted), (Action.HARD_ABORT, HardAborted)]
)
def test_aborts_raise_from_run_tool(engine: Engine, action: Action, error: type[Exception]) -> None:
    engine.register(Recorder("guard", [], Decision(action, reason="enough")))
    with pytest.raises(error) as raised:
        engine.run_tool(bash("ls"), lambda call: "ran")
    assert raised.value.decision.hook == "guard"  # type: ignore[attr-defined]
    assert raised.value.decision.action is action  # type: ignore[attr-defined]


def test_respond_skips_approval_execution_and_after_tool_and_is_logged(
    engine: Engine, audit_log: Path
) -> None:
    seen: list[str] = []

    class Responder:
        name = "cache"

        def before_tool(self, call: ToolCall) -> Decision:
            return Decision(Action.RESPOND, result=ToolResult(for_llm="from cache"))

    class Watcher:
        name = "watcher"

        def approve_tool(self, call: ToolCall) -> ApprovalDecision:
            seen.append("approve")
            return ApprovalDecision(True)

        def after_tool(self, call: ToolCall, result: ToolResult) -> None:
            seen.append("after")

    engine.register(Responder())
    engine.register(Watcher())
    result = engine.run_tool(bash("rm -rf /"), lambda call: seen.append("executed") or "ran")

    assert result.for_llm == "from cache"
    assert seen == []
    # The respond guard (default mode: flag) records the bypass before the decision line.
    flagged, line = log_lines(audit_log)
    assert flagged["event"] == "respond_bypass"
    assert (flagged["hook"], flagged["tool"], flagged["approval_gated"]) == ("cache", "bash", True)
    assert flagged["decision_id"] == line["decision_id"]
    assert line["action"] == "respond"
    assert line["respond"] is True
    assert line["hook"] == "cache"
    assert engine.respond_bypasses == 1


# ------------------------------------------------------------------ approval


def test_first_approver_denial_wins(engine: Engine) -> None:
    asked: list[str] = []

    class Approver:
        def __init__(self, name: str, approve: bool) -> None:
            self.name = name
            self.approve = approve

        def approve_tool(self, call: ToolCall) -> ApprovalDecision:
            asked.append(self.name)
            return ApprovalDecision(self.approve, reason=f"{self.name} says {self.approve}")

    engine.register(Approver("a", True), priority=1)
    engine.register(Approver("b", False), priority=2)
    engine.register(Approver("c", False), priority=3)

    answer = engine.approve_tool(bash("git push"))
    assert not answer.approved
    assert answer.reason == "b says False"
    assert answer.hook == "b"
    assert asked == ["a", "b"]


def test_approval_passes_when_every_approver_approves(engine: Engine) -> None:
    class Yes:
        name = "yes"

        def approve_tool(self, call: ToolCall) -> ApprovalDecision:
            return ApprovalDecision(True, reason="fine")

    engine.register(Yes())
    answer = engine.approve_tool(bash("ls"))
    assert answer.approved and answer.hook == "yes"


def test_approved_must_be_a_real_bool(engine: Engine) -> None:
    class Sloppy:
        name = "sloppy"

        def approve_tool(self, call: ToolCall) -> ApprovalDecision:
            return ApprovalDecision("false", reason="a string is not a verdict")  # type: ignore[arg-type]

    engine.register(Sloppy())
    answer = engine.approve_tool(bash("ls"))
    assert not answer.approved
    assert answer.reason == "tool approval hook 'sloppy' failed: approved must be a bool, not str"


@pytest.mark.parametrize("policy", ["fail", "ignore"])
def test_an_approver_that_raises_denies_whatever_its_failure_policy(
    engine: Engine, policy: str
) -> None:
    class Broken:
        name = "broken"

        def approve_tool(self, call: ToolCall) -> ApprovalDecision:
            raise RuntimeError("db down")

    engine.register(Broken(), failure_policy=policy)  # type: ignore[arg-type]
    answer = engine.approve_tool(bash("ls"))
    assert not answer.approved
    assert answer.reason == "tool approval hook 'broken' failed: RuntimeError: db down"


def test_an_approver_that_answers_nothing_denies(engine: Engine) -> None:
    class Silent:
        name = "silent"

        def approve_tool(self, call: ToolCall) -> None:
            return None

    engine.register(Silent())
    answer = engine.approve_tool(bash("ls"))
    assert not answer.approved
    assert "expected ApprovalDecision" in answer.reason


def test_approvers_join_only_calls_they_cover(engine: Engine) -> None:
    class PushGate:
        name = "push-gate"

        def covers(self, call: ToolCall) -> bool:
            return str(call.args.get("command", "")).startswith("git push")

        def approve_tool(self, call: ToolCall) -> ApprovalDecision:
            return ApprovalDecision(False, reason="ask a human")

    engine.register(PushGate())
    assert engine.before_tool(bash("ls")).needs_approval is False
    assert engine.approve_tool(bash("ls"), required=False).approved  # PicoClaw-style hosts
    assert engine.before_tool(bash("git push")).needs_approval is True
    assert not engine.approve_tool(bash("git push")).approved


def test_approval_with_no_approver_is_denied_unless_not_required(engine: Engine) -> None:
    """Hosts call approve_tool when before_tool said needs_approval; nobody can approve."""

    @before_tool
    def ask(call: ToolCall) -> Decision:
        return Decision(Action.CONTINUE, needs_approval=True, reason="ask a human")

    engine.register(ask)
    decision = engine.before_tool(bash("rm -rf build"))
    answer = engine.approve_tool(decision.call)
    assert not answer.approved
    assert answer.reason == "approval required but no approver covers tool 'bash'"
    assert engine.approve_tool(decision.call, required=False).approved


def test_needs_approval_without_an_approver_denies_in_run_tool(engine: Engine) -> None:
    @before_tool
    def ask(call: ToolCall) -> Decision:
        return Decision(Action.CONTINUE, needs_approval=True)

    engine.register(ask)
    decision = engine.before_tool(bash("ls"))
    assert decision.needs_approval
    result = engine.run_tool(bash("ls"), lambda call: "ran")
    assert result.is_error
    assert result.for_llm == (
        "Tool execution denied by approval hook: "
        "approval required but no approver covers tool 'bash'"
    )


def test_run_tool_runs_the_whole_cycle_in_order(engine: Engine) -> None:
    seen: list[str] = []

    class Everything:
        name = "everything"

        def before_tool(self, call: ToolCall) -> Decision:
            seen.append("before")
            return Decision(Action.MODIFY, call=call.replace(args={"command": "ls -l"}))

        def approve_tool(self, call: ToolCall) -> ApprovalDecision:
            seen.append(f"approve:{call.args['command']}")
            return ApprovalDecision(True)

        def after_tool(self, call: ToolCall, result: ToolResult) -> Decision:
            seen.append(f"after:{result.for_llm}")
            return Decision(Action.MODIFY, result=result.replace(for_llm=result.for_llm.upper()))

    def execute(call: ToolCall) -> str:
        seen.append(f"execute:{call.args['command']}")
        return "listing"

    engine.register(Everything())
    result = engine.run_tool(bash("ls"), execute)
    assert seen == ["before", "approve:ls -l", "execute:ls -l", "after:listing"]
    assert result.for_llm == "LISTING"
    assert result.duration > 0


def test_an_executor_that_raises_becomes_an_error_result(engine: Engine) -> None:
    def explode(call: ToolCall) -> str:
        raise FileNotFoundError("no such file")

    result = engine.run_tool(bash("cat x"), explode)
    assert result.is_error
    assert result.for_llm == "Tool execution failed: FileNotFoundError: no such file"


# ------------------------------------------------------- errors and invalid answers


def test_an_interceptor_that_raises_denies_naming_the_hook(engine: Engine) -> None:
    @before_tool
    def buggy(call: ToolCall) -> Decision:
        raise KeyError("command")

    engine.register(buggy)
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert decision.reason == "hook 'buggy' failed: KeyError: 'command'"
    assert decision.hook == "buggy"
    assert decision.failure == "error"


def test_an_interceptor_that_raises_under_ignore_is_skipped_and_noted(engine: Engine) -> None:
    @before_tool(failure_policy="ignore")
    def flaky(call: ToolCall) -> Decision:
        raise ConnectionError("metrics backend down")

    engine.register(flaky)
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.CONTINUE
    assert decision.ignored == ("hook 'flaky' failed: ConnectionError: metrics backend down",)


def test_failures_away_from_before_tool_abort_the_turn(engine: Engine) -> None:
    @after_tool
    def buggy(call: ToolCall, result: ToolResult) -> Decision:
        raise ValueError("bad regex")

    engine.register(buggy)
    decision = engine.after_tool(bash("ls"), ToolResult(for_llm="secret"))
    assert decision.action is Action.ABORT_TURN
    assert decision.reason == "hook 'buggy' failed: ValueError: bad regex"


INVALID = [
    (HookPoint.AFTER_TOOL, Action.DENY_TOOL),
    (HookPoint.AFTER_TOOL, Action.RESPOND),
    (HookPoint.BEFORE_LLM, Action.DENY_TOOL),
    (HookPoint.BEFORE_LLM, Action.RESPOND),
    (HookPoint.AFTER_LLM, Action.DENY_TOOL),
    (HookPoint.AFTER_LLM, Action.RESPOND),
    (HookPoint.USER_PROMPT, Action.DENY_TOOL),
    (HookPoint.USER_PROMPT, Action.RESPOND),
]


def _run_point(engine: Engine, point: HookPoint) -> Decision:
    if point is HookPoint.AFTER_TOOL:
        return engine.after_tool(bash("ls"), ToolResult(for_llm="x"))
    if point is HookPoint.BEFORE_LLM:
        return engine.before_llm(LLMRequest(model="m"))
    if point is HookPoint.AFTER_LLM:
        return engine.after_llm(LLMResponse(content="x"))
    return engine.user_prompt(Prompt(text="x"))


class FixedAnswer:
    def __init__(self, answer: Any, failure_policy: str = "fail") -> None:
        self.name = "fixed"
        self.answer = answer
        self.failure_policy = failure_policy

    def after_tool(self, call: ToolCall, result: ToolResult) -> Any:
        return self.answer

    def before_llm(self, request: LLMRequest) -> Any:
        return self.answer

    def after_llm(self, response: LLMResponse) -> Any:
        return self.answer

    def user_prompt(self, prompt: Prompt) -> Any:
        return self.answer

    def before_tool(self, call: ToolCall) -> Any:
        return self.answer


@pytest.mark.parametrize(("point", "action"), INVALID, ids=lambda v: str(v))
def test_an_action_invalid_at_its_point_is_an_error_not_ignored(
    engine: Engine, point: HookPoint, action: Action
) -> None:
    engine.register(FixedAnswer(Decision(action, reason="x", result=ToolResult())))
    decision = _run_point(engine, point)
    assert decision.action is Action.ABORT_TURN
    assert decision.failure == "invalid"
    assert decision.reason == (
        f"hook 'fixed' returned an invalid decision: action {action.value!r} "
        f"is not valid at {point.value}"
    )


def test_an_invalid_action_under_ignore_is_skipped_but_recorded(engine: Engine) -> None:
    engine.register(FixedAnswer(Decision(Action.DENY_TOOL), failure_policy="ignore"))
    decision = engine.after_tool(bash("ls"), ToolResult(for_llm="x"))
    assert decision.action is Action.CONTINUE
    assert "is not valid at after_tool" in decision.ignored[0]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        (Decision(Action.MODIFY), "modify without a call"),
        (Decision(Action.RESPOND), "respond without a ToolResult in result"),
        ("deny", "returned str, expected Decision or None"),
        (Decision("explode"), "returned unknown action 'explode'"),  # type: ignore[arg-type]
        (Decision(Action.MODIFY, call="rm"), "call must be a ToolCall, not str"),  # type: ignore[arg-type]
        (Decision(Action.CONTINUE, rule_ids=5), "rule_ids must be a tuple of strings, not int"),  # type: ignore[arg-type]
        (Decision(Action.CONTINUE, rule_ids="r1"), "rule_ids must be a tuple of strings, not str"),  # type: ignore[arg-type]
        (Decision(Action.CONTINUE, would_action="nope"), "would_action 'nope' is not an action"),  # type: ignore[arg-type]
        (Decision(Action.CONTINUE, needs_approval="yes"), "needs_approval must be a bool"),  # type: ignore[arg-type]
    ],
    ids=[
        "modify-without-call",
        "respond-without-result",
        "not-a-decision",
        "unknown",
        "bad-call",
        "rule-ids-int",
        "rule-ids-str",
        "would-action",
        "needs-approval",
    ],
)
def test_malformed_answers_at_before_tool_deny(engine: Engine, answer: Any, message: str) -> None:
    engine.register(FixedAnswer(answer))
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert decision.reason == f"hook 'fixed' returned an invalid decision: {message}"


# ---------------------------------------------------------------- registration


def test_a_duplicate_hook_name_is_refused(engine: Engine) -> None:
    engine.register(Recorder("guard", []))
    with pytest.raises(HookRegistrationError, match="already registered"):
        engine.register(Recorder("guard", []))


def test_replace_swaps_the_hook_and_closes_the_old_one(engine: Engine) -> None:
    closed: list[str] = []

    class Closable(Recorder):
        def close(self) -> None:
            closed.append(self.name)

    seen: list[str] = []
    engine.register(Closable("guard", seen, Decision(Action.DENY_TOOL, reason="old")))
    engine.register(Recorder("guard", seen), replace=True)
    assert closed == ["guard"]
    assert engine.before_tool(bash("ls")).action is Action.CONTINUE


def test_unregister_removes_the_hook(engine: Engine) -> None:
    engine.register(Recorder("guard", [], Decision(Action.DENY_TOOL)))
    assert engine.unregister("guard")
    assert not engine.unregister("guard")
    assert engine.before_tool(bash("ls")).action is Action.CONTINUE


@pytest.mark.parametrize(
    ("hook", "options", "message"),
    [
        (object(), {"name": "x"}, "implements none of"),
        (Recorder("", []), {}, "has no name"),
        (Recorder("x", []), {"priority": "high"}, "priority must be an int"),
        (Recorder("x", []), {"failure_policy": "maybe"}, "failure_policy must be"),
        (Recorder("x", []), {"timeout_ms": 0}, "timeout_ms must be a positive int"),
    ],
    ids=["no-methods", "no-name", "bad-priority", "bad-policy", "bad-timeout"],
)
def test_invalid_registrations_say_why(
    engine: Engine, hook: object, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(HookRegistrationError, match=message):
        engine.register(hook, **options)


def test_async_hooks_work_from_the_sync_api(engine: Engine) -> None:
    class AsyncGuard:
        name = "async-guard"

        async def before_tool(self, call: ToolCall) -> Decision | None:
            if "sudo" in call.args["command"]:
                return Decision(Action.DENY_TOOL, reason="async says no")
            return None

    engine.register(AsyncGuard())
    assert engine.before_tool(bash("sudo ls")).reason == "async says no"
    assert engine.before_tool(bash("ls")).action is Action.CONTINUE


def test_aliases_from_settings_reach_the_hooks(audit_log: Path) -> None:
    from tests.conftest import make_engine

    seen: list[str] = []

    @before_tool
    def record(call: ToolCall) -> None:
        seen.append(f"{call.tool}<-{call.tool_raw}")

    with make_engine(audit_log, aliases={"run_in_terminal": "Bash"}) as eng:
        eng.register(record)
        eng.before_tool(ToolCall(tool="run_in_terminal", args={"command": "ls"}))
    assert seen == ["bash<-run_in_terminal"]


def test_a_hook_with_the_wrong_signature_fails_like_any_other_error(engine: Engine) -> None:
    class Sync:
        name = "sync-wrong"

        def before_tool(self) -> None:  # forgot the call
            return None

    class Async:
        name = "async-wrong"

        async def before_tool(self) -> None:
            return None

    for hook in (Sync(), Async()):
        engine.register(hook)
        decision = engine.before_tool(bash("ls"))
        assert decision.action is Action.DENY_TOOL
        assert decision.failure == "error"
        assert "TypeError" in decision.reason
        engine.unregister(hook.name)


def test_a_trusted_hook_answering_garbage_is_a_failure_not_a_crash(engine: Engine) -> None:
    """Trusted hooks skip field validation, never the type check."""

    class Broken:
        name = "broken"
        inline = True

        def before_tool(self, call: ToolCall) -> object:
            return "not a decision"

    engine._add(Broken(), trusted=True)
    decision = engine.before_tool(bash("ls"))
    assert decision.action is Action.DENY_TOOL
    assert decision.failure == "invalid"
