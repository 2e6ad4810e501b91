"""State shared by hook processes (DESIGN §8, issue Q item 6): rate-limit counters and
contract usage in one SQLite file under the data dir, so that `policy hook claude`,
started once per event, keeps a budget; `memory://` refused where it would reset.

Windows that must expire do so on an injected clock, never by sleeping.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from limits import parse, strategies
from limits.storage import MemoryStorage, storage_from_string

from policy import Action, Engine, ToolCall
from policy._fast_settings import FastSettings
from policy.builtins.contract_sessions import ContractRegistry
from policy.errors import SettingsError
from policy.settings import Settings
from policy.state import MemoryStateError, StateError, check_per_event, contract_usage
from policy.state.db import SQLiteState, shared_state
from policy.state.sqlite_limits import SQLiteStorage

POLICY = str(Path(sys.executable).with_name("policy"))
STRATEGIES = ["fixed-window", "moving-window", "sliding-window-counter"]
HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\nname: {name}\n"

RATE_PACK = HEADER.format(name="gate") + textwrap.dedent(
    """\
    builtins:
      tool_policy:
        applies_to: [web_fetch]
        rate_limits: [{tools: [web_fetch], limit: "10/minute"}]
    """
)
CONTRACT_PACK = HEADER.format(name="scope") + textwrap.dedent(
    """\
    builtins:
      contract_scope:
        contracts:
          - {id: two-calls, sessions: ["s-*"], tools: ["*"], max_tool_calls: 2}
    """
)


# ------------------------------------------------------------------ a clock


class FakeTime:
    """`time.time()` for limits' memory storage and strategies, and our storage's clock."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def time(self) -> float:
        return self.now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeTime:
    fake = FakeTime()
    module = types.SimpleNamespace(time=fake.time)
    import limits.storage.memory
    import limits.strategies

    monkeypatch.setattr(limits.storage.memory, "time", module)
    monkeypatch.setattr(limits.strategies, "time", module)
    return fake


Storages = Callable[[str], Any]


@pytest.fixture
def storages(tmp_path: Path, clock: FakeTime) -> Iterator[Storages]:
    made: list[Any] = []

    def make(kind: str) -> Any:
        if kind == "memory":
            storage: Any = MemoryStorage()
        else:
            storage = SQLiteStorage(f"sqlite:///{tmp_path / f'state{len(made)}.db'}", clock=clock)
        made.append(storage)
        return storage

    yield make
    for storage in made:
        if isinstance(storage, MemoryStorage):
            storage.timer.cancel()
        else:
            storage.state.close()


# ------------------------------------------------------------------ the storage


def _script(limiter: Any, clock: FakeTime) -> list[Any]:
    """One run through every operation the strategies use, with the clock moving;
    what each returned (times relative to the start)."""
    start = clock.now
    item, other = parse("3/minute"), parse("2/second")
    seen: list[Any] = []

    def stats(limit: Any, *keys: str) -> tuple[float | None, int]:
        # An empty moving window: limits' MemoryStorage gives the reset time of an
        # entry already out of the window (or of none, once its timer thread has swept
        # them); ours says "now", as limits' Redis storage does. Compared elsewhere.
        reset, remaining = limiter.get_window_stats(limit, *keys)
        return (round(reset - start, 6) if remaining < limit.amount else None), remaining

    for step in range(5):
        seen.append(("test", step, limiter.test(item, "alice", "web_fetch")))
        seen.append(("hit", step, limiter.hit(item, "alice", "web_fetch")))
        seen.append(("stats", step, stats(item, "alice", "web_fetch")))
        clock.now += 5
    seen.append(("bob", limiter.hit(item, "bob", "web_fetch")))  # another key, own budget
    seen.append(("cost", limiter.hit(other, "carol", cost=3)))  # more than the limit at once
    seen.append(("cost2", limiter.hit(other, "carol", cost=2), limiter.hit(other, "carol")))
    clock.now += 1.5
    seen.append(("next second", limiter.hit(other, "carol"), stats(other, "carol")))
    clock.now += 61  # past every window (and into the next for the sliding counter)
    seen.append(
        ("expired", limiter.test(item, "alice", "web_fetch"), stats(item, "alice", "web_fetch"))
    )
    seen.append(("again", [limiter.hit(item, "alice", "web_fetch") for _ in range(4)]))
    clock.now += 30  # halfway through the next minute: the sliding counter weighs the last
    seen.append(
        ("half", limiter.hit(item, "alice", "web_fetch"), stats(item, "alice", "web_fetch"))
    )
    limiter.clear(item, "alice", "web_fetch")
    seen.append(
        ("cleared", limiter.test(item, "alice", "web_fetch"), stats(item, "alice", "web_fetch"))
    )
    seen.append(("after clear", limiter.hit(item, "alice", "web_fetch")))
    limiter.storage.reset()
    seen.append(("after reset", [limiter.hit(item, "bob", "web_fetch") for _ in range(4)]))
    return seen


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_the_sqlite_storage_answers_as_limits_memory_storage_does(
    storages: Storages, clock: FakeTime, strategy: str
) -> None:
    runs = {}
    for kind in ("memory", "sqlite"):
        clock.now = 1_700_000_000.0
        runs[kind] = _script(strategies.STRATEGIES[strategy](storages(kind)), clock)
    assert runs["sqlite"] == runs["memory"]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_three_a_minute_in_each_storage(
    storages: Storages, clock: FakeTime, kind: str, strategy: str
) -> None:
    limiter = strategies.STRATEGIES[strategy](storages(kind))
    item = parse("3/minute")
    assert [limiter.hit(item, "k") for _ in range(4)] == [True, True, True, False]
    assert not limiter.test(item, "k")
    reset, remaining = limiter.get_window_stats(item, "k")
    assert remaining == 0 and clock.now < reset <= clock.now + 60
    assert limiter.get_window_stats(item, "unused").remaining == 3
    if kind == "sqlite":  # an empty moving window starts now (as in limits' Redis storage)
        assert limiter.storage.get_moving_window("unused", 3, 60) == (clock.now, 0)
    assert limiter.hit(item, "other key")
    clock.now += 121
    assert limiter.test(item, "k")
    assert limiter.get_window_stats(item, "k").remaining == 3
    assert limiter.hit(item, "k")
    assert limiter.storage.reset() is not None
    assert limiter.get_window_stats(item, "k").remaining == 3
    assert limiter.storage.check()


def test_limits_finds_the_storage_by_its_scheme(tmp_path: Path) -> None:
    storage = storage_from_string(f"sqlite:///{tmp_path / 'x.db'}")
    assert isinstance(storage, SQLiteStorage)
    assert storage.state is shared_state(tmp_path / "x.db")  # one connection per file
    with pytest.raises(StateError, match="use memory://"):
        SQLiteStorage("sqlite:///:memory:")


def test_two_storages_on_one_file_share_one_budget(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'state.db'}"
    first = strategies.MovingWindowRateLimiter(
        SQLiteStorage(uri, state=SQLiteState(tmp_path / "state.db"))
    )
    second = strategies.MovingWindowRateLimiter(
        SQLiteStorage(uri, state=SQLiteState(tmp_path / "state.db"))
    )
    item = parse("3/minute")
    assert [first.hit(item, "k"), second.hit(item, "k"), first.hit(item, "k")] == [True] * 3
    assert not second.hit(item, "k")


def test_expired_rows_are_swept(tmp_path: Path, clock: FakeTime) -> None:
    state = SQLiteState(tmp_path / "state.db")
    storage = SQLiteStorage(state=state, clock=clock)
    limiter = strategies.MovingWindowRateLimiter(storage)
    fixed = strategies.FixedWindowRateLimiter(storage)
    for n in range(50):
        limiter.hit(parse("100/minute"), f"k{n}")
        fixed.hit(parse("100/minute"), f"k{n}")
    clock.now += 3600
    limiter.hit(parse("100/minute"), "fresh")
    with state.read() as db:
        assert db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 1
        assert db.execute("SELECT COUNT(*) FROM counters").fetchone()[0] == 0


def test_the_file_is_0600_in_a_0700_directory(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        state = SQLiteState(tmp_path / "data" / "state.db")
        with state.write() as db:
            db.execute("SELECT 1")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "data").stat().st_mode) == 0o700
    for name in ("state.db", "state.db-wal", "state.db-shm"):
        path = tmp_path / "data" / name
        if path.exists():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, name
    state.close()


def test_a_state_file_that_cannot_be_created_is_a_state_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with (
        pytest.raises(StateError, match="cannot create it"),
        SQLiteState(blocker / "state.db").write(),
    ):
        pass


# ------------------------------------------------------------------ across processes

_HITTER = """
import sys, time
from limits import parse, strategies
from policy.state.sqlite_limits import SQLiteStorage
uri, strategy, start, n = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
limiter = strategies.STRATEGIES[strategy](SQLiteStorage(uri))
limiter.storage.check()  # open the file before the start line
while time.time() < start:
    pass
print(sum(limiter.hit(parse("20/minute"), "alice", "web_fetch") for _ in range(n)))
"""

_ADMITTER = """
import sys, time
from policy.builtins.contract_sessions import ContractRegistry
from policy.builtins.config import Contract
uri, start, n = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
registry = ContractRegistry(state_uri=uri)
contract = Contract.model_validate({"id": "c", "tools": ["*"], "max_tool_calls": 10})
registry.usage("s", "c")  # open the file before the start line
while time.time() < start:
    pass
print(sum(registry.admit("s", contract) is None for _ in range(n)))
"""


def _together(script: str, *argv: str, processes: int = 4) -> list[int]:
    """Run `script` in `processes` interpreters that start hitting at the same moment."""
    start = str(time.time() + 1.5)  # after every interpreter has started
    running = [
        subprocess.Popen(
            [sys.executable, "-c", script, argv[0], *argv[1:-1], start, argv[-1]],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(processes)
    ]
    counts = []
    for process in running:
        out, err = process.communicate(timeout=60)
        assert process.returncode == 0, err.decode()
        counts.append(int(out))
    return counts


@pytest.mark.slow
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_four_processes_hitting_twenty_a_minute_ten_times_each_admit_exactly_twenty(
    tmp_path: Path, strategy: str
) -> None:
    counts = _together(_HITTER, f"sqlite:///{tmp_path / 'state.db'}", strategy, "10")
    assert sum(counts) == 20, counts


@pytest.mark.slow
def test_four_processes_admit_exactly_max_tool_calls(tmp_path: Path) -> None:
    counts = _together(_ADMITTER, f"sqlite:///{tmp_path / 'state.db'}", "5")
    assert sum(counts) == 10, counts


# ------------------------------------------------------------------ contract usage


def _contract(**fields: Any) -> Any:
    from policy.builtins.config import Contract

    return Contract.model_validate({"id": "c", "tools": ["*"], **fields})


def test_contract_usage_is_shared_through_the_state_file(tmp_path: Path) -> None:
    uri = f"sqlite:///{tmp_path / 'state.db'}"
    now = FakeTime()
    first, second = ContractRegistry(now, state_uri=uri), ContractRegistry(now, state_uri=uri)
    limited = _contract(max_tool_calls=3, max_runtime="1h")
    assert first.admit("s", limited) is None
    now.now += 10
    assert second.admit("s", limited) is None
    assert first.admit("s", limited) is None
    assert second.admit("s", limited) == "contract 'c': max_tool_calls 3 reached"
    assert first.usage("s", "c") == (3, 10.0)
    assert second.admit("other", limited) is None  # per session
    now.now += 3600
    assert first.admit("s", limited) == (
        "contract 'c': max_runtime 1h used up (3610 s since the session's first call)"
    )
    # Attaching a contract at run time starts its usage afresh, in the shared store too.
    first.attach("s", {"id": "c", "tools": ["*"], "max_tool_calls": 3})
    assert second.usage("s", "c") == (0, 0.0)
    assert second.admit("s", limited) is None


def test_contract_usage_stays_in_memory_for_memory_uri() -> None:
    registry = ContractRegistry(state_uri="memory://")
    assert registry.admit("s", _contract(max_tool_calls=1)) is None
    assert registry._usage[("s", "c")].calls == 1
    assert contract_usage("memory://") is None


def test_contract_usage_in_a_store_that_cannot_keep_it_is_refused_when_counted() -> None:
    registry = ContractRegistry(state_uri="memcached://localhost:11211")
    assert registry.admit("s", _contract()) is None  # nothing to count: counted here
    with pytest.raises(StateError, match="memcached://, which cannot keep contract usage"):
        registry.admit("s", _contract(max_tool_calls=5))


def test_contract_usage_is_shared_through_redis(redis_uri: str) -> None:
    now = FakeTime()
    first = ContractRegistry(now, state_uri=redis_uri)
    second = ContractRegistry(now, state_uri=redis_uri)
    limited = _contract(max_tool_calls=2, max_runtime="1m")
    assert first.admit("s", limited) is None
    now.now += 5
    assert second.admit("s", limited) is None
    assert first.admit("s", limited) == "contract 'c': max_tool_calls 2 reached"
    assert second.usage("s", "c") == (2, 5.0)
    now.now += 60
    assert second.admit("s", limited).startswith("contract 'c': max_runtime 1m used up (65 s")
    first.attach("s", {"id": "c", "tools": ["*"]})
    assert second.usage("s", "c") == (0, 0.0)


# ------------------------------------------------------------------ settings and engines


def test_the_default_is_a_state_file_under_data_dir(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    assert settings.limits_storage_uri is None
    assert settings.state_store_uri == f"sqlite:///{tmp_path / 'state.db'}"
    assert FastSettings(data_dir=tmp_path).state_store_uri == settings.state_store_uri
    assert Settings(limits_storage_uri="sqlite:////x/y.db").state_store_uri == "sqlite:////x/y.db"
    assert Settings(limits_storage_uri="memory://").state_store_uri == "memory://"
    for bad in ("sqlite://x.db", "sqlite:///", "sqlite:///:memory:"):
        with pytest.raises(SettingsError, match="limits_storage_uri"):
            Settings(limits_storage_uri=bad)


def _write(tmp_path: Path, text: str, name: str = "pack.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_two_engines_on_the_default_settings_share_one_budget(tmp_path: Path) -> None:
    pack = _write(tmp_path, RATE_PACK)
    settings = Settings(packs=[pack], data_dir=tmp_path / "data", audit_path=tmp_path / "log")
    call = ToolCall(tool="WebFetch", args={"url": "https://x"}, sender="alice")
    with Engine(settings) as first, Engine(settings) as second:
        decisions = [(first if n % 2 else second).before_tool(call) for n in range(11)]
    assert [d.action for d in decisions] == [Action.CONTINUE] * 10 + [Action.DENY_TOOL]
    assert decisions[-1].reason.startswith(
        "rate limit 10/minute for sender 'alice' on tool 'web_fetch' exceeded; resets in "
    )
    assert (tmp_path / "data" / "state.db").exists()


def test_memory_is_still_fine_in_one_long_lived_engine(tmp_path: Path) -> None:
    pack = _write(tmp_path, RATE_PACK)
    settings = Settings(packs=[pack], limits_storage_uri="memory://", audit_path=tmp_path / "log")
    call = ToolCall(tool="WebFetch", args={"url": "https://x"}, sender="alice")
    with Engine(settings) as engine:
        assert [engine.before_tool(call).blocked for _ in range(11)] == [False] * 10 + [True]
        with pytest.raises(MemoryStateError, match="rate limit 10/minute in pack 'gate'"):
            check_per_event(engine)  # what a one-event hook would say
    from policy.hosts._hook_process import engine_for_protocol

    engine_for_protocol(settings).close()  # picoclaw, openclaw: one process, memory is fine
    with pytest.raises(MemoryStateError):
        engine_for_protocol(settings, per_event=True)
    assert not (settings.data_dir / "state.db").exists()


# ------------------------------------------------------------------ hook processes


def _hook(payload: dict[str, Any], *options: str, importtime: bool = False) -> tuple[Any, set[str]]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    argv = [POLICY, "hook", "claude", *options]
    if importtime:
        argv = [sys.executable, "-X", "importtime", *argv]
    done = subprocess.run(
        argv, input=orjson.dumps(payload), capture_output=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr
    modules = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return (orjson.loads(done.stdout) if done.stdout.strip() else None), modules


def _event(tool: str, session: str = "s-1", **tool_input: Any) -> dict[str, Any]:
    return {
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/tmp",
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01",
    }


def _verdict(answer: Any) -> tuple[str, str]:
    if answer is None:
        return "none", ""
    output = answer["hookSpecificOutput"]
    return output["permissionDecision"], output.get("permissionDecisionReason", "")


@pytest.mark.slow
def test_twelve_hook_processes_let_ten_web_fetches_through(tmp_path: Path) -> None:
    pack = _write(tmp_path, RATE_PACK)
    verdicts = [
        _verdict(_hook(_event("WebFetch", url="https://example.com"), "--packs", str(pack))[0])
        for _ in range(12)
    ]
    assert all(v[0] in ("none", "allow") for v in verdicts[:10]), verdicts
    for decision, reason in verdicts[10:]:
        assert decision == "deny"
        assert "rate limit 10/minute" in reason and "on tool 'web_fetch' exceeded" in reason
    data = Path(os.environ["XDG_DATA_HOME"]) / "hookpolicy"
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    assert stat.S_IMODE((data / "state.db").stat().st_mode) == 0o600


def test_four_hook_processes_keep_a_contracts_max_tool_calls(tmp_path: Path) -> None:
    pack = _write(tmp_path, CONTRACT_PACK)
    verdicts = [
        _verdict(_hook(_event("Read", file_path="/tmp/a"), "--packs", str(pack))[0])
        for _ in range(4)
    ]
    assert [v[0] in ("none", "allow") for v in verdicts] == [True, True, False, False]
    assert verdicts[2:] == [("deny", "contract 'two-calls': max_tool_calls 2 reached")] * 2


def test_a_one_event_hook_refuses_memory_when_a_pack_needs_state(tmp_path: Path) -> None:
    rate = _write(tmp_path, RATE_PACK, "rate.yaml")
    contract = _write(tmp_path, CONTRACT_PACK, "contract.yaml")
    config = _write(tmp_path, "limits_storage_uri: 'memory://'\n", "policy.yaml")
    for pack, needs in (
        (rate, "the rate limit 10/minute in pack 'gate'"),
        (contract, "the max_tool_calls / max_runtime of contract 'two-calls' in pack 'scope'"),
    ):
        # Every call is refused, the ones no limit governs too: the policy cannot hold.
        for tool in ("WebFetch", "Bash"):
            answer, _ = _hook(
                _event(tool, command="ls", url="x"), "--config", str(config), "--packs", str(pack)
            )
            decision, reason = _verdict(answer)
            assert decision == "deny"
            assert (
                "limits_storage_uri is memory://: counters would reset with every hook " in reason
            )
            assert needs in reason
            assert "use the default (sqlite under data_dir) or redis://" in reason


def test_memory_is_fine_for_a_one_event_hook_without_state(tmp_path: Path) -> None:
    pack = _write(
        tmp_path,
        HEADER.format(name="plain")
        + "builtins:\n  tool_policy: {applies_to: [web_fetch], deny: [web_fetch]}\n"
        + "  contract_scope: {contracts: [{id: c, sessions: ['*'], tools: [Read, web_fetch]}]}\n",
    )
    config = _write(tmp_path, "limits_storage_uri: 'memory://'\n", "policy.yaml")
    answer, _ = _hook(_event("WebFetch", url="x"), "--config", str(config), "--packs", str(pack))
    assert _verdict(answer) == ("deny", "tool 'web_fetch' is denied by tool_policy")
    answer, _ = _hook(_event("Read", file_path="/a"), "--config", str(config), "--packs", str(pack))
    assert _verdict(answer)[0] in ("none", "allow")


def test_a_call_no_limit_governs_opens_no_state(tmp_path: Path) -> None:
    pack = _write(tmp_path, RATE_PACK + "  " + CONTRACT_PACK.split("builtins:\n  ", 1)[1])
    _hook(_event("Bash", session="other", command="ls"), "--packs", str(pack))  # fill the caches
    _, modules = _hook(
        _event("Bash", session="other", command="ls"), "--packs", str(pack), importtime=True
    )
    assert "policy.engine" in modules  # the measurement saw the hook's imports
    assert sorted(m for m in ("sqlite3", "limits", "policy.state.db") if m in modules) == []
    assert not (Path(os.environ["XDG_DATA_HOME"]) / "hookpolicy" / "state.db").exists()


def test_a_packs_own_tests_count_alone_every_run(tmp_path: Path) -> None:
    """`policy test` must not use up (or be refused by) the user's real budgets."""
    from policy.pack_tests import run_pack_tests

    pack = _write(
        tmp_path,
        HEADER.format(name="gate")
        + "builtins:\n  tool_policy:\n    rate_limits: [{tools: [web_fetch], limit: 1/minute}]\n"
        + "tests:\n  - name: one fetch\n"
        + "    call: {tool: WebFetch, args: {url: x}, sender: alice}\n"
        + "    expect: {action: continue}\n",
    )
    for _ in range(3):
        assert [outcome.passed for outcome in run_pack_tests(pack)] == [True]
    assert not (Path(os.environ["XDG_DATA_HOME"]) / "hookpolicy" / "state.db").exists()
