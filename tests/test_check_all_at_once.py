"""`policy check` reports every problem of every layer in one run.

A YAML error does not hide the schema, a schema error does not hide the CEL of the
other rules, a CEL error does not hide the lints: one run, every mistake, each at its
file:line:col — with a snippet and a caret on a terminal, and a hint where the checker
can tell what was meant. Unknown tool names are errors (`--lenient`: warnings).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson

POLICY = str(Path(sys.executable).with_name("policy"))
ROOT = Path(__file__).resolve().parent.parent
HEAD = "apiVersion: hookpolicy/v1\nkind: RulePack\n"


def check(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    return subprocess.run(
        [POLICY, "check", *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120
    )


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_one_run_reports_the_schema_the_cel_the_builtins_the_lint_and_the_tests(
    tmp_path: Path,
) -> None:
    pack = write(
        tmp_path / "everything.yaml",
        HEAD + "name: everything\n"
        "builtins:\n"
        "  tool_policy:\n"
        "    applies_to: [WebFech]\n"  # 6: a typo that would switch the limit off
        "    rate_limits: [{tools: [WebFetch], limit: 20/minute}]\n"
        "rules:\n"
        "  - id: bad-schema\n"
        "    action: nuke\n"  # 10: schema
        "  - id: bad-cel\n"
        "    tools: [Bash]\n"
        '    when: commands.exists(c, c.nmae == "terraform")\n'  # 13: CEL
        "    action: deny\n"
        "  - id: no-bash\n"
        "    tools: [Bash]\n"
        "    action: deny\n"
        "  - id: allow-ls\n"  # 18: unreachable
        "    tools: [Bash]\n"
        '    when: args.command == "ls"\n'
        "    action: allow\n"
        "tests:\n"
        "  - name: a typo in a test\n"
        "    call: {tool: Bsh, args: {command: ls}}\n"  # 24: the test entry
        "    expect: {action: deny}\n",
    )
    done = check(str(pack))
    assert done.returncode == 1
    rows = done.stdout.splitlines()
    expected = [
        (6, 18, "error", "tool 'WebFech' is no known tool or alias (did you mean 'WebFetch'?)"),
        (10, 13, "error", "rules.0.action: Input should be"),
        (13, 31, "error", "undefined field 'nmae' not found in struct"),
        (18, 9, "warning", "rule 'allow-ls' can never act: rule 'no-bash'"),
        (24, 18, "error", "tool 'Bsh' is no known tool"),
    ]
    for line, col, severity, message in expected:
        prefix = f"{pack}:{line}:{col}: {severity}: "
        assert any(r.startswith(prefix) and message in r for r in rows), (prefix, done.stdout)
    assert "(did you mean `name`?)" in done.stdout


def test_every_document_is_read_past_a_broken_one(tmp_path: Path) -> None:
    pack = write(
        tmp_path / "multi.yaml",
        HEAD + "name: first\n"
        "rules: [\n"  # 4: unclosed
        "---\n" + HEAD + "name: second\n"
        "priority: high\n"  # 9: schema
        "rules:\n"
        "  - id: r\n"
        "    tools: [bash]\n"
        "    when: tol == 'x'\n"  # 13: CEL, with a hint
        "    action: deny\n"
        "    action: allow\n",  # 15: duplicate key
    )
    out = check(str(pack)).stdout
    assert f"{pack}:5:1: error: while parsing a flow node" in out
    assert f"{pack}:6:1: error: a pack file holds one pack, this one has 2" in out
    assert f"{pack}:9:11: error: priority: Input should be a valid integer" in out
    assert f"{pack}:13:11: error: condition: undeclared reference to 'tol'" in out
    assert "(did you mean `tool`?)" in out
    assert f"{pack}:15:5: error: duplicate key 'action'" in out


def test_cel_errors_say_what_was_meant(tmp_path: Path) -> None:
    pack = write(
        tmp_path / "hints.yaml",
        HEAD + "name: hints\n"
        "rules:\n"
        "  - id: escape\n"
        "    tools: [bash]\n"
        "    when: args.command.matches('\\w+')\n"
        "    action: deny\n"
        "  - id: contains\n"
        "    tools: [bash]\n"
        '    when: commands.exists(c, c.args contains "apply")\n'
        "    action: deny\n"
        "  - id: member\n"
        "    tools: [bash]\n"
        "    when: args.command.startwith('rm')\n"
        "    action: deny\n"
        "  - id: namespace\n"
        "    tools: [bash]\n"
        "    when: path.withn(cwd, '/srv')\n"
        "    action: deny\n",
    )
    out = check(str(pack)).stdout
    assert "for a regular expression write a raw string, r'\\w+'" in out
    assert 'write `"apply" in c.args` for a list' in out
    assert "(did you mean `startsWith`?)" in out
    assert "did you mean `path.within`?" in out


def test_conditions_that_fold_to_a_constant_are_flagged(tmp_path: Path) -> None:
    pack = write(
        tmp_path / "constant.yaml",
        HEAD + "name: constant\n"
        "rules:\n"
        "  - id: always\n"
        "    tools: [bash]\n"
        '    when: \'"a" == "a"\'\n'
        "    action: deny\n"
        "  - id: never\n"
        "    tools: [read_file]\n"
        "    when: 1 == 2\n"
        "    action: deny\n"
        "  - id: written-as-meant\n"
        "    tools: [write_file]\n"
        "    when: 'true'\n"
        "    action: deny\n",
    )
    done = check(str(pack))
    assert done.returncode == 0
    assert (
        f"{pack}:7:11: warning: condition of rule 'always' reads nothing of the call and is always true"
        in done.stdout
    )
    assert f"{pack}:11:11: warning: condition of rule 'never'" in done.stdout
    assert "'written-as-meant'" not in done.stdout
    assert check("--strict", str(pack)).returncode == 1


def test_an_allow_and_a_deny_on_the_same_condition_across_packs(tmp_path: Path) -> None:
    write(
        tmp_path / "a.yaml",
        HEAD + "name: a\n"
        "rules:\n"
        "  - id: let-fetch\n"
        "    tools: [web_fetch]\n"
        '    when: args.url.startsWith("https://docs.")\n'
        "    action: allow\n",
    )
    write(
        tmp_path / "b.yaml",
        HEAD + "name: b\n"
        "rules:\n"
        "  - id: stop-fetch\n"
        "    tools: [web_fetch, web_search]\n"
        '    when: args.url.startsWith( "https://docs." )\n'
        "    action: deny\n",
    )
    out = check(str(tmp_path)).stdout
    assert (
        f"{tmp_path / 'a.yaml'}:5:9: warning: allow rule 'a/let-fetch' and deny rule "
        f"'b/stop-fetch' ({tmp_path / 'b.yaml'}:5)"
    ) in out
    assert "[conflicting-rules]" in out


def test_unknown_tools_are_errors_unless_lenient_and_custom_tools_are_declared(
    tmp_path: Path,
) -> None:
    typo = write(
        tmp_path / "typo.yaml",
        HEAD + "name: typo\nrules:\n  - id: r\n    tools: [webfetch, Fetch]\n    action: deny\n",
    )
    done = check(str(typo))
    assert done.returncode == 1
    assert f"{typo}:6:13: error: tool 'webfetch' is no known tool or alias" in done.stdout
    lenient = check("--lenient", str(typo))
    assert lenient.returncode == 0
    assert f"{typo}:6:13: warning: tool 'webfetch'" in lenient.stdout

    # DESIGN's own example: a glob names a family of custom tools, MCP tools are a known
    # family, and a custom tool such as `deploy` is declared in the pack's aliases
    declared = write(
        tmp_path / "declared.yaml",
        HEAD + "name: declared\n"
        "aliases: {deploy: deploy, semantic_kernel: semantic_kernel, git: git}\n"
        "builtins:\n"
        "  autonomy:\n"
        "    mode: supervised\n"
        "    workspace: /srv/work\n"
        "    mutating_tools: [deploy]\n"
        "    path_args: {git: cwd}\n"
        "  tool_policy:\n"
        '    applies_to: ["sk_*", "semantic_kernel"]\n'
        '    allow: ["sk_*", "semantic_kernel"]\n'
        '    deny: ["sk_delete_*"]\n'
        '    rate_limits: [{tools: "sk_search_*", limit: "30/minute"}]\n'
        "rules:\n"
        "  - id: no-issues\n"
        "    tools: [mcp__github__create_issue]\n"
        "    action: deny\n",
    )
    done = check("--strict", str(declared))
    assert done.returncode == 0, done.stdout


def test_snippets_put_a_caret_under_the_column(tmp_path: Path) -> None:
    pack = write(
        tmp_path / "caret.yaml",
        HEAD + "name: caret\n"
        "rules:\n"
        "  - id: r\n"
        "    tools: [bash]\n"
        "    when: size(args) > 0 && bogus\n"
        "    action: deny\n",
    )
    plain = check(str(pack)).stdout  # not a terminal: one line per problem
    assert plain.splitlines()[0].startswith(f"{pack}:7:29: error: ")
    assert len(plain.splitlines()) == 2
    shown = check("--snippets", str(pack)).stdout.splitlines()
    assert shown[1:4] == [
        "  |",
        "7 |     when: size(args) > 0 && bogus",
        "  |                             ^",
    ]


def test_sarif_locations_are_relative_to_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    packs = tmp_path / "policies"
    packs.mkdir()
    write(
        packs / "p.yaml", HEAD + "name: p\nrules:\n  - id: r\n    tools: [Bahs]\n    action: deny\n"
    )
    sarif = orjson.loads(check("--format", "sarif", "policies", cwd=packs.parent).stdout)
    found = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert found["artifactLocation"] == {"uri": "policies/p.yaml", "uriBaseId": "%SRCROOT%"}
    # from a subdirectory, still relative to the root that holds .git
    sarif = orjson.loads(check("--format", "sarif", "p.yaml", cwd=packs).stdout)
    found = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
    assert found["artifactLocation"]["uri"] == "policies/p.yaml"
    github = check("--format", "github", "p.yaml", cwd=packs).stdout
    assert github.startswith("::error file=p.yaml,line=6,col=13,title=unknown-tool::")
