"""`policy eval --explain` and `policy facts`: why a call was decided as it was.

Run in process (`main([...])`), as a user runs the command, on the shipped `rules/`
and on small packs written here.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy.cli import main

ROOT = Path(__file__).resolve().parent.parent
RULES = str(ROOT / "rules")


def bash(command: str, cwd: str = "/work/project") -> str:
    return orjson.dumps({"tool": "Bash", "args": {"command": command}, "cwd": cwd}).decode()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write_pack(tmp_path: Path, text: str) -> str:
    path = tmp_path / "probe.yaml"
    path.write_text(textwrap.dedent(text).lstrip())
    return str(path)


def line_of(path: Path, text: str) -> int:
    """The 1-based line of `path` that holds `text`."""
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def hook(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(h for h in report["hooks"] if h["hook"] == name)


# ------------------------------------------------------------------ eval --explain


def test_explain_names_the_winning_rule_its_value_and_the_candidates_that_did_not_match(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(
        capsys, "eval", "--packs", RULES, "--explain", bash("git push --force origin main")
    )
    assert code == 0
    # the facts, as the rules read them
    assert 'flags:      ["force"]' in out
    assert 'args:       ["push", "--force", "origin", "main"]' in out
    # the candidate that matched, why it wins, and one that did not match
    assert "true  git/deny-force-push (deny)" in out
    assert "-> wins: the strongest action that matched (deny, strength 5)" in out
    assert "    false git/ask-force-with-lease, git/deny-discard-work," in out
    # the hooks after the one that ended the chain are not reached
    assert "pack:shell (pack): not reached: the chain stopped at pack:git" in out
    assert "final (" in out and "): deny_tool [git/deny-force-push]" in out
    at = f"{RULES}/git.yaml:{line_of(ROOT / 'rules' / 'git.yaml', '- id: deny-force-push')}"
    assert (
        f"why: pack:git ended the chain with deny_tool: rule git/deny-force-push at {at} "
        "(condition true)" in out
    )
    assert "time: facts " in out


def test_explain_says_no_rule_matched_for_an_everyday_call(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "eval", "--packs", RULES, "--explain", bash("make build"))
    assert code == 0
    assert "why: no rule matched" in out
    assert "final (" in out and "): continue" in out


def test_explain_json_parses_and_carries_facts_candidates_and_the_final_decision(
    capsys: pytest.CaptureFixture[str],
) -> None:
    calls = f"[{bash('git push --force origin main')}, {bash('make build')}]"
    code, out, _ = run(capsys, "eval", "--packs", RULES, "--explain", "--format", "json", calls)
    assert code == 0
    pushed, made = (orjson.loads(line) for line in out.splitlines())
    assert pushed["input"] == "item 0"
    (command,) = pushed["facts"]["commands"]
    assert command["flags"] == ["force"]
    assert pushed["facts"]["options"] == [[{"option": "--force", "values": []}]]
    values = {c["rule"]: c["value"] for c in hook(pushed, "pack:git")["candidates"]}
    assert values["git/deny-force-push"] is True
    assert values["git/ask-force-with-lease"] is False
    assert pushed["final"]["action"] == "deny_tool"
    assert pushed["final"]["rule_ids"] == ["git/deny-force-push"]
    assert set(pushed["ms"]) == {"facts", "hooks", "final", "total"}
    assert made["why"].startswith("no rule matched")
    assert made["final"]["action"] == "continue"


def test_explain_shows_the_error_of_a_condition_that_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pack = write_pack(
        tmp_path,
        """
        apiVersion: hookpolicy/v1
        kind: RulePack
        name: probe
        rules:
          - id: deny-many
            tools: [bash]
            when: 'int(args.command) > 3'
            action: deny
            message: too many
          - id: ask-make
            tools: [bash]
            when: 'commands.exists(c, c.name == "make")'
            action: ask
            message: make runs the Makefile
        """,
    )
    code, out, _ = run(capsys, "eval", "--packs", pack, "--explain", bash("make build"))
    assert code == 0
    assert "error probe/deny-many (deny)" in out
    assert "-> condition error: denies (on_error: deny)" in out
    assert "true  probe/ask-make (ask)" in out
    assert "-> outranked: the condition error of probe/deny-many denies first" in out
    code, out, _ = run(
        capsys, "eval", "--packs", pack, "--explain", "--format", "json", bash("make build")
    )
    report = orjson.loads(out)
    failed = hook(report, "pack:probe")["candidates"][0]
    assert failed["rule"] == "probe/deny-many"
    assert isinstance(failed["value"], dict) and failed["value"]["error"]
    assert report["final"]["action"] == "deny_tool"


def test_explaining_spends_no_rate_limit_twice(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    pack = write_pack(
        tmp_path,
        """
        apiVersion: hookpolicy/v1
        kind: RulePack
        name: limits
        builtins:
          tool_policy:
            applies_to: [web_fetch]
            rate_limits:
              - {tools: [web_fetch], limit: "2/minute"}
        """,
    )
    fetch = '{"tool": "WebFetch", "args": {"url": "https://example.com"}, "sender": "alice"}'
    calls = f"[{fetch}, {fetch}, {fetch}]"
    code, out, _ = run(capsys, "eval", "--packs", pack, "--explain", "--format", "json", calls)
    assert code == 0
    reports = [orjson.loads(line) for line in out.splitlines()]
    assert [r["final"]["action"] for r in reports] == ["continue", "continue", "deny_tool"]
    limiter = hook(reports[0], "builtin:limits/tool_policy")
    assert limiter["status"] == "not asked"
    assert "count this call twice" in limiter["note"]
    # the third call: what the rate limit said comes from the final decision
    said = hook(reports[2], "builtin:limits/tool_policy")["said"]
    assert said["action"] == "deny_tool" and "rate limit 2/minute" in said["reason"]


def test_explain_usage_and_input_errors_exit_2_and_name_the_field(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "eval", "--format", "text", bash("ls"))
    assert code == 2 and "--format: only with --explain" in err
    code, _, err = run(capsys, "eval", "--packs", RULES, "--explain", '{"point": "x", "y": 1}')
    assert code == 2 and "input.y: unknown field" in err


# ---------------------------------------------------------------------- facts


def test_facts_show_flags_and_the_args_that_keep_option_values(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "facts", "git push --force origin main", "--cwd", "/srv/app")
    assert code == 0
    assert 'args:       ["push", "--force", "origin", "main"]' in out
    assert 'flags:      ["force"]' in out
    assert "options:    --force" in out
    assert "subcommand: push" in out
    code, out, _ = run(
        capsys, "facts", "curl -sS --max-time=5 -o out.txt https://example.com", "--cwd", "/srv"
    )
    assert code == 0
    # c.args keeps the options and their values, c.flags only the names
    assert 'args:       ["-sS", "--max-time=5", "-o", "out.txt", "https://example.com"]' in out
    assert 'flags:      ["s", "S", "max-time", "o"]' in out
    assert "options:    -s, -S, --max-time=5, -o out.txt" in out
    assert 'writes:     ["/srv/out.txt"]' in out
    assert 'hosts:      ["example.com"]' in out


def test_facts_show_the_paths_a_command_reads(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "facts", "cat ~/.ssh/id_rsa", "--home", "/home/alice", "--cwd", "/srv/app",
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    report = orjson.loads(out)
    (command,) = report["commands"]
    assert command["name"] == "cat"
    assert command["reads"] == ["/home/alice/.ssh/id_rsa"]
    assert "/home/alice/.ssh/id_rsa" in report["access"]["reads"]
    assert report["home"] == "/home/alice" and report["workspace"] == "/srv/app"
    code, out, _ = run(capsys, "facts", "cat ~/.ssh/id_rsa", "--home", "/home/alice")
    assert 'reads:      ["/home/alice/.ssh/id_rsa"]' in out


def test_facts_usage_errors_exit_2_and_name_the_option(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "facts", "ls", "--cwd", "relative/dir")
    assert code == 2 and "--cwd 'relative/dir': must be an absolute path" in err
    code, _, err = run(capsys, "facts", "  ")
    assert code == 2 and "COMMAND: empty" in err
