"""`policy.hosts._turns.Turns`: a long-running hook handles each line on the thread that
read it, and a slow handling never keeps later lines unread for long."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest

from policy.hosts._turns import Handling, Turns

#: Generous: how long a test waits for something that must happen (a loaded machine).
WITHIN = 10.0


def run_in_background(turns: Turns) -> tuple[threading.Thread, list[BaseException]]:
    raised: list[BaseException] = []

    def run() -> None:
        try:
            turns.run()
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, raised


def handled_by(handle: Callable[[bytes], object]) -> Callable[[bytes], Handling]:
    """A route that leaves every line to `handle`."""
    return lambda line: lambda: handle(line)


def test_quick_lines_are_handled_in_order_on_the_thread_that_runs() -> None:
    seen: list[tuple[bytes, str]] = []
    turns = Turns(
        iter([b"a", b"b", b"c"]),
        handled_by(lambda line: seen.append((line, threading.current_thread().name))),
        most=4,
        stall=WITHIN,  # (no hand-on: every line is quick)
    )
    turns.run()
    here = threading.current_thread().name
    assert seen == [(b"a", here), (b"b", here), (b"c", here)]


def test_a_stuck_handling_does_not_keep_the_next_line_unread() -> None:
    release = threading.Event()
    second_done = threading.Event()
    handled: list[bytes] = []

    def handle(line: bytes) -> None:
        if line == b"stuck":
            release.wait(WITHIN)  # (a path on a mount that does not answer)
        else:
            second_done.set()
        handled.append(line)

    turns = Turns(iter([b"stuck", b"next"]), handled_by(handle), most=4, stall=0.01, tick=0.005)
    thread, raised = run_in_background(turns)
    try:
        assert second_done.wait(WITHIN), "the line after a stuck one was never handled"
        assert handled == [b"next"]
        assert thread.is_alive()  # (`run` waits for the stuck line too)
    finally:
        release.set()
    thread.join(WITHIN)
    assert not thread.is_alive() and not raised
    assert handled == [b"next", b"stuck"]


def test_with_most_readers_stuck_lines_are_still_routed_and_queued() -> None:
    """Two readers stuck (most=2): the next reader routes every line — an approval goes
    its own way at once — and queues the handlings for the workers."""
    release = threading.Event()
    both_stuck = threading.Event()
    routed: list[bytes] = []
    approval_routed = threading.Event()
    handled: list[tuple[bytes, str]] = []

    def handle(line: bytes) -> None:
        handled.append((line, threading.current_thread().name))
        if len(handled) == 2:
            both_stuck.set()
        release.wait(WITHIN)

    def route(line: bytes) -> Handling:
        routed.append(line)
        if line == b"approve":
            approval_routed.set()
            return None
        return lambda: handle(line)

    source = iter([b"1", b"2", b"3", b"approve"])
    turns = Turns(source, route, most=2, stall=0.01, tick=0.005, name="reader")
    thread, raised = run_in_background(turns)
    try:
        assert both_stuck.wait(WITHIN)
        assert approval_routed.wait(WITHIN), "an approval went unread behind stuck lines"
        assert routed == [b"1", b"2", b"3", b"approve"]
    finally:
        release.set()
    thread.join(WITHIN)
    assert not thread.is_alive() and not raised
    names = dict(handled)
    assert sorted(names) == [b"1", b"2", b"3"]
    assert names[b"3"].startswith("reader-overflow")  # (two readers stuck already)
    assert not names[b"1"].startswith("reader-overflow")


def test_a_failing_handling_does_not_stop_the_reading(capsys: pytest.CaptureFixture[str]) -> None:
    handled: list[bytes] = []

    def handle(line: bytes) -> None:
        if line == b"bad":
            raise ValueError("a bug in the handler")
        handled.append(line)

    Turns(iter([b"bad", b"good"]), handled_by(handle), most=2).run()
    assert handled == [b"good"]
    assert "ValueError: a bug in the handler" in capsys.readouterr().err


def test_what_the_source_raises_is_raised_once_the_lines_taken_up_are_handled() -> None:
    handled: list[bytes] = []

    def source() -> Iterator[bytes]:
        yield b"one"
        raise OSError("stdin went away")

    with pytest.raises(OSError, match="stdin went away"):
        Turns(source(), handled_by(handled.append), most=2).run()
    assert handled == [b"one"]
