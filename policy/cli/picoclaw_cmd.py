"""`policy hook picoclaw`: a PicoClaw process hook (JSON-RPC 2.0, one message per line).

PicoClaw starts the command once and keeps it: requests and notifications arrive on
stdin, answers leave on stdout (protocol lines only; the decision log goes to stderr
unless `audit_path` is set). Requests are answered on worker threads, so an approval
waiting for a person does not hold up other calls; answers carry the request's id
and may come out of order, as PicoClaw allows.

Fail closed: PicoClaw skips an interceptor that errors or times out, so interceptors
always get a result — deny_tool or abort_turn naming the error when deciding fails,
including when the packs did not load at start — never a JSON-RPC error. Lines that
are not JSON get a -32700 error with id null; unknown methods -32601. EOF on stdin
ends the process.
"""

from __future__ import annotations

import argparse
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import orjson

from policy.cli._protocol import encode_line, engine_for_protocol

_PARSE_ERROR = -32700
_INVALID_REQUEST = -32600
_METHOD_NOT_FOUND = -32601
_ASKS_KEPT = 4096
_FAILED: dict[str, dict[str, Any]] = {
    "hook.before_tool": {"action": "deny_tool"},
    "hook.after_tool": {"action": "abort_turn"},
    "hook.before_llm": {"action": "abort_turn"},
    "hook.after_llm": {"action": "abort_turn"},
    "hook.approve_tool": {"approved": False},
}


class _UnknownMethod(Exception):
    pass


class _Server:
    def __init__(self, args: argparse.Namespace) -> None:
        self._args = args
        self._write_lock = threading.Lock()
        self._engine: Any = None
        self._broken = ""  # why the engine could not start: every answer refuses
        self._modes: set[str] = set()
        # Calls before_tool sent to approval, until PicoClaw's approve_tool for them.
        self._asks: set[tuple[str, str, str]] = set()
        self._asks_lock = threading.Lock()

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
            call = wire.call_of(params)
            decision = engine.before_tool(call)
            if decision.needs_approval and decision.call is not None:
                self._remember_ask(decision.call)
            return wire.before_tool_answer(decision, call, approves="approve" in self._modes)
        if method == "hook.approve_tool":
            call = wire.call_of(params)
            # PicoClaw asks about every call. One our before_tool sent to approval must
            # find an approver (or is denied); the others pass when none covers them.
            verdict = engine.approve_tool(call, required=self._asked(call))
            return {"approved": verdict.approved, "reason": verdict.reason}
        if method == "hook.after_tool":
            decision = engine.after_tool(wire.call_of(params), wire.result_of(params))
            return wire.after_tool_answer(decision, params)
        if method == "hook.before_llm":
            return wire.before_llm_answer(engine.before_llm(wire.request_of(params)), params)
        if method == "hook.after_llm":
            return wire.after_llm_answer(engine.after_llm(wire.response_of(params)), params)
        if method == "hook.runtime_event":
            kind = params.get("kind")
            engine.emit(Event(kind=kind if isinstance(kind, str) else "", payload=params))
            return {}
        raise _UnknownMethod(method)

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

    def _key(self, call: Any) -> tuple[str, str, str]:
        from policy.approvals.store import call_digest

        return (call.session, call.tool, call_digest(call.tool, call.args, call.cwd))

    def _remember_ask(self, call: Any) -> None:
        with self._asks_lock:
            if len(self._asks) >= _ASKS_KEPT:
                self._asks.clear()
            self._asks.add(self._key(call))

    def _asked(self, call: Any) -> bool:
        key = self._key(call)
        with self._asks_lock:
            found = key in self._asks
            self._asks.discard(key)
        return found

    # ---------------------------------------------------------------- loop

    def serve(self) -> int:
        self.start()
        with ThreadPoolExecutor(max_workers=16, thread_name_prefix="picoclaw") as pool:
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
                else:
                    pool.submit(self.handle, ident, method, message.get("params"))
        if self._engine is not None:
            self._engine.close()
        return 0


def run(args: argparse.Namespace) -> int:
    return _Server(args).serve()
