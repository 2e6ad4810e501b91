"""One child process that speaks JSON-RPC 2.0 over stdio, one message per line.

This is the transport of PicoClaw process hooks, seen from the host side: start the
command, `hook.hello` within the start budget, then requests whose answers are
matched by integer id (several may be in flight: the chain calls hooks from worker
threads), and notifications that get no answer. stderr lines are logged, never
parsed. When the process dies, every waiting request fails at once, and the next
request starts it again — but not sooner than the back-off allows (doubling up to
a cap, reset by an answered request), so a hook that crashes on start cannot turn
every tool call into a fork. Closing follows PicoClaw: close stdin, give the
process 2 s to leave, then kill it (here its whole process group, so a shell
wrapper does not leave its child behind).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import select
import signal
import subprocess
import threading
import time
import weakref
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import IO, Any

import orjson

from policy._lazy_dataclass import dataclass, field
from policy.errors import PolicyError
from policy.hosts._hook_process import encode_line

__all__ = ["CLOSE_GRACE", "MAX_LINE", "ProcessHookError", "RpcProcess", "Spawn", "kill_all"]

log = logging.getLogger("policy.hosted")

#: How long a closing process may take after its stdin is closed (PicoClaw: 2 s).
CLOSE_GRACE = 2.0
#: Longest stdout line read (PicoClaw's scanner buffer: 1 MiB); longer lines are dropped.
MAX_LINE = 1024 * 1024


#: Every child still running, so a process that must end NOW (a hook command's
#: watchdog) can take its process hooks' groups with it.
_LIVE: weakref.WeakSet[_Running] = weakref.WeakSet()


def kill_all() -> None:
    """Kill the process group of every child still running (before an `os._exit`)."""
    for running in list(_LIVE):
        _kill_group(running.proc)


class ProcessHookError(PolicyError):
    """A process hook gave no usable answer: not running, died, timed out, or replied
    with an error or a malformed result. The chain applies the hook's failure policy."""


@dataclass(frozen=True, slots=True)
class Spawn:
    """How to start the process, and how long it may take to say hello."""

    name: str
    command: Sequence[str]
    dir: Path | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    hello_params: Mapping[str, Any] = field(default_factory=dict)
    start_timeout: float = 5.0
    backoff: float = 0.5
    backoff_max: float = 30.0


class _Running:
    """One started child: its pipes, its threads and the answers awaited.

    Three daemon threads: stdout lines are matched to requests, stderr lines are
    logged, and a waiter notices the exit — from the process itself, not from stdout's
    end, which a grandchild that inherited the pipe can hold open. Writes go straight to
    stdin's file descriptor, non-blocking, so a child that stops reading costs its
    caller one budget, never a hang.
    """

    def __init__(self, spawn: Spawn, on_exit: Callable[[_Running], None]) -> None:
        env = {**os.environ, **spawn.env} if spawn.env else None
        self.proc = subprocess.Popen(
            list(spawn.command),
            cwd=spawn.dir,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        assert self.proc.stderr is not None
        self.name = spawn.name
        self._stdin = self.proc.stdin
        self._fd = self._stdin.fileno()
        os.set_blocking(self._fd, False)
        self.write_lock = threading.Lock()
        self.pending: dict[int, Future[Any]] = {}
        self.pending_lock = threading.Lock()
        self.exited = threading.Event()
        self._on_exit = on_exit
        self._readers = [
            threading.Thread(
                target=self._read_stdout,
                args=(self.proc.stdout,),
                daemon=True,
                name=f"hook-{spawn.name}-stdout",
            ),
            threading.Thread(
                target=self._read_stderr,
                args=(self.proc.stderr,),
                daemon=True,
                name=f"hook-{spawn.name}-stderr",
            ),
        ]
        self._waiter = threading.Thread(
            target=self._wait, daemon=True, name=f"hook-{spawn.name}-wait"
        )
        for thread in (*self._readers, self._waiter):
            thread.start()
        _LIVE.add(self)

    # -- reading

    def _read_stdout(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while True:
                line = stream.readline(MAX_LINE + 1)
                if not line:
                    return
                if len(line) > MAX_LINE and not line.endswith(b"\n"):
                    log.warning(
                        "process hook %r: a stdout line over %d bytes dropped", self.name, MAX_LINE
                    )
                    while line and not line.endswith(b"\n"):
                        line = stream.readline(MAX_LINE + 1)
                    continue
                self._deliver(line)

    def _wait(self) -> None:
        code = self.proc.wait()
        # What the hook left in its group (helpers holding our pipes) goes with it; the
        # group id cannot be reused while any member lives.
        _kill_group(self.proc)
        # Answers already in the pipe are delivered before the rest fail.
        self._readers[0].join(0.2)
        self.exited.set()
        _LIVE.discard(self)
        self._fail_pending(f"process hook {self.name!r} exited with status {code}")
        self._on_exit(self)

    def _deliver(self, line: bytes) -> None:
        if not line.strip():
            return
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            log.warning("process hook %r: stdout line is not JSON: %.200r", self.name, line)
            return
        if not isinstance(message, dict):
            log.warning("process hook %r: stdout line is not a JSON object", self.name)
            return
        ident = message.get("id")
        if not isinstance(ident, int) or isinstance(ident, bool):
            return  # a notification, or an answer to one (the seed's hooks answer id null)
        with self.pending_lock:
            future = self.pending.pop(ident, None)
        if future is None:
            return  # an answer that came after its request gave up
        error = message.get("error")
        if error is not None:
            text = error.get("message") if isinstance(error, dict) else error
            future.set_exception(ProcessHookError(f"process hook {self.name!r}: {text}"))
        elif "result" not in message:
            future.set_exception(
                ProcessHookError(f"process hook {self.name!r}: answer {ident} has no result")
            )
        else:
            future.set_result(message["result"])

    def _read_stderr(self, stream: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            for line in iter(lambda: stream.readline(MAX_LINE), b""):
                text = line.decode("utf-8", "replace").rstrip()
                if text:
                    log.warning("process hook %r stderr: %s", self.name, text)

    def _fail_pending(self, reason: str) -> None:
        with self.pending_lock:
            waiting = list(self.pending.values())
            self.pending.clear()
        for future in waiting:
            if not future.done():
                future.set_exception(ProcessHookError(reason))

    # -- writing

    def send(self, message: Mapping[str, Any], deadline: float) -> None:
        """Write one line before `deadline` (time.monotonic) or kill the child: one that
        does not read its input is hung, and a half-written line cannot be taken back."""
        body = memoryview(encode_line(message))
        if not self.write_lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise ProcessHookError(f"process hook {self.name!r}: its input is busy")
        if self._stdin.closed:  # stop() closed it: the number may be another file's now
            self.write_lock.release()
            raise ProcessHookError(f"process hook {self.name!r} is closed")
        try:
            poller = select.poll()  # not select(): descriptors past 1023 are fine
            poller.register(self._fd, select.POLLOUT)
            while body:
                try:
                    written = os.write(self._fd, body)
                except BlockingIOError:
                    left = deadline - time.monotonic()
                    if left <= 0 or not poller.poll(left * 1000):
                        raise _Stuck from None
                    continue
                body = body[written:]
        except _Stuck:
            _kill_group(self.proc)
            raise ProcessHookError(
                f"process hook {self.name!r} stopped reading its input; killed"
            ) from None
        except Exception as exc:  # noqa: BLE001 - a half-written line: the child is unusable
            _kill_group(self.proc)
            raise ProcessHookError(
                f"process hook {self.name!r}: cannot write to it ({exc}); killed"
            ) from None
        finally:
            self.write_lock.release()

    def request(self, ident: int, method: str, params: Any, deadline: float, budget: float) -> Any:
        future: Future[Any] = Future()
        with self.pending_lock:
            if self.exited.is_set():
                raise ProcessHookError(f"process hook {self.name!r} is not running")
            self.pending[ident] = future
        try:
            self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params}, deadline)
            return future.result(max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            raise ProcessHookError(
                f"process hook {self.name!r} gave no answer to {method} "
                f"within {round(budget * 1000)} ms"
            ) from None
        finally:
            with self.pending_lock:
                self.pending.pop(ident, None)

    # -- stopping

    def stop(self, grace: float) -> None:
        """Close stdin, give the child `grace` to leave, then kill its process group.

        Readers still blocked (a grandchild holding the pipe) are left to end on their
        own: closing a stream another thread reads would block here instead."""
        if self.write_lock.acquire(timeout=grace):
            try:
                with contextlib.suppress(OSError, ValueError):
                    self._stdin.close()
            finally:
                self.write_lock.release()
        if not self.exited.wait(grace):
            _kill_group(self.proc)
            self.exited.wait(grace)
        for thread, stream in zip(self._readers, (self.proc.stdout, self.proc.stderr), strict=True):
            thread.join(min(grace, 0.2))
            if not thread.is_alive() and stream is not None:
                stream.close()


class _Stuck(Exception):
    """The child's input stayed full until the deadline."""


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        with contextlib.suppress(ProcessLookupError):
            proc.kill()


class RpcProcess:
    """A process hook's child, restarted on death with back-off; thread-safe.

    `start()` raises ProcessHookError when the first start fails (the engine then
    refuses to start); later failures surface on the request that meets them. Every
    wait is bounded by the caller's budget: the lock a start holds, the hello, the
    write and the answer.
    """

    def __init__(self, spawn: Spawn) -> None:
        self._spawn = spawn
        self._ids = itertools.count(1)  # PicoClaw's ids are uint64 from 1; 0 means none
        self._lock = threading.Lock()  # held while a child is started
        self._running: _Running | None = None
        self._closed = False
        self._backoff = threading.Lock()  # guards _delay and _not_before
        self._delay = 0.0
        self._not_before = 0.0
        self.starts = 0
        #: What the process said to hello (its dialect shows in it).
        self.hello: Mapping[str, Any] = {}

    @property
    def name(self) -> str:
        return self._spawn.name

    @property
    def pid(self) -> int | None:
        running = self._running
        return running.proc.pid if running is not None and not running.exited.is_set() else None

    def start(self) -> None:
        self._live(time.monotonic() + self._spawn.start_timeout)

    def _exited(self, running: _Running) -> None:
        if not self._closed:
            log.warning(
                "process hook %r exited (status %s); it restarts on the next request",
                self.name,
                running.proc.returncode,
            )

    def _live(self, deadline: float) -> _Running:
        """The running child, started if need be, within `deadline`."""
        running = self._running
        if running is not None and not running.exited.is_set():
            return running
        if not self._lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
            raise ProcessHookError(f"process hook {self.name!r} is still starting")
        try:
            return self._ensure_running(deadline)
        finally:
            self._lock.release()

    def _ensure_running(self, deadline: float) -> _Running:
        """Start a child if none runs and the back-off allows; call with _lock held."""
        if self._closed:
            raise ProcessHookError(f"process hook {self.name!r} is closed")
        running = self._running
        if running is not None and not running.exited.is_set():
            return running
        now = time.monotonic()
        if now >= deadline:
            raise ProcessHookError(f"process hook {self.name!r} is down; no time left to start it")
        with self._backoff:
            not_before = self._not_before
        if now < not_before:
            raise ProcessHookError(
                f"process hook {self.name!r} is down; next start in "
                f"{round((not_before - now) * 1000)} ms"
            )
        if running is not None:
            running.stop(0.1)
        self._running = None
        spawn = self._spawn
        with self._backoff:
            # Doubles until an answered request resets it: a child that dies before
            # answering anything is not started again sooner than this.
            self._delay = min(spawn.backoff_max, self._delay * 2) if self._delay else spawn.backoff
            self._not_before = now + self._delay
        try:
            running = _Running(spawn, self._exited)
        except OSError as exc:
            self._failed_start()
            raise ProcessHookError(
                f"process hook {self.name!r} cannot start {spawn.command[0]!r}: "
                f"{exc.strerror or exc}"
            ) from None
        self.starts += 1
        # The hello gets its whole start budget even when the caller's is shorter: cut
        # to a short interceptor budget, a hook slow to start would be killed at every
        # restart and never run again. A caller may wait up to start_timeout once.
        hello_deadline = time.monotonic() + spawn.start_timeout
        try:
            answer = running.request(
                next(self._ids),
                "hook.hello",
                dict(spawn.hello_params),
                hello_deadline,
                spawn.start_timeout,
            )
        except ProcessHookError as exc:
            running.stop(0.1)
            self._failed_start()
            raise ProcessHookError(f"{exc} (hello failed)") from None
        if not isinstance(answer, Mapping) or answer.get("ok") is False:
            running.stop(0.1)
            self._failed_start()
            raise ProcessHookError(
                f"process hook {self.name!r} refused hello: "
                f"{orjson.dumps(answer, default=str).decode()}"
            )
        self.hello = answer
        self._running = running
        return running

    def _failed_start(self) -> None:
        with self._backoff:
            self._not_before = time.monotonic() + self._delay

    def request(self, method: str, params: Any, timeout: float) -> Any:
        """The result of one request; ProcessHookError when there is none in `timeout`."""
        deadline = time.monotonic() + timeout
        running = self._live(deadline)
        result = running.request(next(self._ids), method, params, deadline, timeout)
        if self._delay:
            with self._backoff:
                self._delay = 0.0
                self._not_before = 0.0
        return result

    def notify(self, method: str, params: Any, timeout: float) -> None:
        """Send a notification (no id, no answer) within `timeout`."""
        deadline = time.monotonic() + timeout
        self._live(deadline).send({"jsonrpc": "2.0", "method": method, "params": params}, deadline)

    def close(self) -> None:
        """Close stdin, wait CLOSE_GRACE, then kill. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            running, self._running = self._running, None
        if running is not None:
            running.stop(CLOSE_GRACE)
