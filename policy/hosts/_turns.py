"""Lines handled on the thread that read them, and the reading handed on when one is slow.

A long-running process hook (`policy hook picoclaw`) reads one request a line. Handing
each line to a worker thread costs the round trip a thread's wake-up — a quarter of
it on the shipped packs (bench_picoclaw.py: 302-312 against 225-236 µs, the same
hour) — so the thread that reads a line handles it itself. But a handler can be slow
for reasons no policy controls — a path on a mount that does not answer, a state
store's lock held by another process for seconds — and a reader stuck in one would
leave every later line, an approval's included, unread until it returns, which the
host takes as a hook that does not answer. So a watch looks at the reader now and
then: once it has handled one line for `stall` seconds, the reading is handed to a new
thread, and the old one ends when its line is done.

Each line is first `route`d on the reading thread — what is quick to answer or goes
elsewhere (a parse error, an approval that waits on threads of its own) is done there
and then — and what `route` returns is the line's handling. At most `most` lines are
handled by readers at once; past that (every one of them stuck), a reader hands the
handling to `most` worker threads and keeps reading, so routing never stops and no
more than `2 * most + 1` threads ever hold lines, as before with a pool of workers.

What a line may wait behind: a handler up to `stall` plus the watch's `tick`; a handler
that never returns, the same once (the next reader is another thread).

The watch sleeps once nothing was handled for `idle` seconds, and is woken by the next
line: on a steady stream it wakes every `tick`, never once a line.
"""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor

__all__ = ["Turns"]

#: How long a reader handles one line before another thread takes over the reading.
STALL = 0.02
#: How often the watch looks at the reader while lines come.
TICK = 0.01
#: How long no line is handled before the watch sleeps until the next one.
IDLE = 1.0


#: What `route` makes of a line: its handling, or None when routing answered it.
Handling = Callable[[], object] | None


class Turns:
    """Reads `source`, routes each line and runs its handling on the reading thread,
    the reading handed to a new thread whenever a handling takes `stall` seconds."""

    def __init__(
        self,
        source: Iterator[bytes],
        route: Callable[[bytes], Handling],
        *,
        most: int,
        stall: float = STALL,
        tick: float = TICK,
        idle: float = IDLE,
        name: str = "policy-reader",
    ) -> None:
        self._source = source
        self._route = route
        self._most = most
        self._stall, self._tick, self._idle = stall, tick, idle
        self._name = name
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        #: Whose turn it is to read (a number per reader thread; 0 the caller of `run`).
        self._reader = 0
        self._readers = 1
        #: When the reader took up the line it handles; None while it reads.
        self._since: float | None = None
        #: When a line was last taken up, by any reader.
        self._last = 0.0
        #: Lines being handled by readers (the reader, those it replaced), and by all.
        self._inline = 0
        self._handling = 0
        #: Where handlings go while `most` readers are stuck in theirs.
        self._overflow: ThreadPoolExecutor | None = None
        self._ended = False
        self._failure: BaseException | None = None
        self._watching = False
        self._wake = threading.Event()
        self._stop = threading.Event()

    def run(self) -> None:
        """Read and handle lines until the source ends; return once every line taken
        up is handled. What the source raised is raised here, after the same wait."""
        watch = threading.Thread(target=self._watch, name=f"{self._name}-watch", daemon=True)
        watch.start()
        try:
            self._read(0)
            with self._changed:
                while not self._ended or self._handling:
                    self._changed.wait()
        finally:
            self._stop.set()
            self._wake.set()
            if self._overflow is not None:
                self._overflow.shutdown(wait=False)
        if self._failure is not None:
            raise self._failure

    def _read(self, me: int) -> None:
        while True:
            with self._lock:
                if self._reader != me or self._ended:
                    return
                self._since = None
            try:
                line = next(self._source)
            except StopIteration:
                self._end(None)
                return
            except BaseException as exc:  # noqa: BLE001 - stdin failed: `run` raises it
                self._end(exc)
                return
            try:
                handling = self._route(line)
            except Exception:  # noqa: BLE001 - routing answers its own failures; a bug
                # in it must not stop the reading
                traceback.print_exc(file=sys.stderr)
                continue
            if handling is None:
                continue
            with self._lock:
                self._handling += 1
                if self._inline >= self._most:
                    if self._overflow is None:
                        self._overflow = ThreadPoolExecutor(self._most, f"{self._name}-overflow")
                    self._overflow.submit(self._run, handling, False)
                    continue
                self._inline += 1
                self._since = self._last = time.monotonic()
                if not self._watching:
                    self._watching = True
                    self._wake.set()
            self._run(handling, True)

    def _end(self, failure: BaseException | None) -> None:
        with self._changed:
            self._failure = failure
            self._ended = True
            self._changed.notify_all()

    def _run(self, handling: Callable[[], object], inline: bool) -> None:
        try:
            handling()
        except Exception:  # noqa: BLE001 - a handling answers its own failures
            traceback.print_exc(file=sys.stderr)
        finally:
            with self._changed:
                self._handling -= 1
                self._inline -= inline
                if self._ended and not self._handling:
                    self._changed.notify_all()  # (`run` waits for that alone)

    def _watch(self) -> None:
        while True:
            self._wake.wait()
            if self._stop.is_set():
                return
            while not self._stop.wait(self._tick):
                with self._lock:
                    now = time.monotonic()
                    since = self._since
                    if since is None and now - self._last >= self._idle:
                        self._watching = False
                        self._wake.clear()
                        break
                    if since is not None and now - since >= self._stall:
                        self._hand_on()

    def _hand_on(self) -> None:
        """(Under the lock.) The reading to a new thread."""
        if self._ended:
            return
        me = self._reader = self._readers
        self._readers += 1
        self._since = None
        thread = threading.Thread(target=self._read, args=(me,), name=self._name, daemon=True)
        thread.start()
