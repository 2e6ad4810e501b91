"""Compiled rule packs at run time: the hooks the chain calls on every decision.

A `CompiledPack` is one inline hook (`pack:<name>`, the pack's priority) with a
method per hook point it has rules for, so chain semantics apply unchanged. It is
built by the compiler (`policy.packs.compile`) from a checked pack, or by the pack
cache (`policy.packs.cache`) from an entry — so nothing here imports pydantic, the
schema or YAML: a one-event hook answering from the cache loads this module only.

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
the rule and notes it. What a refusal is at each point (deny_tool or abort_turn)
and which field carries the payload come from the table of points
(`policy.model.POINTS`).
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from policy import telemetry
from policy._lazy_dataclass import dataclass, field, fields
from policy._logger import logger
from policy._named_tuple import NamedTuple
from policy.aliases import AliasTable
from policy.analysis.environ import home_variable
from policy.errors import AnalysisIncomplete
from policy.facts import (
    CallFacts,
    FactsContext,
    current_caller,
    decision_number,
    facts_of,
    home_dir,
)
from policy.model import (
    POINTS,
    Action,
    ApprovalGate,
    CallContext,
    Decision,
    ToolCall,
)
from policy.packs.cel import CelEngine, CelEvalError, CelProgram, take_gave_up
from policy.packs.cel.interface import var_references
from policy.packs.points import RESPOND_FIELDS, SET_TARGETS, TO_ACTION
from policy.packs.recall import Key, ReadTogether, Recall, Together, first_time, read_together
from policy.packs.recall import part as recall_part

if TYPE_CHECKING:
    import datetime as _dt

    # Only the compiler sets `CompiledRule.model` (a pydantic model); this module
    # must not import the schema.
    from policy.model.payloads import LLMRequest, LLMResponse, ToolResult
    from policy.packs.schema import Rule

__all__ = [
    "APPROVAL_RULE_ID",
    "STRENGTH",
    "CompiledPack",
    "CompiledRule",
    "has_negation",
    "is_glob",
    "name_filter",
    "target_type",
    "var_references",
]

log = logger("policy.packs")


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
_GLOB_CHARS = frozenset("*?[{!")
_MEMO_LIMIT = 4096
#: Tools a point's programs are built for by `CompiledPack.warm` (a set naming
#: thousands of tools would take minutes: each tool's program is its own).
_WARMED_TOOLS = 32
#: ... and the rules' values (`message_expr`, `respond`, `set`), one program each, in
#: the pack's order.
_WARMED_VALUES = 256
#: The characters of CEL one engine's warm compiles at most (`CompiledPack.warm`): the
#: shipped packs' programs hold ≈ 285,000 (their conditions and the variables they
#: read, again in each tool's program); a red team's pack of 600 variables read by one
#: rule on 32 tools held 3.2 million — 2.4 s and ≈ 300 MB when warmed whole.
WARM_BUDGET = 512 * 1024
#: ... and the conditions (1,000 rules for every tool, warmed for ten tools, were
#: 10,000 builds: 3 s).
WARM_CONDITIONS = 2048
_OUTCOME_LIMIT = 256


def is_glob(pattern: str) -> bool:
    return any(c in _GLOB_CHARS for c in pattern)


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


def name_filter(patterns: Sequence[str] | None) -> Callable[[str], bool] | None:
    """A rule's sender / channel / session filter; None when it admits every name."""
    if patterns is None or ("*" in patterns and not has_negation(patterns)):
        return None
    return _matcher(patterns)


#: The id the `approval` builtin's rule has in its pack (no rule id has a colon).
APPROVAL_RULE_ID = "builtin:approval"


# ------------------------------------------------------------------ rules and index


@dataclass(eq=False)
class CompiledRule:
    """A rule ready to run; `model` keeps its source position.

    `model` is None for a rule read from an entry — the pack cache's, or a large set's
    own once compiled (policy.packs._compile): only diagnostics and lint read it, and
    those run on packs compiled from their files.
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

    __slots__ = (
        "_lock",
        "_make",
        "_program",
        "by_call",
        "by_mask",
        "by_results",
        "cond_rules",
        "dynamic",
        "filtered",
        "fixed",
        "outcomes",
        "recall",
        "rules",
    )

    def __init__(
        self,
        rules: tuple[CompiledRule, ...],
        make: Callable[[], CelProgram] | None,
        recall: Recall | None = None,
        by_call: _ByCall | None = None,
    ) -> None:
        self.rules = rules
        #: The program's masks by its inputs, when it answers from them alone.
        self.recall = recall
        #: How it is looked up by the whole call's key; None: by its own key only.
        self.by_call = by_call
        self.cond_rules = tuple(r for r in rules if r.condition is not None)
        self._make = make
        self._program: CelProgram | None = None
        self._lock = threading.Lock()
        self.filtered = any(r.filtered for r in rules)
        self.fixed = not self.filtered and all(r.static for r in rules)
        #: The bits of the conditions whose rule's outcome is evaluated for each call
        #: (a `message_expr`, `modify`, `respond`): a mask without them, of candidates
        #: that filter no caller and hold no such rule without a condition, comes to
        #: one outcome whatever the call (`by_mask`), remembered in `by_results`.
        self.dynamic = sum(1 << i for i, r in enumerate(self.cond_rules) if not r.static)
        self.by_mask = not self.filtered and all(r.static for r in rules if r.condition is None)
        self.outcomes: dict[tuple[int, ...], Decision | None] = {}
        self.by_results: dict[int, Decision | None] = {}

    @property
    def has_program(self) -> bool:
        return self._make is not None

    @property
    def program(self) -> CelProgram | None:
        """The batch program, built when a call first needs it evaluated: a call whose
        answer is recalled (`policy.packs.recall`) needs none, and a one-event hook
        answering from its store then never builds CEL's environment."""
        program = self._program
        if program is None and self._make is not None:
            with self._lock:
                program = self._program
                if program is None:
                    program = self._program = self._make()
        return program


_NO_CANDIDATES = _Candidates((), None)


class _ByCall:
    """How one program is looked up by the whole call's key (`CompiledPack._call_key`):
    what it reads, the set of names it was counted in (`ReadTogether`), and the costly
    inputs of the call's key it does not read itself (not `_CHEAP`), which it never works
    out for the key: only when another pack of the decision already did."""

    __slots__ = ("borrowed", "counted", "own", "table")

    def __init__(self, point: str, tool: str, names: Sequence[str], table: ReadTogether) -> None:
        self.own = frozenset(names)
        self.table = table
        self.counted: Together = table.add(point, tool, names)
        #: (the number of the set they were picked from, the costly names not its own)
        self.borrowed: tuple[int, tuple[str, ...]] = (0, ())


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
        locations: Mapping[str, str] | None = None,
    ) -> None:
        # Plain values, not the pack's model: the pack cache builds these too.
        self.name = f"pack:{name}"
        #: `pack/rule-id` (and each configured builtin's id) -> `file:line` where it is
        #: written (policy.packs.load.pack_locations): what `--explain` names rules by.
        self.locations: dict[str, str] = dict(locations or {})
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
        #: The time `now` reads, in epoch seconds; None: the system clock. The engine sets
        #: it when it was given one (`policy replay` decides at each record's `ts`).
        self.clock: Callable[[], float] | None = None
        #: Where compiled programs are kept between processes (policy.packs.cache), or None.
        self.program_store: Any = None
        #: Programs' answers shared with the next one-event process (recall.AnswerStore).
        self.answer_store: Any = None
        #: What the packs loaded with this one read (`recall.ReadTogether`): the engine
        #: gives the packs it loads at once a table of their own.
        self.read_together: ReadTogether = read_together
        self._index: dict[str, _PointIndex] = {}
        for spec in POINTS.values():
            point = spec.point.value
            at_point = [r for r in rules if r.point == point] if spec.rules else []
            if at_point:
                self._index[point] = _PointIndex(at_point, spec.tool, aliases)
        # Join only the stages that have rules: the hook method of a point (`before_tool`)
        # is its decider. The tool points have their own (the call comes with the
        # payload); every other point decides on its payload alone, so a new one in
        # POINTS needs nothing here.
        for point in self._index:
            method = POINTS[point].method
            decide = getattr(self, "_" + method, None)
            setattr(self, method, decide or self._around(point))

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
            sources = [r.condition for r in conds if r.condition is not None]
            make = None
            recall = None
            if conds:
                deps = [r.var_deps for r in conds]
                make = functools.partial(self.program, point, sources, deps)
                variables = self.layers(frozenset().union(*deps))
                recall = Recall.of(
                    point, sources, variables, self.answer_store, self.program_store
                )
            by_call = None
            if (
                recall is not None
                and not recall.kept_across_processes
                and not _PACK_OWN.intersection(recall.names)
            ):
                by_call = _ByCall(point, tool, recall.names, self.read_together)
            found = _Candidates(rules, make, recall, by_call)
        if len(index.memo) < _MEMO_LIMIT:
            index.memo[tool] = found
        return found

    def warm(self, budget: list[int]) -> tuple[int, int]:
        """Build now the programs a call would build when it first comes — at each
        point, for the tools its rules name, then the tools the alias table knows, at
        most `_WARMED_TOOLS` of them (any other tool builds its own on its first call)
        — with every condition in them, and the programs of what a matching rule
        evaluates (its `message_expr`, `respond` and `set` values, the first
        `_WARMED_VALUES` of the pack's). For a process that decides many calls, whose
        first call of each kind would otherwise pay for it (a one-event hook never
        warms: it builds only what its call needs). (programs, conditions) built.

        `budget`: the characters of CEL and the conditions the warm may still compile
        (shared by the packs of one engine's warm, charged before each program is
        made): each tool's program compiles its conditions and the pack variables
        they read again, so a program costs their sources' length and its conditions'
        count, and one that would pass either is left to its first call."""
        programs = conditions = 0
        known = sorted(self.aliases.canonical_names)
        for point, index in self._index.items():
            tools = [""]
            if index.tool_point:
                named = sorted(index.exact)
                tools = list(dict.fromkeys([*named, *known]))[:_WARMED_TOOLS]
            for tool in tools:
                candidates = self._candidates(point, tool)
                if not candidates.has_program:
                    continue
                sources = [r.condition for r in candidates.cond_rules if r.condition]
                deps = frozenset().union(*[r.var_deps for r in candidates.cond_rules])
                if not self._charged(budget, sources, deps):
                    continue
                programs += 1
                conditions += candidates.program.build_all()  # type: ignore[union-attr]
        values = 0
        for rule in self.rules:  # (what a matching rule evaluates: its message, its values)
            given = [("message_expr", rule.message_expr)] if rule.message_expr else []
            given += [(f"respond.{name}", source) for name, source in rule.respond]
            given += [(f"set.{target}", source) for target, source in rule.sets]
            for key, source in given:
                if values == _WARMED_VALUES:
                    return programs, conditions
                values += 1
                deps = frozenset(name for name, _ in var_references(source))
                if self._charged(budget, [source], deps):
                    programs += 1
                    conditions += self._rule_program(rule, key, source).build_all()
        return programs, conditions

    def _charged(self, budget: list[int], sources: list[str], deps: frozenset[str]) -> bool:
        """Whether a program of `sources` reading the variables `deps` fits in `budget`
        — [characters of CEL, conditions] — (then it is charged)."""
        cost = sum(map(len, sources))
        cost += sum(len(source) for layer in self.layers(deps) for source in layer.values())
        if cost > budget[0] or len(sources) > budget[1]:
            return False
        budget[0] -= cost
        budget[1] -= len(sources)
        return True

    # ------------------------------------------------------------- hooks

    def _before_tool(self, call: ToolCall) -> Decision | None:
        return self._decide("before_tool", call.tool, call, call, None)

    def _after_tool(self, call: ToolCall, result: ToolResult) -> Decision | None:
        return self._decide("after_tool", call.tool, call, result, call)

    def _around(self, point: str) -> Callable[[Any], Decision | None]:
        """The decider of a point whose payload is all a rule sees (before_llm,
        after_llm, user_prompt): no tool to filter by, no call."""
        decide = self._decide

        def around(payload: Any) -> Decision | None:
            return decide(point, "", payload, payload, None)

        return around

    # ----------------------------------------------------------- deciding

    def values_for(
        self,
        point: str,
        needs: Iterable[str],
        subject: Any,
        payload: Any,
        known: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The CEL variables `needs` names (a program's `needs`) for this call at
        `point`: what a program of this pack runs on (`known`: some of them, worked out
        already). AnalysisIncomplete when they include the facts and the analysis gave
        up."""
        data: dict[str, Any] = known if known is not None else {}
        for name in needs:
            if name not in data:
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
            mask = 0
            if candidates.has_program:
                got, data = self._mask_of(point, tool, candidates, subject, payload)
                if got is None:  # some condition failed: `run` says which
                    each = candidates.program.run(data, subject)  # type: ignore[union-attr]
                    _refuse_if_gave_up()
                    return self._match(point, candidates, each, None, subject, payload, call)
                mask = got
            return self._outcome_of_mask(point, candidates, mask, subject, payload, call)
        admitted = [r.admits(subject) for r in rules] if candidates.filtered else None
        results: Sequence[Any] = ()
        if candidates.has_program and (
            admitted is None
            or any(ok for ok, r in zip(admitted, rules, strict=True) if r.condition is not None)
        ):
            held, data = self._mask_of(point, tool, candidates, subject, payload)
            if held is None:  # some condition failed: `run` says which
                results = candidates.program.run(data, subject)  # type: ignore[union-attr]
                _refuse_if_gave_up()
            elif candidates.by_mask and not held & candidates.dynamic:
                # (the outcome of static rules alone: the same for every call)
                return self._outcome_of_mask(point, candidates, held, subject, payload, call)
            else:
                results = _bits(held, len(candidates.cond_rules))
        return self._match(point, candidates, results, admitted, subject, payload, call)

    def _outcome_of_mask(
        self,
        point: str,
        candidates: _Candidates,
        mask: int,
        subject: Any,
        payload: Any,
        call: ToolCall | None,
    ) -> Decision | None:
        """The outcome of candidates whose rules held by `mask` are all static and filter
        no caller: a function of the mask alone, decided once (`by_results`)."""
        found: Decision | None = candidates.by_results.get(mask, _UNDECIDED)
        if found is not _UNDECIDED:
            return found
        bits = _bits(mask, len(candidates.cond_rules))
        decision = self._match(point, candidates, bits, None, subject, payload, call)
        if len(candidates.by_results) < _OUTCOME_LIMIT:
            candidates.by_results[mask] = decision
        return decision

    def _mask_of(
        self, point: str, tool: str, candidates: _Candidates, subject: Any, payload: Any
    ) -> tuple[int | None, Mapping[str, Any]]:
        """Bit i set when the candidates' condition i holds for this call (None when some
        condition failed: the caller asks `run` which), and the variables it ran on.
        Recalled when the program answered equal inputs before (`policy.packs.recall`):
        then only the variables it reads are worked out, and no program is built. A
        `shell.*` function that gave up refuses the call (AnalysisIncomplete) whatever
        CEL made of it.

        A process that keeps its answers only in memory makes a key only for a call it
        has decided before (`policy.packs.recall.first_time`): a key costs a new line
        ≈ 9 % of its decision, and an answer in memory is found for a repeated call,
        almost never for a new one. Such a call is looked up first by the key of the
        whole call (`_call_key`), made once for all its packs, then by the program's
        own. A one-event hook keys every call by the program's own key: its answers are
        kept on disk for the next process (`Recall.kept_across_processes`)."""
        recall = candidates.recall
        key = None
        data = None
        whole = None
        if (
            recall is not None
            and not recall.kept_across_processes
            and first_time(point, subject, payload)
        ):
            recall = None
        if recall is not None:
            if candidates.by_call is not None:
                whole = self._call_key(point, tool, candidates.by_call, subject, payload)
                if whole is not None:
                    remembered = recall.get_by_call(whole)
                    if remembered is not None:
                        return remembered, _NOT_RUN
            key = self._recall_key(recall.names, subject, payload)
            if key is not None:
                remembered = recall.get(key)
                if remembered is not None:
                    if whole is not None:
                        recall.keep_by_call(whole, remembered)
                    return remembered, _NOT_RUN
            data = self._key_values(recall.names)
        program = candidates.program
        if program is None:  # (callers ask only candidates that have one)
            raise RuntimeError(f"{self.name}: no program for the conditions at {point}")
        data = self.values_for(point, program.needs, subject, payload, data)
        take_gave_up()
        started = time.perf_counter_ns()
        mask = program.run_mask(data, subject)
        telemetry.CEL_SECONDS.observe_ns(time.perf_counter_ns() - started)
        # (checked whatever came back: CEL's `||`, `&&` and macros absorb errors)
        _refuse_if_gave_up()
        if mask is not None and recall is not None and key is not None:
            recall.keep(key, mask)
            if whole is not None:
                recall.keep_by_call(whole, mask)
        return mask, data

    def _call_key(
        self, point: str, tool: str, by_call: _ByCall, subject: Any, payload: Any
    ) -> Key | None:
        """The key of this call made of every input the recalled programs at `point`
        for `tool` read (`ReadTogether`: a set that holds this program's inputs), made
        once a decision and shared by the packs deciding it. None when one of them
        cannot be compared or worked out (each pack reading that input then refuses the
        call, or evaluates, through its own key, as before), when another epoch of
        names began meanwhile, or when the key needs a costly input this program does
        not read and no pack of the decision worked out yet (not `_CHEAP`: a pack that
        reads only the sender never runs the analysis of a line for the key)."""
        inputs = self._inputs_of(subject, payload)
        decision = decision_number()
        table = by_call.table
        counted = by_call.counted
        if counted[0] != table.epoch:  # (counted again in the new epoch)
            counted = by_call.counted = table.add(point, tool, by_call.own)
        made = inputs.call_key
        if (
            made is not None
            and made[3] == decision
            and made[5] is table
            and made[2][0] == counted[0]
            and made[2][1] >= counted[1]
            and made[0] == point
            and made[1] == tool
        ):
            return made[4]
        found = table.get(point, tool)
        if found is None or found[0] != counted[0] or found[1] < counted[1]:
            return None  # (another epoch began meanwhile)
        borrowed = by_call.borrowed
        if borrowed[0] != found[1]:
            costly = tuple(n for n in found[2] if n not in _CHEAP and n not in by_call.own)
            borrowed = by_call.borrowed = (found[1], costly)
        for name in borrowed[1]:
            if name not in inputs.made or (name in _OF_FACTS and inputs.facts_at != decision):
                return None  # (not worked out for this decision: never for the key)
        try:
            parts = self._parts(found[2], subject, payload, inputs)
        except Exception:  # noqa: BLE001 - no key: each pack's own key fails as before
            parts = None
        key = None if parts is None else (str(found[1]), *parts)
        inputs.call_key = (point, tool, (found[0], found[1]), decision, key, table)
        return key

    def _inputs_of(self, subject: Any, payload: Any) -> _CallInputs:
        """This thread's `_CallInputs`, started again when they were of another call, a
        pack with other facts' context, another caller or another `$HOME`."""
        inputs = _inputs
        caller = current_caller()
        variable = home_variable()
        of = inputs.of
        if (
            of[0] is not subject
            or of[1] is not payload
            or of[2] is not self.facts_context
            or of[3] is not caller
            or of[4] is not variable
        ):
            inputs.of = (subject, payload, self.facts_context, caller, variable)
            inputs.made = {}
            inputs.facts = None
            inputs.facts_at = -1
            inputs.home = home_dir()
            inputs.call_key = None
        return inputs

    def _recall_key(self, names: Sequence[str], subject: Any, payload: Any) -> Key | None:
        """The recall key of a program reading `names` for this call (`Recall.key`).
        The packs deciding one call read the same inputs, so each is worked out and
        made a part by the first pack that reads it, and the others take that part:
        the call's own fields and the protected paths while the call, its payload, the
        facts' context, the caller and `$HOME` are the same objects; its facts while
        `facts_of` hands out the same facts, which it works out again at each decision
        (`policy.facts.forget_last_call`). A pack's own input (its `mode`) is never
        shared. What a program that is not recalled runs on is the values the key was
        made of (`_key_values`)."""
        parts = self._parts(names, subject, payload, self._inputs_of(subject, payload))
        return None if parts is None else tuple(parts)

    def _parts(
        self, names: Sequence[str], subject: Any, payload: Any, inputs: _CallInputs
    ) -> list[str | bytes] | None:
        """The parts of a key made of `names` (after `$HOME` as the path functions see
        it), None when one cannot be compared exactly (`recall.part`)."""
        made = inputs.made
        variable = inputs.of[4]
        key: list[str | bytes] = [inputs.home, variable or ""]
        facts_seen = False
        whole = True
        for name in names:
            if name in _OF_FACTS and not facts_seen:
                facts_seen = True
                facts = _facts(subject, self)  # (AnalysisIncomplete refuses the call)
                inputs.facts_at = decision_number()
                if inputs.facts is not facts:
                    inputs.facts = facts
                    for stale in _OF_FACTS:
                        made.pop(stale, None)
            found = made.get(name)
            if found is None:
                value = _VALUE_OF[name](subject, payload, self)
                found = (value, recall_part(name, value))
                if name not in _PACK_OWN:
                    made[name] = found
            part = found[1]
            if part is None:
                whole = False
            else:
                key.append(part)
        return key if whole else None

    def _key_values(self, names: Sequence[str]) -> dict[str, Any]:
        """The values the last `_recall_key` on this thread made its key of (a pack's
        own inputs aside, which `values_for` works out again): a program that is not
        recalled runs on them, so what it answers is kept under the key of what it
        read."""
        made = _inputs.made
        return {name: made[name][0] for name in names if name not in _PACK_OWN}

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
        """The Decision the tally of `matched` and `failed` rules comes to."""
        tally = _tally(point, matched, failed)
        winners, soft, would = tally.winners, tally.soft, tally.would
        gates, tail = tally.gates, tally.tail
        notes: list[str] = []
        blocked = POINTS[point].fail_action
        for rule, message in tally.failed:
            text = f"rule {rule.full_id}: condition failed: {message}"
            log.warning(text)
            # CEL gave up on the facts (its iteration budget): a bound that was hit,
            # which refuses the call whatever `on_error` says (as the analysis's caps do)
            bounded = _gave_up_on(message)
            if rule.audit or (self.on_error == "skip" and not bounded):
                notes.append(f"{text} (skipped)")
            elif tally.strength <= STRENGTH["deny"]:
                # A condition that cannot be evaluated denies (on_error: deny).
                return Decision(
                    blocked,
                    text,
                    rule_ids=(rule.full_id, *tail),
                    would_action=would,
                    failure="limit" if bounded else "cel",
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
                TO_ACTION[action], reason, rule_ids=ids, would_action=would, ignored=tuple(notes)
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
                allowed=tally.allowed,
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
            payload_field = POINTS[point].field
            assert payload_field is not None  # every point that takes rules has a payload
            fields: dict[str, Any] = {payload_field: new}
            return Decision(
                Action.MODIFY,
                reason,
                rule_ids=ids,
                would_action=would,
                ignored=tuple(notes),
                allowed=tally.allowed,
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
            needs_approval=bool(gates),
            gates=gates,
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
        """A set/respond expression failed: deny, or (on_error: skip) decide without that
        rule — unless CEL gave up on its iteration budget, which denies whatever."""
        if self.on_error != "skip" or _gave_up_on(str(exc)):
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
        return self._value_of(self._rule_program(rule, key, source), rule.point, subject, payload)

    def _value_of(self, program: CelProgram, point: str, subject: Any, payload: Any) -> Any:
        """The one expression of `program` for this call; AnalysisIncomplete where a
        `shell.*` function met a line the analysis gave up on."""
        data = self.values_for(point, program.needs, subject, payload)
        take_gave_up()
        (value,) = program.run(data)
        _refuse_if_gave_up()
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
        from policy.model.payloads import ToolResult

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
                    (target, _typed(rule, f"set.{target}", value, target_type(point, target)))
                )
            current = _apply(point, current, updates)
        return current

    # ------------------------------------------- explaining (read-only, off the hot path)
    # `policy eval --explain` (policy.explain) asks these. They change nothing a decision
    # reads: no memo is filled, no program kept on a rule or in the program store.

    def candidates(self, point: str, tool: str) -> tuple[CompiledRule, ...]:
        """The rules the index picks for `tool` at `point`, in file order: the ones a
        decision evaluates (before the sender / channel / session filters)."""
        index = self._index.get(point)
        if index is None:
            return ()
        return index.rules_for(tool if index.tool_point else "")

    def evaluate(self, rule: CompiledRule, subject: Any, payload: Any) -> Any:
        """The value of `rule`'s condition for this call, on its own: True when it has
        none, else what CEL gives (a bool, a `CelEvalError`, another type). Raises
        `AnalysisIncomplete` where a decision would. Compiles a program of its own at
        every call: slow, and never used by a decision."""
        return self.condition_runner(rule)(subject, payload)

    def condition_runner(self, rule: CompiledRule) -> Callable[[Any, Any], Any]:
        """`evaluate` for `rule`, its program compiled once and kept by the caller only
        (`policy bench` times it call after call): neither on the rule nor in the
        pack's program store."""
        condition = rule.condition
        if condition is None:
            return lambda subject, payload: True
        layers = self.layers(frozenset(name for name, _ in var_references(condition)))
        program = self._engine.program(rule.point, [condition], layers, [layers], checked=True)

        def run(subject: Any, payload: Any) -> Any:
            return self._value_of(program, rule.point, subject, payload)

        return run

    def tally(
        self,
        point: str,
        matched: Sequence[CompiledRule],
        failed: Sequence[tuple[CompiledRule, str]],
    ) -> _Tally:
        """Which rules win at `point` given the ones that matched and failed: what a
        decision's combination starts from (pure)."""
        return _tally(point, matched, failed)


class _Tally(NamedTuple):
    """What the rules that matched (or failed) at one point add up to, before any
    Decision is built from it."""

    #: The enforced rules of the strongest action, in file order.
    winners: tuple[CompiledRule, ...]
    #: That action's strength (0 when no enforced rule matched).
    strength: int
    #: An enforced `allow` rule matched (it exempts the call from approval).
    allowed: bool
    #: The approval builtin's rules that matched or failed: an allow lifts them.
    soft: tuple[CompiledRule, ...]
    #: The other rules whose condition failed, with why.
    failed: tuple[tuple[CompiledRule, str], ...]
    #: What the strongest rule in audit mode would have done, or None.
    would: Action | None
    #: The gates of `soft`.
    gates: tuple[ApprovalGate, ...]
    #: The ids recorded after the winners': soft, audit-mode and log rules.
    tail: tuple[str, ...]


def _tally(
    point: str, matched: Sequence[CompiledRule], failed: Sequence[tuple[CompiledRule, str]]
) -> _Tally:
    """Which action wins at `point`, with which rules and gates (pure: no evaluation)."""
    # One pass: the strongest enforced action and its rules, audit-mode and log rules.
    winners: list[CompiledRule] = []
    strength = 0
    allowed = False
    audit_ids: list[str] = []
    audit_top: CompiledRule | None = None
    logged: list[str] = []
    soft: list[CompiledRule] = []  # the approval builtin: lifted by an allow
    # The builtin's `when:` failing gates the call whatever on_error says: a
    # condition that cannot be read must not lift a gate.
    soft += [r for r, _ in failed if r.gate is not None and r.gate.exempt_by_allow]
    failed = [(r, m) for r, m in failed if not (r.gate is not None and r.gate.exempt_by_allow)]
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
    # An allow lifts these gates, here and across packs: the chain's fold decides
    # (it keeps them when a hook asked for approval naming nobody).
    gates = tuple(r.gate for r in soft if r.gate is not None)
    tail = (*(r.full_id for r in soft), *audit_ids, *logged)
    return _Tally(tuple(winners), strength, allowed, tuple(soft), tuple(failed), would, gates, tail)


class _RuleError(Exception):
    def __init__(self, rule: CompiledRule, message: str) -> None:
        super().__init__(f"rule {rule.full_id}: {message}")
        self.rule = rule


def _would_action(point: str, action: str) -> Action:
    if action == "deny":
        return POINTS[point].fail_action  # what refusing is at this point
    return TO_ACTION.get(action, Action.CONTINUE)


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


def target_type(point: str, target: str) -> str:
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


def _now(pack: CompiledPack) -> _dt.datetime:
    import datetime  # (here: only a pack that reads `now` asks; a start imports none)

    clock = pack.clock
    if clock is None:
        return datetime.datetime.now(datetime.UTC)
    return datetime.datetime.fromtimestamp(clock(), datetime.UTC)


def _duration(payload: Any) -> _dt.timedelta:
    import datetime

    return datetime.timedelta(seconds=payload.duration)


def _facts(subject: Any, pack: CompiledPack) -> CallFacts:
    # AnalysisIncomplete (the analysis gave up) goes out of the hook: the chain
    # refuses the call, whatever `on_error` says
    return facts_of(subject, pack.facts_context)


#: What cel-expr-python says when an evaluation exhausts its fixed comprehension budget.
_CEL_BUDGET = "iteration budget exceeded"


def _gave_up_on(message: str) -> bool:
    """The CEL error `message` is CEL giving up (a bound hit), not a rule's mistake."""
    return _CEL_BUDGET in message.lower()


def _refuse_if_gave_up() -> None:
    """After a program ran: a `shell.*` function in it met a line whose analysis gave
    up. That is no CEL error for `on_error` to skip: the call is refused (the chain
    turns the exception into a refusal whatever the failure policy says)."""
    limit = take_gave_up()
    if limit:
        raise AnalysisIncomplete(limit)


def _args(call: Any) -> Any:
    """A call's arguments for CEL. A shell command longer than the analysis takes is
    refused here, before CEL copies it: cel-expr-python keeps what it is handed
    (docs/service.md, memory), so a service handed megabytes a call would keep
    megabytes a call; the analysis would refuse the line anyway."""
    args = call.args
    command = args.get("command") if call.tool == "bash" else None
    # (a UTF-8 character is at most 4 bytes: shorter commands never need the cap looked
    # up, and a one-event hook never imports the analysis for it)
    if isinstance(command, str) and len(command) > _SHORT_COMMAND:
        from policy.analysis.shell import MAX_INPUT

        if len(command.encode("utf-8", "surrogatepass")) > MAX_INPUT:
            raise AnalysisIncomplete(
                f"command longer than {MAX_INPUT} bytes (cap: analysis.max_input_bytes)"
            )
    return args


#: Characters below which a command is surely within `analysis.max_input_bytes` (1 MiB).
_SHORT_COMMAND = (1 << 20) // 4


def _protected(pack: CompiledPack) -> tuple[str, ...]:
    """The paths the policy depends on: the engine's, and those of the hook that asked
    `policy serve` for this decision (its own settings file). The same object from
    call to call when no caller adds any, so programs can share what they converted."""
    caller = current_caller()
    own = pack.facts_context.protected
    return own + caller.protected if caller is not None and caller.protected else own


class _CallInputs(threading.local):
    """What `_recall_key` made of the inputs of the call this thread's packs are
    deciding, each as (value, key part); what that call is (`of`), and the facts the
    facts' parts were made of. Held until the next call, as `policy.facts` holds the
    last call's facts."""

    def __init__(self) -> None:
        self.of: tuple[Any, ...] = (None, None, None, None, None)
        self.home = ""
        self.facts: CallFacts | None = None
        self.made: dict[str, tuple[Any, str | bytes | None]] = {}
        #: The decision `facts` were last handed out for (`decision_number`).
        self.facts_at = -1
        #: (point, tool, (the epoch, the number) of its names, the decision, the key, the
        #: table of names) of the call's key (`CompiledPack._call_key`).
        self.call_key: (
            tuple[str, str, tuple[int, int], int, Key | None, ReadTogether] | None
        ) = None


_inputs = _CallInputs()


#: `by_results` holds no outcome for a mask (None is one: no rule matched).
_UNDECIDED: Any = object()


def _bits(mask: int, count: int) -> list[bool]:
    """Condition i's value, for the first `count` conditions of a mask."""
    return [bool(mask & (1 << i)) for i in range(count)]

#: What `_mask_of` hands back with a recalled mask: nothing ran, nothing to read.
_NOT_RUN: Mapping[str, Any] = MappingProxyType({})

#: Inputs whose value is the pack's own, not the call's: never shared between packs.
_PACK_OWN = frozenset({"mode"})

#: Inputs read from the call's facts: shared only while `facts_of` hands out the same.
_OF_FACTS = frozenset({"commands", "access", "workspace", "home"})

#: Inputs whose part of a key is a short field of the call or the engine's own paths.
#: Every other input costs the analysis of the call or a digest of what the caller sent
#: (a file's content, a tool's output, a model's request, an agent's last message): a
#: call's key takes those for a program that does not read them only once worked out
#: for another (`CompiledPack._call_key`).
_CHEAP = frozenset(
    {
        "agent",
        "channel",
        "chat_id",
        "cwd",
        "duration",
        "host",
        "mode",
        "now",
        "protected",
        "sender",
        "session",
        "tool",
        "tool_raw",
        "turn",
    }
)

_VALUE_OF: dict[str, Callable[[Any, Any, CompiledPack], Any]] = {
    "tool": lambda s, p, _: s.tool,
    "tool_raw": lambda s, p, _: s.tool_raw,
    "args": lambda s, p, _: _args(s),
    "sender": lambda s, p, _: s.sender,
    "channel": lambda s, p, _: s.channel,
    "chat_id": lambda s, p, _: s.chat_id,
    "session": lambda s, p, _: s.session,
    "agent": lambda s, p, _: s.agent,
    "turn": lambda s, p, _: s.turn,
    "cwd": lambda s, p, _: s.cwd,
    "host": lambda s, p, _: s.host,
    "now": lambda s, p, pack: _now(pack),
    "mode": lambda s, p, pack: pack._mode,
    "result": lambda s, p, _: _result_map(p),
    "duration": lambda s, p, _: _duration(p),
    "request": lambda s, p, _: _request_map(p),
    "response": lambda s, p, _: _response_map(p),
    "prompt": lambda s, p, _: p.text,
    "commands": lambda s, p, pack: _facts(s, pack).commands_cel,
    "access": lambda s, p, pack: _facts(s, pack).access_cel,
    "workspace": lambda s, p, pack: _facts(s, pack).workspace,
    "home": lambda s, p, pack: _facts(s, pack).home,
    "protected": lambda s, p, pack: _protected(pack),
}

# A point's own CEL variable (`POINTS[point].variables`) that no entry above reads —
# a point added to the table — is its payload's own fields, as a map.
_IDENTITY = frozenset(f.name for f in fields(CallContext))


def _fields_map(payload: Any) -> dict[str, Any]:
    return {f.name: getattr(payload, f.name) for f in fields(payload) if f.name not in _IDENTITY}


for _spec in POINTS.values():
    for _name, _kind in _spec.variables.items():
        if _name not in _VALUE_OF and _kind == "map":
            _VALUE_OF[_name] = lambda s, p, _: _fields_map(p)
