"""`policy check DIR` skips the YAML under DIR that is not a rule pack, and says so.

A repository keeps other tools' YAML beside its packs — a service's settings, a CI
workflow. When a directory is walked, a file whose top-level mapping has none of
`apiVersion`, `kind`, `rules`, `builtins` is skipped with one line saying so (a note in
JSON and SARIF, never an error). Fail closed all the same: a file with a `kind:` or an
`apiVersion:` is a pack, so a typo'd kind is an error, never a reason to skip; and a
file named on the command line is always checked as a pack.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from policy.cli import main

ROOT = Path(__file__).resolve().parent.parent
SERVE = ROOT / "examples" / "service" / "serve.yaml"

PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: probe
rules:
  - id: deny-terraform-destroy
    tools: [bash]
    when: 'commands.exists(c, c.name == "terraform" && "destroy" in c.args)'
    action: deny
"""


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["check", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A directory with one pack and the service's settings file beside it."""
    (tmp_path / "policy").mkdir()
    (tmp_path / "policy" / "probe.yaml").write_text(PACK)
    shutil.copy(SERVE, tmp_path / "policy" / "serve.yaml")
    return tmp_path / "policy"


def test_a_settings_file_under_a_directory_is_skipped_on_one_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = check(capsys, str(repo))
    assert code == 0
    assert out.splitlines() == [
        f"{repo}/serve.yaml: skipped, not a rule pack (no apiVersion/kind)",
        "1 file(s) checked: 0 error(s), 0 warning(s), 1 skipped (not packs)",
    ]


def test_a_skipped_file_is_a_note_in_json_and_sarif_never_an_error(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = check(capsys, "--format", "json", str(repo))
    assert code == 0
    report = orjson.loads(out)
    assert report["errors"] == 0 and report["skipped"] == [f"{repo}/serve.yaml"]
    assert report["diagnostics"] == [
        {
            "path": f"{repo}/serve.yaml",
            "line": 1,
            "col": 1,
            "severity": "note",
            "code": "not-a-pack",
            "message": "skipped, not a rule pack (no apiVersion/kind)",
        }
    ]

    code, out, _ = check(capsys, "--format", "sarif", "--strict", str(repo))
    assert code == 0  # --strict makes warnings errors, not notes
    (result,) = orjson.loads(out)["runs"][0]["results"]
    assert (result["ruleId"], result["level"]) == ("not-a-pack", "note")

    code, out, _ = check(capsys, "--format", "github", str(repo))
    assert code == 0
    assert out.startswith(f"::notice file={repo}/serve.yaml,line=1,col=1,title=not-a-pack::")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: hookpolicy/v1\nkind: RulePak\nname: typo\nrules: []\n", "kind"),
        ("apiVersion: hookpolicy/v1\nname: no-kind\nrules: []\n", "missing required key 'kind'"),
        ("kind: rulepack\nname: lower\n", "kind"),
        ("name: only-rules\nrules: []\n", "missing required key 'apiVersion'"),
        # a slip away from a pack's own key: checked, so the slip is reported
        ("ApiVersion: hookpolicy/v1\nKind: RulePack\nname: caps\nRules: []\n", "'Kind'"),
        ("name: typo\nrule:\n  - id: x\n", "unknown key 'rule' (did you mean 'rules'?)"),
        ("name: b\nbuiltin: {}\n", "unknown key 'builtin'"),
    ],
)
def test_a_file_with_a_pack_key_is_checked_so_a_typo_is_still_an_error(
    repo: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    (repo / "typo.yaml").write_text(text)
    code, out, _ = check(capsys, str(repo))
    assert code == 1
    errors = [line for line in out.splitlines() if line.startswith(f"{repo}/typo.yaml:")]
    assert errors and any(message in line for line in errors)
    assert "typo.yaml: skipped" not in out


def test_a_file_named_on_the_command_line_is_always_checked_as_a_pack(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = check(capsys, str(repo / "serve.yaml"))
    assert code == 1
    assert f"{repo}/serve.yaml:3:1: error: missing required key 'apiVersion'" in out
    assert "skipped" not in out


def test_a_directory_with_no_pack_at_all_is_a_usage_error_naming_what_it_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SERVE, tmp_path / "serve.yaml")
    code, out, err = check(capsys, str(tmp_path))
    assert code == 2 and out == ""
    assert f"{tmp_path}/serve.yaml: skipped, not a rule pack (no apiVersion/kind)" in err
    assert "no rule packs (*.yaml, *.yml) found" in err


def test_the_shipped_rules_and_examples_check_clean(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    code, out, _ = check(capsys, "rules/", "examples/")
    assert code == 0, out
    assert "examples/service/serve.yaml: skipped, not a rule pack (no apiVersion/kind)" in out
    assert " 0 error(s), 0 warning(s)" in out


def test_an_unparsable_file_is_checked_not_skipped(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (repo / "broken.yaml").write_text("packs: [a\nservice: {\n")
    code, out, _ = check(capsys, str(repo))
    assert code == 1
    assert f"{repo}/broken.yaml:" in out and "yaml-syntax" in out


def test_walking_a_directory_parses_each_pack_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deciding whether a walked file is a pack parses it; reading it to check takes
    that parse instead of making another — unless the file changed in between."""
    from policy import _yaml
    from policy.packs import load

    (tmp_path / "probe.yaml").write_text(PACK)
    (tmp_path / "other.yaml").write_text(PACK.replace("name: probe", "name: other"))
    parsed: list[str] = []
    real = _yaml.load_yaml_documents

    def counting(text: str | bytes, source: str | Path) -> object:
        parsed.append(Path(source).name)
        return real(text, source)

    monkeypatch.setattr(_yaml, "load_yaml_documents", counting)
    code, out, _ = check(capsys, str(tmp_path))
    assert code == 0, out
    assert sorted(parsed) == ["other.yaml", "probe.yaml"]
    assert load._WALKED == {}  # every parse kept was taken

    parsed.clear()
    kept, _ = load.discover_walked([tmp_path])
    (tmp_path / "probe.yaml").write_text(PACK.replace("deny", "ask"))  # edited meanwhile
    for path in kept:
        load.read_pack_all(path)
    assert sorted(parsed) == ["other.yaml", "probe.yaml", "probe.yaml"]
    assert load._WALKED == {}
