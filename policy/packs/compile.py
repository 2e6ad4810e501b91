"""Rule packs -> compiled packs: every check a pack must pass before it runs.

The compiler reads a pack's validated model (`policy.packs.schema`) and checks
what the schema cannot say — actions valid at their point, `set:` targets, CEL
syntax and types at the expression's own line:col, variables and their cycles,
approval gates, builtins' limits — then builds the `CompiledPack` of
`policy.packs.runtime`, which is what runs on every call. Kept apart from the
runtime because it needs pydantic models and the type checker, which a pack
read back from the cache (policy.packs.cache) never loads.
"""

from __future__ import annotations

import graphlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from policy.aliases import AliasConflictError, AliasTable
from policy.model import POINTS, ApprovalGate
from policy.packs.cel import (
    UNPORTABLE,
    CelCompileError,
    CelEngine,
    Checker,
    whole_vars_offset,
)
from policy.packs.diagnostics import Diagnostic
from policy.packs.points import ACTION_POINTS, RESPOND_FIELDS, SET_TARGETS
from policy.packs.runtime import (
    APPROVAL_RULE_ID,
    CompiledPack,
    CompiledRule,
    is_glob,
    name_filter,
    target_type,
    var_references,
)

if TYPE_CHECKING:
    from policy.packs.load import LoadedPack
    from policy.packs.schema import Node, Rule

__all__ = ["approval_rule", "compile_packs", "rule_gate"]


def _offset_to_line_col(source: str, offset: int) -> tuple[int, int]:
    line = source.count("\n", 0, offset) + 1
    return line, offset - (source.rfind("\n", 0, offset) + 1) + 1


class _Compiler:
    """Checks one pack (schema is already valid) and builds its CompiledPack."""

    def __init__(
        self, loaded: LoadedPack, engine: CelEngine, checker: Checker, aliases: AliasTable
    ) -> None:
        self.loaded = loaded
        self.pack = loaded.model
        self.engine = engine
        self.checker = checker
        self.aliases = aliases
        self.diagnostics: list[Diagnostic] = []

    def error(
        self, node: Node, code: str, message: str, *field: str | int, key: bool = False
    ) -> None:
        doc = self.loaded.doc
        found = doc.key_mark((*node.path, *field)) if key and field else None
        mark = found or node.mark(*field)
        self.diagnostics.append(
            Diagnostic(self.loaded.doc.source, mark.line, mark.col, "error", code, message)
        )

    def error_at(
        self, path: tuple[str | int, ...], line: int, col: int, code: str, message: str
    ) -> None:
        mark = self.loaded.doc.locate(path, line, col) or self.loaded.doc.mark(path)
        line_no, col_no = (mark.line, mark.col) if mark else (1, 1)
        self.diagnostics.append(
            Diagnostic(self.loaded.doc.source, line_no, col_no, "error", code, message)
        )

    # -- CEL

    def check_expr(
        self,
        node: Node,
        field_path: tuple[str | int, ...],
        point: str,
        source: str,
        *,
        want: str | None,
        what: str,
    ) -> bool:
        path = (*node.path, *field_path)
        ok = True
        for name, offset in var_references(source):
            if name not in self.pack.variables:
                line, col = _offset_to_line_col(source, offset)
                known = ", ".join(sorted(self.pack.variables)) or "none declared"
                self.error_at(
                    path,
                    line,
                    col,
                    "undeclared-variable",
                    f"undeclared variable 'vars.{name}' (variables: {known})",
                )
                ok = False
        whole = whole_vars_offset(source)
        if whole is not None:
            line, col = _offset_to_line_col(source, whole)
            self.error_at(
                path,
                line,
                col,
                "whole-vars",
                f'{what}: read variables one by one, as vars.NAME or vars["NAME"]; '
                "`vars` as a whole map is not bound",
            )
            ok = False
        for match in UNPORTABLE.finditer(source):
            line, col = _offset_to_line_col(
                source, match.start(1) if match.group(1) else match.start()
            )
            self.error_at(
                path,
                line,
                col,
                "unportable-function",
                f"{what}: {match.group(1) or match.group(2) or 'quote'}() runs on "
                "cel-expr-python only; packs must run on both CEL engines"
                + (" (name the value as a pack variable)" if match.group(2) else ""),
            )
            ok = False
        result = self.checker.check(point, source, self.bound_variables(source))
        for issue in result.issues:
            code = "cel-undeclared" if "undeclared reference" in issue.message else "cel-error"
            self.error_at(path, issue.line, issue.col, code, f"{what}: {issue.message}")
            ok = False
        if (
            ok
            and want is not None
            and result.type_name.split("<", 1)[0] != want
            and not (want != "bool" and result.type_name == "dyn")
            and want != "any"
        ):
            code = "non-bool-condition" if what == "condition" else "wrong-expression-type"
            hint = (
                " (compare it, e.g. `... == true`)"
                if want == "bool" and result.type_name == "dyn"
                else ""
            )
            self.error_at(path, 1, 1, code, f"{what} has type {result.type_name}, not {want}{hint}")
            ok = False
        if ok and self.engine.name == "cel-python":
            try:
                self.engine.program(point, [source], [])
            except CelCompileError as exc:
                for issue in exc.issues:
                    self.error_at(
                        path,
                        issue.line,
                        issue.col,
                        "cel-error",
                        f"{what} ({self.engine.name}): {issue.message}",
                    )
                ok = False
        return ok

    # -- variables

    def bound_variables(self, source: str) -> dict[str, str]:
        """The pack variables `source` reads, with those they read, innermost first."""
        variables = self.pack.variables
        order: list[str] = []
        seen: set[str] = set()

        def visit(name: str, trail: tuple[str, ...]) -> None:
            if name in seen or name not in variables or name in trail:
                return
            for ref, _ in var_references(variables[name]):
                visit(ref, (*trail, name))
            seen.add(name)
            order.append(name)

        for name, _ in var_references(source):
            visit(name, ())
        return {name: variables[name] for name in order}

    def variables(self) -> dict[str, frozenset[str]]:
        graph: dict[str, frozenset[str]] = {}
        for name, source in self.pack.variables.items():
            graph[name] = frozenset(ref for ref, _ in var_references(source))
        sorter = graphlib.TopologicalSorter(graph)
        try:
            sorter.prepare()
        except graphlib.CycleError as exc:
            cycle = " -> ".join(exc.args[1])
            self.error(
                self.pack,
                "variable-cycle",
                f"variables refer to each other in a cycle: {cycle}",
                "variables",
                key=True,
            )
        return graph

    def points_using(self, graph: Mapping[str, frozenset[str]]) -> dict[str, set[str]]:
        used: dict[str, set[str]] = {name: set() for name in graph}
        for rule in self.pack.rules:
            sources = [rule.when or "", rule.message_expr or ""]
            sources += list((rule.set_ or {}).values()) + list((rule.respond or {}).values())
            stack = [name for s in sources for name, _ in var_references(s)]
            seen: set[str] = set()
            while stack:
                name = stack.pop()
                if name in seen or name not in graph:
                    continue
                seen.add(name)
                used[name].add(rule.on)
                stack.extend(graph[name])
        return used

    # -- builtins

    def check_builtins(self) -> None:
        """What the builtins' schema cannot say: limits notation, absolute workspaces."""
        config = self.pack.builtins
        policy = config.tool_policy
        if policy is not None:
            from policy.builtins.tool_policy import parse_limits

            for limit in policy.rate_limits:
                try:
                    parse_limits(limit.limit)
                except ValueError as exc:
                    self.error(limit, "bad-rate-limit", f"rate limit: {exc}", "limit")
        autonomy = config.autonomy
        if autonomy is not None:
            workspace = autonomy.workspace
            if workspace is not None and not workspace.startswith(("/", "~")):
                self.error(
                    autonomy,
                    "relative-workspace",
                    f"workspace {workspace!r} must be an absolute path (or start with ~)",
                    "workspace",
                )
            if autonomy.workspace_only and workspace is None:
                self.error(
                    autonomy,
                    "missing-workspace",
                    "workspace_only needs a workspace",
                    "workspace_only",
                )

    # -- rules

    def compile(self, *, partial: bool = False) -> CompiledPack | None:
        """The compiled pack; None when it has an error, unless `partial` (for lint: the
        pack built from the rules that compiled)."""
        pack = self.pack
        try:
            self.aliases = self.aliases.extend(pack.aliases)
        except AliasConflictError as exc:
            self.error(pack, "alias-conflict", str(exc), "aliases")
        self.check_builtins()
        graph = self.variables()
        for name, points in self.points_using(graph).items():
            for point in sorted(points) or ["before_tool"]:
                self.check_expr(
                    pack,
                    ("variables", name),
                    point,
                    pack.variables[name],
                    want=None,
                    what=f"variable {name}",
                )
        seen_ids: dict[str, Rule] = {}
        compiled: list[CompiledRule] = []
        for index, rule in enumerate(pack.rules):
            first = seen_ids.get(rule.id)
            if first is not None:
                self.error(
                    rule,
                    "duplicate-id",
                    f"duplicate rule id {rule.id!r} (first at line {first.mark('id').line})",
                    "id",
                )
                continue
            seen_ids[rule.id] = rule
            built = self.rule(index, rule)
            if built is not None:
                compiled.append(built)
        gate_rule = self.approval_rule(len(pack.rules))
        if gate_rule is not None:
            compiled.append(gate_rule)
        if not partial and any(d.severity == "error" for d in self.diagnostics):
            return None
        from policy.packs.load import pack_locations

        return CompiledPack(
            name=pack.name,
            priority=pack.priority,
            revision=pack.revision,
            digest=self.loaded.digest,
            on_error=pack.on_error,
            rules=compiled,
            engine=self.engine,
            var_sources=pack.variables,
            var_graph=graph,
            aliases=self.aliases,
            locations=pack_locations(self.loaded),
        )

    def rule(self, index: int, rule: Rule) -> CompiledRule | None:
        ok = True
        point = rule.on
        if point not in ACTION_POINTS[rule.action]:
            where = ", ".join(sorted(ACTION_POINTS[rule.action]))
            self.error(
                rule,
                "invalid-action",
                f"action {rule.action!r} is not valid at {point} (valid at: {where})",
                "action",
            )
            ok = False
        if rule.tools is not None and not POINTS[point].tool:
            self.error(
                rule,
                "invalid-filter",
                f"tools: applies to tool points only, not {point}",
                "tools",
                key=True,
            )
            ok = False
        if rule.action == "modify" and not rule.set_:
            self.error(rule, "missing-key", "a modify rule needs `set:`", "action")
            ok = False
        if rule.set_ and rule.action != "modify":
            self.error(rule, "invalid-key", "`set:` is only used by modify rules", "set", key=True)
            ok = False
        if rule.action == "respond" and not rule.respond:
            self.error(
                rule, "missing-key", "a respond rule needs `respond:` (for_llm, ...)", "action"
            )
            ok = False
        if rule.respond and rule.action != "respond":
            self.error(
                rule, "invalid-key", "`respond:` is only used by respond rules", "respond", key=True
            )
            ok = False
        ok &= self.check_gate(rule)
        if rule.when is not None:
            ok &= self.check_expr(rule, ("when",), point, rule.when, want="bool", what="condition")
        if rule.message_expr is not None:
            ok &= self.check_expr(
                rule,
                ("message_expr",),
                point,
                rule.message_expr,
                want="string",
                what="message_expr",
            )
        for target, source in (rule.set_ or {}).items():
            kind = self.set_target(rule, point, target)
            if kind is None:
                ok = False
                continue
            ok &= self.check_expr(
                rule, ("set", target), point, source, want=_cel_kind(kind), what=f"set {target}"
            )
        for name, source in (rule.respond or {}).items():
            if name not in RESPOND_FIELDS:
                self.error(
                    rule,
                    "invalid-key",
                    f"respond.{name}: unknown field (known: {', '.join(RESPOND_FIELDS)})",
                    "respond",
                    name,
                    key=True,
                )
                ok = False
                continue
            ok &= self.check_expr(
                rule,
                ("respond", name),
                point,
                source,
                want=_cel_kind(RESPOND_FIELDS[name]),
                what=f"respond {name}",
            )
        if not ok:
            return None
        deps = frozenset(name for name, _ in var_references(rule.when or ""))
        return CompiledRule(
            pack=self.pack.name,
            id=rule.id,
            index=index,
            point=point,
            action=rule.action,
            audit=(rule.enforcement or self.pack.enforcement) == "audit",
            tools=self.tool_patterns(rule.tools),
            senders=name_filter(rule.senders),
            channels=name_filter(rule.channels),
            sessions=name_filter(rule.sessions),
            condition=rule.when,
            message=rule.message or f"{rule.action} by rule {self.pack.name}/{rule.id}",
            message_expr=rule.message_expr,
            sets=tuple((rule.set_ or {}).items()),
            respond=tuple((rule.respond or {}).items()),
            var_deps=deps,
            model=rule,
            gate=rule_gate(self.pack.name, rule.id, rule)
            if rule.action == "ask" or rule.names_gate
            else None,
        )

    def check_gate(self, rule: Rule) -> bool:
        """`approvers:`, `timeout:`, `grants:` and `self_approval:` belong to a rule that
        sends a call to approval: `ask`, or a `respond` held until approved."""
        from policy.durations import parse_duration

        if not rule.names_gate:
            return True
        if rule.action not in ("ask", "respond") or rule.on != "before_tool":
            key = next(
                k
                for k in ("approvers", "timeout", "grants", "self_approval")
                if getattr(rule, k) is not None
            )
            self.error(
                rule,
                "invalid-key",
                f"`{key}:` names who approves a call: only for `ask` and `respond` rules "
                "at before_tool",
                key,
                key=True,
            )
            return False
        if rule.timeout is not None and parse_duration(rule.timeout) <= 0:
            self.error(rule, "invalid-value", "timeout: must be longer than 0", "timeout")
            return False
        return True

    def approval_rule(self, index: int) -> CompiledRule | None:
        """The `approval` builtin as a rule of its pack: its tools and `when:` are
        matched with the pack's rules, on the same facts; its gate is lifted by an
        `allow` rule that matches the call."""
        from policy.durations import parse_duration

        config = self.pack.builtins.approval
        if config is None:
            return None
        ok = True
        if config.when is not None:
            ok = self.check_expr(
                config, ("when",), "before_tool", config.when, want="bool", what="condition"
            )
        if config.timeout is not None and parse_duration(config.timeout) <= 0:
            self.error(config, "invalid-value", "timeout: must be longer than 0", "timeout")
            ok = False
        if not ok:
            return None
        return approval_rule(self.pack.name, index, config, self.tool_patterns(config.tools))

    def set_target(self, rule: Rule, point: str, target: str) -> str | None:
        kind = target_type(point, target) if _valid_target(point, target) else None
        if kind is None:
            known = ", ".join(SET_TARGETS[point])
            self.error(
                rule,
                "invalid-set-target",
                f"cannot set {target!r} at {point} (can set: {known})",
                "set",
                target,
                key=True,
            )
        return kind

    def tool_patterns(self, tools: list[str] | None) -> tuple[str, ...] | None:
        if tools is None:
            return None

        def canonical(pattern: str) -> str:
            negated = pattern.startswith("!")
            body = pattern[1:] if negated else pattern
            if not is_glob(body):
                body = self.aliases.canonical(body)
            return f"!{body}" if negated else body

        return tuple(canonical(p) for p in tools)


def rule_gate(pack: str, rule_id: str, rule: Any) -> ApprovalGate:
    """The gate an `ask` (or gated `respond`) rule puts on the calls it matches;
    unnamed fields take the approval builtin's defaults."""
    from policy.durations import parse_duration

    return ApprovalGate(
        source=f"{pack}/{rule_id}",
        pack=pack,
        approvers=tuple(rule.approvers or ()),
        timeout=None if rule.timeout is None else parse_duration(rule.timeout),
        grants=tuple(rule.grants or ("once",)),
        self_approval=bool(rule.self_approval),
        holds_respond=rule.action == "respond",
        message=rule.message or "",
    )


def approval_rule(
    pack: str, index: int, config: Any, tools: tuple[str, ...] | None
) -> CompiledRule:
    """The `approval` builtin of `pack` as one of its rules (see `CompiledPack._combine`
    in policy.packs.runtime)."""
    message = f"approval required by the approval builtin of pack {pack!r}"
    gate = ApprovalGate(
        source=f"{pack}/approval",
        pack=pack,
        approvers=tuple(config.approvers),
        timeout=config.timeout_seconds,
        grants=tuple(config.grants),
        self_approval=config.self_approval,
        max_denials=config.max_denials,
        exempt_by_allow=True,
        message=message,
    )
    when = config.when
    return CompiledRule(
        pack=pack,
        id=APPROVAL_RULE_ID,
        index=index,
        point="before_tool",
        action="ask",
        audit=False,
        tools=tools,
        senders=None,
        channels=None,
        sessions=None,
        condition=when,
        message=message,
        message_expr=None,
        sets=(),
        respond=(),
        var_deps=frozenset(name for name, _ in var_references(when or "")),
        gate=gate,
    )


def _valid_target(point: str, target: str) -> bool:
    targets = SET_TARGETS[point]
    if target in targets:
        return True
    parts = target.split(".")
    return any(f"{'.'.join(parts[:n])}.*" in targets for n in range(1, len(parts)))


def _cel_kind(kind: str) -> str:
    return {"string": "string", "bool": "bool", "map": "map", "any": "any"}[kind]


def compile_packs(
    packs: Sequence[LoadedPack],
    engine: CelEngine,
    aliases: AliasTable,
    checker: Checker | None = None,
    *,
    partial: bool = False,
) -> tuple[list[CompiledPack], list[Diagnostic], AliasTable]:
    """Compile packs; returns (compiled packs, diagnostics, alias table with pack aliases).

    Packs with errors are left out of the first list; callers that enforce must
    refuse to start when any diagnostic is an error. With `partial` (`policy check`)
    they are kept, built from the rules that compiled, so lint still sees them.
    """
    checker = checker or Checker()
    diagnostics: list[Diagnostic] = []
    names: dict[str, LoadedPack] = {}
    table = aliases
    for loaded in packs:
        first = names.get(loaded.name)
        if first is not None:
            from policy.packs.load import duplicate_pack

            diagnostics.append(duplicate_pack(loaded, first))
            continue
        names[loaded.name] = loaded
        try:
            table = table.extend(loaded.model.aliases)
        except AliasConflictError as exc:
            mark = loaded.model.mark("aliases")
            diagnostics.append(
                Diagnostic(
                    str(loaded.path), mark.line, mark.col, "error", "alias-conflict", str(exc)
                )
            )
    compiled: list[CompiledPack] = []
    for loaded in names.values():
        compiler = _Compiler(loaded, engine, checker, table)
        pack = compiler.compile(partial=partial)
        diagnostics.extend(compiler.diagnostics)
        if pack is not None:
            compiled.append(pack)
    return compiled, diagnostics, table
