"""`policy hook picoclaw`: a PicoClaw process hook (JSON-RPC 2.0, one message per line).

PicoClaw starts the command once and keeps it: requests and notifications arrive on
stdin, answers leave on stdout (protocol lines only; the decision log goes to stderr
unless `audit_path` is set). A request is answered by the thread that read it, or by
a worker thread while that one is held up (`serve_lines`) — approvals always by workers
of their own, so calls waiting for a person never hold up an interceptor, which PicoClaw
would skip if it answered late — and answers carry the request's id and may come out
of order, as PicoClaw allows.

Fail closed: PicoClaw skips an interceptor that errors or times out, so interceptors
always get a result — deny_tool or abort_turn naming the error when deciding fails,
including when the packs did not load at start — never a JSON-RPC error — and get it
in time: a watchdog answers each interceptor request with that refusal at
`min(--deadline, 4 s)` unless its decision did first (PicoClaw's interceptor timeout is
5 s by default; past it the call runs unguarded). A decision held up — a decision log
whose lock another process holds, a locked state store, a hosted hook that hangs —
is refused, never skipped. Lines that
are not JSON get a -32700 error with id null; unknown methods -32601. EOF on stdin
withdraws the approval requests still waiting and ends the process.

Approvals: PicoClaw asks `hook.approve_tool` about every call its interceptors let
through; before_tool writes down what it decided in the `ledger`, approve_tool takes
it from there. When hello did not list mode `tool`, our before_tool never runs:
approve_tool decides the call.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import orjson

from policy.audit import cut
from policy.hosts._hook_process import (
    EngineSlot,
    Output,
    Reply,
    Watch,
    Watchdog,
    abandon_approvals,
    drain,
    encode_line,
    end_process,
    failed_closed,
    log_refusal,
    no_answer_within,
    note,
    on_signal,
    serve_lines,
)
from policy.hosts.picoclaw import wire
from policy.hosts.picoclaw.ledger import Ledger, TooManyPending, key_of
from policy.model import POINTS, Event, HookPoint

if TYPE_CHECKING:
    from collections.abc import Callable

    from policy.hosts.hook_command import HookCommand

__all__ = ["run"]

_PARSE_ERROR = -32700
_INVALID_REQUEST = -32600
_METHOD_NOT_FOUND = -32601
_INTERNAL_ERROR = -32603
_WORKERS = 16  # interceptors, observers
_APPROVAL_WORKERS = 64  # approve_tool: each may wait for a person
#: The result each interceptor gets when deciding failed (never a JSON-RPC error,
#: which PicoClaw would take as "skip this hook").
#: What each method answers when deciding fails: the point's fail action (policy.model
#: POINTS), in PicoClaw's words — an approval is `{"approved": false}`.
_FAILED: dict[str, dict[str, Any]] = {
    f"hook.{spec.point.value}": (
        {"approved": False}
        if spec.point is HookPoint.APPROVE_TOOL
        else {"action": spec.fail_action.value}
    )
    for spec in POINTS.values()
    if spec.picoclaw
}
#: The requests PicoClaw skips the hook for when they are not answered within its
#: interceptor timeout (`approve_tool` is denied at its own; notifications get no answer).
_WATCHED = frozenset(method for method in _FAILED if method != "hook.approve_tool")
#: The latest a watched request is answered: under PicoClaw's default interceptor
#: timeout (5 s), whatever `--deadline` says (a shorter one is taken as given).
_BUDGET = 4.0
#: The longest line PicoClaw reads from a process hook, its newline included: its
#: reader's buffer (`processHookReadBufferSize`, `pkg/agent/hook_process.go`). On a
#: longer line that reader stops for good, so every later request of the session goes
#: unanswered, and PicoClaw skips the hook once each times out: the calls run
#: unguarded. An answer that long is one that echoes what it changes — a redacted tool
#: output or a rewritten conversation over 1 MiB — and it is refused instead.
_LINE_LIMIT = 1024 * 1024


class _UnknownMethod(Exception):
    pass


class _Server:
    def __init__(self, args: HookCommand) -> None:
        self._out = Output()
        # The engine, or why it could not start: then every answer refuses, naming it.
        self._slot = EngineSlot(args.config, args.packs, getattr(args, "server", None))
        self._modes: set[str] = set()
        self._ledger = Ledger()
        self._deadline = max(0.0, min(float(getattr(args, "deadline", _BUDGET)), _BUDGET))
        self._watchdog: Watchdog | None = None
        #: The refusal a watched method's request gets at its deadline (only encoded,
        #: never changed: shared by the requests' refusals).
        reason = no_answer_within(self._deadline)
        self._refusals = {method: {**_FAILED[method], "reason": reason} for method in _WATCHED}

    # ------------------------------------------------------------------ io

    def send(self, message: dict[str, Any]) -> None:
        self._out.send({"jsonrpc": "2.0", **message})

    def error(self, ident: Any, code: int, message: str) -> None:
        self.send({"id": ident, "error": {"code": code, "message": message}})

    # -------------------------------------------------------------- engine

    def start(self) -> None:
        self._slot.load()

    # ------------------------------------------------------------ methods

    def answer(self, method: str, params: Any) -> dict[str, Any]:
        if method == "hook.hello":
            modes = params.get("modes") if isinstance(params, dict) else None
            self._modes = {m for m in modes or () if isinstance(m, str)}
            return wire.hello_answer()
        engine = self._slot.get()  # RuntimeError naming why, when there is none
        if not isinstance(params, dict):
            raise TypeError("params must be an object")
        if method == "hook.before_tool":
            return self._before_tool(wire.call_of(params))
        if method == "hook.approve_tool":
            return self._approve_tool(wire.call_of(params))
        if method == "hook.after_tool":
            decision = engine.after_tool(wire.call_of(params), wire.result_of(params))
            return wire.after_tool_answer(decision, params)
        if method == "hook.before_llm":
            return wire.before_llm_answer(engine.before_llm(wire.request_of(params)), params)
        if method == "hook.after_llm":
            return wire.after_llm_answer(engine.after_llm(wire.response_of(params)), params)
        if method == "hook.runtime_event":
            kind = params.get("kind")
            if kind == "agent.turn.end":
                self._turn_ended(params)
            engine.emit(Event(kind=kind if isinstance(kind, str) else "", payload=params))
            return {}
        raise _UnknownMethod(method)

    def _before_tool(self, call: Any) -> dict[str, Any]:
        decision = self._slot.engine.before_tool(call)
        approves = "approve" in self._modes
        final = decision.call if decision.call is not None else call
        if decision.action.value == "respond" and decision.needs_approval:
            # PicoClaw never asks approve_tool about a call a hook answered itself.
            return {
                "action": "deny_tool",
                "reason": f"{decision.reason or 'approval required'}; PicoClaw does not ask "
                "approve_tool after a respond, so nobody can approve it",
            }
        answer = wire.before_tool_answer(decision, call, approves=approves)
        if not approves or answer["action"] not in ("continue", "modify"):
            return answer  # PicoClaw will not ask approve_tool about this call
        key = key_of(call, call.tool_raw, final)
        if not decision.needs_approval:
            self._ledger.passed(key)
            return answer
        try:
            self._ledger.ask(key, tuple(decision.gates))
        except TooManyPending as exc:
            return {
                "action": "deny_tool",
                "reason": f"{decision.reason or 'approval required'}; too many calls wait "
                f"for approval ({exc.args[0]}), denied without asking",
            }
        return answer

    def _approve_tool(self, call: Any) -> dict[str, Any]:
        engine = self._slot.engine
        if "tool" not in self._modes:
            return self._decide_here(call)
        kind, gates = self._ledger.take(key_of(call, call.tool_raw, call))
        if kind == "passed":
            return {"approved": True, "reason": "before_tool passed this call without approval"}
        if kind == "unseen":
            reason = (
                f"approve_tool for a call never seen in before_tool (tool {call.tool_raw!r}, "
                f"session {call.session!r}, turn {call.turn!r}): refused; a hook after this "
                "one may have changed it"
            )
            sys.stderr.write(f"policy: hook.approve_tool: {reason}\n")
            return {"approved": False, "reason": reason}
        try:
            verdict = engine.approve_tool(call, required=True, gates=gates)
        finally:
            self._ledger.done()
        return {"approved": verdict.approved, "reason": verdict.reason}

    def _decide_here(self, call: Any) -> dict[str, Any]:
        """Mode `tool` is off, so our before_tool never ran: judge the call now."""
        engine = self._slot.engine
        decision = engine.before_tool(call)
        if decision.blocked:
            return {"approved": False, "reason": decision.reason or decision.action.value}
        final = decision.call if decision.call is not None else call
        if decision.action.value == "respond" or key_of(call, call.tool_raw, final) != key_of(
            call, call.tool_raw, call
        ):
            return {
                "approved": False,
                "reason": f"the policy would {decision.action.value} this call "
                f"({decision.reason or 'no reason given'}), which approve_tool cannot do; "
                "refused (mount the hook for before_tool too)",
            }
        if not decision.needs_approval:
            return {"approved": True, "reason": decision.reason or "the policy passes this call"}
        verdict = engine.approve_tool(call, required=True, gates=decision.gates)
        return {"approved": verdict.approved, "reason": verdict.reason}

    def _turn_ended(self, params: dict[str, Any]) -> None:
        scope = params.get("scope")
        if not isinstance(scope, dict):
            return
        agent, session, turn = (
            value if isinstance(value, str) else ""
            for value in (scope.get("agent_id"), scope.get("session_key"), scope.get("turn_id"))
        )
        if turn:  # the scope's fields are omitempty: an empty one is absent
            self._ledger.end_turn((agent, session, turn))

    def handle(self, ident: Any, method: str, params: Any, reply: Reply | None = None) -> None:
        """Answer the request (`reply`: the one answer it may get, when a watchdog may
        give it first)."""

        def give(message: dict[str, Any]) -> None:
            line, refused = _within_limit(method, message)
            if reply is None:
                self._out.write(line)
            elif not reply.give_line(line):
                return  # (the watchdog answered first)
            if refused:
                facts = {"answer_bytes": refused, "limit_bytes": _LINE_LIMIT}
                self._record_later("hook.answer_refused", method, ident, _asked(params), facts)

        try:
            result = self.answer(method, params)
        except _UnknownMethod:
            if ident is not None:
                missing = f"method not found: {method}"
                give({"id": ident, "error": {"code": _METHOD_NOT_FOUND, "message": missing}})
            return
        except Exception as exc:  # noqa: BLE001 - a refusal, never a skipped hook
            reason = failed_closed(exc)
            sys.stderr.write(f"policy: {method}: {reason}\n")
            if ident is None:
                return
            refusal = _FAILED.get(method)
            if refusal is None:
                give({"id": ident, "error": {"code": _INVALID_REQUEST, "message": reason}})
            else:
                give({"id": ident, "result": {**refusal, "reason": reason}})
            return
        if ident is not None:
            give({"id": ident, "result": result})

    def _record_later(
        self, kind: str, method: str, ident: Any, asked: dict[str, str], facts: dict[str, Any]
    ) -> None:
        """A refusal's record (`log_refusal`): the method, `facts`, what was sent instead,
        and the request's tool and session (`asked`)."""
        sent = _FAILED.get(method, {"error": _INTERNAL_ERROR})
        fields = {"method": method, **facts, "sent": sent, **asked}
        log_refusal(self._slot.engine, kind, ident, fields)

    def _watched(self, ident: Any, method: str, params: Any) -> tuple[Reply, Watch]:
        """The one answer of an interceptor request: its refusal at the deadline unless
        its decision came first (then the watch is cancelled). A refusal leaves a
        `hook.deadline_refused` record in the decision log, written by the notes' thread
        (`later`): the log may be what holds the decision up, and the watchdog's thread
        must be free for the next deadline."""
        reply = Reply(self._out, ident)
        result = self._refusals[method]  # (made once; the request's own part is its id)
        asked = _asked(params)  # (not the params: an answered request's stay no longer)

        def refuse() -> None:
            # (a cancelled watch is held until its deadline: what it holds is kept small,
            # the answer made only for the request that gets it)
            if reply.give({"jsonrpc": "2.0", "id": ident, "result": result}):
                note(f"policy: {method} {ident!r}: {result['reason']}\n")
                facts = {"deadline_s": self._deadline}
                self._record_later("hook.deadline_refused", method, ident, asked, facts)

        if self._watchdog is None:
            self._watchdog = Watchdog()
        return reply, self._watchdog.watch(time.monotonic() + self._deadline, refuse)

    def _handle_watched(
        self, ident: Any, method: str, params: Any, watched: tuple[Reply, Watch]
    ) -> None:
        reply, watch = watched
        self.handle(ident, method, params, reply)
        if reply.given:  # (unanswered, as when handling itself failed: the watch answers)
            watch.cancel()

    # ---------------------------------------------------------------- loop

    def give_up(self, reason: str) -> None:
        """The host ends this process (a signal): what waits for a person is expired and
        its denial logged, since nobody will run it; then the process ends."""
        abandon_approvals(self._slot.engine, reason)
        end_process()

    def serve(self) -> int:
        self.start()
        on_signal(self.give_up)
        with (
            ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="picoclaw") as pool,
            ThreadPoolExecutor(
                max_workers=_APPROVAL_WORKERS, thread_name_prefix="picoclaw-approve"
            ) as approvals,
        ):
            readers = serve_lines(lambda line: self._dispatch(line, approvals), pool)
            if self._slot.engine is not None:
                # PicoClaw is gone: nobody runs what is still waiting, so nobody may
                # approve it afterwards — whatever work is still under way.
                self._slot.engine.abandon_approvals("PicoClaw closed the hook's stdin")
            readers.join()
        if self._slot.engine is not None:
            if not drain(_BUDGET):
                # (the records of refusals first, `later`; a log another process holds
                # locked past that would hold the close: the process ends instead)
                end_process()
            self._slot.engine.close()
        return 0

    def _dispatch(self, line: bytes, approvals: ThreadPoolExecutor) -> Callable[[], None] | None:
        """A line read (`serve_lines`, in order): parsed, answered at once when it is
        not a request or is `hook.hello` (in order, first), watched when PicoClaw skips
        the hook unless it is answered in time; the rest of its handling returned.
        Approvals go to workers of their own: each may wait for a person."""
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            self.error(None, _PARSE_ERROR, f"parse error: {exc}")
            return None
        if not isinstance(message, dict) or not isinstance(message.get("method"), str):
            ident = message.get("id") if isinstance(message, dict) else None
            self.error(ident, _INVALID_REQUEST, "invalid request: no method")
            return None
        ident = message.get("id")
        method = message["method"]
        params = message.get("params")
        if method == "hook.hello":
            self.handle(ident, method, params)
            return None
        if method == "hook.approve_tool":
            approvals.submit(self.handle, ident, method, params)
            return None
        if method in _WATCHED and ident is not None:
            try:
                watched = self._watched(ident, method, params)
            except Exception as exc:  # noqa: BLE001 - decided unwatched, never dropped
                note(f"policy: {method} {ident!r}: no deadline could be armed: {exc}\n")
            else:
                return lambda: self._handle_watched(ident, method, params, watched)
        return lambda: self.handle(ident, method, params)


def _asked(params: Any) -> dict[str, str]:
    """The tool and session a request names, cut as the decision log cuts them."""
    if not isinstance(params, dict):
        return {}
    tool = params.get("tool")
    meta = params.get("meta")
    session = meta.get("SessionKey") if isinstance(meta, dict) else None
    return {
        "tool": cut(tool) if isinstance(tool, str) else "",
        "session": cut(session) if isinstance(session, str) else "",
    }


def _within_limit(method: str, message: dict[str, Any]) -> tuple[bytes, int]:
    """The line of the answer `message` to a `method` request, or, when it would reach
    `_LINE_LIMIT` (PicoClaw reads one of exactly that, newline included: a byte kept
    spare), of its refusal — what deciding failing answers (`_FAILED`; a JSON-RPC
    error where the method has no refusal); and the length of the line refused (0
    when none was)."""
    line = encode_line({"jsonrpc": "2.0", **message})
    if len(line) < _LINE_LIMIT:
        return line, 0
    reason = (
        f"policy hook failed closed: its answer would be a line of {len(line)} bytes, "
        f"too long for PicoClaw's reader (under {_LINE_LIMIT} here)"
    )
    note(f"policy: {method} {message.get('id')!r}: {reason}\n")
    refusal = _FAILED.get(method)
    body: dict[str, Any] = (
        {"result": {**refusal, "reason": reason}}
        if refusal is not None
        else {"error": {"code": _INTERNAL_ERROR, "message": reason}}
    )
    return encode_line({"jsonrpc": "2.0", "id": message.get("id"), **body}), len(line)


def run(args: HookCommand) -> int:
    return _Server(args).serve()
