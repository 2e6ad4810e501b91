"""Policies per team in one service (issue 25, `service.policies`): the packs that
decide a call are chosen by what the kernel says of its caller (uid, groups) and the
project the hook reports; `/v1/packs` shows each set; the sets share one decision log
and reload together."""

from __future__ import annotations

import grp
import pwd
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from tests.test_service import OPERATOR_TOKEN, Running, hook, pre_tool, start_service, stop
from tests.test_service_holds import DAEMON, needs_other_uids

PAYMENTS = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: payments
revision: "7"
rules:
  - id: no-curl
    tools: [bash]
    when: args.command.startsWith("curl ")
    action: deny
    message: payments calls no network
"""

DAEMONS = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: daemons
revision: "1"
rules:
  - id: no-ls
    tools: [bash]
    when: args.command.startsWith("ls")
    action: deny
    message: daemons list nothing
"""


@pytest.fixture
def teams(tmp_path: Path) -> Iterator[Running]:
    base = tmp_path / "svc"
    for name, text in (("payments", PAYMENTS), ("daemons", DAEMONS)):
        (base / name).mkdir(parents=True)
        (base / name / f"{name}.yaml").write_text(text)
    daemon_group = grp.getgrgid(pwd.getpwuid(DAEMON).pw_gid).gr_name
    extra = (
        "  policies:\n"
        f"    - {{name: payments, packs: [{base / 'payments'}], projects: ['/srv/payments/**']}}\n"
        f"    - {{name: daemons, packs: [{base / 'daemons'}], groups: [{daemon_group}]}}\n"
    )
    running = start_service(base, settings_extra=extra, socket_mode="0666")
    running.socket.parent.chmod(0o755)
    yield running
    if running.process.poll() is None:
        stop(running)


def decide(running: Running, command: str, project: str | None = None) -> dict[str, object]:
    client = running.client(token=OPERATOR_TOKEN)
    if project is not None:
        client.headers["X-Hookpolicy-Project"] = project
    answer: dict[str, object] = client.call(
        "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": command}}
    )
    return answer


def test_the_project_chooses_the_payments_packs(teams: Running) -> None:
    inside = decide(teams, "curl https://example.org", "/srv/payments/api")
    assert inside["action"] == "deny_tool" and inside["rule_ids"] == ["payments/no-curl"]
    # the service's own packs decide elsewhere: no curl rule, but rm -rf / is theirs
    assert decide(teams, "curl https://example.org", "/srv/blog")["action"] == "continue"
    assert decide(teams, "rm -rf /", "/srv/blog")["action"] == "deny_tool"
    # the team's packs join the service's own (its baseline): rm -rf / is refused there too
    assert decide(teams, "rm -rf /", "/srv/payments")["action"] == "deny_tool"


def test_a_team_that_replaces_the_baseline_says_so(tmp_path: Path) -> None:
    base = tmp_path / "svc"
    (base / "payments").mkdir(parents=True)
    (base / "payments" / "payments.yaml").write_text(PAYMENTS)
    extra = (
        "  policies:\n"
        f"    - {{name: payments, packs: [{base / 'payments'}], projects: ['/srv/payments'],"
        " uids: [0], extends: false}\n"
    )
    running = start_service(base, settings_extra=extra)
    try:
        assert decide(running, "rm -rf /", "/srv/payments")["action"] == "continue"
        assert decide(running, "rm -rf /", "/srv/other")["action"] == "deny_tool"
    finally:
        stop(running)


def test_an_agent_of_a_team_cannot_write_the_service_settings_or_any_pack(tmp_path: Path) -> None:
    import shutil

    from tests.test_service import ROOT

    base = tmp_path / "svc"
    (base / "payments").mkdir(parents=True)
    (base / "payments" / "payments.yaml").write_text(PAYMENTS)
    shutil.copytree(ROOT / "rules", base / "rules")
    extra = (
        f"  policies: [{{name: payments, packs: [{base / 'payments'}], "
        "projects: ['/srv/payments/**']}]\n"
    )
    running = start_service(base, settings_extra=extra, packs=base / "rules")
    try:
        for target in (running.settings, base / "payments" / "payments.yaml",
                       base / "rules" / "git.yaml"):
            for project in ("/srv/payments", "/srv/other"):
                answer = decide(running, f"echo pwned > {target}", project)
                assert answer["action"] == "deny_tool", (target, project, answer)
    finally:
        stop(running)


def test_v1_packs_shows_each_set(teams: Running) -> None:
    shown = teams.client(token=OPERATOR_TOKEN).call("GET", "/v1/packs")
    assert [p["name"] for p in shown["packs"]] == ["svc"]
    by_name = {policy["name"]: policy for policy in shown["policies"]}
    assert by_name["payments"]["projects"] == ["/srv/payments/**"]
    shown_packs = [(p["name"], p["revision"]) for p in by_name["payments"]["packs"]]
    assert shown_packs == [("payments", "7"), ("svc", "1")]  # its own and the baseline
    assert [p["name"] for p in by_name["daemons"]["packs"]] == ["daemons", "svc"]


def test_one_decision_log_names_the_packs_that_decided(teams: Running) -> None:
    decide(teams, "curl https://example.org", "/srv/payments/api")
    decide(teams, "rm -rf /", "/srv/blog")
    stop(teams)
    records = [orjson.loads(line) for line in teams.audit.read_bytes().splitlines()]
    decided = [r for r in records if r.get("point") == "before_tool"]
    assert [sorted(r["packs"]) for r in decided] == [["payments", "svc"], ["svc"]]
    from policy.audit_verify import verify_file  # the engines keep one chain

    assert verify_file(teams.audit).ok


def test_a_team_pack_that_breaks_keeps_its_last_good_set(teams: Running) -> None:
    broken = teams.settings.parent / "payments" / "payments.yaml"
    broken.write_text(PAYMENTS.replace('startsWith("curl ")', "startsWith(1)"))
    status, _, body = teams.client(token=OPERATOR_TOKEN).request("POST", "/v1/packs/reload")
    assert status == 422 and "policy payments" in body["error"]
    inside = decide(teams, "curl https://example.org", "/srv/payments/api")
    assert inside["action"] == "deny_tool"  # revision 7 still decides


@needs_other_uids
def test_the_kernels_word_on_the_callers_group_chooses_the_daemons_packs(teams: Running) -> None:
    from tests.test_service import as_uid

    config = teams.settings.parent / "hook.yaml"
    config.write_text(f"server: {teams.unix}\nserver_owner: '0'\n")
    config.chmod(0o644)
    answer, done = hook("claude", pre_tool("ls -la"), config=config, prefix=as_uid(DAEMON))
    assert done.returncode == 0, done.stderr
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "daemons list nothing" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    # root, in no such group, gets the service's own packs
    assert decide(teams, "ls -la", "/srv/blog")["action"] == "continue"


def test_policy_check_with_the_service_settings_checks_every_teams_packs(tmp_path: Path) -> None:
    import subprocess

    from tests.test_service import POLICY, clean_env

    (tmp_path / "own").mkdir()
    (tmp_path / "own" / "daemons.yaml").write_text(DAEMONS)
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "payments.yaml").write_text(
        PAYMENTS.replace('startsWith("curl ")', "startsWith(1)")
    )
    settings = tmp_path / "serve.yaml"
    settings.write_text(
        f"packs: [{tmp_path / 'own'}]\n"
        "service:\n"
        f"  policies: [{{name: payments, packs: [{tmp_path / 'team'}], uids: [0]}}]\n"
    )
    done = subprocess.run(
        [POLICY, "check", "--config", str(settings)], capture_output=True, text=True,
        env=clean_env(),
    )
    assert done.returncode == 1
    assert f"{tmp_path / 'team' / 'payments.yaml'}:" in done.stdout + done.stderr


def test_watch_sees_a_teams_packs_change(tmp_path: Path) -> None:
    import time

    base = tmp_path / "svc"
    (base / "payments").mkdir(parents=True)
    pack = base / "payments" / "payments.yaml"
    pack.write_text(PAYMENTS)
    extra = f"  policies: [{{name: payments, packs: [{base / 'payments'}], projects: ['/p']}}]\n"
    running = start_service(base, settings_extra=extra, options=("--watch",))
    try:
        staged = pack.with_name(".payments.yaml.new")
        staged.write_text(PAYMENTS.replace('revision: "7"', 'revision: "8"'))
        staged.rename(pack)  # as an editor saves
        for _ in range(600):
            shown = running.client(token=OPERATOR_TOKEN).call("GET", "/v1/packs")
            revisions = {p["name"]: p["revision"] for p in shown["policies"][0]["packs"]}
            if revisions["payments"] == "8":
                break
            time.sleep(0.05)
        else:
            raise AssertionError(running.stderr.text())
    finally:
        stop(running)


def test_a_team_may_leave_the_baseline_only_when_the_kernel_says_who_asks() -> None:
    from pydantic import ValidationError

    from policy.service_settings import PolicySet

    with pytest.raises(ValidationError, match="extends: false needs uids or groups"):
        PolicySet(name="free", packs=[Path("/p")], projects=["/srv/free/**"], extends=False)
    assert not PolicySet(name="ci", packs=[Path("/p")], uids=[0], extends=False).extends


def test_the_services_secrets_and_programs_are_protected(tmp_path: Path) -> None:
    import shutil
    import sys

    from tests.test_service import ROOT

    base = tmp_path / "svc"
    base.mkdir(parents=True)
    shutil.copytree(ROOT / "rules", base / "rules")  # the shipped self-protection
    key = base / "session.key"
    key.write_bytes(b"k" * 48)
    key.chmod(0o600)
    script = base / "page.py"
    script.write_text("import sys; sys.stdin.read()\n")
    extra = (
        f"  session_secret_file: {key}\n"
        "  notify:\n"
        f"    - {{kind: command, command: ['{sys.executable}', '{script}']}}\n"
    )
    running = start_service(base, settings_extra=extra, packs=base / "rules")
    try:
        for command in (f"echo x > {key}", f"cp /tmp/x {key}", f"ln -sf /tmp/x {key}",
                        f"echo 'import os' > {script}"):
            assert decide(running, command)["action"] == "deny_tool", command
    finally:
        stop(running)


def test_a_secret_file_others_may_read_or_write_is_refused(tmp_path: Path) -> None:
    from policy.server.secret_files import read_secret

    secret = tmp_path / "session.key"
    secret.write_bytes(b"k" * 48)
    for mode in (0o644, 0o620, 0o602):
        secret.chmod(mode)
        with pytest.raises(ValueError, match="chmod 600"):
            read_secret(secret, "service.session_secret_file")
    secret.chmod(0o640)
    assert read_secret(secret, "service.session_secret_file") == b"k" * 48
