"""Rule packs -> hooks in the chain.

Each pack becomes one inline hook (`pack:<name>`, the pack's priority) with a
method per hook point it has rules for, so chain semantics apply unchanged.

Inside a hook, a call only evaluates rules that can apply to it:

1. an index by hook point and canonical tool name — exact names in a dict, globs
   resolved once per distinct tool name and memoised;
2. sender / channel / session globs (wcmatch, compiled once);
3. CEL: the conditions of the remaining rules run as one program (one
   activation, one evaluation), with the pack's variables bound once.

Combination at one point: the strongest action wins
(`hard_abort > abort_turn > deny > ask > respond > modify > allow`); several
modify rules apply in file order; `allow` only exempts from approval; `ask` sets
`needs_approval`; `log` rules only log; rules in audit mode record
`would_action` and change nothing. A CEL runtime error follows the pack's
`on_error`: `deny` (default) counts the rule as a denying match, `skip` ignores
the rule and notes it.
"""

from __future__ import annotations

import datetime as _dt
import graphlib
import logging
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from policy.aliases import AliasConflictError, AliasTable
from policy.facts import CallFacts, FactsContext, facts_of
from policy.model import (
    Action,
    ApprovalGate,
    Decision,
    LLMRequest,
    LLMResponse,
    Prompt,
    ToolCall,
    ToolResult,
)
from policy.packs.cel import (
    UNPORTABLE,
    VARIABLES_AT,
    CelCompileError,
    CelEngine,
    CelEvalError,
    CelProgram,
    Checker,
    whole_vars_offset,
)
from policy.packs.diagnostics import Diagnostic
from policy.packs.points import ACTION_POINTS, RESPOND_FIELDS, SET_TARGETS

if TYPE_CHECKING:
    # Only the compiler reads these (pydantic models); a pack loaded from the cache
    # (policy.packs.cache) runs without importing them.
    from policy.packs.load import LoadedPack
    from policy.packs.schema import Node, Rule

__all__ = [
    "STRENGTH",
    "CompiledPack",
    "CompiledRule",
    "compile_packs",
    "is_glob",
    "var_references",
]

log = logging.getLogger("policy.packs")

#: Strength of each rule action; the strongest matching action wins.
STRENGTH: dict[str, int] = {
    "log": -1,
    "allow": 1,
    "modify": 2,
    "respond": 3,
    "ask": 4,
    "deny": 5,
    "abort_turn": 6,
    "hard_abort": 7,
}
_TO_ACTION = {
    "allow": Action.CONTINUE,
    "modify": Action.MODIFY,
    "respond": Action.RESPOND,
    "ask": Action.CONTINUE,
    "deny": Action.DENY_TOOL,
    "abort_turn": Action.ABORT_TURN,
    "hard_abort": Action.HARD_ABORT,
}
_GLOB_CHARS = frozenset("*?[{!")
_VAR_REF = re.compile(r"\bvars\s*(?:\.\s*([A-Za-z_][A-Za-z0-9_]*)|\[\s*[\"']([^\"']+)[\"']\s*\])")
_MEMO_LIMIT = 4096
_OUTCOME_LIMIT = 256


def is_glob(pattern: str) -> bool:
    return any(c in _GLOB_CHARS for c in pattern)


def var_references(source: str) -> list[tuple[str, int]]:
    """(name, offset) of every `vars.name` / `vars["name"]` in a CEL source."""
    return [(m.group(1) or m.group(2), m.start()) for m in _VAR_REF.finditer(source)]


def _matcher(
    patterns: Sequence[str], spellings: Callable[[str], Sequence[str]] | None = None
) -> Callable[[str], bool]:
    """A name filter: matches any positive glob and no `!negated` one.

    A list of only negations admits everything but what it names. With
    `spellings`, a tool also matches through any host spelling of its name
    (`Web*` covers web_fetch through WebFetch).
    """
    from wcmatch import fnmatch as wfnmatch

    positive = [p for p in patterns if not p.startswith("!")]
    negative = [p[1:] for p in patterns if p.startswith("!")]
    flags = wfnmatch.BRACE
    include = wfnmatch.compile(positive, flags=flags).match if positive else None
    exclude = wfnmatch.compile(negative, flags=flags).match if negative else None

    def match(name: str) -> bool:
        names = (name, *spellings(name)) if spellings is not None else (name,)
        if include is not None and not any(include(n) for n in names):
            return False
        return exclude is None or not any(exclude(n) for n in names)

    return match


def has_negation(patterns: Sequence[str] | None) -> bool:
    return patterns is not None and any(p.startswith("!") for p in patterns)


def _offset_to_line_col(source: str, offset: int) -> tuple[int, int]:
    line = source.count("\n", 0, offset) + 1
    return line, offset - (source.rfind("\n", 0, offset) + 1) + 1


# ------------------------------------------------------------------ compiled


@dataclass(eq=False)
class CompiledRule:
    """A rule ready to run; `model` keeps its source position.

    `model` is None for a rule read from the pack cache: only diagnostics and lint
    read it, and those run on packs compiled from their files.
    """

    pack: str
    id: str
    index: int
    point: str
    action: str
    audit: bool
    tools: tuple[str, ...] | None
    senders: Callable[[str], bool] | None
    channels: Callable[[str], bool] | None
    sessions: Callable[[str], bool] | None
    condition: str | None
    message: str
    message_expr: str | None
    sets: tuple[tuple[str, str], ...]
    respond: tuple[tuple[str, str], ...]
    var_deps: frozenset[str]
    model: Rule | None = None
    #: Who approves the call when this rule matches: `ask` rules (and `respond` rules
    #: that name approvers) have one; so has the `approval` builtin's own rule.
    gate: ApprovalGate | None = None
    programs: dict[str, CelProgram] = field(default_factory=dict)
    # Derived once: read on every decision.
    full_id: str = field(init=False)
    strength: int = field(init=False)
    filtered: bool = field(init=False)
    static: bool = field(init=False)  # its outcome needs no evaluation beyond matching

    def __post_init__(self) -> None:
        self.full_id = f"{self.pack}/{self.id}"
        self.strength = STRENGTH[self.action]
        self.filtered = not (
            self.senders is None and self.channels is None and self.sessions is None
        )
        self.static = self.message_expr is None and self.action not in ("modify", "respond")

    def admits(self, subject: Any) -> bool:
        if self.senders is not None and not self.senders(subject.sender):
            return False
        if self.channels is not None and not self.channels(subject.channel):
            return False
        return self.sessions is None or self.sessions(subject.session)


class _Candidates:
    """The rules that can apply to one tool name at one point, and their batch program.

    `outcomes` memoises the Decision for each set of matched rules whose outcome
    is static (no message_expr, set or respond to evaluate). When every rule is
    static and none is filtered by sender/channel/session (`fixed`), the outcome
    is a function of the conditions' values alone: `by_results` memoises it by
    the bit mask of those values, so a repeated shape of call skips the matching.
    """

    __slots__ = ("by_results", "cond_rules", "filtered", "fixed", "outcomes", "program", "rules")

    def __init__(self, rules: tuple[CompiledRule, ...], program: CelProgram | None) -> None:
        self.rules = rules
        self.cond_rules = tuple(r for r in rules if r.condition is not None)
        self.program = program
        self.filtered = any(r.filtered for r in rules)
        self.fixed = not self.filtered and all(r.static for r in rules)
        self.outcomes: dict[tuple[int, ...], Decision | None] = {}
        self.by_results: dict[int, Decision | None] = {}


_NO_CANDIDATES = _Candidates((), None)


class _PointIndex:
    def __init__(
        self, rules: Sequence[CompiledRule], tool_point: bool, aliases: AliasTable
    ) -> None:
        self.tool_point = tool_point
        self.exact: dict[str, list[CompiledRule]] = {}
        self.globbed: list[tuple[Callable[[str], bool], CompiledRule]] = []
        self.every: list[CompiledRule] = []
        spellings = aliases.spellings
        for rule in rules:
            tools = rule.tools
            if not tool_point or tools is None or ("*" in tools and not has_negation(tools)):
                self.every.append(rule)
            elif has_negation(tools):
                self.globbed.append((_matcher(tools, spellings), rule))
            else:
                for name in (p for p in tools if not is_glob(p)):
                    self.exact.setdefault(name, []).append(rule)
                patterns = [p for p in tools if is_glob(p)]
                if patterns:
                    self.globbed.append((_matcher(patterns, spellings), rule))
        self.memo: dict[str, _Candidates] = {}

    def rules_for(self, tool: str) -> tuple[CompiledRule, ...]:
        found = {id(r): r for r in self.exact.get(tool, ())}
        for match, rule in self.globbed:
            if id(rule) not in found and match(tool):
                found[id(rule)] = rule
        for rule in self.every:
            found.setdefault(id(rule), rule)
        return tuple(sorted(found.values(), key=lambda r: r.index))


class CompiledPack:
    """One pack as a chain hook. Attributes the chain reads: name, priority, inline."""

    inline = True
    failure_policy = "fail"

    def __init__(
        self,
        *,
        name: str,
        priority: int,
        revision: str,
        digest: str,
        on_error: str,
        rules: Sequence[CompiledRule],
        engine: CelEngine,
        var_sources: Mapping[str, str],
        var_graph: Mapping[str, frozenset[str]],
        aliases: AliasTable,
    ) -> None:
        # Plain values, not the pack's model: the pack cache builds these too.
        self.name = f"pack:{name}"
        self.pack_name = name
        self.priority = priority
        self.revision = revision
        self.digest = digest
        self.on_error = on_error
        self.rules = tuple(rules)
        self._engine = engine
        self._var_sources = dict(var_sources)
        self._var_graph = dict(var_graph)
        #: The alias table this pack's tool filters were resolved with.
        self.aliases = aliases
        self._lock = threading.Lock()
        self._mode = ""
        #: What the engine knows that calls do not (workspace, protected paths).
        self.facts_context = FactsContext()
        #: Where compiled programs are kept between processes (policy.packs.cache), or None.
        self.program_store: Any = None
        self._index: dict[str, _PointIndex] = {}
        for point in VARIABLES_AT:
            at_point = [r for r in rules if r.point == point]
            if at_point:
                tool_point = point in ("before_tool", "after_tool")
                self._index[point] = _PointIndex(at_point, tool_point, aliases)
        # Join only the stages that have rules.
        for point, method in (
            ("before_tool", self._before_tool),
            ("after_tool", self._after_tool),
            ("before_llm", self._before_llm),
            ("after_llm", self._after_llm),
            ("user_prompt", self._user_prompt),
        ):
            if point in self._index:
                setattr(self, point, method)

    @property
    def var_sources(self) -> Mapping[str, str]:
        """The pack's variables: name -> CEL source."""
        return self._var_sources

    @property
    def var_graph(self) -> Mapping[str, frozenset[str]]:
        """The variables each variable reads."""
        return self._var_graph

    @property
    def has_rules(self) -> bool:
        """False for a pack that only configures builtins: it joins no stage."""
        return bool(self._index)

    @property
    def label(self) -> str:
        """`revision@digest` as the decision log records it."""
        return f"{self.revision}@{self.digest[:12]}" if self.revision else self.digest[:12]

    # ------------------------------------------------------------ programs

    def layers(self, names: frozenset[str]) -> list[dict[str, str]]:
        """The variables `names` need (transitively), grouped by dependency depth."""
        needed: set[str] = set()
        stack = list(names)
        while stack:
            name = stack.pop()
            if name in needed or name not in self._var_sources:
                continue
            needed.add(name)
            stack.extend(self._var_graph.get(name, ()))
        depth: dict[str, int] = {}

        def depth_of(name: str) -> int:
            if name not in depth:
                deps = [d for d in self._var_graph.get(name, ()) if d in needed]
                depth[name] = 1 + max((depth_of(d) for d in deps), default=-1)
            return depth[name]

        layers: list[dict[str, str]] = []
        for name in sorted(needed, key=lambda n: (depth_of(n), n)):
            level = depth_of(name)
            while len(layers) <= level:
                layers.append({})
            layers[level][name] = self._var_sources[name]
        return layers

    def program(
        self, point: str, sources: Sequence[str], deps: Sequence[frozenset[str]]
    ) -> CelProgram:
        union = frozenset().union(*deps) if deps else frozenset()
        # every expression of a loaded pack has passed the checker (packs with errors
        # neither load nor reach the cache)
        return self._engine.program(
            point,
            sources,
            self.layers(union),
            [self.layers(d) for d in deps],
            checked=True,
            store=self.program_store,
        )

    def _rule_program(self, rule: CompiledRule, key: str, source: str) -> CelProgram:
        program = rule.programs.get(key)
        if program is None:
            deps = frozenset(name for name, _ in var_references(source))
            program = self.program(rule.point, [source], [deps])
            rule.programs[key] = program
        return program

    def _candidates(self, point: str, tool: str) -> _Candidates:
        index = self._index[point]
        found = index.memo.get(tool)
        if found is not None:
            return found
        rules = index.rules_for(tool)
        if not rules:
            found = _NO_CANDIDATES
        else:
            conds = [r for r in rules if r.condition is not None]
            program = (
                self.program(
                    point,
                    [r.condition for r in conds if r.condition is not None],
                    [r.var_deps for r in conds],
                )
                if conds
                else None
            )
            found = _Candidates(rules, program)
        if len(index.memo) < _MEMO_LIMIT:
            index.memo[tool] = found
        return found

    # ------------------------------------------------------------- hooks

    def _before_tool(self, call: ToolCall) -> Decision | None:
        return self._decide("before_tool", call.tool, call, call, None)

    def _after_tool(self, call: ToolCall, result: ToolResult) -> Decision | None:
        return self._decide("after_tool", call.tool, call, result, call)

    def _before_llm(self, request: LLMRequest) -> Decision | None:
        return self._decide("before_llm", "", request, request, None)

    def _after_llm(self, response: LLMResponse) -> Decision | None:
        return self._decide("after_llm", "", response, response, None)

    def _user_prompt(self, prompt: Prompt) -> Decision | None:
        return self._decide("user_prompt", "", prompt, prompt, None)

    # ----------------------------------------------------------- deciding

    def _data(
        self, point: str, needs: frozenset[str], subject: Any, payload: Any
    ) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name in needs:
            data[name] = _VALUE_OF[name](subject, payload, self)
        return data

    def _decide(
        self, point: str, tool: str, subject: Any, payload: Any, call: ToolCall | None
    ) -> Decision | None:
        candidates = self._index[point].memo.get(tool) or self._candidates(point, tool)
        rules = candidates.rules
        if not rules:
            return None
        if candidates.fixed:
            program = candidates.program
            mask = 0
            if program is not None:
                data = self._data(point, program.needs, subject, payload)
                got = program.run_mask(data)
                if got is None:  # some condition failed: `run` says which
                    each = program.run(data)
                    return self._match(point, candidates, each, None, subject, payload, call)
                mask = got
            if mask in candidates.by_results:
                return candidates.by_results[mask]
            count = len(candidates.cond_rules)
            bits = [bool(mask & (1 << i)) for i in range(count)]
            decision = self._match(point, candidates, bits, None, subject, payload, call)
            if len(candidates.by_results) < _OUTCOME_LIMIT:
                candidates.by_results[mask] = decision
            return decision
        admitted = [r.admits(subject) for r in rules] if candidates.filtered else None
        results: Sequence[Any] = ()
        program = candidates.program
        if program is not None and (
            admitted is None
            or any(ok for ok, r in zip(admitted, rules, strict=True) if r.condition is not None)
        ):
            results = program.run(self._data(point, program.needs, subject, payload))
        return self._match(point, candidates, results, admitted, subject, payload, call)

    def _match(
        self,
        point: str,
        candidates: _Candidates,
        results: Sequence[Any],
        admitted: list[bool] | None,
        subject: Any,
        payload: Any,
        call: ToolCall | None,
    ) -> Decision | None:
        """Which rules matched (or failed), then their combined outcome."""
        rules = candidates.rules
        matched: list[CompiledRule] = []
        failed: list[tuple[CompiledRule, str]] = []
        position = 0
        for number, rule in enumerate(rules):
            value: Any = True
            if rule.condition is not None:
                value = results[position] if results else False
                position += 1
            if admitted is not None and not admitted[number]:
                continue
            if value is True:
                matched.append(rule)
            elif value is False:
                continue
            elif isinstance(value, CelEvalError):
                failed.append((rule, str(value)))
            else:
                failed.append((rule, f"condition gave {type(value).__name__}, not bool"))
        if not matched and not failed:
            return None
        if failed or not all(r.static for r in matched):
            return self._combine(point, subject, payload, call, matched, failed)
        # The outcome depends only on which rules matched: decide each set once.
        key = tuple(r.index for r in matched)
        outcomes = candidates.outcomes
        if key in outcomes:
            return outcomes[key]
        decision = self._combine(point, subject, payload, call, matched, failed)
        if len(outcomes) < _OUTCOME_LIMIT:
            outcomes[key] = decision
        return decision

    def _combine(
        self,
        point: str,
        subject: Any,
        payload: Any,
        call: ToolCall | None,
        matched: list[CompiledRule],
        failed: list[tuple[CompiledRule, str]],
    ) -> Decision | None:
        # One pass: the strongest enforced action and its rules, audit-mode and log rules.
        winners: list[CompiledRule] = []
        strength = 0
        allowed = False
        audit_ids: list[str] = []
        audit_top: CompiledRule | None = None
        logged: list[str] = []
        soft: list[CompiledRule] = []  # the approval builtin: lifted by an allow
        for rule in matched:
            if rule.action == "log":
                logged.append(rule.full_id)
            elif rule.gate is not None and rule.gate.exempt_by_allow:
                soft.append(rule)
            elif rule.audit:
                audit_ids.append(rule.full_id)
                if audit_top is None or rule.strength > audit_top.strength:
                    audit_top = rule
            else:
                if rule.strength > strength:
                    strength = rule.strength
                    winners = [rule]
                elif rule.strength == strength:
                    winners.append(rule)
                allowed = allowed or rule.action == "allow"
        would = _would_action(point, audit_top.action) if audit_top is not None else None
        if allowed:
            soft = []
        gates = tuple(r.gate for r in soft if r.gate is not None)
        tail = (*(r.full_id for r in soft), *audit_ids, *logged)
        notes: list[str] = []
        blocked = Action.DENY_TOOL if point == "before_tool" else Action.ABORT_TURN
        for rule, message in failed:
            text = f"rule {rule.full_id}: condition failed: {message}"
            log.warning(text)
            if rule.audit or self.on_error == "skip":
                notes.append(f"{text} (skipped)")
            elif strength <= STRENGTH["deny"]:
                # A condition that cannot be evaluated denies (on_error: deny).
                return Decision(
                    blocked,
                    text,
                    rule_ids=(rule.full_id, *tail),
                    would_action=would,
                    failure="cel",
                    ignored=tuple(notes),
                )
        if not winners:
            if not (tail or notes):
                return None
            return Decision(
                Action.CONTINUE,
                soft[0].message if soft else "",
                rule_ids=tail,
                would_action=would,
                ignored=tuple(notes),
                needs_approval=bool(gates),
                gates=gates,
            )
        top = winners[0]
        ids = (*(r.full_id for r in winners), *tail)
        reason = self._message(top, subject, payload, notes) if top.message_expr else top.message
        action = top.action
        if action in ("hard_abort", "abort_turn", "deny"):
            return Decision(
                _TO_ACTION[action], reason, rule_ids=ids, would_action=would, ignored=tuple(notes)
            )
        if action == "ask":
            return Decision(
                Action.CONTINUE,
                reason,
                rule_ids=ids,
                needs_approval=True,
                would_action=would,
                ignored=tuple(notes),
                gates=(*(r.gate for r in winners if r.gate is not None), *gates),
            )
        if action == "respond":
            try:
                result = self._respond_result(top, subject, payload)
            except _RuleError as exc:
                return self._rule_failed(
                    blocked, exc, tail, would, notes, matched, point, subject, payload, call
                )
            # A respond rule that names approvers holds its answer until approved.
            held = (*(r.gate for r in winners if r.gate is not None), *gates)
            return Decision(
                Action.RESPOND,
                reason,
                result=result,
                rule_ids=ids,
                would_action=would,
                ignored=tuple(notes),
                allowed=allowed,
                needs_approval=bool(held),
                gates=held,
            )
        if action == "modify":
            try:
                new = self._apply_sets(point, winners, subject, payload)
            except _RuleError as exc:
                return self._rule_failed(
                    blocked, exc, tail, would, notes, matched, point, subject, payload, call
                )
            fields: dict[str, Any] = {_PAYLOAD_FIELD[point]: new}
            return Decision(
                Action.MODIFY,
                reason,
                rule_ids=ids,
                would_action=would,
                ignored=tuple(notes),
                allowed=allowed,
                needs_approval=bool(gates),
                gates=gates,
                **fields,
            )
        return Decision(
            Action.CONTINUE,
            reason,
            rule_ids=ids,
            would_action=would,
            ignored=tuple(notes),
            allowed=True,
        )

    def _rule_failed(
        self,
        blocked: Action,
        exc: _RuleError,
        tail: tuple[str, ...],
        would: Action | None,
        notes: list[str],
        matched: list[CompiledRule],
        point: str,
        subject: Any,
        payload: Any,
        call: ToolCall | None,
    ) -> Decision:
        """A set/respond expression failed: deny, or (on_error: skip) decide without that rule."""
        if self.on_error != "skip":
            return Decision(
                blocked,
                str(exc),
                rule_ids=(exc.rule.full_id, *tail),
                would_action=would,
                failure="cel",
                ignored=tuple(notes),
            )
        notes.append(f"{exc} (skipped)")
        remaining = [rule for rule in matched if rule is not exc.rule]
        retry = self._combine(point, subject, payload, call, remaining, [])
        if retry is None:
            return Decision(
                Action.CONTINUE, rule_ids=tail, would_action=would, ignored=tuple(notes)
            )
        return retry._replace(ignored=(*notes, *retry.ignored))

    def _eval_one(
        self, rule: CompiledRule, key: str, source: str, subject: Any, payload: Any
    ) -> Any:
        program = self._rule_program(rule, key, source)
        (value,) = program.run(self._data(rule.point, program.needs, subject, payload))
        return value

    def _message(self, rule: CompiledRule, subject: Any, payload: Any, notes: list[str]) -> str:
        if rule.message_expr is None:
            return rule.message
        value = self._eval_one(rule, "message_expr", rule.message_expr, subject, payload)
        if isinstance(value, str):
            return value
        notes.append(f"rule {rule.full_id}: message_expr failed ({value}); used message")
        return rule.message

    def _respond_result(self, rule: CompiledRule, subject: Any, payload: Any) -> ToolResult:
        fields: dict[str, Any] = {}
        for name, source in rule.respond:
            value = self._eval_one(rule, f"respond.{name}", source, subject, payload)
            fields[name] = _typed(rule, f"respond.{name}", value, RESPOND_FIELDS[name])
        return ToolResult(**fields)

    def _apply_sets(
        self, point: str, rules: Sequence[CompiledRule], subject: Any, payload: Any
    ) -> Any:
        current = payload
        for rule in rules:
            updates: list[tuple[str, Any]] = []
            for target, source in rule.sets:
                value = self._eval_one(
                    rule,
                    f"set.{target}",
                    source,
                    subject if point != "before_tool" else current,
                    current,
                )
                updates.append(
                    (target, _typed(rule, f"set.{target}", value, _target_type(point, target)))
                )
            current = _apply(point, current, updates)
        return current


class _RuleError(Exception):
    def __init__(self, rule: CompiledRule, message: str) -> None:
        super().__init__(f"rule {rule.full_id}: {message}")
        self.rule = rule


def _would_action(point: str, action: str) -> Action:
    if action == "deny" and point != "before_tool":
        return Action.ABORT_TURN
    return _TO_ACTION.get(action, Action.CONTINUE)


def _typed(rule: CompiledRule, where: str, value: Any, kind: str) -> Any:
    if isinstance(value, CelEvalError):
        raise _RuleError(rule, f"{where} failed: {value}")
    ok = {
        "string": isinstance(value, str),
        "bool": isinstance(value, bool),
        "map": isinstance(value, Mapping),
        "any": True,
    }[kind]
    if not ok:
        raise _RuleError(rule, f"{where} gave {type(value).__name__}, expected {kind}")
    return value


def _target_type(point: str, target: str) -> str:
    targets = SET_TARGETS[point]
    if target in targets:
        return targets[target]
    prefix = target.rsplit(".", 1)[0]
    while prefix:
        if f"{prefix}.*" in targets:
            return targets[f"{prefix}.*"]
        if "." not in prefix:
            break
        prefix = prefix.rsplit(".", 1)[0]
    return "any"


def _set_in(mapping: Mapping[str, Any], keys: list[str], value: Any) -> dict[str, Any]:
    out = dict(mapping)
    head, rest = keys[0], keys[1:]
    if rest:
        inner = out.get(head)
        out[head] = _set_in(inner if isinstance(inner, Mapping) else {}, rest, value)
    else:
        out[head] = value
    return out


def _apply(point: str, payload: Any, updates: list[tuple[str, Any]]) -> Any:
    if point == "before_tool":
        args: Mapping[str, Any] = payload.args
        for target, value in updates:
            keys = target.split(".")[1:]
            args = dict(value) if not keys else _set_in(args, keys, value)
        return payload.replace(args=args)
    if point == "before_llm":
        changes: dict[str, Any] = {}
        options: Mapping[str, Any] = payload.options
        for target, value in updates:
            keys = target.split(".")[1:]
            if keys == ["model"]:
                changes["model"] = value
            elif keys == ["options"]:
                options = dict(value)
            else:
                options = _set_in(options, keys[1:], value)
        return payload.replace(options=options, **changes)
    if point == "user_prompt":
        return payload.replace(text=updates[-1][1])
    changes = {target.split(".", 1)[1]: value for target, value in updates}
    return payload.replace(**changes)


_PAYLOAD_FIELD = {
    "before_tool": "call",
    "after_tool": "result",
    "before_llm": "request",
    "after_llm": "response",
    "user_prompt": "prompt",
}


def _result_map(result: ToolResult) -> dict[str, Any]:
    return {
        "for_llm": result.for_llm,
        "for_user": result.for_user,
        "is_error": result.is_error,
        "silent": result.silent,
        "media": list(result.media),
        "artifact_tags": list(result.artifact_tags),
    }


def _request_map(request: LLMRequest) -> dict[str, Any]:
    return {
        "model": request.model,
        "messages": request.messages,
        "tools": request.tools,
        "options": request.options,
    }


def _response_map(response: LLMResponse) -> dict[str, Any]:
    return {
        "model": response.model,
        "content": response.content,
        "reasoning": response.reasoning,
        "tool_calls": response.tool_calls,
        "finish_reason": response.finish_reason,
        "usage": response.usage,
    }


def _now(*_: Any) -> _dt.datetime:
    return _dt.datetime.now(_dt.UTC)


def _facts(subject: Any, pack: CompiledPack) -> CallFacts:
    return facts_of(subject, pack.facts_context)


_VALUE_OF: dict[str, Callable[[Any, Any, CompiledPack], Any]] = {
    "tool": lambda s, p, _: s.tool,
    "tool_raw": lambda s, p, _: s.tool_raw,
    "args": lambda s, p, _: s.args,
    "sender": lambda s, p, _: s.sender,
    "channel": lambda s, p, _: s.channel,
    "chat_id": lambda s, p, _: s.chat_id,
    "session": lambda s, p, _: s.session,
    "agent": lambda s, p, _: s.agent,
    "turn": lambda s, p, _: s.turn,
    "cwd": lambda s, p, _: s.cwd,
    "host": lambda s, p, _: s.host,
    "now": _now,
    "mode": lambda s, p, pack: pack._mode,
    "result": lambda s, p, _: _result_map(p),
    "duration": lambda s, p, _: _dt.timedelta(seconds=p.duration),
    "request": lambda s, p, _: _request_map(p),
    "response": lambda s, p, _: _response_map(p),
    "prompt": lambda s, p, _: p.text,
    "commands": lambda s, p, pack: _facts(s, pack).commands_cel,
    "access": lambda s, p, pack: _facts(s, pack).access_cel,
    "workspace": lambda s, p, pack: _facts(s, pack).workspace,
    "home": lambda s, p, pack: _facts(s, pack).home,
    "protected": lambda s, p, pack: list(pack.facts_context.protected),
}


# ----------------------------------------------------------------- compiling


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
            line, col = _offset_to_line_col(source, match.start() + 1)
            self.error_at(
                path,
                line,
                col,
                "unportable-function",
                f"{what}: {match.group(1) or 'quote'}() runs on cel-expr-python only; "
                "packs must run on both CEL engines",
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
        if ok and self.engine.name != "cel-expr-python":
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

    def compile(self) -> CompiledPack | None:
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
        if any(d.severity == "error" for d in self.diagnostics):
            return None
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
        if rule.tools is not None and point not in ("before_tool", "after_tool"):
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
            senders=_filter(rule.senders),
            channels=_filter(rule.channels),
            sessions=_filter(rule.sessions),
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
        from policy.builtins.config import parse_duration

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
        from policy.builtins.config import parse_duration

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
        kind = _target_type(point, target) if _valid_target(point, target) else None
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


#: The id the `approval` builtin's rule has in its pack (no rule id has a colon).
APPROVAL_RULE_ID = "builtin:approval"


def rule_gate(pack: str, rule_id: str, rule: Any) -> ApprovalGate:
    """The gate an `ask` (or gated `respond`) rule puts on the calls it matches;
    unnamed fields take the approval builtin's defaults."""
    from policy.builtins.config import parse_duration

    return ApprovalGate(
        source=f"{pack}/{rule_id}",
        pack=pack,
        approvers=tuple(rule.approvers or ()),
        timeout=None if rule.timeout is None else parse_duration(rule.timeout),
        grants=tuple(rule.grants or ("once",)),
        self_approval=bool(rule.self_approval),
        holds_respond=rule.action == "respond",
    )


def approval_rule(
    pack: str, index: int, config: Any, tools: tuple[str, ...] | None
) -> CompiledRule:
    """The `approval` builtin of `pack` as one of its rules (see `_combine`)."""
    gate = ApprovalGate(
        source=f"{pack}/approval",
        pack=pack,
        approvers=tuple(config.approvers),
        timeout=config.timeout_seconds,
        grants=tuple(config.grants),
        self_approval=config.self_approval,
        max_denials=config.max_denials,
        exempt_by_allow=True,
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
        message=f"approval required by the approval builtin of pack {pack!r}",
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


def _filter(patterns: list[str] | None) -> Callable[[str], bool] | None:
    if patterns is None or ("*" in patterns and not has_negation(patterns)):
        return None
    return _matcher(patterns)


def compile_packs(
    packs: Sequence[LoadedPack],
    engine: CelEngine,
    aliases: AliasTable,
    checker: Checker | None = None,
) -> tuple[list[CompiledPack], list[Diagnostic], AliasTable]:
    """Compile packs; returns (compiled packs, diagnostics, alias table with pack aliases).

    Packs with errors are left out of the first list; callers that enforce must
    refuse to start when any diagnostic is an error.
    """
    checker = checker or Checker()
    diagnostics: list[Diagnostic] = []
    names: dict[str, LoadedPack] = {}
    table = aliases
    for loaded in packs:
        first = names.get(loaded.name)
        if first is not None:
            mark = loaded.model.mark("name")
            diagnostics.append(
                Diagnostic(
                    str(loaded.path),
                    mark.line,
                    mark.col,
                    "error",
                    "duplicate-pack",
                    f"pack name {loaded.name!r} is already used by {first.path}",
                )
            )
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
        pack = compiler.compile()
        diagnostics.extend(compiler.diagnostics)
        if pack is not None:
            compiled.append(pack)
    return compiled, diagnostics, table
