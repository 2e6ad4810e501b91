"""`policy eval --explain` names every rule by where it is written: `file:line`.

A pack author reading an explanation goes straight to the rule: each candidate, the
winning rule and the builtins' ids (`gate/tool_policy`) carry the `file:line` of their
`id:` (or of the builtin's key), in the text and as `at` in `--format json`. Compiled
packs may come from the pack cache, which keeps the locations too.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import orjson
import pytest

from policy.cli import main

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"

PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: probe
rules:
  - id: allow-ls
    tools: [bash]
    when: 'commands.exists(c, c.name == "ls")'
    action: allow

  # a comment, so the next id is not on an obvious line
  - id: deny-terraform-destroy
    tools: [bash]
    when: 'commands.exists(c, c.name == "terraform" && "destroy" in c.args)'
    action: deny
    message: terraform destroy is not for agents
"""


def line_of(path: Path, text: str) -> int:
    """The 1-based line of `path` that holds `text`."""
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def bash(command: str) -> str:
    return orjson.dumps({"tool": "Bash", "args": {"command": command}}).decode()


def explain_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code = main(["eval", "--explain", "--format", "json", *argv])
    out, _ = capsys.readouterr()
    assert code == 0
    report = orjson.loads(out)
    assert isinstance(report, dict)
    return report


def test_the_winning_rule_and_each_candidate_are_named_by_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pack = tmp_path / "probe.yaml"
    pack.write_text(PACK)
    at = f"{pack}:{line_of(pack, '- id: deny-terraform-destroy')}"

    code = main(
        ["eval", "--packs", str(pack), "--explain", bash("terraform destroy -auto-approve")]
    )
    out, _ = capsys.readouterr()
    assert code == 0
    assert f"true  probe/deny-terraform-destroy (deny)  {at}" in out
    assert f"rule probe/deny-terraform-destroy at {at} (condition true)" in out

    report = explain_json(capsys, "--packs", str(pack), bash("terraform destroy"))
    (entry,) = report["hooks"]  # type: ignore[misc]
    candidates = {c["rule"]: c["at"] for c in entry["candidates"]}
    assert candidates == {
        "probe/allow-ls": f"{pack}:{line_of(pack, '- id: allow-ls')}",
        "probe/deny-terraform-destroy": at,
    }
    assert report["at"] == candidates


def test_locations_are_the_same_whether_the_packs_come_from_the_cache_or_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = tmp_path / "probe.yaml"
    pack.write_text(PACK)
    monkeypatch.setenv("POLICY_DATA_DIR", str(tmp_path / "data"))
    args = ("--packs", str(pack), bash("terraform destroy"))

    compiled = explain_json(capsys, *args)  # a miss: compiled, then written to the cache
    assert list((tmp_path / "data" / "cache" / "packs").iterdir())
    cached = explain_json(capsys, *args)  # read back from the entry
    monkeypatch.setenv("POLICY_PACK_CACHE", "false")
    uncached = explain_json(capsys, *args)

    assert compiled["at"] == cached["at"] == uncached["at"]
    assert cached["at"] == {
        "probe/allow-ls": f"{pack}:{line_of(pack, '- id: allow-ls')}",
        "probe/deny-terraform-destroy": f"{pack}:{line_of(pack, '- id: deny-terraform-destroy')}",
    }


def test_a_builtin_is_named_by_the_line_of_its_key_in_builtins(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A pack of builtins only joins no stage of the chain: its builtins are located too.
    pack = tmp_path / "fetch.yaml"
    pack.write_text(
        textwrap.dedent(
            """\
            apiVersion: hookpolicy/v1
            kind: RulePack
            name: fetch
            builtins:
              tool_policy:
                applies_to: [web_fetch]
                deny: [web_fetch]
            """
        )
    )
    call = orjson.dumps({"tool": "WebFetch", "args": {"url": "https://example.com"}}).decode()
    report = explain_json(capsys, "--packs", str(pack), call)
    assert report["final"]["rule_ids"] == ["fetch/tool_policy"]  # type: ignore[index]
    assert report["at"] == {"fetch/tool_policy": f"{pack}:{line_of(pack, 'tool_policy:')}"}

    main(["eval", "--packs", str(pack), "--explain", call])
    out, _ = capsys.readouterr()
    assert f"(fetch/tool_policy at {pack}:{line_of(pack, 'tool_policy:')})" in out


def test_the_shipped_packs_are_located_relative_to_the_path_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    report = explain_json(capsys, "--packs", "rules/", bash("git push --force origin main"))
    line = line_of(RULES / "git.yaml", "- id: deny-force-push")
    assert report["at"]["git/deny-force-push"] == f"rules/git.yaml:{line}"  # type: ignore[index]
