"""Contract scope, from packs and attached at run time, through `Engine` (DESIGN §6.2)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from pathlib import Path

import pytest

from policy import Action, Engine, ToolCall
from tests.conftest import BuiltinsEngine

HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\nname: scope\n"

Make = Callable[[str], Engine]


@pytest.fixture
def make(builtins_engine: BuiltinsEngine) -> Make:
    return lambda builtins: builtins_engine("scope", builtins)


def call(tool: str, session: str = "docs-1", **args: object) -> ToolCall:
    return ToolCall(tool=tool, args=args, session=session, cwd="/srv/docs")


DOCS = """
contract_scope:
  contracts:
    - id: docs-writer
      sessions: ["docs-*"]
      tools: [Read, write_file, bash]
      scopes:
        - {tool: write_file, paths: ["/srv/docs/**"]}
        - {tool: bash, paths: ["/srv/docs/**", "/tmp/**"]}
      max_tool_calls: 5
"""


def test_the_tool_list_is_enforced_on_every_call(make: Make) -> None:
    engine = make(DOCS)
    assert engine.before_tool(call("read_file", file_path="/anything")).action is Action.CONTINUE
    decision = engine.before_tool(call("web_fetch", url="https://x"))
    assert decision.action is Action.DENY_TOOL
    assert decision.reason == (
        "contract 'docs-writer': tool 'web_fetch' is not in its tools (Read, write_file, bash)"
    )
    assert decision.rule_ids == ("scope/contract_scope/docs-writer",)


def test_sessions_without_a_contract_are_not_governed(make: Make) -> None:
    engine = make(DOCS)
    assert engine.before_tool(call("web_fetch", session="ops-7")).action is Action.CONTINUE


def test_scoped_paths_are_checked_after_dots_and_symlinks(make: Make, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "out").symlink_to("/etc")
    engine = make(DOCS.replace("/srv/docs/**", f"{docs}/**"))
    ok = ToolCall(tool="Write", args={"file_path": str(docs / "a.md")}, session="docs-1")
    assert engine.before_tool(ok).action is Action.CONTINUE
    for path in (str(docs / "../secret"), str(docs / "out/passwd"), f"{docs}2/a.md", "/etc/x"):
        decision = engine.before_tool(
            ToolCall(tool="Write", args={"file_path": path}, session="docs-1")
        )
        assert decision.action is Action.DENY_TOOL, path
        assert "is outside the scope of 'write_file'" in decision.reason


def test_shell_commands_are_held_to_their_scope(make: Make) -> None:
    engine = make(DOCS)
    assert (
        engine.before_tool(call("bash", command="cat index.md > /tmp/x")).action is Action.CONTINUE
    )
    decision = engine.before_tool(call("bash", command="cat /etc/passwd"))
    assert decision.blocked
    assert "path '/etc/passwd' is outside the scope of 'bash'" in decision.reason
    dynamic = engine.before_tool(call("bash", command="cat $X"))
    assert dynamic.blocked
    assert "cannot be checked against the scope" in dynamic.reason


def test_max_tool_calls_counts_per_session(make: Make) -> None:
    engine = make(DOCS)
    for _ in range(5):
        assert engine.before_tool(call("read_file", file_path="/x")).action is Action.CONTINUE
    sixth = engine.before_tool(call("read_file", file_path="/x"))
    assert sixth.blocked
    assert sixth.reason == "contract 'docs-writer': max_tool_calls 5 reached"
    # Another session under the same contract has its own count.
    assert engine.before_tool(call("read_file", session="docs-2")).action is Action.CONTINUE
    # Denied calls do not use up the budget.
    assert engine.before_tool(call("web_fetch", session="docs-2")).blocked
    assert engine.contracts.usage("docs-2", "docs-writer")[0] == 1


def test_an_expired_contract_denies(make: Make) -> None:
    engine = make(
        """
        contract_scope:
          contracts:
            - {id: old, sessions: ["*"], tools: ["*"], expires_at: "2020-01-01T00:00:00Z"}
        """
    )
    decision = engine.before_tool(call("read_file"))
    assert decision.blocked
    assert decision.reason == "contract 'old' expired at 2020-01-01T00:00:00+00:00"


def test_max_runtime_is_measured_from_the_first_call(builtins_engine: BuiltinsEngine) -> None:
    engine = builtins_engine(
        "scope",
        """
        contract_scope:
          contracts:
            - {id: short, sessions: ["*"], tools: ["*"], max_runtime: 1h}
        """,
        limits_storage_uri="memory://",  # usage in this process, to wind its clock back
    )
    assert engine.before_tool(call("read_file")).action is Action.CONTINUE
    usage = engine.contracts._usage[("docs-1", "short")]
    usage.started -= 3601
    decision = engine.before_tool(call("read_file"))
    assert decision.blocked
    assert decision.reason.startswith("contract 'short': max_runtime 1h used up (3601 s")


def test_contracts_attached_at_run_time_win_over_the_packs(make: Make) -> None:
    engine = make(DOCS)
    engine.contracts.attach(
        "docs-1",
        {
            "id": "read-only",
            "tools": ["read_file"],
            "expires_at": (dt.datetime.now(dt.UTC) + dt.timedelta(hours=1)).isoformat(),
        },
    )
    assert engine.before_tool(call("read_file")).action is Action.CONTINUE
    decision = engine.before_tool(call("write_file", file_path="/srv/docs/a.md"))
    assert decision.reason.startswith("contract 'read-only': tool 'write_file' is not in its tools")
    engine.contracts.detach("docs-1")
    assert (
        engine.before_tool(call("write_file", file_path="/srv/docs/a.md")).action is Action.CONTINUE
    )


def test_a_bad_contract_is_refused_when_attached(make: Make) -> None:
    engine = make(DOCS)
    with pytest.raises(ValueError, match="tools"):
        engine.contracts.attach("s", {"id": "x"})
    with pytest.raises(ValueError, match="max_runtime"):
        engine.contracts.attach("s", {"id": "x", "tools": ["*"], "max_runtime": "soon"})
    with pytest.raises(ValueError, match="session"):
        engine.contracts.attach("", {"id": "x", "tools": ["*"]})


def test_path_args_and_follow_symlinks_are_configurable(make: Make, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "out").symlink_to("/etc")
    engine = make(
        f"""
        contract_scope:
          follow_symlinks: false
          path_args: {{publish: [target]}}
          contracts:
            - id: pub
              sessions: ["*"]
              tools: [publish]
              scopes: [{{tool: publish, paths: ["{docs}/**"]}}]
        """
    )
    inside = ToolCall(tool="publish", args={"target": f"{docs}/a.md"}, session="s")
    assert engine.before_tool(inside).action is Action.CONTINUE
    outside = ToolCall(tool="publish", args={"target": "/srv/www/a.md"}, session="s")
    assert engine.before_tool(outside).blocked
    # Judged as written: the link out of the scope is not followed.
    via_link = ToolCall(tool="publish", args={"target": f"{docs}/out/passwd"}, session="s")
    assert engine.before_tool(via_link).action is Action.CONTINUE


def test_a_glob_cannot_reach_around_a_scope(make: Make) -> None:
    engine = make(DOCS)
    # Every file the glob can name is inside the scope.
    assert not engine.before_tool(call("bash", command="cat /tmp/lin?/hostname")).blocked
    for command in ("cat /tmp/*/../../etc/passwd", "cat /[st]*/hostname", "cat /*/docs/a"):
        decision = engine.before_tool(call("bash", command=command))
        assert decision.blocked, command
        assert "is outside the scope of 'bash'" in decision.reason, decision.reason
