"""The `policy` command, run as a user runs it: in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy._version import __version__

POLICY = str(Path(sys.executable).with_name("policy"))
ROOT = Path(__file__).resolve().parent.parent


def policy(
    *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    environment = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    environment.update(env or {})
    return subprocess.run(
        [POLICY, *args], input=stdin, capture_output=True, env=environment, timeout=60, cwd=ROOT
    )


def decisions(out: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in out.splitlines()]


def eval_guard_calls(log: Path) -> subprocess.CompletedProcess[bytes]:
    """The example calls through the example guard hook, logged to `log`."""
    return policy(
        "eval", "--audit-log", str(log), "--hook", "examples/hooks/guard.py:Guard",
        "@examples/hooks/calls.jsonl",
    )  # fmt: skip


def test_version() -> None:
    done = policy("--version")
    assert done.returncode == 0
    assert done.stdout.decode().strip() == f"hookpolicy {__version__}"


def test_no_command_prints_help_and_exits_2() -> None:
    done = policy()
    assert done.returncode == 2
    assert b"usage: policy" in done.stderr


def test_eval_prints_one_decision_per_call_and_logs_each(tmp_path: Path) -> None:
    log = tmp_path / "d.log"
    done = eval_guard_calls(log)
    assert done.returncode == 0, done.stderr
    results = decisions(done.stdout)
    actions = [r.get("action", r.get("approved")) for r in results]
    assert actions == ["continue", "deny_tool", "respond", "modify", "continue", False, "continue"]
    assert results[1]["reason"] == "sudo is not allowed"
    assert results[1]["call"]["tool"] == "bash" and results[1]["call"]["tool_raw"] == "exec"
    assert results[2]["result"]["for_llm"] == "sunny, 21 °C"
    assert results[3]["call"]["args"]["path"] == "/srv/work/scratch/notes.md"
    assert results[4]["needs_approval"] is True
    assert results[5]["reason"] == "pushes to main need a pull request"
    events = [orjson.loads(line)["event"] for line in log.read_bytes().splitlines()]
    assert events.count("decision") == len(results)
    assert events.count("respond_bypass") == 1  # the guard's get_weather answer, flagged
    assert "sk-live-0123456789abcdef0123" not in log.read_text()


def test_eval_reads_stdin_and_other_points(tmp_path: Path) -> None:
    inputs = b"\n".join(
        [
            b'{"tool": "Read", "args": {"path": "/etc/hosts"}}',
            b'{"point": "after_tool", "call": {"tool": "Read"}, "result": {"for_llm": "127.0.0.1"}}',
            b'{"point": "before_llm", "request": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}}',
            b'{"point": "user_prompt", "prompt": {"text": "hello"}}',
        ]
    )
    done = policy("eval", "--audit-log", str(tmp_path / "d.log"), stdin=inputs)
    assert done.returncode == 0, done.stderr
    points = [r["point"] for r in decisions(done.stdout)]
    assert points == ["before_tool", "after_tool", "before_llm", "user_prompt"]


def test_eval_with_a_module_hook_and_the_audit_log_on_stderr(tmp_path: Path) -> None:
    module = tmp_path / "my_hooks.py"
    module.write_text(
        "from policy import Action, Decision, before_tool\n"
        "@before_tool\n"
        "def no_curl(call):\n"
        "    if call.tool == 'web_fetch':\n"
        "        return Decision(Action.DENY_TOOL, reason='no fetching')\n"
    )
    done = policy(
        "eval",
        "--hook",
        "my_hooks:no_curl",
        '{"tool": "WebFetch", "args": {"url": "https://x"}}',
        env={"PYTHONPATH": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    (result,) = decisions(done.stdout)
    assert result["action"] == "deny_tool" and result["hook"] == "no_curl"
    (logged,) = decisions(done.stderr)
    assert logged["decision_id"] == result["decision_id"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{not json"], b"line 1: not valid JSON"),
        (['{"tool": "bash", "argz": {}}'], b"input.argz: unknown field"),
        (['{"tool": "bash", "args": []}'], b"input.args: expected an object, got an array"),
        (['{"args": {}}'], b"input: missing required field 'tool'"),
        (["--hook", "nothing-here", "{}"], b"expected FILE.py:NAME or MODULE:NAME"),
        (["@/no/such/file.json"], b"/no/such/file.json: No such file or directory"),
        (['{"point": "after_tool", "call": {"tool": "x"}}'], b"after_tool needs 'result'"),
    ],
)
def test_eval_input_errors_exit_2_and_say_where(
    args: list[str], message: bytes, tmp_path: Path
) -> None:
    done = policy("eval", "--audit-log", str(tmp_path / "d.log"), *args)
    assert done.returncode == 2
    assert message in done.stderr, done.stderr


def test_eval_refuses_bad_settings_with_the_field_name() -> None:
    done = policy("eval", '{"tool": "bash"}', env={"POLICY_APPROVAL_TIMEOUT_MS": "soon"})
    assert done.returncode == 2
    assert b"approval_timeout_ms (from environment POLICY_APPROVAL_TIMEOUT_MS)" in done.stderr


@pytest.fixture
def real_log(tmp_path: Path) -> Path:
    log = tmp_path / "decisions.log"
    done = eval_guard_calls(log)
    assert done.returncode == 0, done.stderr
    return log


def test_audit_verify_passes_on_a_real_log(real_log: Path) -> None:
    done = policy("audit", "verify", str(real_log))
    assert done.returncode == 0, done.stdout
    assert done.stdout.decode().startswith(f"{real_log}: OK, 8 lines, head ")


def test_audit_verify_names_the_line_after_one_byte_is_edited(real_log: Path) -> None:
    data = bytearray(real_log.read_bytes())
    lines = bytes(data).splitlines(keepends=True)
    offset = sum(len(line) for line in lines[:3]) + lines[3].index(b'"tool":"') + len(b'"tool":"')
    data[offset] = ord("B")  # write_file -> Brite_file on line 4
    real_log.write_bytes(bytes(data))

    done = policy("audit", "verify", str(real_log))
    assert done.returncode == 1
    assert done.stdout.decode() == f"{real_log}:4: hash does not match the line (edited?)\n"

    as_json = policy("audit", "verify", "--format", "json", str(real_log))
    report = orjson.loads(as_json.stdout)
    assert (report["ok"], report["broken_line"]) == (False, 4)


def test_audit_tail_prints_the_last_decisions(real_log: Path) -> None:
    done = policy("audit", "tail", "-n", "2", str(real_log))
    assert done.returncode == 0
    first, second = done.stdout.decode().splitlines()
    assert "approve_tool deny_tool" in first and "'pushes to main need a pull request'" in first
    assert "before_tool  continue" in second
    as_json = policy("audit", "tail", "-n", "3", "--format", "json", str(real_log))
    assert [r["point"] for r in decisions(as_json.stdout)] == [
        "before_tool",
        "approve_tool",
        "before_tool",
    ]


def test_audit_tail_follows_new_lines(real_log: Path) -> None:
    follower = subprocess.Popen(
        [POLICY, "audit", "tail", "-n", "0", "-f", "--format", "json", str(real_log)],
        stdout=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        done = policy(
            "eval", "--audit-log", str(real_log), '{"tool": "Glob", "args": {"pattern": "*"}}'
        )
        assert done.returncode == 0
        assert follower.stdout is not None
        line = follower.stdout.readline()
        assert orjson.loads(line)["tool"] == "glob"
    finally:
        follower.kill()
        follower.wait()


@pytest.mark.parametrize(
    "argv",
    [["--version"], ["audit", "verify", "{log}"], ["audit", "tail", "{log}"]],
    ids=["version", "audit-verify", "audit-tail"],
)
def test_light_commands_do_not_import_the_engine(argv: list[str], real_log: Path) -> None:
    args = [a.replace("{log}", str(real_log)) for a in argv]
    script = (
        "import sys\n"
        "from policy.cli import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted(m for m in ('pydantic', 'pydantic_settings', 'structlog', 'yaml', 'policy.engine') if m in sys.modules)\n"
        "print('heavy=' + ','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().strip().splitlines()[-1] == "heavy="


_COLLECTOR = (
    "import gc, os, sys\n"
    "from policy import cli\n"
    "argv = sys.argv[1:]\n"
    "if os.environ['ENTRY'] == 'command':\n"
    "    sys.argv = ['policy', *argv]\n"
    "    code = cli.command()\n"
    "else:\n"
    "    code = cli.main(argv)\n"
    "print(code, gc.get_threshold()[0], gc.get_freeze_count() > 0)\n"
)


@pytest.mark.parametrize(
    ("entry", "argv", "tuned"),
    [
        ("command", ["check", "rules"], True),
        ("command", ["test", "rules/gate.yaml"], True),
        ("main", ["check", "rules"], False),
        ("command", ["schema"], False),
    ],
    ids=["executable-check", "executable-test", "embedded-check", "executable-other"],
)
def test_only_the_executables_one_shot_commands_tune_the_collector(
    entry: str, argv: list[str], tuned: bool
) -> None:
    """The `policy` executable's one-shot commands collect rarely and freeze what they
    built before exit (faster: policy.cli); `main` called by an application that goes on
    after it leaves that application's collector alone, and so do the other commands."""
    done = subprocess.run(
        [sys.executable, "-c", _COLLECTOR, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "ENTRY": entry},
    )
    assert done.returncode == 0, done.stderr
    code, threshold, frozen = done.stdout.splitlines()[-1].split()
    assert code == "0"
    assert (int(threshold) > 700, frozen == "True") == (tuned, tuned)


@pytest.mark.parametrize(
    ("argv", "one_shot"),
    [
        (["check", "rules"], True),
        (["test", "rules"], True),
        (["fmt", "--check", "rules"], True),
        (["audit", "verify", "x.log"], True),
        (["test", "--watch", "rules"], False),
        (["audit", "tail", "--follow", "x.log"], False),
        (["serve"], False),
        (["approvals", "list"], False),
        (["bench", "rules"], False),
        (["schema"], False),
    ],
)
def test_which_commands_read_answer_and_exit(argv: list[str], one_shot: bool) -> None:
    """The commands the executable tunes the collector for: not a service, an inbox, a
    benchmark, nor a command told to go on watching."""
    from policy import cli
    from policy.cli.commands import parser

    args = parser().parse_args(argv)
    assert cli._one_shot(f"policy.cli.{args.module}", args) is one_shot


@pytest.mark.parametrize("pack", ["broken", "clean"])
def test_a_check_whose_reader_went_away_never_exits_0(pack: str, tmp_path: Path) -> None:
    """`policy check PACKS | head -1` under `set -o pipefail`: the report never reached
    its reader, so the check fails (141, a shell's status for SIGPIPE) — it exited 0
    even for a pack with errors."""
    path = tmp_path / "pack.yaml"
    condition = "tool ==" if pack == "broken" else 'tool == "bash"'
    path.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules:\n"
        f"  - id: r\n    when: '{condition}'\n    action: deny\n"
    )
    policy = Path(sys.executable).with_name("policy")
    process = subprocess.Popen(
        [str(policy), "check", str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if not k.startswith("POLICY_")},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # (the only reader: every write the check makes fails)
    stderr = process.stderr.read()
    assert process.wait(timeout=120) == 141, stderr
    assert b"Traceback" not in stderr and b"Exception ignored" not in stderr
