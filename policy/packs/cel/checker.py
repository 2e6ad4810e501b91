"""Compile-time checks of pack expressions, whatever engine evaluates them.

Every expression is type-checked with cel-expr-python when a pack loads, so nothing
loads that cannot be evaluated; an expression that reads the call's facts is
checked where they are message types (`policy.packs.cel.types`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from policy.packs.cel.expr import _expr_envs, _ExprEnvs, _named_vars, _typed_envs
from policy.packs.cel.interface import CelCompileError, CelIssue, referenced_names

__all__ = ["CheckResult", "Checker"]


class CheckResult(NamedTuple):
    issues: list[CelIssue]
    type_name: str


class Checker:
    """Compile-time checks with cel-expr-python, whatever engine evaluates.

    An expression that reads the call's facts (`commands`, `access`,
    `shell.commands(...)`) is checked where they are typed, so a field that does
    not exist is an error at its own line:col rather than a failure at run time."""

    def __init__(self) -> None:
        self._envs = _expr_envs()

    def check(self, point: str, source: str, bound: Mapping[str, str] | None = None) -> CheckResult:
        """Check `source` at `point`. `bound` are the pack variables it reads (name ->
        source, in dependency order): their facts' types flow into the check."""
        envs = _typed_envs() if _reads_facts(source, bound) else self._envs
        try:
            expr = envs.compile(point, source)
        except CelCompileError as exc:
            return CheckResult(exc.issues, "")
        if bound:
            issues = _field_issues(envs, point, source, bound)
            if issues:
                return CheckResult(issues, "")
        return CheckResult([], _type_name(expr.return_type()))


_FACT_NAMES = frozenset({"commands", "access", "shell"})


def _reads_facts(source: str, bound: Mapping[str, str] | None) -> bool:
    sources = [source, *(bound.values() if bound else ())]
    return any(referenced_names(s) & _FACT_NAMES for s in sources)


def _field_issues(
    envs: _ExprEnvs, point: str, source: str, bound: Mapping[str, str]
) -> list[CelIssue]:
    """Misspelt fields read through pack variables (`vars.cmds.exists(c, c.wrtes)`):
    the expression is checked again with each variable bound to its own typed source,
    and only unknown fields are reported, at their place in `source`."""
    named = _named_vars(source)
    if named is None or len(named) != len(source):
        return []
    prefix = ""
    closing = ""
    for name, var_source in bound.items():
        var_named = _named_vars(var_source)
        if var_named is None:
            return []
        prefix += f"cel.bind(_var_{name}, ({var_named}), "
        closing += ")"
    wrapped = prefix + "\n" + named + "\n" + closing
    try:
        envs.compile(point, wrapped)
    except CelCompileError as exc:
        shift = 1 + prefix.count("\n")
        return [
            CelIssue(max(1, issue.line - shift), issue.col, issue.message)
            for issue in exc.issues
            if "undefined field" in issue.message and issue.line > shift
        ]
    return []


def _type_name(cel_type: Any) -> str:
    name = str(cel_type.name()).lower()
    return {"string": "string", "bool": "bool", "dyn": "dyn"}.get(name, name)
