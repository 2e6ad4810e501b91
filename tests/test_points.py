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
ALL_RULE_POINTS = {"before_tool", "after_tool", "before_llm", "after_llm", "user_prompt", "stop"}


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
        "stop": Action.ABORT_TURN,  # a failure never keeps the agent going
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
        decision = engine.decide_at(point, *_parts(point))
    assert isinstance(decision, Decision)
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


def test_every_list_of_points_elsewhere_is_read_from_the_table() -> None:
    from policy.cli.commands import EVAL_POINTS as EVAL_CHOICES
    from policy.codec import PART_TYPES
    from policy.server.app import DECIDE_POINTS

    everything = [point.value for point in POINTS]
    assert list(EVAL_CHOICES) == [p for p in everything if p != "event"]
    assert list(DECIDE_POINTS) == [p for p in everything if p != "approve_tool"]
    assert {part for spec in POINTS.values() for part in spec.parts} == set(PART_TYPES)
    assert [POINTS[p].parts for p in ("before_tool", "after_tool", "before_llm", "event")] == [
        ("call",),
        ("call", "result"),
        ("request",),
        ("event",),
    ]


def _parts(point: HookPoint) -> tuple[object, ...]:
    call = ToolCall(tool="bash", args={"command": "ls"})
    made = {"call": call, "event": POINTS[HookPoint.EVENT].payload_type(kind="x")}
    return tuple(made.get(name) or POINTS[point].payload_type() for name in POINTS[point].parts)


@pytest.mark.parametrize("point", [p for p, s in POINTS.items() if s.field is not None])
def test_decide_at_is_the_points_own_method(point: HookPoint) -> None:
    """`decide_at(point, *parts)` answers what the point's method answers: the one path
    the CLI, the service, pack tests and the remote client take."""

    class Rewrites:
        name = "rewrites"
        inline = True

    field = POINTS[point].field

    def rewrite(*parts: object) -> Decision:
        return Decision(Action.MODIFY, reason=f"at {point}", **{field: parts[-1]})  # type: ignore[arg-type]

    setattr(Rewrites, POINTS[point].method, staticmethod(rewrite))
    with Engine(settings=Settings(audit_path=None), audit_stream=_Sink()) as engine:
        engine.register(Rewrites())
        by_name = engine.decide_at(point.value, *_parts(point))
        method = getattr(engine, POINTS[point].method, None)  # a new point may have none
        by_method = by_name if method is None else method(*_parts(point))
    assert isinstance(by_name, Decision) and isinstance(by_method, Decision)
    assert (by_name.action, by_name.reason) == (by_method.action, by_method.reason)
    assert by_name.reason == f"at {point.value}"  # the hook at that point answered


def test_decide_at_refuses_an_unknown_point_and_the_wrong_parts() -> None:
    from policy.errors import InputError

    with Engine(settings=Settings(audit_path=None), audit_stream=_Sink()) as engine:
        with pytest.raises(InputError, match="unknown hook point 'before_subagent'"):
            engine.decide_at("before_subagent", ToolCall(tool="x"))
        with pytest.raises(InputError, match="after_tool decides about call, result"):
            engine.decide_at("after_tool", ToolCall(tool="x"))
        assert engine.decide_at("event", _parts(HookPoint.EVENT)[0]) is None


def test_a_points_map_variable_no_reader_was_written_for_is_its_payloads_own_fields() -> None:
    """What a rule sees of a point added to the table: its payload's fields as a map
    (policy.packs.runtime), the caller's identity left to the variables that carry it."""
    from policy.model import Prompt
    from policy.packs.runtime import _fields_map

    assert _fields_map(Prompt(text="hi", sender="alice", session="s1")) == {"text": "hi"}
