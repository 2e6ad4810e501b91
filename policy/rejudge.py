"""Re-judging rewrites: the chain invariant, that the policy judged what will run.

A hook sorted after some packs or builtins — a process hook, a hosted Claude Code
hook, a code hook of higher priority — may rewrite a call (or a tool's output) those
already let through. The trusted packs and builtins then judge the rewrite once more,
as one more pass of the chain. Which of them judge again, and how, is a property of
each hook, read the way `state_needed` is: its `rejudge` attribute.

- `always` (the default): asked again, whole — pure rules and gates.
- `if_tool_changed`: asked again only when the rewrite changed the tool (tool_policy:
  its lists and rate limits then apply to the tool that will run; asked again on the
  same tool it would count the call twice).
- `checks`: asked its `rejudge_checks(call)` instead — what it checks without what it
  counts (contract_scope: tools, paths and expiry, not max_tool_calls again).
- `never`: not asked again (audit_hook records; the decision log has the final call).

A builtin that counts must say so here, on itself; the engine knows no builtin by name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal, cast

from policy._invoke import call_inline
from policy._lazy_dataclass import dataclass
from policy.chain import Fold, Normalizer, Registration
from policy.errors import HookRegistrationError
from policy.model import Action, Decision, HookPoint, ToolCall

__all__ = ["REJUDGE_MODES", "Judges", "Rejudge", "RejudgeMode", "judges_for", "mode_of"]

RejudgeMode = Literal["always", "if_tool_changed", "checks", "never"]
#: The values a hook's `rejudge` attribute may take (see the module docstring).
REJUDGE_MODES: tuple[RejudgeMode, ...] = ("always", "if_tool_changed", "checks", "never")

_BEFORE_TOOL = HookPoint.BEFORE_TOOL
_AFTER_TOOL = HookPoint.AFTER_TOOL
_RESPOND = Action.RESPOND
_MODIFY = Action.MODIFY


class Rejudge:
    """The second pass over rewrites, for one engine: keeps who judges per chain
    snapshot, and judges within the engine's interceptor budget."""

    def __init__(
        self,
        timeout: float,
        normalize_call: Normalizer,
        canonical: Callable[[ToolCall], ToolCall],
    ) -> None:
        self._timeout = timeout
        self._normalize_call = normalize_call
        self._canonical = canonical
        self._judges: dict[HookPoint, Judges] = {}

    def judges_of(self, snapshot: Any, point: HookPoint = _BEFORE_TOOL) -> Judges:
        """The packs and builtins that judge a rewrite at `point` again, for
        `snapshot` (kept until the chain changes)."""
        judges = self._judges.get(point)
        if judges is None or judges.snapshot is not snapshot:
            judges = self._judges[point] = judges_for(snapshot, point)
        return judges

    def result(self, decision: Decision, call: ToolCall, snapshot: Any) -> Decision:
        """The packs and builtins see the output the model will see (the chain
        invariant, after the tool): an output rewritten by a hook sorted after some of
        them — a hosted PostToolUse hook that formats or replaces it, a process hook —
        goes through them once more, so `credentials/redact-*` redacts what that hook
        made. Their rewrite is kept (the tool ran; redacting is the point), a stop ends
        the turn; nothing is judged a third time."""
        judges = self.judges_of(snapshot, _AFTER_TOOL)
        rewriter = decision.hook
        if not judges.must_judge(rewriter):
            return decision
        fold = Fold(_AFTER_TOOL, decision.result, None, decision.decision_id, call)
        timeout = self._timeout
        what = f"output rewritten by hook {rewriter!r}"
        for reg, judge, _ in judges.steps:
            budget = reg.timeout_ms / 1000 if reg.timeout_ms is not None else timeout
            value, failure = call_inline(judge, (call, fold.current), budget)
            ended = fold.take(reg, value, failure, budget)
            if ended is not None:
                return ended.replace(
                    reason=f"{what}; then {ended.reason}",
                    rule_ids=decision.rule_ids
                    + tuple(r for r in ended.rule_ids if r not in decision.rule_ids),
                )
        again = fold.result()
        if again.action is not _MODIFY:
            return decision
        return decision.replace(
            result=again.result,
            reason=f"{what}; then {again.reason or 'rewritten'} by {again.hook}",
            rule_ids=decision.rule_ids
            + tuple(r for r in again.rule_ids if r not in decision.rule_ids),
            ignored=decision.ignored + tuple(i for i in again.ignored if i not in decision.ignored),
        )

    def call(self, decision: Decision, asked: ToolCall, snapshot: Any) -> Decision:
        """Packs and builtins judge the arguments that will run (the chain invariant).

        The chain ran in order, so a call rewritten by a hook that sorts after some
        packs or builtins — a process hook, a hosted Claude Code hook, a code hook of
        higher priority — was let through by rules that judged the call before the
        rewrite. Here the trusted packs and builtins judge the rewritten call once
        more, as one more pass of the chain (the same Fold): a denial denies it, naming
        the rewrite; another rewrite denies it (a rewrite is judged once, never
        looped); an `ask` or a gate holds it for approval on top of what the first pass
        asked; an `allow` rule is what this pass says, since one that matched the
        call before its rewrite vouches for nothing. A rewrite by a pack or builtin
        itself, or by a hook sorted before every one of them, is not judged again:
        everything after it saw the final call already.

        The judges are pure, so running them twice changes nothing but time, except
        what counts calls; each hook says how it is judged again (its `rejudge`,
        `REJUDGE_MODES`): `contract_scope` is asked only its `rejudge_checks` (its
        max_tool_calls / max_runtime counted the call once already), `tool_policy`
        only when the rewrite changed the tool, `audit_hook` not at all.
        """
        judges = self.judges_of(snapshot)
        rewriter = decision.hook
        if not judges.must_judge(rewriter):
            return decision
        rewritten = decision.call
        assert rewritten is not None
        original = self._canonical(asked)
        fold = Fold(_BEFORE_TOOL, rewritten, self._normalize_call, decision.decision_id, None)
        timeout = self._timeout
        ended: Decision | None = None
        by = ""
        for reg, judge, if_tool_changed in judges.steps:
            if if_tool_changed and rewritten.tool == original.tool:
                continue
            budget = reg.timeout_ms / 1000 if reg.timeout_ms is not None else timeout
            value, failure = call_inline(judge, (fold.current,), budget)
            ended = fold.take(reg, value, failure, budget)
            if ended is not None:
                by = _judged_by(reg.name, value if failure is None else None)
                break
        rule_ids = decision.rule_ids
        ignored = decision.ignored
        what = f"rewritten by hook {rewriter!r} into {_shown(rewritten)}"
        if ended is not None:
            rule_ids += tuple(r for r in ended.rule_ids if r not in rule_ids)
            ignored += tuple(i for i in ended.ignored if i not in ignored)
            if ended.action is _RESPOND:
                return ended.replace(
                    reason=f"{what}; answered by {by}: {ended.reason}",
                    call=rewritten,
                    rule_ids=rule_ids,
                    ignored=ignored,
                )
            return ended.replace(
                reason=f"{what}; denied by {by}: {ended.reason}",
                call=rewritten,
                rule_ids=rule_ids,
                ignored=ignored,
                needs_approval=False,
                allowed=False,
                gates=(),
            )
        again = fold.result()
        rule_ids += tuple(r for r in again.rule_ids if r not in rule_ids)
        ignored += tuple(i for i in again.ignored if i not in ignored)
        if again.action is _MODIFY:
            final = again.call
            assert final is not None
            if final.tool != rewritten.tool or final.args != rewritten.args:
                return decision.replace(
                    action=Action.DENY_TOOL,
                    reason=(
                        f"{what}; {again.hook} would rewrite it again into {_shown(final)} "
                        f"({again.reason or 'modify'}): denied, a rewrite is judged once"
                    ),
                    hook=again.hook,
                    rule_ids=rule_ids,
                    ignored=ignored,
                    needs_approval=False,
                    allowed=False,
                    gates=(),
                )
        gates = decision.gates + tuple(g for g in again.gates if g not in decision.gates)
        held = decision.needs_approval or again.needs_approval
        reason = decision.reason
        if (again.needs_approval or again.allowed) and again.reason:
            reason = f"{what}; {again.reason}"
        return decision.replace(
            reason=reason,
            rule_ids=rule_ids,
            ignored=ignored,
            needs_approval=held,
            gates=gates,
            allowed=again.allowed and not held,
        )


@dataclass(frozen=True, slots=True)
class Judges:
    """Who judges a rewrite at one point again (`Rejudge.call`,
    `Rejudge.result`), for one chain snapshot."""

    snapshot: object
    #: Every trusted pack and builtin at before_tool: a rewrite of theirs is the policy's.
    names: frozenset[str]
    #: Position of every before_tool hook in the chain, and of its first judge.
    order: Mapping[str, int]
    first: int
    #: (registration, how it judges, only when the rewrite changed the tool), in order.
    steps: tuple[tuple[Registration, Callable[[ToolCall], Any], bool], ...]

    def must_judge(self, rewriter: str | None) -> bool:
        """Whether a rewrite by `rewriter` is judged again: not when it is a judge's
        own (the policy's), nor when it came before every judge (they all saw it)."""
        if not self.steps or rewriter in self.names:
            return False
        position = self.order.get(rewriter) if rewriter is not None else None
        return position is None or position >= self.first


def judges_for(snapshot: Any, point: HookPoint) -> Judges:
    """Who judges a rewrite at `point` again in `snapshot`: every trusted pack and
    builtin, each as its `rejudge` attribute says (`always` when it has none)."""
    entries = snapshot.at[point]
    order = {reg.name: index for index, (reg, _, _) in enumerate(entries)}
    names: set[str] = set()
    steps: list[tuple[Registration, Callable[[ToolCall], Any], bool]] = []
    first = len(entries)
    for index, (reg, method, coroutine) in enumerate(entries):
        if not (reg.trusted and reg.name.startswith(("pack:", "builtin:"))) or coroutine:
            continue
        names.add(reg.name)
        first = min(first, index)
        mode = mode_of(reg.hook)
        if mode == "never":
            continue
        if mode == "checks":
            steps.append((reg, reg.hook.rejudge_checks, False))
        else:
            steps.append((reg, method, mode == "if_tool_changed"))
    return Judges(snapshot, frozenset(names), order, first, tuple(steps))


def mode_of(hook: object) -> RejudgeMode:
    """How `hook` is judged again: its `rejudge` attribute, `always` without one; a
    value that is not a mode is an error at registration (policy.chain), never a
    hook silently skipped."""
    mode = getattr(hook, "rejudge", "always")
    if mode not in REJUDGE_MODES:
        raise HookRegistrationError(
            f"hook {getattr(hook, 'name', hook)!r}: rejudge must be one of "
            f"{', '.join(REJUDGE_MODES)}, not {mode!r}"
        )
    if mode == "checks" and not callable(getattr(hook, "rejudge_checks", None)):
        raise HookRegistrationError(
            f"hook {getattr(hook, 'name', hook)!r}: rejudge = 'checks' needs a "
            "rejudge_checks(call) method"
        )
    return cast("RejudgeMode", mode)


def _shown(call: ToolCall) -> str:
    """A rewritten call, short, for a reason: its command when it has one."""
    command = call.args.get("command")
    if isinstance(command, str):
        text = f"{call.tool} {command!r}"
    else:
        from policy.digest import canonical_json

        text = f"{call.tool} {canonical_json(call.args).decode()}"
    return text if len(text) <= 300 else text[:297] + "..."


def _judged_by(hook: str, answer: Any) -> str:
    """`rule ID (hook)` for the rule whose answer decided (a pack names the rule that
    won first), or the hook alone."""
    rule_ids = getattr(answer, "rule_ids", None)
    if isinstance(rule_ids, tuple | list) and rule_ids and isinstance(rule_ids[0], str):
        return f"rule {rule_ids[0]} ({hook})"
    return hook
