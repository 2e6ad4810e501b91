"""Delivering events to observers without ever delaying or failing a call.

Events go into a bounded queue (PicoClaw buffers 64; we default to 1024) and one
dispatcher thread hands each to the observers in chain order, each under the
observer budget. A full queue drops the event and counts the drop: an observer
must not be able to slow the agent down by being slow.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from policy._invoke import Invoker
from policy._logger import logger
from policy.chain import Registration

if TYPE_CHECKING:
    import queue

    from policy.model.payloads import Event

__all__ = ["ObserverDispatcher"]

log = logger("policy.observers")

_STOP = object()

Entries = tuple[tuple[Registration, Any, bool], ...]


class ObserverDispatcher:
    def __init__(self, invoker: Invoker, budget: float, queue_size: int) -> None:
        self._invoker = invoker
        self._budget = budget
        self._size = queue_size
        #: Made with the thread, at the first event (a one-event hook emits none for a
        #: tool call, and need not import `queue`).
        self._queue: queue.Queue[Any] | None = None
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.dropped = 0
        self.failures = 0

    def emit(self, entries: Entries, event: Event) -> None:
        """Queue `event` for `entries`; never blocks, never raises."""
        if not entries or self._closed:
            return
        if self._queue is None:
            self._start()
        events = self._queue
        if events is None:  # (closed meanwhile: nobody would deliver it)
            return
        import queue

        try:
            events.put_nowait((entries, event))
        except queue.Full:
            with self._lock:
                self.dropped += 1
                dropped = self.dropped
            if dropped == 1 or dropped % 1000 == 0:
                log.warning("observer queue full: %d events dropped so far", dropped)

    def _start(self) -> None:
        import queue

        with self._lock:
            # (under the lock `close` takes: it finds no thread, or a started one)
            if self._thread is None and not self._closed:
                self._queue = queue.Queue(maxsize=self._size)
                self._thread = threading.Thread(
                    target=self._run, name="policy-observers", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        assert self._queue is not None
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            entries, event = item
            for reg, method, coroutine in entries:
                budget = reg.timeout_ms / 1000 if reg.timeout_ms is not None else self._budget
                _, failure = self._invoker.run((reg, method, (event,), budget, coroutine))
                if failure is not None:
                    with self._lock:
                        self.failures += 1
                    log.warning(
                        "observer %r %s on %s: %s",
                        reg.name,
                        "timed out" if failure.kind == "timeout" else "failed",
                        event.kind,
                        failure.message,
                    )

    def close(self, timeout: float = 2.0) -> None:
        """Deliver what is queued (up to `timeout`), then stop."""
        with self._lock:
            self._closed = True
            thread, events = self._thread, self._queue
        if thread is None or events is None:
            return
        import queue

        try:
            events.put(_STOP, timeout=timeout)
        except queue.Full:
            return
        thread.join(timeout)
