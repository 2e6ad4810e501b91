"""`policy check`: every defect at its file:line:col, the right exit codes, every format."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

POLICY = str(Path(sys.executable).with_name("policy"))
ROOT = Path(__file__).resolve().parent.parent
BROKEN = Path("tests/packs/broken")


def check(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    return subprocess.run(
        [POLICY, "check", *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )


# (file, line, col, severity, code, message fragment)
DEFECTS = [
    (
        "unknown_key.yaml",
        8,
        5,
        "error",
        "unknown-key",
        "unknown key 'acton' (did you mean 'action'?)",
    ),
    (
        "duplicate_key.yaml",
        9,
        5,
        "error",
        "duplicate-key",
        "duplicate key 'action' (first at line 8, column 5)",
    ),
    ("wrong_type.yaml", 4, 11, "error", "wrong-type", "priority: Input should be a valid integer"),
    ("cel_syntax.yaml", 7, 58, "error", "cel-error", "condition: Syntax error: missing ')'"),
    (
        "undeclared_variable.yaml",
        11,
        12,
        "error",
        "undeclared-variable",
        "undeclared variable 'vars.command'",
    ),
    ("non_bool.yaml", 7, 11, "error", "non-bool-condition", "condition has type dyn, not bool"),
    (
        "duplicate_id.yaml",
        9,
        9,
        "error",
        "duplicate-id",
        "duplicate rule id 'deny-sudo' (first at line 5)",
    ),
    (
        "unreachable.yaml",
        9,
        9,
        "warning",
        "unreachable-rule",
        "rule 'allow-ls' can never act: rule 'no-shell-at-all'",
    ),
    (
        "unknown_tool.yaml",
        6,
        19,
        "error",
        "unknown-tool",
        "tool 'Bahs' is no known tool or alias (did you mean 'Bash'?)",
    ),
    (
        "misspelt_fact.yaml",
        7,
        31,
        "error",
        "cel-error",
        "undefined field 'delets' not found in struct 'hookpolicy.facts.Command'",
    ),
    (
        "bad_regex.yaml",
        7,
        40,
        "error",
        "bad-regex",
        "regular expression 'AKIA[0-9A-Z{16}' does not compile",
    ),
]


@pytest.mark.parametrize(
    ("name", "line", "col", "severity", "code", "message"), DEFECTS, ids=[d[0] for d in DEFECTS]
)
def test_each_defect_is_reported_at_its_position(
    name: str, line: int, col: int, severity: str, code: str, message: str
) -> None:
    done = check(str(BROKEN / name))
    expected = f"{BROKEN / name}:{line}:{col}: {severity}: "
    hits = [row for row in done.stdout.splitlines() if row.startswith(expected)]
    assert hits, done.stdout
    assert message in hits[0]
    assert hits[0].endswith(f"[{code}]")
    assert done.returncode == (1 if severity == "error" else 0)


def test_warnings_fail_with_strict() -> None:
    done = check("--strict", str(BROKEN / "unreachable.yaml"))
    assert done.returncode == 1
    assert ": error: rule 'allow-ls' can never act" in done.stdout


def test_the_broken_set_fails_and_lists_every_defect() -> None:
    done = check(str(BROKEN))
    assert done.returncode == 1
    for name, line, col, severity, _code, _ in DEFECTS:
        assert f"{BROKEN / name}:{line}:{col}: {severity}: " in done.stdout, name
    # every layer in one run: duplicate_key.yaml is read past its duplicate key too, and its
    # `allow` (the later value) meets duplicate_id.yaml's `deny` on the same condition
    assert "[conflicting-rules]" in done.stdout
    assert (
        done.stdout.splitlines()[-1] == f"{len(DEFECTS)} file(s) checked: 11 error(s), 2 warning(s)"
    )


def test_a_clean_pack_exits_0() -> None:
    done = check("tests/packs/clean")
    assert done.returncode == 0, done.stdout
    assert done.stdout == "1 file(s) checked: 0 error(s), 0 warning(s)\n"


def test_the_shipped_packs_are_clean_even_when_strict() -> None:
    done = check("--strict", "rules")
    assert done.returncode == 0, done.stdout


def test_github_format_emits_annotations() -> None:
    done = check("--format", "github", str(BROKEN))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert (
        f"::error file={BROKEN}/duplicate_id.yaml,line=9,col=9,title=duplicate-id::duplicate rule id 'deny-sudo' (first at line 5)"
        in lines
    )
    assert any(
        line.startswith(f"::warning file={BROKEN}/unreachable.yaml,line=9,col=9,") for line in lines
    )
    assert all(line.startswith(("::error ", "::warning ")) for line in lines)


def test_json_and_sarif_formats() -> None:
    report = orjson.loads(check("--format", "json", str(BROKEN)).stdout)
    assert (report["errors"], report["warnings"]) == (11, 2)
    assert {"path", "line", "col", "severity", "code", "message"} <= report["diagnostics"][0].keys()
    sarif = orjson.loads(check("--format", "sarif", str(BROKEN)).stdout)
    assert sarif["version"] == "2.1.0"
    results = sarif["runs"][0]["results"]
    assert len(results) == 13
    location = results[0]["locations"][0]["physicalLocation"]
    assert location["region"]["startLine"] >= 1
    # relative to the repository root, as GitHub code scanning maps them
    assert location["artifactLocation"]["uri"].startswith("tests/packs/broken/")
    assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["tests/packs/nope"], "no such file or directory"),
        ([], "no PATHS given and the packs setting is empty"),
        (["--format", "xml", "rules"], "invalid choice"),
    ],
)
def test_usage_errors_exit_2(args: list[str], message: str) -> None:
    done = check(*args)
    assert done.returncode == 2
    assert message in done.stderr


def test_errors_in_block_scalars_point_into_the_block(tmp_path: Path) -> None:
    pack = tmp_path / "block.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\n"
        "kind: RulePack\n"
        "name: block\n"
        "rules:\n"
        "  - id: folded\n"
        "    when: >-\n"
        '      tool == "bash"\n'
        "        && size(args) > 0\n"
        "      && nosuchthing\n"
        "    action: deny\n"
        "  - id: literal\n"
        "    when: |\n"
        '      tool == "bash" &&\n'
        "      tool + 1 == 2\n"
        "    action: deny\n"
        "  - id: quoted\n"
        '    when: "tool == \\"x\\" && bogus"\n'
        "    action: deny\n"
    )
    out = check(str(pack)).stdout
    assert f"{pack}:9:10: error: condition: undeclared reference to 'nosuchthing'" in out
    assert f"{pack}:14:12: error: condition: found no matching overload for '_+_'" in out
    assert f"{pack}:17:29: error: condition: undeclared reference to 'bogus'" in out


def test_all_errors_of_a_file_are_reported(tmp_path: Path) -> None:
    pack = tmp_path / "many.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v2\n"
        "kind: RulePack\n"
        "name: Many\n"
        "priority: 1.5\n"
        "rules:\n"
        "  - id: a\n"
        "    action: nuke\n"
        "  - id: b\n"
        "    action: deny\n"
        "    colour: red\n"
    )
    out = check(str(pack)).stdout
    for position in ("1:13", "3:7", "4:11", "7:13", "10:5"):
        assert f"{pack}:{position}: error:" in out, position


@pytest.mark.parametrize(
    ("when", "column", "function", "hint"),
    [
        ("string(args.command).reverse() == 'sl'", 32, "reverse", None),
        # cel-python has no bindings; and cel-cpp's lazily bound value reads a stale slot
        # after a comprehension that stopped early: in the second rule, `t` was the flag
        # "-v" left by the first rule's `exists`, and `.bashrc` was let through
        (
            "args.flags.exists(f, f == '-k') && cel.bind(t, args.path, t == '/x')",
            46,
            "cel.bind",
            "name the value as a pack variable",
        ),
    ],
)
def test_functions_only_one_engine_has_are_refused(
    tmp_path: Path, when: str, column: int, function: str, hint: str | None
) -> None:
    pack = tmp_path / "unportable.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\n"
        "kind: RulePack\n"
        "name: unportable\n"
        "rules:\n"
        "  - id: r\n"
        "    tools: [bash]\n"
        f"    when: {when}\n"
        "    action: deny\n"
    )
    done = check(str(pack))
    assert done.returncode == 1
    assert (
        f"{pack}:7:{column}: error: condition: {function}() runs on cel-expr-python only"
        in done.stdout
    )
    if hint is not None:
        assert hint in done.stdout


def test_the_cel_python_engine_checks_too() -> None:
    done = check("--cel-engine", "cel-python", "--strict", "rules")
    assert done.returncode == 0, done.stdout


def test_set_respond_and_message_expressions_are_type_checked(tmp_path: Path) -> None:
    pack = tmp_path / "types.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\n"
        "kind: RulePack\n"
        "name: types\n"
        "rules:\n"
        "  - id: replace-args\n"
        "    tools: [bash]\n"
        "    action: modify\n"
        '    set: {args: \'{"command": "echo replaced"}\'}\n'
        "  - id: bad-bool\n"
        "    on: after_tool\n"
        "    action: modify\n"
        "    set: {result.is_error: '\"yes\"'}\n"
        "  - id: bad-message\n"
        "    tools: [read_file]\n"
        "    action: deny\n"
        "    message_expr: '42'\n"
        "  - id: bad-target\n"
        "    tools: [read_file]\n"
        "    action: modify\n"
        "    set: {sender: '\"root\"'}\n"
    )
    out = check(str(pack)).stdout
    assert (
        f"{pack}:12:29: error: set result.is_error has type string, not bool [wrong-expression-type]"
        in out
    )
    assert (
        f"{pack}:16:20: error: message_expr has type int, not string [wrong-expression-type]" in out
    )
    assert f"{pack}:20:11: error: cannot set 'sender' at before_tool" in out
    assert ":8:" not in out  # a map literal is a valid value for args
