"""`policy eval --explain` at approve_tool: who would be asked, and nobody is.

An explanation of an approval lists the gates the packs put on the call (each gate's
rule and where it is written, who may approve, the timeout, the grants, the message)
and every approver hook in the chain with whether it covers the call — without asking
any of them: explaining never files an approval request and never waits for a person.
A before_tool explanation whose decision needs approval carries the same part.
"""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import orjson
import pytest

from policy.cli import main

PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: deploy
rules:
  - id: ask-kubectl-apply
    tools: [bash]
    when: 'commands.exists(c, c.name == "kubectl" && "apply" in c.args)'
    action: ask
    approvers: [secops-*]
    timeout: 10m
    grants: [once, session]
    message: kubectl apply needs secops
"""

#: An approver hook that covers kubectl calls only and records being asked.
APPROVER = """\
from pathlib import Path

from policy import ApprovalDecision


class KubectlApprover:
    name = "kubectl-approver"

    def covers(self, call):
        return "kubectl" in str(call.args.get("command", ""))

    def approve_tool(self, call):
        Path(__file__).with_name("asked").write_text("asked")
        return ApprovalDecision(True, "fine")


class WebApprover:
    name = "web-approver"
    timeout_ms = 5000

    def covers(self, call):
        return call.tool == "web_fetch"

    def approve_tool(self, call):
        Path(__file__).with_name("asked").write_text("asked")
        return ApprovalDecision(True, "fine")
"""

APPLY = orjson.dumps({"tool": "Bash", "args": {"command": "kubectl apply -f app.yaml"}}).decode()


def line_of(path: Path, text: str) -> int:
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """The pack and the approver hooks, with an approval store of this test's own."""
    monkeypatch.setenv("POLICY_DATA_DIR", str(tmp_path / "data"))
    pack = tmp_path / "deploy.yaml"
    pack.write_text(PACK)
    hooks = tmp_path / "approvers.py"
    hooks.write_text(APPROVER)
    return pack, hooks


def pending(capsys: pytest.CaptureFixture[str]) -> list[object]:
    """The requests in the approval store, whatever their state."""
    assert main(["approvals", "list", "--state", "all", "--format", "json"]) == 0
    out, _ = capsys.readouterr()
    listed = orjson.loads(out)
    assert isinstance(listed, list)
    return listed


def test_explain_at_approve_tool_lists_gates_and_approvers_and_asks_no_one(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    pack, hooks = setup
    argv = [
        "eval", "--packs", str(pack), "--point", "approve_tool", "--explain",
        "--hook", f"{hooks}:KubectlApprover", "--hook", f"{hooks}:WebApprover",
    ]  # fmt: skip
    started = time.monotonic()
    code = main([*argv, APPLY])
    out, err = capsys.readouterr()
    assert code == 0
    assert time.monotonic() - started < 30  # nobody was waited for (the gate gives 10 min)
    at = f"{pack}:{line_of(pack, '- id: ask-kubectl-apply')}"
    assert (
        textwrap.dedent(
            f"""\
        approval, as approve_tool would ask it (no one is asked here):
          gate deploy/ask-kubectl-apply  {at}
            who:     any identity matching secops-* but the requester
            timeout: 600 s (from the gate)
            grants:  once, session
            message: kubectl apply needs secops
          approver kubectl-approver (code hook): covers this call, budget 60 s
          approver web-approver (code hook): does not cover this call, budget 5 s
          would: ask approver hook(s) kubectl-approver, in order, then the people of 1 gate(s): \
any identity matching secops-* but the requester; the first denial wins
        final: not decided (explaining asks no approver and no person)
        """
        )
        in out
    )
    # no approver hook was asked, no request was filed
    assert not (hooks.parent / "asked").exists()
    assert "approval request" not in err
    assert pending(capsys) == []


def test_explain_at_approve_tool_as_json(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    pack, hooks = setup
    argv = ["eval", "--packs", str(pack), "--point", "approve_tool", "--explain"]
    code = main([*argv, "--format", "json", "--hook", f"{hooks}:KubectlApprover", APPLY])
    out, _ = capsys.readouterr()
    assert code == 0
    report = orjson.loads(out)
    approval = report["approval"]
    assert approval["gates"] == [
        {
            "rule": "deploy/ask-kubectl-apply",
            "at": f"{pack}:{line_of(pack, '- id: ask-kubectl-apply')}",
            "pack": "deploy",
            "approvers": ["secops-*"],
            "who": "any identity matching secops-* but the requester",
            "timeout_s": 600.0,
            "timeout_from": "the gate",
            "grants": ["once", "session"],
            "self_approval": False,
            "message": "kubectl apply needs secops",
        }
    ]
    assert approval["approvers"] == [
        {"hook": "kubectl-approver", "kind": "code hook", "covers": True, "timeout_s": 60.0}
    ]
    assert approval["would"].startswith("ask approver hook(s) kubectl-approver")
    assert report["final"] == {}
    assert not (hooks.parent / "asked").exists()
    assert pending(capsys) == []


def test_a_call_nobody_can_approve_is_explained_as_denied(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    pack, _ = setup
    ls = orjson.dumps({"tool": "Bash", "args": {"command": "ls"}}).decode()
    argv = ["eval", "--packs", str(pack), "--point", "approve_tool", "--explain"]
    assert main([*argv, "--format", "json", ls]) == 0
    approval = orjson.loads(capsys.readouterr().out)["approval"]
    assert approval["gates"] == [] and approval["approvers"] == []
    assert approval["would"] == (
        "deny: approval is required, and no approver covers this call and no gate names anyone"
    )


def test_a_before_tool_explanation_that_needs_approval_shows_who_approves(
    setup: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    pack, _ = setup
    code = main(["eval", "--packs", str(pack), "--explain", APPLY])
    out, err = capsys.readouterr()
    assert code == 0
    assert "final (" in out and "continue, needs approval [deploy/ask-kubectl-apply]" in out
    assert "  gate deploy/ask-kubectl-apply  " in out
    assert "    who:     any identity matching secops-* but the requester" in out
    assert "approval request" not in err
    assert pending(capsys) == []

    assert main(["eval", "--packs", str(pack), "--explain", "--format", "json", APPLY]) == 0
    report = orjson.loads(capsys.readouterr().out)
    assert report["final"]["needs_approval"] is True
    assert [g["rule"] for g in report["approval"]["gates"]] == ["deploy/ask-kubectl-apply"]
