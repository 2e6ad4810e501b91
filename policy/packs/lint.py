"""`policy check`: everything that stops a pack from loading, plus lint.

Errors (exit 1): YAML and schema errors, CEL syntax and type errors at the
expression's own line:col, undeclared variables, non-bool conditions, duplicate
ids, actions used at the wrong point, regexes that do not compile.

Warnings (errors with `--strict`): rules no call can reach, tool names and globs
that match no known tool, respond rules that skip an approval another pack asks for.
"""

from __future__ import annotations

import codecs
import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from os import PathLike

from policy.aliases import DEFAULT_ALIASES, AliasTable
from policy.packs.cel import Checker, get_engine
from policy.packs.compile import compile_packs
from policy.packs.diagnostics import Diagnostic
from policy.packs.load import LoadedPack, read_packs
from policy.packs.runtime import STRENGTH, CompiledPack, CompiledRule, is_glob
from policy.packs.schema import Rule

__all__ = ["CheckReport", "check_paths", "lint"]


@dataclass(frozen=True, slots=True)
class CheckReport:
    files: list[str]
    diagnostics: list[Diagnostic]

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")


def check_paths(
    paths: Iterable[str | PathLike[str]],
    *,
    cel_engine: str = "cel-expr-python",
    aliases: AliasTable = DEFAULT_ALIASES,
) -> CheckReport:
    """Load, compile and lint every pack under `paths` (PackError if a path is missing)."""
    loaded, diagnostics = read_packs(paths)
    files = sorted({str(p.path) for p in loaded} | {d.path for d in diagnostics})
    compiled, problems, table = compile_packs(loaded, get_engine(cel_engine), aliases, Checker())
    diagnostics.extend(problems)
    diagnostics.extend(lint(loaded, compiled, table))
    return CheckReport(files, sorted(set(diagnostics)))


# ----------------------------------------------------------------------- lint


def lint(
    loaded: Sequence[LoadedPack], compiled: Sequence[CompiledPack], aliases: AliasTable
) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    for source in loaded:
        out.extend(_regexes(source))
        out.extend(_unknown_builtin_tools(source, aliases))
    out.extend(_no_policy(loaded))
    for pack in compiled:
        out.extend(_unreachable(pack))
        out.extend(_unknown_tools(pack, aliases))
    out.extend(_respond_bypass(compiled))
    out.extend(_respond_on_gated_tools(loaded, compiled, aliases))
    return out


def _model(rule: CompiledRule) -> Rule:
    """The rule as written; lint only sees packs compiled from their files, which keep it."""
    if rule.model is None:
        raise ValueError(f"rule {rule.full_id} has no source model to lint")
    return rule.model


def _written(pack: CompiledPack) -> list[CompiledRule]:
    """The rules the pack's file spells out: not the `approval` builtin's own rule, which
    the builtin checks lint separately."""
    return [rule for rule in pack.rules if rule.model is not None]


def _at(
    rule: CompiledRule, code: str, message: str, severity: str = "warning", field: str = "id"
) -> Diagnostic:
    model = _model(rule)
    mark = model.mark(field)
    return Diagnostic(model.source, mark.line, mark.col, severity, code, message)  # type: ignore[arg-type]


# -- unreachable rules


def _covers(outer: Sequence[str] | None, inner: Sequence[str] | None) -> bool:
    """True when every name `inner` admits is admitted by `outer` (None = everything)."""
    if outer is None or ("*" in outer and not any(p.startswith("!") for p in outer)):
        return True
    if inner is None:
        return False
    if any(p.startswith("!") for p in (*outer, *inner)):
        return list(outer) == list(inner)
    from wcmatch import fnmatch as wfnmatch

    for pattern in inner:
        if is_glob(pattern):
            if pattern not in outer:
                return False
        elif not wfnmatch.fnmatch(pattern, list(outer), flags=wfnmatch.BRACE):
            return False
    return True


def _dominated(later: CompiledRule, earlier: CompiledRule) -> bool:
    """Can `earlier`, matching every call `later` sees, keep `later` from ever acting?"""
    if later.action == "log" or later.audit or earlier.audit or earlier.action == "log":
        return False
    if later.action == "allow":
        return earlier.strength >= STRENGTH["ask"]
    if earlier.strength > later.strength:
        return True
    return (
        earlier.strength == later.strength
        and earlier.index < later.index
        and earlier.action in ("deny", "respond", "abort_turn", "hard_abort")
    )


def _unreachable(pack: CompiledPack) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    rules = _written(pack)
    unconditional = [r for r in rules if r.condition is None and not r.audit]
    for later in rules:
        for earlier in unconditional:
            if earlier is later or earlier.point != later.point:
                continue
            if not _dominated(later, earlier):
                continue
            scopes = (
                (earlier.tools, later.tools),
                (_model(earlier).senders, _model(later).senders),
                (_model(earlier).channels, _model(later).channels),
                (_model(earlier).sessions, _model(later).sessions),
            )
            if all(_covers(outer, inner) for outer, inner in scopes):
                line = _model(earlier).mark("id").line
                out.append(
                    _at(
                        later,
                        "unreachable-rule",
                        f"rule {later.id!r} can never act: rule {earlier.id!r} (line {line}) "
                        f"always matches first with {earlier.action!r} on all of its calls",
                    )
                )
                break
    return out


# -- tool names


def _tool_problem(raw: str, aliases: AliasTable, known: list[str]) -> str | None:
    """Why a tool name or glob names no tool this policy knows, or None."""
    pattern = raw[1:] if raw.startswith("!") else raw
    if pattern == "*":
        return None
    if is_glob(pattern):
        from wcmatch import fnmatch as wfnmatch

        if any(wfnmatch.fnmatch(name, pattern, flags=wfnmatch.BRACE) for name in known):
            return None
        return f"tool glob {pattern!r} matches no known tool or alias"
    if aliases.knows(pattern):
        return None
    guess = difflib.get_close_matches(pattern, known, n=1, cutoff=0.6)
    hint = f" (did you mean {guess[0]!r}?)" if guess else ""
    return (
        f"tool {pattern!r} is no known tool or alias{hint}; declare custom tools "
        f"in the pack's aliases (e.g. `aliases: {{{pattern}: {pattern}}}`)"
    )


def _known_names(aliases: AliasTable) -> list[str]:
    return sorted({name for c in aliases.canonical_names for name in aliases.spellings(c)})


def _unknown_tools(pack: CompiledPack, aliases: AliasTable) -> list[Diagnostic]:
    known = _known_names(aliases)
    out: list[Diagnostic] = []
    for rule in _written(pack):
        for index, raw in enumerate(_model(rule).tools or ()):
            message = _tool_problem(raw, aliases, known)
            if message is None:
                continue
            mark = _model(rule).mark("tools", index)
            out.append(
                Diagnostic(
                    _model(rule).source, mark.line, mark.col, "warning", "unknown-tool", message
                )
            )
    return out


def _unknown_builtin_tools(source: LoadedPack, aliases: AliasTable) -> list[Diagnostic]:
    """Tool names in `builtins:` are checked as rules' are: `approval: {tools: [bassh]}`
    would otherwise switch the gate off without a word."""
    from policy.pack_node import Node

    builtins = source.model.builtins
    table = aliases.extend(source.model.aliases) if source.model.aliases else aliases
    known = _known_names(table)
    found: list[tuple[Node, tuple[str | int, ...], str]] = []

    def each(node: Node | None, field: str, values: Sequence[str] | None) -> None:
        if node is None or values is None:
            return
        found.extend((node, (field, index), value) for index, value in enumerate(values))

    if builtins.approval is not None:
        each(builtins.approval, "tools", builtins.approval.tools)
    policy = builtins.tool_policy
    if policy is not None:
        each(policy, "applies_to", policy.applies_to)
        each(policy, "allow", policy.allow)
        each(policy, "deny", policy.deny)
        for limit in policy.rate_limits:
            each(limit, "tools", limit.tools)
    contracts = builtins.contract_scope
    if contracts is not None:
        for contract in contracts.contracts:
            each(contract, "tools", contract.tools)
            for scope in contract.scopes:
                found.append((scope, ("tool",), scope.tool))
        found.extend((contracts, ("path_args", t), t) for t in contracts.path_args if t != "*")
    autonomy = builtins.autonomy
    if autonomy is not None:
        each(autonomy.shell, "tools", autonomy.shell.tools)
        each(autonomy, "mutating_tools", autonomy.mutating_tools)
        each(autonomy, "readonly_tools", autonomy.readonly_tools)
        found.extend((autonomy, ("action_tools", t), t) for t in autonomy.action_tools)
        found.extend((autonomy, ("path_args", t), t) for t in autonomy.path_args if t != "*")
    out: list[Diagnostic] = []
    for node, where, value in found:
        message = _tool_problem(value, table, known)
        if message is None:
            continue
        if where[0] in ("path_args", "action_tools"):  # a key of a mapping
            mark = node._doc.key_mark((*node.path, *where)) if node._doc else None
            mark = mark or node.mark(where[0])
        else:
            mark = node.mark(*where)
        out.append(Diagnostic(node.source, mark.line, mark.col, "warning", "unknown-tool", message))
    return out


def _no_policy(loaded: Sequence[LoadedPack]) -> list[Diagnostic]:
    """Packs that, all together, configure no rule and no builtin: a hook on them would
    enforce nothing (and every adapter refuses to run on them)."""
    if not loaded:
        return []
    for source in loaded:
        builtins = source.model.builtins
        if source.model.rules or any(
            getattr(builtins, name) is not None for name in type(builtins).model_fields
        ):
            return []
    first = loaded[0]
    return [
        Diagnostic(
            first.doc.source,
            1,
            1,
            "error",
            "no-policy",
            "these packs configure no rule and no builtin: a hook on them enforces nothing "
            "(add rules, or builtins such as approval or tool_policy)",
        )
    ]


# -- regexes

_REGEX_CALL = re.compile(
    r"""(?P<call>\bregex\.matches|\.matches|\bmatches|\bregex\.replace)\s*\(\s*(?:[^,()"']+,\s*)?"""
    r"""(?P<raw>[rR]?)(?P<lit>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')"""
)
_RE2_UNSUPPORTED = re.compile(r"\(\?[=!]|\(\?<[=!]|\\[1-9]")


def _decode(literal: str, raw: bool) -> str:
    body = literal[1:-1]
    if raw:
        return body
    try:
        return codecs.decode(body, "unicode_escape")
    except UnicodeDecodeError:
        return body


def _regexes(pack: LoadedPack) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    doc = pack.doc
    model = pack.model
    for index, rule in enumerate(model.rules):
        sources: list[tuple[tuple[str | int, ...], str]] = []
        if rule.when:
            sources.append((("rules", index, "when"), rule.when))
        if rule.message_expr:
            sources.append((("rules", index, "message_expr"), rule.message_expr))
        for target, src in (rule.set_ or {}).items():
            sources.append((("rules", index, "set", target), src))
        for name, src in (rule.respond or {}).items():
            sources.append((("rules", index, "respond", name), src))
        for path, source in sources:
            for match in _REGEX_CALL.finditer(source):
                pattern = _decode(match["lit"], bool(match["raw"]))
                problem = None
                try:
                    re.compile(pattern)
                except re.error as exc:
                    problem = f"regular expression {pattern!r} does not compile: {exc}"
                if problem is None and not match["call"].startswith("regex."):
                    unsupported = _RE2_UNSUPPORTED.search(pattern)
                    if unsupported:
                        problem = (
                            f"regular expression {pattern!r} uses {unsupported.group(0)!r}, "
                            "which RE2 (CEL's matches) does not support"
                        )
                if problem:
                    offset = match.start("lit")
                    line = source.count("\n", 0, offset) + 1
                    col = offset - (source.rfind("\n", 0, offset) + 1) + 1
                    mark = doc.locate(path, line, col) or doc.mark(path)
                    where = (mark.line, mark.col) if mark else (1, 1)
                    out.append(
                        Diagnostic(doc.source, where[0], where[1], "error", "bad-regex", problem)
                    )
    return out


# -- respond bypassing approval


def _respond_bypass(packs: Sequence[CompiledPack]) -> list[Diagnostic]:
    """A respond rule skips approval: an `ask` in another pack on the same tools (before
    or after it in the chain) is answered without a person unless respond_guard says so."""
    order = sorted(packs, key=lambda p: (p.priority, p.name))
    out: list[Diagnostic] = []
    for position, pack in enumerate(order):
        later = order[:position] + order[position + 1 :]
        for rule in _written(pack):
            if rule.action != "respond" or rule.audit or rule.gate is not None:
                continue  # a respond rule that names approvers is held for them
            for other in later:
                asking = next(
                    (
                        r
                        for r in _written(other)
                        if r.action == "ask"
                        and r.point == "before_tool"
                        and (_covers(r.tools, rule.tools) or _covers(rule.tools, r.tools))
                    ),
                    None,
                )
                if asking is not None:
                    out.append(
                        _at(
                            rule,
                            "respond-bypasses-approval",
                            f"respond rule {rule.id!r} answers calls that rule "
                            f"{asking.full_id!r} sends to approval; a respond skips approval "
                            "(see respond_guard)",
                        )
                    )
                    break
    return out


def _respond_on_gated_tools(
    loaded: Sequence[LoadedPack], compiled: Sequence[CompiledPack], aliases: AliasTable
) -> list[Diagnostic]:
    """A respond rule on a tool an `approval` builtin gates: the respond skips approval."""
    gates = [
        (
            source.name,
            [
                t if is_glob(t) else aliases.canonical(t)
                for t in source.model.builtins.approval.tools
            ],
        )
        for source in loaded
        if source.model.builtins.approval is not None
    ]
    out: list[Diagnostic] = []
    if not gates:
        return out
    for pack in compiled:
        for rule in _written(pack):
            if rule.action != "respond" or rule.audit or rule.point != "before_tool":
                continue
            if rule.gate is not None:
                continue  # held for its own approvers
            for gate_pack, tools in gates:
                if _covers(tools, rule.tools) or _covers(rule.tools, tools):
                    out.append(
                        _at(
                            rule,
                            "respond-bypasses-approval",
                            f"respond rule {rule.id!r} answers calls the approval builtin of "
                            f"pack {gate_pack!r} gates ({', '.join(tools)}); a respond skips "
                            "approval (see respond_guard)",
                        )
                    )
                    break
    return out
