"""What every `policy hook <host>` process shares: stdout is the host's protocol, and
every failure is an answer.

Every host here treats a hook's silence, garbage or crash as "no objection", so the
hook processes (`claude.hook_process` and its `thin` client, `picoclaw.hook_process`,
`openclaw.bridge`) are built from the same few parts:

* `encode_line` / `Output`: answers go out as whole JSON lines, from any thread, and
  encoding never fails (orjson refuses lone surrogates and integers past 64 bits that
  the stdlib writes); the decision log never goes to stdout, whatever `audit_stream`
  says (`engine_for_protocol`).
* `read_settings` / `with_packs` / `engine_for_protocol`: the engine from the settings
  (`--config`, `$POLICY_CONFIG`) and `--packs`, refused when it enforces nothing;
  `EngineSlot` keeps it, or why it could not be built, for a long-running process.
* `Reply`: at most one answer per request, whichever comes first — the decision or
  the `Watchdog`'s refusal at the deadline.
* `failed_closed` / `no_answer_within`: the reasons every refusal gives.
* `abandon_approvals` / `on_signal` / `end_process`: a process that stops waiting from
  outside a call expires what it waited on, then ends at once.

The watchdog, the signal handling and the exit are `_watchdog`'s (re-exported here):
they need nothing but the interpreter's built-in modules, so the thin client shares
them without importing this module (tests/test_hook_cold_start.py).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policy.errors import PolicyError
from policy.hosts._settings import read_settings
from policy.hosts._watchdog import (
    Watch,
    Watchdog,
    drain,
    end_process,
    ended_by,
    later,
    no_answer_within,
    note,
    on_signal,
)

if TYPE_CHECKING:
    from concurrent.futures import Executor

__all__ = [
    "EngineSlot",
    "NoPolicyError",
    "Output",
    "Readers",
    "Reply",
    "StopReading",
    "Watch",
    "Watchdog",
    "abandon_approvals",
    "drain",
    "encode_line",
    "end_process",
    "ended_by",
    "engine_for_protocol",
    "failed_closed",
    "later",
    "log_refusal",
    "no_answer_within",
    "note",
    "on_signal",
    "read_settings",
    "serve_lines",
    "with_packs",
]


# ---------------------------------------------------------------------- output


def encode_line(message: Any) -> bytes:
    """`message` as one JSON line (what JSON has no type for, as its `str`); the
    stdlib's ASCII escapes when orjson refuses it. Also what we write to the process
    hooks we host (picoclaw.jsonrpc)."""
    from policy._json_bytes import dumps

    try:
        return dumps(message, default=str) + b"\n"
    except TypeError:  # (orjson's error is a TypeError)
        import json

        return json.dumps(message, ensure_ascii=True, default=str).encode() + b"\n"


class Output:
    """stdout, the host's protocol: whole lines only, from any thread, flushed at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def send(self, message: Any) -> None:
        self.write(encode_line(message))

    def write(self, line: bytes) -> None:
        with self._lock:
            sys.stdout.buffer.write(line)
            sys.stdout.flush()


class Reply:
    """At most one answer to one request: the decision's or the watchdog's, whichever
    comes first. The line is written while the reply is held, so a watchdog that finds
    the request answered knows the answer is out (and may end the process)."""

    __slots__ = ("_done", "_lock", "_out", "ident")

    def __init__(self, out: Output, ident: Any = None) -> None:
        self._out = out
        self.ident = ident
        self._lock = threading.Lock()
        self._done = False

    @property
    def given(self) -> bool:
        """Whether an answer went out."""
        return self._done

    def give(self, message: Any) -> bool:
        """Write `message` (None: an empty answer) unless an answer went out already;
        True when this one did."""
        return self.give_line(encode_line(message) if message is not None else b"")

    def give_line(self, line: bytes) -> bool:
        """`give`, the answer written already (one JSON line, or b"")."""
        with self._lock:
            if self._done:
                return False
            self._done = True
            self._out.write(line)
        return True


#: What handles one line the host wrote: run by the reader (`serve_lines`), in order,
#: before the next line is read; it returns the rest of the work, to be done while
#: later lines are read, or None when nothing is left to do.
Dispatch = Callable[[bytes], "Callable[[], object] | None"]

#: How often a standby reader looks whether the reader is held up by a line's work,
#: and how long that work may run before the standby reads in its place. A line that
#: comes meanwhile is read (and its deadline watched) at most about twice this late,
#: against the second a host's timeout leaves past a hook's deadline (PicoClaw's and
#: OpenClaw's 5 s, against 4 s); a line already waiting when work begins never waits
#: for it (its work goes to the pool).
STANDBY_POLL = 0.05


class StopReading(Exception):
    """Raised by a `Dispatch` for a line after which nothing more is read (a host's
    `shutdown`), as at EOF."""


def serve_lines(dispatch: Dispatch, pool: Executor) -> Readers:
    """Read the host's lines until EOF, each handed to `dispatch` in order; the work it
    returns is done by the thread that read the line when nothing else waits to be
    read, else by `pool`. Returns once reading ended: `Readers.join` waits for the
    work the readers took on (`pool`'s is the caller's to wait for).

    A request's work handed to a worker thread cost every round trip two thread
    switches (≈ 38 µs of PicoClaw's 256, tests/bench/bench_picoclaw.py), and so did
    waking a second reader at each line to read while the first works. So the reader
    does the work itself when no other line is waiting, and a standby reader, awake
    every `STANDBY_POLL`, reads in its place once that work has run that long (a
    decision log another process locks, a hosted hook that hangs); while the work of a
    reader is held up, and whenever more lines wait (a burst of requests, each of
    whose work may wait on something), the work goes to `pool` and the reading goes
    on — so no request waits unread behind another's work for more than that. The
    calling thread only waits, so a signal's handler runs on it at once. Where no
    thread can be started, the calling thread reads and `pool` does all the work."""
    readers = Readers(dispatch, pool)
    if not readers.start():
        readers.take_turns()
    readers.ended.wait()
    return readers


class Readers:
    """The threads reading a host's lines in turn (`serve_lines`)."""

    __slots__ = (
        "_dispatch",
        "_held_up",
        "_lines",
        "_lock",
        "_pool",
        "_reader",
        "_since",
        "_standing_by",
        "_threads",
        "_wake",
        "ended",
    )

    def __init__(self, dispatch: Dispatch, pool: Executor) -> None:
        self._dispatch = dispatch
        self._pool = pool
        self._lines = _Lines(sys.stdin.fileno())
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)  # (the standby waits on it)
        self._reader: int | None = None  # the thread that reads (its ident)
        self._since: float | None = None  # when the reader began a line's work
        self._held_up = 0  # readers whose work outran their turn
        #: Whether a second reader runs, to read in the place of one held up: only
        #: then does a reader do a line's work itself.
        self._standing_by = False
        self._threads: list[threading.Thread] = []
        self.ended = threading.Event()  # set when reading ended (EOF, StopReading)

    def start(self) -> int:
        """Start the two readers' threads; how many started (no thread to be had:
        fewer readers, and with one the pool does all the work)."""
        for number in (1, 2):
            thread = threading.Thread(
                target=self.take_turns, name=f"hook-reader-{number}", daemon=True
            )
            try:
                thread.start()
            except RuntimeError:
                break
            self._threads.append(thread)
            with self._lock:
                self._standing_by = len(self._threads) == 2
        return len(self._threads)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the readers to finish the work they took on (at most `timeout`
        seconds); whether they did."""
        until = None if timeout is None else time.monotonic() + timeout
        for thread in self._threads:
            thread.join(None if until is None else max(0.0, until - time.monotonic()))
        return not any(thread.is_alive() for thread in self._threads)

    def take_turns(self) -> None:
        me = threading.get_ident()
        while True:
            with self._lock:
                if not self._my_turn(me):
                    return
            try:
                line = self._lines.next()
            except OSError as exc:  # (stdin gone under us: as at EOF)
                note(f"policy: reading the host's lines failed: {exc}\n")
                line = b""
            work: Callable[[], object] | None = None
            if line:
                try:
                    work = self._dispatch(line)
                except StopReading:
                    line = b""
                except Exception as exc:  # noqa: BLE001 - reported; the next line is read
                    note(f"policy: handling a line failed: {type(exc).__name__}: {exc}\n")
                    continue
            if not line:  # EOF, or a line after which nothing is read
                with self._lock:
                    self.ended.set()
                    self._wake.notify_all()
                return
            if work is not None:
                self._do(me, work)

    def _do(self, me: int, work: Callable[[], object]) -> None:
        """`work` done here when no reader is held up, a standby would read in this
        one's place, and no other line waits to be read; else given to the pool."""
        with self._lock:
            here = self._standing_by and self._held_up == 0 and not self._lines.waiting()
            if here:
                self._since = time.monotonic()
        if not here:
            try:
                self._pool.submit(work)
            except RuntimeError as exc:  # (no worker to be had: done here, watched)
                note(f"policy: no worker thread for a request, handled in turn: {exc}\n")
            else:
                return
        try:
            work()
        except Exception as exc:  # noqa: BLE001 - reported; the reader must read on
            note(f"policy: handling a request failed: {type(exc).__name__}: {exc}\n")
        if here:
            with self._lock:
                if self._reader == me:
                    self._since = None
                else:
                    self._held_up -= 1  # (the standby read meanwhile: stand by now)

    def _my_turn(self, me: int) -> bool:
        """Wait (the lock held) until it is `me` that reads: at once when nobody does,
        or when the reader's work has run `STANDBY_POLL`; False once reading ended."""
        while not self.ended.is_set():
            if self._reader is None or self._reader == me:
                self._reader = me
                return True
            since = self._since
            if since is not None and time.monotonic() - since >= STANDBY_POLL:
                self._reader = me  # (held up: its work ends as a standby's)
                self._since = None
                self._held_up += 1
                return True
            self._wake.wait(STANDBY_POLL)
        return False


class _Lines:
    """A file descriptor's lines, stripped, blank ones skipped (b"" at EOF), read into
    a buffer of our own: whether more is waiting is then known without reading it."""

    __slots__ = ("_buffer", "_eof", "_fd", "_poll", "_scanned")

    def __init__(self, fd: int) -> None:
        import select

        self._fd = fd
        self._buffer = bytearray()
        self._scanned = 0  # (how much of the buffer holds no newline: a long line is
        # looked through once, not again at every read that adds to it)
        self._eof = False
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)

    def next(self) -> bytes:
        buffer = self._buffer
        while True:
            end = buffer.find(b"\n", self._scanned)
            if end < 0 and not self._eof:
                self._scanned = len(buffer)
                chunk = os.read(self._fd, _READ_SIZE)
                if chunk:
                    buffer += chunk
                else:
                    self._eof = True
                continue
            self._scanned = 0
            if end < 0:  # (EOF: what is left is the last line)
                line = bytes(buffer).strip()
                buffer.clear()
                return line
            line = bytes(buffer[:end]).strip()
            del buffer[: end + 1]
            if line:
                return line

    def waiting(self) -> bool:
        """Whether something more is there to read (or EOF is)."""
        buffer = self._buffer
        return bool(buffer and buffer.strip()) or self._eof or bool(self._poll.poll(0))


_READ_SIZE = 1 << 16


# --------------------------------------------------------------------- refusal


def log_refusal(engine: Any, kind: str, ident: Any, fields: dict[str, Any]) -> None:
    """Put a refusal the decision log would not show otherwise (a watchdog's, one for
    an answer too long for the host) in it, beside the request's id (an int as it is,
    anything else cut), written by the notes' thread once the refusal is out: the log
    may be what held the decision up, and nothing that answers waits on it. A thin
    client's decisions are logged by its service, which never saw the refusal (and an
    engine still loading has no log): stderr only, then."""
    record = getattr(engine, "note", None)
    if record is None:
        return
    from policy.audit import cut

    text = ident if isinstance(ident, str) else repr(ident)
    shown = ident if isinstance(ident, int) else cut(text)
    entry = {"id": shown, **fields}

    def write() -> None:
        try:
            record(kind, entry)
        except Exception as exc:  # noqa: BLE001 - the refusal is out; the record is extra
            note(f"policy: {kind} {shown!r}: the refusal was not logged: {exc}\n")

    later(write)


def failed_closed(exc: BaseException) -> str:
    """The reason of a refusal that stands for an error."""
    return f"policy hook failed closed: {type(exc).__name__}: {exc}"


# ---------------------------------------------------------------------- engine


class NoPolicyError(PolicyError):
    """A hook command was started with nothing to enforce."""


def with_packs(settings: Any, packs: list[str], **update: Any) -> Any:
    """`settings` with `--packs` (when given) in place of the packs setting, and
    `update`, in one copy."""
    if packs:
        update["packs"] = [Path(p) for p in packs]
    return settings.model_copy(update=update) if update else settings


def engine_for_protocol(settings: Any, *, per_event: bool = False) -> Any:
    """An Engine on `settings` whose decision log, when not in a file, goes to stderr.

    A hook that enforces no policy — no packs, an empty pack directory, packs with no
    rule and no builtin — would answer every call with "no objection", which every host
    takes as leave to run it; it is refused instead (NoPolicyError), and each process
    turns that into the refusal of every call, naming why.

    `per_event`: the process decides one event and exits (`policy hook claude|agentao`),
    so state kept in its memory dies with it; a pack that needs state (a rate limit, a
    contract's max_tool_calls or max_runtime) with `limits_storage_uri: memory://` is
    refused (policy.state.MemoryStateError) rather than silently reset at every event."""
    from policy.engine import Engine

    if settings.audit_path is None:
        engine = Engine(settings, audit_stream=sys.stderr)
    else:
        engine = Engine(settings)
    if engine.no_policy:
        engine.close()
        raise NoPolicyError(f"no policy to enforce: {engine.no_policy}")
    if per_event:
        # The process dies with its answer: what its packs' programs answered is kept
        # on disk for the next one, where their compiled programs are kept already.
        from policy.packs import answer_across_processes

        answer_across_processes(engine.hooks)
    if per_event and str(settings.state_store_uri).startswith("memory:"):
        from policy.state import check_per_event

        try:
            check_per_event(engine)
        except BaseException:
            engine.close()
            raise
    return engine


class EngineSlot:
    """The engine a long-running hook process decides with, built once from `--config` and
    `--packs` — or why it could not be built, which every answer then gives as its
    refusal (the process stays up: a host whose hook died would run every call). With a
    service configured (`server`, or `--server`) it is a `RemoteEngine` of that service."""

    def __init__(self, config: str | None, packs: list[str], server: str | None = None) -> None:
        self._config = config
        self._packs = packs
        self._server = server
        self.engine: Any = None
        self.broken = ""  # why the engine could not be built
        self.ready = threading.Event()
        #: The thread warming a local engine (`Engine.warm`) once it is built.
        self.warming: threading.Thread | None = None

    def load(self) -> None:
        try:
            settings = read_settings(self._config)
            from policy.client.transport import server_from_settings

            server = server_from_settings(settings, self._server, config=self._config)
            if server is not None:
                # A service decides: never this process, even when it cannot be reached.
                from policy.client.remote import RemoteEngine

                self.engine = RemoteEngine(server)
            else:
                self.engine = engine_for_protocol(with_packs(settings, self._packs))
                # (the host's calls come for as long as it runs: the programs and
                # patterns their first ones would build are built beside them, on a
                # thread of their own, so that the first answer waits for none of it)
                self.warming = threading.Thread(
                    target=_warm, args=(self.engine,), name="policy-warm", daemon=True
                )
                self.warming.start()
        except Exception as exc:  # noqa: BLE001 - reported on every answer instead
            self.broken = f"policy hook cannot decide: {type(exc).__name__}: {exc}"
            sys.stderr.write(f"policy: {self.broken}\n")
        finally:
            self.ready.set()

    def get(self) -> Any:
        """The engine, once loading is over; RuntimeError naming why there is none."""
        if not self.ready.is_set():  # (once set, never waited on again: every request asks)
            self.ready.wait()
        if self.broken:
            raise RuntimeError(self.broken)
        return self.engine


def _warm(engine: Any) -> None:
    """`engine.warm()`, on its own thread; a failure only says so (no decision depends
    on it: what it did not build, a call builds)."""
    try:
        engine.warm()
    except Exception as exc:  # noqa: BLE001 - see above
        sys.stderr.write(f"policy: warming the engine failed: {type(exc).__name__}: {exc}\n")


# ------------------------------------------------------------------- giving up

#: How long giving up may spend expiring requests before the process ends anyway: the
#: host has its answer, but Claude Code only takes it from a hook that has EXITED
#: before its timeout (docs/hosts.md), so a store that hangs must not keep us alive.
_ABANDON_BUDGET = 1.0


def abandon_approvals(engine: Any, reason: str) -> None:
    """Expire, in the store, every approval request `engine` is waiting on, and log
    each denial — for a process that stops waiting from outside the call (watchdog,
    the host hanging up, a signal). Bounded by _ABANDON_BUDGET; never raises."""
    if engine is None:
        return

    def expire() -> None:
        try:
            engine.abandon_approvals(reason)
        except Exception as exc:  # noqa: BLE001 - the process is ending; say why on stderr
            sys.stderr.write(f"policy: pending approvals not expired: {exc}\n")

    worker = threading.Thread(target=expire, name="abandon-approvals", daemon=True)
    worker.start()
    worker.join(_ABANDON_BUDGET)
