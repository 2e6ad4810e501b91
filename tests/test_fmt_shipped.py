"""The shipped packs stay formatted: `policy fmt --check rules/ examples/` is clean.

CI runs this, so a pack edited by hand into another key order or indentation fails
here with the file to run `policy fmt` on. Walking `examples/` leaves the other
tools' YAML there (the service's settings, a CI workflow) alone, as `policy check`
does; a file named on the command line is formatted as a pack.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from policy.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_rules_and_example_packs_are_formatted(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    code = main(["fmt", "--check", "rules/", "examples/"])
    out, err = capsys.readouterr()
    assert code == 0, f"run `policy fmt rules/ examples/`:\n{out}{err}"
    assert "0 file(s) would reformat" in out + err


def test_a_settings_file_under_a_directory_is_not_formatted_as_a_pack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(ROOT / "rules" / "gate.yaml", tmp_path / "gate.yaml")
    settings = tmp_path / "serve.yaml"
    text = "service:\n    max_requests: 5\npacks: [/etc/hookpolicy/rules]\n"  # 4 spaces
    settings.write_text(text)
    assert main(["fmt", str(tmp_path)]) == 0
    capsys.readouterr()
    assert settings.read_text() == text

    assert main(["fmt", str(settings)]) == 0  # named: formatted as a pack would be
    capsys.readouterr()
    assert settings.read_text() == "service:\n  max_requests: 5\npacks: [/etc/hookpolicy/rules]\n"
