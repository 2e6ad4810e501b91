"""Model values are immutable, canonical and cheap to copy with changes."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import orjson
import pytest

from policy import Action, Decision, ToolCall, ToolResult
from policy.aliases import DEFAULT_ALIASES, AliasConflictError
from policy.model import POINTS, FrozenDict, HookPoint, LLMRequest, freeze


def test_values_are_frozen() -> None:
    call = ToolCall(tool="bash", args={"command": "ls"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        call.tool = "read_file"  # type: ignore[misc]
    with pytest.raises(TypeError, match="immutable"):
        call.args["command"] = "rm -rf /"  # type: ignore[index]
    with pytest.raises(AttributeError):
        Decision(Action.CONTINUE).action = Action.DENY_TOOL  # type: ignore[misc]


def test_nested_arguments_are_frozen_all_the_way_down() -> None:
    original = {"env": {"PATH": "/bin"}, "argv": ["ls", "-la"]}
    call = ToolCall(tool="bash", args=original)
    original["env"]["PATH"] = "/tmp"  # the caller's dict does not leak in
    assert call.args["env"]["PATH"] == "/bin"
    assert call.args["argv"] == ("ls", "-la")
    with pytest.raises(TypeError):
        call.args["env"]["PATH"] = "/evil"
    with pytest.raises(TypeError):
        call.args["env"].update(PATH="/evil")


def test_frozen_dicts_are_still_dicts_for_json_and_copies() -> None:
    frozen = freeze({"a": [1, {"b": 2}]})
    assert isinstance(frozen, dict)
    assert orjson.loads(orjson.dumps(frozen)) == {"a": [1, {"b": 2}]}
    assert pickle.loads(pickle.dumps(frozen)) == frozen
    assert copy.deepcopy(frozen) == frozen
    assert isinstance(frozen, FrozenDict) and hash(FrozenDict({"x": 1})) == hash(
        FrozenDict({"x": 1})
    )


def test_a_frozen_dict_cannot_be_filled_again() -> None:
    """`__init__` called again would change it in place; what decided on the first
    contents (a digest kept by identity, policy.packs.recall) would not know."""
    args = FrozenDict({"path": "/home/dev/notes.txt"})
    with pytest.raises(TypeError, match="immutable"):
        args.__init__({"path": "/etc/shadow"})  # type: ignore[misc]
    assert args == {"path": "/home/dev/notes.txt"}
    empty = FrozenDict()
    with pytest.raises(TypeError, match="immutable"):
        empty.__init__({"path": "/etc/shadow"})  # type: ignore[misc]
    assert empty == {}


@pytest.mark.parametrize(
    ("host_name", "canonical"),
    [
        ("Bash", "bash"),
        ("exec", "bash"),
        ("run_shell_command", "bash"),
        ("shell", "bash"),
        ("Read", "read_file"),
        ("file_read", "read_file"),
        ("Write", "write_file"),
        ("file_write", "write_file"),
        ("Edit", "edit_file"),
        ("replace", "edit_file"),
        ("LS", "list_dir"),
        ("list_directory", "list_dir"),
        ("Grep", "grep"),
        ("search_file_content", "grep"),
        ("Glob", "glob"),
        ("WebFetch", "web_fetch"),
        ("WebSearch", "web_search"),
        ("mcp__github__create_issue", "mcp__github__create_issue"),
    ],
)
def test_tool_names_are_canonical_and_the_host_spelling_is_kept(
    host_name: str, canonical: str
) -> None:
    call = ToolCall(tool=host_name)
    assert (call.tool, call.tool_raw) == (canonical, host_name)


def test_replace_with_a_new_tool_brings_its_own_raw_name() -> None:
    call = ToolCall(tool="Bash")
    changed = call.replace(tool="Write")
    assert (changed.tool, changed.tool_raw) == ("write_file", "Write")
    kept = call.replace(args={"command": "ls"})
    assert (kept.tool, kept.tool_raw) == ("bash", "Bash")


def test_alias_tables_extend_without_changing_the_original() -> None:
    extended = DEFAULT_ALIASES.extend({"run_in_terminal": "bash", "deploy_app": "deploy"})
    assert extended.canonical("run_in_terminal") == "bash"
    assert extended.canonical("deploy_app") == "deploy"
    assert DEFAULT_ALIASES.canonical("run_in_terminal") == "run_in_terminal"
    assert extended.spellings("bash") == (
        "bash",
        "Bash",
        "exec",
        "run_in_terminal",
        "run_shell_command",
        "shell",
    )
    assert "deploy" in extended.canonical_names


def test_an_alias_cannot_mean_two_tools() -> None:
    with pytest.raises(AliasConflictError, match="'Read' already means 'read_file'"):
        DEFAULT_ALIASES.extend({"Read": "bash"})


def test_actions_valid_at_each_point_follow_picoclaw() -> None:
    assert POINTS[HookPoint.BEFORE_TOOL].actions == frozenset(Action)
    for point in (HookPoint.AFTER_TOOL, HookPoint.BEFORE_LLM, HookPoint.AFTER_LLM):
        assert POINTS[point].actions == {
            Action.CONTINUE,
            Action.MODIFY,
            Action.ABORT_TURN,
            Action.HARD_ABORT,
        }
    assert [a.value for a in Action] == [
        "continue", "modify", "respond", "deny_tool", "abort_turn", "hard_abort",
    ]  # fmt: skip


def test_blocked_is_true_for_denials_and_aborts() -> None:
    assert Decision(Action.DENY_TOOL).blocked
    assert Decision(Action.HARD_ABORT).blocked
    assert not Decision(Action.RESPOND, result=ToolResult()).blocked
    assert not Decision(Action.MODIFY).blocked


def test_llm_requests_freeze_messages() -> None:
    request = LLMRequest(messages=[{"role": "user", "content": "hi"}])
    assert isinstance(request.messages, tuple)
    with pytest.raises(TypeError):
        request.messages[0]["content"] = "changed"  # type: ignore[index]


def test_args_must_be_a_mapping() -> None:
    with pytest.raises(TypeError, match=r"ToolCall\.args must be a mapping, not list"):
        ToolCall(tool="bash", args=["ls"])  # type: ignore[arg-type]


def test_the_other_points_values_are_named_by_the_model_too() -> None:
    # (kept in policy.model.payloads, which a tool call's decision never imports)
    from policy import model
    from policy.model import payloads

    for name in payloads.__all__:
        assert getattr(model, name) is getattr(payloads, name)
    assert model.POINTS[HookPoint.AFTER_TOOL].payload_type is payloads.ToolResult
    assert model.POINTS[HookPoint.EVENT].payload_type is payloads.Event
    assert model.POINTS[HookPoint.BEFORE_TOOL].payload_type is ToolCall
    with pytest.raises(AttributeError, match="no_such_value"):
        model.no_such_value  # noqa: B018


def test_a_mapping_s_content_key_is_made_once_and_outlives_a_copy() -> None:
    """The log, the recall keys and the approvals each ask a call's arguments for their
    content key: one mapping makes it once; a copy (pickled, as a deciding process
    receives a call) makes an equal one; a mapping too large to key has none."""
    import pickle

    from policy.model import FrozenDict

    args = FrozenDict({"command": "ls", "n": 1})
    key = args.content_key()
    assert key is not None and args.content_key() is key
    assert pickle.loads(pickle.dumps(args)).content_key() == key
    assert FrozenDict({"content": "x" * 5000}).content_key() is None
