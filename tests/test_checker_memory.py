"""A process checks each pack expression once: cel-cpp's type check is most of a
pack's compile, and a set compiled again (a reload after one pack changed, every
engine of a process built on the same packs) asks the same questions."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from policy.packs.cel import checker as checker_module
from policy.packs.cel.checker import Checker
from policy.packs.cel.expr import _ExprEnvs
from policy.packs.cel.interface import CelIssue
from policy.packs.lint import check_paths

ROOT = Path(__file__).resolve().parent.parent

MISSPELT = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: misspelt
variables:
  cmds: commands.filter(c, c.name == "rm")
rules:
  - id: by-variable
    tools: [bash]
    when: vars.cmds.exists(c, c.delets.size() > 0)
    action: deny
  - id: direct
    tools: [bash]
    when: commands.exists(c, c.nmae == "rm")
    action: deny
"""


@pytest.fixture(autouse=True)
def _forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from a process that has checked nothing."""
    monkeypatch.setattr(checker_module, "_checked", checker_module._Checked())


@pytest.fixture
def type_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources cel-cpp is asked to type-check, in order."""
    asked: list[str] = []
    real = _ExprEnvs.compile

    def compile(self: _ExprEnvs, point: str, source: str) -> Any:
        asked.append(source)
        return real(self, point, source)

    monkeypatch.setattr(_ExprEnvs, "compile", compile)
    return asked


def _diagnostics(paths: list[Path]) -> list[tuple[int, int, str, str]]:
    """What `policy check` reports on `paths`."""
    return [(d.line, d.col, d.code, d.message) for d in check_paths(paths).diagnostics]


def test_the_shipped_packs_compiled_again_are_not_type_checked_again(
    type_checks: list[str],
) -> None:
    paths = [ROOT / "rules"]
    first = _diagnostics(paths)
    checked = len(type_checks)
    assert checked > 50  # (every condition, message and value of the shipped packs)
    assert _diagnostics(paths) == first
    assert len(type_checks) == checked


def test_errors_are_reported_again_at_their_place(tmp_path: Path, type_checks: list[str]) -> None:
    pack = tmp_path / "misspelt.yaml"
    pack.write_text(MISSPELT)
    first = _diagnostics([pack])
    assert [(line, col) for line, col, _, _ in first] == [(9, 32), (13, 31)]
    assert all("undefined field" in message for _, _, _, message in first)
    checked = len(type_checks)
    assert _diagnostics([pack]) == first
    assert len(type_checks) == checked


def test_what_a_check_answers_cannot_be_changed_through_its_result() -> None:
    source = "commands.exists(c, c.nmae == 'rm')"
    first = Checker().check("before_tool", source)
    assert first.issues
    first.issues.clear()
    again = Checker().check("before_tool", source)
    assert again.issues and "undefined field 'nmae'" in again.issues[0].message


def test_the_pack_variables_read_are_part_of_the_question() -> None:
    source = "vars.cmds.exists(c, c.delets.size() > 0)"
    typed = {"cmds": 'commands.filter(c, c.name == "rm")'}
    untyped = {"cmds": '["rm"]'}
    assert Checker().check("before_tool", source, typed).issues
    assert not Checker().check("before_tool", source, untyped).issues
    assert Checker().check("before_tool", source, typed).issues


def _held(source: str, *issues: CelIssue) -> int:
    """What an entry of `source` (with `issues`) counts against the memory's size."""
    size = checker_module._Checked._ENTRY + sys.getsizeof(source)
    for issue in issues:
        size += sys.getsizeof(issue) + sys.getsizeof(issue.message) + checker_module._PER_ISSUE
    return size


def test_past_its_size_what_was_checked_is_forgotten_and_checked_again(
    monkeypatch: pytest.MonkeyPatch, type_checks: list[str]
) -> None:
    first, second = "tool == 'a' || tool == 'bb'", "tool == 'c' || tool == 'dd'"
    monkeypatch.setattr(checker_module._Checked, "LIMIT", _held(first) + _held(second) - 1)
    for source in (first, first, second, first):
        assert Checker().check("before_tool", source).type_name == "bool"
    assert type_checks == [first, second, first]
    longer = "tool == '" + "x" * 2 * _held(first) + "'"  # (larger than the whole budget)
    Checker().check("before_tool", longer)
    Checker().check("before_tool", longer)
    assert type_checks.count(longer) == 2


def test_what_the_issues_say_counts_against_the_size(
    monkeypatch: pytest.MonkeyPatch, type_checks: list[str]
) -> None:
    broken = "tool == " + "'x' + " * 10 + "nope"
    (issue,) = Checker().check("before_tool", broken).issues
    assert "undeclared reference to 'nope'" in issue.message
    monkeypatch.setattr(checker_module, "_checked", checker_module._Checked())
    monkeypatch.setattr(checker_module._Checked, "LIMIT", _held(broken, issue) - 1)
    for _ in range(2):
        assert Checker().check("before_tool", broken).issues == [issue]
    assert type_checks.count(broken) == 3  # (with its message, more than it may hold)
    monkeypatch.setattr(checker_module._Checked, "LIMIT", _held(broken, issue))
    for _ in range(2):
        assert Checker().check("before_tool", broken).issues == [issue]
    assert type_checks.count(broken) == 4


def test_a_large_variable_read_by_every_rule_is_not_held_once_a_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, type_checks: list[str]
) -> None:
    hosts = "[" + ", ".join(f'"host-{n}.example.com"' for n in range(3000)) + "]"
    rules = "".join(
        f"  - id: r{n}\n    tools: [bash]\n"
        f"    when: commands.exists(c, c.args.exists(a, a in vars.hosts) && c.name == 'x{n}')\n"
        "    action: deny\n"
        for n in range(40)
    )
    pack = tmp_path / "hosts.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: hosts\n"
        f"variables:\n  hosts: '{hosts}'\nrules:\n{rules}"
    )
    # (less than the variable alone: only its own check is too large to keep)
    monkeypatch.setattr(checker_module._Checked, "LIMIT", 64 << 10)
    assert _diagnostics([pack]) == []
    checked = len(type_checks)
    assert checked > 80  # (each rule, and each again with the variable's type)
    assert _diagnostics([pack]) == []
    assert type_checks[checked:] == [hosts]


def test_an_expression_whose_type_cel_cannot_build_is_refused_at_its_place(
    tmp_path: Path,
) -> None:
    pack = tmp_path / "mapkey.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: mapkey\n"
        "variables:\n  m: '{[1]: 1}'\nrules:\n"
        "  - id: r\n    tools: [bash]\n    when: size(vars.m) > 0\n    action: deny\n"
    )
    found = _diagnostics([pack])
    assert found and all(code == "cel-error" for _, _, code, _ in found), found
    assert any("Unsupported map key type" in message for _, _, _, message in found)


def test_the_same_expression_elsewhere_is_reported_at_its_own_place(tmp_path: Path) -> None:
    first, second = tmp_path / "first.yaml", tmp_path / "second.yaml"
    first.write_text(MISSPELT)
    second.write_text(
        "# a pack of the same rules, lower down\n\n\n" + MISSPELT.replace("misspelt", "again")
    )
    report = check_paths([first, second])
    at = sorted((Path(d.path).name, d.line, d.col) for d in report.diagnostics)
    assert at == [
        ("first.yaml", 9, 32), ("first.yaml", 13, 31),
        ("second.yaml", 12, 32), ("second.yaml", 16, 31),
    ]  # fmt: skip


def test_a_variable_of_any_text_is_a_key_part() -> None:
    # (a lone surrogate has no UTF-8: the variables are keyed by their repr)
    source = 'vars["a"] == "x"'
    assert Checker().check("before_tool", source, {"a": '"\ud800"'}).type_name == "bool"
    assert Checker().check("before_tool", source, {"a": '"\ud800"'}).type_name == "bool"
