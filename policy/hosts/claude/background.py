"""Hooks Claude Code runs in the background (`"async": true`), run the same way here.

Claude Code (2.1.332 and 2.1.197, run) starts an async hook and goes on at once: the
call runs while the hook does, and nothing the hook answers decides it — not exit 2,
not `permissionDecision: "deny"`, not `decision: "block"`. Each such hook gets a
session of its own, and those still running when Claude Code's session ends get
SIGTERM. (What one prints while the session lasts is shown to the model on its next
turn — `systemMessage`, `additionalContext` — which our chain has no turn to do.)

So here a background hook is started detached — its own session, the call's payload on
stdin — and the call goes on. stdin, stdout and stderr are unlinked temporary files, not
pipes: a hook that outlives the process that started it (`policy hook claude` ends with
its answer, as a Claude Code session outlives the call) still reads the whole payload
and never dies of a closed pipe. A daemon thread per hook reaps it (no zombies), kills
its process group at its `timeout`, and logs what it printed on the `policy.hosted`
logger, one line each for stdout and stderr, capped. Nothing here raises into the call:
a hook that cannot start is a warning. `close()` (the engine's) sends SIGTERM to the
groups still running, as Claude Code does at the end of its session, unless the process
called `outlive_close()` because the session its hooks belong to is the host's, not
this process's. For that case the command runs under coreutils `timeout` where there is
one, so its timeout holds after this process is gone; and at most `MAX_RUNNING` copies
of one hook run at once, so a flood of calls cannot fill the machine with them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from policy._logger import logger
from policy.hosts.claude.command import QUOTE_CHARS, Command, CommandHookError

__all__ = ["Background", "outlive_close", "start_or_log"]

log = logger("policy.hosted")

#: Most of a background hook's stdout or stderr read back for the log.
_READ_BACK = 64 * 1024
#: Most copies of one background hook running at once: past it a call starts none (a
#: warning), so a flood of calls cannot fill the machine with hooks no one waits for.
MAX_RUNNING = 16
#: Seconds between the timeout's SIGTERM and its SIGKILL (coreutils `timeout -k`).
_KILL_AFTER = 5

_outlive = threading.Event()


def outlive_close() -> None:
    """Leave background hooks running when engines close: for a process that answers
    one event and ends (`policy hook claude`), whose hooks belong to the host's
    session, which goes on after the answer."""
    _outlive.set()


class Background:
    """One `"async": true` hook command: started per matching call, never waited for."""

    def __init__(self, command: Command) -> None:
        self._command = command
        self.spec = command.spec
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self._closed = False

    def start(self, payload: bytes, project: Path, env: Mapping[str, str]) -> None:
        """Start the command in `project` with `payload` on stdin, detached, and return
        at once; a command that cannot start is logged, never raised."""
        spec = self.spec
        argv = _bounded(
            [_substitute(part, env) for part in (spec.command, *spec.args)]
            if spec.args is not None
            else ["/bin/sh", "-c", spec.command],
            spec.timeout,
        )
        try:
            with self._lock, contextlib.ExitStack() as files:
                if self._closed:
                    return
                if len(self._running) >= MAX_RUNNING:
                    log.warning(
                        "background hook %r not started (the call goes on): %d copies "
                        "still running",
                        spec.name,
                        len(self._running),
                    )
                    return
                out = files.enter_context(tempfile.TemporaryFile())
                err = files.enter_context(tempfile.TemporaryFile())
                with tempfile.TemporaryFile() as stdin:
                    stdin.write(payload)
                    stdin.seek(0)
                    process = subprocess.Popen(
                        argv,
                        cwd=str(project),
                        env=dict(env),
                        stdin=stdin,
                        stdout=out,
                        stderr=err,
                        start_new_session=True,
                    )
                self._running.add(process)
                files.pop_all()  # the reaper closes them
        except OSError as exc:
            log.warning(
                "background hook %r could not be started (the call goes on): %s",
                spec.name,
                exc,
            )
            return
        threading.Thread(
            target=self._reap,
            args=(process, out, err),
            name=f"background hook {spec.where}",
            daemon=True,
        ).start()

    def close(self) -> None:
        """SIGTERM to the hooks still running, as Claude Code sends at the end of its
        session (not after `outlive_close()`); their threads reap and log them."""
        with self._lock:
            self._closed = True
            running = [] if _outlive.is_set() else list(self._running)
        for process in running:
            _signal_group(process, signal.SIGTERM)

    def _reap(self, process: subprocess.Popen[bytes], out: IO[bytes], err: IO[bytes]) -> None:
        spec = self.spec
        try:
            try:
                code = process.wait(timeout=spec.timeout)
                ended = f"exited {code}" if code >= 0 else f"was killed by signal {-code}"
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait()
                code = -signal.SIGKILL
                ended = f"timed out after {spec.timeout:g} s (its process group was killed)"
            with self._lock:
                self._running.discard(process)
            report = log.info if code == 0 else log.warning
            report("background hook %r %s at %s", spec.name, ended, spec.event)
            for name, stream in (("stdout", out), ("stderr", err)):
                text = _read_back(stream)
                if text:
                    report("background hook %r %s: %s", spec.name, name, text)
        finally:
            out.close()
            err.close()


def _payload_bytes(payload: Mapping[str, Any]) -> bytes:
    """The payload as `Command.run` writes it."""
    import json

    return json.dumps(payload, ensure_ascii=False, default=str).encode()


def start_or_log(
    background: Background, payload: Mapping[str, Any], project: Path, command: Command
) -> None:
    """Start `background` for one call; whatever goes wrong is a warning, never the
    call's failure (Claude Code does not wait for, nor hear from, the hook)."""
    if not project.is_dir():
        log.warning(
            "background hook %r was not started (the call goes on): cannot run in %s: "
            "not a directory",
            background.spec.name,
            project,
        )
        return
    try:
        env, _ = command.environment(project)
    except CommandHookError as exc:
        log.warning(
            "background hook %r was not started (the call goes on): %s",
            background.spec.name,
            exc,
        )
        return
    background.start(_payload_bytes(payload), project, env)


def _bounded(argv: list[str], timeout: float) -> list[str]:
    """`argv` under coreutils `timeout`, where there is one: the hook's timeout then holds
    after this process has gone (`policy hook claude` answers and exits while its
    background hooks run on), not only while a reaper thread of ours watches."""
    bound = shutil.which("timeout")
    if bound is None:
        return argv
    return [bound, "-k", str(_KILL_AFTER), f"{timeout:g}", *argv]


def _read_back(stream: IO[bytes]) -> str:
    """What the hook printed, on one line, capped."""
    with contextlib.suppress(OSError, ValueError):
        stream.seek(0)
        text = stream.read(_READ_BACK).decode("utf-8", errors="replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        joined = " | ".join(lines)
        if len(joined) > QUOTE_CHARS:
            return joined[:QUOTE_CHARS] + " …"
        return joined
    return ""


def _signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def _substitute(text: str, env: Mapping[str, str]) -> str:
    """`${CLAUDE_PROJECT_DIR}` and the like in the exec form (no shell fills them in)."""
    for name in ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT", "CLAUDE_PLUGIN_DATA"):
        if name in env:
            text = text.replace("${" + name + "}", env[name])
    return text
