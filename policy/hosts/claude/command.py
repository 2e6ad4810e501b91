"""Running one configured hook command, as Claude Code runs it, and nothing more.

`/bin/sh -c COMMAND` (or the exec form, `command` + `args`, with `${VAR}` filled in by
us since no shell does it) in the project it runs for (`claude.hosted` says which), with
the payload on stdin, within the hook's timeout, and with the environment Claude Code
gives hook commands (2.1.332 and 2.1.197, run): `CLAUDECODE=1` (for Claude Code's
file shape; Agentao sets none), `CLAUDE_PROJECT_DIR` (that project), `CLAUDE_PLUGIN_ROOT`
(the plugin's folder) and, for a plugin's hooks, `CLAUDE_PLUGIN_DATA` (a directory of
the plugin's own, created 0700 under our data directory), so a guard that checks
`$CLAUDECODE` before it asks or denies does so whichever host the call came from.
Each command runs in a process group of its own, so a timeout or an engine that closes
kills what it started too. What did not run — not
started, timed out, killed by a signal — is a CommandHookError whose reason names the
script and the fix where it can (`chmod +x <path>` for a script that lost its exec bit);
what the command said is read by `claude.hosted`.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shlex
import signal
import stat
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from policy._lazy_dataclass import dataclass
from policy.hosts.claude.dialect import CLAUDE
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
#: Variables of the operator's environment a hook command must not inherit: Claude
#: Code sets them only for the hooks they belong to (`CLAUDE_PLUGIN_DATA` for a
#: plugin's, `CLAUDE_ENV_FILE` at SessionStart and the like, events the chain has no
#: point for). Under `policy hook claude` our own environment is Claude Code's, and
#: hookpolicy's plugin data must not become another hook's.
_NOT_INHERITED = ("CLAUDE_PLUGIN_DATA", "CLAUDE_ENV_FILE")
#: `$NAME` and `${NAME}` in a command's first word, for naming the script that failed.
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
#: An environment assignment before the command word (`LC_ALL=C ./guard.sh`).
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
#: The path a shell names when it could not run a file: dash's
#: `/bin/sh: 1: /p/guard.sh: Permission denied`, bash's `bash: line 1: /p: Permission
#: denied` (a path with a colon in it is not recognised; the first word is read then).
_SHELL_COMPLAINT = re.compile(
    r"^(?:.*: )?(?P<path>[^:]+): "
    r"(?:Permission denied|not found|No such file or directory|Is a directory)\s*$"
)
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

    def __init__(self, spec: Spec, data_dir: Path | None = None) -> None:
        self.spec = spec
        #: Where a plugin's `CLAUDE_PLUGIN_DATA` goes: `<data_dir>/plugins/data/<id>`
        #: (hookpolicy's `data_dir` setting; its default when not given).
        self._data_dir = data_dir
        self._plugin_id: str | None = None
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

    def environment(self, project: Path) -> tuple[dict[str, str], dict[str, str]]:
        """The environment the command runs with in `project` — ours, less what must
        not leak from it, plus the host's variables — and those `CLAUDE_*` directories
        alone (what the exec form substitutes). CommandHookError when a plugin's data
        directory cannot be made."""
        spec = self.spec
        places = {
            "CLAUDE_PROJECT_DIR": str(project),
            "CLAUDE_PLUGIN_ROOT": str(spec.plugin_root),
        }
        if spec.plugin:
            places["CLAUDE_PLUGIN_DATA"] = str(self._plugin_data())
        env = {name: value for name, value in os.environ.items() if name not in _NOT_INHERITED}
        env.update(places)
        if spec.dialect is CLAUDE:
            # Claude Code's mark; Agentao 0.5.17 sets no such variable for its hooks,
            # and one of ours (`policy hook claude` runs under Claude Code) is not theirs.
            env["CLAUDECODE"] = "1"
        else:
            env.pop("CLAUDECODE", None)
        return env, places

    def run(self, payload: Mapping[str, Any], project: Path) -> Completed:
        """Run the command in `project` with `payload` on stdin; CommandHookError when
        it did not run to an exit of its own."""
        spec = self.spec
        run_dir = str(project)
        if not os.path.isdir(run_dir):
            raise CommandHookError(
                f"command {spec.command!r} cannot run in {run_dir}: not a directory"
            )
        env, places = self.environment(project)
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
                raise CommandHookError(_spawn_failure(spec.command, argv, exc, run_dir)) from None
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
            raise CommandHookError(_shell_failure(spec.command, code, stderr, run_dir, env))
        if code < 0:
            raise CommandHookError(
                f"command {spec.command!r} was killed by signal {-code}: {stderr_quote(stderr)}"
            )
        return Completed(code, stdout, stderr)

    def _plugin_data(self) -> Path:
        """The plugin's data directory, created 0700 if missing: Claude Code gives a
        plugin `~/.claude/plugins/data/<id>` (made before the hook runs), `<id>` its
        name and where it came from, `-inline` for a plugin loaded from a directory;
        here it is `<data_dir>/plugins/data/<id>`, kept apart from Claude Code's own."""
        from policy._env import default_data_dir
        from policy._owner_only import private_parents

        if self._plugin_id is None:
            self._plugin_id = plugin_id(self.spec.plugin_root)
        base = self._data_dir if self._data_dir is not None else default_data_dir()
        path = Path(os.path.expanduser(base)) / "plugins" / "data" / self._plugin_id
        try:
            private_parents(path / "state")  # it and `plugins/data/` 0700, whatever the umask
            info = os.lstat(path)
        except OSError as exc:
            raise CommandHookError(
                f"command {self.spec.command!r} cannot run: its plugin data directory "
                f"{path} cannot be created ({exc.strerror or exc})"
            ) from None
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            # a link (or a file, or another user's directory) put where the plugin's
            # state goes: not followed, not shared
            raise CommandHookError(
                f"command {self.spec.command!r} cannot run: its plugin data directory "
                f"{path} is not a directory of uid {os.geteuid()}"
            )
        if stat.S_IMODE(info.st_mode) & 0o077:
            os.chmod(path, 0o700, follow_symlinks=False)
        return path


def plugin_id(root: Path) -> str:
    """The plugin's data directory name as Claude Code makes it for a plugin loaded
    from a directory (`claude --plugin-dir`): the manifest's `name` (else the folder's)
    with every character but letters, digits, `_` and `-` made `-`, then `-inline`."""
    name = root.name
    for manifest in (root / ".claude-plugin" / "plugin.json", root / "plugin.json"):
        try:
            declared = json.loads(manifest.read_text(encoding="utf-8")).get("name")
        except (OSError, ValueError, AttributeError):
            continue
        if isinstance(declared, str) and declared.strip():
            name = declared.strip()
            break
    return re.sub(r"[^A-Za-z0-9_-]", "-", name) + "-inline"


def _shell_failure(
    command: str, code: int, stderr: str, run_dir: str, env: Mapping[str, str]
) -> str:
    """Why `sh -c` could not run the command (exit 126 or 127), naming the file and
    the fix: a published plugin whose hooks/*.sh lost its exec bit in a checkout is
    the common case, and "exit 126" alone sends the operator hunting."""
    head = f"command {command!r} {_NOT_STARTED[code]} (sh exit {code})"
    said = first_line(stderr)
    for path in (_complained_of(stderr, run_dir), _first_word(command, run_dir, env)):
        hint = None if path is None else _hint(path)
        if hint is not None:
            return f"{head}: {hint}" + (f" ({said})" if said else "")
    # The file looks runnable: something inside the command exited 126 or 127.
    return f"{head}: {said}" if said else head


def _spawn_failure(command: str, argv: str | list[str], exc: OSError, run_dir: str) -> str:
    """Why the exec form (no shell) could not start: EACCES and ENOENT name the file."""
    head = f"command {command!r} could not be started"
    program = argv[0] if isinstance(argv, list) else None
    if program is not None and exc.errno in (errno.EACCES, errno.ENOENT, errno.ENOTDIR):
        if "/" not in program and exc.errno == errno.ENOENT:
            return f"{head}: not found: {program!r} is not on PATH"
        hint = _hint(Path(run_dir, os.path.expanduser(program)))
        if hint is not None:
            return f"{head}: {hint}"
    return f"{head}: {exc}"


def _hint(path: Path) -> str | None:
    """What is wrong with the file a command names, and what to do about it; None
    when nothing is (it is a program we may run)."""
    if path.is_dir():
        return f"{path} is a directory, not a program"
    if not path.exists():
        return f"not found: {path}"
    if not os.access(path, os.X_OK):
        return f"not executable: chmod +x {path}"
    return None


def _complained_of(stderr: str, run_dir: str) -> Path | None:
    """The path the shell says it could not run, when it says one."""
    for line in stderr.splitlines():
        match = _SHELL_COMPLAINT.match(line.strip())
        if match:
            path = match.group("path").strip()
            if "/" in path:
                return Path(run_dir, os.path.expanduser(path))
    return None


def _first_word(command: str, run_dir: str, env: Mapping[str, str]) -> Path | None:
    """The program a plain command names (`${CLAUDE_PLUGIN_ROOT}/hooks/guard.sh --x`,
    `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`), with the variables filled in as the
    shell would; None when it is not a path (a PATH lookup, a substitution we cannot
    resolve, a compound command we do not read)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    while words and _ASSIGNMENT.match(words[0]):
        words = words[1:]
    if not words:
        return None
    word = _VARIABLE.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), words[0])
    if "/" not in word or any(c in word for c in "$`*?["):
        return None
    return Path(run_dir, os.path.expanduser(word))


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
