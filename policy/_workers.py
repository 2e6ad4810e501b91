"""Threads that run hook code the chain cannot trust to return.

Why not `concurrent.futures.ThreadPoolExecutor`: its workers are joined at
interpreter exit, so one hook stuck in `sleep(1e9)` would keep `policy eval` (or
the host) from ever exiting. A timed-out hook here costs one daemon thread until
it returns; the call it belonged to was already decided (fail closed).
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Executor, Future
from typing import Any, TypeVar

T = TypeVar("T")

__all__ = ["DaemonPool", "LoopThread"]

_STOP = object()


class DaemonPool(Executor):
    """A bounded pool of daemon threads, grown on demand up to `max_workers`.

    When every worker is busy (or stuck), new work waits in the queue; the
    caller's timeout still runs, so a saturated pool denies instead of hanging.
    """

    def __init__(self, max_workers: int, name: str = "policy-hook") -> None:
        if max_workers < 1:
            raise ValueError("max_workers must be at least 1")
        self._max = max_workers
        self._name = name
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._idle = threading.Semaphore(0)
        self._shutdown = False

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot submit to a pool that was shut down")
            self._queue.put((future, fn, args, kwargs))
            # As in ThreadPoolExecutor: an idle worker released the semaphore;
            # taking it means that worker will pick this item up.
            if not self._idle.acquire(blocking=False) and len(self._threads) < self._max:
                thread = threading.Thread(
                    target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True
                )
                self._threads.append(thread)
                thread.start()
        return future

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            future, fn, args, kwargs = item
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args, **kwargs))
                except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller, never lost
                    future.set_exception(exc)
            del item, future, fn, args, kwargs
            self._idle.release()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop idle workers. Busy (possibly stuck) workers are daemons and are not awaited."""
        with self._lock:
            if self._shutdown:
                return
            self._shutdown = True
            threads = list(self._threads)
        for _ in threads:
            self._queue.put(_STOP)


class LoopThread:
    """An event loop on a daemon thread, for `async def` hooks called from sync code.

    The sync API must not need the caller's event loop; coroutine hooks run here.
    """

    def __init__(self) -> None:
        import asyncio  # 20-35 ms; only coroutine hooks need a loop

        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="policy-async-hooks", daemon=True
        )
        self._thread.start()

    def submit(self, coro: Coroutine[Any, Any, T]) -> Future[T]:
        import asyncio

        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def close(self) -> None:
        if self._loop.is_closed():
            return
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=2.0)
        if not self._thread.is_alive():
            self._loop.close()
