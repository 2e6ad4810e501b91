"""`policy replay`: a pack change measured against the calls agents really made.

Read top to bottom: a team's agents run on the `team` pack for a while (kubectl apply on
prod asks secops; some answered, one not); the team then turns that rule from ask into
deny, and replay says exactly which calls change, from what to what, by which rule —
while the rate limit, the time of day and the approvals the log recorded come out the
same. Masked or rewritten calls are not replayable from the log alone, and are with the
capture the service keeps beside it. `policy eval` decides a log line as it decides a call.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Engine
from policy.approvals.rules import decide
from policy.cli import main
from policy.facts import Caller, deciding_for
from policy.model import ToolCall, ToolResult
from policy.replay import replay
from policy.replay.records import captures_by_id
from policy.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
TEAM = ROOT / "tests" / "packs" / "team" / "team.yaml"
APPLY = "kubectl apply --context prod -f deploy.yaml"

NIGHT = """
apiVersion: hookpolicy/v1
kind: RulePack
name: night
rules:
  - id: no-helm-at-night
    tools: [bash]
    when: now.getHours() >= 22 && commands.exists(c, c.name == "helm")
    action: deny
    message: no helm after 22:00 UTC
"""


def packs(tmp_path: Path, *, apply_action: str = "ask") -> Path:
    """The team pack (apply on prod: `apply_action`) and a time-of-day pack, in a dir."""
    directory = tmp_path / f"packs-{apply_action}"
    directory.mkdir()
    text = TEAM.read_text().replace("tests:\n", "tests_removed:\n", 1).split("tests_removed:")[0]
    if apply_action != "ask":
        text = text.replace(
            '    action: ask\n    message: kubectl apply against prod waits for secops\n'
            '    approvers: ["secops-*"]\n',
            f"    action: {apply_action}\n    message: kubectl apply against prod is refused\n",
        )
        assert f"action: {apply_action}" in text
    (directory / "team.yaml").write_text(text)
    (directory / "night.yaml").write_text(NIGHT.lstrip())
    return directory


def bash(command: str, number: int, **fields: Any) -> ToolCall:
    return ToolCall(
        tool="bash",
        args={"command": command},
        call_id=f"call-{number}",
        cwd="/srv/infra",
        **{"sender": "dev", "session": "s1", **fields},
    )


def answer(engine: Engine, call: ToolCall, approved: bool | None) -> None:
    """The approver's answer, as a host in defer mode sees it: the request filed, a
    person (or nobody) answers, the call asked again."""
    decision = engine.before_tool(call)
    assert decision.needs_approval
    store = engine.approvals
    before = {r.id for r in store.list("pending")}
    engine.approve_tool(call, gates=decision.gates, defer=True)
    if approved is None:
        return  # nobody answered
    for request in store.list("pending"):
        if request.id not in before:
            decide(store, request.id, approved=approved, by="secops-ann", reason="reviewed")
    engine.approve_tool(call, gates=decision.gates, defer=True)


@pytest.fixture
def live(tmp_path: Path) -> Path:
    """The agents' week on the `ask` packs: a decision log and its capture in tmp_path."""
    settings = Settings(
        packs=[packs(tmp_path)],
        data_dir=tmp_path / "data",
        audit_path=tmp_path / "decisions.log",
        audit_capture_dir=tmp_path / "capture",
        approvals_store="memory://",
    )
    with Engine(settings) as engine:
        n = 0
        for approved in (True, True, False, None):  # two approved, one refused, one unanswered
            n += 1
            answer(engine, bash(APPLY, n, sender=f"dev-{n}"), approved)
        for _ in range(3):
            n += 1
            engine.before_tool(bash("terraform destroy -auto-approve", n))
        for _ in range(5):
            n += 1
            engine.before_tool(bash("ls -la", n))
        for _ in range(5):  # 3/minute: the last two are refused
            n += 1
            engine.before_tool(
                ToolCall(tool="web_fetch", args={"url": "https://example.com"}, sender="dev")
            )
        release = ToolCall(tool="read_file", args={"path": "CHANGELOG.md"}, session="release-1")
        # the release bot's contract allows 2 calls: the third is refused
        assert [engine.before_tool(release).action.value for _ in range(3)] == [
            "continue",
            "continue",
            "deny_tool",
        ]
        # masked in the log: the token is `***` there, whole in the capture
        engine.before_tool(bash("curl -H 'Authorization: Bearer ghp_" + "a" * 36 + "' x", 99))
        # after_tool: the log keeps sizes, not the output
        engine.after_tool(
            bash("cat token.txt", 100),
            ToolResult(for_llm="token ghp_" + "b" * 36),
        )
    return tmp_path


def run(tmp_path: Path, against: Path, *, capture: bool) -> dict[str, Any]:
    captured = {}
    if capture:
        from policy.audit_capture import read_capture

        captured = captures_by_id(read_capture(tmp_path / "capture"))
    settings = Settings(data_dir=tmp_path / "replay-data", audit_path=None)
    return replay(settings, tmp_path / "decisions.log", [against], captured=captured).to_json()


def test_the_unchanged_packs_change_nothing_rate_limit_and_approvals_included(live: Path) -> None:
    report = run(live, live / "packs-ask", capture=True)
    assert report["changed"] == 0
    assert report["not_replayable"]["total"] == 0
    assert report["replayed"] == 4 + 3 + 5 + 5 + 3 + 1 + 1 == report["unchanged"]
    # each apply's logged answer; the unanswered one's is "not approved (still pending)"
    assert report["approvals_reused"] == 4


def test_turning_ask_into_deny_changes_exactly_the_apply_calls(live: Path) -> None:
    report = run(live, packs(live, apply_action="deny"), capture=False)
    changes = {(c["from"], c["to"]): c for c in report["changes"]}
    assert {key: c["count"] for key, c in changes.items()} == {
        ("ask (approved)", "deny_tool"): 2,
        ("ask (not approved)", "deny_tool"): 2,  # refused, and asked but never answered
    }
    assert report["changed"] == 4
    assert report["decisions"] == report["replayed"] + report["not_replayable"]["total"]
    # each apply asked once in defer mode (pending), the answered ones again: 4 + 3
    assert report["approval_answers"] == 7
    for change in changes.values():
        assert change["rules"] == {"team/prod-apply-needs-secops": change["count"]}
        assert change["examples"][0]["call"] == f"bash {APPLY}"
        assert change["examples"][0]["reason"] == "kubectl apply against prod is refused"
    # terraform, ls, the rate-limited fetches (3 in, 2 refused) and the release bot's
    # contract (2 in, 1 refused) come out the same
    assert report["unchanged"] == 3 + 5 + 5 + 3
    # the log alone does not hold these two; they are never counted as changes
    assert report["not_replayable"] == {
        "total": 2,
        "reasons": {
            "arguments masked or cut in the log (turn on audit_capture_dir)": 1,
            "the log keeps no payload at after_tool (turn on audit_capture_dir)": 1,
        },
    }


def test_each_call_is_decided_at_its_records_time(tmp_path: Path) -> None:
    """A rule on `now` sees the logged time: a helm call made at 23:00 stays refused
    when replayed at noon, and one made at noon stays allowed."""
    directory = packs(tmp_path)
    log = tmp_path / "decisions.log"
    clock = [_dt.datetime(2026, 12, 4, 23, tzinfo=_dt.UTC).timestamp()]
    settings = Settings(packs=[directory], data_dir=tmp_path / "d", audit_path=log)
    with Engine(settings, clock=lambda: clock[0]) as engine:
        assert engine.before_tool(bash("helm upgrade app ./chart", 1)).action.value == "deny_tool"
        clock[0] -= 11 * 3600
        assert engine.before_tool(bash("helm upgrade app ./chart", 2)).action.value == "continue"
    # the log's `ts` is the wall clock; move the records to the times they were decided
    lines = log.read_bytes().splitlines()
    records = [orjson.loads(line) for line in lines]
    decisions = [r for r in records if r["event"] == "decision"]
    decisions[0]["ts"], decisions[1]["ts"] = "2026-12-04T23:00:00Z", "2026-12-04T12:00:00Z"
    log.write_bytes(b"\n".join(orjson.dumps(r) for r in records) + b"\n")
    report = replay(Settings(data_dir=tmp_path / "r", audit_path=None), log, [directory])
    assert (report.replayed, report.changed) == (2, 0)


def test_a_rewritten_call_is_replayed_from_the_capture_only(live: Path, tmp_path: Path) -> None:
    directory = tmp_path / "rewrite"
    directory.mkdir()
    (directory / "rw.yaml").write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: rw\nrules:\n"
        "  - id: interactive-rm\n    tools: [bash]\n"
        '    when: args.command.startsWith("rm ")\n    action: modify\n'
        "    set: {args.command: '\"rm -i \" + args.command.substring(3)'}\n"
    )
    log = tmp_path / "rw.log"
    settings = Settings(
        packs=[directory], data_dir=tmp_path / "d2", audit_path=log, audit_capture_dir=tmp_path / "c2"
    )
    with Engine(settings) as engine:
        assert engine.before_tool(bash("rm build.txt", 1)).call.args["command"] == "rm -i build.txt"
    quiet = Settings(data_dir=tmp_path / "r2", audit_path=None)
    alone = replay(quiet, log, [directory])
    assert alone.not_replayable == {
        "the log shows the call as rewritten, not as asked (turn on audit_capture_dir)": 1
    }
    from policy.audit_capture import read_capture

    captured = captures_by_id(read_capture(tmp_path / "c2"))
    with_capture = replay(quiet, log, [directory], captured=captured)
    assert (with_capture.replayed, with_capture.changed) == (1, 0)


def test_the_command_prints_counts_rules_and_examples_and_gates_ci(
    live: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = str(live / "decisions.log")
    deny = str(packs(live, apply_action="deny"))
    assert main(["replay", log, deny]) == 0
    out = capsys.readouterr().out
    assert "changed: 4" in out
    assert "2  ask (approved) -> deny_tool   by team/prod-apply-needs-secops (2)" in out
    assert f"bash {APPLY}" in out
    assert "not replayable: 2" in out
    assert main(["replay", log, deny, "--fail-on-change"]) == 1
    capsys.readouterr()
    assert main(["replay", log, deny, "--capture", str(live / "capture"), "--format", "json"]) == 0
    report = orjson.loads(capsys.readouterr().out)
    assert report["not_replayable"]["total"] == 0
    assert report["changed"] == 4
    assert main(["replay", str(live / "missing.log"), deny]) == 2


def test_policy_eval_decides_a_decision_log_line(
    live: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (live / "decisions.log").read_bytes().splitlines()
    records = [orjson.loads(line) for line in lines]
    terraform = next(
        r for r in records if r.get("event") == "decision" and "terraform" in str(r.get("args"))
    )
    masked = next(r for r in records if r.get("event") == "decision" and "***" in str(r.get("args")))
    given = (live / "input.jsonl")
    given.write_bytes(orjson.dumps(terraform) + b"\n" + orjson.dumps(masked) + b"\n")
    assert main(["eval", "--packs", str(live / "packs-ask"), f"@{given}"]) == 0
    first, second = map(orjson.loads, capsys.readouterr().out.splitlines())
    assert first["action"] == "deny_tool"
    assert first["rule_ids"] == ["team/deny-terraform-destroy"]
    assert second == {
        "input": "line 2",
        "not_replayable": "arguments masked or cut in the log (turn on audit_capture_dir)",
    }


def test_a_principals_budget_is_rebuilt_for_that_principal(tmp_path: Path) -> None:
    """Through `policy serve`, budgets are per principal: two agents' fetches, each
    within its own 3/minute, stay allowed when replayed."""
    directory = packs(tmp_path)
    log = tmp_path / "decisions.log"
    settings = Settings(packs=[directory], data_dir=tmp_path / "d", audit_path=log)
    fetch = ToolCall(tool="web_fetch", args={"url": "https://example.com"}, sender="dev")
    with Engine(settings) as engine:
        for who in ("uid:1001", "uid:1002"):
            with deciding_for(Caller(principal=who)):
                for _ in range(3):
                    assert engine.before_tool(fetch).action.value == "continue"
    report = replay(Settings(data_dir=tmp_path / "r", audit_path=None), log, [directory])
    assert (report.replayed, report.changed) == (6, 0)


def test_torn_lines_and_other_records_are_counted_not_replayed(live: Path) -> None:
    log = live / "decisions.log"
    with log.open("ab") as stream:
        stream.write(b'{"ts": "2026-12-05T00:00:01Z", "event": "audit.tool_call"}\n')
        stream.write(b'{"ts": "2026-12-05T00:00:00Z", "event": "decis')
    report = run(live, live / "packs-ask", capture=True)
    assert report["other_records"] == {"audit.tool_call": 1, "not a JSON record": 1}
    assert report["changed"] == 0


def test_the_log_is_never_written_and_the_users_state_never_touched(live: Path) -> None:
    before = (live / "decisions.log").read_bytes()
    state = live / "replay-data"
    run(live, live / "packs-ask", capture=True)
    assert (live / "decisions.log").read_bytes() == before
    assert not state.exists() or not any(state.iterdir())


REWRITE_THEN_DENY = """
apiVersion: hookpolicy/v1
kind: RulePack
name: {name}
priority: {priority}
rules:
{rules}
"""
FORCE = """  - id: make-it-force
    tools: [bash]
    when: args.command == "git push"
    action: modify
    set: {args.command: '"git push --force"'}
"""
NO_FORCE = """  - id: no-force
    tools: [bash]
    when: args.command.contains("--force")
    action: deny
    message: no force pushes
"""


def test_a_call_rewritten_and_then_denied_is_not_replayed_as_asked(tmp_path: Path) -> None:
    """One pack rewrites `git push` into a force push, another denies that: the log
    shows the rewritten call under the denial. Replayed from the log it would be judged
    as if `--force` had been asked; it is not replayable without the capture."""
    live, new = tmp_path / "live", tmp_path / "new"
    live.mkdir()
    new.mkdir()
    (live / "a.yaml").write_text(REWRITE_THEN_DENY.format(name="a", priority=10, rules=FORCE).lstrip())
    for directory in (live, new):
        (directory / "b.yaml").write_text(REWRITE_THEN_DENY.format(name="b", priority=20, rules=NO_FORCE).lstrip())
    log = tmp_path / "decisions.log"
    settings = Settings(
        packs=[live], data_dir=tmp_path / "d", audit_path=log, audit_capture_dir=tmp_path / "c"
    )
    with Engine(settings) as engine:
        assert engine.before_tool(bash("git push", 1)).action.value == "deny_tool"
    quiet = Settings(data_dir=tmp_path / "r", audit_path=None)
    alone = replay(quiet, log, [new])
    assert (alone.replayed, alone.changed) == (0, 0)
    assert list(alone.not_replayable) == [
        "the log shows the call as rewritten, not as asked (turn on audit_capture_dir)"
    ]
    from policy.audit_capture import read_capture

    captured = captures_by_id(read_capture(tmp_path / "c"))
    whole = replay(quiet, log, [new], captured=captured).to_json()
    assert [(c["from"], c["to"], c["count"]) for c in whole["changes"]] == [
        ("deny_tool", "continue", 1)
    ]


def test_records_the_log_cannot_give_back_whole_are_counted_never_replayed(
    live: Path,
) -> None:
    """Older records without `cwd`, a cut tool name, arguments nested past Python's
    recursion, a record that is no object: each counted with its reason."""
    lines = (live / "decisions.log").read_bytes().splitlines()
    ls = next(
        orjson.loads(line) for line in lines if b'"command":"ls -la"' in line
    )
    old = {k: v for k, v in ls.items() if k != "cwd"}
    cut = {**ls, "tool_raw": "x" * 256 + "…(+10 chars)"}
    deep = b"[" * 900 + b"1" + b"]" * 900  # orjson reads it; Python cannot recurse so deep
    nested = orjson.dumps(ls).replace(b'{"command":"ls -la"}', b'{"command":' + deep + b"}")
    hostile = live / "hostile.log"
    hostile.write_bytes(
        b"\n".join([orjson.dumps(old), orjson.dumps(cut), nested, b"[1, 2, 3]"]) + b"\n"
    )
    report = replay(Settings(data_dir=live / "r", audit_path=None), hostile, [live / "packs-ask"])
    assert report.replayed == 0 and report.changed == 0
    reasons = set(report.not_replayable)
    assert "written before the log recorded cwd (no capture line)" in reasons
    assert "the log cut its tool_raw (turn on audit_capture_dir)" in reasons
    # past Python's recursion (RecursionError) or orjson's (TypeError), by stack depth
    assert any(reason.startswith("unreadable arguments (") for reason in reasons), reasons
    assert report.other_records == {"not a JSON record": 1}


def test_a_budget_spent_by_calls_replay_cannot_see_is_uncertain_not_a_change(
    live: Path,
) -> None:
    """Masked fetches spent the sender's 3/minute live; replayed from the log alone they
    spend nothing, so the refusal they caused would look like a change."""
    log = live / "budget.log"
    settings = Settings(packs=[live / "packs-ask"], data_dir=live / "d3", audit_path=log)
    secret = ToolCall(
        tool="web_fetch", args={"url": f"https://x.example/?token=ghp_{'c' * 36}"}, sender="eve"
    )
    plain = ToolCall(tool="web_fetch", args={"url": "https://x.example/"}, sender="eve")
    with Engine(settings) as engine:
        assert [engine.before_tool(c).action.value for c in (secret, secret, secret, plain)] == [
            "continue",
            "continue",
            "continue",
            "deny_tool",
        ]
    report = replay(Settings(data_dir=live / "r3", audit_path=None), log, [live / "packs-ask"])
    assert report.changed == 0
    assert report.uncertain == {("deny_tool", "continue"): 1}


def test_the_live_engines_own_files_stay_protected_in_a_replay(tmp_path: Path) -> None:
    data, log = tmp_path / "data", tmp_path / "decisions.log"
    settings = Settings(packs=[ROOT / "rules"], data_dir=data, audit_path=log)
    with Engine(settings) as engine:
        for n, command in enumerate((f"rm -rf {data}", f"echo forged >> {log}")):
            assert engine.before_tool(bash(command, n)).action.value == "deny_tool"
    report = replay(settings, log, [ROOT / "rules"])
    assert (report.replayed, report.changed) == (2, 0)
