"""The capture: what each decision was asked, whole, beside the masked decision log.

The decision log masks and cuts arguments so it can be shared; `policy replay` needs
the calls as the host asked them. With `audit_capture_dir` set, every decision also
writes one line to `<dir>/capture-YYYY-MM-DD.jsonl` with the same `ts` and
`decision_id` as its record. Every record of the decision log also names the call's
`cwd` and the workspace.
"""

from __future__ import annotations

import datetime as dt
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Action, ApprovalDecision, Engine, HookPoint, Prompt, ToolCall, ToolResult
from policy.audit import MASK
from policy.audit_capture import read_capture
from policy.audit_verify import verify_file
from policy.codec import parts_from_json
from policy.digest import args_digest
from policy.errors import SettingsError
from policy.facts import Caller, deciding_for
from policy.settings import Settings, load_settings

ROOT = Path(__file__).resolve().parent.parent
POLICY = str(Path(sys.executable).with_name("policy"))
TOKEN = "ghp_" + "z" * 36

REWRITE = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: p
rules:
  - id: no-color
    on: before_tool
    tools: [bash]
    action: modify
    set: {args.command: 'string(args.command) + " --no-color"'}
  - id: short-output
    on: after_tool
    action: modify
    set: {result.for_llm: 'result.for_llm.substring(0, 2)'}
"""


def records(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


@pytest.fixture
def rewriting_pack(tmp_path: Path) -> Path:
    pack = tmp_path / "p.yaml"
    pack.write_text(REWRITE)
    return pack


@pytest.fixture
def open_umask() -> Iterator[None]:
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def test_capture_is_off_by_default_and_creates_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with Engine(Settings(audit_path=tmp_path / "log", data_dir=data)) as engine:
        engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    assert not data.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["log"]


def test_capture_keeps_the_call_as_asked_while_the_log_shows_it_masked_and_rewritten(
    tmp_path: Path, rewriting_pack: Path
) -> None:
    log, captures = tmp_path / "log", tmp_path / "capture"
    asked = ToolCall(
        tool="bash",
        args={"command": f"deploy --token={TOKEN}", "api_key": "k-123", "note": "x" * 300},
        session="s1",
        cwd="/srv/app",
        meta={"trace": "t-1"},
    )
    with Engine(
        Settings(packs=[rewriting_pack], audit_path=log, audit_capture_dir=captures)
    ) as engine:
        decision = engine.before_tool(asked)
    assert decision.action is Action.MODIFY

    (record,) = records(log)
    # The decision log: the rewritten call, masked and cut; safe to share.
    assert record["args"]["command"] == "deploy --token=*** --no-color"
    assert record["args"]["api_key"] == MASK
    assert record["args"]["note"].endswith("…(+44 chars)")
    assert TOKEN not in log.read_text()
    assert record["args_digest"] == args_digest(decision.call.args)  # type: ignore[union-attr]

    # The capture: the call exactly as the host asked it, secrets and all.
    (line,) = read_capture(captures)
    assert line == {
        "ts": record["ts"],
        "decision_id": record["decision_id"],
        "point": "before_tool",
        "parts": line["parts"],
        "caller": {},
    }
    assert line["decision_id"] == decision.decision_id
    call = line["parts"]
    assert call["tool"] == "bash" and call["session"] == "s1" and call["cwd"] == "/srv/app"
    assert call["args"] == dict(asked.args)
    assert call["meta"] == {"trace": "t-1"}
    # What `policy replay` reads back is the call itself.
    assert parts_from_json(HookPoint.BEFORE_TOOL, line["parts"], "capture") == (asked,)
    assert verify_file(log).ok  # the capture is no part of the chain


def test_after_tool_and_prompts_capture_what_was_given_not_what_hooks_made_of_it(
    tmp_path: Path, rewriting_pack: Path
) -> None:
    log, captures = tmp_path / "log", tmp_path / "capture"
    with Engine(
        Settings(packs=[rewriting_pack], audit_path=log, audit_capture_dir=captures)
    ) as engine:
        after = engine.after_tool(
            ToolCall(tool="bash", args={"command": "cat notes"}),
            ToolResult(for_llm=f"secret {TOKEN}"),
        )
        assert after.result is not None and after.result.for_llm == "se"
        engine.user_prompt(Prompt(text=f"use {TOKEN} please", session="s1"))

    after_line, prompt_line = read_capture(captures)
    assert after_line["point"] == "after_tool"
    assert after_line["parts"]["call"]["args"] == {"command": "cat notes"}
    assert after_line["parts"]["result"]["for_llm"] == f"secret {TOKEN}"
    assert prompt_line["point"] == "user_prompt"
    assert prompt_line["parts"]["text"] == f"use {TOKEN} please"
    after_record, prompt_record = records(log)
    assert after_record["result"]["for_llm_chars"] == 2
    assert prompt_record["prompt"] == "use *** please"
    assert [r["decision_id"] for r in (after_record, prompt_record)] == [
        after_line["decision_id"],
        prompt_line["decision_id"],
    ]


class Approver:
    name = "approver"

    def approve_tool(self, call: ToolCall) -> ApprovalDecision:
        return ApprovalDecision(True, reason="ok", approver="secops-alice")


def test_an_approval_is_captured_with_its_call(tmp_path: Path) -> None:
    log, captures = tmp_path / "log", tmp_path / "capture"
    with Engine(Settings(audit_path=log, audit_capture_dir=captures)) as engine:
        engine.register(Approver())
        answer = engine.approve_tool(ToolCall(tool="bash", args={"command": f"x {TOKEN}"}))
    (record,) = records(log)
    (line,) = read_capture(captures)
    assert record["point"] == line["point"] == "approve_tool"
    assert record["decision_id"] == line["decision_id"] == answer.decision_id
    assert record["ts"] == line["ts"]
    assert line["parts"]["args"] == {"command": f"x {TOKEN}"}
    assert record["args"] == {"command": "x ***"}


def test_an_approval_refused_for_a_capture_that_failed_is_still_logged(tmp_path: Path) -> None:
    log, captures = tmp_path / "log", tmp_path / "capture"
    captures.write_text("a file where the directory should be")
    with Engine(Settings(audit_path=log, audit_capture_dir=captures)) as engine:
        engine.register(Approver())
        answer = engine.approve_tool(ToolCall(tool="bash", args={"command": "deploy"}))
    assert answer.approved is False
    (record,) = records(log)
    assert record["point"] == "approve_tool" and record["approval"]["approved"] is False
    assert "decision log unavailable" in record["reason"]


def test_capture_files_are_0600_in_a_0700_directory_whatever_the_umask(
    tmp_path: Path, open_umask: None
) -> None:
    captures = tmp_path / "made" / "for" / "capture"
    with Engine(Settings(audit_path=tmp_path / "log", audit_capture_dir=captures)) as engine:
        engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    (path,) = captures.iterdir()
    assert path.name == f"capture-{dt.datetime.now(dt.UTC).date().isoformat()}.jsonl"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for directory in (captures, captures.parent, captures.parent.parent):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory


def test_a_capture_file_that_is_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    captures = tmp_path / "capture"
    captures.mkdir(mode=0o700)
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("")
    today = dt.datetime.now(dt.UTC).date().isoformat()
    (captures / f"capture-{today}.jsonl").symlink_to(elsewhere)
    with Engine(Settings(audit_path=tmp_path / "log", audit_capture_dir=captures)) as engine:
        decision = engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    assert decision.action is Action.DENY_TOOL and decision.failure == "audit"
    assert elsewhere.read_text() == ""


def today_file(captures: Path) -> Path:
    return captures / f"capture-{dt.datetime.now(dt.UTC).date().isoformat()}.jsonl"


def test_a_capture_file_with_another_name_is_refused(tmp_path: Path) -> None:
    """A hard link from a public place would show unmasked calls with that file's mode."""
    captures, public = tmp_path / "capture", tmp_path / "public"
    captures.mkdir(mode=0o700)
    public.mkdir()
    notes = public / "notes.txt"
    notes.write_text("hello\n")
    notes.chmod(0o644)
    os.link(notes, today_file(captures))
    with Engine(Settings(audit_path=tmp_path / "log", audit_capture_dir=captures)) as engine:
        decision = engine.before_tool(ToolCall(tool="bash", args={"command": f"x {TOKEN}"}))
    assert decision.action is Action.DENY_TOOL and decision.failure == "audit"
    assert notes.read_text() == "hello\n"


def test_a_loosened_capture_file_is_tightened_before_it_is_written(tmp_path: Path) -> None:
    captures = tmp_path / "capture"
    with Engine(Settings(audit_path=tmp_path / "log", audit_capture_dir=captures)) as engine:
        engine.before_tool(ToolCall(tool="bash", args={"command": "first"}))
    today_file(captures).chmod(0o644)
    with Engine(Settings(audit_path=tmp_path / "log", audit_capture_dir=captures)) as engine:
        engine.before_tool(ToolCall(tool="bash", args={"command": "second"}))
    assert stat.S_IMODE(today_file(captures).stat().st_mode) == 0o600


def test_a_shared_or_foreign_or_linked_capture_directory_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # like /tmp: tightening it would break everyone else
    linked = tmp_path / "linked"
    own = tmp_path / "own"
    own.mkdir(mode=0o700)
    linked.symlink_to(own)
    cases = [shared, linked]
    if os.geteuid() == 0:  # root can hand a directory to somebody else
        foreign = tmp_path / "foreign"
        foreign.mkdir(mode=0o700)
        os.chown(foreign, 65534, 65534)
        cases.append(foreign)
    for directory in cases:
        settings = Settings(audit_path=tmp_path / "log", audit_capture_dir=directory)
        with Engine(settings) as engine:
            decision = engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
        assert decision.failure == "audit", directory
    assert stat.S_IMODE(shared.stat().st_mode) == 0o1777


def test_a_file_dated_past_the_calendar_and_a_huge_retention_break_nothing(
    tmp_path: Path,
) -> None:
    captures = tmp_path / "capture"
    captures.mkdir(mode=0o700)
    (captures / "capture-9999-12-31.jsonl").write_text("")
    settings = Settings(
        audit_path=tmp_path / "log", audit_capture_dir=captures, audit_capture_retention="36500d"
    )
    with Engine(settings) as engine:
        assert engine.before_tool(ToolCall(tool="bash", args={"command": "ls"})).failure is None
    with pytest.raises(SettingsError, match="at most 100 years"):
        Settings(audit_capture_retention="100000000d")


def test_the_capture_directory_is_one_of_the_policys_own_files(tmp_path: Path) -> None:
    captures = tmp_path / "capture"
    settings = Settings(
        audit_path=tmp_path / "log", audit_capture_dir=captures, packs=[ROOT / "rules"]
    )
    with Engine(settings) as engine:
        for command in (f"rm -rf {captures}", f"ln /etc/hostname {captures}/capture-2099-01-01.jsonl"):
            decision = engine.before_tool(ToolCall(tool="bash", args={"command": command}))
            assert decision.action is Action.DENY_TOOL, command


def test_retention_deletes_old_dated_files_only(tmp_path: Path) -> None:
    captures = tmp_path / "capture"
    captures.mkdir(mode=0o700)
    today = dt.datetime.now(dt.UTC).date()
    old = captures / f"capture-{(today - dt.timedelta(days=9)).isoformat()}.jsonl"
    recent = captures / f"capture-{(today - dt.timedelta(days=2)).isoformat()}.jsonl"
    for path in (old, recent, captures / "capture-2000-01-01.jsonl.bak", captures / "notes"):
        path.write_text('{"kept": "until retention"}\n')
    settings = Settings(
        audit_path=tmp_path / "log", audit_capture_dir=captures, audit_capture_retention="7d"
    )
    with Engine(settings) as engine:
        engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    assert sorted(p.name for p in captures.iterdir()) == sorted(
        [
            recent.name,
            f"capture-{today.isoformat()}.jsonl",
            "capture-2000-01-01.jsonl.bak",
            "notes",
        ]
    )
    assert settings.audit_capture_retention == 7 * 86400.0


def test_read_capture_goes_by_date_and_skips_an_unfinished_last_line(tmp_path: Path) -> None:
    captures = tmp_path / "capture"
    with Engine(Settings(audit_path=tmp_path / "log", audit_capture_dir=captures)) as engine:
        engine.before_tool(ToolCall(tool="bash", args={"command": "first"}))
        (today,) = captures.iterdir()
        with today.open("ab") as torn:
            torn.write(b'{"ts": "cut sh')  # a writer killed mid-line
        assert [r["parts"]["args"]["command"] for r in read_capture(captures)] == ["first"]
        # The next writer cuts the unfinished line off before its own.
        engine.before_tool(ToolCall(tool="bash", args={"command": "second"}))
    earlier = captures / "capture-2001-02-03.jsonl"
    earlier.write_bytes(b'{"decision_id": "old"}\n')
    oldest, *today_s = read_capture(captures)
    assert oldest == {"decision_id": "old"}
    assert [r["parts"]["args"]["command"] for r in today_s] == ["first", "second"]


def test_a_capture_that_cannot_be_written_fails_the_decision_closed(tmp_path: Path) -> None:
    captures = tmp_path / "capture"
    captures.write_text("a file where the directory should be")
    log = tmp_path / "log"
    with Engine(Settings(audit_path=log, audit_capture_dir=captures)) as engine:
        before = engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
        after = engine.after_tool(ToolCall(tool="bash"), ToolResult(for_llm="out"))
    assert before.action is Action.DENY_TOOL and before.failure == "audit"
    assert before.reason.startswith("decision log unavailable: ")
    assert "cannot write capture" in before.reason
    assert after.action is Action.ABORT_TURN and after.failure == "audit"
    # The refusals are in the log (without a capture line), so an auditor sees them.
    refused = records(log)
    assert [(r["point"], r["action"], r["failure"]) for r in refused] == [
        ("before_tool", "deny_tool", "audit"),
        ("after_tool", "abort_turn", "audit"),
    ]
    assert "cannot write capture" in refused[0]["reason"]


def test_cwd_and_the_engines_workspace_are_in_every_record(tmp_path: Path) -> None:
    log, captures = tmp_path / "log", tmp_path / "capture"
    settings = Settings(audit_path=log, audit_capture_dir=captures, workspace="/srv/project")
    with Engine(settings) as engine:
        engine.before_tool(ToolCall(tool="bash", cwd="/srv/project/sub"))
    (record,) = records(log)
    assert record["cwd"] == "/srv/project/sub"
    assert record["workspace"] == "/srv/project"
    (line,) = read_capture(captures)
    assert line["caller"] == {"workspace": "/srv/project"}


def test_without_a_workspace_the_record_has_no_workspace_key(tmp_path: Path) -> None:
    log = tmp_path / "log"
    with Engine(Settings(audit_path=log)) as engine:
        engine.before_tool(ToolCall(tool="bash", cwd="/tmp"))
    (record,) = records(log)
    assert record["cwd"] == "/tmp" and "workspace" not in record


def test_the_record_names_the_workspace_the_packs_saw_and_who_asked(tmp_path: Path) -> None:
    """What `policy serve` does for a hook of another user: the principal and home are
    the caller's; the workspace is the one policy.facts used — the caller's project, or
    the engine's `workspace` setting when the service has one (it comes first)."""
    caller = Caller(home="/home/bob", workspace="/home/bob/proj", principal="uid:1001")
    for setting, seen in ((None, "/home/bob/proj"), ("/srv/project", "/srv/project")):
        log, captures = tmp_path / f"log-{seen[1:4]}", tmp_path / f"capture-{seen[1:4]}"
        settings = Settings(audit_path=log, audit_capture_dir=captures, workspace=setting)
        with Engine(settings) as engine, deciding_for(caller):
            engine.before_tool(ToolCall(tool="bash", cwd="/home/bob/proj"))
        (record,) = records(log)
        assert record["workspace"] == seen and record["principal"] == "uid:1001"
        (line,) = read_capture(captures)
        assert line["caller"] == {"principal": "uid:1001", "home": "/home/bob", "workspace": seen}


def test_audit_capture_args_now_turns_capture_on_in_the_data_dir(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data, log = tmp_path / "data", tmp_path / "decisions.log"
    config = tmp_path / "policy.yaml"
    config.write_text(f"audit_capture_args: true\ndata_dir: {data}\naudit_path: {log}\n")
    pack = tmp_path / "allow.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: allow\nrules:\n"
        "  - id: ok\n    tools: [bash]\n    action: allow\n"
    )
    import policy.audit

    policy.audit._capture_args_warned = False  # once per process: this test's process
    args = {"command": f"deploy --token={TOKEN}"}
    with caplog.at_level("WARNING"), Engine(load_settings(config, packs=[pack])) as engine:
        engine.before_tool(ToolCall(tool="bash", args=args))
    assert "audit_capture_args is deprecated" in caplog.text
    assert f"full arguments go to {data / 'capture'}" in caplog.text
    (record,) = records(log)
    assert record["args"] == {"command": "deploy --token=***"}
    (line,) = read_capture(data / "capture")
    assert line["decision_id"] == record["decision_id"]
    assert line["parts"]["args"] == args


def json_of(value: Any) -> str:
    return orjson.dumps(value).decode()


def test_a_dry_run_never_writes_the_capture(tmp_path: Path) -> None:
    """`policy eval` decides calls nobody made: they stay out of what replay reads."""
    captures = tmp_path / "capture"
    config = tmp_path / "policy.yaml"
    config.write_text(f"audit_capture_dir: {captures}\ndata_dir: {tmp_path / 'data'}\n")
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    call = {"tool": "bash", "args": {"command": "ls"}}
    done = subprocess.run(
        [POLICY, "eval", "--config", str(config), "--packs", str(ROOT / "rules"), json_of(call)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert not captures.exists()


def test_a_claude_code_hook_captures_each_event_and_names_the_project(tmp_path: Path) -> None:
    # The path a user runs: one `policy hook claude` process per tool call, the second
    # one reading its settings back from the cache.
    log, captures = tmp_path / "decisions.log", tmp_path / "capture"
    config = tmp_path / "policy.yaml"
    config.write_text(f"audit_path: {log}\naudit_capture_dir: {captures}\n")
    pack = tmp_path / "allow.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: allow\nrules:\n"
        "  - id: ok\n    tools: [bash]\n    action: allow\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    env["CLAUDE_PROJECT_DIR"] = "/srv/app"
    for command in ("make test", f"curl -H 'Authorization: Bearer {TOKEN}' x"):
        event = {
            "session_id": "s1",
            "cwd": "/srv/app/sub",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "toolu_01",
        }
        done = subprocess.run(
            [POLICY, "hook", "claude", "--config", str(config), "--packs", str(pack)],
            input=orjson.dumps(event),
            capture_output=True,
            env=env,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    made, curl = records(log)
    assert (made["cwd"], made["workspace"]) == ("/srv/app/sub", "/srv/app")
    assert TOKEN not in log.read_text()
    lines = list(read_capture(captures))
    assert [line["decision_id"] for line in lines] == [made["decision_id"], curl["decision_id"]]
    assert lines[1]["parts"]["args"]["command"] == f"curl -H 'Authorization: Bearer {TOKEN}' x"
    assert lines[1]["parts"]["tool_raw"] == "Bash"
    assert lines[1]["caller"] == {"workspace": "/srv/app"}
