"""Approvals through `policy hook claude` as the example mount runs it, end to end.

The agent's hook runs as an unprivileged uid (`nobody`), as an agent should; the
approvers run `policy approvals` as themselves. The policy is examples/packs/
release-approval.yaml (only deploys and releases wait, for `secops-*`), with its
timeout shortened to seconds. The approvers map is a root-owned file the agent
cannot write, so `root` is honoured as `secops-alice`; the developer's own uid is
just `nobody`, who may not decide.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

POLICY = str(Path(sys.executable).with_name("policy"))
ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "claude-code" / "settings.json"
RELEASE_PACK = ROOT / "examples" / "packs" / "release-approval.yaml"
NOBODY = 65534
#: Run as `nobody`, still able to read this checkout wherever CI cloned it.
AS_AGENT = [
    "setpriv",
    f"--reuid={NOBODY}",
    f"--regid={NOBODY}",
    "--clear-groups",
    "--inh-caps=+dac_read_search",
    "--ambient-caps=+dac_read_search",
]


def _can_run_as_agent() -> bool:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    probe = subprocess.run(
        [*AS_AGENT, sys.executable, "-c", "import policy, os; print(os.getuid())"],
        capture_output=True,
        check=False,
    )
    return probe.returncode == 0 and probe.stdout.strip() == str(NOBODY).encode()


pytestmark = [
    pytest.mark.slow,  # a dozen hook and CLI processes per test
    pytest.mark.skipif(
        not _can_run_as_agent(), reason="needs root and setpriv to run the hook as another uid"
    ),
]


class Mount:
    """A project mounted as examples/claude-code/settings.json says, with short timeouts."""

    def __init__(self, base: Path, timeout: str) -> None:
        self.base = base
        data = base / "data"
        data.mkdir()
        os.chown(data, NOBODY, NOBODY)  # the agent's own data dir
        self.pack = base / "release.yaml"
        self.pack.write_text(
            RELEASE_PACK.read_text().replace("timeout: 10m", f"timeout: {timeout}")
        )
        approvers = base / "approvers.yaml"
        approvers.write_text("root: [secops-alice]\n")
        self.settings = base / "settings.yaml"
        self.settings.write_text(
            f"data_dir: {data}\napprovers_map: {approvers}\naudit_path: {data / 'log.jsonl'}\n"
        )
        for path in (approvers, self.settings, self.pack):
            path.chmod(0o644)
        self.log = data / "log.jsonl"

    def command(self, approval: str, deadline: float) -> list[str]:
        """The example's PreToolUse command with this test's packs, settings and mode."""
        hooks = orjson.loads(EXAMPLE.read_bytes())["hooks"]["PreToolUse"][0]["hooks"][0]
        argv = shlex.split(hooks["command"])
        assert argv[:3] == ["policy", "hook", "claude"]
        argv = [POLICY, *argv[1:]]
        argv[argv.index("--packs") + 1] = str(self.pack)
        for option, value in (("--approval", approval), ("--deadline", f"{deadline:g}")):
            if option in argv:
                argv[argv.index(option) + 1] = value
            else:
                argv += [option, value]
        return [*AS_AGENT, *argv, "--config", str(self.settings)]

    def start(self, command: str, approval: str, deadline: float = 8) -> subprocess.Popen[bytes]:
        payload = {
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": str(self.base),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "toolu_01",
        }
        env = {k: v for k, v in os.environ.items() if not k.startswith("POLICY_")}
        env.update(USER="dev", LOGNAME="dev", HOME=str(self.base))
        process = subprocess.Popen(
            self.command(approval, deadline),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        assert process.stdin is not None
        process.stdin.write(orjson.dumps(payload))
        process.stdin.close()
        process.stdin = None  # written: `communicate` only reads from here on
        return process

    def answer(self, process: subprocess.Popen[bytes]) -> tuple[str, str]:
        out, err = process.communicate(timeout=30)
        assert process.returncode == 0, err
        output = orjson.loads(out)["hookSpecificOutput"]
        return output["permissionDecision"], output["permissionDecisionReason"]

    def approvals(self, *args: str, as_agent: bool = False) -> subprocess.CompletedProcess[str]:
        argv = [POLICY, "approvals", *args, "--config", str(self.settings)]
        return subprocess.run(
            [*AS_AGENT, *argv] if as_agent else argv,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )

    def pending(self, count: int = 1) -> list[dict[str, Any]]:
        deadline = time.monotonic() + 15
        listed = None
        store = self.base / "data" / "approvals.db"
        while time.monotonic() < deadline and not store.exists():
            time.sleep(0.05)  # the agent creates its store; an approver never does
        while time.monotonic() < deadline:
            listed = self.approvals("list", "--format", "json")
            if listed.returncode == 0:
                found: list[dict[str, Any]] = orjson.loads(listed.stdout)
                if len(found) >= count:
                    return found
            time.sleep(0.05)
        raise AssertionError(f"no approval request appeared: {listed}")

    def records(self) -> list[dict[str, Any]]:
        return [orjson.loads(line) for line in self.log.read_bytes().splitlines()]


@pytest.fixture
def make_mount() -> Iterator[Any]:
    made: list[Path] = []

    def make(timeout: str = "5s") -> Mount:
        base = Path(tempfile.mkdtemp(prefix="hookpolicy-e2e-"))
        base.chmod(0o755)
        made.append(base)
        return Mount(base, timeout)

    yield make
    for base in made:
        shutil.rmtree(base, ignore_errors=True)


def test_everyday_bash_runs_without_anybody_approving(make_mount: Any) -> None:
    mount = make_mount()
    process = mount.start("make test", "wait")
    out, _ = process.communicate(timeout=30)
    assert out == b""  # no opinion: Claude Code's own permission rules apply
    assert mount.approvals("list", "--format", "json").stdout.strip() == "[]"


def test_a_secops_approval_in_time_lets_the_deploy_run(make_mount: Any) -> None:
    mount = make_mount()
    process = mount.start("make deploy", "wait")
    (request,) = mount.pending()
    assert request["approvers"] == ["secops-*"]
    assert request["requester"] == "nobody"  # the uid's name, whatever USER says
    assert request["agent_uid"] == NOBODY
    assert request["cwd"] == str(mount.base)  # the approver sees where it runs
    shown = mount.approvals("show", request["id"]).stdout
    assert f"cwd           {mount.base}" in shown
    done = mount.approvals("approve", request["id"], "--reason", "release 4.2")
    assert done.returncode == 0, done.stderr
    decision, reason = mount.answer(process)
    assert decision == "allow"
    assert reason.startswith("approved by secops-alice")
    assert request["id"] in reason
    # The agent's uid writes its own store: the hook says what that means, once.
    (warning,) = [r for r in mount.records() if r.get("event") == "approval.trust_warning"]
    assert "approvals stop mistakes, not a hostile agent" in warning["message"]
    assert warning["paths"] == [str(mount.base / "data" / "approvals.db")]


def test_nobody_answering_denies_at_the_timeout_and_a_late_approve_is_refused(
    make_mount: Any,
) -> None:
    mount = make_mount(timeout="1s")
    started = time.monotonic()
    decision, reason = mount.answer(mount.start("kubectl apply -f prod.yaml", "wait"))
    assert time.monotonic() - started < 6
    assert decision == "deny"
    assert reason.startswith("no approval within 1 s (request ")
    request_id = reason.split("(request ", 1)[1].split(")", 1)[0]
    late = mount.approvals("approve", request_id)
    assert late.returncode == 1
    assert "already expired" in late.stderr
    denied = [r for r in mount.records() if r.get("point") == "approve_tool"]
    assert [r["approval"]["approved"] for r in denied] == [False]


def test_the_developers_own_identity_cannot_approve(make_mount: Any) -> None:
    mount = make_mount()
    process = mount.start("helm upgrade web ./chart", "wait")
    (request,) = mount.pending()
    refused = mount.approvals("approve", request["id"], as_agent=True)
    assert refused.returncode == 1
    assert "may not decide this request (approvers: secops-*)" in refused.stderr
    forged = mount.approvals("approve", request["id"], "--as", "secops-bob", as_agent=True)
    assert forged.returncode == 2
    assert "--as is for root" in forged.stderr
    assert mount.approvals("deny", request["id"], "--reason", "not today").returncode == 0
    decision, reason = mount.answer(process)
    assert (decision, reason.split(" (")[0]) == ("deny", "denied by secops-alice")


def test_defer_denies_now_and_runs_the_retry_once_approved(make_mount: Any) -> None:
    mount = make_mount(timeout="60s")
    decision, reason = mount.answer(mount.start("./release.sh v4.2", "defer"))
    assert decision == "deny"
    assert "pending" in reason and "retry the same command" in reason
    (request,) = mount.pending()
    assert request["id"] in reason
    # The approvers have the gate's whole timeout, not the hook's --deadline.
    assert request["deadline"] - request["created"] > 55
    # Retried before anybody decided: still the same request, still denied.
    decision, again = mount.answer(mount.start("./release.sh v4.2", "defer"))
    assert decision == "deny" and request["id"] in again
    assert len(mount.pending()) == 1
    assert mount.approvals("approve", request["id"]).returncode == 0
    decision, reason = mount.answer(mount.start("./release.sh v4.2", "defer"))
    assert decision == "allow"
    assert reason.startswith("approved by secops-alice")
    assert f"request {request['id']}" in reason
    # The approval was for one run: the next one asks again.
    decision, reason = mount.answer(mount.start("./release.sh v4.2", "defer"))
    assert decision == "deny" and request["id"] not in reason
    # Other arguments are another call: the approval never covered them.
    decision, _ = mount.answer(mount.start("./release.sh v9.9", "defer"))
    assert decision == "deny"


def test_auto_sends_named_approvers_gates_to_them_not_to_the_hosts_dialog(
    make_mount: Any,
) -> None:
    mount = make_mount(timeout="60s")
    decision, reason = mount.answer(mount.start("make deploy", "auto"))
    assert decision == "deny"  # deferred to secops, never Claude Code's "ask"
    assert "retry the same command" in reason


def test_a_hook_ended_while_waiting_expires_its_request(make_mount: Any) -> None:
    mount = make_mount(timeout="30s")
    process = mount.start("make deploy", "wait", deadline=40)
    (request,) = mount.pending()
    process.send_signal(signal.SIGTERM)
    decision, reason = mount.answer(process)
    assert decision == "deny" and "SIGTERM" in reason
    late = mount.approvals("approve", request["id"])
    assert late.returncode == 1
    assert "already expired" in late.stderr
    (abandoned,) = [r for r in mount.records() if r.get("point") == "approve_tool"]
    assert abandoned["approval"]["approved"] is False
    assert "abandoned" in abandoned["reason"]


def test_an_approver_never_writes_through_the_agents_files(make_mount: Any) -> None:
    """The decision log sits where the agent writes; root refused by `policy approvals`
    must not append to a file the agent made, nor follow a link it planted there."""
    mount = make_mount()
    process = mount.start("make deploy", "wait")
    (request,) = mount.pending()
    before = mount.log.read_bytes()
    refused = mount.approvals("approve", request["id"], "--grant", "window=1h")
    assert refused.returncode == 1
    assert "refusal not logged" in refused.stderr
    assert f"belongs to uid {NOBODY}" in refused.stderr
    assert mount.log.read_bytes() == before
    target = mount.base / "created-by-root"
    mount.log.rename(mount.base / "log.moved")
    mount.log.symlink_to(target)
    refused = mount.approvals("approve", request["id"], "--grant", "window=1h")
    assert refused.returncode == 1 and "refusal not logged" in refused.stderr
    assert not target.exists()
    assert mount.approvals("deny", request["id"]).returncode == 0
    process.communicate(timeout=30)


def test_the_agents_own_uid_cannot_approve_an_anyone_gate_whatever_its_user_name(
    make_mount: Any,
) -> None:
    """A gate that names no approvers is anyone's but the requester's; the requester is
    the uid that filed the request, not the name in its environment."""
    mount = make_mount()
    mount.pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: anyone\nrules:\n"
        "  - {id: ask-deploy, tools: [bash], when: 'commands.exists(c, c.name == \"make\")', "
        "action: ask, timeout: 60s}\n"
    )
    decision, _ = mount.answer(mount.start("make deploy", "defer"))
    assert decision == "deny"
    (request,) = mount.pending()
    assert request["requester"] == "nobody"  # the uid's name, not USER=dev
    refused = mount.approvals("approve", request["id"], as_agent=True)
    assert refused.returncode == 1
    assert "self-approval refused: 'nobody' asked for this call" in refused.stderr
    assert mount.approvals("approve", request["id"]).returncode == 0  # root is somebody else
