"""How a long-running hook process reads its host's lines (`serve_lines`): in order, the
work of each done by the thread that read it, and never a line left unread because
one request's work is held up — the host would skip the hook for it, and the call run
unguarded."""

from __future__ import annotations

import io
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import pytest

from policy.hosts._hook_process import STANDBY_POLL, StopReading, serve_lines

#: Generous waits: a loaded machine is slow, never wrong (none of them is a timing).
LONG = 30.0


class CountingPool(ThreadPoolExecutor):
    """A pool that says which work it was given."""

    def __init__(self) -> None:
        super().__init__(max_workers=4, thread_name_prefix="pool")
        self.given: list[Callable[[], object]] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.given.append(fn)
        return super().submit(fn, *args, **kwargs)


@contextmanager
def host_stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.BufferedWriter]:
    """A pipe in place of stdin: what the test writes, the readers read."""
    read_end, write_end = os.pipe()
    reader = io.TextIOWrapper(os.fdopen(read_end, "rb"))
    monkeypatch.setattr(sys, "stdin", reader)
    writer = os.fdopen(write_end, "wb", buffering=0)
    try:
        yield writer  # type: ignore[misc]
    finally:
        if not writer.closed:
            writer.close()
        reader.close()


def run_in_background(
    dispatch: Callable[[bytes], Any], pool: ThreadPoolExecutor, wait: float | None = None
) -> queue.Queue[bool]:
    """`serve_lines` on a thread of its own; what `Readers.join(wait)` said once it
    returned comes on the queue."""
    done: queue.Queue[bool] = queue.Queue()
    threading.Thread(
        target=lambda: done.put(serve_lines(dispatch, pool).join(wait)), daemon=True
    ).start()
    return done


def standing_by(host: io.BufferedWriter, answered: queue.Queue[Any], pool: CountingPool) -> None:
    """Write lines one at a time until one is worked on by its reader: from then on the
    second reader stands by (before it does, a reader gives its work to the pool)."""
    for n in range(1000):
        given = len(pool.given)
        host.write(b"warm-%d\n" % n)
        answered.get(timeout=LONG)
        if len(pool.given) == given:
            return
    raise AssertionError("no reader ever did a line's work itself")


def test_each_line_is_worked_on_by_the_thread_that_read_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A host that waits for each answer before it writes the next request (PicoClaw,
    one tool call at a time): no line is waiting when one is worked on, so its reader
    does the work — no worker thread, no switch to one."""
    seen: queue.Queue[tuple[bytes, str, str]] = queue.Queue()
    pool = CountingPool()

    def dispatch(line: bytes) -> Callable[[], None]:
        reader = threading.current_thread().name
        return lambda: seen.put((line, reader, threading.current_thread().name))

    with host_stdin(monkeypatch) as host:
        done = run_in_background(dispatch, pool)
        standing_by(host, seen, pool)
        given = len(pool.given)
        lines = [b"one", b"two", b"three"]
        got = []
        for line in lines:
            host.write(line + b"\n\n  \n")  # (blank lines are skipped)
            got.append(seen.get(timeout=LONG))
        host.close()
        assert done.get(timeout=LONG) is True
    pool.shutdown()
    assert [line for line, _, _ in got] == lines
    assert all(reader == worker for _, reader, worker in got)
    assert all(reader.startswith("hook-reader-") for _, reader, _ in got)
    assert len(pool.given) == given


def answering(
    answered: queue.Queue[str], held: bytes, reached: threading.Event, release: threading.Event
) -> Callable[[bytes], Callable[[], None]]:
    """A dispatch whose work answers each line (its text on `answered`); the line `held`
    says it `reached` its work, then waits for `release` first (a locked log, a hook
    that hangs)."""

    def dispatch(line: bytes) -> Callable[[], None]:
        def work() -> None:
            if line == held:
                reached.set()
                release.wait(LONG)
            answered.put(line.decode())

        return work

    return dispatch


def test_lines_are_read_and_worked_on_while_one_request_is_held_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The held-up work keeps its thread; the other reader reads on, and hands what it
    reads to the pool until the held-up work is done — then works on lines itself."""
    stuck, release = threading.Event(), threading.Event()
    answered: queue.Queue[str] = queue.Queue()
    pool = CountingPool()
    dispatch = answering(answered, held=b"stuck", reached=stuck, release=release)

    with host_stdin(monkeypatch) as host:
        done = run_in_background(dispatch, pool)
        standing_by(host, answered, pool)
        given = len(pool.given)
        host.write(b"stuck\n")
        assert stuck.wait(LONG)
        host.write(b"behind\n")
        assert answered.get(timeout=LONG) == "behind"  # (before the stuck one)
        assert len(pool.given) == given + 1  # (the stuck one was its reader's)
        release.set()
        assert answered.get(timeout=LONG) == "stuck"
        # once nothing is held up, the reader works on what it reads again (the
        # held-up reader stands by as soon as its work returns: a line or two may
        # still have gone to the pool before)
        for n in range(1000):
            before = len(pool.given)
            host.write(f"later-{n}\n".encode())
            assert answered.get(timeout=LONG) == f"later-{n}"
            if len(pool.given) == before:
                break
        given = len(pool.given)
        host.write(b"last\n")
        assert answered.get(timeout=LONG) == "last"
        assert len(pool.given) == given
        host.close()
        assert done.get(timeout=LONG) is True
    pool.shutdown()


def test_lines_already_waiting_are_not_held_up_by_work_done_in_turn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A burst of requests whose work each waits a little (a hosted hook, a remote
    engine) — less than it takes a standby to read on — is read at once: a reader does
    a line's work itself only when no other line waits to be read."""
    read_at: dict[bytes, float] = {}
    answered: queue.Queue[bytes] = queue.Queue()
    pool = CountingPool()

    def dispatch(line: bytes) -> Callable[[], None]:
        read_at[line] = time.monotonic()

        def work() -> None:
            time.sleep(STANDBY_POLL / 2)  # (the work waits on something)
            answered.put(line)

        return work

    with host_stdin(monkeypatch) as host:
        done = run_in_background(dispatch, pool)
        burst = [b"%d" % n for n in range(200)]
        written = time.monotonic()
        host.write(b"".join(line + b"\n" for line in burst))
        got = {answered.get(timeout=LONG) for _ in burst}
        host.close()
        assert done.get(timeout=LONG) is True
    pool.shutdown()
    assert got == set(burst)
    # done one after another, 200 works would take 200 x 25 ms = 5 s to be read; all
    # but the first went to the pool, read as they came
    assert len(pool.given) >= len(burst) - 1
    assert max(read_at.values()) - written < 100 * STANDBY_POLL / 2


def test_lines_are_dispatched_in_the_order_written(monkeypatch: pytest.MonkeyPatch) -> None:
    order: list[bytes] = []
    with host_stdin(monkeypatch) as host:
        done = run_in_background(lambda line: order.append(line), CountingPool())
        host.write(b"".join(b"%d\n" % n for n in range(500)))
        host.close()
        assert done.get(timeout=LONG) is True
    assert order == [b"%d" % n for n in range(500)]


def test_stop_reading_ends_the_reading_as_eof_does(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[bytes] = []

    def dispatch(line: bytes) -> None:
        seen.append(line)
        if line == b"shutdown":
            raise StopReading

    with host_stdin(monkeypatch) as host:
        done = run_in_background(dispatch, CountingPool())
        host.write(b"a\nshutdown\nb\n")  # (stdin stays open)
        assert done.get(timeout=LONG) is True
    assert seen == [b"a", b"shutdown"]


def test_a_line_whose_handling_failed_is_reported_and_the_next_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    worked: queue.Queue[bytes] = queue.Queue()

    def dispatch(line: bytes) -> Callable[[], None]:
        if line == b"bad dispatch":
            raise ValueError("cannot parse")

        def work() -> None:
            if line == b"bad work":
                raise KeyError("boom")
            worked.put(line)

        return work

    with host_stdin(monkeypatch) as host:
        done = run_in_background(dispatch, CountingPool())
        host.write(b"bad dispatch\nbad work\nfine\n")
        assert worked.get(timeout=LONG) == b"fine"
        host.close()
        assert done.get(timeout=LONG) is True


def test_a_bounded_wait_gives_up_on_work_that_never_ends(monkeypatch: pytest.MonkeyPatch) -> None:
    started, never = threading.Event(), threading.Event()
    answered: queue.Queue[str] = queue.Queue()
    pool = CountingPool()
    dispatch = answering(answered, held=b"forever", reached=started, release=never)

    with host_stdin(monkeypatch) as host:
        done = run_in_background(dispatch, pool, wait=STANDBY_POLL)
        standing_by(host, answered, pool)
        host.write(b"forever\n")  # (alone: its reader works on it, and never ends)
        assert started.wait(LONG)
        host.close()
        assert done.get(timeout=LONG) is False  # (the work still runs)
    never.set()
    pool.shutdown()


def test_lines_are_read_whole_however_the_host_writes_them() -> None:
    """Lines longer than a read, split anywhere (a newline at a read's edge too), and
    blank ones between: each comes out whole, once, in order; what is left after the
    last newline at EOF is the last line. (A long line is looked through once: the
    search goes on from where the last read ended.)"""
    import random

    from policy.hosts._hook_process import _READ_SIZE, _Lines

    rng = random.Random(7)
    lines = [
        b"x" * _READ_SIZE,
        b"y" * (3 * _READ_SIZE + 17),
        b"short",
        b"z" * (_READ_SIZE - 1),
        b"w" * 200_000,
    ]
    data = b"\n\n".join(lines) + b"\n  \nlast without newline"
    read_end, write_end = os.pipe()

    def feed() -> None:
        at = 0
        while at < len(data):
            size = rng.choice([1, 7, _READ_SIZE - 1, _READ_SIZE, _READ_SIZE + 1, 100_000])
            at += os.write(write_end, data[at : at + size])
        os.close(write_end)

    threading.Thread(target=feed, daemon=True).start()
    source = _Lines(read_end)
    got = []
    while line := source.next():
        got.append(line)
    os.close(read_end)
    assert got == [*lines, b"last without newline"]
