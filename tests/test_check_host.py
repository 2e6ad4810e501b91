"""`policy check --host claude|agentao --settings FILE`: the mount of `policy hook`.

Deadlines against the host's hook timeout, `--approval wait` against the packs'
approval timeouts, `--approval ask` against named approvers; each at the command
string's line:col in the settings file.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import orjson
import pytest

from policy.cli import main
from policy.cli.commands import parser as _parser
from policy.hosts.claude import mount as _mount
from policy.hosts.claude.dialect import AGENTAO, CLAUDE

ROOT = Path(__file__).resolve().parent.parent

NEW_CODES = {
    "deadline-exceeds-timeout",
    "approval-cannot-fit",
    "approvers-to-host-dialog",
    "no-policy-hook",
    "invalid-hook-command",
    "invalid-timeout",
    "unresolved-path",
    "hook-packs-invalid",
    "hook-config-invalid",
    "json-syntax",
    "hooks-disabled",
    "hook-fails-open",
}


def gate_pack(
    directory: Path,
    *,
    timeout: str | None = "120s",
    approvers: list[str] | None = None,
    builtin: bool = False,
    name: str = "gates",
) -> Path:
    """A pack with one `ask` gate (or the `approval` builtin) on Bash."""
    directory.mkdir(parents=True, exist_ok=True)
    gate: dict[str, object] = {}
    if timeout is not None:
        gate["timeout"] = timeout
    if approvers is not None:
        gate["approvers"] = approvers
    pack: dict[str, object] = {"apiVersion": "hookpolicy/v1", "kind": "RulePack", "name": name}
    if builtin:
        pack["builtins"] = {"approval": {"tools": ["Bash"], **gate}}
    else:
        pack["rules"] = [{"id": "ask-bash", "tools": ["Bash"], "action": "ask", **gate}]
    path = directory / f"{name}.yaml"
    path.write_text(json.dumps(pack, indent=2))  # JSON is YAML
    return path


def hook(
    command: str, timeout: float | None = 60, on_failure: str | None = "block"
) -> dict[str, object]:
    entry: dict[str, object] = {"type": "command", "command": command}
    if timeout is not None:
        entry["timeout"] = timeout
    if on_failure is not None:
        entry["onFailure"] = on_failure
    return entry


def write_settings(path: Path, events: dict[str, list[dict[str, object]]]) -> Path:
    """A settings file in Claude Code's nested shape, one matcher entry per event."""
    path.parent.mkdir(parents=True, exist_ok=True)
    hooks = {event: [{"matcher": "*", "hooks": entries}] for event, entries in events.items()}
    path.write_text(json.dumps({"hooks": hooks}, indent=2) + "\n")
    return path


def position(path: Path, command: str, nth: int = 0) -> tuple[int, int]:
    """line:col of the nth occurrence of `command` as a JSON string in the file."""
    text = path.read_text()
    needle = json.dumps(command)
    offset = -1
    for _ in range(nth + 1):
        offset = text.index(needle, offset + 1)
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def run_check(
    capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, list[dict[str, object]], str]:
    code = main(["check", *args, "--format", "json"])
    out, err = capsys.readouterr()
    return code, (orjson.loads(out)["diagnostics"] if out else []), err


def codes(diagnostics: list[dict[str, object]]) -> list[object]:
    return [d["code"] for d in diagnostics]


# ---------------------------------------------------------------- examples


@pytest.mark.parametrize(
    ("host", "settings"),
    [("claude", "examples/claude-code/settings.json"), ("agentao", "examples/agentao/hooks.json")],
)
def test_shipped_examples_are_consistent(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, host: str, settings: str
) -> None:
    monkeypatch.chdir(ROOT)
    code, diagnostics, err = run_check(capsys, "rules", "--host", host, "--settings", settings)
    assert (code, err) == (0, "")
    assert not [d for d in diagnostics if d["code"] in NEW_CODES], diagnostics


def test_example_packs_are_found_from_the_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without PATHS or a packs setting, the check reads the packs the hooks name."""
    monkeypatch.chdir(ROOT)
    code = main(["check", "--host", "claude", "--settings", "examples/claude-code/settings.json"])
    out = capsys.readouterr().out
    assert code == 0
    files = len(list((ROOT / "rules").glob("*.yaml")))
    assert out.endswith(f"{files + 1} file(s) checked: 0 error(s), 0 warning(s)\n")


# --------------------------------------------------------------- deadlines


def test_deadline_at_the_timeout_is_an_error_at_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    bad = "policy hook claude --deadline 60"
    ok = "policy hook claude --deadline 58"
    settings = write_settings(
        tmp_path / ".claude" / "settings.json",
        {"PreToolUse": [hook(ok, 60)], "PostToolUse": [hook(bad, 60)]},
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 1
    [found] = [d for d in diagnostics if d["code"] == "deadline-exceeds-timeout"]
    line, col = position(settings, bad)
    assert (found["path"], found["line"], found["col"]) == (str(settings), line, col)
    assert found["severity"] == "error"
    assert "fails open" in str(found["message"])


def test_deadline_margin_is_two_seconds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    settings = write_settings(
        tmp_path / "hooks.json",
        {"PreToolUse": [hook("policy hook agentao --deadline 28.5", 30)]},
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "agentao", "--settings", str(settings)
    )
    assert code == 1
    assert codes(diagnostics) == ["deadline-exceeds-timeout"]


@pytest.mark.parametrize(
    ("host", "default"),
    [
        ("claude", CLAUDE.default_timeout),
        ("agentao", AGENTAO.default_timeout),
    ],
)
def test_missing_timeout_is_the_hosts_default(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], host: str, default: float
) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    fits = f"policy hook {host} --deadline {default - _mount.DEADLINE_MARGIN:g}"
    late = f"policy hook {host} --deadline {default - 1:g}"
    settings = write_settings(
        tmp_path / "settings.json",
        {"PreToolUse": [hook(fits, None)], "PostToolUse": [hook(late, None)]},
    )
    code, diagnostics, _ = run_check(capsys, str(pack), "--host", host, "--settings", str(settings))
    assert code == 1
    [found] = diagnostics
    assert found["code"] == "deadline-exceeds-timeout"
    assert (found["line"], found["col"]) == position(settings, late)
    assert "default" in str(found["message"])


def test_default_deadline_is_policy_hooks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No --deadline: `policy hook`'s default (50 s), against a 50 s timeout."""
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    settings = write_settings(
        tmp_path / "settings.json", {"PreToolUse": [hook("policy hook claude", 50)]}
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 1
    assert codes(diagnostics) == ["deadline-exceeds-timeout"]
    assert "--deadline 50 s" in str(diagnostics[0]["message"])


def test_identical_commands_each_at_their_own_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    command = "policy hook claude --deadline 60"
    settings = write_settings(
        tmp_path / "settings.json",
        {event: [hook(command, 60)] for event in ("PreToolUse", "PostToolUse", "Stop")},
    )
    _, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert [(d["line"], d["col"]) for d in diagnostics] == [
        position(settings, command, n) for n in range(3)
    ]


# --------------------------------------------------------------- approvals


def test_wait_with_a_longer_gate_cannot_fit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="120s")
    command = "policy hook claude --packs rules --deadline 50 --approval wait"
    settings = write_settings(
        tmp_path / ".claude" / "settings.json", {"PreToolUse": [hook(command, 60)]}
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 1
    [found] = diagnostics
    assert found["code"] == "approval-cannot-fit"
    assert found["severity"] == "error"
    assert (found["line"], found["col"]) == position(settings, command)
    assert "gates/ask-bash (120 s)" in str(found["message"])
    assert "at most 49 s" in str(found["message"])


@pytest.mark.parametrize(
    ("timeout", "fits"),
    [("30s", True), ("48s", True), ("49s", False), ("2m", False)],
)
def test_gate_must_end_a_second_before_the_deadline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], timeout: str, fits: bool
) -> None:
    """The `approval` builtin's gate, in the packs only the hook loads."""
    checked = gate_pack(tmp_path / "rules", timeout="10s")
    builtin = gate_pack(tmp_path / "builtin", timeout=timeout, builtin=True)
    settings = write_settings(
        tmp_path / "settings.json",
        {"PreToolUse": [hook(f"policy hook claude --packs {builtin.parent} --approval wait", 60)]},
    )
    code, diagnostics, _ = run_check(
        capsys, str(checked), "--host", "claude", "--settings", str(settings)
    )
    assert codes(diagnostics) == ([] if fits else ["approval-cannot-fit"])
    assert code == (0 if fits else 1)
    if not fits:
        assert "gates/approval" in str(diagnostics[0]["message"])


def test_gate_without_timeout_uses_approval_timeout_ms(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = gate_pack(tmp_path / "rules", timeout=None)
    settings = write_settings(
        tmp_path / "settings.json",
        {"PreToolUse": [hook("policy hook claude --deadline 50 --approval wait", 60)]},
    )
    args = (str(pack), "--host", "claude", "--settings", str(settings))
    _, diagnostics, _ = run_check(capsys, *args)  # default approval_timeout_ms: 60 s
    assert codes(diagnostics) == ["approval-cannot-fit"]
    assert "(60 s, approval_timeout_ms)" in str(diagnostics[0]["message"])
    config = tmp_path / "policy.yaml"
    config.write_text("approval_timeout_ms: 30000\n")
    code, diagnostics, _ = run_check(capsys, *args, "--config", str(config))
    assert (code, diagnostics) == (0, [])


def test_hook_config_sets_approval_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A command's own --config is the settings the hook reads."""
    pack = gate_pack(tmp_path / "rules", timeout=None)
    (tmp_path / "policy.yaml").write_text("approval_timeout_ms: 30000\npacks: [rules]\n")
    settings = write_settings(
        tmp_path / ".claude" / "settings.json",
        {
            "PreToolUse": [
                hook("policy hook claude --config policy.yaml --deadline 50 --approval wait", 60)
            ]
        },
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert (code, diagnostics) == (0, [])


@pytest.mark.parametrize("approval", ["auto", "defer", "ask"])
def test_wait_is_the_only_mode_bound_by_the_deadline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], approval: str
) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="120s")
    settings = write_settings(
        tmp_path / "settings.json",
        {"PreToolUse": [hook(f"policy hook claude --approval {approval}", 60)]},
    )
    _, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert diagnostics == []


def test_ask_with_named_approvers_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s", approvers=["secops-*"])
    command = "policy hook claude --approval ask"
    settings = write_settings(
        tmp_path / "settings.json",
        {"PreToolUse": [hook(command, 60), hook("policy hook claude --approval auto", 60)]},
    )
    args = (str(pack), "--host", "claude", "--settings", str(settings))
    code, diagnostics, _ = run_check(capsys, *args)
    assert code == 0
    [found] = diagnostics
    assert (found["code"], found["severity"]) == ("approvers-to-host-dialog", "warning")
    assert (found["line"], found["col"]) == position(settings, command)
    assert "secops-*" in str(found["message"])
    code, _, _ = run_check(capsys, *args, "--strict")
    assert code == 1


def test_approval_checks_only_at_pre_tool_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="120s", approvers=["secops-*"])
    settings = write_settings(
        tmp_path / "settings.json",
        {
            "PreToolUse": [hook("policy hook claude", 60)],
            "PostToolUse": [hook("policy hook claude --approval wait", 60)],
            "UserPromptSubmit": [hook("policy hook claude --approval ask", 60)],
        },
    )
    _, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert diagnostics == []


def test_audit_mode_rules_gate_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "audit.yaml"
    pack.write_text(
        textwrap.dedent(
            """\
            apiVersion: hookpolicy/v1
            kind: RulePack
            name: audit
            enforcement: audit
            rules:
              - {id: ask-bash, tools: [Bash], action: ask, timeout: 5m}
            """
        )
    )
    settings = write_settings(
        tmp_path / "settings.json",
        {"PreToolUse": [hook("policy hook claude --approval wait", 60)]},
    )
    _, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert diagnostics == []


# -------------------------------------------------------- the command's packs


@pytest.mark.parametrize(
    "command",
    [
        "policy hook claude --packs rules --approval wait",
        "policy hook claude --packs=$CLAUDE_PROJECT_DIR/rules --approval wait",
        '"$CLAUDE_PROJECT_DIR"/.venv/bin/policy hook claude --packs "$CLAUDE_PROJECT_DIR/rules" '
        "--approval wait 2>>/tmp/policy.log",
        "${CLAUDE_PROJECT_DIR}/.venv/bin/python -m policy hook claude --packs "
        "${CLAUDE_PROJECT_DIR}/rules --approval wait",
        'cd "$CLAUDE_PROJECT_DIR" && uv run policy hook claude --packs rules --approval wait',
        "env POLICY_AUDIT_PATH=/tmp/x python3 -I -m policy hook claude --packs rules "
        "--approval wait || true",
    ],
)
def test_command_packs_resolved_from_the_project(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    """The hook's --packs win over the check's PATHS, found from the project root
    (the parent of .claude/), whatever the directory the check runs in."""
    project = tmp_path / "project"
    gate_pack(project / "rules", timeout="120s")
    checked = gate_pack(tmp_path / "elsewhere", timeout="5s", name="other")
    settings = write_settings(
        project / ".claude" / "settings.json", {"PreToolUse": [hook(command, 60)]}
    )
    monkeypatch.chdir(tmp_path)
    code, diagnostics, _ = run_check(
        capsys, str(checked), "--host", "claude", "--settings", str(settings)
    )
    assert code == 1
    assert codes(diagnostics) == ["approval-cannot-fit"]
    assert "gates/ask-bash" in str(diagnostics[0]["message"])


def test_missing_command_packs_warn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    settings = write_settings(
        tmp_path / "settings.json",
        {"PreToolUse": [hook("policy hook claude --packs /nonexistent/rules", 60)]},
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 0
    assert codes(diagnostics) == ["unresolved-path"]


def test_broken_command_packs_are_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = gate_pack(tmp_path / "good", timeout="10s")
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bad.yaml").write_text("apiVersion: hookpolicy/v1\nkind: RulePack\nnam: x\n")
    settings = write_settings(
        tmp_path / "settings.json",
        {"PreToolUse": [hook(f"policy hook claude --packs {broken}", 60)]},
    )
    code, diagnostics, _ = run_check(
        capsys, str(good), "--host", "claude", "--settings", str(settings)
    )
    assert code == 1
    assert codes(diagnostics) == ["hook-packs-invalid"]


# ------------------------------------------------------ the file and its hooks


def test_no_policy_hook_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    settings = write_settings(
        tmp_path / "settings.json",
        {
            "PreToolUse": [hook("echo hello", 5), hook("policy hook agentao", 60)],
            "PostToolUse": [hook("policy hook claude", 60)],
        },
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 0
    [found] = diagnostics
    assert (found["code"], found["severity"]) == ("no-policy-hook", "warning")
    assert "`policy hook agentao`, for another host" in str(found["message"])
    assert (found["line"], found["col"]) == (2, 12)  # the `hooks` object


def test_invalid_hook_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    bad = "policy hook claude --deadline soon"
    settings = write_settings(
        tmp_path / "settings.json", {"PreToolUse": [hook(bad, 60), hook("policy hook claude")]}
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 1
    [found] = diagnostics
    assert found["code"] == "invalid-hook-command"
    assert "invalid float value" in str(found["message"])
    assert (found["line"], found["col"]) == position(settings, bad)


def test_invalid_timeout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    settings = write_settings(
        tmp_path / "settings.json",
        {"PreToolUse": [hook("policy hook claude", "60")]},  # type: ignore[arg-type]
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 1
    assert codes(diagnostics) == ["invalid-timeout"]


def test_settings_not_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    settings = tmp_path / "settings.json"
    settings.write_text('{\n  "hooks": {,\n}\n')
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 1
    [found] = diagnostics
    assert (found["code"], found["line"]) == ("json-syntax", 2)


def test_positions_in_compact_json_with_escapes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Positions come from the JSON text: one line, escapes and non-ASCII before it."""
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    first = 'policy hook claude --packs "r\u00e9gles" --deadline 9 --approval ask'
    late = "policy hook claude --deadline 60"
    document = {
        "env": {"NOTE": 'd\u00e9j\u00e0 "quoted"'},
        "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [hook(first, 60), hook(late, 60)]}]},
    }
    settings = tmp_path / "settings.json"
    settings.write_text(json.dumps(document, ensure_ascii=False))
    text = settings.read_text()
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 1
    by_code = {d["code"]: d for d in diagnostics}
    assert set(by_code) == {"unresolved-path", "deadline-exceeds-timeout"}
    assert (by_code["unresolved-path"]["line"], by_code["unresolved-path"]["col"]) == (
        1,
        text.index(json.dumps(first, ensure_ascii=False)) + 1,
    )
    assert by_code["deadline-exceeds-timeout"]["col"] == text.index(json.dumps(late)) + 1


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("policy hook claude", ["claude"]),
        ("/opt/venv/bin/policy hook claude --deadline=5", ["claude", "--deadline=5"]),
        ("python3.11 -X dev -m policy hook claude -h", ["claude", "-h"]),
        ("python -mpolicy hook agentao", ["agentao"]),
        ("policy hook claude >/dev/null 2>&1 --packs rules", ["claude", "--packs", "rules"]),
        ("true; policy hook claude | cat", ["claude"]),
        ("FOO=1 env policy hook --deadline 5 claude", ["--deadline", "5", "claude"]),
        ("echo hello", None),
        ("policyd hook claude", None),
        ("policy check rules", None),
        ("python -c 'import policy' -m policy hook claude", None),
        ("policy hook 'claude", None),
    ],
)
def test_policy_hook_commands_are_recognised(command: str, argv: list[str] | None) -> None:
    """The words after `hook`, as the shell hands them to `policy hook`."""
    from policy.hosts.claude.mount import _policy_hook_argv

    assert _policy_hook_argv(command) == argv


def test_help_in_the_command_is_invalid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    settings = write_settings(
        tmp_path / "settings.json", {"PreToolUse": [hook("policy hook claude --help", 60)]}
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 1
    assert "invalid-hook-command" in codes(diagnostics)


def test_disabled_hooks_warn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = gate_pack(tmp_path / "rules", timeout="10s")
    settings = tmp_path / "settings.json"
    command = "policy hook claude"
    settings.write_text(
        json.dumps(
            {
                "disableAllHooks": True,
                "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [hook(command)]}]},
            },
            indent=2,
        )
    )
    code, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert code == 0
    [found] = diagnostics
    assert (found["code"], found["line"], found["col"]) == ("hooks-disabled", 2, 22)


# ------------------------------------------------------------------- usage


def test_host_without_settings_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = gate_pack(tmp_path / "rules")
    assert main(["check", str(pack), "--host", "claude"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "--host claude needs --settings FILE" in err


def test_settings_without_host_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = gate_pack(tmp_path / "rules")
    settings = write_settings(tmp_path / "settings.json", {})
    assert main(["check", str(pack), "--settings", str(settings)]) == 2
    assert "--settings needs --host" in capsys.readouterr().err


def test_unreadable_settings_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = gate_pack(tmp_path / "rules")
    missing = tmp_path / "nope.json"
    assert main(["check", str(pack), "--host", "claude", "--settings", str(missing)]) == 2
    assert "cannot read" in capsys.readouterr().err


# ----------------------------------------------------------------- formats


@pytest.fixture
def mismatched(tmp_path: Path) -> tuple[Path, Path, str]:
    pack = gate_pack(tmp_path / "rules", timeout="120s")
    command = "policy hook claude --deadline 60 --approval wait"
    settings = write_settings(tmp_path / "settings.json", {"PreToolUse": [hook(command, 60)]})
    return pack, settings, command


def test_text_format(
    capsys: pytest.CaptureFixture[str], mismatched: tuple[Path, Path, str]
) -> None:
    pack, settings, command = mismatched
    assert main(["check", str(pack), "--host", "claude", "--settings", str(settings)]) == 1
    lines = capsys.readouterr().out.splitlines()
    line, col = position(settings, command)
    assert lines[0].startswith(f"{settings}:{line}:{col}: error: ")
    assert lines[0].endswith("[approval-cannot-fit]")
    assert lines[1].endswith("[deadline-exceeds-timeout]")
    assert lines[-1] == "2 file(s) checked: 2 error(s), 0 warning(s)"


def test_json_format(
    capsys: pytest.CaptureFixture[str], mismatched: tuple[Path, Path, str]
) -> None:
    pack, settings, _ = mismatched
    assert (
        main(
            [
                "check",
                str(pack),
                "--host",
                "claude",
                "--settings",
                str(settings),
                "--format",
                "json",
            ]
        )
        == 1
    )
    payload = orjson.loads(capsys.readouterr().out)
    assert payload["files"] == [str(pack), str(settings)]
    assert payload["errors"] == 2
    assert {d["code"] for d in payload["diagnostics"]} == {
        "approval-cannot-fit",
        "deadline-exceeds-timeout",
    }


def test_github_format(
    capsys: pytest.CaptureFixture[str], mismatched: tuple[Path, Path, str]
) -> None:
    pack, settings, command = mismatched
    argv = ["check", str(pack), "--host", "claude", "--settings", str(settings)]
    assert main([*argv, "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    line, col = position(settings, command)
    path = str(settings).replace(":", "%3A").replace(",", "%2C")
    assert [entry.split("::")[1] for entry in lines] == [
        f"error file={path},line={line},col={col},title=approval-cannot-fit",
        f"error file={path},line={line},col={col},title=deadline-exceeds-timeout",
    ]


def test_sarif_format(
    capsys: pytest.CaptureFixture[str], mismatched: tuple[Path, Path, str]
) -> None:
    pack, settings, _ = mismatched
    argv = ["check", str(pack), "--host", "claude", "--settings", str(settings)]
    assert main([*argv, "--format", "sarif"]) == 1
    [run] = orjson.loads(capsys.readouterr().out)["runs"]
    assert {r["ruleId"] for r in run["results"]} == {
        "approval-cannot-fit",
        "deadline-exceeds-timeout",
    }
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    }
    assert uris == {str(settings)}


# ------------------------------------------------------------------- facts


def test_constants_match_policy_hook() -> None:
    """The facts the checks assume about `policy hook` are its own: one home
    (policy.hosts), read by the parser, the hook process and the checks."""
    from policy import hosts
    from policy.hosts.claude import hook_process as server

    args = _parser().parse_args(["hook", "claude"])
    assert args.deadline == hosts.HOOK_DEFAULT_DEADLINE == 50.0
    assert args.approval == hosts.HOOK_DEFAULT_APPROVAL == "auto"
    assert server.ANSWER_MARGIN == _mount.APPROVAL_MARGIN == hosts.ANSWER_MARGIN


def test_a_claude_hook_without_on_failure_block_fails_open_and_is_warned_about(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Claude Code runs the call when a hook times out or crashes, unless the entry says
    `"onFailure": "block"` (checked with 2.1.332; 2.1.197 ignores the key)."""
    pack = gate_pack(tmp_path / "packs")
    command = f"policy hook claude --packs {pack}"
    settings = write_settings(
        tmp_path / "settings.json", {"PreToolUse": [hook(command, on_failure=None)]}
    )
    status, diagnostics, _ = run_check(
        capsys, str(pack), "--host", "claude", "--settings", str(settings)
    )
    assert status == 0
    assert codes(diagnostics) == ["hook-fails-open"]
    assert (diagnostics[0]["line"], diagnostics[0]["col"]) == position(settings, command)
