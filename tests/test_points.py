"""The one table of hook points (policy.model.POINTS) and the layers that read it.

What a point means — payload field and type, valid actions, fail action, method
name, whether rules and CEL variables apply — is written once; these tests hold the
views other layers derive from it to what they always said.
"""

from __future__ import annotations

import typing

import pytest

from policy import Engine, hooks
from policy.model import POINTS, Action, Decision, HookPoint, ToolCall
from policy.packs.cel import VARIABLES_AT
from policy.packs.points import ACTION_POINTS, RULE_POINTS, SET_TARGETS
from policy.packs.schema import RulePoint
from policy.settings import Settings

TOOL_POINTS = {"before_tool", "after_tool"}
ALL_RULE_POINTS = {"before_tool", "after_tool", "before_llm", "after_llm", "user_prompt"}


def test_every_point_has_one_row_under_its_own_name() -> None:
    assert list(POINTS) == list(HookPoint)
    for point, spec in POINTS.items():
        assert spec.point is point
        if spec.field is None:
            assert spec.slot is None and not spec.actions
        else:
            assert Decision._fields[spec.slot or 0] == spec.field
            assert isinstance(spec.payload_type, type)


def test_a_failure_denies_the_tool_before_it_runs_and_aborts_the_turn_elsewhere() -> None:
    fails = {point.value: spec.fail_action for point, spec in POINTS.items()}
    assert fails == {
        "before_llm": Action.ABORT_TURN,
        "after_llm": Action.ABORT_TURN,
        "before_tool": Action.DENY_TOOL,
        "approve_tool": Action.DENY_TOOL,
        "after_tool": Action.ABORT_TURN,
        "user_prompt": Action.ABORT_TURN,
        "event": Action.CONTINUE,
    }


def test_the_pack_views_read_the_table() -> None:
    assert set(RULE_POINTS) == ALL_RULE_POINTS
    assert set(typing.get_args(RulePoint)) == ALL_RULE_POINTS  # the schema's Literal
    assert set(SET_TARGETS) == ALL_RULE_POINTS
    assert set(VARIABLES_AT) == ALL_RULE_POINTS
    valid_at = ACTION_POINTS
    assert valid_at == {
        "allow": {"before_tool"},
        "deny": {"before_tool"},
        "ask": {"before_tool"},
        "respond": {"before_tool"},
        "modify": ALL_RULE_POINTS,
        "abort_turn": ALL_RULE_POINTS,
        "hard_abort": ALL_RULE_POINTS,
        "log": ALL_RULE_POINTS,
    }
    for point in ALL_RULE_POINTS:
        has_tool = {"tool", "args", "commands"} <= VARIABLES_AT[point].keys()
        assert has_tool == (point in TOOL_POINTS), point
        assert POINTS[point].variables.items() <= VARIABLES_AT[point].items()


def test_the_decorators_and_the_registration_use_the_method_names() -> None:
    for point, spec in POINTS.items():
        decorator = getattr(hooks, spec.method)
        assert decorator.__name__ == spec.method
        hook = decorator(lambda *_: None, name=f"f-{point.value}")
        assert getattr(hook, spec.method) is hook.fn


@pytest.mark.parametrize("point", [p for p, s in POINTS.items() if s.actions])
def test_a_failing_interceptor_turns_into_the_fail_action_of_its_point(point: HookPoint) -> None:
    class Broken:
        name = "broken"
        inline = True

    def fail(*_args: object) -> None:
        raise RuntimeError("boom")

    setattr(Broken, POINTS[point].method, staticmethod(fail))
    with Engine(settings=Settings(audit_path=None), audit_stream=_Sink()) as engine:
        engine.register(Broken())
        call = ToolCall(tool="bash", args={"command": "ls"})
        payload = {
            HookPoint.BEFORE_TOOL: lambda: engine.before_tool(call),
            HookPoint.AFTER_TOOL: lambda: engine.after_tool(call, POINTS[point].payload_type()),
            HookPoint.BEFORE_LLM: lambda: engine.before_llm(POINTS[point].payload_type()),
            HookPoint.AFTER_LLM: lambda: engine.after_llm(POINTS[point].payload_type()),
            HookPoint.USER_PROMPT: lambda: engine.user_prompt(POINTS[point].payload_type()),
        }
        decision = payload[point]()
    assert decision.action is POINTS[point].fail_action
    assert decision.failure == "error"


class _Sink:
    def write(self, _text: str) -> int:
        return 0

    def flush(self) -> None:
        pass


def test_a_row_cannot_be_changed() -> None:
    spec = POINTS[HookPoint.BEFORE_TOOL]
    with pytest.raises(AttributeError, match="read-only"):
        spec.fail_action = Action.CONTINUE  # type: ignore[misc]
    with pytest.raises(TypeError):
        spec.variables["x"] = "string"  # type: ignore[index]
