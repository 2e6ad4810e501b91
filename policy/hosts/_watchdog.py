"""A hook process answers in time, and goes when the host ends it: the deadline, the
signals and the exit every `policy hook <host>` process shares (policy.hosts._hook_process
re-exports them).

Built on the interpreter's own `_thread` and `_signal` modules, not `threading` and
`signal`: the thin client of `policy serve` runs this at every tool call, and those two
(with `functools`, `collections`, `enum` behind them) would be a large part of its start
(policy.hosts.claude.thin).
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # (no stub: `signal` is its wrapper)
import _thread
import heapq
import itertools
import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

__all__ = [
    "Watch",
    "Watchdog",
    "drain",
    "end_process",
    "ended_by",
    "later",
    "no_answer_within",
    "note",
    "on_signal",
]


def no_answer_within(seconds: float) -> str:
    """The reason of the watchdog's refusal."""
    return f"policy hook gave no answer within {seconds:g} s (failed closed)"


class Watchdog:
    """Calls each watched function at its deadline unless it was cancelled first.

    One thread for every watch: a timer per request would cost a thread per call. The
    thread is the process's to end (it never holds the exit, like a daemon thread). It
    is woken only by a watch due before every other, and drops the cancelled ones at
    the head of its heap without waiting for their deadlines: a long-running hook that
    watches every request (each answered, and its watch cancelled, long before its
    deadline) would otherwise wake it twice a request — on one core, two more thread
    switches in every round trip.
    """

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, Watch]] = []
        self._order = itertools.count()
        self._lock = _thread.allocate_lock()  # guards the heap
        self._wake = _thread.allocate_lock()  # released: a watch was added, look again
        self._wake.acquire()
        _thread.start_new_thread(self._run, ())

    def watch(self, deadline: float, fire: Callable[[], object]) -> Watch:
        """Call `fire()` at `deadline` (time.monotonic) unless `cancel()`ed before; a
        deadline that is no number is due at once (in the heap, NaN, which compares
        false with everything, would disorder every other watch)."""
        watch = Watch(fire)
        if deadline != deadline:  # NaN
            deadline = float("-inf")
        with self._lock:
            heap = self._heap
            # (the thread sleeps until the head's deadline, or for good when there is
            # none: only a new first deadline needs it awake)
            first = not heap or deadline < heap[0][0]
            heapq.heappush(heap, (deadline, next(self._order), watch))
            if first and self._wake.locked():
                self._wake.release()
        return watch

    def _run(self) -> None:
        while True:
            due: Watch | None = None
            with self._lock:
                wait = -1.0  # nothing watched: until a watch is added
                while self._heap and self._heap[0][2].cancelled:
                    heapq.heappop(self._heap)  # (answered in time: nothing to wait for)
                if self._heap:
                    wait = self._heap[0][0] - time.monotonic()
                    if wait <= 0:
                        due = heapq.heappop(self._heap)[2]
            if due is not None:
                if not due.cancelled:
                    _fire(due)
                continue
            # Released by `watch` (look at the heap again) or timed out (the first due).
            self._wake.acquire(timeout=min(wait, _thread.TIMEOUT_MAX))


def _fire(watch: Watch) -> None:
    """`watch.fire()`; what it raises is reported, not let end the watchdog's thread,
    which every later deadline of the process depends on."""
    try:
        watch.fire()
    except Exception as exc:  # noqa: BLE001 - reported; the other watches must still fire
        note(f"policy: a deadline's refusal failed: {type(exc).__name__}: {exc}\n")


#: What waits to be done after a refusal (`note`, `later`); past this many, new ones are
#: dropped.
_NOTES_MAX = 256
_notes: list[Callable[[], object]] = []
_notes_lock = _thread.allocate_lock()
_notes_waiting = _thread.allocate_lock()  # released: notes wait to be written
_notes_waiting.acquire()
_notes_writer: list[bool] = []  # (one entry once the writer's thread runs)


def note(text: str) -> None:
    """`text` written to stderr by a thread of its own, never by the caller: a
    watchdog that refused a request must not then wait on a stderr nobody reads (a
    host that stopped reading it, a decision log on it that filled the pipe), or every
    later deadline would pass unanswered. Past `_NOTES_MAX` notes waiting, dropped;
    never raises."""
    later(lambda: _report(text))


def later(action: Callable[[], object]) -> None:
    """`action` done by the notes' thread, in turn with the notes, never by the caller:
    what a refusal leaves behind (a record in a decision log whose lock another process
    may hold) must not hold up the refusals after it. What it raises is dropped (an
    action reports its own failure); past `_NOTES_MAX` waiting, dropped; never raises."""
    with _notes_lock:
        if len(_notes) >= _NOTES_MAX:
            return
        if not _notes_writer:
            try:
                _thread.start_new_thread(_write_notes, ())
            except RuntimeError:  # (no thread to be had: the note is dropped, never raised)
                return
            _notes_writer.append(True)
        _notes.append(action)
        if _notes_waiting.locked():
            _notes_waiting.release()


def drain(timeout: float) -> bool:
    """Wait, at most `timeout` seconds, until what `later` was given before is done: a
    process about to close its decision log lets the records of its refusals in first.
    Whether it all was (False too when the queue was full: nothing confirms it). Done by
    a last action of its own, which the notes' thread reaches after all the others."""
    with _notes_lock:
        if not _notes_writer:
            return True  # (nothing was ever given)
    reached = _thread.allocate_lock()
    reached.acquire()
    later(reached.release)
    return reached.acquire(timeout=max(0.0, min(timeout, _thread.TIMEOUT_MAX)))


def _write_notes() -> None:
    while True:
        _notes_waiting.acquire()
        with _notes_lock:
            waiting = _notes[:]
            _notes.clear()
        for action in waiting:
            try:
                action()
            except Exception:  # noqa: BLE001 - an action reports its own failure
                continue


def _report(text: str) -> None:
    """`text` on stderr, if there is one to write to (a host may close it)."""
    try:
        os.write(2, text.encode("utf-8", "backslashreplace"))
    except OSError:
        return


class Watch:
    """One deadline a Watchdog keeps."""

    __slots__ = ("cancelled", "fire")

    def __init__(self, fire: Callable[[], object]) -> None:
        self.fire = fire
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def ended_by(number: int) -> str:
    """The reason of a refusal for the signal `number` that ended the process."""
    import signal

    return f"policy hook ended by {signal.Signals(number).name} (failed closed)"


def on_signal(give_up: Callable[[str], object], reason: Callable[[int], str] = ended_by) -> None:
    """Call `give_up(reason(signal number))` when the host ends this process with
    SIGTERM, SIGHUP or SIGINT, so that what it was waiting on is expired (or the
    refusal printed) rather than left approvable; the process then ends. Called from
    the main thread.

    The giving up runs on a thread of its own, and learns of the signal without the
    main thread. A Python handler runs on the main thread between two of its
    bytecodes: inside a lock the giving up needs (the one answer being printed: the
    handler then waited for itself, and the process hung until the host killed it),
    inside an import's weakref callback (which prints what a handler raises and drops
    it with the stop) — or not at all while the main thread is blocked reading a pipe
    and the kernel delivered the signal to another of the process's threads: the
    PicoClaw hook then went on reading, its approvals pending, until its stdin closed.
    So the interpreter's own handler also writes the signal's number to a wakeup pipe
    (`signal.set_wakeup_fd`), which a thread of ours reads; whichever learns of it
    first gives up, once."""
    once = _thread.allocate_lock()
    numbers = {
        number
        for number in (getattr(_signal, name, None) for name in ("SIGTERM", "SIGHUP", "SIGINT"))
        if number is not None
    }

    def end(number: int) -> None:
        if once.acquire(False):  # (else another thread is giving up and ending it)
            _give_up_on(give_up, reason, number)

    def handler(number: int, _frame: Any) -> None:
        try:
            _thread.start_new_thread(end, (number,))
        except RuntimeError:  # no thread to be had: here, then, as the only way left
            end(number)

    for number in numbers:
        _signal.signal(number, handler)
    _read_wakeups(numbers, end)


def _read_wakeups(numbers: set[int], end: Callable[[int], None]) -> None:
    """A thread that reads the numbers of the signals the interpreter's handler writes
    to the wakeup pipe, whichever thread the kernel delivered them to, and calls
    `end` for those in `numbers`. Without a thread or a pipe to be had, the Python
    handlers alone remain."""
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return
    try:
        os.set_blocking(write_end, False)  # (the interpreter's handler must never block)
        _signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except (OSError, ValueError):  # (ValueError: not the main thread)
        os.close(read_end)
        os.close(write_end)
        return

    def read() -> None:
        while True:
            try:
                woken = os.read(read_end, 64)
            except OSError:
                return
            if not woken:
                return
            for number in woken:
                if number in numbers:
                    end(number)

    try:
        _thread.start_new_thread(read, ())
    except RuntimeError:
        return


def _give_up_on(
    give_up: Callable[[str], object], reason: Callable[[int], str], number: int
) -> None:
    """`give_up` for the signal `number`, and the end of the process whatever it does:
    the host has asked for it. What `give_up` raises is reported on stderr, and the
    exit is then 2, not 0: its refusal may not be out, and a silent exit 0 is read as
    no objection (fail closed)."""
    try:
        give_up(reason(number))
    except BaseException as exc:  # noqa: BLE001 - reported; the process ends all the same
        _report(f"policy: giving up on signal {number} failed: {type(exc).__name__}: {exc}\n")
        end_process(2)
    end_process()


def end_process(status: int = 0) -> NoReturn:
    """End the process now, skipping interpreter teardown and the threads still running.

    For a process whose answers are out: a one-event hook (tearing down every module and
    the CEL library's C++ state is ≈ 15 ms nobody waits for but the host), a watchdog
    that gave up on a stuck main thread, or workers stuck at exit (they are not
    daemons and would hold it). Exit status 0, whatever flushing meets: a host reads a
    hook's answer only when it exits 0. (`status` 2 for a process whose refusal could
    not be written: Claude Code takes a hook's exit 2 as a block, and its silent exit 0
    as no objection.)"""
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is None:  # started with that descriptor closed
                continue
            try:
                stream.flush()
            except (OSError, ValueError):
                continue  # a closed pipe: nothing more can reach the host anyway
    finally:
        os._exit(status)
