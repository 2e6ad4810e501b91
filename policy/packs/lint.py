"""`policy check`: everything that stops a pack from loading, plus lint — all in one run.

Every layer is checked however the others went: every YAML document, every schema
error, the CEL of every rule that is well formed (a pack with schema errors is
checked with the offending parts left out, policy.packs.load), the builtins, and
the lints of every rule that compiled.

Errors (exit 1): YAML and schema errors, CEL syntax and type errors at the
expression's own line:col, undeclared variables, non-bool conditions, duplicate
ids, actions used at the wrong point, regexes that do not compile, and tool names
that name no known tool (a warning with `lenient`: a misspelt name in `tools:` or
`applies_to:` silently switches a rule or a rate limit off).

Warnings (errors with `--strict`): rules no call can reach, conditions that fold to
a constant, an allow and a deny on the same condition, respond rules that skip an
approval another pack asks for.
"""

from __future__ import annotations

import codecs
import difflib
import re
from collections.abc import Iterable, Sequence
from os import PathLike

from policy._lazy_dataclass import dataclass, field
from policy.aliases import DEFAULT_ALIASES, AliasTable
from policy.packs.cel import Checker, get_engine
from policy.packs.compile import compile_packs
from policy.packs.diagnostics import Diagnostic
from policy.packs.load import LoadedPack, discover, read_pack_all
from policy.packs.runtime import STRENGTH, CompiledPack, CompiledRule, is_glob
from policy.packs.schema import Rule

__all__ = ["CheckReport", "check_paths", "lint", "unknown_tool"]


@dataclass(frozen=True, slots=True)
class CheckReport:
    files: list[str]
    diagnostics: list[Diagnostic]
    #: The packs read (salvaged where they have schema errors): for checks that live
    #: above this layer, such as the static lint of their `tests:` (policy.pack_tests).
    packs: list[LoadedPack] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")


def check_paths(
    paths: Iterable[str | PathLike[str]],
    *,
    cel_engine: str = "native",
    aliases: AliasTable = DEFAULT_ALIASES,
    lenient: bool = False,
) -> CheckReport:
    """Read, compile and lint every pack under `paths`, reporting every problem of
    every layer at once (PackError if a path is missing). `lenient`: a tool name no
    pack declares is a warning, not an error."""
    loaded: list[LoadedPack] = []
    diagnostics: list[Diagnostic] = []
    files: set[str] = set()
    for path in discover(paths):
        if path.stem.endswith("_test"):
            continue  # a test file named on the command line: policy.pack_tests checks it
        files.add(str(path))
        packs, found = read_pack_all(path)
        loaded.extend(packs)
        diagnostics.extend(found)
    compiled, problems, table = compile_packs(
        loaded, get_engine(cel_engine), aliases, Checker(), partial=True
    )
    # a pack read with schema errors has parts left out: whether the packs configure
    # anything at all is only known of packs read whole
    whole = not any(d.severity == "error" for d in diagnostics)
    diagnostics.extend(problems)
    diagnostics.extend(lint(loaded, compiled, table, lenient=lenient, whole=whole))
    return CheckReport(sorted(files), sorted(set(diagnostics)), loaded)


# ----------------------------------------------------------------------- lint


def lint(
    loaded: Sequence[LoadedPack],
    compiled: Sequence[CompiledPack],
    aliases: AliasTable,
    *,
    lenient: bool = False,
    whole: bool = True,
) -> list[Diagnostic]:
    """Lint what compiled. `lenient`: unknown tool names are warnings; `whole`: the packs
    are as written (not salvaged from schema errors), so "no policy at all" is news."""
    tool_severity = "warning" if lenient else "error"
    out: list[Diagnostic] = []
    for source in loaded:
        out.extend(_regexes(source))
        out.extend(_unknown_builtin_tools(source, aliases, tool_severity))
        out.extend(_unknown_tools(source, aliases, tool_severity))
    if whole:
        out.extend(_no_policy(loaded))
    for pack in compiled:
        out.extend(_unreachable(pack))
        out.extend(_constant_conditions(pack))
        out.extend(_endless_stops(pack))
    out.extend(_conflicting(compiled))
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
    """Why a tool name names no tool this policy knows, or None.

    A glob (`sk_*`) names a family of custom tools and always passes, and so does an
    MCP server's tool (`mcp__<server>__<tool>`); any other name must be a known tool,
    a spelling of one, or declared in a pack's `aliases:`.
    """
    pattern = raw[1:] if raw.startswith("!") else raw
    if pattern == "*" or is_glob(pattern) or pattern.startswith("mcp__"):
        return None
    if aliases.knows(pattern):
        return None
    guess = difflib.get_close_matches(pattern, known, n=1, cutoff=0.6)
    if not guess:
        folded = {name.lower().replace("_", ""): name for name in known}
        found = folded.get(pattern.lower().replace("_", ""))
        guess = [found] if found else []
    hint = f" (did you mean {guess[0]!r}?)" if guess else ""
    return (
        f"tool {pattern!r} is no known tool or alias{hint}; declare a custom tool "
        f"in the pack's aliases (`aliases: {{{pattern}: {pattern}}}`)"
    )


def unknown_tool(name: str, aliases: AliasTable) -> str | None:
    """Why `name` (a tool name or glob) names no tool `aliases` knows, with a "did you
    mean", or None when it passes: the one rule for every place a pack names tools."""
    return _tool_problem(name, aliases, _known_names(aliases))


def _known_names(aliases: AliasTable) -> list[str]:
    return sorted({name for c in aliases.canonical_names for name in aliases.spellings(c)})


def _unknown_tools(source: LoadedPack, aliases: AliasTable, severity: str) -> list[Diagnostic]:
    """Every rule's `tools:`, including rules whose condition has an error."""
    known = _known_names(aliases)
    out: list[Diagnostic] = []
    for rule in source.model.rules:
        for index, raw in enumerate(rule.tools or ()):
            message = _tool_problem(raw, aliases, known)
            if message is None:
                continue
            mark = rule.mark("tools", index)
            out.append(
                Diagnostic(rule.source, mark.line, mark.col, severity, "unknown-tool", message)  # type: ignore[arg-type]
            )
    return out


def _unknown_builtin_tools(
    source: LoadedPack, aliases: AliasTable, severity: str
) -> list[Diagnostic]:
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
        out.append(
            Diagnostic(node.source, mark.line, mark.col, severity, "unknown-tool", message)  # type: ignore[arg-type]
        )
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
    for rule in model.rules:
        at = rule.path  # its place in the file (a salvaged pack may have left rules out)
        sources: list[tuple[tuple[str | int, ...], str]] = []
        if rule.when:
            sources.append(((*at, "when"), rule.when))
        if rule.message_expr:
            sources.append(((*at, "message_expr"), rule.message_expr))
        for target, src in (rule.set_ or {}).items():
            sources.append(((*at, "set", target), src))
        for name, src in (rule.respond or {}).items():
            sources.append(((*at, "respond", name), src))
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


# -- conditions that fold to a constant

_STRING = re.compile(
    r"[rRbB]{0,2}(?:\"\"\"[\s\S]*?\"\"\"|'''[\s\S]*?'''|\"(?:[^\"\\\n]|\\.)*\"|'(?:[^'\\\n]|\\.)*')"
)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LITERALS = frozenset({"true", "false"})


def _constant_conditions(pack: CompiledPack) -> list[Diagnostic]:
    """A `when:` that reads nothing of the call (`1 == 1`, `"a" == "a"`) is always true
    or always false: the rule acts on every call its filters admit, or never. The
    literals `true` and `false` are taken as meant."""
    from policy.packs.cel import VARIABLES_AT, CelCompileError, CelEvalError, get_engine
    from policy.packs.cel.functions import IMPURE_NAMES

    out: list[Diagnostic] = []
    engine = get_engine("cel-expr-python")
    for rule in _written(pack):
        source = rule.condition
        if source is None or source.strip() in _LITERALS:
            continue
        names = set(_IDENT.findall(_STRING.sub('""', source)))
        if names & (set(VARIABLES_AT[rule.point]) | {"vars"} | IMPURE_NAMES):
            continue
        try:
            value = engine.program(rule.point, [source], []).run({})[0]
        except (CelCompileError, CelEvalError):
            continue
        if not isinstance(value, bool):
            continue
        effect = (
            "the rule acts on every call its filters admit (leave `when:` out, or write `true`)"
            if value
            else "the rule never acts (remove it, or write `false` to keep it switched off)"
        )
        out.append(
            _at(
                rule,
                "constant-condition",
                f"condition of rule {rule.id!r} reads nothing of the call and is always "
                f"{str(value).lower()}: {effect}",
                field="when",
            )
        )
    return out


def _endless_stops(pack: CompiledPack) -> list[Diagnostic]:
    """A rule that keeps the agent going at `stop` without asking whether it already
    did (`stop.continued`) matches the next stop too, and the one after: the agent goes
    on until the host's turn limit. (Claude Code has no cap of its own.)"""
    out: list[Diagnostic] = []
    for rule in _written(pack):
        if rule.point != "stop" or rule.action != "modify":
            continue
        if "continued" in (rule.condition or ""):
            continue
        out.append(
            _at(
                rule,
                "stop-without-continued",
                f"rule {rule.id!r} keeps the agent going at every stop: its condition does "
                "not read `stop.continued`, so it matches again when the agent stops next "
                "(add `!stop.continued &&`)",
                field="when" if rule.condition is not None else "id",
            )
        )
    return out


# -- an allow and a deny on the same condition


def _normalised(source: str | None) -> str:
    """A condition with the spaces outside its string literals taken out."""
    if source is None:
        return ""
    parts: list[str] = []
    last = 0
    for match in _STRING.finditer(source):
        parts.append(re.sub(r"\s+", "", source[last : match.start()]))
        parts.append(match.group(0))
        last = match.end()
    parts.append(re.sub(r"\s+", "", source[last:]))
    return "".join(parts)


def _overlap(left: Sequence[str] | None, right: Sequence[str] | None) -> bool:
    """Can one name be admitted by both filters (None admits every name)?"""
    if left is None or right is None or _covers(left, right) or _covers(right, left):
        return True
    if any(p.startswith("!") for p in (*left, *right)):
        return False
    from wcmatch import fnmatch as wfnmatch

    names = [p for p in (*left, *right) if not is_glob(p)]
    return any(
        wfnmatch.fnmatch(name, list(left), flags=wfnmatch.BRACE)
        and wfnmatch.fnmatch(name, list(right), flags=wfnmatch.BRACE)
        for name in names
    )


def _conflicting(packs: Sequence[CompiledPack]) -> list[Diagnostic]:
    """An allow and a deny with the same `on`, overlapping tools and the same condition,
    in one pack or across the packs checked together: they contradict each other, and
    the deny decides every call both match."""
    rules = [rule for pack in packs for rule in _written(pack) if not rule.audit]
    allows = [r for r in rules if r.action == "allow"]
    denies = [r for r in rules if r.action == "deny"]
    out: list[Diagnostic] = []
    for allow in allows:
        key = _normalised(allow.condition)
        for deny in denies:
            if deny.point != allow.point or _normalised(deny.condition) != key:
                continue
            if not _overlap(allow.tools, deny.tools):
                continue
            scopes = (
                (_model(allow).senders, _model(deny).senders),
                (_model(allow).channels, _model(deny).channels),
                (_model(allow).sessions, _model(deny).sessions),
            )
            if not all(_overlap(a, b) for a, b in scopes):
                continue
            where = f"{_model(deny).source}:{_model(deny).mark('id').line}"
            condition = "no condition" if allow.condition is None else "the same condition"
            out.append(
                _at(
                    allow,
                    "conflicting-rules",
                    f"allow rule {allow.full_id!r} and deny rule {deny.full_id!r} ({where}) "
                    f"have the same `on`, overlapping tools and {condition}: the deny decides "
                    "every call both match, so the allow never acts there",
                )
            )
            break
    return out
