"""Time budgets: who waits how long, and what a timeout decides.

These tests wait on real clocks with budgets of 100-300 ms; the bounds they
assert are wide (the call must return within the budget plus a generous slack,
never before it), so they check semantics, not speed.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from policy import Action, ApprovalDecision, Decision, Engine, Event, ToolCall
from tests.conftest import make_engine

SLACK = 0.5  # seconds of scheduling slack allowed on a loaded 2-core CI machine


def call() -> ToolCall:
    return ToolCall(tool="bash", args={"command": "ls"})


class Sleeper:
    """Sleeps in before_tool / approve_tool; `release` lets a stuck one finish early."""

    def __init__(self, name: str, seconds: float) -> None:
        self.name = name
        self.seconds = seconds
        self.release = threading.Event()

    def before_tool(self, call: ToolCall) -> Decision:
        self.release.wait(self.seconds)
        return Decision(Action.MODIFY, call=call.replace(args={"command": "late"}))

    def approve_tool(self, call: ToolCall) -> ApprovalDecision:
        self.release.wait(self.seconds)
        return ApprovalDecision(True, reason="too late to count")


def test_interceptor_timeout_denies_under_fail_and_returns_within_the_budget(
    audit_log: Path,
) -> None:
    with make_engine(audit_log, interceptor_timeout_ms=150) as engine:
        hook = Sleeper("slow", 30)
        engine.register(hook)
        started = time.monotonic()
        decision = engine.before_tool(call())
        elapsed = time.monotonic() - started
        hook.release.set()
    assert decision.action is Action.DENY_TOOL
    assert decision.reason == "hook 'slow' timed out after 150 ms"
    assert decision.failure == "timeout"
    assert 0.15 <= elapsed < 0.15 + SLACK


def test_interceptor_timeout_continues_under_ignore(audit_log: Path) -> None:
    with make_engine(audit_log, interceptor_timeout_ms=100) as engine:
        hook = Sleeper("slow", 30)
        engine.register(hook, failure_policy="ignore")
        decision = engine.before_tool(call())
        hook.release.set()
    assert decision.action is Action.CONTINUE
    assert decision.call is not None and decision.call.args["command"] == "ls"
    assert decision.ignored == ("hook 'slow' timed out after 100 ms",)


def test_the_settings_failure_policy_is_the_default_for_hooks(audit_log: Path) -> None:
    with make_engine(audit_log, interceptor_timeout_ms=100, failure_policy="ignore") as engine:
        hook = Sleeper("slow", 30)
        engine.register(hook)
        decision = engine.before_tool(call())
        hook.release.set()
    assert decision.action is Action.CONTINUE


def test_a_hook_may_carry_its_own_budget(audit_log: Path) -> None:
    with make_engine(audit_log, interceptor_timeout_ms=5000) as engine:
        hook = Sleeper("slow", 30)
        engine.register(hook, timeout_ms=100)
        started = time.monotonic()
        decision = engine.before_tool(call())
        elapsed = time.monotonic() - started
        hook.release.set()
    assert decision.reason == "hook 'slow' timed out after 100 ms"
    assert elapsed < 0.1 + SLACK


def test_an_inline_hook_that_overruns_is_a_timeout_after_it_returns(audit_log: Path) -> None:
    """Inline hooks cannot be interrupted; their late answer is discarded."""
    with make_engine(audit_log, interceptor_timeout_ms=50) as engine:
        engine.register(Sleeper("inline-slow", 0.2), inline=True)
        decision = engine.before_tool(call())
    assert decision.action is Action.DENY_TOOL
    assert decision.failure == "timeout"
    assert decision.call is not None and decision.call.args["command"] == "ls"


def test_approval_timeout_denies(audit_log: Path) -> None:
    with make_engine(audit_log, approval_timeout_ms=200) as engine:
        hook = Sleeper("human", 30)
        engine.register(hook)
        started = time.monotonic()
        answer = engine.approve_tool(call())
        elapsed = time.monotonic() - started
        hook.release.set()
    assert not answer.approved
    assert answer.reason == "tool approval hook 'human' timed out after 200 ms"
    assert 0.2 <= elapsed < 0.2 + SLACK
    assert answer.waited_ms >= 200


def test_approval_timeout_can_be_set_per_call(audit_log: Path) -> None:
    with make_engine(audit_log) as engine:
        hook = Sleeper("human", 30)
        engine.register(hook)
        answer = engine.approve_tool(call(), timeout=0.1)
        hook.release.set()
    assert not answer.approved
    assert "timed out after 100 ms" in answer.reason


def test_an_approver_under_ignore_still_denies_on_timeout(audit_log: Path) -> None:
    with make_engine(audit_log, approval_timeout_ms=100) as engine:
        hook = Sleeper("human", 30)
        engine.register(hook, failure_policy="ignore")
        answer = engine.approve_tool(call())
        hook.release.set()
    assert not answer.approved


#: Past the moment an observer test's event must be delivered, or its call return: far
#: more than either takes on any machine, however loaded, and far less than what a
#: call or observer held up by a stuck observer waits (`STUCK`).
LATE = 10.0
#: How long a stuck observer stays stuck: it is let go at the end of its test.
STUCK = 60.0


class Stuck:
    """An observer that does not return until `release` (or `STUCK` seconds)."""

    name = "a-stuck"
    priority = 1

    def __init__(self) -> None:
        self.release = threading.Event()
        self.entered = threading.Event()

    def on_event(self, event: Event) -> None:
        self.entered.set()
        self.release.wait(STUCK)


def test_a_slow_observer_does_not_delay_the_call(audit_log: Path) -> None:
    stuck = Stuck()
    # Its budget outlasts it: a call that waited for it would wait the whole `STUCK`.
    with make_engine(audit_log, observer_timeout_ms=int(2 * STUCK * 1000)) as engine:
        engine.register(stuck)
        try:
            started = time.monotonic()
            decision = engine.before_tool(call())
            call_took = time.monotonic() - started
            assert stuck.entered.wait(LATE)  # the observer had the event
        finally:
            stuck.release.set()
    assert decision.action is Action.CONTINUE
    assert call_took < LATE, "the call waited for an observer"


def test_a_slow_observer_delays_other_observers_only_for_its_budget(audit_log: Path) -> None:
    heard: list[tuple[str, float]] = []
    done = threading.Event()
    stuck = Stuck()

    class Quick:
        name = "b-quick"
        priority = 2

        def on_event(self, event: Event) -> None:
            heard.append((event.kind, time.monotonic() - started))
            done.set()

    with make_engine(audit_log, observer_timeout_ms=200) as engine:
        engine.register(stuck)
        engine.register(Quick())
        try:
            started = time.monotonic()
            decision = engine.before_tool(call())
            assert done.wait(STUCK / 2), "the quick observer waited for the stuck one"
            stats = dict(engine.observer_stats)
        finally:
            stuck.release.set()
    assert decision.action is Action.CONTINUE
    (kind, at), *_ = heard
    assert kind == "policy.decision"
    # after the stuck observer's budget, and not much later
    assert 0.2 <= at < 0.2 + LATE, "the quick observer waited past the stuck one's budget"
    assert stats["failures"] >= 1


def test_coroutine_hooks_are_cancelled_at_their_budget(audit_log: Path) -> None:
    cancelled = threading.Event()

    class AsyncSlow:
        name = "async-slow"

        async def before_tool(self, call: ToolCall) -> None:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.set()
                raise

    with make_engine(audit_log, interceptor_timeout_ms=100) as engine:
        engine.register(AsyncSlow())
        decision = engine.before_tool(call())
        assert cancelled.wait(2)
    assert decision.reason == "hook 'async-slow' timed out after 100 ms"


@pytest.mark.parametrize("coroutine", [False, True], ids=["sync-hook", "async-hook"])
def test_timeouts_hold_in_the_async_api(audit_log: Path, coroutine: bool) -> None:
    class SyncSlow:
        name = "slow"

        def before_tool(self, call: ToolCall) -> None:
            time.sleep(2)

    class AsyncSlow:
        name = "slow"

        async def before_tool(self, call: ToolCall) -> None:
            await asyncio.sleep(2)

    async def main() -> tuple[Decision, float]:
        with make_engine(audit_log, interceptor_timeout_ms=100) as engine:
            engine.register(AsyncSlow() if coroutine else SyncSlow())
            started = time.monotonic()
            decision = await engine.abefore_tool(call())
            return decision, time.monotonic() - started

    decision, elapsed = asyncio.run(main())
    assert decision.action is Action.DENY_TOOL
    assert decision.failure == "timeout"
    assert elapsed < 0.1 + SLACK


def test_a_hook_raising_timeout_error_is_an_error_not_a_timeout(engine: Engine) -> None:
    class Raises:
        name = "raises"

        def before_tool(self, call: ToolCall) -> None:
            raise TimeoutError("upstream API timed out")

    engine.register(Raises())
    decision = engine.before_tool(call())
    assert decision.failure == "error"
    assert decision.reason == "hook 'raises' failed: TimeoutError: upstream API timed out"


def test_a_stuck_hook_does_not_keep_the_process_alive(tmp_path: Path) -> None:
    """Workers are daemon threads: the interpreter exits with a hook still stuck."""
    import subprocess
    import sys

    script = f"""
import time
from policy import Engine, ToolCall
from policy.settings import Settings
class Stuck:
    name = "stuck"
    def before_tool(self, call):
        time.sleep(3600)
engine = Engine(Settings(audit_path={str(tmp_path / "log")!r}, interceptor_timeout_ms=100))
engine.register(Stuck())
print(engine.before_tool(ToolCall(tool="bash", args={{}})).action.value)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30, check=True
    )
    assert done.stdout.strip() == "deny_tool"


def test_a_coroutine_that_answers_after_its_cancellation_is_still_a_timeout(
    audit_log: Path,
) -> None:
    class Stubborn:
        name = "stubborn"

        async def approve_tool(self, call: ToolCall) -> ApprovalDecision:
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                return ApprovalDecision(True, reason="approved on the way out")
            return ApprovalDecision(False)

    async def main() -> ApprovalDecision:
        with make_engine(audit_log) as engine:
            engine.register(Stubborn(), timeout_ms=100)
            return await engine.aapprove_tool(call())

    answer = asyncio.run(main())
    assert not answer.approved
    assert answer.reason == "tool approval hook 'stubborn' timed out after 100 ms"


def test_closing_while_the_first_event_comes_leaves_no_thread_and_raises_nothing() -> None:
    """The first event starts the observers' thread (and makes its queue); a close on
    another thread at that moment saw a thread not yet started and failed to join it
    (`RuntimeError`), or returned before an emit that had passed its check started a
    thread nobody would stop."""
    from policy._observers import ObserverDispatcher

    class _Invoker:
        def run(self, item: object) -> tuple[None, None]:
            return None, None

    class _Registration:
        name, timeout_ms = "observer", None

    class _Event:
        kind = "event"

    entries = ((_Registration(), None, False),)
    failures: list[BaseException] = []
    for _ in range(300):
        dispatcher = ObserverDispatcher(_Invoker(), 1.0, 16)  # type: ignore[arg-type]
        ready = threading.Barrier(3)

        def emit(dispatcher: ObserverDispatcher = dispatcher, ready: threading.Barrier = ready) -> None:
            ready.wait()
            try:
                dispatcher.emit(entries, _Event())  # type: ignore[arg-type]
            except BaseException as exc:  # (counted, not raised)
                failures.append(exc)

        def close(dispatcher: ObserverDispatcher = dispatcher, ready: threading.Barrier = ready) -> None:
            ready.wait()
            try:
                dispatcher.close(5)
            except BaseException as exc:  # (counted, not raised)
                failures.append(exc)

        threads = [threading.Thread(target=emit), threading.Thread(target=close)]
        for thread in threads:
            thread.start()
        ready.wait()
        for thread in threads:
            thread.join(10)
        started = dispatcher._thread
        if started is not None:
            started.join(5)
            assert not started.is_alive()
    assert failures == []
