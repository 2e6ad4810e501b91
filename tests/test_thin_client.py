"""A hook via `policy serve` starts in about the interpreter's own time.

Claude Code and Agentao start `policy hook claude|agentao` once per tool call; with a
service configured the process only forwards the event and prints the answer
(policy.hosts.claude.thin), so what it imports is nearly all it costs. It reads its
command line with `policy.hosts.HOOK_OPTIONS` instead of argparse, its settings from
what an earlier start validated, JSON with the C codec (policy._plain_json), SHA-256
with the interpreter's own module (policy._hashes), and waits with `_thread`
(policy.hosts._watchdog). These tests hold each of those to what it stands in for, and
the whole to the modules it may load.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import socket
import subprocess
import sys
import sysconfig
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import _fast_settings, _hashes, _one_event, _plain_json, cli
from policy.cli.commands import parser
from policy.client.transport import _quote, query
from policy.hosts import HOOK_OPTIONS
from policy.hosts._watchdog import Watchdog
from policy.hosts.hook_command import hook_command
from tests.test_service import clean_env, pre_tool, start_service, stop

ROOT = Path(__file__).resolve().parent.parent

#: What the thin client may load beyond `python -S`'s own start: the interpreter's
#: built-in and C modules it uses, and the small pure-Python ones they come in
#: (struct, heapq, os). Not typing, re, enum, functools, collections, json, socket,
#: threading, signal, pathlib, hashlib, argparse, urllib or contextlib.
ALLOWED = {
    "__future__",
    "_collections_abc",
    "_heapq",
    "_json",
    "_sha2",
    "_sha256",
    "_socket",
    "_stat",
    "_struct",
    "errno",
    "gc",
    "genericpath",
    "heapq",
    "itertools",
    "os",
    "posixpath",
    "pwd",
    "stat",
    "struct",
}

#: Runs `policy` as its console script does, then reports (on stderr, as the process
#: ends) every module loaded after its first line.
_PROBE = """\
import os, sys
before = set(sys.modules)
def _reporting_exit(code, _exit=os._exit):
    loaded = sorted(set(sys.modules) - before)
    sys.stderr.write("\\nLOADED " + " ".join(loaded) + "\\n")
    sys.stderr.flush()
    _exit(code)
os._exit = _reporting_exit
from policy.cli import main
sys.exit(main(sys.argv[1:]))
"""


#: Where this interpreter's libraries are, for a `python -S` that must still find them.
_LIBRARIES = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})


def _thin(payload: Any, *options: str, env: dict[str, str]) -> tuple[Any, set[str]]:
    """`policy hook claude OPTIONS` as a plain install runs it: no `site` (an editable
    checkout's import hook loads pathlib and re into every process, hiding what the
    client loads), hookpolicy and its libraries on PYTHONPATH. The answer, and the
    modules it loaded (an answer of None: the process printed nothing, no objection)."""
    done = subprocess.run(
        [sys.executable, "-S", "-c", _PROBE, "hook", "claude", *options],
        input=orjson.dumps(payload),
        capture_output=True,
        env={**env, "PYTHONPATH": os.pathsep.join([str(ROOT), *_LIBRARIES])},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    report = done.stderr.decode().rsplit("\nLOADED ", 1)
    assert len(report) == 2, done.stderr
    return orjson.loads(done.stdout or b"null"), set(report[1].split())


def test_a_hook_via_the_service_loads_only_the_interpreters_own_modules(
    tmp_path: Path,
) -> None:
    running = start_service(tmp_path / "svc")
    try:
        env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path))
        answer, loaded = _thin(pre_tool("rm -rf /"), "--server", running.unix, env=env)
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert answer["hookSpecificOutput"]["permissionDecisionReason"] == "not the root"
        assert "policy.hosts.claude.thin" in loaded  # the probe saw the client's imports
        assert sorted(m for m in loaded if not m.startswith("policy") and m not in ALLOWED) == []
        assert "policy.cli.commands" not in loaded  # argparse's grammar: never built

        # The service named in a settings file: its first start validates the settings
        # (pydantic) and keeps them; every start after it reads them back, as plainly.
        config = tmp_path / "hook.yaml"
        config.write_text(f"server: {running.unix}\n")
        env["POLICY_CONFIG"] = str(config)
        first = subprocess.run(
            [str(Path(sys.executable).with_name("policy")), "hook", "claude"],
            input=orjson.dumps(pre_tool("rm -rf /")),
            capture_output=True,
            env=env,
            timeout=60,
        )
        assert orjson.loads(first.stdout)["hookSpecificOutput"]["permissionDecision"] == "deny"
        answer, loaded = _thin(pre_tool("rm -rf /", session="s2"), env=env)
        assert answer["hookSpecificOutput"]["permissionDecisionReason"] == "not the root"
        assert "_sha256" in loaded or "_sha2" in loaded  # the settings' key was taken
        assert sorted(m for m in loaded if not m.startswith("policy") and m not in ALLOWED) == []
    finally:
        stop(running)


def test_settings_not_validated_before_take_the_full_path(tmp_path: Path) -> None:
    """A settings file no start has validated (or a `POLICY_*` variable beside it) is read
    by pydantic, as always: the client forwards only once that has said where the
    service is, and a settings file that does not validate is a refusal naming why."""
    config = tmp_path / "hook.yaml"
    # (a socket path under a regular file: refused at once, not waited on for the
    # service's restart grace as a missing socket is)
    (tmp_path / "a-file").write_text("")
    config.write_text(f"server: unix:{tmp_path}/a-file/policy.sock\nserver_owner: 12345678\n")
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path))
    env["POLICY_CONFIG"] = str(config)
    env["POLICY_AUDIT_CAPTURE_ARGS"] = "false"  # a variable: never read back from a cache
    answer, loaded = _thin(pre_tool("ls"), env=env)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "not reachable" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert "pydantic" in loaded
    config.write_text("server: 12\nnot_a_setting: true\n")
    del env["POLICY_AUDIT_CAPTURE_ARGS"]
    answer, _ = _thin(pre_tool("ls"), env=env)
    reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "not_a_setting" in reason


def _answering(path: Path, body: bytes) -> threading.Thread:
    """A one-shot stand-in for `policy serve` on the Unix socket `path`: reads a request
    and sends `body` as a 200 answer (run as this test's user, the owner it must be)."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)

    def serve() -> None:
        with listener, listener.accept()[0] as connection:
            request = b""
            while b"\r\n\r\n" not in request:
                request += connection.recv(65536)
            head = f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            connection.sendall(head + body)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize(
    "body",
    [b'{"answer": {"hookSpecificOutput": {"x": NaN}}}', b'{"answer": {"x": 1e400}}'],
)
def test_an_answer_that_cannot_be_printed_as_json_is_a_refusal(tmp_path: Path, body: bytes) -> None:
    """JSON has no NaN or Infinity: printed as they came, the host would read no
    answer at all, which it takes as no objection."""
    server = _answering(tmp_path / "s.sock", body)
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path))
    answer, _ = _thin(pre_tool("rm -rf /"), "--server", f"unix:{tmp_path / 's.sock'}", env=env)
    server.join(30)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "not JSON compliant" in answer["hookSpecificOutput"]["permissionDecisionReason"]


def test_settings_that_do_not_load_are_a_refusal_with_server_given_too(tmp_path: Path) -> None:
    """`--server` names the service; the settings may still name whom it must run as
    (`server_owner`). Settings that do not load are refused, naming why — never set
    aside for a client that would trust a service of its own user instead."""
    server = _answering(tmp_path / "s.sock", b'{"answer": {"decision": "allow"}}')
    config = tmp_path / "hook.yaml"
    config.write_text("server_owner: policy-service\nserver_ownr: typo\n")
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path))
    options = ("--config", str(config), "--server", f"unix:{tmp_path / 's.sock'}")
    answer, _ = _thin(pre_tool("rm -rf /"), *options, env=env)
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "server_ownr" in answer["hookSpecificOutput"]["permissionDecisionReason"]
    server.join(0.1)
    assert server.is_alive()  # nobody asked it


@pytest.mark.parametrize("served", [False, True])
def test_a_hook_started_without_stderr_still_exits_0_with_its_answer(
    tmp_path: Path, served: bool
) -> None:
    """A host that starts the hook with descriptor 2 closed: Python has no sys.stderr,
    and the exit that flushed it raised — exit 1 (an answer the host ignores) in
    process, a client waiting forever via the service."""
    options = ["--packs", str(ROOT / "rules")]
    if served:
        _answering(tmp_path / "s.sock", b'{"answer": {"decision": "block", "reason": "no"}}')
        options = ["--server", f"unix:{tmp_path / 's.sock'}"]
    done = subprocess.run(
        [str(Path(sys.executable).with_name("policy")), "hook", "claude", *options],
        input=orjson.dumps(pre_tool("rm -rf /")),
        stdout=subprocess.PIPE,
        env=clean_env(XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path)),
        preexec_fn=lambda: os.close(2),
        timeout=60,
    )
    assert done.returncode == 0
    answer = orjson.loads(done.stdout)
    assert answer.get("decision") == "block" or (
        answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    )


@pytest.mark.parametrize("server", [(), ("--server", "unix:/nowhere/policy.sock")])
def test_a_settings_file_that_is_no_regular_file_is_refused_not_waited_on(
    tmp_path: Path, server: tuple[str, ...]
) -> None:
    """A FIFO (or a device) where the settings file should be: reading it would block
    the hook before its watchdog runs, and a host takes silence as no objection. It is
    refused at once, naming why, in process and on the way to the service alike."""
    fifo = tmp_path / "hook.yaml"
    os.mkfifo(fifo)
    assert _fast_settings.settings_key(str(fifo)) is None
    env = clean_env(XDG_DATA_HOME=str(tmp_path / "data"), HOME=str(tmp_path))
    for config in (fifo, Path("/dev/zero")):
        answer, _ = _thin(pre_tool("ls"), "--config", str(config), *server, env=env)
        reason = answer["hookSpecificOutput"]["permissionDecisionReason"]
        assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
        assert f"{config}: cannot read settings file: not a regular file" in reason


# ------------------------------------------------------------------ the command line


@pytest.mark.parametrize(
    "argv",
    [
        ["claude"],
        ["agentao", "--server", "unix:/run/p.sock"],
        ["picoclaw", "--packs", "rules", "--deadline", "5"],
        ["openclaw", "--server=unix:/x"],
        ["claude", "--config", "c.yaml", "--packs", "a", "--packs=b", "--approval", "wait"],
        ["claude", "--deadline", "7.5", "--deadline=8", "--server=unix:/x", "--config="],
        ["claude", "--deadline", " 1e1 ", "--approval=defer", "--config", "--odd"],
        ["claude", "--deadline=-3"],
    ],
)
def test_a_plain_hook_command_line_reads_as_argparse_reads_it(argv: list[str]) -> None:
    plain = hook_command(argv)
    if argv[-1] == "--odd":  # a value that looks like an option: argparse decides
        assert plain is None
        return
    full = parser("hook").parse_args(["hook", *argv])
    assert plain is not None
    for name in ("host", "config", "packs", "approval", "deadline", "server"):
        assert getattr(plain, name) == getattr(full, name), name


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["cursor", "--server", "unix:/x"],  # not a host argparse knows: its error
        ["claude", "--help"],
        ["claude", "--serv", "unix:/x"],  # a prefix argparse would take
        ["claude", "--server"],  # no value
        ["claude", "--approval", "maybe"],
        ["claude", "--deadline", "soon"],
        ["claude", "extra"],
        ["--server", "unix:/x", "claude"],
        ["claude", "--", "--server", "unix:/x"],
    ],
)
def test_anything_else_is_left_to_argparse(argv: list[str]) -> None:
    assert hook_command(argv) is None


def test_the_option_table_is_the_parsers() -> None:
    """HOOK_OPTIONS names every option `policy hook` has, with the kind of its value."""
    hook = parser("hook")._subparsers._group_actions[0].choices["hook"]  # type: ignore[union-attr]
    options = {a.option_strings[-1]: a for a in hook._actions if a.option_strings}
    del options["--help"]
    assert set(options) == set(HOOK_OPTIONS)
    for name, kind in HOOK_OPTIONS.items():
        action = options[name]
        if isinstance(kind, tuple):
            assert tuple(action.choices) == kind
        elif kind == "texts":
            assert action.default == [] and type(action).__name__ == "_AppendAction"
        elif kind == "seconds":
            assert action.type is float
        else:
            assert action.type is None and action.choices is None


# ------------------------------------------------------------------ what stands in


JSON_VALUES = [
    {"a": [1, 2.5, None, True, False, "x\u00e9\U0001f600"], "b": {"c": -0.0, "d": 1e300}},
    {"big": 12345678901234567890123, "nested": [[[]], {}], "": ""},
    {1: 2, None: 3, False: 4, 2.5: 5},
    "text",
    7,
    float("inf"),
    "\udc80",
]


@pytest.mark.parametrize("value", JSON_VALUES, ids=repr)
def test_plain_json_writes_and_reads_as_json_does(value: Any) -> None:
    try:
        expected = json.dumps(value, separators=(",", ":"), allow_nan=False)
    except ValueError:
        with pytest.raises(ValueError, match="not JSON compliant"):
            _plain_json.dumps(value)
        return
    assert _plain_json.dumps(value) == expected
    text = json.dumps(value)
    assert repr(_plain_json.loads(text)) == repr(json.loads(text))
    assert repr(_plain_json.loads(text.encode())) == repr(json.loads(text.encode()))


@pytest.mark.parametrize(
    "data",
    [b"", b" ", b"{", b"[1,]", b"1 2", b"\xef\xbb\xbf{}", "\ufeff{}", b"\xff", b"NaN",
     b'{"a":1}  \n', b" \t[1]\r\n", "1\u00a0", b'"\\ud800"', '{"a": "\x00"}',
     '{"a":1}'.encode("utf-16")],
    ids=repr,
)  # fmt: skip
def test_plain_json_refuses_and_accepts_what_json_does(data: bytes | str) -> None:
    def outcome(loads: Any) -> tuple[str, str]:
        try:
            return "value", repr(loads(data))
        except Exception as exc:  # the outcome is what is compared
            return type(exc).__name__, str(exc)

    assert outcome(_plain_json.loads) == outcome(json.loads)


def test_plain_json_refuses_what_json_cannot_write() -> None:
    circular: list[Any] = []
    circular.append(circular)
    for value in (object(), {"a": {1, 2}}, {(1, 2): 3}, circular):
        with pytest.raises((TypeError, ValueError)) as ours:
            _plain_json.dumps(value)
        with pytest.raises((TypeError, ValueError)) as stdlib:
            json.dumps(value)
        assert (type(ours.value), str(ours.value)) == (type(stdlib.value), str(stdlib.value))
    # A refusal leaves nothing behind: the next value is written as it should be.
    assert _plain_json.dumps([circular[:0]]) == "[[]]"


@pytest.mark.parametrize("data", [b"", b"abc", bytes(range(256)) * 300])
def test_the_built_in_sha256_gives_hashlibs_digests(
    data: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "hashlib")  # as in a process that never loaded it ...
    monkeypatch.setattr(_one_event, "active", True)  # ... deciding one event
    built_in = _hashes.sha256(data)
    assert "hashlib" not in sys.modules
    assert built_in.hexdigest() == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("text", ["auto", "1.500", "", "/srv/my app/é", "a&b=c?d#e+f%", "~_.-"])
def test_query_and_header_values_are_escaped_as_urllib_escapes_them(text: str) -> None:
    assert _quote(text) == urllib.parse.quote(text, safe="/")
    parsed = urllib.parse.parse_qs(query({"approval": text, "budget": "2.5"}))
    assert parsed == urllib.parse.parse_qs(urllib.parse.urlencode({"approval": text, "budget": "2.5"}))


# ------------------------------------------------------------------ the watchdog


def test_the_watchdog_fires_each_watch_at_its_deadline_in_order() -> None:
    fired: list[str] = []
    done = threading.Event()
    dog = Watchdog()
    now = time.monotonic()
    dog.watch(now + 0.2, lambda: (fired.append("last"), done.set()))
    dog.watch(now + 0.1, lambda: fired.append("second"))
    skipped = dog.watch(now + 0.05, lambda: fired.append("cancelled"))
    skipped.cancel()
    # Added while the watchdog sleeps towards the others: it wakes for this one.
    dog.watch(now + 0.01, lambda: fired.append("first"))
    assert done.wait(30)
    assert fired == ["first", "second", "last"]
    assert time.monotonic() >= now + 0.2


def test_a_deadline_that_is_no_number_fires_at_once() -> None:
    """--deadline nan (argparse's float takes it): the refusal goes out at once, rather
    than the watchdog's thread dying on a wait it cannot do."""
    done = threading.Event()
    Watchdog().watch(time.monotonic() + float("nan"), done.set)
    assert done.wait(30)


def test_a_refusal_that_fails_does_not_stop_the_watchdog() -> None:
    """One deadline's callback raising (a refusal written to a stderr the host closed)
    is reported; the deadlines after it still fire."""
    done = threading.Event()
    dog = Watchdog()

    def broken() -> None:
        raise OSError("stderr is gone")

    dog.watch(time.monotonic(), broken)
    dog.watch(time.monotonic() + 0.05, done.set)
    assert done.wait(30)


def test_a_deadline_that_is_no_number_leaves_the_others_in_order() -> None:
    fired: list[int] = []
    done = threading.Event()
    dog = Watchdog()
    now = time.monotonic()
    for index, deadline in enumerate([now + 0.15, now + float("nan"), now + 0.05, now + 0.1]):
        dog.watch(deadline, lambda index=index: fired.append(index))
    dog.watch(now + 0.2, done.set)
    assert done.wait(30)
    assert fired == [1, 2, 3, 0]


def test_a_deadline_past_what_a_lock_can_wait_is_still_watched() -> None:
    """--deadline 1e12: the wait is cut to what `_thread` can wait, not an error that
    would end the watchdog's thread (and every later watch with it)."""
    done = threading.Event()
    dog = Watchdog()
    dog.watch(time.monotonic() + 1e12, lambda: None)
    dog.watch(time.monotonic(), done.set)
    assert done.wait(30)


_SIGNALLED_INSIDE_THE_ANSWER = """
import os, signal, sys, threading
from policy.hosts._watchdog import on_signal

printing = threading.Lock()  # the one answer's lock, as Reply and the thin client hold it


def give_up(reason):
    with printing:
        sys.stdout.write("refused: " + reason + "\\n")
        sys.stdout.flush()


on_signal(give_up)
with printing:  # the host's SIGTERM arrives while the answer is being printed
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    sum(range(1000))  # (bytecodes, where the handler runs)
threading.Event().wait()  # the main thread goes on waiting; the giving up ends it
"""


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_while_the_answer_is_printed_still_ends_the_process(signame: str) -> None:
    """The handler used to give up on the main thread, between two of its bytecodes:
    inside the lock of the answer being printed it waited for itself, and the hook hung
    until the host killed it (and in an import's weakref callback what it raised was
    dropped, the stop with it). The giving up now runs on a thread of its own."""
    done = subprocess.run(
        [sys.executable, "-c", _SIGNALLED_INSIDE_THE_ANSWER, signame],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"refused: policy hook ended by {signame} (failed closed)\n"


_SIGNALLED_ON_ANOTHER_THREAD = """
import os, signal, sys, threading
from policy.hosts._watchdog import on_signal


def give_up(reason):
    sys.stdout.write("refused: " + reason + "\\n")
    sys.stdout.flush()


on_signal(give_up)
parked = threading.Event()
worker = threading.Thread(target=parked.wait, daemon=True)
worker.start()
# the kernel may hand a process's signal to any of its threads; this one goes to the
# worker while the main thread blocks reading a pipe nobody writes to
signal.pthread_kill(worker.ident, getattr(signal, sys.argv[1]))
sys.stdin.buffer.read()
"""


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP", "SIGINT"])
def test_a_signal_delivered_to_another_thread_still_ends_the_process(signame: str) -> None:
    """A Python handler runs only on the main thread, when it runs bytecode: a signal
    the kernel delivered to another thread, while the main thread was blocked reading
    its host's pipe (a PicoClaw hook between two lines), was acted on at the next
    line — or never, the process lingering with its approvals pending. The giving up
    now also learns of it through the interpreter's wakeup pipe."""
    reader, writer = os.pipe()  # the host's end, kept open and silent
    try:
        done = subprocess.run(
            [sys.executable, "-c", _SIGNALLED_ON_ANOTHER_THREAD, signame],
            stdin=reader,
            capture_output=True,
            text=True,
            env=clean_env(),
            timeout=60,
        )
    finally:
        os.close(reader)
        os.close(writer)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"refused: policy hook ended by {signame} (failed closed)\n"


_GIVING_UP_FAILS = """
import os, signal, threading
from policy.hosts._watchdog import on_signal


def give_up(reason):
    raise OSError("stdout is gone")


on_signal(give_up)
os.kill(os.getpid(), signal.SIGTERM)
threading.Event().wait()
"""


def test_a_signal_whose_refusal_cannot_be_written_ends_the_hook_with_status_2() -> None:
    """Exit 0 with nothing printed is no objection to Claude Code; a hook whose refusal
    failed on the way out exits 2, which it takes as a block."""
    done = subprocess.run(
        [sys.executable, "-c", _GIVING_UP_FAILS],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert "giving up on signal 15 failed: OSError: stdout is gone" in done.stderr


def test_the_console_script_is_the_entry_point() -> None:
    """`policy` (the console script pip writes) runs policy.cli.command, which is
    policy.cli.main, holding the hand-off to the thin client: no other entry point
    bypasses it."""
    text = (ROOT / "pyproject.toml").read_text()
    assert 'policy = "policy.cli:command"' in text
    assert (ROOT / "policy" / "__main__.py").read_text().count("raise SystemExit(command())") == 1
    assert "    return main()\n" in inspect.getsource(cli.command)
    assert os.access(Path(sys.executable).with_name("policy"), os.X_OK)
