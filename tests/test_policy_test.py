"""`policy test`: the pack test runner a security team gates CI with.

Read top to bottom, this is what the command does: run the shipped rules' tests with
full coverage, report a failure as expected vs actual with the rule that decided and
its file:line, run sequences (a 3/minute limit denies the 4th call) and test files
beside other packs, speak JUnit and GitHub, and lint test entries for `policy check`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import orjson
import pytest

from policy.cli import main
from policy.pack_tests import run_pack_tests
from policy.pack_tests.lint import check_tests
from policy.packs.load import read_packs

ROOT = Path(__file__).resolve().parent.parent
POLICY = str(Path(sys.executable).with_name("policy"))
TEAM = ROOT / "tests" / "packs" / "team"


def policy(*args: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    return subprocess.run(
        [POLICY, *args], capture_output=True, text=True, env=environment, timeout=60, cwd=ROOT
    )


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())
    return path


PACK = """
apiVersion: hookpolicy/v1
kind: RulePack
name: demo
rules:
  - id: deny-rm
    tools: [bash]
    when: commands.exists(c, c.name == "rm")
    action: deny
    message: rm is not for agents
tests:
  - name: rm is denied
    call: {tool: Bash, args: {command: "rm -rf build"}, cwd: /srv/app}
    expect: {action: deny, rule: deny-rm}
"""


def test_the_shipped_rules_pass_with_every_rule_and_gate_covered() -> None:
    done = policy("test", "rules/", "--coverage", "--threshold", "100")
    assert done.returncode == 0, done.stdout + done.stderr
    assert " 0 failed" in done.stdout
    assert "(100.0 %)" in done.stdout


def test_a_failing_test_exits_1_with_expected_vs_actual_and_the_rule_that_decided(
    tmp_path: Path,
) -> None:
    pack = write(tmp_path / "demo.yaml", PACK.replace("action: deny, rule", "action: allow, rule"))
    done = policy("test", str(pack))
    assert done.returncode == 1
    assert f"FAIL {pack}:11 demo: rm is denied" in done.stdout
    assert "  action: expected allow, got deny" in done.stdout
    assert f"  decided by: demo/deny-rm ({pack}:5)" in done.stdout
    assert "  reason: rm is not for agents" in done.stdout
    assert "1 test(s): 0 passed, 1 failed" in done.stdout


def test_junit_output_is_xml_a_ci_server_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    failing = write(tmp_path / "demo.yaml", PACK.replace("rm -rf build", "ls"))
    assert main(["test", str(failing), str(TEAM), "--format", "junit"]) == 1
    root = ET.fromstring(capsys.readouterr().out)
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures")) == ("12", "1")
    failure = root.find(".//testcase[@name='rm is denied']/failure")
    assert failure is not None
    assert failure.get("message") == "action: expected deny, got continue"
    assert "decided by: no rule (nothing matched the call)" in (failure.text or "")


def test_a_sequence_shows_a_3_per_minute_limit_denying_the_4th_call(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["test", str(TEAM), "--filter", "3/minute", "--format", "json"])
    report = orjson.loads(capsys.readouterr().out)
    assert code == 0
    (result,) = report["results"]
    assert [s["action"] for s in result["steps"]] == [
        "continue",
        "continue",
        "continue",
        "deny",
        "continue",
    ]
    assert result["steps"][3]["rule_ids"] == ["team/tool_policy"]
    assert "rate limit 3/minute" in result["steps"][3]["reason"]


def test_a_teams_pack_is_tested_beside_the_shipped_rules(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["test", str(TEAM), "--with", "rules/", "--coverage"]) == 0
    out = capsys.readouterr().out
    assert "11 test(s): 11 passed, 0 failed" in out
    # coverage counts the packs under test, not the ones loaded beside them
    assert "coverage: 6/6 units (100.0 %)" in out


def test_a_test_runs_with_the_shipped_rules_beside_it_and_sees_their_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = write(
        tmp_path / "team" / "demo.yaml",
        PACK
        + """
  - name: a credential read is the credentials pack's to deny
    call: {tool: Read, args: {file_path: /home/alice/.ssh/id_ed25519}}
    expect: {action: deny, rule: credentials/deny-credential-files}
""",
    )
    assert main(["test", str(pack)]) == 1  # alone, nothing denies the read
    capsys.readouterr()
    assert main(["test", str(pack), "--with", "rules/"]) == 0


def test_coverage_names_each_unit_no_test_exercised_and_the_threshold_gates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = write(
        tmp_path / "demo.yaml",
        PACK.replace(
            "tests:",
            """  - id: ask-curl
    tools: [bash]
    when: commands.exists(c, c.name == "curl")
    action: ask
builtins:
  tool_policy:
    deny: [web_search]
    rate_limits:
      - {tools: [web_fetch], limit: "2/minute"}
tests:""",
        ),
    )
    assert main(["test", str(pack), "--coverage"]) == 0
    out = capsys.readouterr().out
    assert "coverage: 1/4 units (25.0 %)" in out
    assert f"  not covered: demo/ask-curl [rule] ({pack}:10)" in out
    assert f"  not covered: demo/tool_policy [tool_policy] ({pack}:15)" in out
    assert f"  not covered: demo/tool_policy limit 2/minute [rate_limit] ({pack}:18)" in out
    assert main(["test", str(pack), "--threshold", "25"]) == 0
    assert main(["test", str(pack), "--threshold", "90"]) == 1
    assert "coverage 25.0 % is below the threshold 90 %" in capsys.readouterr().err


def test_filter_runs_the_tests_whose_name_or_pack_matches(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["test", "rules/", "--filter", "GIT", "-v"]) == 0
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("PASS")]
    assert lines and all("git" in line.lower() for line in lines)
    assert main(["test", "rules/", "--filter", "no test is called this"]) == 2


def test_github_format_annotates_the_failing_test_at_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = write(tmp_path / "demo.yaml", PACK.replace("rm -rf build", "ls"))
    assert main(["test", str(pack), "--format", "github", "--coverage"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"::error file={pack},line=11,title=policy test%3A rm is denied::")
    assert "action: expected deny, got continue%0Arule: expected demo/deny-rm" in out[0]
    assert out[0].endswith("%0Adecided by: no rule (nothing matched the call)")
    assert out[1].startswith(f"::warning file={pack},line=5,")
    assert out[-1] == "::notice title=policy test::1 test(s): 0 passed, 1 failed; coverage 0.0 %25"


TEST_FILE = """
apiVersion: hookpolicy/v1
kind: PackTests
pack: demo
tests:
  - name: rm in a sequence, twice
    sender: alice
    cwd: /srv/app
    sequence:
      - call: {tool: Bash, args: {command: "ls"}}
        expect: {action: continue}
      - call: {tool: Bash, args: {command: "rm x"}}
        repeat: 2
        expect: {action: deny, rule: demo/deny-rm, reason: "not for agents"}
"""


def test_a_test_file_names_its_pack_and_runs_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "demo.yaml", PACK)
    write(tmp_path / "demo_test.yaml", TEST_FILE)
    assert main(["test", str(tmp_path), "-v"]) == 0
    out = capsys.readouterr().out
    assert f"PASS {tmp_path / 'demo_test.yaml'}:5 demo: rm in a sequence, twice" in out
    assert "2 test(s): 2 passed, 0 failed" in out


def test_a_broken_test_file_stops_the_run_with_every_error_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "demo.yaml", PACK)
    broken = TEST_FILE.replace("pack: demo", "pack: nemo").replace("sender:", "sendr:")
    write(tmp_path / "demo_test.yaml", broken)
    assert main(["test", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'demo_test.yaml'}:6:5: error: unknown key 'sendr'" in err
    write(tmp_path / "demo_test.yaml", TEST_FILE.replace("pack: demo", "pack: nemo"))
    assert main(["test", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path / 'demo_test.yaml'}:3:7: error: no pack named 'nemo'" in err


def test_one_call_and_a_sequence_in_one_test_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    both = PACK + "    sequence:\n      - call: {tool: Bash}\n        expect: {action: continue}\n"
    pack = write(tmp_path / "demo.yaml", both)
    assert main(["test", str(pack)]) == 2
    assert "either one call and `expect:` or a `sequence:`" in capsys.readouterr().err


def test_nothing_to_test_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path / "demo.yaml", PACK.split("tests:")[0])
    assert main(["test", str(tmp_path)]) == 2
    assert "no tests" in capsys.readouterr().err
    assert main(["test", str(tmp_path / "missing")]) == 2


def test_check_tests_lints_entries_without_running_them(tmp_path: Path) -> None:
    pack = write(
        tmp_path / "demo.yaml",
        PACK
        + """
  - name: misspelt
    call: {tool: Bsh, args: {command: "rm x"}}
    expect: {action: deny, rule: deny-rn}
  - name: a field the call has not
    call: {tool: Bash, argz: {command: "rm x"}}
    expect: {action: deny}
  - name: output without its result
    on: after_tool
    call: {tool: Bash, args: {command: "cat x"}}
    expect: {action: continue}
  - name: a rule of a pack not loaded
    call: {tool: Bash, args: {command: "ls"}}
    expect: {rules: [nowhere/rule]}
""",
    )
    loaded, problems = read_packs([pack])
    assert problems == []
    found = [(d.line, d.col, d.code, d.message) for d in check_tests(loaded)]
    assert found == [
        (16, 18, "test-unknown-tool", found[0][3]),
        (17, 34, "test-unknown-rule", found[1][3]),
        (19, 24, "test-unknown-field", found[2][3]),
        (22, 9, "test-missing-part", "a call on after_tool needs `result:`"),
        (27, 22, "test-unknown-rule", found[4][3]),
    ]
    assert "tool 'Bsh' is no known tool or alias (did you mean 'Bash'?)" in found[0][3]
    assert (
        found[1][3] == "rule 'deny-rn': pack 'demo' has no rule 'deny-rn' (did you mean 'deny-rm'?)"
    )
    assert found[2][3].startswith("call.argz: unknown field")
    assert "no pack named 'nowhere'" in found[4][3]


def test_check_tests_reads_test_files_and_knows_the_shipped_rules() -> None:
    loaded, _ = read_packs(["rules", str(TEAM)])
    assert check_tests(loaded, test_files=[TEAM / "team_test.yaml"]) == []


def test_run_pack_tests_still_runs_one_pack_alone() -> None:
    outcomes = run_pack_tests(TEAM / "team.yaml")
    assert [o.passed for o in outcomes] == [True, True]


def test_an_approvers_scripted_answer_decides_whether_the_call_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["test", str(TEAM), "--filter", "approve", "-v"]) == 0
    assert "2 test(s): 2 passed, 0 failed" in capsys.readouterr().out
    wrong = (
        (TEAM / "team_test.yaml")
        .read_text()
        .replace(
            "approve: {by: dev-bob, approved: true}\n    expect: {action: ask, approved: false}",
            "approve: {by: dev-bob, approved: true}\n    expect: {action: ask, approved: true}",
        )
    )
    write(tmp_path / "team.yaml", (TEAM / "team.yaml").read_text())
    write(tmp_path / "team_test.yaml", wrong)
    assert main(["test", str(tmp_path), "--filter", "developer cannot"]) == 1
    out = capsys.readouterr().out
    assert "  approved: expected True, got False" in out
    assert "'dev-bob' may not decide this request (approvers: secops-*)" in out


@pytest.mark.slow
def test_watch_runs_again_when_a_pack_changes(tmp_path: Path) -> None:
    pack = write(tmp_path / "demo.yaml", PACK)
    environment = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    watcher = subprocess.Popen(
        [POLICY, "test", str(tmp_path), "--watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment,
        cwd=ROOT,
    )
    try:
        assert watcher.stdout is not None and watcher.stderr is not None
        assert "1 passed, 0 failed" in watcher.stdout.readline()
        assert "watching" in watcher.stderr.readline()
        time.sleep(0.05)
        pack.write_text(PACK.replace("action: deny, rule", "action: allow, rule"))
        lines = [watcher.stdout.readline() for _ in range(7)]
        assert any("files changed" in line for line in lines)
        assert any("0 passed, 1 failed" in line for line in lines)
    finally:
        watcher.terminate()
        watcher.wait(timeout=10)


CLOCKED = """
apiVersion: hookpolicy/v1
kind: RulePack
name: clocked
builtins:
  tool_policy:
    applies_to: [web_fetch]
    rate_limits:
      - tools: [web_fetch]
        limit: 3/minute
rules:
  - id: no-deploys-at-night
    tools: [bash]
    when: now.getHours() >= 22 && commands.exists(c, c.name == "kubectl")
    action: deny
    message: no deploys after 22:00 UTC
tests:
  - name: a deploy at 23:00 is refused
    now: 2026-12-04T23:00:00Z
    call: {tool: Bash, args: {command: "kubectl apply -f app.yaml"}}
    expect: {action: deny, rule: no-deploys-at-night}
  - name: the same deploy at noon passes
    now: "2026-12-04T12:00:00+00:00"
    call: {tool: Bash, args: {command: "kubectl apply -f app.yaml"}}
    expect: {action: continue}
  - name: a sender who already spent the budget is refused, and served after a minute
    now: 2026-12-04T12:00:00Z
    sender: alice
    prior:
      - call: {tool: WebFetch, args: {url: "https://example.com"}}
        repeat: 3
    sequence:
      - call: {tool: WebFetch, args: {url: "https://example.com"}}
        expect: {action: deny, rule: tool_policy}
      - wait: 61s
        call: {tool: WebFetch, args: {url: "https://example.com"}}
        expect: {action: continue}
"""


def test_a_fixed_now_prior_usage_and_wait_make_time_and_budgets_testable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = write(tmp_path / "clocked.yaml", CLOCKED)
    assert main(["test", str(pack), "--coverage"]) == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "3 test(s): 3 passed, 0 failed" in out
    assert "coverage: 2/2 units (100.0 %)" in out
    # Without `prior:` the first call is within budget: the test fails, so it counts.
    without = write(tmp_path / "b" / "clocked.yaml", CLOCKED.replace("repeat: 3", "repeat: 1"))
    assert main(["test", str(without)]) == 1
    assert "step 1: action: expected deny, got continue" in capsys.readouterr().out


def test_a_prior_call_and_a_wait_are_checked_like_any_test_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    typo = CLOCKED.replace("WebFetch, args: {url: \"https://example.com\"}}\n        repeat",
                           "WebFech, args: {url: \"https://example.com\"}}\n        repeat")
    assert main(["check", str(write(tmp_path / "a" / "p.yaml", typo))]) == 1
    assert "p.yaml:29:22: error: tool 'WebFech' is no known tool" in capsys.readouterr().out
    late = CLOCKED.replace("wait: 61s", "wait: soon")
    assert main(["check", str(write(tmp_path / "b" / "p.yaml", late))]) == 1
    assert "p.yaml:34:15: error: tests.2.sequence.1.wait: Value error, 'soon' is not a duration" in (
        capsys.readouterr().out
    )
