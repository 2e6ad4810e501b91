"""`policy hook claude|agentao`: answer one command-hook event, and fail closed doing it.

Claude Code and Agentao start the command once per event, pipe the payload on stdin
and read the answer on stdout. Both let the call run when a hook crashes, hangs or
prints garbage, so this command never does any of that: whatever goes wrong — a bad
payload, a pack that does not load, an unreachable approval store, a bug here — is
printed as an explicit JSON refusal naming the error, with exit 0, and a watchdog
prints one if no answer is ready by `--deadline` (keep it below the host's hook
timeout: Claude Code's default is 60 s).

The decision log goes to stderr unless `audit_path` is set: stdout is the protocol.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any, NoReturn

import orjson

from policy.cli._protocol import abandon_approvals, encode_line, engine_for_protocol, on_signal
from policy.hosts.claude import (
    TOOL_EVENTS,
    HookEvent,
    answer_denied,
    answer_post_tool,
    answer_pre_tool,
    answer_prompt,
    answer_stop_turn,
    event_of,
)

_HOSTS = {"claude": "claude-code", "agentao": "agentao"}


class _Answer:
    """Prints at most one answer, from the main thread or the watchdog."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = False
        self.event: str | None = None
        self.flat = False

    def give(self, answer: dict[str, Any] | None) -> None:
        line = encode_line(answer) if answer is not None else b""
        with self._lock:
            if self._done:
                return
            self._done = True
            sys.stdout.buffer.write(line)
            sys.stdout.flush()

    def refuse(self, reason: str) -> None:
        self.give(answer_denied(self.event, reason, flat=self.flat))


def _engine(args: argparse.Namespace) -> Any:
    """The engine for this event.

    Settings come without pydantic-settings (≈ 110 ms of imports, per event) when
    nothing configures them, or when the same settings file — one the user could
    change anyway, with no POLICY_* variable beside it — was validated before
    (policy._default_settings); anything else goes through `load_settings`, with its
    validation and messages, and is remembered when valid and cacheable. Compiled
    packs come from the pack cache under data_dir when their files have not changed
    and the user controls them (policy.packs.cache): a cache the governed agent can
    write must never grant what the policy files do not.
    """

    from policy import _default_settings as fast

    # A FastSettings stands in for a Settings: it carries every attribute the engine
    # reads (tests/test_hook_cold_start.py holds it to Settings).
    settings: Any = fast.unconfigured(args.config)
    if settings is None:
        key = fast.settings_key(args.config)
        settings = fast.cached(key)
        if settings is None:
            from policy.settings import load_settings

            settings = load_settings(args.config)
            fast.remember(args.config, key, settings)
    update: dict[str, Any] = {}
    if args.packs:
        update["packs"] = [Path(p) for p in args.packs]
    # Where the agent works, when the operator did not say: Claude Code (and Agentao
    # for Claude-shaped hooks) name the project in the hook's environment; the
    # payload's cwd is the agent's to choose, so it is judged, not trusted.
    project = os.environ.get("CLAUDE_PROJECT_DIR", "")
    if settings.workspace is None and project.startswith("/"):
        update["workspace"] = project
    if args.config is not None:
        update["protected_paths"] = [*settings.protected_paths, Path(args.config)]
    if update:
        settings = settings.model_copy(update=update)
    return engine_for_protocol(settings, per_event=True)


def _call(event: HookEvent) -> Any:
    from policy.model import ToolCall

    return ToolCall(
        tool=event.tool,
        args=dict(event.tool_input or {}),
        session=event.session,
        cwd=event.cwd,
        sender=event.sender,
        host=_HOSTS[event.host],
        call_id=event.tool_use_id,
    )


#: Time kept back from --deadline for logging and printing the answer after a wait.
_ANSWER_MARGIN = 1.0


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
) -> dict[str, Any]:
    """Ask the gates' approvers (waiting within `budget`, or deferring) and answer."""
    if engine.settings.approvals_store_uri.startswith("memory:"):
        return answer_pre_tool(
            "deny",
            "approvals_store is memory://: nobody outside this one-event process can "
            "approve the call; use the default (sqlite under data_dir) or redis://",
        )
    if mode == "wait" and budget is not None and budget <= 0:
        return answer_pre_tool("deny", "no time left before --deadline to wait for approval")
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
    from policy._private import writable_by_self

    settings = engine.settings
    store = settings.approvals_store_uri
    paths = [*settings.packs, *settings.protected_paths]
    if store.startswith("sqlite:///"):
        paths.append(Path(store[len("sqlite:///") :]))
    writable = writable_by_self(paths)
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


def _pre_tool(
    engine: Any, event: HookEvent, approval: str, budget: float | None = None
) -> dict[str, Any] | None:
    from policy.codec import to_dict
    from policy.model import Action

    call = _call(event)
    decision = engine.before_tool(call)
    action = decision.action
    if action in (Action.ABORT_TURN, Action.HARD_ABORT):
        return {**answer_pre_tool("deny", decision.reason), **answer_stop_turn(decision.reason)}
    if action is Action.DENY_TOOL:
        return answer_pre_tool("deny", decision.reason)
    if action is Action.RESPOND:
        # A hook cannot hand Claude Code a tool result: the call is refused and the
        # policy's answer travels in the reason, which the model reads.
        text = decision.result.for_llm if decision.result is not None else ""
        return answer_pre_tool("deny", f"answered by policy: {text}")
    updated = None
    if action is Action.MODIFY and decision.call is not None:
        # Agentao 0.5.17 applies updatedInput to Claude-shaped (nested hooks.json)
        # payloads only; its flat envelope would run the call unrewritten.
        if event.host == "agentao" and event.flat:
            return answer_pre_tool(
                "deny",
                f"the policy rewrites this call ({decision.reason or 'modify'}), and Agentao "
                "cannot apply rewritten input",
            )
        updated = to_dict(decision.call).get("args", {})
    if decision.needs_approval:
        mode = route_approval(approval, decision)
        if mode == "ask":
            return answer_pre_tool("ask", decision.reason or "a person must approve", updated)
        return _approve(engine, decision, decision.call or call, mode, budget, updated)
    if updated is not None:
        return answer_pre_tool("allow", decision.reason or "rewritten by policy", updated)
    if decision.allowed:
        return answer_pre_tool("allow", decision.reason or "allowed by policy")
    return None  # no rule decided: the host's own permission rules apply


def _post_tool(engine: Any, event: HookEvent) -> dict[str, Any] | None:
    from policy.model import Action, ToolResult

    response = event.tool_response
    text = response if isinstance(response, str) else orjson.dumps(response).decode()
    result = ToolResult(for_llm=text, is_error=event.name == "PostToolUseFailure")
    decision = engine.after_tool(_call(event), result)
    if decision.action in (Action.ABORT_TURN, Action.HARD_ABORT):
        return answer_stop_turn(decision.reason)
    if decision.action is Action.MODIFY and decision.result is not None:
        # The tool already ran and its output reached the transcript; the host cannot
        # swap it. The rewritten output goes back to the model as the block reason.
        return answer_post_tool(
            event.name,
            f"policy rewrote this tool output ({decision.reason}); use this instead: "
            f"{decision.result.for_llm}",
        )
    return None


def _prompt(engine: Any, event: HookEvent) -> dict[str, Any] | None:
    from policy.model import Action, Prompt

    decision = engine.user_prompt(
        Prompt(text=event.prompt, session=event.session, cwd=event.cwd, sender=event.sender)
    )
    if decision.action in (Action.ABORT_TURN, Action.HARD_ABORT):
        return answer_prompt(decision.reason or "prompt refused by policy", flat=event.flat)
    if decision.action is Action.MODIFY and decision.prompt is not None:
        return answer_prompt(
            f"policy rewrote this prompt ({decision.reason}); resend it as: {decision.prompt.text}",
            flat=event.flat,
        )
    return None


def _observe(engine: Any, event: HookEvent) -> None:
    from policy.model import Event

    engine.emit(Event(kind=f"{_HOSTS[event.host]}.{event.name}", payload=dict(event.raw or {})))


def decide(
    engine: Any, event: HookEvent, approval: str, budget: float | None = None
) -> dict[str, Any] | None:
    """The answer to print for `event` (None: no opinion); `budget` (seconds) caps a
    wait for approval."""
    if event.name == "PreToolUse":
        return _pre_tool(engine, event, approval, budget)
    if event.name in TOOL_EVENTS:
        return _post_tool(engine, event)
    if event.name == "UserPromptSubmit":
        return _prompt(engine, event)
    _observe(engine, event)
    return None


def run(args: argparse.Namespace) -> int:
    if args.host == "picoclaw":  # a long-running process hook, not one event
        from policy.cli.picoclaw_cmd import run as serve

        return serve(args)
    _answer_one(args)
    return _end_process()  # never returns: the process ends here


def _end_process() -> NoReturn:
    """End this one-event process now that its work is done, skipping interpreter teardown.

    The answer is printed, the engine closed (observers delivered, stores and the
    decision log closed); what is left of a normal exit is tearing down every module
    and the CEL library's C++ state, ≈ 15 ms — a sixth of the whole run — that nobody
    waits for but the host. Exit status 0, as `run` always returns.
    """
    for stream in (sys.stdout, sys.stderr):
        # A closed pipe: nothing more can reach the host anyway.
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(0)


def _answer_one(args: argparse.Namespace) -> None:
    """Read the event, decide it and print the answer (or a refusal); never raises."""
    answer = _Answer()
    ends_at = time.monotonic() + args.deadline
    engine = None

    def give_up(reason: str) -> NoReturn:
        answer.refuse(reason)
        hosted = sys.modules.get("policy.hosted.jsonrpc")
        if hosted is not None:  # process hooks run in their own sessions: end them too
            hosted.kill_all()
        # A request this process waited on is expired and its denial logged, so nobody
        # approves a call that was refused; then the process ends (the main thread may
        # be stuck, and the answer is out).
        abandon_approvals(engine, reason)
        _end_process()

    watchdog = threading.Timer(
        args.deadline,
        give_up,
        (f"policy hook gave no answer within {args.deadline:g} s (failed closed)",),
    )
    watchdog.daemon = True
    watchdog.start()
    on_signal(give_up)
    try:
        raw = sys.stdin.buffer.read()
        try:
            payload = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            answer.refuse(f"policy hook failed closed: the payload is not JSON: {exc}")
            return
        if isinstance(payload, dict):
            name = payload.get("hook_event_name", payload.get("event"))
            answer.event = name if isinstance(name, str) else None
            answer.flat = "hook_event_name" not in payload and "data" in payload
        event = event_of(payload, args.host)
        engine = _engine(args)
        budget = ends_at - time.monotonic() - _ANSWER_MARGIN
        answer.give(decide(engine, event, args.approval, budget))
    except Exception as exc:  # noqa: BLE001 - every failure becomes an explicit refusal
        answer.refuse(f"policy hook failed closed: {type(exc).__name__}: {exc}")
    finally:
        # The watchdog keeps running through close: a host that waits past its hook
        # timeout treats the hook as failed (and lets the call run), answer or not.
        if engine is not None:
            try:
                engine.close()
            except Exception as exc:  # noqa: BLE001 - the answer is out; say why on stderr
                sys.stderr.write(f"policy: closing the engine failed: {exc}\n")
        watchdog.cancel()
