"""Approvals as a person sees them: what `policy approvals` shows, the command a
deferred call names, and the requester withdrawing their own call.

* `show` names the rules that asked and their message; `list` names the rule compactly;
* a request nobody answered in time is `expired`, never `pending (0 s left)`;
* the command a deferral prints works as printed: in process, `policy approvals
  approve ID`; through `policy serve`, with `--server` and an approver's token;
* the requester may deny (withdraw) their own pending call — the uid that filed it
  locally, the Unix-socket peer uid (or token) that filed it through the service —
  and nobody else may, unless they are an approver.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Engine, ToolCall
from policy.approvals import ApprovalRequest, open_store
from policy.approvals.identity import Identity
from policy.approvals.rules import NotAllowed, decide
from policy.approvals.store import call_digest
from policy.settings import Settings
from tests.test_service import (
    AGENT_TOKEN,
    APPROVER_TOKEN,
    AS_NOBODY,
    OPERATOR_TOKEN,
    _can_run_as_nobody,
    clean_env,
    hook,
    permission,
    pre_tool,
    start_service,
    stop,
)

POLICY = str(Path(sys.executable).with_name("policy"))

PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: ops
rules:
  - id: deploys-need-secops
    tools: [bash]
    when: args.command.startsWith("./deploy")
    action: ask
    approvers: ["secops-*"]
    timeout: 60s
    message: deploys need secops
"""


def _engine(tmp_path: Path) -> tuple[Engine, Path]:
    """An engine on PACK, its requests in a SQLite file under the data dir, and the
    settings file `policy approvals --config` reads."""
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "ops.yaml").write_text(PACK)
    data, log = tmp_path / "data", tmp_path / "decisions.jsonl"
    settings = tmp_path / "settings.yaml"
    settings.write_text(f"data_dir: {data}\naudit_path: {log}\n")
    engine = Engine(Settings(packs=[tmp_path / "packs"], data_dir=data, audit_path=log))
    return engine, settings


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("POLICY_")}
    return subprocess.run(
        [POLICY, "approvals", *args], capture_output=True, text=True, env=env, timeout=60
    )


def _deploy(command: str = "./deploy prod") -> ToolCall:
    return ToolCall(tool="Bash", args={"command": command}, sender="dev", session="s1")


def _deferred(engine: Engine, call: ToolCall) -> tuple[str, ApprovalRequest]:
    """Defer `call`: the reason the developer reads, and the request it filed."""
    decision = engine.before_tool(call)
    answer = engine.approve_tool(call, gates=decision.gates, defer=True)
    assert not answer.approved
    (request,) = [r for r in engine.approvals.list() if r.args == dict(call.args)]
    return answer.reason, request


def _records(log: Path, kind: str) -> list[dict[str, Any]]:
    lines = [orjson.loads(line) for line in log.read_bytes().splitlines() if line.strip()]
    return [line for line in lines if line.get("event") == kind]


# ------------------------------------------------------------------ show and list


def test_show_names_the_rule_that_asked_and_its_message(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'approvals.db'}"
    now = time.time()
    filed = ApprovalRequest(
        id="3f2a9c1b0d4e",
        tool="bash",
        digest=call_digest("bash", {"command": "./deploy prod"}),
        args={"command": "./deploy prod"},
        requester="dev",
        session="s1",
        pack="ops",
        created=now,
        deadline=now + 60,
        approvers=("secops-*",),
        rules=("ops/deploys-need-secops",),
        message="deploys need secops",
    )
    store = open_store(uri)
    store.create(filed)
    store.close()
    shown = _cli("show", filed.id, "--store", uri)
    assert shown.returncode == 0, shown.stderr
    assert "rules         ops/deploys-need-secops\n" in shown.stdout
    assert "message       deploys need secops\n" in shown.stdout
    listed = _cli("list", "--store", uri)
    assert " ops/deploys-need-secops " in listed.stdout
    as_json = orjson.loads(_cli("show", filed.id, "--store", uri, "--format", "json").stdout)
    assert (as_json["rules"], as_json["message"]) == (
        ["ops/deploys-need-secops"],
        "deploys need secops",
    )


def test_a_request_nobody_answered_in_time_is_expired_not_pending(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'approvals.db'}"
    now = time.time()
    late = ApprovalRequest(
        id=uuid.uuid4().hex[:12],
        tool="bash",
        digest="d",
        args={"command": "./deploy prod"},
        requester="dev",
        session="s1",
        pack="ops",
        created=now - 120,
        deadline=now - 60,
    )
    store = open_store(uri)
    store.create(late)
    store.close()
    every = _cli("list", "--state", "all", "--store", uri)
    assert f"{late.id}  expired " in every.stdout and "pending" not in every.stdout
    assert "no pending approval requests" in _cli("list", "--store", uri).stdout
    shown = _cli("show", late.id, "--store", uri, "--format", "json")
    assert orjson.loads(shown.stdout)["state"] == "expired"


# ------------------------------------------------------------------ the hint


def test_in_process_the_hint_is_the_bare_command_and_the_request_names_its_rule(
    tmp_path: Path,
) -> None:
    engine, _ = _engine(tmp_path)
    try:
        reason, request = _deferred(engine, _deploy())
    finally:
        engine.close()
    assert f"`policy approvals approve {request.id}`" in reason
    assert "--server" not in reason
    assert request.rules == ("ops/deploys-need-secops",)


# ------------------------------------------------------------------ withdrawing


def test_the_requester_withdraws_their_own_call_with_the_cli(tmp_path: Path) -> None:
    """The uid that filed the request (this one: the hook ran as it) may deny it, though
    it is no approver; approving it stays refused. The decision log says who withdrew."""
    engine, settings = _engine(tmp_path)
    try:
        _, request = _deferred(engine, _deploy())
    finally:
        engine.close()
    approving = _cli("approve", request.id, "--config", str(settings))
    assert approving.returncode == 1 and "may not decide" in approving.stderr
    withdrawn = _cli("deny", request.id, "--config", str(settings), "--reason", "wrong env")
    assert withdrawn.returncode == 0, withdrawn.stderr
    user = _cli("show", request.id, "--config", str(settings))
    assert "state         denied\n" in user.stdout
    assert "(requester, withdrawn)" in user.stdout and "wrong env" in user.stdout
    (record,) = _records(tmp_path / "decisions.jsonl", "approval.withdrawn")
    assert record["request_id"] == request.id and record["uid"] == os.getuid()
    assert record["rule_ids"] == ["ops/deploys-need-secops"]


def test_nobody_else_withdraws_a_call_and_an_unknown_filer_is_nobody(tmp_path: Path) -> None:
    engine, _ = _engine(tmp_path)
    try:
        _, request = _deferred(engine, _deploy())
        store = engine.approvals
        others = [
            Identity("nobody", uid=65534),  # another uid
            Identity("dev", uid=os.getuid(), channel="token"),  # a token's os_user is no peer
            Identity("dev", principal=f"uid:{os.getuid()}"),  # filed in process: no principal
            Identity("root", ("dev",)),  # root `--as dev`: no uid the OS vouches for
        ]
        for identity in others:
            with pytest.raises(NotAllowed):
                decide(store, request.id, approved=False, identity=identity)
        assert store.get(request.id).state == "pending"
        with pytest.raises(NotAllowed, match="may not decide"):  # approving: as today
            decide(store, request.id, approved=True, identity=Identity("dev", uid=os.getuid()))
    finally:
        engine.close()


def test_a_reason_longer_than_a_decisions_is_refused_and_nothing_is_decided(
    tmp_path: Path,
) -> None:
    """Anyone who files a request may withdraw it with a reason, and the reason goes into
    the store and the decision log: it is bounded as a decision's reason is."""
    from policy.approvals.rules import MAX_REASON

    engine, _ = _engine(tmp_path)
    try:
        _, request = _deferred(engine, _deploy())
        me = Identity("dev", uid=os.getuid(), channel="os user")
        with pytest.raises(NotAllowed, match="longer than 4096"):
            decide(engine.approvals, request.id, approved=False, identity=me, reason="x" * 5000)
        assert engine.approvals.get(request.id).state == "pending"
        assert MAX_REASON == 4096
    finally:
        engine.close()


# ------------------------------------------------------------------ through policy serve


def _command_in(reason: str) -> list[str]:
    """The command a deferral names, as the developer would copy it."""
    found = re.search(r"`(policy approvals approve [^`]+)`", reason)
    assert found is not None, reason
    return found.group(1).split()


@pytest.mark.slow
def test_through_the_service_the_hint_names_the_approvers_socket_and_works_as_printed(
    tmp_path: Path,
) -> None:
    approvers = tmp_path / "run" / "approvers.sock"
    running = start_service(tmp_path / "svc", options=("--approver-socket", str(approvers)))
    try:
        answer, done = hook("claude", pre_tool("./deploy prod"), "--server", running.unix)
        decision, reason = permission(answer)
        assert decision == "deny", done.stderr
        assert f"--server unix:{approvers}`" in reason and "HOOKPOLICY_TOKEN" in reason
        command = _command_in(reason)
        approved = subprocess.run(
            [POLICY, *command[1:]],
            capture_output=True,
            text=True,
            env=clean_env(HOOKPOLICY_TOKEN=APPROVER_TOKEN),
        )
        assert approved.returncode == 0, approved.stderr
        assert "approved by secops-alice" in approved.stdout
    finally:
        stop(running)


@pytest.mark.slow
@pytest.mark.skipif(not _can_run_as_nobody(), reason="needs root and setpriv")
def test_through_the_service_only_the_peer_uid_that_filed_a_call_withdraws_it(
    tmp_path: Path,
) -> None:
    running = start_service(tmp_path / "svc", socket_mode="0666")
    try:
        running.socket.parent.chmod(0o755)
        answer, _ = hook("claude", pre_tool("./deploy prod"), "--server", running.unix)
        reason = permission(answer)[1]
        assert f"--server {running.unix}`" in reason  # the socket the hook came in on
        operator = running.client(token=OPERATOR_TOKEN)
        (filed,) = operator.call("GET", "/v1/approvals")["requests"]
        assert filed["principal"] == f"uid:{os.getuid()}"
        assert filed["rules"] == ["svc/deploys-need-secops"]
        # Another uid, over a real socket: refused, the request stays pending.
        config = tmp_path / "nobody.yaml"
        config.write_text(f"server: {running.unix}\nserver_owner: '{os.getuid()}'\n")
        config.chmod(0o644)
        as_nobody = subprocess.run(
            [*AS_NOBODY, POLICY, "approvals", "deny", filed["id"], "--config", str(config)],
            capture_output=True,
            text=True,
            env=clean_env(),
        )
        assert as_nobody.returncode == 1, as_nobody.stderr
        assert "needs the approver role, or to have filed the request" in as_nobody.stderr
        # A token is another principal, even from the uid that filed it.
        got, _, refused = running.client(token=AGENT_TOKEN).request(
            "POST", f"/v1/approvals/{filed['id']}/deny", {}
        )
        assert got == 403, refused
        assert operator.call("GET", f"/v1/approvals/{filed['id']}")["state"] == "pending"
        # The uid that filed it, without any token.
        withdrawn = subprocess.run(
            [POLICY, "approvals", "deny", filed["id"], "--server", running.unix],
            capture_output=True,
            text=True,
            env=clean_env(),
        )
        assert withdrawn.returncode == 0, withdrawn.stderr
        assert "(requester, withdrawn)" in withdrawn.stdout
        assert operator.call("GET", f"/v1/approvals/{filed['id']}")["state"] == "denied"
    finally:
        stop(running)
    (record,) = _records(running.audit, "approval.withdrawn")
    assert record["withdrawn_by"] == f"uid:{os.getuid()}"
    assert record["request_id"] == filed["id"]
