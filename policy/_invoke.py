"""Running one hook under its time budget, and driving a plan (sync or async).

Three ways to run a hook, chosen at registration:

* inline: on the caller's thread; the budget is checked when it returns (a late
  answer is discarded as a timeout). For bounded code: compiled packs, builtins.
* thread: on a daemon worker; the caller waits at most the budget. The default
  for code hooks, because only this bounds the caller's latency.
* coroutine (`async def`): awaited with the budget; from the sync API it runs on
  a private event loop thread, so callers need no loop of their own.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import Any, TypeVar

from policy._workers import DaemonPool, LoopThread
from policy.chain import Failure, Outcome, Step

__all__ = ["Invoker", "call_inline"]

T = TypeVar("T")


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _timeout(budget: float) -> Failure:
    return Failure("timeout", f"no answer within {round(budget * 1000)} ms")


def call_inline(method: Callable[..., Any], args: tuple[Any, ...], budget: float) -> Outcome:
    """Run a hook on this thread; an answer later than `budget` is a timeout."""
    start = time.perf_counter()
    try:
        value = method(*args)
    except Exception as exc:  # noqa: BLE001 - a hook's error is a failure, by policy
        return None, Failure("error", _describe(exc))
    if time.perf_counter() - start > budget:
        return None, _timeout(budget)
    return value, None


class Invoker:
    """Owns the worker threads; shared by every call of one engine."""

    def __init__(self, workers: int) -> None:
        self._workers = workers
        self._lock = threading.Lock()
        self._pool: DaemonPool | None = None
        self._loop: LoopThread | None = None

    def _get_pool(self) -> DaemonPool:
        pool = self._pool
        if pool is None:
            with self._lock:
                if self._pool is None:
                    self._pool = DaemonPool(self._workers)
                pool = self._pool
        return pool

    def _get_loop(self) -> LoopThread:
        loop = self._loop
        if loop is None:
            with self._lock:
                if self._loop is None:
                    self._loop = LoopThread()
                loop = self._loop
        return loop

    # ------------------------------------------------------------------ sync

    def run(self, step: Step) -> Outcome:
        reg, method, args, budget, coroutine = step
        if coroutine:
            try:
                awaitable = method(*args)  # a wrong signature raises here, not in the loop
            except Exception as exc:  # noqa: BLE001 - a hook's error is a failure, by policy
                return None, Failure("error", _describe(exc))
            return self._wait(self._get_loop().submit(awaitable), budget)
        if reg.inline:
            return call_inline(method, args, budget)
        # In the caller's context: whom the decision is for (policy.facts.deciding_for)
        # holds in the worker too.
        context = contextvars.copy_context()
        return self._wait(self._get_pool().submit(context.run, method, *args), budget)

    @staticmethod
    def _wait(future: Future[Any], budget: float) -> Outcome:
        try:
            return future.result(timeout=budget), None
        except TimeoutError as exc:
            if future.done():  # the hook itself raised TimeoutError
                return None, Failure("error", _describe(exc))
            future.cancel()
            return None, _timeout(budget)
        except Exception as exc:  # noqa: BLE001 - a hook's error is a failure, by policy
            return None, Failure("error", _describe(exc))

    def drive(self, plan: Generator[Step, Outcome, T]) -> T:
        try:
            step = next(plan)
            while True:
                step = plan.send(self.run(step))
        except StopIteration as stop:
            result: T = stop.value
            return result

    # ----------------------------------------------------------------- async

    async def arun(self, step: Step) -> Outcome:
        reg, method, args, budget, coroutine = step
        if not coroutine and reg.inline:
            return self.run(step)
        import asyncio  # not at module level: a one-event `policy hook` never loads it

        scope = asyncio.timeout(budget)
        try:
            async with scope:
                if coroutine:
                    value = await method(*args)
                else:
                    loop = asyncio.get_running_loop()
                    context = contextvars.copy_context()
                    value = await loop.run_in_executor(self._get_pool(), context.run, method, *args)
        except TimeoutError as exc:
            if scope.expired():
                return None, _timeout(budget)
            return None, Failure("error", _describe(exc))
        except Exception as exc:  # noqa: BLE001 - a hook's error is a failure, by policy
            return None, Failure("error", _describe(exc))
        if scope.expired():
            # The hook swallowed its cancellation and answered late: not an answer.
            return None, _timeout(budget)
        return value, None

    async def adrive(self, plan: Generator[Step, Outcome, T]) -> T:
        try:
            step = next(plan)
            while True:
                step = plan.send(await self.arun(step))
        except StopIteration as stop:
            result: T = stop.value
            return result

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            loop, self._loop = self._loop, None
        if pool is not None:
            pool.shutdown(wait=False)
        if loop is not None:
            loop.close()
