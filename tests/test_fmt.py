"""`policy fmt`: pack files in canonical key order and indentation, comments kept.

The order is the pack models' field order (`apiVersion`, `kind`, `name`, ...,
`rules`, `tests`; each rule's keys in `Rule`'s order). Formatting keeps every
comment and the quoting of every CEL string, never changes what a pack decides, is
idempotent, and leaves a file it cannot read as it was. `--check` is the CI gate.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from policy.cli import main
from policy.packs import load_packs
from policy.packs.fmt import format_text

ROOT = Path(__file__).resolve().parent.parent
POLICY = str(Path(sys.executable).parent / "policy")
SHIPPED = sorted((ROOT / "rules").glob("*.yaml")) + sorted((ROOT / "examples").rglob("*.yaml"))
PACKS = [p for p in SHIPPED if "kind: RulePack" in p.read_text()]

# Written in no particular order, commented everywhere, with CEL in every quoting.
MESSY = """\
# yaml-language-server: $schema=../policy/packs/pack.schema.json
# A pack written in no particular order.
name: messy   # the pack's name
kind: RulePack
apiVersion: hookpolicy/v1

# three ways to quote CEL
variables:
  zeta: 'commands.filter(c, c.name == "git")'
  alpha: "commands.exists(c, c.name.matches(\\"^rm$\\"))"
rules:
  # refuses a forced push
  - message: no force pushes
    action: deny
    # the condition
    when: >-
      vars.zeta.exists(c, c.subcommand == "push"
        && c.flags.exists(f, f in ["f", "force"]))
    tools: [bash]
    id: deny-force-push   # ids are stable

  - id: ask-rm
    when: 'vars.alpha && !("x" in ["a\\\\.b"])'
    action: ask
    approvers: ["secops-*"]
    message: rm waits for a person
builtins:
  tool_policy:
    rate_limits:
      - limit: 20/minute
        tools: [WebFetch]
    applies_to: [WebFetch]
"""

CANONICAL = """\
# yaml-language-server: $schema=../policy/packs/pack.schema.json
# A pack written in no particular order.
apiVersion: hookpolicy/v1
kind: RulePack
name: messy   # the pack's name

# three ways to quote CEL
variables:
  zeta: 'commands.filter(c, c.name == "git")'
  alpha: "commands.exists(c, c.name.matches(\\"^rm$\\"))"
builtins:
  tool_policy:
    applies_to: [WebFetch]
    rate_limits:
      - tools: [WebFetch]
        limit: 20/minute
rules:
  # refuses a forced push
  - id: deny-force-push   # ids are stable
    tools: [bash]
    # the condition
    when: >-
      vars.zeta.exists(c, c.subcommand == "push"
        && c.flags.exists(f, f in ["f", "force"]))
    action: deny
    message: no force pushes

  - id: ask-rm
    when: 'vars.alpha && !("x" in ["a\\\\.b"])'
    action: ask
    message: rm waits for a person
    approvers: ["secops-*"]
"""


def run_fmt(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["fmt", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_keys_take_the_models_order_and_every_comment_and_quote_stays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "messy.yaml"
    pack.write_text(MESSY)

    code, out, err = run_fmt(str(pack), capsys=capsys)

    assert code == 0, err
    assert out == f"reformatted {pack}\n"
    assert pack.read_text() == CANONICAL

    # every line is kept, CEL byte for byte; only the order and the indentation changed
    def lines(text: str) -> list[str]:
        return sorted(line.strip().removeprefix("- ") for line in text.splitlines())

    assert lines(pack.read_text()) == lines(MESSY)


def test_a_formatted_pack_decides_as_before(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "pack.yaml").write_text(MESSY)
    (tmp_path / "b" / "pack.yaml").write_text(format_text(MESSY))
    assert compiled(tmp_path / "a") == compiled(tmp_path / "b")


def test_check_lists_what_would_change_and_changes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "messy.yaml").write_text(MESSY)
    (tmp_path / "tidy.yaml").write_text(CANONICAL)

    code, out, err = run_fmt("--check", str(tmp_path), capsys=capsys)

    assert code == 1
    assert out == f"would reformat {tmp_path / 'messy.yaml'}\n"
    assert "1 file(s) would reformat, 1 unchanged" in err
    assert (tmp_path / "messy.yaml").read_text() == MESSY

    (tmp_path / "messy.yaml").write_text(CANONICAL)
    assert run_fmt("--check", str(tmp_path), capsys=capsys)[0] == 0


def test_the_ci_gate_as_a_command(tmp_path: Path) -> None:
    """What a CI job runs: the exit status is the verdict."""
    (tmp_path / "pack.yaml").write_text(MESSY)
    gate = [POLICY, "fmt", "--check", str(tmp_path)]
    assert subprocess.run(gate, capture_output=True, check=False).returncode == 1
    assert subprocess.run([POLICY, "fmt", str(tmp_path)], check=False).returncode == 0
    assert subprocess.run(gate, capture_output=True, check=False).returncode == 0


def test_a_file_that_is_not_yaml_is_an_error_at_its_position_and_stays_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.yaml"
    text = "apiVersion: hookpolicy/v1\nkind: RulePack\nname: [unclosed\nrules: []\n"
    broken.write_text(text)
    (tmp_path / "messy.yaml").write_text(MESSY)

    code, _, err = run_fmt(str(tmp_path), capsys=capsys)

    assert code == 2
    assert f"{broken}:4:6: error:" in err  # where the parser found the flow list broken
    assert "[yaml-syntax]" in err
    assert broken.read_text() == text
    # the other files are formatted all the same
    assert (tmp_path / "messy.yaml").read_text() == CANONICAL


def test_a_duplicate_key_is_an_error_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "dup.yaml"
    pack.write_text("apiVersion: hookpolicy/v1\nkind: RulePack\nname: a\nname: b\n")
    code, _, err = run_fmt(str(pack), capsys=capsys)
    assert code == 2
    assert f"{pack}:4:1: error:" in err
    assert "duplicate key" in err
    assert "[duplicate-key]" in err  # the code `policy check` gives it


def test_the_file_is_replaced_whole_keeping_its_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "messy.yaml"
    pack.write_text(MESSY)
    pack.chmod(0o640)
    before = pack.stat().st_ino

    assert run_fmt(str(pack), capsys=capsys)[0] == 0

    assert pack.stat().st_mode & 0o777 == 0o640
    assert pack.stat().st_ino != before  # a new file renamed over the old one
    assert os.listdir(tmp_path) == ["messy.yaml"]  # no temporary left behind


def test_a_linked_pack_is_formatted_where_it_lives_and_stays_a_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "pack.yaml").write_text(MESSY)
    packs = tmp_path / "packs"
    packs.mkdir()
    (packs / "pack.yaml").symlink_to(shared / "pack.yaml")

    assert run_fmt(str(packs / "pack.yaml"), capsys=capsys)[0] == 0

    assert (packs / "pack.yaml").is_symlink()
    assert (shared / "pack.yaml").read_text() == CANONICAL


def test_keys_the_models_do_not_know_follow_the_known_ones(tmp_path: Path) -> None:
    text = "colour: blue\nname: x\nkind: RulePack\napiVersion: hookpolicy/v1\n"
    assert format_text(text) == (
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: x\ncolour: blue\n"
    )


def test_indentation_becomes_two_spaces_with_list_items_under_their_key() -> None:
    text = (
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: x\nrules:\n"
        "- id: a\n  action: deny\n  tools:\n  - bash\n"
    )
    assert format_text(text) == (
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: x\nrules:\n"
        "  - id: a\n    tools:\n      - bash\n    action: deny\n"
    )


@pytest.mark.parametrize("pack", PACKS, ids=[str(p.relative_to(ROOT)) for p in PACKS])
def test_every_shipped_pack_formats_idempotently_and_decides_the_same(
    pack: Path, tmp_path: Path
) -> None:
    original = tmp_path / "original" / pack.name
    formatted = tmp_path / "formatted" / pack.name
    original.parent.mkdir()
    formatted.parent.mkdir()
    original.write_bytes(pack.read_bytes())
    once = format_text(pack.read_text(), str(pack))
    formatted.write_text(once)

    assert format_text(once) == once  # fmt twice is fmt once
    assert compiled(original.parent) == compiled(formatted.parent)


def test_ruamel_yaml_is_imported_by_policy_fmt_only() -> None:
    importers = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "policy").rglob("*.py")
        if "ruamel" in path.read_text()
    ]
    assert importers == ["policy/packs/fmt.py"]
    # `policy check` and a decision on the shipped packs never load it
    probe = (
        "import sys, contextlib, io\n"
        "from policy.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['check', 'rules/shell.yaml'])\n"
        "from policy import Engine\n"
        "from policy.model import ToolCall\n"
        "from policy.settings import Settings\n"
        "Engine(Settings(packs=['rules/shell.yaml'])).before_tool("
        "ToolCall(tool='bash', args={'command': 'ls'}))\n"
        "print(sorted(m for m in sys.modules if m.startswith('ruamel')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


def compiled(directory: Path) -> list[Any]:
    """What the packs in `directory` decide by: every rule's id, condition, action,
    message and settings, every builtin's configuration."""
    loaded = load_packs([directory])
    packs = [
        (
            hook.pack_name,
            hook.priority,
            [
                (
                    rule.id,
                    rule.point,
                    rule.action,
                    rule.tools,
                    rule.condition,
                    rule.message,
                    rule.message_expr,
                    rule.model.model_dump(),
                )
                for rule in hook.rules
            ],
        )
        for hook in loaded.hooks
        if hasattr(hook, "rules")
    ]
    return [packs, [repr(spec) for spec in loaded.builtins]]
