"""Running one configured hook command, as Claude Code runs it, and nothing more.

`/bin/sh -c COMMAND` (or the exec form, `command` + `args`, with `${VAR}` filled in by
us since no shell does it) in the project it runs for (`claude.hosted` says which), with
`CLAUDE_PROJECT_DIR` (that project) and `CLAUDE_PLUGIN_ROOT` (the plugin's folder) set,
the payload on stdin, within the hook's timeout. Each command runs in a process group
of its own, so a timeout or an engine that closes kills what it started too. What did
not run — not started, timed out, killed by a signal — is a CommandHookError; what the
command said is read by `claude.hosted`.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policy.hosts.claude.hooks_file import Spec

__all__ = [
    "QUOTE_CHARS",
    "Command",
    "CommandHookError",
    "Completed",
    "first_line",
    "stderr_quote",
]

#: How long to wait for a killed process group to let go of its pipes.
_REAP_SECONDS = 2.0
#: Exit codes with which `sh -c` says the command itself never ran.
_NOT_STARTED = {126: "is not executable", 127: "was not found"}
#: Longest stderr line quoted in a failure reason or warning.
QUOTE_CHARS = 300


class CommandHookError(Exception):
    """A hook command gave no usable answer: it did not start, timed out, was killed,
    crashed where it guards (an exit status other than 0 and 2), printed a JSON verdict
    that does not parse, or answered a verdict field with something that is not one.
    Raised rather than read as "no opinion", so the chain's failure policy decides."""


@dataclass(frozen=True, slots=True)
class Completed:
    """How a command that ran ended."""

    code: int
    stdout: str
    stderr: str


class Command:
    """One configured command: run once per call, several at a time if need be."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self._lock = threading.Lock()
        self._running: set[subprocess.Popen[bytes]] = set()
        self._closed = False

    def close(self) -> None:
        """Kill what is still running: a call the chain stopped waiting for must not
        leave its command behind when the engine goes."""
        with self._lock:
            self._closed = True
            running = list(self._running)
        for process in running:
            # The thread running the command is reading its pipes: signal only, and
            # let that thread see the kill and report it.
            _signal_group(process)

    def run(self, payload: Mapping[str, Any], project: Path) -> Completed:
        """Run the command in `project` with `payload` on stdin; CommandHookError when
        it did not run to an exit of its own."""
        spec = self.spec
        run_dir = str(project)
        if not os.path.isdir(run_dir):
            raise CommandHookError(
                f"command {spec.command!r} cannot run in {run_dir}: not a directory"
            )
        places = {
            "CLAUDE_PROJECT_DIR": run_dir,
            "CLAUDE_PLUGIN_ROOT": str(spec.plugin_root),
        }
        env = {**os.environ, **places}
        argv: str | list[str]
        if spec.args is not None:  # exec form: no shell, so substitute ourselves
            argv = [_substitute(part, places) for part in (spec.command, *spec.args)]
        else:
            argv = spec.command
        data = json.dumps(payload, ensure_ascii=False, default=str).encode()
        with self._lock:
            if self._closed:
                raise CommandHookError("the engine is closing")
            try:
                process = subprocess.Popen(
                    argv,
                    shell=spec.args is None,
                    cwd=run_dir,
                    env=env,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    start_new_session=True,
                )
            except OSError as exc:
                raise CommandHookError(
                    f"command {spec.command!r} could not be started: {exc}"
                ) from None
            self._running.add(process)
        try:
            try:
                out, err = process.communicate(data, timeout=spec.timeout)
            except subprocess.TimeoutExpired:
                _kill_group(process)
                raise CommandHookError(
                    f"command {spec.command!r} timed out after {spec.timeout:g} s "
                    "(its process group was killed)"
                ) from None
            except BaseException:
                _kill_group(process)
                raise
        finally:
            with self._lock:
                self._running.discard(process)
        stdout = out.decode("utf-8", errors="replace")
        stderr = err.decode("utf-8", errors="replace")
        code = process.returncode
        if spec.args is None and code in _NOT_STARTED:
            raise CommandHookError(
                f"command {spec.command!r} {_NOT_STARTED[code]} (sh exit {code}): "
                f"{first_line(stderr)}"
            )
        if code < 0:
            raise CommandHookError(
                f"command {spec.command!r} was killed by signal {-code}: {stderr_quote(stderr)}"
            )
        return Completed(code, stdout, stderr)


def _signal_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the command's process group and reap it; only the thread that started
    the command may call this (it reads the pipes)."""
    _signal_group(process)
    try:
        process.communicate(timeout=_REAP_SECONDS)
    except subprocess.TimeoutExpired:
        # A descendant left the group and holds our pipes: stop reading them.
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        process.wait()


def _substitute(text: str, values: Mapping[str, str]) -> str:
    for name, value in values.items():
        text = text.replace("${" + name + "}", value)
    return text


def first_line(text: str) -> str:
    stripped = text.strip()
    return stripped.splitlines()[0] if stripped else ""


def stderr_quote(stderr: str) -> str:
    """Stderr for a reason or a warning: its first line, and its last when there are
    more, since a Python traceback opens with a header and names the error last."""
    lines = [line.strip()[:QUOTE_CHARS] for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "(no stderr)"
    if len(lines) == 1:
        return lines[0]
    return f"{lines[0]} … {lines[-1]}"
