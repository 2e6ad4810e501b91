"""Why a call was decided as it was: `policy eval --explain` and `policy facts`.

A decision keeps only its answer (`reason`, `rule_ids`, `hook`). A pack author needs
the way there: what the shell analysis made of the command (the `commands` and
`access` facts rules read), which rules each pack's index picked for the tool, what
each one's condition came to, what each builtin said, which rule won and why, and what
the engine finally decided.

None of this runs on the decision path. `explain` walks a built engine's chain snapshot
on its own, slower path — it evaluates each candidate rule's condition by itself
(`CompiledPack.evaluate`, a program of its own per rule) and asks each hook that may be
asked twice — then asks the engine for the real decision, which is the one shown as
final. A hook that counts calls (a rate limit: `rejudge = if_tool_changed`) or only
records (`never`) is not asked again, so explaining a call spends no budget twice; what
it said, when it ended the chain, is read from the final decision.

Every rule named is also located: `at` gives the `file:line` of its `id:` (or of the
builtin's key in `builtins:`), carried by the compiled packs and the pack cache
(`CompiledPack.locations`). At `approve_tool`, and after a before_tool decision that
needs approval, `approval` lists who would be asked — the gates the packs put on the
call (rule, approvers, timeout, message) and every approver hook with whether it
covers the call — without asking anyone: explaining never files a request or waits
for a person.

Everything returned is plain JSON-ready data: `policy eval --explain --format json`
prints it as is, and the text form is drawn from the same data.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from policy._invoke import call_inline
from policy.chain import Fold, Outcome, Registration
from policy.codec import to_dict
from policy.errors import AnalysisIncomplete, HookRegistrationError
from policy.facts import FactsContext, facts_of
from policy.hooks import HookSource
from policy.model import POINTS, TERMINAL, ApprovalGate, Decision, HookPoint, ToolCall
from policy.packs.cel import CelEvalError
from policy.packs.runtime import STRENGTH, CompiledPack, CompiledRule, _gave_up_on
from policy.rejudge import mode_of

if TYPE_CHECKING:
    from policy.engine import Engine

__all__ = ["approval_report", "explain", "facts_report", "options_of"]


# ------------------------------------------------------------------------ facts


def _value_options(command: Mapping[str, Any]) -> frozenset[str]:
    """The options of `command` whose value is the next word, as the analysis reads
    this program (its own tables); empty for a program it has no table for."""
    from policy.analysis import git, network, programs

    name = command.get("name", "")
    if name == "git":
        sub = command.get("subcommand", "")
        own = git._GIT_VALUE_OPTIONS.get(sub, frozenset())
        return own | frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
    return programs._VALUE_OPTIONS.get(name, frozenset()) | network._VALUE_OPTIONS.get(
        name, frozenset()
    )


def options_of(command: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A command's options with their values, in order: `--max-time=5` carries its
    value; `-o out.txt` does when the analysis knows `-o` takes one for this program.
    What `c.flags` holds is the names alone (`max-time`, `o`)."""
    from policy.analysis.operands import split_options

    args = [a for a in command.get("args", ()) if isinstance(a, str)]
    _, options = split_options(args, _value_options(command))
    return [{"option": name, "values": list(values)} for name, values in options.items()]


def facts_report(call: ToolCall, context: FactsContext) -> dict[str, Any]:
    """What the analysis makes of `call`, as rules see it: `commands` (one CEL map per
    simple command, the nested ones included), `access`, `workspace` and `home`; with
    `options` (each command's options with their values, for people) and `ms`. When
    the analysis gives up, `limit` says why (the chain then refuses the call)."""
    start = time.perf_counter()
    try:
        facts = facts_of(call, context)
    except AnalysisIncomplete as exc:
        return {"limit": exc.limit, "ms": _ms(start)}
    return {
        "commands": facts.commands_cel,
        "options": [options_of(command) for command in facts.commands_cel],
        "access": facts.access_cel,
        "workspace": facts.workspace,
        "home": facts.home,
        "ms": _ms(start),
    }


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 3)


# ---------------------------------------------------------------------- explain


def explain(engine: Engine, point: str, parts: Sequence[Any]) -> dict[str, Any]:
    """The explanation of one decision at `point` about `parts` (as `decide_at` takes
    them): `facts` (for a call), `hooks` (each hook of the chain at the point, in order:
    for a pack its candidate rules with their values, `file:line` and its tally; for
    another hook what it said), `final` (the engine's own decision, made last), `at`
    (where each rule named is written), `why` and `ms`; with `approval` (who would be
    asked: `approval_report`) when the decision needs approval. At approve_tool there is
    no `final`: deciding would ask approvers and people, so only `approval` is given."""
    started = time.perf_counter()
    spec = POINTS[point]
    call = _call_of(engine, spec.parts, parts)
    report: dict[str, Any] = {"point": point}
    if call is not None:
        report["call"] = to_dict(call)
        report["facts"] = facts_report(call, engine.facts_context)
    hooks: list[dict[str, Any]] = []
    stopped: Decision | None = None
    locations = engine.rule_locations
    if point == "approve_tool":
        if call is None:  # decide_at's own check: approve_tool takes a call
            raise TypeError("approve_tool needs a ToolCall")
        return _explain_approval(engine, report, call, locations, started)
    if spec.slot is not None:
        payload = call if point == "before_tool" and call is not None else parts[-1]
        context = tuple(parts[:-1]) if point != "before_tool" else ()
        if call is not None and point == "after_tool":
            context = (call,)
        hooks, stopped = _walk(engine, HookPoint(point), payload, context, call)
    final_start = time.perf_counter()
    final = engine.decide_at(point, *parts)
    final_ms = _ms(final_start)
    final_dict = to_dict(final) if final is not None else {}
    _reconcile(hooks, final_dict)
    _locate(hooks, locations)
    report["hooks"] = hooks
    report["final"] = final_dict
    if isinstance(final, Decision) and final.needs_approval and call is not None:
        report["approval"] = approval_report(engine, call, final.gates, locations)
    report["at"] = _named_at(hooks, final_dict, report.get("approval"), locations)
    report["why"] = _why(hooks, final_dict, stopped, locations)
    report["ms"] = {
        "facts": report.get("facts", {}).get("ms", 0.0),
        "hooks": round(sum(h.get("ms", 0.0) for h in hooks), 3),
        "final": final_ms,
        "total": _ms(started),
    }
    return report


def _call_of(engine: Engine, names: Sequence[str], parts: Sequence[Any]) -> ToolCall | None:
    """The call of the parts, with its tool canonical as the engine makes it."""
    for name, part in zip(names, parts, strict=False):
        if name == "call" and isinstance(part, ToolCall):
            tool = engine.aliases.canonical(part.tool)
            return part if tool == part.tool else part.replace(tool=tool, tool_raw=part.tool_raw)
    return None


def _walk(
    engine: Engine,
    point: HookPoint,
    payload: Any,
    context: tuple[Any, ...],
    call: ToolCall | None,
) -> tuple[list[dict[str, Any]], Decision | None]:
    """Each hook of the chain at `point`, in order, folded as the chain folds answers."""
    timeout = engine.settings.interceptor_timeout_ms / 1000
    fold = Fold(point, payload, None, "", call)
    out: list[dict[str, Any]] = []
    stopped: Decision | None = None
    for reg, method, coroutine in engine.registrations_at(point):
        entry: dict[str, Any] = {"hook": reg.name}
        out.append(entry)
        if stopped is not None:
            entry["kind"] = _kind(reg)
            entry["status"] = "not reached"
            entry["note"] = f"the chain stopped at {stopped.hook}"
            continue
        budget = reg.timeout_ms / 1000 if reg.timeout_ms is not None else timeout
        args = (*context, fold.current)
        start = time.perf_counter()
        if isinstance(reg.hook, CompiledPack):
            entry.update(_pack(reg.hook, point.value, context, fold.current))
            value, failure = call_inline(method, args, budget)
        else:
            entry["kind"] = _kind(reg)
            asked, note = _ask(reg, method, coroutine, point, args, budget)
            if note:
                entry["note"] = note
            if asked is None:
                entry["status"] = "not asked"
                entry["ms"] = _ms(start)
                continue
            value, failure = asked
        entry["ms"] = _ms(start)
        entry["status"] = "asked"
        if failure is not None:
            entry["said"] = {"hook_failed": failure.kind, "message": failure.message}
        elif isinstance(value, Decision):
            entry["said"] = to_dict(value)
        else:
            entry["said"] = None
        done = fold.take(reg, value, failure, budget)
        if done is not None:
            stopped = done
    return out, stopped


def _kind(reg: Registration) -> str:
    if isinstance(reg.hook, CompiledPack):
        return "pack"
    if reg.trusted:
        return "builtin"
    return "process hook" if reg.source is not HookSource.IN_PROCESS else "code hook"


def _ask(
    reg: Registration,
    method: Any,
    coroutine: bool,
    point: HookPoint,
    args: tuple[Any, ...],
    budget: float,
) -> tuple[Outcome | None, str]:
    """Ask a hook that is not a pack, when asking it twice is harmless: (its outcome,
    a note), or (None, why it was not asked)."""
    if coroutine:
        return None, "a coroutine hook: what it said is in the final decision"
    if reg.source is not HookSource.IN_PROCESS and not reg.inline:
        return None, "runs out of process: what it said is in the final decision"
    try:
        mode = mode_of(reg.hook)
    except HookRegistrationError as exc:
        return None, str(exc)
    if mode == "if_tool_changed":
        return None, "it counts calls (rate limits): asked again, it would count this call twice"
    if mode == "never":
        return None, "it records, and decides nothing a second time would change (rejudge: never)"
    if mode == "checks":
        if point is not HookPoint.BEFORE_TOOL:
            return None, "it counts calls: asked again, it would count this call twice"
        checks = reg.hook.rejudge_checks  # type: ignore[attr-defined]
        note = "asked its checks only: what it counts is not counted twice"
        return call_inline(checks, (args[-1],), budget), note
    return call_inline(method, args, budget), ""


def _pack(pack: CompiledPack, point: str, context: tuple[Any, ...], payload: Any) -> dict[str, Any]:
    """A pack's candidate rules, each condition's value, and how they combine."""
    subject = context[0] if context else payload
    tool = subject.tool if isinstance(subject, ToolCall) else ""
    rules = pack.candidates(point, tool)
    candidates: list[dict[str, Any]] = []
    matched: list[CompiledRule] = []
    failed: list[tuple[CompiledRule, str]] = []
    for rule in rules:
        item: dict[str, Any] = {
            "rule": rule.full_id,
            "action": rule.action,
            **({"audit": True} if rule.audit else {}),
            "when": rule.condition,
        }
        candidates.append(item)
        if not rule.admits(subject):
            item["value"] = None
            item["verdict"] = "not admitted (its senders / channels / sessions filter)"
            continue
        start = time.perf_counter()
        try:
            value = pack.evaluate(rule, subject, payload)
        except AnalysisIncomplete as exc:
            value = CelEvalError(f"the analysis gave up: {exc.limit}")
        item["ms"] = _ms(start)
        if value is True:
            item["value"] = True
            matched.append(rule)
        elif value is False:
            item["value"] = False
            item["verdict"] = "no match"
        else:
            message = (
                str(value)
                if isinstance(value, CelEvalError)
                else f"condition gave {type(value).__name__}, not bool"
            )
            item["value"] = {"error": message}
            failed.append((rule, message))
    tally = pack.tally(point, matched, failed)
    by_id = {item["rule"]: item for item in candidates}
    # A condition that cannot be evaluated denies before the winners are looked at
    # (on_error: deny; CEL giving up on its budget denies whatever on_error says),
    # unless a stronger action than deny matched: the pack's combination, read.
    denier = next(
        (
            rule
            for rule, message in tally.failed
            if not rule.audit and (pack.on_error != "skip" or _gave_up_on(message))
        ),
        None,
    )
    if denier is not None and tally.strength > STRENGTH["deny"]:
        denier = None
    winners = {rule.full_id for rule in tally.winners}
    soft = {rule.full_id for rule in tally.soft}
    top = tally.winners[0].action if tally.winners else ""
    for rule in matched:
        item = by_id[rule.full_id]
        if rule.full_id in soft:
            item["verdict"] = (
                "an approval gate: lifted by the allow that matched"
                if tally.allowed
                else "an approval gate: the call waits for a person"
            )
        elif rule.action == "log":
            item["verdict"] = "log only: changes nothing"
        elif rule.audit:
            item["verdict"] = "audit mode: recorded as would_action, changes nothing"
        elif rule.full_id in winners and denier is not None:
            item["verdict"] = f"outranked: the condition error of {denier.full_id} denies first"
        elif rule.full_id in winners:
            first = rule is tally.winners[0]
            item["verdict"] = (
                f"wins: the strongest action that matched ({rule.action}, strength "
                f"{rule.strength})"
                + ("" if first else "; the first of its action in the file gives the reason")
            )
        else:
            item["verdict"] = f"outranked by {top} (strength {STRENGTH[top]} > {rule.strength})"
    for rule, message in failed:
        item = by_id[rule.full_id]
        if rule.full_id in soft:
            item["verdict"] = "an approval gate whose condition failed: it gates the call"
        elif rule is denier:
            item["verdict"] = (
                "condition error: denies (CEL gave up: whatever on_error says)"
                if _gave_up_on(message)
                else "condition error: denies (on_error: deny)"
            )
        elif rule.audit or pack.on_error == "skip":
            item["verdict"] = f"condition error: skipped (on_error: {pack.on_error})"
        elif denier is None:
            item["verdict"] = f"condition error: would deny, but {top} is stronger"
        else:
            item["verdict"] = f"condition error: {denier.full_id} denies first"
    result: dict[str, Any] = {"kind": "pack", "candidates": candidates}
    if not rules:
        result["note"] = f"no rule of this pack applies to {tool or 'this point'}"
    if tally.would is not None:
        result["would_action"] = str(tally.would.value)
    return result


#: The actions that end the chain, as decisions spell them.
_ENDS = frozenset(str(action.value) for action in TERMINAL)


def _reconcile(hooks: list[dict[str, Any]], final: Mapping[str, Any]) -> None:
    """Hooks the walk could not ask, and hooks after the one that ended the chain, as
    the final decision tells."""
    ender = final.get("hook")
    # (a modify names the hook that rewrote: the chain went on after it)
    if not ender or final.get("action") not in _ENDS:
        return
    names = [entry["hook"] for entry in hooks]
    if ender not in names:
        return
    after = False
    for entry in hooks:
        if after:
            entry["status"] = "not reached"
            entry["note"] = f"the chain stopped at {ender}"
            entry.pop("said", None)
        elif entry["hook"] == ender:
            after = True
            if entry.get("status") == "not asked":
                entry["said"] = {
                    key: final[key] for key in ("action", "reason", "rule_ids") if key in final
                }
                entry["note"] = f"{entry['note']} (what it said: from the final decision)"


def _why(
    hooks: Sequence[Mapping[str, Any]],
    final: Mapping[str, Any],
    stopped: Decision | None,
    locations: Mapping[str, str],
) -> str:
    """One sentence: what decided the call."""
    if not final:
        return "no decision at this point (observers only)"
    if "approved" in final:
        verdict = "approved" if final["approved"] else "refused"
        return f"{verdict}: {final.get('reason', '')}"
    action = final.get("action", "")
    ender = final.get("hook")
    rule_ids = list(final.get("rule_ids", ()))
    if ender and action in _ENDS:
        entry = next((h for h in hooks if h["hook"] == ender), None)
        won = [
            c
            for c in (entry or {}).get("candidates", ())
            if str(c.get("verdict", "")).startswith(("wins", "condition error: denies"))
        ]
        if won:
            rule = won[0]
            value = rule.get("value")
            shown = "true" if value is True else f"error: {value['error']}"
            where = f" at {rule['at']}" if rule.get("at") else ""
            return (
                f"{ender} ended the chain with {action}: rule {rule['rule']}{where} "
                f"(condition {shown}) — {rule['verdict']}"
            )
        reason = final.get("reason", "")
        located = [f"{r} at {locations[r]}" for r in rule_ids if r in locations]
        text = f"{ender} ended the chain with {action}" + (f": {reason}" if reason else "")
        return text + (f" ({', '.join(located)})" if located else "")
    if not rule_ids and not final.get("needs_approval") and action == "continue":
        return "no rule matched: no hook objected, the call goes ahead as asked"
    parts = []
    if rule_ids:
        named = [f"{r} ({locations[r]})" if r in locations else r for r in rule_ids]
        parts.append(f"rule(s) {', '.join(named)} matched")
    if final.get("needs_approval"):
        parts.append("the call waits for approval")
    elif final.get("allowed"):
        parts.append("an allow rule let it through")
    if stopped is not None and str(stopped.action.value) != action:
        parts.append(f"(the chain said {stopped.action.value}; the engine settled {action})")
    return f"{action}: " + "; ".join(parts) if parts else action


# -------------------------------------------------------------------- locations


def _locate(hooks: Sequence[dict[str, Any]], locations: Mapping[str, str]) -> None:
    """Each candidate rule's `at`."""
    for entry in hooks:
        for item in entry.get("candidates", ()):
            where = locations.get(item["rule"])
            if where:
                item["at"] = where


def _named_at(
    hooks: Sequence[Mapping[str, Any]],
    final: Mapping[str, Any],
    approval: Mapping[str, Any] | None,
    locations: Mapping[str, str],
) -> dict[str, str]:
    """`file:line` of every rule the report names: candidates, what each hook said,
    the final decision's `rule_ids` and the approval gates."""
    named: list[str] = [str(r) for r in final.get("rule_ids", ())]
    for entry in hooks:
        named += [str(item["rule"]) for item in entry.get("candidates", ())]
        said = entry.get("said")
        if isinstance(said, Mapping):
            named += [str(r) for r in said.get("rule_ids", ())]
    if approval is not None:
        named += [str(gate["rule"]) for gate in approval.get("gates", ())]
    return {rule: locations[rule] for rule in dict.fromkeys(named) if rule in locations}


# --------------------------------------------------------------------- approval


def approval_report(
    engine: Engine,
    call: ToolCall,
    gates: Sequence[ApprovalGate] | Decision,
    locations: Mapping[str, str],
) -> dict[str, Any]:
    """Who `approve_tool` would ask about `call`, asking no one: `gates` (the gates the
    packs put on it: each one's rule and `at`, who may approve, timeout, grants and
    message — or `refused`, the packs' own refusal of the call), `approvers` (every
    approver hook in the chain, in order, with whether it `covers` the call and its
    budget) and `would` (one sentence: what approve_tool would do)."""
    default = engine.settings.approval_timeout_ms / 1000
    report: dict[str, Any] = {}
    refused: Decision | None = gates if isinstance(gates, Decision) else None
    if refused is not None:
        report["refused"] = to_dict(refused)
        gates = ()
    assert not isinstance(gates, Decision)
    report["gates"] = [_gate(gate, default, locations) for gate in gates]
    approvers: list[dict[str, Any]] = []
    for reg, _method, _coroutine in engine.registrations_at(HookPoint.APPROVE_TOOL):
        budget = reg.timeout_ms / 1000 if reg.timeout_ms is not None else default
        approvers.append(
            {
                "hook": reg.name,
                "kind": _kind(reg),
                "covers": reg.covers_call(call),
                "timeout_s": budget,
            }
        )
    report["approvers"] = approvers
    report["would"] = _would(refused, report["gates"], approvers)
    return report


def _gate(gate: ApprovalGate, default: float, locations: Mapping[str, str]) -> dict[str, Any]:
    who = list(gate.approvers)
    people = "any identity matching " + ", ".join(who) if who else "anyone"
    people += " (the requester too)" if gate.self_approval else " but the requester"
    out: dict[str, Any] = {
        "rule": gate.source,
        **({"at": locations[gate.source]} if gate.source in locations else {}),
        "pack": gate.pack,
        "approvers": who,
        "who": people,
        "timeout_s": gate.timeout if gate.timeout is not None else default,
        "timeout_from": "the gate" if gate.timeout is not None else "approval_timeout_ms",
        "grants": list(gate.grants),
        "self_approval": gate.self_approval,
        "message": gate.message,
    }
    if gate.max_denials is not None:
        out["max_denials"] = gate.max_denials
    if gate.exempt_by_allow:
        out["exempt_by_allow"] = True
    return out


def _would(
    refused: Decision | None,
    gates: Sequence[Mapping[str, Any]],
    approvers: Sequence[Mapping[str, Any]],
) -> str:
    """What approve_tool would do, as the chain's approval plan orders it."""
    if refused is not None:
        return f"refuse without asking anyone: the policy refuses this call ({refused.reason})"
    asked = [str(a["hook"]) for a in approvers if a["covers"]]
    steps = []
    if asked:
        steps.append(f"approver hook(s) {', '.join(asked)}, in order")
    if gates:
        steps.append(f"the people of {len(gates)} gate(s): {'; '.join(g['who'] for g in gates)}")
    if not steps:
        return (
            "deny: approval is required, and no approver covers this call and no gate names anyone"
        )
    return "ask " + ", then ".join(steps) + "; the first denial wins"


def _explain_approval(
    engine: Engine,
    report: dict[str, Any],
    call: ToolCall,
    locations: Mapping[str, str],
    started: float,
) -> dict[str, Any]:
    """The explanation at approve_tool: who would be asked, and no final decision —
    asking would file a request and wait for a person."""
    start = time.perf_counter()
    found = engine.gates_for(call)
    approval = approval_report(engine, call, found, locations)
    report["hooks"] = []
    report["approval"] = approval
    report["final"] = {}
    report["at"] = _named_at([], {}, approval, locations)
    report["why"] = f"not decided (explaining asks no one): approve_tool would {approval['would']}"
    report["ms"] = {
        "facts": report.get("facts", {}).get("ms", 0.0),
        "hooks": _ms(start),
        "final": 0.0,
        "total": _ms(started),
    }
    return report
