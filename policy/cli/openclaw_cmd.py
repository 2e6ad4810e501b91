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
is set. Requests are answered on worker threads, out of order if need be (OpenClaw
matches answers by id). EOF or `shutdown` ends the process.
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import os
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

import orjson

from policy.cli._protocol import encode_line, engine_for_protocol

#: The most a hook_before may take here: OpenClaw's BridgedToolHook allows at 5 s, and
#: the answer still has to cross the JS plugin and the bridge.
_BUDGET = 4.0
#: plugin-bridge.mjs answers every error with this code; OpenClaw only reads the message.
_ERROR_CODE = -1
#: How long answers in flight may take to go out once stdin ends or `shutdown` came.
_DRAIN = 5.0


class _UnknownMethod(Exception):
    pass


class _Reply:
    """At most one answer per request: the worker's or the watchdog's, whichever is first."""

    __slots__ = ("_done", "_lock", "_server", "ident")

    def __init__(self, server: _Server, ident: Any) -> None:
        self._server = server
        self.ident = ident
        self._lock = threading.Lock()
        self._done = False

    def give(self, body: dict[str, Any]) -> bool:
        """Send `body` unless an answer went out already; True when this one did."""
        with self._lock:
            if self._done:
                return False
            self._done = True
        self._server.send({"id": self.ident, **body})
        return True


class _Watchdog:
    """Refuses the hook_before requests still unanswered at their deadline.

    One thread for all of them: a timer per request would cost a thread per call.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, _Reply, str]] = []
        self._order = itertools.count()
        self._wake = threading.Condition()
        thread = threading.Thread(target=self._run, name="openclaw-watchdog", daemon=True)
        thread.start()

    def watch(self, reply: _Reply, deadline: float, reason: str) -> None:
        with self._wake:
            heapq.heappush(self._heap, (deadline, next(self._order), reply, reason))
            self._wake.notify()

    def _run(self) -> None:
        from policy.hosts.openclaw import refusal

        while True:
            with self._wake:
                while not self._heap or self._heap[0][0] > time.monotonic():
                    self._wake.wait(self._heap[0][0] - time.monotonic() if self._heap else None)
                _, _, reply, reason = heapq.heappop(self._heap)
            if reply.give({"result": refusal(reason)}):
                sys.stderr.write(f"policy: hook_before {reply.ident!r}: {reason}\n")


class _Server:
    def __init__(self, args: argparse.Namespace) -> None:
        self._args = args
        self._deadline = max(0.0, min(float(args.deadline), _BUDGET))
        self._write_lock = threading.Lock()
        self._engine: Any = None
        self._broken = ""  # why the engine could not start: every hook_before refuses
        self._ready = threading.Event()
        self._watchdog = _Watchdog()
        self._running: set[Future[None]] = set()  # requests not answered yet
        self._running_lock = threading.Lock()

    # ------------------------------------------------------------------ io

    def send(self, message: dict[str, Any]) -> None:
        line = encode_line(message)  # a lone surrogate echoed from the request still goes
        with self._write_lock:
            sys.stdout.buffer.write(line)
            sys.stdout.flush()

    def error(self, ident: Any, message: str) -> None:
        self.send({"id": ident, "error": {"code": _ERROR_CODE, "message": message}})

    # -------------------------------------------------------------- engine

    def load(self) -> None:
        """Build the engine off the read loop, so requests that come early meet the
        watchdog (a refusal) instead of queueing past OpenClaw's timeout."""
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
        finally:
            self._ready.set()

    def _decider(self) -> Any:
        self._ready.wait()
        if self._broken:
            raise RuntimeError(self._broken)
        return self._engine

    # ------------------------------------------------------------ methods

    def answer(self, method: str, params: Any) -> dict[str, Any]:
        from policy.hosts import openclaw as wire

        if method == "hook_before":
            call = wire.call_of(params)
            return wire.before_answer(self._decider().before_tool(call))
        if method == "hook_after":
            engine = self._decider()
            call = wire.call_of(params)
            engine.after_tool(call, wire.result_of(params))
            # OpenClaw ignores this result; the decision log holds what our chain said.
            return {"ok": True}
        if method == "init":
            return self.init(params)
        raise _UnknownMethod(method)

    def init(self, params: Any) -> dict[str, Any]:
        from policy.hosts.openclaw import init_answer

        transport = params.get("transport") if isinstance(params, dict) else None
        mode = transport.get("mode") if isinstance(transport, dict) else None
        if isinstance(mode, str) and mode.strip().lower() not in ("", "stdio"):
            # Hooks would arrive on a socket nobody reads, time out, and be allowed.
            raise ValueError(
                f"transport mode {mode!r} is not supported: policy hook openclaw speaks stdio"
            )
        self._ready.wait()
        diagnostics = []
        if self._broken:
            diagnostics.append(
                {
                    "severity": "error",
                    "code": "policy_unavailable",
                    "message": f"{self._broken}; every tool call is denied",
                    "surface": "hooks",
                }
            )
        return init_answer(diagnostics)

    def handle(self, reply: _Reply, method: str, params: Any) -> None:
        from policy.hosts.openclaw import refusal

        try:
            result = self.answer(method, params)
        except _UnknownMethod:
            reply.give({"error": {"code": _ERROR_CODE, "message": f"unknown method: {method}"}})
            return
        except Exception as exc:  # noqa: BLE001 - a refusal, never an allowed call
            reason = f"policy hook failed closed: {type(exc).__name__}: {exc}"
            sys.stderr.write(f"policy: {method}: {reason}\n")
            if method == "hook_before":
                reply.give({"result": refusal(reason)})
            elif method == "hook_after":
                reply.give({"result": {"ok": False, "reason": reason}})
            else:
                reply.give({"error": {"code": _ERROR_CODE, "message": reason}})
            return
        reply.give({"result": result})

    # ---------------------------------------------------------------- loop

    def serve(self) -> int:
        if getattr(self._args, "approval", "ask") == "wait":
            sys.stderr.write(
                "policy: --approval wait has no effect on OpenClaw: a hook gets 5 s, so calls "
                "that need approval are denied\n"
            )
        threading.Thread(target=self.load, name="openclaw-load", daemon=True).start()
        pool = ThreadPoolExecutor(max_workers=16, thread_name_prefix="openclaw")
        try:
            for raw in sys.stdin.buffer:
                line = raw.strip()
                if not line:
                    continue
                message = _parse(line)
                if message is None:
                    continue
                ident = message.get("id")
                method = message.get("method")
                if not isinstance(method, str):
                    if ident is not None:
                        self.error(ident, "invalid request: no method")
                    else:
                        sys.stderr.write("policy: a request with neither method nor id, ignored\n")
                    continue
                if ident is None:
                    sys.stderr.write(f"policy: {method} without an id cannot be answered\n")
                    continue
                reply = _Reply(self, ident)
                if method == "shutdown":
                    reply.give({"result": {"ok": True}})
                    break
                if method == "hook_before":
                    self._watchdog.watch(
                        reply,
                        time.monotonic() + self._deadline,
                        f"policy hook gave no answer within {self._deadline:g} s (failed closed)",
                    )
                self._track(pool.submit(self.handle, reply, method, message.get("params")))
        finally:
            pool.shutdown(wait=False)
        return self._finish()

    def _track(self, future: Future[None]) -> None:
        with self._running_lock:
            self._running.add(future)
        future.add_done_callback(self._untrack)

    def _untrack(self, future: Future[None]) -> None:
        with self._running_lock:
            self._running.discard(future)

    def _finish(self) -> int:
        """Let answers in flight go out, then stop — within _DRAIN even if a worker is
        stuck (an engine that never finished loading): OpenClaw kills a bridge that
        lingers after `shutdown`, and an orphan would hold the decision log open."""
        with self._running_lock:
            running = set(self._running)
        _, stuck = wait(running, timeout=_DRAIN)
        if self._ready.is_set() and self._engine is not None and not stuck:
            self._engine.close()
        if stuck:
            sys.stderr.write(f"policy: {len(stuck)} request(s) unfinished at exit\n")
            sys.stderr.flush()
            os._exit(0)  # worker threads are not daemons; they would hold the exit
        return 0


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


def run(args: argparse.Namespace) -> int:
    return _Server(args).serve()
