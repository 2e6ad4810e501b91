"""What keeps `policy hook claude` cheap to start, and the same in what it answers.

The timing itself is measured by tests/bench/bench_cold_start.py, never here; these
tests hold the ingredients: the settings built without pydantic stand in for
`Settings` exactly, and a process answering from the caches imports none of the heavy
libraries.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import _fast_settings as fast
from policy._fast_settings import FastSettings, unconfigured
from policy._trusted_store import FileAccess
from policy.settings import Settings, load_settings

POLICY = str(Path(sys.executable).with_name("policy"))
RULES = Path(__file__).resolve().parent.parent / "rules"
PAYLOAD = {
    "session_id": "s1",
    "transcript_path": "/tmp/t.jsonl",
    "cwd": "/srv/app",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git status"},
    "tool_use_id": "toolu_01",
}
PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: small
variables:
  cmd: 'has(args.command) ? string(args.command) : ""'
rules:
  - {id: deny-rm, tools: [bash], when: 'vars.cmd.startsWith("rm ")', action: deny}
  - {id: allow-git, tools: [bash], when: 'vars.cmd.startsWith("git ")', action: allow}
"""
#: Libraries a decision from the pack cache must not load (DESIGN §9 import costs).
HEAVY = (
    "pydantic",
    "pydantic_settings",
    "yaml",
    "structlog",
    "asyncio",
    "tree_sitter",
    "limits",
    "celpy",
    "sqlite3",
    "policy.settings",
    "policy.packs.schema",
    "policy.analysis.shell",
    # nobody was asked, so closing has no approval stage to stop; no tool glob to match
    "policy.builtins.approval",
    "wcmatch",
    # a one-event hook never owes a batch of crossings (policy.packs.cel.crossing)
    "ctypes",
    # argparse's formatter and tree-sitter-bash's package would import it (and bz2,
    # lzma, tempfile): policy.cli.commands._Formatter, policy.analysis.shell.parse._bash_language
    "shutil",
    # a call that goes well logs nothing (policy._logger), and every hook runs inline, so
    # no worker pool (concurrent.futures, which imports logging) is started
    "logging",
    "concurrent.futures",
    # the same call asked again is answered from the answers its packs kept on disk:
    # CEL's environment, which imports protobuf, is never built (decision 0020)
    "google.protobuf",
)


def _same(plain: FastSettings, real: Settings) -> None:
    assert set(fast.FIELDS) == set(Settings.model_fields)
    for name in Settings.model_fields:
        if name == "hooks":
            assert (plain.hooks.enabled, dict(plain.hooks.processes)) == (
                real.hooks.enabled,
                dict(real.hooks.processes),
            )
            continue
        assert getattr(plain, name) == getattr(real, name), name
        assert type(getattr(plain, name)) is type(getattr(real, name)), name
    assert plain.approvals_store_uri == real.approvals_store_uri
    assert plain.audit_key_bytes == real.audit_key_bytes
    packs = [Path("a.yaml")]
    copied = plain.model_copy(update={"packs": packs})
    assert copied.packs == real.model_copy(update={"packs": packs}).packs
    assert copied.data_dir == real.data_dir and copied.aliases == real.aliases


def test_the_default_settings_are_settings_defaults() -> None:
    _same(FastSettings(), Settings())


def test_validated_settings_come_back_from_the_cache_as_they_were(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text(
        "packs: [rules, /etc/more]\ninterceptor_timeout_ms: 1000\naudit_path: logs/d.log\n"
        "aliases: {run_in_terminal: bash}\nfailure_policy: ignore\ncel_engine: cel-python\n"
        "hooks: {enabled: false}\napprovals_store: memory://\naudit_capture_args: true\n"
        f"observer_timeout_ms: 250\ndata_dir: {tmp_path / 'state'}\n"
        f"audit_capture_dir: {tmp_path / 'capture'}\naudit_capture_retention: 12h\n"
    )
    monkeypatch.setenv("POLICY_CONFIG", str(config))
    key = fast.settings_key(None)
    assert key is not None and fast.cached(key) is None
    real = load_settings()
    fast.remember(None, key, real)
    again = fast.cached(fast.settings_key(None))
    assert again is not None
    _same(again, real)
    assert again.observer_timeout_ms == 250 and again.audit_capture_args is True
    assert again.audit_capture_dir == tmp_path / "capture"
    assert again.audit_capture_retention == 12 * 3600.0
    # Another value of any input is another entry.
    with monkeypatch.context() as elsewhere:
        elsewhere.setenv("HOME", str(tmp_path / "elsewhere"))
        assert fast.cached(fast.settings_key(None)) is None
    assert fast.cached(fast.settings_key(None)) is not None
    config.write_text(config.read_text().replace("1000", "1001"))
    assert fast.cached(fast.settings_key(None)) is None


def _settings_entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "xdg" / "hookpolicy" / "cache" / "settings").glob("*.entry"))


@pytest.mark.parametrize(
    "line",
    [
        "audit_key: hunter2",
        "approvals_store: 'redis://:hunter2@localhost:6379/0'",
        "limits_storage_uri: 'redis://user:hunter2@localhost:6379'",
    ],
)
def test_settings_with_a_secret_are_never_cached(line: str, tmp_path: Path) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text(line + "\n")
    key = fast.settings_key(config)
    assert key is not None
    fast.remember(config, key, load_settings(config))
    assert fast.cached(key) is None
    assert not any(b"hunter2" in p.read_bytes() for p in _settings_entries(tmp_path))


def test_settings_with_hooks_to_host_are_never_cached(tmp_path: Path) -> None:
    hooks = tmp_path / "hooks.json"
    hooks.write_text("{}")
    config = tmp_path / "policy.yaml"
    config.write_text(f"claude_hooks: [{hooks}]\n")
    key = fast.settings_key(config)
    assert key is not None
    fast.remember(config, key, load_settings(config))
    assert fast.cached(key) is None


def test_pack_cache_false_keeps_settings_out_of_the_cache_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text("pack_cache: false\n")
    key = fast.settings_key(config)
    fast.remember(config, key, load_settings(config))
    assert fast.cached(key) is None and not _settings_entries(tmp_path)
    # The variable is a POLICY_* setting: the settings cache is not even asked.
    config.write_text("hook_workers: 4\n")
    monkeypatch.setenv("POLICY_PACK_CACHE", "false")
    assert fast.settings_key(config) is None


class _Posing(FileAccess):
    """A user other than root (tests may run as root, to whom `os.access` says yes to
    everything) who may write only `writable`; the files themselves are real."""

    def __init__(self, *writable: Path) -> None:
        self.writable = set(writable)

    def euid(self) -> int:
        return 1000

    def may(self, path: Path, mode: int) -> bool:
        return not mode & os.W_OK or Path(path) in self.writable


def _forge(entry: Path, **fields: Any) -> None:
    """What an agent's bash can do to its own user's cache: rewrite an entry, checksum
    and all."""
    body = orjson.loads(entry.read_bytes().partition(b"\n")[2])
    body["fields"].update(fields)
    raw = orjson.dumps(body)
    entry.write_bytes(hashlib.sha256(raw).hexdigest().encode() + b"\n" + raw)


def test_a_forged_entry_is_ignored_for_a_settings_file_the_user_cannot_change(
    tmp_path: Path,
) -> None:
    pack = tmp_path / "small.yaml"
    pack.write_text(PACK)
    config = tmp_path / "etc" / "policy.yaml"
    config.parent.mkdir()
    config.write_text(f"packs: [{pack}]\n")
    # The entry an agent could make: taken while the file was still the user's ...
    owner = _Posing(config)
    key = fast.settings_key(config, owner)
    assert key is not None
    fast.remember(config, key, load_settings(config), owner)
    (entry,) = _settings_entries(tmp_path)
    _forge(entry, packs=[])
    forged = fast.cached(fast.settings_key(config, owner))
    assert forged is not None and forged.packs == []  # (this user could write packs: [] anyway)
    # ... and the same file and entry once the user can change neither it nor its directory.
    stranger = _Posing(tmp_path)
    assert fast.cacheable_file(config, stranger) is None
    assert fast.settings_key(config, stranger) is None
    assert fast.cached(fast.settings_key(config, stranger)) is None
    fast.remember(config, fast.settings_key(config, stranger), load_settings(config), stranger)
    assert _settings_entries(tmp_path) == [entry]  # nothing written either
    # A directory the user may write is not enough (the file may be a read-only mount).
    assert fast.cacheable_file(config, _Posing(config.parent)) is None


@pytest.mark.skipif(
    os.geteuid() == 0,
    reason="root may write every file whatever its mode, so chmod cannot take a settings file "
    "from it; test_a_forged_entry_is_ignored_for_a_settings_file_the_user_cannot_change covers "
    "this for root",
)
def test_a_read_only_settings_file_is_validated_even_with_a_forged_entry(tmp_path: Path) -> None:
    etc = tmp_path / "etc"
    etc.mkdir()
    config = etc / "policy.yaml"
    config.write_text("packs: [/srv/rules]\n")
    key = fast.settings_key(config)
    fast.remember(config, key, load_settings(config))
    (entry,) = _settings_entries(tmp_path)
    _forge(entry, packs=[])
    config.chmod(0o444)
    etc.chmod(0o555)
    try:
        assert fast.settings_key(config) is None
        assert fast.cached(fast.settings_key(config)) is None
    finally:
        etc.chmod(0o755)
        config.chmod(0o644)


@pytest.mark.parametrize(
    "env",
    [
        {"POLICY_AUDIT_PATH": "/tmp/d.log"},
        {"POLICY_PACK_CACHE": "false"},
        {"policy_hook_workers": "4"},
        {"POLICY_CONFIG": "", "POLICY_HOOK_WORKERS": "4"},
    ],
)
def test_settings_from_variables_never_come_from_the_cache(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text("hook_workers: 4\n")
    key = fast.settings_key(config)
    assert key is not None
    fast.remember(config, key, load_settings(config))
    assert fast.cached(key) is not None
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # Variables override the file, and who set them cannot be told: not the file's
    # entry, not any entry — and the file alone is no help either.
    assert fast.cacheable_file(None) is None
    assert fast.settings_key(None) is None
    assert fast.settings_key(config) is None
    before = _settings_entries(tmp_path)
    fast.remember(None, fast.settings_key(None), load_settings())
    assert _settings_entries(tmp_path) == before


def test_a_file_edited_while_validating_is_not_kept(tmp_path: Path) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text("hook_workers: 4\n")
    key = fast.settings_key(config)
    real = load_settings(config)
    config.write_text("hook_workers: 5\n")
    fast.remember(config, key, real)
    assert fast.cached(key) is None
    assert fast.cached(fast.settings_key(config)) is None


def test_anything_configured_goes_through_settings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert isinstance(unconfigured(None), FastSettings)
    assert unconfigured(tmp_path / "policy.yaml") is None
    for name in ("POLICY_CONFIG", "POLICY_AUDIT_PATH", "policy_packs", "POLICY_NO_SUCH_THING"):
        monkeypatch.setenv(name, "")
        assert unconfigured(None) is None, name
        monkeypatch.delenv(name)


def _hook(
    payload: Any, *options: str, env: dict[str, str] | None = None, importtime: bool = False
) -> tuple[bytes, set[str], subprocess.CompletedProcess[bytes]]:
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    clean.pop("PYTHONDONTWRITEBYTECODE", None)
    clean.update(env or {})
    argv = [POLICY, "hook", "claude", *options]
    if importtime:
        argv = [sys.executable, "-X", "importtime", *argv]
    done = subprocess.run(
        argv, input=orjson.dumps(payload), capture_output=True, env=clean, timeout=60
    )
    assert done.returncode == 0, done.stderr
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return done.stdout, modules, done


def test_an_answer_from_the_cache_loads_no_heavy_library(tmp_path: Path) -> None:
    pack = tmp_path / "small.yaml"
    pack.write_text(PACK)
    cold, cold_modules, _ = _hook(PAYLOAD, "--packs", str(pack), importtime=True)
    warm, warm_modules, _ = _hook(PAYLOAD, "--packs", str(pack), importtime=True)
    assert orjson.loads(warm) == orjson.loads(cold)
    assert orjson.loads(warm)["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert "policy.packs.runtime" in warm_modules  # the measurement saw the hook's imports
    assert sorted(m for m in HEAVY if m in warm_modules) == []
    assert "policy.packs.compile" not in warm_modules  # packs come back from the cache
    # Compiling (the first start) needs YAML and pydantic, still not the rest.
    assert "yaml" in cold_modules and "pydantic" in cold_modules
    assert (
        sorted(m for m in ("structlog", "asyncio", "pydantic_settings") if m in cold_modules) == []
    )


def test_a_call_seen_before_is_answered_without_building_cel(tmp_path: Path) -> None:
    """A one-event hook keeps its packs' answers for the next process (decision 0020):
    the same call asked again is decided alike without compiling anything (protobuf is
    what the packs' compilation imports) — and a call not seen yet, decided by a program
    built then, builds it natively, without protobuf either (decision 0021). The
    native programs' own modules are loaded only by the call that builds one."""
    pack = tmp_path / "small.yaml"
    pack.write_text(PACK)
    first, first_modules, _ = _hook(PAYLOAD, "--packs", str(pack), importtime=True)
    again, again_modules, _ = _hook(PAYLOAD, "--packs", str(pack), importtime=True)
    assert orjson.loads(again) == orjson.loads(first)
    assert "google.protobuf" in first_modules
    assert "policy.packs.runtime" in again_modules
    assert "google.protobuf" not in again_modules
    assert "policy.packs.cel.native.program" not in again_modules
    other = {**PAYLOAD, "tool_input": {"command": "rm -rf build"}}
    denied, other_modules, _ = _hook(other, "--packs", str(pack), importtime=True)
    assert orjson.loads(denied)["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "google.protobuf" not in other_modules
    assert "policy.packs.cel.native.program" in other_modules


#: Rules that read the clock: one true in any year this test runs, one never true.
CLOCK_PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: clock
rules:
  - {id: past-2000, tools: [bash], when: 'now > timestamp("2000-01-01T00:00:00Z")', action: ask}
  - {id: before-2000, tools: [bash], when: 'now.getFullYear() < 2000', action: deny}
"""


def test_a_rule_reading_the_clock_decides_alike_from_programs_read_back(tmp_path: Path) -> None:
    """The first start compiles the pack's program and keeps it; every later one reads
    it back. cel-expr-python takes a `datetime` in an environment that has compiled
    something, not in one that only read programs back: `now` was refused there and
    every call was denied for a failed condition from the second start on."""
    pack = tmp_path / "clock.yaml"
    pack.write_text(CLOCK_PACK)
    for command in ("git status", "ls -la", "pwd"):  # (each new: no kept answer decides it)
        payload = {**PAYLOAD, "tool_input": {"command": command}}
        answer, _, done = _hook(payload, "--packs", str(pack))
        output = orjson.loads(answer)["hookSpecificOutput"]
        assert output["permissionDecision"] == "ask", (command, output, done.stderr)
        assert "clock/past-2000" in output["permissionDecisionReason"]


def test_a_tool_call_loads_nothing_only_other_points_or_the_verifier_use(tmp_path: Path) -> None:
    """What a one-event hook never uses for a tool call is not loaded at its start: the
    other points' values (policy.model.payloads), the log's proofs (policy.audit_verify),
    the wire codec — each frozen dataclass is ≈ 0.6 ms of every start — and, when the
    native engine decides, cel-expr-python's wrapper (policy.packs.cel.expr)."""
    _hook(PAYLOAD, "--packs", str(RULES))  # (the packs compiled and cached, if not yet)
    # (in a new directory: a call no earlier process answered)
    payload = {**PAYLOAD, "cwd": str(tmp_path), "tool_input": {"command": "ls -la notes"}}
    answer, modules, _ = _hook(payload, "--packs", str(RULES), importtime=True)
    assert orjson.loads(answer)["hookSpecificOutput"]["permissionDecision"] == "allow"
    assert "policy.packs.runtime" in modules  # the measurement saw the hook's imports
    unused = ("policy.model.payloads", "policy.audit_verify", "policy.codec", "policy.packs.cel.expr")
    assert sorted(m for m in unused if m in modules) == []
    # ... nor the libraries only other paths need (decision 0029): orjson (its bytes are
    # written by policy._json_bytes), `dataclasses`, which brings `inspect`, `ast`,
    # `dis` and `tokenize` (hookpolicy's dataclasses are made without it), and
    # OpenSSL's digests (the interpreter's own give the same, policy._hashes), nor
    # `datetime` (a record's stamp is written from `time`) or shlex; nor what only a
    # request to the service (`_socket`, `struct`), an event for observers (`queue`),
    # a hex or base64 decoder on the line (`binascii`) or a host name outside ASCII
    # (`unicodedata`) uses
    libraries = (
        *("orjson", "dataclasses", "inspect", "ast", "uuid", "json", "hashlib", "hmac"),
        *("datetime", "shlex", "_socket", "struct", "queue", "binascii", "unicodedata"),
    )
    assert sorted(m for m in libraries if m in modules) == []


#: Runs `policy hook claude` as its console script does and tells, on stderr, how many
#: collections the garbage collector ran from `main` to the process's end (not those of
#: the interpreter's start: a virtualenv's `site` may import much before `main`).
_COUNTING = """\
import gc, os, sys
def _count():
    return sum(s["collections"] for s in gc.get_stats())
def _told(code, _exit=os._exit):
    sys.stderr.write("COLLECTIONS %d\\n" % (_count() - _before))
    _exit(code)
os._exit = _told
from policy.cli import main
_before = _count()
sys.argv = ["policy", *sys.argv[1:]]
sys.exit(main())
"""


def _run_as_hook(script: str, payload: Any, *argv: str) -> subprocess.CompletedProcess[bytes]:
    """`script` (which runs `policy` on its argv, instrumented) given `payload` on stdin,
    with no `POLICY_*` variable in its environment."""
    clean = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    return subprocess.run(
        [sys.executable, "-c", script, *argv],
        input=orjson.dumps(payload),
        capture_output=True,
        env=clean,
        timeout=60,
    )


def test_a_one_event_hook_does_not_spend_its_start_collecting_garbage(tmp_path: Path) -> None:
    """At the interpreter's default threshold a tool call's process ran ≈ 44 collections
    that freed ≈ 550 objects, ≈ 5 ms of every tool call; a process declared one-event
    (policy._one_event) collects every 100,000 net allocations instead."""
    _hook(PAYLOAD, "--packs", str(RULES))  # (the packs compiled and cached, if not yet)
    payload = {**PAYLOAD, "cwd": str(tmp_path), "tool_input": {"command": "ls -la notes"}}
    done = _run_as_hook(_COUNTING, payload, "hook", "claude", "--packs", str(RULES))
    assert orjson.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
    counted = [line for line in done.stderr.decode().splitlines() if line.startswith("COLLECTIONS")]
    assert counted and int(counted[-1].split()[1]) <= 3, done.stderr


#: Runs `policy hook claude` as its console script does and tells, on stderr, the
#: regular expressions hookpolicy's own code compiled from `main` on (not those a
#: library compiles for itself: pathlib's glob, urllib's tables).
_COMPILING = """\
import os, sys, traceback
from re import _compiler
_compile, _ours = _compiler.compile, []
def _counted(pattern, flags=0):
    frames = [f.filename for f in traceback.extract_stack()[:-1]]
    caller = next(name for name in reversed(frames) if "/re/" not in name)
    if "/policy/" in caller:
        _ours.append(pattern)
    return _compile(pattern, flags)
_compiler.compile = _counted
def _told(code, _exit=os._exit):
    sys.stderr.write("COMPILED %r\\n" % (_ours,))
    _exit(code)
os._exit = _told
from policy.cli import main
sys.argv = ["policy", *sys.argv[1:]]
sys.exit(main())
"""


def test_a_call_answered_from_kept_answers_compiles_no_pattern_of_its_own(tmp_path: Path) -> None:
    """A repeated tool call is answered from the answers its packs kept, after the line
    is analysed: that analysis asks every command's name, options and words whether
    they are an interpreter, a loader, a command-running option, a remote package, an
    assignment, a glob — each behind a check that needs no pattern compiled when it
    cannot match (0.1 to 0.3 ms a pattern, ≈ 2 ms a start). The log's last hash is read
    by slicing, and an argument's name (`command`) is told apart from a secret's
    without its pattern."""
    payload = {**PAYLOAD, "cwd": str(tmp_path), "tool_input": {"command": "ls -la notes"}}
    log = tmp_path / "decisions.jsonl"
    settings = tmp_path / "settings.yaml"
    settings.write_text(f"audit_path: {log}\n")
    argv = ["hook", "claude", "--packs", str(RULES), "--config", str(settings)]
    for _ in range(3):  # (compiled, read back, then from the answers kept)
        done = _run_as_hook(_COMPILING, payload, *argv)
        assert orjson.loads(done.stdout)["hookSpecificOutput"]["permissionDecision"] == "allow"
    told = [line for line in done.stderr.decode().splitlines() if line.startswith("COMPILED")]
    assert told == ["COMPILED []"], done.stderr
    from policy.audit_verify import verify_file

    report = verify_file(log)  # (each process chained to the hash it read by slicing)
    assert report.ok and report.lines >= 3, report


def test_the_shipped_rules_answer_alike_from_their_kept_answers() -> None:
    """Calls the shipped packs deny and allow, each asked three times (compiled, from
    the pack cache, from the answers the first two kept): one answer."""
    payloads = [
        {**PAYLOAD, "tool_input": {"command": command}}
        for command in ("cat ~/.ssh/id_rsa", "ls -la")
    ]
    for payload in payloads:
        answers = [_hook(payload, "--packs", str(RULES))[0] for _ in range(3)]
        assert answers[0] == answers[1] == answers[2], payload


def test_configured_settings_give_the_same_answers_and_the_same_errors(tmp_path: Path) -> None:
    pack = tmp_path / "small.yaml"
    pack.write_text(PACK)
    config = tmp_path / "policy.yaml"
    config.write_text(f"packs: [{pack}]\naudit_path: {tmp_path / 'decisions.log'}\n")
    plain, _, _ = _hook(PAYLOAD, "--packs", str(pack))
    env = {"POLICY_CONFIG": str(config)}
    first, first_modules, _ = _hook(PAYLOAD, env=env, importtime=True)
    again, again_modules, _ = _hook(PAYLOAD, env=env, importtime=True)
    assert "pydantic_settings" in first_modules  # validated once ...
    assert sorted(m for m in HEAVY if m in again_modules) == []  # ... then read back
    assert orjson.loads(first) == orjson.loads(again) == orjson.loads(plain)
    # A POLICY_* variable besides the file: validated at every start, never kept.
    env["POLICY_OBSERVER_TIMEOUT_MS"] = "500"
    for _ in range(2):
        shaped, shaped_modules, _ = _hook(PAYLOAD, env=env, importtime=True)
        assert "pydantic_settings" in shaped_modules
        assert orjson.loads(shaped) == orjson.loads(plain)
    assert len((tmp_path / "decisions.log").read_text().splitlines()) == 4
    for _ in range(2):  # an error is never cached: the same message every time
        refused, _, _ = _hook(
            PAYLOAD, "--packs", str(pack), env={"POLICY_INTERCEPTOR_TIMEOUT_MS": "0"}
        )
        reason = orjson.loads(refused)["hookSpecificOutput"]["permissionDecisionReason"]
        assert reason.startswith("policy hook failed closed: SettingsError: invalid settings:")
        assert (
            "interceptor_timeout_ms (from environment POLICY_INTERCEPTOR_TIMEOUT_MS): "
            "Input should be greater than 0" in reason
        )


@pytest.mark.slow
def test_the_shipped_rules_answer_alike_cold_and_warm() -> None:
    payloads = [
        PAYLOAD,
        {**PAYLOAD, "tool_input": {"command": "rm -rf /"}},
        {**PAYLOAD, "tool_input": {"command": "echo $(whoami)"}},
        {**PAYLOAD, "tool_name": "WebFetch", "tool_input": {"url": "https://example.com"}},
    ]
    for payload in payloads:
        cold, _, _ = _hook(payload, "--packs", str(RULES))
        warm, _, done = _hook(payload, "--packs", str(RULES))
        assert warm == cold, payload
        assert b'"event":"decision"' in done.stderr  # the decision was logged


@pytest.mark.slow  # it waits out the client's restart grace (3 s)
def test_a_hook_that_asks_the_service_imports_no_engine_and_no_library(tmp_path: Path) -> None:
    """With a service configured the hook forwards the payload: the standard library,
    the transport and the wire vocabulary, nothing that decides (and it refuses, naming
    why, when the service is not there)."""
    gone = f"unix:{tmp_path / 'none.sock'}"
    out, modules, _ = _hook(PAYLOAD, "--server", gone, importtime=True)
    answer = orjson.loads(out)["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "policy serve is not reachable" in answer["permissionDecisionReason"]
    assert "policy.client.transport" in modules  # the measurement saw the hook's imports
    loaded = [
        m
        for m in (*HEAVY, "orjson", "policy.engine", "policy.model", "fastapi", "http.client")
        if m in modules
    ]
    assert loaded == []


def test_a_thin_client_loads_neither_orjson_nor_the_settings_models(tmp_path: Path) -> None:
    """The thin client of `policy serve`, started as examples/claude-code mounts it (its
    settings in a file), sends the event and prints the answer with the standard
    library: its settings are read back from what an earlier start validated, without
    pydantic, and without orjson, whose import (dataclasses, inspect, uuid, datetime)
    would be ≈ a tenth of its start. (No service listens here: it refuses, as it must
    whenever the service cannot be asked.)"""
    config = tmp_path / "policy.yaml"
    config.write_text(f"audit_path: {tmp_path / 'decisions.log'}\n")
    env = {"POLICY_CONFIG": str(config)}
    # (a socket path under a regular file: refused at once, where a missing socket is
    # waited on for the service's restart grace, 3 s a start)
    (tmp_path / "a-file").write_text("")
    server = ("--server", f"unix:{tmp_path / 'a-file' / 'policy.sock'}")
    _hook(PAYLOAD, *server, env=env)  # (the settings validated once, and kept)
    answer, modules, _ = _hook(PAYLOAD, *server, env=env, importtime=True)
    output = orjson.loads(answer)["hookSpecificOutput"]
    assert output["permissionDecision"] == "deny"
    assert "not reachable" in output["permissionDecisionReason"]
    assert "policy.hosts.claude.thin" in modules  # the measurement saw the client's imports
    heavy = ("orjson", "dataclasses", "pydantic", "pydantic_settings", "policy.engine")
    assert sorted(m for m in heavy if m in modules) == []
