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
from typing import TYPE_CHECKING, Any, TypeVar

from policy.chain import Failure, Outcome, Step
from policy.errors import AnalysisIncomplete

if TYPE_CHECKING:
    from concurrent.futures import Future

    from policy._workers import DaemonPool, LoopThread

__all__ = ["Invoker", "call_inline"]

T = TypeVar("T")


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _failure(exc: BaseException) -> Failure:
    """A hook's exception as a failure: a call whose analysis gave up is a refusal of
    its own kind ("limit", policy.errors.AnalysisIncomplete), which no failure policy
    skips (policy.chain.Fold.take)."""
    if isinstance(exc, AnalysisIncomplete):
        return Failure("limit", exc.limit)
    return Failure("error", _describe(exc))


def _timeout(budget: float) -> Failure:
    return Failure("timeout", f"no answer within {round(budget * 1000)} ms")


def call_inline(method: Callable[..., Any], args: tuple[Any, ...], budget: float) -> Outcome:
    """Run a hook on this thread; an answer later than `budget` is a timeout."""
    start = time.perf_counter()
    try:
        value = method(*args)
    except Exception as exc:  # noqa: BLE001 - a hook's error is a failure, by policy
        return None, _failure(exc)
    if time.perf_counter() - start > budget:
        return None, _timeout(budget)
    return value, None


#: Threads that approvers may hold while they wait for a person. Apart from the hook
#: workers, so waits that pile up never hold up a decision (or a deferred approval,
#: which must answer at once); grown on demand, so the size costs nothing until used.
#: `policy serve` caps concurrent waits below this (docs/service.md), so none queues.
WAIT_WORKERS = 1024


class Invoker:
    """Owns the worker threads; shared by every call of one engine."""

    def __init__(self, workers: int, wait_workers: int = WAIT_WORKERS) -> None:
        self._workers = workers
        self._wait_workers = wait_workers
        self._lock = threading.Lock()
        self._pool: DaemonPool | None = None
        self._waits: DaemonPool | None = None
        self._loop: LoopThread | None = None

    def _get_pool(self, waiting: bool = False) -> DaemonPool:
        pool = self._waits if waiting else self._pool
        if pool is None:
            # (imported here: a hook process whose hooks all run inline, as packs and
            # builtins do, never starts a worker, and concurrent.futures brings logging)
            from policy._workers import DaemonPool

            with self._lock:
                if waiting:
                    if self._waits is None:
                        self._waits = DaemonPool(self._wait_workers, name="policy-wait")
                    pool = self._waits
                else:
                    if self._pool is None:
                        self._pool = DaemonPool(self._workers)
                    pool = self._pool
        return pool

    def _get_loop(self) -> LoopThread:
        loop = self._loop
        if loop is None:
            from policy._workers import LoopThread

            with self._lock:
                if self._loop is None:
                    self._loop = LoopThread()
                loop = self._loop
        return loop

    # ------------------------------------------------------------------ sync

    def run(self, step: Step, waiting: bool = False) -> Outcome:
        """Run one step; `waiting`: on the approvers' threads, not the hooks'."""
        reg, method, args, budget, coroutine = step
        if coroutine:
            try:
                awaitable = method(*args)  # a wrong signature raises here, not in the loop
            except Exception as exc:  # noqa: BLE001 - a hook's error is a failure, by policy
                return None, _failure(exc)
            return self._wait(self._get_loop().submit(awaitable), budget)
        if reg.inline:
            return call_inline(method, args, budget)
        # In the caller's context: whom the decision is for (policy.facts.deciding_for)
        # holds in the worker too.
        context = contextvars.copy_context()
        pool = self._get_pool(waiting)
        return self._wait(pool.submit(context.run, method, *args), budget)

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
            return None, _failure(exc)

    def drive(self, plan: Generator[Step, Outcome, T], *, waiting: bool = False) -> T:
        """Run `plan` to its end; `waiting`: an approval plan, whose steps may wait for
        people and so run on the approvers' threads."""
        try:
            step = next(plan)
            while True:
                step = plan.send(self.run(step, waiting))
        except StopIteration as stop:
            result: T = stop.value
            return result

    # ----------------------------------------------------------------- async

    async def arun(self, step: Step, waiting: bool = False) -> Outcome:
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
                    value = await loop.run_in_executor(
                        self._get_pool(waiting), context.run, method, *args
                    )
        except TimeoutError as exc:
            if scope.expired():
                return None, _timeout(budget)
            return None, Failure("error", _describe(exc))
        except Exception as exc:  # noqa: BLE001 - a hook's error is a failure, by policy
            return None, _failure(exc)
        if scope.expired():
            # The hook swallowed its cancellation and answered late: not an answer.
            return None, _timeout(budget)
        return value, None

    async def adrive(self, plan: Generator[Step, Outcome, T], *, waiting: bool = False) -> T:
        try:
            step = next(plan)
            while True:
                step = plan.send(await self.arun(step, waiting))
        except StopIteration as stop:
            result: T = stop.value
            return result

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            waits, self._waits = self._waits, None
            loop, self._loop = self._loop, None
        for threads in (pool, waits):
            if threads is not None:
                threads.shutdown(wait=False)
        if loop is not None:
            loop.close()
