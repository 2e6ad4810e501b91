"""`policy init`: a team's first pack, its tests and CI, ready to commit.

The workflow it writes is run here as CI would run it: every `policy ...` step of the
job, in the directory `policy init` wrote to (the install step is only read: it needs
the network).
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from policy.cli import main

POLICY = str(Path(sys.executable).with_name("policy"))


def test_init_writes_a_pack_a_workflow_and_pre_commit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path)]) == 0
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == [".github/workflows/policy.yml", ".pre-commit-config.yaml", "packs/team.yaml"]
    assert "wrote" in capsys.readouterr().out
    hooks = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text())
    assert [h["id"] for h in hooks["repos"][0]["hooks"]] == ["policy-check", "policy-test"]


def test_the_workflows_check_and_test_steps_pass_on_what_init_wrote(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path), "--name", "platform"]) == 0
    workflow = yaml.safe_load((tmp_path / ".github/workflows/policy.yml").read_text())
    steps = workflow["jobs"]["policy"]["steps"]
    commands = [s["run"] for s in steps if str(s.get("run", "")).startswith("policy ")]
    assert [c.split()[1] for c in commands] == ["check", "check", "test"]
    assert any(s.get("name") == "install hookpolicy" for s in steps)
    for command in commands:
        argv = shlex.split(command.split(">")[0].split("||")[0])
        done = subprocess.run(
            [POLICY, *argv[1:]], cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"


def test_init_writes_nothing_over_an_existing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    assert main(["init", str(tmp_path)]) == 2
    assert ".pre-commit-config.yaml: exists" in capsys.readouterr().err
    assert not (tmp_path / "packs").exists()
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == "repos: []\n"


def test_a_pack_name_that_is_not_a_name_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path), "--name", "../evil"]) == 2
    assert "--name" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_the_ci_examples_are_what_init_writes() -> None:
    """examples/ci/ is `policy init`'s output for a pack named `team`: one source, no drift."""
    from policy.cli.init_cmd import files_for

    root = Path(__file__).resolve().parent.parent
    written = files_for("team")
    assert (root / "examples/ci/policy.yml").read_text() == written[".github/workflows/policy.yml"]
    assert (root / "examples/ci/pre-commit-config.yaml").read_text() == written[
        ".pre-commit-config.yaml"
    ]
    hooks = yaml.safe_load((root / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"]: h["entry"].split()[:2] for h in hooks} == {
        "policy-check": ["policy", "check"],
        "policy-test": ["policy", "test"],
    }


def test_a_dangling_link_or_a_linked_directory_stops_init_before_it_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / ".pre-commit-config.yaml").symlink_to(tmp_path / "nowhere")
    assert main(["init", str(project)]) == 2
    assert "exists" in capsys.readouterr().err
    (project / ".pre-commit-config.yaml").unlink()
    (project / ".github").symlink_to(outside)
    assert main(["init", str(project)]) == 2
    assert "symbolic link" in capsys.readouterr().err
    assert list(outside.iterdir()) == [] and not (project / "packs").exists()


def test_a_name_with_a_trailing_newline_is_no_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["init", str(tmp_path), "--name", "team\n"]) == 2
    assert list(tmp_path.iterdir()) == []
