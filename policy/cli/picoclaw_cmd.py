"""`policy hook picoclaw`: a PicoClaw process hook (JSON-RPC 2.0, one message per line).

PicoClaw starts the command once and keeps it: requests and notifications arrive on
stdin, answers leave on stdout (protocol lines only; the decision log goes to stderr
unless `audit_path` is set). Requests are answered on worker threads — approvals on
their own, so calls waiting for a person never hold up an interceptor, which PicoClaw
would skip if it answered late — and answers carry the request's id and may come out
of order, as PicoClaw allows.

Fail closed: PicoClaw skips an interceptor that errors or times out, so interceptors
always get a result — deny_tool or abort_turn naming the error when deciding fails,
including when the packs did not load at start — never a JSON-RPC error. Lines that
are not JSON get a -32700 error with id null; unknown methods -32601. EOF on stdin
withdraws the approval requests still waiting and ends the process.

Approvals (upstream `pkg/agent/pipeline_execute.go`): PicoClaw runs a turn's tool calls
one after another, and for each one that every interceptor let through it calls
`hook.approve_tool` with the final call, whether or not our `before_tool` asked for
approval. So `before_tool` writes down what it decided (`_Ledger`): a call it sent to
approval, with the gates that name who approves, or a call it passed. `approve_tool`
takes one such entry — the same session, turn, iteration and final arguments — and
asks the approvers for an asked call, approves a passed one, and refuses a call it
never saw (another hook changed it after ours, or a host is skipping before_tool).
Identical calls are counted, so each needs its own decision (or a grant). When hello
did not list mode `tool`, our before_tool never runs: approve_tool decides the call.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson

from policy.cli._protocol import encode_line, engine_for_protocol

_PARSE_ERROR = -32700
_INVALID_REQUEST = -32600
_METHOD_NOT_FOUND = -32601
#: Calls waiting for approval (asked by before_tool, not yet decided) at most; past it a
#: call that needs approval is denied at before_tool. Asks are never forgotten to make room.
_PENDING_MAX = 1024
#: Calls before_tool passed that are remembered until their approve_tool; past it the
#: oldest are forgotten (their approve_tool is then refused: fail closed).
_PASSED_KEPT = 4096
_WORKERS = 16  # interceptors, observers
_APPROVAL_WORKERS = 64  # approve_tool: each may wait for a person
_FAILED: dict[str, dict[str, Any]] = {
    "hook.before_tool": {"action": "deny_tool"},
    "hook.after_tool": {"action": "abort_turn"},
    "hook.before_llm": {"action": "abort_turn"},
    "hook.after_llm": {"action": "abort_turn"},
    "hook.approve_tool": {"approved": False},
}

_Turn = tuple[str, str, str]  # agent, session, turn
_Key = tuple[_Turn, int | None, str]  # the turn, its iteration, the final call's digest


class _UnknownMethod(Exception):
    pass


class _TooManyPending(Exception):
    pass


def _iteration(call: Any) -> int | None:
    value = call.meta.get("Iteration")  # HookMeta has no JSON tags: Go field names
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _key(call: Any, tool: str, final: Any) -> _Key:
    """`call` as PicoClaw sent it (who, which turn and iteration); `tool` the host's
    name for it; `final` the call that runs (its arguments and directory)."""
    from policy.approvals.store import call_digest

    turn = (call.agent, call.session, call.turn)
    return (turn, _iteration(call), call_digest(tool, final.args, final.cwd))


class _TurnEntries:
    """A turn's keys in the ledger, and the latest iteration it was seen at."""

    __slots__ = ("iteration", "keys")

    def __init__(self, iteration: int | None) -> None:
        self.iteration = iteration
        self.keys: set[_Key] = set()


class _Ledger:
    """What before_tool decided about the calls PicoClaw will ask approve_tool about.

    Counted, not a set: two identical calls asked twice need two decisions. Asks are
    kept until their approve_tool; passed calls are forgotten oldest first past
    `_PASSED_KEPT`. A turn's entries go when the turn moves to a later iteration
    (PicoClaw asks approve_tool within the iteration, so what is left was denied by
    another hook and will never be asked about) or ends (`agent.turn.end`).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._asks: dict[_Key, deque[tuple[Any, ...]]] = {}  # key -> gates of each ask
        self._passed: OrderedDict[_Key, int] = OrderedDict()
        self._turns: dict[_Turn, _TurnEntries] = {}
        self._waiting = 0  # asks not yet taken by approve_tool
        self._deciding = 0  # asks taken, the approvers not done yet

    def ask(self, key: _Key, gates: tuple[Any, ...]) -> None:
        with self._lock:
            self._advance(key)
            if self._waiting + self._deciding >= _PENDING_MAX:
                raise _TooManyPending(self._waiting + self._deciding)
            self._index(key)
            self._asks.setdefault(key, deque()).append(gates)
            self._waiting += 1

    def passed(self, key: _Key) -> None:
        with self._lock:
            self._advance(key)
            self._index(key)
            self._passed[key] = self._passed.get(key, 0) + 1
            self._passed.move_to_end(key)
            while len(self._passed) > _PASSED_KEPT:
                old, _ = self._passed.popitem(last=False)
                self._settle(old)

    def take(self, key: _Key) -> tuple[str, tuple[Any, ...]]:
        """("asked", its gates), ("passed", ()) or ("unseen", ()); one entry used up.
        An asked call counts as pending until `done()`."""
        with self._lock:
            asks = self._asks.get(key)
            if asks:
                gates = asks.popleft()
                if not asks:
                    del self._asks[key]
                self._waiting -= 1
                self._deciding += 1
                self._settle(key)
                return "asked", gates
            count = self._passed.get(key, 0)
            if count:
                if count == 1:
                    del self._passed[key]
                else:
                    self._passed[key] = count - 1
                self._settle(key)
                return "passed", ()
        return "unseen", ()

    def done(self) -> None:
        with self._lock:
            self._deciding -= 1

    def end_turn(self, turn: _Turn) -> None:
        with self._lock:
            self._forget(turn, None)

    def _advance(self, key: _Key) -> None:
        """`key`'s turn is at `key`'s iteration: forget its earlier iterations' calls."""
        turn, iteration, _ = key
        entries = self._turns.get(turn)
        if entries is None or iteration is None:
            return
        if entries.iteration is None or iteration > entries.iteration:
            self._forget(turn, iteration)
            entries.iteration = iteration

    def _index(self, key: _Key) -> None:
        entries = self._turns.get(key[0])
        if entries is None:
            entries = self._turns[key[0]] = _TurnEntries(key[1])
        entries.keys.add(key)

    def _forget(self, turn: _Turn, before: int | None) -> None:
        """Drop `turn`'s entries (of iterations before `before`, or all of them)."""
        entries = self._turns.get(turn)
        if entries is None:
            return
        for key in list(entries.keys):
            if before is not None and (key[1] is None or key[1] >= before):
                continue
            dropped = self._asks.pop(key, None)
            if dropped:
                self._waiting -= len(dropped)
            self._passed.pop(key, None)
            entries.keys.discard(key)
        if not entries.keys:
            del self._turns[turn]

    def _settle(self, key: _Key) -> None:
        """Unindex `key` once nothing is left under it."""
        if key in self._asks or key in self._passed:
            return
        entries = self._turns.get(key[0])
        if entries is None:
            return
        entries.keys.discard(key)
        if not entries.keys:
            del self._turns[key[0]]


class _Server:
    def __init__(self, args: argparse.Namespace) -> None:
        self._args = args
        self._write_lock = threading.Lock()
        self._engine: Any = None
        self._broken = ""  # why the engine could not start: every answer refuses
        self._modes: set[str] = set()
        self._ledger = _Ledger()

    # ------------------------------------------------------------------ io

    def send(self, message: dict[str, Any]) -> None:
        line = encode_line({"jsonrpc": "2.0", **message})
        with self._write_lock:
            sys.stdout.buffer.write(line)
            sys.stdout.flush()

    def error(self, ident: Any, code: int, message: str) -> None:
        self.send({"id": ident, "error": {"code": code, "message": message}})

    # -------------------------------------------------------------- engine

    def start(self) -> None:
        try:
            from pathlib import Path

            from policy.settings import load_settings

            settings = load_settings(self._args.config)
            if self._args.packs:
                settings = settings.model_copy(
                    update={"packs": [Path(p) for p in self._args.packs]}
                )
            self._engine = engine_for_protocol(settings)
        except Exception as exc:  # noqa: BLE001 - reported on every answer instead
            self._broken = f"policy hook cannot decide: {type(exc).__name__}: {exc}"
            sys.stderr.write(f"policy: {self._broken}\n")

    # ------------------------------------------------------------ methods

    def answer(self, method: str, params: Any) -> dict[str, Any]:
        from policy.hosts import picoclaw as wire
        from policy.model import Event

        if method == "hook.hello":
            modes = params.get("modes") if isinstance(params, dict) else None
            self._modes = {m for m in modes or () if isinstance(m, str)}
            return {"ok": True, "name": "hookpolicy"}
        if self._broken:
            raise RuntimeError(self._broken)
        if not isinstance(params, dict):
            raise TypeError("params must be an object")
        engine = self._engine
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
        from policy.hosts import picoclaw as wire

        decision = self._engine.before_tool(call)
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
        key = _key(call, call.tool_raw, final)
        if not decision.needs_approval:
            self._ledger.passed(key)
            return answer
        try:
            self._ledger.ask(key, tuple(decision.gates))
        except _TooManyPending as exc:
            return {
                "action": "deny_tool",
                "reason": f"{decision.reason or 'approval required'}; too many calls wait "
                f"for approval ({exc.args[0]}), denied without asking",
            }
        return answer

    def _approve_tool(self, call: Any) -> dict[str, Any]:
        engine = self._engine
        if "tool" not in self._modes:
            return self._decide_here(call)
        kind, gates = self._ledger.take(_key(call, call.tool_raw, call))
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
        engine = self._engine
        decision = engine.before_tool(call)
        if decision.blocked:
            return {"approved": False, "reason": decision.reason or decision.action.value}
        final = decision.call if decision.call is not None else call
        if decision.action.value == "respond" or _key(call, call.tool_raw, final) != _key(
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

    def handle(self, ident: Any, method: str, params: Any) -> None:
        try:
            result = self.answer(method, params)
        except _UnknownMethod:
            if ident is not None:
                self.error(ident, _METHOD_NOT_FOUND, f"method not found: {method}")
            return
        except Exception as exc:  # noqa: BLE001 - a refusal, never a skipped hook
            reason = f"policy hook failed closed: {type(exc).__name__}: {exc}"
            sys.stderr.write(f"policy: {method}: {reason}\n")
            if ident is None:
                return
            refusal = _FAILED.get(method)
            if refusal is None:
                self.error(ident, _INVALID_REQUEST, reason)
            else:
                self.send({"id": ident, "result": {**refusal, "reason": reason}})
            return
        if ident is not None:
            self.send({"id": ident, "result": result})

    # ---------------------------------------------------------------- loop

    def serve(self) -> int:
        self.start()
        with (
            ThreadPoolExecutor(max_workers=_WORKERS, thread_name_prefix="picoclaw") as pool,
            ThreadPoolExecutor(
                max_workers=_APPROVAL_WORKERS, thread_name_prefix="picoclaw-approve"
            ) as approvals,
        ):
            for raw in sys.stdin.buffer:
                line = raw.strip()
                if not line:
                    continue
                try:
                    message = orjson.loads(line)
                except orjson.JSONDecodeError as exc:
                    self.error(None, _PARSE_ERROR, f"parse error: {exc}")
                    continue
                if not isinstance(message, dict) or not isinstance(message.get("method"), str):
                    ident = message.get("id") if isinstance(message, dict) else None
                    self.error(ident, _INVALID_REQUEST, "invalid request: no method")
                    continue
                ident = message.get("id")
                method = message["method"]
                if method == "hook.hello":
                    self.handle(ident, method, message.get("params"))  # in order, first
                elif method == "hook.approve_tool":
                    approvals.submit(self.handle, ident, method, message.get("params"))
                else:
                    pool.submit(self.handle, ident, method, message.get("params"))
            if self._engine is not None:
                # PicoClaw is gone: nobody runs what is still waiting, so nobody may
                # approve it afterwards.
                self._engine.abandon_approvals("PicoClaw closed the hook's stdin")
        if self._engine is not None:
            self._engine.close()
        return 0


def run(args: argparse.Namespace) -> int:
    return _Server(args).serve()
