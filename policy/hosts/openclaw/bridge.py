"""`policy hook openclaw`: an OpenClaw.NET plugin-bridge peer answering tool hooks.

It speaks the lines OpenClaw's `PluginBridgeProcess` writes to a bridge: one JSON object
per line, no `jsonrpc`, string ids — `init`, `hook_before`, `hook_after`, `shutdown`.
OpenClaw itself only ever starts node with its own `plugin-bridge.mjs`, so in practice a
small JS plugin (examples/openclaw/) keeps this process running and forwards its
`tool:before` / `tool:after` events here in that same format.

OpenClaw allows a call whose hook errs, answers late (5 s), or answers anything but
`{"allow": false}`. So every `hook_before` gets a result, and a refusal whenever deciding
fails: the packs did not load, the params cannot be read, the engine raised, or no
decision is ready by `min(--deadline, 4 s)` (a watchdog answers then). The deadline caps
below OpenClaw's 5 s so the refusal, not the host's timeout, decides.

Calls our rules send to approval are denied, not held: waiting for a person takes longer
than the 5 s OpenClaw gives a hook, after which it runs the call anyway. `--approval` has
no effect here.

stdout carries protocol lines only; the decision log goes to stderr unless `audit_path`
is set. A request is answered by the thread that read it, or by a worker thread while
that one is held up (`serve_lines`): out of order if need be (OpenClaw matches answers
by id). EOF or `shutdown` ends the process.
"""

from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import orjson

from policy.hosts._hook_process import (
    EngineSlot,
    Output,
    Reply,
    StopReading,
    Watchdog,
    drain,
    end_process,
    failed_closed,
    log_refusal,
    no_answer_within,
    note,
    serve_lines,
)
from policy.hosts.openclaw import wire

if TYPE_CHECKING:
    from collections.abc import Callable

    from policy.hosts.hook_command import HookCommand

__all__ = ["run"]

#: The most a hook_before may take here: OpenClaw's BridgedToolHook allows at 5 s, and
#: the answer still has to cross the JS plugin and the bridge.
_BUDGET = 4.0
#: plugin-bridge.mjs answers every error with this code; OpenClaw only reads the message.
_ERROR_CODE = -1
#: How long answers in flight may take to go out once stdin ends or `shutdown` came.
_DRAIN = 5.0


class _UnknownMethod(Exception):
    pass


class _Server:
    def __init__(self, args: HookCommand) -> None:
        self._approval = getattr(args, "approval", "ask")
        self._deadline = max(0.0, min(float(args.deadline), _BUDGET))
        self._out = Output()  # a lone surrogate echoed from the request still goes
        # The engine, or why it could not start: then every hook_before refuses.
        self._slot = EngineSlot(args.config, args.packs, getattr(args, "server", None))
        self._watchdog = Watchdog()
        self._running = 0  # requests read and not answered yet
        self._in_flight = threading.Condition()  # guards `_running`; told when it drops

    # ------------------------------------------------------------------ io

    def error(self, ident: Any, message: str) -> None:
        self._out.send({"id": ident, "error": {"code": _ERROR_CODE, "message": message}})

    # ------------------------------------------------------------ methods

    def answer(self, method: str, params: Any) -> dict[str, Any]:
        if method == "hook_before":
            call = wire.call_of(params)
            return wire.before_answer(self._slot.get().before_tool(call))
        if method == "hook_after":
            engine = self._slot.get()
            call = wire.call_of(params)
            engine.after_tool(call, wire.result_of(params))
            # OpenClaw ignores this result; the decision log holds what our chain said.
            return {"ok": True}
        if method == "init":
            return self.init(params)
        raise _UnknownMethod(method)

    def init(self, params: Any) -> dict[str, Any]:
        transport = params.get("transport") if isinstance(params, dict) else None
        mode = transport.get("mode") if isinstance(transport, dict) else None
        if isinstance(mode, str) and mode.strip().lower() not in ("", "stdio"):
            # Hooks would arrive on a socket nobody reads, time out, and be allowed.
            raise ValueError(
                f"transport mode {mode!r} is not supported: policy hook openclaw speaks stdio"
            )
        self._slot.ready.wait()
        diagnostics = []
        if self._slot.broken:
            diagnostics.append(
                {
                    "severity": "error",
                    "code": "policy_unavailable",
                    "message": f"{self._slot.broken}; every tool call is denied",
                    "surface": "hooks",
                }
            )
        return wire.init_answer(diagnostics)

    def handle(self, reply: Reply, method: str, params: Any) -> None:
        try:
            result = self.answer(method, params)
        except _UnknownMethod:
            _give(reply, {"error": {"code": _ERROR_CODE, "message": f"unknown method: {method}"}})
            return
        except Exception as exc:  # noqa: BLE001 - a refusal, never an allowed call
            reason = failed_closed(exc)
            sys.stderr.write(f"policy: {method}: {reason}\n")
            if method == "hook_before":
                _give(reply, {"result": wire.refusal(reason)})
            elif method == "hook_after":
                _give(reply, {"result": {"ok": False, "reason": reason}})
            else:
                _give(reply, {"error": {"code": _ERROR_CODE, "message": reason}})
            return
        _give(reply, {"result": result})

    def _watch(self, reply: Reply) -> None:
        """Refuse `reply`'s hook_before at the deadline unless it was answered; the
        refusal leaves a `hook.deadline_refused` record in the decision log, written by
        the notes' thread (`later`: the log may be what holds the decision up)."""
        reason = no_answer_within(self._deadline)

        def refuse() -> None:
            if _give(reply, {"result": wire.refusal(reason)}):
                note(f"policy: hook_before {reply.ident!r}: {reason}\n")
                engine = self._slot.engine if self._slot.ready.is_set() else None
                fields = {
                    "method": "hook_before",
                    "deadline_s": self._deadline,
                    "sent": wire.refusal(reason),
                }
                log_refusal(engine, "hook.deadline_refused", reply.ident, fields)

        self._watchdog.watch(time.monotonic() + self._deadline, refuse)

    # ---------------------------------------------------------------- loop

    def serve(self) -> int:
        if self._approval == "wait":
            sys.stderr.write(
                "policy: --approval wait has no effect on OpenClaw: a hook gets 5 s, so calls "
                "that need approval are denied\n"
            )
        # The engine is built off the read loop, so requests that come early meet the
        # watchdog (a refusal) instead of queueing past OpenClaw's timeout.
        threading.Thread(target=self._slot.load, name="openclaw-load", daemon=True).start()
        pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="openclaw")
        try:
            serve_lines(self._dispatch, pool)
        finally:
            pool.shutdown(wait=False)
        return self._finish()

    def _dispatch(self, line: bytes) -> Callable[[], None] | None:
        """A line read (`serve_lines`, in order): parsed, answered at once when it
        cannot be handled or is `shutdown` (then nothing more is read), its deadline
        watched when it is a hook_before; its handling returned, counted in flight
        until it is done."""
        message = _parse(line)
        if message is None:
            return None
        ident = message.get("id")
        method = message.get("method")
        if not isinstance(method, str):
            if ident is not None:
                self.error(ident, "invalid request: no method")
            else:
                sys.stderr.write("policy: a request with neither method nor id, ignored\n")
            return None
        if ident is None:
            sys.stderr.write(f"policy: {method} without an id cannot be answered\n")
            return None
        reply = Reply(self._out, ident)
        if method == "shutdown":
            _give(reply, {"result": {"ok": True}})
            raise StopReading
        if method == "hook_before":
            try:
                self._watch(reply)
            except Exception as exc:  # noqa: BLE001 - decided unwatched, never dropped
                note(f"policy: hook_before {ident!r}: no deadline could be armed: {exc}\n")
        params = message.get("params")
        with self._in_flight:
            self._running += 1

        def work() -> None:
            try:
                self.handle(reply, method, params)
            finally:
                with self._in_flight:
                    self._running -= 1
                    self._in_flight.notify_all()

        return work

    def _finish(self) -> int:
        """Let answers in flight go out, then stop — within _DRAIN even if one is stuck
        (an engine that never finished loading): OpenClaw kills a bridge that lingers
        after `shutdown`, and an orphan would hold the decision log open."""
        with self._in_flight:
            self._in_flight.wait_for(lambda: self._running == 0, timeout=_DRAIN)
            stuck = self._running
        engine = self._slot.engine if self._slot.ready.is_set() else None
        if engine is not None and not stuck:
            if not drain(_DRAIN):
                # (the records of refusals first, `later`; a log another process holds
                # locked past that would hold the close: the process ends instead)
                end_process()
            engine.close()
        if stuck:
            sys.stderr.write(f"policy: {stuck} request(s) unfinished at exit\n")
            end_process()  # worker threads are not daemons; they would hold the exit
        return 0


def _give(reply: Reply, body: dict[str, Any]) -> bool:
    """Answer `reply`'s request with `body` (its id added) unless it was answered."""
    return reply.give({"id": reply.ident, **body})


def _parse(line: bytes) -> dict[str, Any] | None:
    """The request on `line`, or None (said on stderr) when there is none to answer."""
    try:
        message = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        # orjson refuses lone surrogates (`\\ud800`), which System.Text.Json can write and
        # the stdlib reads. A request we cannot read is one we cannot refuse — OpenClaw
        # would allow it after 5 s — so try once more before giving up.
        import json

        try:
            message = json.loads(line.decode("utf-8", "replace"))
        except Exception:  # noqa: BLE001 - not JSON at all: nothing to echo an answer to
            sys.stderr.write(f"policy: a line that is not JSON, ignored: {exc}\n")
            return None
    if not isinstance(message, dict):
        sys.stderr.write("policy: a line that is not a JSON object, ignored\n")
        return None
    return message


def run(args: HookCommand) -> int:
    return _Server(args).serve()
