"""`policy serve`'s deciding processes (`service.deciders`): `/v1/decide/{point}` calls
and host events decided on interpreters of their own.

Why: on the deciding threads, a decision shares the GIL with the event loop, and under
load the two hand it to each other at every system call — the hand-off cost about what
the decision does (docs/performance.md). A process of its own decides on its only
thread while the loop awaits its answer on a socket: no GIL shared, no thread between.

What a deciding process is, and is not:

* **Its own engines, the service's packs.** It is handed, at its start, the service's
  settings as the engines hold them and the compiled sets the service serves (the
  default policy's and each team's, as pack-cache entries: `policy.packs.cache.dumps`)
  — never a fresh compile of files that may have changed since. It shares the state
  file (or Redis), the approval store and the decision log with the service, as the
  one-event hooks of a machine share them. A reload that changes what is served
  replaces every process; until the new ones are ready, the threads decide.
* **Told whom it decides for.** The event loop works out the caller as it always has
  (the kernel's peer uid or the token's identity, `policy.server.asker`) and hands the
  process those facts with the body; the process trusts nothing else, and nothing but
  the service holds its end of the socket (inherited at spawn, never a path).
* **An accelerator, never a way to stall the service.** At most `DEPTH` calls are
  written to a process, none behind a call older than `QUEUE_BEHIND`, and none behind
  two or more but its principal's own burst. A caller with calls of its own in the
  processes waits at most `WAIT` for room; one with none does not wait: a deciding
  thread takes its call at once, within the threads' per-caller shares — so a caller
  keeping every process busy delays only itself. A process that ends before answering
  has its calls refused (503: the hook fails closed) and is replaced; one that has
  been on one call longer than `HUNG` is killed and replaced the same way. One
  watchdog task does the waiting and the hung checks.
* **Counted.** Each answer carries the decisions the process counted since its last
  (`policy.telemetry.EXACT`), and the rest of what it counted since it last told
  (`policy.telemetry.Tally`) when no other call waits in its socket, or when it is
  the 64th since. `/metrics` merges them into the service's own counts.

Host events (`/v1/hosts/{host}/event`) are answered here too (`event`), but for the
part that goes on to the approvers: an event whose call needs a person comes back
`handed_back` with its Decision, and the service files and waits (with the SQLite
store only the filing process tells the notifiers and the inbox). What stays on the
threads: every other endpoint; and every call while a contract attached through the
API lives in the service's memory only (with Redis, attached contracts are shared, and
the processes see them).

The wire between them is frames: a 4-byte big-endian length, then that many bytes; a
message is a JSON header frame and a body frame.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from policy import telemetry
from policy._lazy_dataclass import dataclass
from policy.server.asker import ANONYMOUS_SENDER

__all__ = [
    "DEPTH",
    "HUNG",
    "QUEUE_BEHIND",
    "WAIT",
    "Answer",
    "DeciderFailed",
    "DeciderPool",
    "FrameReader",
]

#: How long a call waits for room in a deciding process before a thread decides it (s).
WAIT = 0.25
#: Calls written to one process and not answered yet, at most. Under load the event
#: loop reads a process's answer (and writes it another call) only when it gets to it
#: among every other request's work: with two written the process waited for it half
#: of its time; with eight it rarely does, and both sides read several frames a
#: system call (docs/performance.md: ≈ 0.6 → ≈ 0.75 of `/healthz`/s, p99 ≈ 22 → ≈ 13 ms,
#: on one principal's calls).
DEPTH = 8
#: A call is written behind others only while the oldest is this young (s): a call
#: that takes long (a path on a mount that does not answer) holds up nothing more
#: once it is older, and the next call goes to another process or to a thread. And
#: behind two or more only when they are all the same principal's (its own burst: a
#: uid's or a token's calls, never the anonymous callers', who share one): another
#: principal's call is never written behind more than one call — it waits behind
#: nobody's burst, and a process that dies takes at most one call of any other
#: principal's with it.
QUEUE_BEHIND = 0.05
#: How long a process may take over one call before it is taken for hung (s): above
#: any decision the caps allow (the analysis's backstop, a state file's 5 s busy
#: timeout, a hosted hook's timeout). Counted from when it took the call up
#: (`_Process.started`), never from when the call was written behind others.
HUNG = 60.0
#: How often the pool looks for calls that waited long enough and processes that hung (s).
_TICK = 0.05
#: Calls waiting for room an answer looks at and passes over (their principal has
#: none) before it gives up waking one: each look asks every process.
_PASSED_OVER = 16
#: How long a new process may take to build its engines and say it is ready (s).
READY = 120.0
#: The largest frame either side reads: a body is at most `service.max_body_bytes`
#: (≤ 1 GiB by its own check), an answer echoes the call.
MAX_FRAME = (1 << 30) + (1 << 20)
_LENGTH = struct.Struct(">I")


class DeciderFailed(Exception):
    """The process deciding a call ended or hung before answering (503)."""


@dataclass(frozen=True, slots=True)
class Answer:
    """A process's answer: HTTP status, the rendered body (a Decision's JSON, or an
    error message), the decision id ("" for none)."""

    status: int
    body: bytes
    decision_id: str
    #: A host event whose answer goes on to the approvers: `body` is its before_tool
    #: Decision, for the service to take on from there.
    handed_back: bool = False


def frame(*parts: bytes) -> bytes:
    """`parts`, each length-prefixed."""
    out = bytearray()
    for part in parts:
        if len(part) > MAX_FRAME:
            raise ValueError(f"a frame of {len(part)} bytes is over the limit")
        out += _LENGTH.pack(len(part))
        out += part
    return bytes(out)


async def read_frame(reader: asyncio.StreamReader) -> bytes:
    (length,) = _LENGTH.unpack(await reader.readexactly(_LENGTH.size))
    if length > MAX_FRAME:
        raise ValueError(f"a frame of {length} bytes is over the limit")
    return await reader.readexactly(length)


class _Process:
    """One deciding process and the service's end of its socket. Calls are written one
    after another (up to `DEPTH` unanswered), and a reading task hands each answer to
    the call that waits for it, in order: the process always has its next call in its
    socket, never idle while the event loop gets round to writing one."""

    __slots__ = (
        "dead",
        "generation",
        "leaving",
        "own",
        "owners",
        "pending",
        "popen",
        "reader",
        "reading",
        "sent",
        "sock",
        "started",
        "writer",
    )

    def __init__(
        self, popen: subprocess.Popen[bytes], sock: socket.socket, generation: int
    ) -> None:
        self.popen = popen
        self.sock = sock
        self.generation = generation
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None
        self.pending: collections.deque[asyncio.Future[tuple[dict[str, Any], bytes]]] = (
            collections.deque()
        )
        #: When each pending call was written (the loop's clock), oldest first.
        self.sent: collections.deque[float] = collections.deque()
        #: Whose each pending call is (its principal), oldest first; and how many each has.
        self.owners: collections.deque[str] = collections.deque()
        self.own: dict[str, int] = {}
        #: When the process took up its oldest pending call (the loop's clock): when it
        #: was written, or when the call before it was answered, whichever is later —
        #: what `HUNG` is counted from, so time spent queued is never held against it.
        self.started = 0.0
        self.reading: asyncio.Task[None] | None = None
        #: It said it ends after its last answer (its memory cap).
        self.leaving = False
        self.dead = False

    async def connect(self, pool: DeciderPool) -> None:
        """Its socket as the event loop's streams, and the task reading its answers."""
        self.reader, self.writer = await asyncio.open_unix_connection(sock=self.sock, limit=1 << 20)
        self.reading = asyncio.ensure_future(self._read(pool))

    async def _read(self, pool: DeciderPool) -> None:
        assert self.reader is not None
        why = "its socket closed"
        try:
            while True:
                answer = orjson.loads(await read_frame(self.reader))
                rendered = await read_frame(self.reader)
                if not self.pending:
                    why = "it answered a call nobody asked"
                    break
                waiting = self.answered(asyncio.get_running_loop().time())
                if not waiting.done():
                    waiting.set_result((answer, rendered))
                changed = answer.get("telemetry")
                if changed:
                    pool.take_counts(changed)
                if answer.get("leaving") and not self.leaving:
                    # (past its memory cap: it answers what it was asked, then the
                    # service closes its end and it exits)
                    self.leaving = True
                    pool._leaving(self)
        except (OSError, EOFError, asyncio.IncompleteReadError, ValueError) as exc:
            why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        except asyncio.CancelledError:  # (`end`: whoever ended it sees to the rest)
            self.fail_pending("ended before answering")
            raise
        self.dead = True
        self.fail_pending("ended before answering")
        pool._ended(self, why)

    def written(
        self, waiting: asyncio.Future[tuple[dict[str, Any], bytes]], principal: str, now: float
    ) -> None:
        """Note a call of `principal`'s, written at `now`, whose answer `waiting` awaits."""
        if not self.pending:
            self.started = now
        self.pending.append(waiting)
        self.sent.append(now)
        self.owners.append(principal)
        self.own[principal] = self.own.get(principal, 0) + 1

    def answered(self, now: float) -> asyncio.Future[tuple[dict[str, Any], bytes]]:
        """The oldest call's future, taken off (its answer read at `now`): the process
        takes up the next one."""
        waiting = self.pending.popleft()
        self.sent.popleft()
        principal = self.owners.popleft()
        left = self.own[principal] - 1
        if left:
            self.own[principal] = left
        else:
            del self.own[principal]
        if self.sent:
            self.started = max(self.sent[0], now)
        return waiting

    def fail_pending(self, why: str) -> None:
        """Refuse every call written and not answered (DeciderFailed: `why`)."""
        self.sent.clear()
        self.owners.clear()
        self.own.clear()
        while self.pending:
            waiting = self.pending.popleft()
            if not waiting.done():
                waiting.set_exception(DeciderFailed(f"the deciding process {why}; ask again"))

    @property
    def usable(self) -> bool:
        return not (self.dead or self.leaving) and self.popen.poll() is None

    def has_room(self, now: float, principal: str) -> bool:
        """Whether a call of `principal`'s may be written now: under `DEPTH`, behind
        calls the oldest of which is younger than `QUEUE_BEHIND`, and behind two or
        more only when every one of them is `principal`'s own (never the anonymous
        callers', who share one) — a principal queues behind its own calls, and
        behind one other's at most, as it waits for room or goes to a thread
        otherwise."""
        written = len(self.pending)
        if written >= DEPTH:
            return False
        if not self.sent:
            return True
        if now - self.sent[0] >= QUEUE_BEHIND:
            return False
        # (anonymous callers share a principal and are nobody's burst but their own)
        return written == 1 or (
            principal != ANONYMOUS_SENDER and self.own.get(principal, 0) == written
        )

    def send(
        self, header: bytes, body: bytes, principal: str
    ) -> asyncio.Future[tuple[dict[str, Any], bytes]]:
        """Write a call of `principal`'s; the future its answer resolves."""
        if self.writer is None:
            raise OSError("not connected")
        loop = asyncio.get_running_loop()
        waiting: asyncio.Future[tuple[dict[str, Any], bytes]] = loop.create_future()
        # (its caller may be gone — hung up, or timed out — when the answer comes)
        waiting.add_done_callback(_seen)
        self.written(waiting, principal, loop.time())
        self.writer.write(frame(header, body))
        return waiting

    def end(self) -> None:
        """Close its socket (it exits at the end of what it reads), and kill it if it
        is still there (a hung one does not read)."""
        self.dead = True
        reading = self.reading
        if reading is not None and not reading.done() and reading is not _current_task():
            reading.cancel()
        with contextlib.suppress(Exception):
            if self.writer is not None:
                self.writer.close()
            else:
                self.sock.close()
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.popen.kill()
            # Reaped on a thread of its own: a process stuck in the kernel (a mount that
            # does not answer) dies only when the kernel lets it, and the event loop
            # must not wait for that.
            threading.Thread(target=self.popen.wait, daemon=True).start()


def _seen(future: asyncio.Future[Any]) -> None:
    """Mark a call's outcome as read: nobody may be waiting for it any more."""
    if not future.cancelled():
        future.exception()


def _current_task() -> asyncio.Task[Any] | None:
    try:
        return asyncio.current_task()
    except RuntimeError:  # (no loop running: the service's last clean-up)
        return None


def recv_frame(sock: socket.socket) -> bytes | None:
    """One frame from a blocking socket (its timeout applies); None when the other end
    closed it before a frame began (EOFError within one)."""

    def exactly(count: int, *, first: bool = False) -> bytes | None:
        data = bytearray()
        while len(data) < count:
            chunk = sock.recv(count - len(data))
            if not chunk:
                if first and not data:
                    return None
                raise EOFError("the other end closed the socket in the middle of a frame")
            data += chunk
        return bytes(data)

    head = exactly(_LENGTH.size, first=True)
    if head is None:
        return None
    (length,) = _LENGTH.unpack(head)
    if length > MAX_FRAME:
        raise ValueError(f"a frame of {length} bytes is over the limit")
    return exactly(length) or b""


class FrameReader:
    """Frames from a blocking socket that nothing else reads (a deciding process's end):
    each `recv` takes what has come, up to `_CHUNK` bytes, so a call written as one
    header and one body — four length-prefixed reads with `recv_frame` — is most often
    one system call. (`recv_frame` reads exactly one frame: for a socket handed on
    afterwards, which must keep what follows it.)"""

    __slots__ = ("_buffer", "_sock")

    def __init__(self, sock: socket.socket) -> None:
        self._sock = sock
        self._buffer = bytearray()

    @property
    def pending(self) -> bool:
        """Whether bytes of another frame have come already."""
        return bool(self._buffer)

    def frame(self) -> bytes | None:
        """The next frame; None when the other end closed the socket before one began
        (EOFError within one; ValueError for one over `MAX_FRAME`)."""
        if not self._fill(_LENGTH.size):
            return None
        (length,) = _LENGTH.unpack_from(self._buffer)
        if length > MAX_FRAME:
            raise ValueError(f"a frame of {length} bytes is over the limit")
        end = _LENGTH.size + length
        if len(self._buffer) < end and length > _CHUNK:
            return self._large(length)
        if not self._fill(end):
            raise EOFError("the other end closed the socket in the middle of a frame")
        found = bytes(self._buffer[_LENGTH.size : end])
        del self._buffer[:end]
        return found

    def _large(self, length: int) -> bytes:
        """A frame longer than one read, not all come: read into a buffer of its size
        (a body of tens of MiB grown read by read was copied again at every growth),
        and no further — what follows it stays in the socket."""
        body = bytearray(length)
        have = len(self._buffer) - _LENGTH.size
        body[:have] = self._buffer[_LENGTH.size :]
        self._buffer.clear()
        view = memoryview(body)
        while have < length:
            got = self._sock.recv_into(view[have:], min(length - have, 1 << 20))
            if not got:
                raise EOFError("the other end closed the socket in the middle of a frame")
            have += got
        view.release()
        return bytes(body)

    def _fill(self, count: int) -> bool:
        """At least `count` bytes in the buffer; False when the socket closed first
        (EOFError when it closed after part of a frame came)."""
        buffer = self._buffer
        while len(buffer) < count:
            chunk = self._sock.recv(_CHUNK)
            if not chunk:
                if buffer:
                    raise EOFError("the other end closed the socket in the middle of a frame")
                return False
            buffer += chunk
        return True


#: What one `recv` of a `FrameReader` takes at most, unless a frame needs more.
_CHUNK = 1 << 16


def _spawn(engines: list[tuple[str, Any]], generation: int) -> _Process:
    """A new deciding process, handed the engines' settings and the sets they serve,
    once it says it is ready (blocking: run before the loop, or on a thread)."""
    from policy.packs import cache

    sets: list[dict[str, Any]] = []
    entries: list[bytes] = []
    for team, engine in engines:
        loaded = engine.loaded_packs
        entry = cache.dumps(loaded) if loaded is not None else b""
        if entry is None:
            raise RuntimeError(f"policy {team or '(default)'}: its packs cannot be handed over")
        sets.append({"team": team, "packs": [str(p) for p in engine.settings.packs]})
        entries.append(entry)
    settings = _settings_fields(engines[0][1].settings)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        popen = subprocess.Popen(
            # -P: `-m` would put the working directory first on sys.path, and whoever
            # can write there would run code in the process that decides and seals
            # the log. (-I would also drop PYTHONPATH, which may be how this service
            # found its own code.)
            [sys.executable, "-P", "-m", "policy.server.decider", str(theirs.fileno())],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            pass_fds=(theirs.fileno(),),
        )
    except BaseException:
        ours.close()
        raise
    finally:
        theirs.close()
    made = _Process(popen, ours, generation)
    try:
        ours.settimeout(READY)
        ours.sendall(frame(orjson.dumps({"settings": settings, "sets": sets}), *entries))
        ready = recv_frame(ours)
        said = orjson.loads(ready) if ready is not None else {"error": "it ended first"}
        ours.settimeout(None)
        ours.setblocking(False)
    except BaseException:
        made.end()
        raise
    if said.get("ready") is not True:
        made.end()
        raise RuntimeError(str(said.get("error", "it said nothing")))
    return made


class DeciderPool:
    """`size` deciding processes for the service's engines (`engines()`: every engine,
    ("", the default) first, as `PolicyRouter.engines` lists them)."""

    def __init__(
        self,
        size: int,
        engines: Callable[[], Iterable[tuple[str, Any]]],
        log: Any,
        *,
        hung: float = HUNG,
    ) -> None:
        self.size = size
        self._hung = hung
        self._engines = engines
        self._log = log
        self._started: list[_Process] = []
        self._live: list[_Process] = []
        self._generation = 0
        self._spawning: set[asyncio.Future[None]] = set()
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        #: Calls waiting for room: (until when, the future that says whether it came,
        #: whose the call is).
        self._waiters: collections.deque[tuple[float, asyncio.Future[bool], str]] = (
            collections.deque()
        )
        self._watching: asyncio.Task[None] | None = None
        #: What the processes counted, merged into this process's counts when read
        #: (`counted`): an answer is not held up by it.
        self._counts: collections.deque[telemetry.Snapshot] = collections.deque()
        #: Calls written and unanswered, by principal (`_with_room`).
        self._held: dict[str, int] = {}
        #: Processes taken out of use that still answer calls written to them.
        self._retiring: set[_Process] = set()
        #: When processes were last started (the loop's clock): `_respawn`'s rate.
        self._starts: collections.deque[float] = collections.deque()

    # ------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start every process and wait until each is ready, before the service listens
        (RuntimeError if one does not start: a service asked for deciding processes
        does not run without them)."""
        engines = list(self._engines())
        try:
            for _ in range(self.size):
                self._started.append(_spawn(engines, self._generation))
        except BaseException:
            for process in self._started:
                process.end()
            self._started.clear()
            raise

    async def attach(self) -> None:
        """On the service's event loop: the started processes become its to ask."""
        self._loop = asyncio.get_running_loop()
        for process in self._started:
            await process.connect(self)
            self._live.append(process)
        self._started.clear()
        self._watching = asyncio.ensure_future(self._watch())

    def changed(self) -> None:
        """`refresh`, from any thread (a reload runs on a signal's, a watch's or a
        request's)."""
        loop = self._loop
        if loop is not None and not self._closed:
            loop.call_soon_threadsafe(self.refresh)

    def refresh(self) -> None:
        """What the engines serve changed (a reload): replace every process. Calls
        already written finish on the set they started with; until the new processes
        are ready, the threads decide. Called on the event loop."""
        if self._closed or self._loop is None:
            return
        self._generation += 1
        for process in list(self._live):
            self._retire(process)
        for _ in range(self.size):
            self._replace()

    async def aclose(self) -> None:
        """On the event loop, as the service stops: every process ended, every task
        of ours finished."""
        self._closed = True
        tasks: list[asyncio.Future[Any]] = list(self._spawning)
        if self._watching is not None:
            tasks.append(self._watching)
        for task in tasks:
            task.cancel()
        for _until, waiter, _whose in self._waiters:
            if not waiter.done():
                waiter.set_result(False)
        self._waiters.clear()
        for process in [*self._live, *self._retiring]:
            if process.reading is not None:
                tasks.append(process.reading)
        self.close()
        await asyncio.gather(*tasks, return_exceptions=True)

    def close(self) -> None:
        """End every process (after the loop, what `aclose` left; idempotent)."""
        self._closed = True
        for process in [*self._started, *self._live, *self._retiring]:
            process.end()
        self._started.clear()
        self._live.clear()
        self._retiring.clear()

    def pids(self) -> list[int]:
        return [p.popen.pid for p in [*self._started, *self._live]]

    # ------------------------------------------------------------ deciding

    async def decide(self, caller: Any, asker: Any, point: str, body: bytes) -> Answer | None:
        """`body` (a `/v1/decide/{point}` request's) decided in a process, for `caller`
        (policy.facts.Caller) asked by `asker` (policy.server.asker.Asker); None when
        no process had room within `WAIT` (a thread decides it). DeciderFailed when the
        process ended or hung before answering."""
        return await self._ask(caller, asker, body, {"point": point})

    async def event(
        self,
        caller: Any,
        asker: Any,
        host: str,
        approval: str,
        budget: float | None,
        body: bytes,
    ) -> Answer | None:
        """A host's hook event (`/v1/hosts/{host}/event`) answered in a process, as
        `decide`; an answer `handed_back` when it goes on to the approvers."""
        fields = {"host": host, "approval": approval, "budget": budget}
        return await self._ask(caller, asker, body, fields)

    async def _ask(
        self, caller: Any, asker: Any, body: bytes, fields: dict[str, Any]
    ) -> Answer | None:
        if self._closed or self._loop is None:
            return None
        principal = asker.principal
        process = await self._with_room(principal)
        if process is None:
            telemetry.DECIDER_CALLS.inc("overflowed")
            return None
        header = orjson.dumps(
            {**fields, "caller": _caller_fields(caller), "asker": _asker_fields(asker)}
        )
        waiting = process.send(header, body, principal)
        self._held[principal] = self._held.get(principal, 0) + 1
        if self._waiters:  # (room left behind this call: the next waiting call takes it)
            self._make_room()
        try:
            # (one that hangs is ended by `_watch`, which fails what waits on it)
            answer, rendered = await asyncio.shield(waiting)
        except DeciderFailed:
            telemetry.DECIDER_CALLS.inc("failed")
            raise
        finally:
            left = self._held[principal] - 1
            if left:
                self._held[principal] = left
            else:
                del self._held[principal]
            self._make_room()
        telemetry.DECIDER_CALLS.inc("decided")
        return Answer(
            int(answer["status"]),
            rendered,
            str(answer.get("decision_id", "")),
            handed_back=answer.get("handed_back") is True,
        )

    async def _with_room(self, principal: str) -> _Process | None:
        """The process of the current generation with the fewest calls unanswered that
        has room for one more (`_Process.has_room`); None (a thread decides) when none
        has within `WAIT` — or at once when every call written is another caller's:
        a caller that keeps the processes busy makes only its own calls wait, never
        anybody else's. (A call that aged past `QUEUE_BEHIND` makes no room when it
        does: the wait is cut at the next answer of any process, or at `WAIT`.)"""
        loop = self._loop
        if loop is None:
            return None
        until = loop.time() + WAIT
        woken = False
        while True:
            now = loop.time()
            # (calls already waiting go first: one arriving now does not take the room
            # an answer made for them)
            if woken or not any(not w.done() for _u, w, _p in self._waiters):
                best: _Process | None = None
                for process in self._live:
                    fewer = best is None or len(process.pending) < len(best.pending)
                    if fewer and process.usable and process.has_room(now, principal):
                        best = process
                if best is not None:
                    return best
            if not self._held.get(principal) or now >= until or self._closed:
                return None
            waiter: asyncio.Future[bool] = loop.create_future()
            if woken:  # (woken and beaten to it: still first in line)
                self._waiters.appendleft((until, waiter, principal))
            else:
                self._waiters.append((until, waiter, principal))
            woken = await waiter
            if not woken:
                return None

    def _make_room(self, room: int = 1) -> None:
        """Wake `room` calls waiting for room (each looks again), the oldest first of
        those whose principal has room in a process now: room depends on whose a call
        is (`_Process.has_room`). Those that have none keep their place; at most
        `_PASSED_OVER` are looked at and passed over an answer."""
        loop = self._loop
        if loop is None:
            return
        now = loop.time()
        passed: list[tuple[float, asyncio.Future[bool], str]] = []
        while room and self._waiters and len(passed) < _PASSED_OVER:
            waiting = self._waiters.popleft()
            _until, waiter, principal = waiting
            if waiter.done():
                continue
            if any(p.usable and p.has_room(now, principal) for p in self._live):
                waiter.set_result(True)
                room -= 1
            else:
                passed.append(waiting)
        self._waiters.extendleft(reversed(passed))

    async def _watch(self) -> None:
        """Every `_TICK`: calls that waited `WAIT` for room go to the threads; a process
        that has been on its oldest call longer than `hung` (`_Process.started`) is
        ended (its calls refused) and, when it is one of the current set, replaced —
        one retiring after a reload or at its memory cap is ended the same way. One
        timer for all, none per call."""
        loop = asyncio.get_running_loop()
        while not self._closed:
            await asyncio.sleep(_TICK)
            now = loop.time()
            kept: collections.deque[tuple[float, asyncio.Future[bool], str]] = (
                collections.deque()
            )
            for waiting in self._waiters:
                until, waiter, _whose = waiting
                if waiter.done():
                    continue
                if now >= until:
                    waiter.set_result(False)
                else:
                    kept.append(waiting)
            self._waiters = kept
            # (a retiring one too: its calls wait for it as a current one's do)
            for process in [*self._live, *self._retiring]:
                if process.sent and now - process.started > self._hung:
                    current = process in self._live
                    self._log.error(
                        "a deciding process did not answer: "
                        + ("replaced" if current else "ended"),
                        pid=process.popen.pid,
                        seconds=round(now - process.started, 1),
                    )
                    self._lost(process, f"did not answer within {self._hung:g} s")

    def take_counts(self, changed: telemetry.Snapshot) -> None:
        """A process's counts since its last answer, kept to be merged when read."""
        self._counts.append(changed)
        if len(self._counts) > 1024:  # (nobody scrapes: merged here, bounded)
            self.counted()

    def counted(self) -> None:
        """Merge what the processes counted into this process's counts (before a
        scrape; any thread: one popleft at a time)."""
        while True:
            try:
                changed = self._counts.popleft()
            except IndexError:
                return
            try:
                telemetry.merge(changed)
            except ValueError as exc:  # (a process that sends such counts is broken)
                self._log.error("counts of a deciding process refused", error=str(exc))

    # ------------------------------------------------------------ processes

    def _ended(self, process: _Process, why: str) -> None:
        """A process stopped answering on its own (it ended, or left at its cap)."""
        self._retiring.discard(process)
        if self._closed:
            return
        if process in self._live and not process.leaving:
            self._log.error("a deciding process ended: replaced", pid=process.popen.pid, why=why)
        self._lost(process)

    def _leaving(self, process: _Process) -> None:
        """`process` leaves at its memory cap: retired, and another started."""
        current = process in self._live
        self._retire(process)
        if current and process.generation == self._generation:
            self._replace()

    def _lost(self, process: _Process, why: str = "ended before answering") -> None:
        """End `process` now (its calls refused: `why`), and start another if it was
        one of the current set."""
        current = process in self._live
        if current:
            self._live.remove(process)
        self._retiring.discard(process)
        process.fail_pending(why)
        process.end()
        if current and process.generation == self._generation:
            self._replace()
        # (every waiting call looks again: with its own calls refused, or no process
        # left with room, it goes to a thread now rather than at `WAIT`)
        waiting, self._waiters = self._waiters, collections.deque()
        for _until, waiter, _whose in waiting:
            if not waiter.done():
                waiter.set_result(True)

    def _retire(self, process: _Process) -> None:
        """Take `process` out of use: it answers what it was asked, then ends."""
        if process in self._live:
            self._live.remove(process)
        if process.pending and not process.dead:
            # (its reader ends it, through `_ended`, once it has answered and left)
            with contextlib.suppress(Exception):
                if process.writer is not None and process.writer.can_write_eof():
                    process.writer.write_eof()
                    self._retiring.add(process)
                    return
        process.end()

    def _replace(self) -> None:
        if self._closed:
            return
        task = asyncio.ensure_future(self._respawn(self._generation))
        self._spawning.add(task)
        task.add_done_callback(self._spawning.discard)

    async def _respawn(self, generation: int) -> None:
        """Start a process for `generation`, retrying (1, 2, 4 ... 60 s apart) until one
        starts or the set moves on; at most `3 * size` starts a minute, so a call that
        kills its process again and again costs the service little (the threads decide
        meanwhile)."""
        loop = asyncio.get_running_loop()
        failures = 0
        while not self._closed and generation == self._generation:
            now = loop.time()
            recent = self._starts
            while recent and now - recent[0] > 60.0:
                recent.popleft()
            delay = 60.0 - (now - recent[0]) if len(recent) >= 3 * self.size else 0.0
            if failures:
                delay = max(delay, min(60.0, 2.0 ** (failures - 1)))
            if delay > 0:
                await asyncio.sleep(delay)
                continue
            recent.append(now)
            engines = list(self._engines())
            try:
                process = await loop.run_in_executor(None, _spawn, engines, generation)
            except Exception as exc:  # noqa: BLE001 - logged; the threads decide meanwhile
                failures += 1
                self._log.error(
                    "a deciding process did not start", error=f"{type(exc).__name__}: {exc}"
                )
                continue
            if self._closed or generation != self._generation:
                process.end()
                return
            await process.connect(self)
            self._live.append(process)
            self._make_room(DEPTH)
            return


def _settings_fields(settings: Any) -> dict[str, Any]:
    """The settings as JSON the process validates again, secrets included (pydantic
    writes a secret as asterisks): the decision log's key seals its records."""
    fields: dict[str, Any] = settings.model_dump(mode="json")
    key = settings.audit_key
    fields["audit_key"] = key.get_secret_value() if key is not None else None
    return fields


def _caller_fields(caller: Any) -> dict[str, Any]:
    return {
        "home": caller.home,
        "workspace": caller.workspace,
        "uid": caller.uid,
        "protected": list(caller.protected),
        "principal": caller.principal,
        "peer": caller.peer,
        "may_file": caller.may_file,
    }


def _asker_fields(asker: Any) -> dict[str, Any]:
    identity = asker.identity
    return {
        "principal": asker.principal,
        "user": asker.user,
        "uid": asker.uid,
        "peer": asker.peer,
        "identity": None
        if identity is None
        else {
            "name": identity.name,
            "roles": sorted(identity.roles),
            "approver_names": list(identity.approver_names),
            "via": identity.via,
            "uid": identity.uid,
            "senders": list(identity.senders),
        },
    }
