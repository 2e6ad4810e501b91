"""`policy init`: a team's first pack, its tests, and the CI that gates it.

What a security team needs on day one, in the directory it runs in: a pack that
shows each kind of rule (a deny, an approval by named people, a per-sender rate
limit, a redaction of tool output) with a test for each, a GitHub Actions workflow
that checks and tests it on every push, and a pre-commit configuration for the same
checks before a commit. Nothing is overwritten: a file that exists stops the command
before anything is written (exit 2, naming it).
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from policy.cli._output import error

__all__ = ["files_for", "run"]

_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")

_PACK = """\
# The {name} pack: what this team's agents may do, beside the shipped rules.
#
# Each rule is one kind: a deny, an approval by named people, a rate limit (a
# builtin), a redaction of what a tool returned. Its tests below run with
# `policy test {packs_dir}/` (and `--with` the shipped rules, to test them together).
apiVersion: hookpolicy/v1
kind: RulePack
name: {name}
revision: "1"

builtins:
  tool_policy:
    applies_to: [web_fetch]
    rate_limits:
      - {{tools: [web_fetch], limit: "20/minute"}}

rules:
  - id: no-terraform-destroy
    tools: [bash]
    when: 'commands.exists(c, c.name in ["terraform", "tofu"] && "destroy" in c.args)'
    action: deny
    message: terraform destroy is run by people, not agents

  - id: prod-apply-needs-secops
    tools: [bash]
    when: >-
      commands.exists(c, c.name == "kubectl" && "apply" in c.args
        && c.args.exists(a, a == "--context=prod" || a == "prod"))
    action: ask
    approvers: ["secops-*"]
    timeout: 10m
    message: kubectl apply on the prod context needs a secops approval

  - id: redact-github-tokens
    on: after_tool
    when: regex.matches(result.for_llm, "gh[pousr]_[A-Za-z0-9]{{36,}}")
    action: modify
    set:
      result.for_llm: >-
        regex.replace(result.for_llm, "gh[pousr]_[A-Za-z0-9]{{36,}}", "gh*_[redacted]")

tests:
  - name: terraform destroy is denied
    call: {{tool: Bash, args: {{command: "terraform destroy -auto-approve"}}}}
    expect: {{action: deny, rule: no-terraform-destroy}}
  - name: terraform plan is not this pack's business
    call: {{tool: Bash, args: {{command: "terraform plan"}}}}
    expect: {{action: continue}}
  - name: kubectl apply on prod waits for secops
    call: {{tool: Bash, args: {{command: "kubectl apply --context=prod -f app.yaml"}}}}
    expect: {{action: ask, rule: prod-apply-needs-secops, approvers: ["secops-*"]}}
  - name: kubectl apply on staging does not
    call: {{tool: Bash, args: {{command: "kubectl apply --context=staging -f app.yaml"}}}}
    expect: {{action: continue, approval: false}}
  - name: a GitHub token in a tool's output is redacted
    on: after_tool
    call: {{tool: Bash, args: {{command: "cat .env"}}}}
    result: {{for_llm: "GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789AB"}}
    expect: {{action: modify, rule: redact-github-tokens, result: "GITHUB_TOKEN=gh*_[redacted]"}}
  - name: a web fetch within the budget is admitted
    call: {{tool: WebFetch, args: {{url: "https://example.com"}}, sender: alice}}
    expect: {{action: continue}}
  - name: the 21st web fetch of a sender in a minute is refused
    sender: alice
    sequence:
      - call: {{tool: WebFetch, args: {{url: "https://example.com"}}}}
        repeat: 20
        expect: {{action: continue}}
      - call: {{tool: WebFetch, args: {{url: "https://example.com"}}}}
        expect: {{action: deny, rule: tool_policy, reason: "rate limit 20/minute"}}
"""

_WORKFLOW = """\
# Check and test the policy packs on every push and pull request (made by `policy init`).
#
# hookpolicy is installed from where your organisation keeps it: set the repository
# variable HOOKPOLICY_PIP to a pip requirement — a git URL
# (git+https://github.com/ORG/hookpolicy@v0.1.0) or a wheel your runners can reach.
name: policy
on:
  push:
  pull_request:
permissions:
  contents: read
  security-events: write
jobs:
  policy:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: install hookpolicy
        run: python -m pip install "${{{{ vars.HOOKPOLICY_PIP || 'hookpolicy' }}}}"
      - name: check
        run: policy check --strict --format github {packs_dir}/
      - name: check (SARIF for code scanning)
        if: always()
        run: policy check --format sarif {packs_dir}/ > policy.sarif || true
      - name: upload SARIF
        if: always()
        uses: github/codeql-action/upload-sarif@v3
        with:
          sarif_file: policy.sarif
      - name: test
        run: policy test {packs_dir}/ --coverage --threshold 100 --format github
"""

_PRE_COMMIT = """\
# Run the same checks before each commit (made by `policy init`): `pre-commit install`.
repos:
  - repo: local
    hooks:
      - id: policy-check
        name: policy check
        entry: policy check --strict
        language: system
        files: ^{packs_dir}/.*\\.ya?ml$
        pass_filenames: false
        args: [{packs_dir}/]
      - id: policy-test
        name: policy test
        entry: policy test
        language: system
        files: ^{packs_dir}/.*\\.ya?ml$
        pass_filenames: false
        args: [{packs_dir}/]
"""


def files_for(name: str, packs_dir: str = "packs") -> dict[str, str]:
    """What `policy init` writes, by path relative to the directory it runs in."""
    values = {"name": name, "packs_dir": packs_dir}
    return {
        f"{packs_dir}/{name}.yaml": _PACK.format(**values),
        ".github/workflows/policy.yml": _WORKFLOW.format(**values),
        ".pre-commit-config.yaml": _PRE_COMMIT.format(**values),
    }


def _refusal(root: Path, relative: str) -> str | None:
    """Why `relative` may not be written under `root`: it exists (a dangling link too),
    or a directory on the way is a symbolic link (the file would land outside `root`)."""
    target = root / relative
    if os.path.lexists(target):
        return f"{target}: exists; policy init writes nothing over existing files"
    for parent in Path(relative).parents:
        if parent != Path(".") and (root / parent).is_symlink():
            return f"{root / parent}: a symbolic link; policy init writes only inside {root}"
    return None


def run(args: argparse.Namespace) -> int:
    name: str = args.name
    if not _NAME.fullmatch(name):
        error(f"--name {name!r}: a pack name is lower case letters, digits, '_', '.', '-'")
        return 2
    root = Path(args.directory)
    files = files_for(name)
    for relative in files:
        refusal = _refusal(root, relative)
        if refusal is not None:
            error(refusal)
            return 2
    try:
        for relative, text in files.items():
            target = root / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("x", encoding="utf-8") as out:  # never over a file made meanwhile
                out.write(text)
            print(f"wrote {target}")
    except OSError as exc:
        error(f"{exc.filename or root}: {exc.strerror or exc}")
        return 2
    print(
        f"next: policy check packs/ && policy test packs/ --coverage "
        f"(in {root}); commit, and set HOOKPOLICY_PIP for the workflow"
    )
    return 0
