"""What `policy hook claude|agentao` answers to one event: the engine decides, and the
decision is put the way Claude Code (or Agentao) reads it.

No protocol I/O and no failure handling here: `claude.hook_process` reads the payload,
prints what `decide` returns (None: no opinion, the host's own permission rules apply) and turns
anything raised into a refusal. A call that needs approval goes to the host's own
dialog (`ask`) or to the approvers the policy names (`wait`, `defer`), as `--approval`
and `route_approval` say.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from policy._json_bytes import loads
from policy.hosts.claude.wire import (
    EVENTS,
    HookEvent,
    answer_post_tool,
    answer_pre_tool,
    answer_prompt,
    answer_rewritten,
    answer_stop_turn,
    call_of,
    prompt_of,
    result_of,
    with_pre_tool_context,
)

__all__ = ["decide", "route_approval", "waits_for_approvers"]


def route_approval(approval: str, decision: Any) -> str:
    """`ask` (the host's own dialog), `wait` or `defer` for a call that needs approval.

    `auto` sends a call whose gates name approvers to them — deferred, since a person
    may take longer than any hook timeout — and anything else to the host's dialog.
    The host's dialog is never where a named approver's gate ends up unless the
    operator chose `--approval ask`."""
    if approval != "auto":
        return approval
    named = any(gate.approvers for gate in decision.gates)
    return "defer" if named else "ask"


def _approve(
    engine: Any,
    decision: Any,
    call: Any,
    mode: str,
    budget: float | None,
    updated: dict[str, Any] | None,
    per_event: bool = True,
) -> dict[str, Any]:
    """Ask the gates' approvers (waiting within `budget`, or deferring) and answer.
    `per_event`: this process ends with the event (else it is `policy serve`, which
    keeps its store, and whose own files are its own to write)."""
    if per_event and engine.settings.approvals_store_uri.startswith("memory:"):
        return answer_pre_tool(
            "deny",
            "approvals_store is memory://: nobody outside this one-event process can "
            "approve the call; use the default (sqlite under data_dir) or redis://",
        )
    if mode == "wait" and budget is not None and budget <= 0:
        return answer_pre_tool("deny", "no time left before --deadline to wait for approval")
    if per_event:
        _warn_trust_once(engine, decision)
    # Waiting is bounded by --deadline; a deferred request is not waited on here, so it
    # keeps the whole of its gates' timeout for the approvers to answer in.
    defer = mode == "defer"
    answer = engine.approve_tool(
        call, gates=decision.gates, defer=defer, timeout=None if defer else budget
    )
    if not answer.approved:
        return answer_pre_tool("deny", answer.reason)
    return answer_pre_tool("allow", answer.reason, updated)


def _warn_trust_once(engine: Any, decision: Any) -> None:
    """Say, once per process, when approvals named in the policy rest on files this
    uid could rewrite: then they stop mistakes, not a hostile agent (docs/approvals.md)."""
    global _TRUST_WARNED
    if _TRUST_WARNED or not any(gate.approvers for gate in decision.gates):
        return
    _TRUST_WARNED = True
    from policy.approvals.identity import writable_by_self

    settings = engine.settings
    store = settings.approvals_store_uri
    paths = [*settings.packs, *settings.protected_paths]
    if os.environ.get("POLICY_CONFIG"):
        paths.append(Path(os.environ["POLICY_CONFIG"]))
    if store.startswith("sqlite:///"):
        paths.append(Path(store[len("sqlite:///") :]))
    writable = [path for path, _why in writable_by_self(paths)]
    if not writable:
        return
    message = (
        f"approvals name approvers, but uid {os.getuid()} (this hook's, the agent's) can "
        f"write {', '.join(str(p) for p in writable)}: with one uid, approvals stop "
        "mistakes, not a hostile agent (docs/approvals.md, trust model)"
    )
    sys.stderr.write(f"policy: warning: {message}\n")
    engine.note("approval.trust_warning", {"message": message, "paths": [str(p) for p in writable]})


_TRUST_WARNED = False


def waits_for_approvers(decision: Any, approval: str) -> bool:
    """Whether answering a PreToolUse `decision` waits for people (`--approval wait`,
    a call that needs approval): the part a service runs apart from deciding."""
    return bool(decision.needs_approval) and route_approval(approval, decision) == "wait"


def _pre_tool(
    engine: Any,
    event: HookEvent,
    approval: str,
    budget: float | None = None,
    per_event: bool = True,
    decided: Any = None,
) -> dict[str, Any] | None:
    call = call_of(event)
    decision = decided if decided is not None else engine.before_tool(call)
    answer = _pre_tool_answer(engine, event, call, decision, approval, budget, per_event)
    # Context hooks added for the model goes with whatever the answer is: Claude Code
    # shows it after the tool's result, or after a refusal's reason.
    return with_pre_tool_context(answer, decision.context)


def _pre_tool_answer(
    engine: Any,
    event: HookEvent,
    call: Any,
    decision: Any,
    approval: str,
    budget: float | None,
    per_event: bool,
) -> dict[str, Any] | None:
    from policy.model import Action

    action = decision.action
    if action in (Action.ABORT_TURN, Action.HARD_ABORT):
        return {**answer_pre_tool("deny", decision.reason), **answer_stop_turn(decision.reason)}
    if action is Action.DENY_TOOL:
        return answer_pre_tool("deny", decision.reason)
    if action is Action.RESPOND:
        # A hook cannot hand Claude Code a tool result: the call is refused and the
        # policy's answer travels in the reason, which the model reads — once its
        # approvers allowed it, when the respond is held for them.
        text = decision.result.for_llm if decision.result is not None else ""
        if decision.needs_approval:
            mode = route_approval(approval, decision)
            if mode == "ask":
                # Claude Code's dialog would run the tool itself, not give this answer.
                return answer_pre_tool(
                    "deny", "the policy's answer to this call waits for its approvers"
                )
            held = _approve(engine, decision, decision.call or call, mode, budget, None, per_event)
            if held["hookSpecificOutput"]["permissionDecision"] != "allow":
                return held
        return answer_pre_tool("deny", f"answered by policy: {text}")
    updated = None
    if action is Action.MODIFY and decision.call is not None:
        if decision.call.tool != engine.aliases.canonical(call.tool):
            # The host takes new arguments, never another tool: it would run them under
            # the tool it asked for, which is not the call the policy judged.
            return answer_pre_tool(
                "deny",
                f"the policy rewrites this {call.tool} call into a {decision.call.tool} call "
                f"({decision.reason or 'modify'}), and Claude Code cannot change a call's tool",
            )
        # Agentao 0.5.17 applies updatedInput to Claude-shaped (nested hooks.json)
        # payloads only; its flat envelope (`Dialect.flat_payloads`) would run the call
        # unrewritten.
        if event.flat:
            return answer_pre_tool(
                "deny",
                f"the policy rewrites this call ({decision.reason or 'modify'}), and "
                f"{event.dialect.display} cannot apply rewritten input",
            )
        from policy.codec import to_dict

        updated = to_dict(decision.call).get("args", {})
    if decision.needs_approval:
        mode = route_approval(approval, decision)
        if mode == "ask":
            return answer_pre_tool("ask", decision.reason or "a person must approve", updated)
        return _approve(engine, decision, decision.call or call, mode, budget, updated, per_event)
    if updated is not None:
        if decision.allowed or decision.allowed_by or not event.dialect.allow_skips_permissions:
            # An `allow` rule judged the rewritten call (the engine judges a rewrite
            # again: chain invariant), or a hosted hook allowed it (an MCP rewrite its
            # hook also allowed). Agentao's `allow` lifts none of its own checks.
            return answer_pre_tool("allow", decision.reason or "rewritten by policy", updated)
        # A rewrite is no verdict: Claude Code applies `updatedInput` alone and its own
        # permission rules then decide on the rewritten input (checked by running it).
        return answer_rewritten(updated)
    if decision.allowed:
        return answer_pre_tool("allow", decision.reason or "allowed by policy")
    if decision.allowed_by:
        # A hosted hook's `allow` (an auto-approver), with nothing denying or asking: the
        # engine drops it otherwise, or when `claude_hooks_allow: ignore`.
        return answer_pre_tool("allow", decision.reason or f"allowed by hook {decision.allowed_by}")
    return None  # no rule decided: the host's own permission rules apply


def _post_tool(engine: Any, event: HookEvent) -> dict[str, Any] | None:
    from policy.hosts.claude.context import result_context
    from policy.model import Action

    original = result_of(event)
    decision = engine.after_tool(call_of(event), original)
    if decision.action in (Action.ABORT_TURN, Action.HARD_ABORT):
        return answer_stop_turn(decision.reason)
    if decision.action is not Action.MODIFY or decision.result is None:
        return None
    text = decision.result.for_llm
    context = result_context(original.for_llm, text)
    if context is not None:  # a hook only added to the output: context, not a block
        return {"hookSpecificOutput": {"hookEventName": event.name, "additionalContext": context}}
    if event.name == "PostToolUse":
        replaced = _replacement(event, text)
        if replaced is not None:
            return {"hookSpecificOutput": {"hookEventName": event.name, **replaced}}
    # The model gets the original output in the tool result; the rewritten one can only
    # follow it, as the block reason (PostToolUseFailure accepts nothing else).
    return answer_post_tool(
        event.name,
        f"policy rewrote this tool output ({decision.reason}); use this instead: {text}",
    )


def _replacement(event: HookEvent, text: str) -> dict[str, Any] | None:
    """The field that makes Claude Code replace the tool's output with `text` (checked
    with 2.1.332 and 2.1.197, tools/claude-facts/round2): `updatedMCPToolOutput` for an
    MCP tool (its content blocks, or the text); `updatedToolOutput` for a built-in tool,
    which Claude Code takes only in the tool's own output shape — so only when the
    rewritten text is that object again (the same keys as the original response)."""
    from policy.hosts.claude.names import is_mcp

    try:
        parsed = loads(text)
    except ValueError:  # (orjson's error is a ValueError)
        parsed = None
    if is_mcp(event.tool):
        blocks = isinstance(parsed, list) and all(
            isinstance(b, dict) and "type" in b for b in parsed
        )
        return {"updatedMCPToolOutput": parsed if blocks else text}
    original = event.tool_response
    if isinstance(original, dict) and isinstance(parsed, dict) and parsed.keys() == original.keys():
        return {"updatedToolOutput": parsed}
    return None


def _prompt(engine: Any, event: HookEvent) -> dict[str, Any] | None:
    from policy.hosts.claude.context import prompt_context
    from policy.model import Action

    decision = engine.user_prompt(prompt_of(event))
    if decision.action in (Action.ABORT_TURN, Action.HARD_ABORT):
        return answer_prompt(decision.reason or "prompt refused by policy", flat=event.flat)
    if decision.action is Action.MODIFY and decision.prompt is not None:
        context = prompt_context(event.prompt, decision.prompt.text)
        if context is not None:  # a hook only added context: pass it on, do not block
            if event.flat:
                return {"additionalContext": context}
            return {
                "hookSpecificOutput": {
                    "hookEventName": "UserPromptSubmit",
                    "additionalContext": context,
                }
            }
        return answer_prompt(
            f"policy rewrote this prompt ({decision.reason}); resend it as: {decision.prompt.text}",
            flat=event.flat,
        )
    return None


def _stop(engine: Any, event: HookEvent) -> dict[str, Any] | None:
    """Stop / SubagentStop: `decision: "block"` with the instruction the hooks left
    keeps the agent going; `abort_turn` ends the turn with its reason (`continue:
    false`, which Claude Code lets win over a block); anything else lets it stop."""
    from policy.hosts.claude.wire import answer_stop, stop_of
    from policy.model import Action

    decision = engine.decide_at("stop", stop_of(event))
    if decision.action in (Action.ABORT_TURN, Action.HARD_ABORT):
        return answer_stop_turn(decision.reason or "turn ended by policy")
    if decision.stop is not None and decision.stop.instruction:
        return answer_stop(decision.stop.instruction)
    return None


def _observe(engine: Any, event: HookEvent) -> None:
    from policy.model import Event

    engine.emit(Event(kind=f"{event.dialect.host_id}.{event.name}", payload=dict(event.raw or {})))


def decide(
    engine: Any,
    event: HookEvent,
    approval: str,
    budget: float | None = None,
    *,
    per_event: bool = True,
    decided: Any = None,
) -> dict[str, Any] | None:
    """The answer to print for `event` (None: no opinion); `budget` (seconds) caps a
    wait for approval. The event's point of our chain (`EVENTS`) says what decides it;
    an event with none is only observed. `per_event` False: `policy serve` decides it
    for a thin hook, with the service's long-lived store. `decided`: the before_tool
    Decision of a PreToolUse event, when the caller judged the call already (a service
    judges on its deciding threads, and waits for approvers on others)."""
    point = EVENTS[event.name]
    if point == "before_tool":
        return _pre_tool(engine, event, approval, budget, per_event, decided)
    if point == "after_tool":
        return _post_tool(engine, event)
    if point == "user_prompt":
        return _prompt(engine, event)
    if point == "stop":
        _observe(engine, event)  # observers heard `claude-code.Stop` before it had a point
        return _stop(engine, event)
    _observe(engine, event)
    return None
