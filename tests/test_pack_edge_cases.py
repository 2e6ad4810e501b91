"""Inputs that once slipped through: each must be refused, or decided and logged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Action, Engine, ToolCall, ToolResult
from policy.audit_capture import read_capture
from policy.audit_verify import verify_file
from policy.errors import SettingsError
from policy.packs import PackError
from policy.settings import Settings, load_settings

HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\n"


def refusal(pack: Path) -> str:
    """Why an engine refuses to load `pack` (its PackError's text)."""
    with pytest.raises(PackError) as error:
        Engine(Settings(packs=[pack], audit_path=pack.parent / "log"))
    return str(error.value)


def test_a_failing_modify_under_skip_keeps_the_other_modifies(pack_engine: Any) -> None:
    engine = pack_engine(
        """
        name: redact
        on_error: skip
        rules:
          - id: redact-aws-keys
            on: after_tool
            when: result.for_llm.contains("AKIA")
            action: modify
            set: {result.for_llm: 'regex.replace(result.for_llm, "AKIA[0-9A-Z]{16}", "AKIA***")'}
          - id: truncate
            on: after_tool
            action: modify
            set: {result.for_llm: 'result.for_llm.substring(0, 500)'}
        """
    )
    decision = engine.after_tool(
        ToolCall(tool="bash"), ToolResult(for_llm="key=AKIAABCDEFGHIJKLMNOP")
    )
    assert decision.action is Action.MODIFY
    assert decision.result is not None and decision.result.for_llm == "key=AKIA***"
    assert any("truncate" in note and "(skipped)" in note for note in decision.ignored)


def test_a_failing_modify_denies_by_default(pack_engine: Any) -> None:
    engine = pack_engine(
        """
        name: redact
        rules:
          - id: truncate
            on: after_tool
            action: modify
            set: {result.for_llm: 'result.for_llm.substring(0, 500)'}
        """
    )
    decision = engine.after_tool(ToolCall(tool="bash"), ToolResult(for_llm="short"))
    assert decision.action is Action.ABORT_TURN
    assert decision.reason.startswith("rule redact/truncate: set.result.for_llm failed")


def test_tool_globs_match_host_spellings_too(pack_engine: Any) -> None:
    engine = pack_engine(
        """
        name: spellings
        rules:
          - id: no-shell-or-writes
            tools: ["{Bash,Write}"]
            action: deny
          - id: no-web
            tools: ["Web*"]
            action: deny
        """
    )
    for tool in ("Bash", "exec", "Write", "WebFetch", "web_search"):
        assert engine.before_tool(ToolCall(tool=tool)).blocked, tool
    assert not engine.before_tool(ToolCall(tool="Read")).blocked


def test_negated_filters(pack_engine: Any) -> None:
    engine = pack_engine(
        """
        name: negation
        rules:
          - id: only-admin-may-write
            tools: [write_file]
            senders: ["!admin"]
            action: deny
          - id: everything-but-reads-on-prod
            tools: ["*", "!Read"]
            sessions: ["prod-*"]
            action: ask
        """
    )
    write = ToolCall(tool="Write", args={"file_path": "x"})
    assert engine.before_tool(write.replace(sender="mallory")).blocked
    assert not engine.before_tool(write.replace(sender="admin")).blocked
    assert not engine.before_tool(ToolCall(tool="read_file", session="prod-1")).needs_approval
    assert engine.before_tool(ToolCall(tool="bash", session="prod-1")).needs_approval
    assert not engine.before_tool(ToolCall(tool="bash", session="dev-1")).needs_approval


def test_values_cel_cannot_take_are_rule_errors_not_crashes(pack_engine: Any) -> None:
    engine = pack_engine(
        """
        name: big
        enforcement: audit
        on_error: skip
        rules:
          - id: count
            tools: [bash]
            when: has(args.n) && args.n > 3
            action: deny
        """
    )
    decision = engine.before_tool(ToolCall(tool="bash", args={"n": 2**63}))
    assert decision.action is Action.CONTINUE


@pytest.mark.parametrize(
    "args",
    [
        {"n": 2**70},
        json.loads('{"command": "\\udcff"}'),
        {1: "non-string key"},
        {"nested": [{"deep": 2**80}]},
    ],
    ids=["huge-int", "lone-surrogate", "int-key", "nested-huge-int"],
)
@pytest.mark.parametrize("capture", [False, True])
def test_odd_arguments_are_decided_and_logged(
    tmp_path: Path, args: dict[Any, Any], capture: bool
) -> None:
    log = tmp_path / "log"
    captures = tmp_path / "capture" if capture else None
    with Engine(Settings(audit_path=log, audit_capture_dir=captures)) as engine:
        decision = engine.before_tool(ToolCall(tool="bash", args=args))
    assert decision.action is Action.CONTINUE
    assert verify_file(log).ok
    (record,) = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    assert record["decision_id"] == decision.decision_id
    if captures is not None:
        (captured,) = read_capture(captures)
        assert captured["decision_id"] == decision.decision_id


def test_a_closed_log_denies_instead_of_crashing(tmp_path: Path) -> None:
    with Engine(Settings(audit_path=tmp_path / "log")) as engine:
        engine._audit.close()  # what a concurrent close() does to a call in flight
        decision = engine.before_tool(ToolCall(tool="bash"))
    assert decision.action is Action.DENY_TOOL
    assert decision.reason == "decision log unavailable: the decision log is closed"


ALIASES = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: aliases
rules:
  - &deny
    id: a
    action: deny
  - *deny
"""


def test_yaml_aliases_are_refused_in_packs_and_settings(tmp_path: Path) -> None:
    pack = tmp_path / "aliases.yaml"
    pack.write_text(ALIASES)
    with pytest.raises(PackError, match=r"aliases.yaml:5:5: error: anchors and aliases"):
        Engine(Settings(packs=[pack], audit_path=tmp_path / "log"))
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("aliases: &a {x: *a}\n")
    with pytest.raises(SettingsError, match="anchors and aliases"):
        load_settings(bomb)


@pytest.mark.parametrize(
    ("rule", "where"),
    [("    when:\n", "7:10"), ("    tools: []\n", "7:12"), ("    senders: []\n", "7:14")],
    ids=["null-when", "no-tools", "no-senders"],
)
def test_empty_values_are_errors(tmp_path: Path, rule: str, where: str) -> None:
    pack = tmp_path / "empty.yaml"
    pack.write_text(HEADER + "name: empty\nrules:\n  - id: r\n    action: deny\n" + rule)
    text = refusal(pack)
    assert f"empty.yaml:{where}: error:" in text
    assert "empty value: give one, or remove the key" in text


def test_error_positions_survive_escapes_in_double_quoted_strings(tmp_path: Path) -> None:
    pack = tmp_path / "escapes.yaml"
    pack.write_text(
        HEADER
        + "name: escapes\n"
        + "rules:\n"
        + "  - id: r\n"
        + '    when: "tool == \\"\\u00e9\\u00e9\\" && args.command == \\"\\\\\\\\\\" && third_bogus"\n'
        + "    action: deny\n"
        + "  - id: s\n"
        + '    when: "tool == \\"x\\" \\\n'
        + '      && other_bogus"\n'
        + "    action: deny\n"
    )
    text = refusal(pack)
    line = pack.read_text().splitlines()[5]
    assert f"escapes.yaml:6:{line.index('third_bogus') + 1}: error:" in text
    assert "escapes.yaml:10:10: error:" in text


def test_vars_as_a_whole_map_is_refused_at_its_position(tmp_path: Path) -> None:
    """Rules bind only the variables they name; `"x" in vars` would read nothing."""
    pack = tmp_path / "whole.yaml"
    pack.write_text(
        HEADER
        + "name: whole\n"
        + "variables:\n"
        + "  cmd: string(args.command)\n"
        + "rules:\n"
        + "  - id: r\n"
        + "    when: has(vars.cmd) && 'cmd' in vars\n"
        + "    action: deny\n"
        + "  - id: fine\n"
        + '    when: vars.cmd.contains("vars") && vars["cmd"] != \'vars\'\n'
        + "    action: deny\n"
    )
    text = refusal(pack)
    assert "whole.yaml:8:37: error: condition: read variables one by one" in text
    assert text.count("error:") == 1, text


def test_a_comment_holding_quotes_hides_no_use_of_vars(tmp_path: Path) -> None:
    """`// \"\"\"` is a comment, not a string that runs to the next `\"\"\"`: what
    lies between two of them is read as code (a macro element named `vars` is one
    more use of the whole map)."""
    pack = tmp_path / "commented.yaml"
    pack.write_text(
        HEADER
        + "name: commented\n"
        + "variables:\n"
        + "  blocked: '[\"/etc/shadow\"]'\n"
        + "rules:\n"
        + "  - id: r\n"
        + "    tools: [multi_read]\n"
        + "    when: |-\n"
        + '      args.paths.exists( // """\n'
        + '      vars, vars in vars.blocked) // """\n'
        + "    action: deny\n"
    )
    assert "commented.yaml:11:7: error: condition: read variables one by one" in refusal(pack)


def test_conditions_that_fail_are_never_memoised(pack_engine: Any) -> None:
    """A repeated shape of call is decided from memory, but a failing condition
    is decided afresh each time (it denies under on_error: deny)."""
    engine = pack_engine(
        """
        name: memo
        rules:
          - id: big
            tools: [bash]
            when: int(args.n) > 3
            action: deny
          - id: readonly
            tools: [bash]
            when: args.command == "ls"
            action: allow
        """
    )
    for _ in range(3):
        fine = engine.before_tool(ToolCall(tool="bash", args={"n": "1", "command": "ls"}))
        assert (fine.action, fine.allowed) == (Action.CONTINUE, True)
        broken = engine.before_tool(ToolCall(tool="bash", args={"n": "x", "command": "ls"}))
        assert broken.action is Action.DENY_TOOL
        assert broken.failure == "cel"
        big = engine.before_tool(ToolCall(tool="bash", args={"n": "9", "command": "ls"}))
        assert (big.action, big.rule_ids) == (Action.DENY_TOOL, ("memo/big",))


def test_an_outcome_remembered_by_its_mask_is_never_one_a_call_shapes(pack_engine: Any) -> None:
    """Beside a rule whose outcome is worked out for each call (a `message_expr`, a
    `modify`, a filter by sender), the outcome of the static rules alone is decided
    once by which conditions held; a call matching the per-call rule is answered in
    its own words, and a filtered rule only for the callers it names."""
    engine = pack_engine(
        """
        name: shaped
        rules:
          - id: no-rm
            tools: [bash]
            when: args.command.startsWith("rm ")
            action: deny
            message: static
            message_expr: '"refused: " + args.command'
          - id: no-curl
            tools: [bash]
            when: args.command.startsWith("curl ")
            action: deny
            message: no downloads
          - id: tag
            tools: [bash]
            when: args.command.startsWith("echo ")
            action: modify
            set: {args.command: '"echo tagged " + args.command.substring(5)'}
        """,
        """
        name: people
        rules:
          - id: ask-bob
            tools: [bash]
            senders: [bob]
            when: args.command.startsWith("git ")
            action: ask
            message: bob's git
          - id: no-force
            tools: [bash]
            when: args.command.contains("--force")
            action: deny
            message: no force
        """,
        """
        name: writes
        rules:
          - id: ask-every-write
            tools: [write_file]
            action: ask
            message: a write
            message_expr: '"asks to write " + args.path'
          - id: no-etc
            tools: [write_file]
            when: args.path.startsWith("/etc/")
            action: deny
            message: not /etc
        """,
    )

    def asked(command: str, sender: str = "alice") -> Any:
        return engine.before_tool(
            ToolCall(tool="bash", args={"command": command}, sender=sender)
        )

    for _ in range(3):  # (each decided once, then from memory)
        for target in ("a", "b"):
            assert asked(f"rm {target}").reason == f"refused: rm {target}"
            assert asked(f"curl {target}").reason == "no downloads"
            tagged = asked(f"echo {target}")
            assert tagged.action is Action.MODIFY
            assert tagged.call is not None and tagged.call.args["command"] == f"echo tagged {target}"
        assert not asked("git push").needs_approval
        assert asked("git push", "bob").needs_approval
        assert asked("git push --force", "bob").action is Action.DENY_TOOL
        assert asked("git push --force").rule_ids == ("people/no-force",)
        assert asked("git pull", "bob").rule_ids == ("people/ask-bob",)
        assert asked("git pull").rule_ids == ()
        for path in ("/w/a", "/w/b"):
            write = engine.before_tool(ToolCall(tool="write_file", args={"path": path}))
            assert (write.needs_approval, write.reason) == (True, f"asks to write {path}")
        assert asked("ls").rule_ids == ()


def test_more_conditions_than_one_mask_holds(pack_engine: Any) -> None:
    """cel-expr-python sums up to 62 conditions into one int; beyond that the
    pack reads the results one by one, with the same outcome."""
    rules = "".join(
        f"  - id: r{i:02d}\n    tools: [bash]\n    when: args.command == 'c{i}'\n"
        f"    action: {'deny' if i % 2 else 'ask'}\n"
        for i in range(70)
    )
    engine = pack_engine("name: wide\nrules:\n" + rules)
    for i in (0, 1, 61, 62, 63, 69):
        decision = engine.before_tool(ToolCall(tool="bash", args={"command": f"c{i}"}))
        assert decision.rule_ids == (f"wide/r{i:02d}",)
        assert decision.blocked is bool(i % 2)
        assert decision.needs_approval is not bool(i % 2)
    assert engine.before_tool(ToolCall(tool="bash", args={"command": "c70"})).rule_ids == ()
