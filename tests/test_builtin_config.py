"""Builtins in packs: their config checked at file:line:col, their place in the chain,
and the audit hook's records."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from policy import Engine, ToolCall, ToolResult
from policy.audit_verify import verify_file
from policy.packs import PackError
from policy.settings import Settings

POLICY = str(Path(sys.executable).with_name("policy"))
HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\nname: b\n"


def check(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    return subprocess.run(
        [POLICY, "check", *options, str(path)], capture_output=True, text=True, env=env, timeout=60
    )


SCHEMA_ERRORS = (
    HEADER
    + """builtins:
  autonomy:
    mode: yolo
    shell: {enabeld: true}
  tool_policy:
    strategy: leaky-bucket
  audit_hookk: {}
"""
)

COMPILE_ERRORS = (
    HEADER
    + """aliases: {sk_x: sk_x}
builtins:
  autonomy:
    workspace: relative/dir
  contract_scope:
    contracts:
      - {id: c, tools: ["*"], max_runtime: 1h}
  tool_policy:
    rate_limits:
      - {tools: sk_x, limit: "30/minit"}
"""
)


def test_schema_errors_in_builtins_are_reported_where_they_are(tmp_path: Path) -> None:
    pack = tmp_path / "b.yaml"
    pack.write_text(SCHEMA_ERRORS)
    done = check(pack)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert f"{pack}:6:11: error: builtins.autonomy.mode: Input should be" in lines[0]
    assert f"{pack}:7:13: error: unknown key 'enabeld' (did you mean 'enabled'?)" in lines[1]
    assert f"{pack}:9:15: error: builtins.tool_policy.strategy: Input should be" in lines[2]
    assert f"{pack}:10:3: error: unknown key 'audit_hookk' (did you mean 'audit_hook'?)" in lines[3]


def test_what_the_schema_cannot_say_is_reported_too(tmp_path: Path) -> None:
    pack = tmp_path / "b.yaml"
    pack.write_text(COMPILE_ERRORS)
    done = check(pack, "--format", "github")
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"::error file={pack},line=7,col=16,title=relative-workspace::workspace "
        "'relative/dir' must be an absolute path (or start with ~)",
        f"::error file={pack},line=13,col=30,title=bad-rate-limit::rate limit: "
        "no granularity matched for minit",
    ]
    with pytest.raises(PackError, match="relative-workspace"):
        Engine(Settings(packs=[pack], audit_path=tmp_path / "log"))


def test_a_clean_builtins_section_checks_clean(tmp_path: Path) -> None:
    pack = tmp_path / "b.yaml"
    pack.write_text(
        HEADER
        + """aliases: {sk_search: sk_search}
builtins:
  autonomy: {mode: supervised, workspace: /srv/work, workspace_only: true}
  contract_scope:
    contracts: [{id: c, sessions: ["ci-*"], tools: [bash], max_tool_calls: 10}]
  tool_policy: {rate_limits: [{tools: "sk_*", limit: "30/minute"}]}
  audit_hook: {}
"""
    )
    done = check(pack, "--strict")
    assert done.returncode == 0, done.stdout


@pytest.mark.parametrize(
    ("section", "name"),
    [
        ("approval: {tools: [bassh]}", "bassh"),
        ("tool_policy: {deny: [shel]}", "shel"),
        (
            "contract_scope: {contracts: [{id: c, tools: [bash], scopes: [{tool: write_fille}]}]}",
            "write_fille",
        ),
        ("autonomy: {shell: {tools: [bsh]}}", "bsh"),
        ("tool_policy: {rate_limits: [{tools: [web_fech], limit: 5/minute}]}", "web_fech"),
    ],
)
def test_tool_names_in_builtins_are_checked_as_rules_are(
    tmp_path: Path, section: str, name: str
) -> None:
    """A misspelt tool in a builtin silently switches that control off: `policy check`
    refuses it, at the name's own line:col (`--lenient` makes it a warning again)."""
    pack = tmp_path / "b.yaml"
    pack.write_text(HEADER + "builtins:\n  " + section + "\n")
    where = f"{pack}:5:{3 + section.index(name)}"
    lenient = check(pack, "--lenient")
    assert lenient.returncode == 0
    assert f"{where}: warning: tool {name!r} is no known tool or alias" in lenient.stdout
    strict = check(pack)
    assert strict.returncode == 1
    assert f"{where}: error: tool {name!r}" in strict.stdout


def test_builtins_run_in_their_documented_order(tmp_path: Path) -> None:
    pack = tmp_path / "b.yaml"
    pack.write_text(
        HEADER
        + """builtins:
  audit_hook: {}
  tool_policy: {}
  contract_scope: {}
  autonomy: {mode: full}
rules:
  - {id: r, action: log}
"""
    )
    with Engine(Settings(packs=[pack], audit_path=tmp_path / "log")) as engine:
        assert engine.chain_order("before_tool") == (
            "builtin:b/autonomy",
            "builtin:b/contract_scope",
            "builtin:b/tool_policy",
            "pack:b",
            "builtin:b/audit_hook",
        )
        assert engine.chain_order("after_tool") == ("builtin:b/audit_hook",)


def test_a_priority_in_the_pack_moves_a_builtin(tmp_path: Path) -> None:
    pack = tmp_path / "b.yaml"
    pack.write_text(
        HEADER + "builtins:\n  autonomy: {mode: full, priority: 500}\nrules:\n"
        "  - {id: r, action: log}\n"
    )
    with Engine(Settings(packs=[pack], audit_path=tmp_path / "log")) as engine:
        assert engine.chain_order("before_tool") == ("pack:b", "builtin:b/autonomy")


def test_the_audit_hook_records_every_call_and_result(tmp_path: Path) -> None:
    pack = tmp_path / "b.yaml"
    pack.write_text(HEADER + "builtins:\n  audit_hook: {}\n")
    log = tmp_path / "decisions.log"
    with Engine(Settings(packs=[pack], audit_path=log)) as engine:
        call = ToolCall(
            tool="Bash", args={"command": "ls -la"}, sender="alice", session="s1", call_id="c1"
        )
        assert engine.before_tool(call).action.value == "continue"
        result = ToolResult(for_llm="a\nb\n", for_user="ok", is_error=True, duration=0.25)
        engine.after_tool(call, result)
    records = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    events = [r["event"] for r in records]
    assert events == ["audit.tool_call", "decision", "audit.tool_result", "decision"]
    called, returned = records[0], records[2]
    assert (called["tool"], called["tool_raw"], called["sender"], called["call_id"]) == (
        "bash",
        "Bash",
        "alice",
        "c1",
    )
    assert called["args_bytes"] == len(b'{"command":"ls -la"}')
    assert "args" not in called  # a size and a digest; the decision line has the masked args
    assert (returned["is_error"], returned["for_llm_chars"], returned["duration_ms"]) == (
        True,
        4,
        250.0,
    )
    assert verify_file(log).ok


def test_approval_and_respond_guard_settings_are_checked(tmp_path: Path) -> None:
    pack = tmp_path / "b.yaml"
    pack.write_text(
        HEADER
        + """builtins:
  approval: {tools: [bash], timeout: soon, grants: [once, forever]}
  respond_guard: {mode: block}
"""
    )
    done = check(pack)
    assert done.returncode == 1
    assert done.stdout.splitlines()[:3] == [
        f"{pack}:5:38: error: builtins.approval.timeout: Value error, 'soon' is not a "
        "duration (like 500ms, 60s, 15m, 1h, 2d) [wrong-type]",
        f"{pack}:5:52: error: builtins.approval.grants: Value error, 'forever' is not a grant "
        "(once, session, window, window=15m) [wrong-type]",
        f"{pack}:6:25: error: builtins.respond_guard.mode: Input should be 'flag', 'deny' or "
        "'approve' [invalid-value]",
    ]


def test_check_warns_of_respond_rules_on_approval_gated_tools(tmp_path: Path) -> None:
    gate = tmp_path / "gate.yaml"
    gate.write_text(HEADER + "builtins:\n  approval: {tools: [Bash, 'deploy_*']}\n")
    cache = tmp_path / "cache.yaml"
    cache.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: cache\n"
        "aliases: {deploy_app: deploy_app, lookup: lookup}\n"
        "rules:\n"
        "  - {id: canned, tools: [exec], action: respond, respond: {for_llm: '\"ok\"'}}\n"
        "  - {id: fake-deploy, tools: [deploy_app], action: respond, respond: {for_llm: '\"ok\"'}}\n"
        "  - {id: lookup, tools: [lookup], action: respond, respond: {for_llm: '\"ok\"'}}\n"
    )
    done = check(tmp_path, "--format", "json")
    assert done.returncode == 0  # warnings; --strict would fail
    found = [
        (d["line"], d["message"])
        for d in orjson.loads(done.stdout)["diagnostics"]
        if d["code"] == "respond-bypasses-approval"
    ]
    assert [line for line, _ in found] == [6, 7]
    assert "approval builtin of pack 'b' gates (bash, deploy_*)" in found[0][1]
    assert check(tmp_path, "--strict").returncode == 1
