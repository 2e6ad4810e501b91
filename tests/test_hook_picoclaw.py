"""`policy hook picoclaw` as PicoClaw runs it: a subprocess speaking JSON-RPC 2.0, one
message per line, with upstream's exact params (pkg/agent/hook_process.go)."""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

POLICY = str(Path(sys.executable).with_name("policy"))
RULES = Path(__file__).resolve().parent.parent / "rules"

META = {
    "AgentID": "main",
    "TurnID": "turn-7",
    "ParentTurnID": "",
    "SessionKey": "agent:main:telegram:c1",
    "Iteration": 1,
    "TracePath": "turn.tool.before",
    "Source": "runTurn",
}
CONTEXT = {"inbound": {"channel": "telegram", "chat_id": "c1", "sender_id": "alice"}}


def request(ident: int, method: str, params: dict[str, Any]) -> bytes:
    return orjson.dumps({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})


class Hook:
    """A running `policy hook picoclaw`; `ask` sends lines and reads one answer each."""

    def __init__(self, *options: str) -> None:
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
        self.process = subprocess.Popen(
            [POLICY, "hook", "picoclaw", *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def read(self) -> bytes:
        assert self.process.stdout is not None
        return self.process.stdout.readline().rstrip(b"\n")

    def call(self, ident: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send(request(ident, method, params))
        answer: dict[str, Any] = orjson.loads(self.read())
        return answer

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=30)


@pytest.fixture
def hook() -> Iterator[Hook]:
    running = Hook("--packs", str(RULES))
    hello = running.call(
        1, "hook.hello", {"name": "hp", "version": 1, "modes": ["tool", "approve"]}
    )
    assert hello == {"jsonrpc": "2.0", "id": 1, "result": {"ok": True, "name": "hookpolicy"}}
    yield running
    assert running.close() == 0


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"meta": META, "context": CONTEXT, "tool": name, "arguments": arguments}


def test_before_tool_answers_in_upstreams_shapes(hook: Hook) -> None:
    denied = hook.call(2, "hook.before_tool", tool("exec", command="rm -rf /"))
    assert denied == {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "action": "deny_tool",
            "reason": "recursive or forced delete outside the workspace",
        },
    }
    passed = hook.call(3, "hook.before_tool", tool("exec", command="ls -la"))
    assert passed["result"]["action"] == "continue"
    # PicoClaw omits an empty argument map.
    bare = hook.call(4, "hook.before_tool", {"meta": META, "context": CONTEXT, "tool": "exec"})
    assert bare["result"]["action"] == "continue"


def test_garbage_unknown_methods_and_notifications(hook: Hook) -> None:
    hook.send(b"this is not json")
    parse = orjson.loads(hook.read())
    assert (parse["id"], parse["error"]["code"]) == (None, -32700)
    unknown = hook.call(5, "hook.unheard_of", {})
    assert unknown["error"] == {"code": -32601, "message": "method not found: hook.unheard_of"}
    hook.send(
        orjson.dumps(
            {
                "jsonrpc": "2.0",
                "method": "hook.runtime_event",
                "params": {"kind": "agent.turn.start", "payload": {}},
            }
        )
    )
    # A notification gets no answer: the next line read is the next request's.
    assert hook.call(6, "hook.before_tool", tool("exec", command="pwd"))["id"] == 6


def test_after_tool_modify_nests_the_result_where_picoclaw_reads_it(hook: Hook) -> None:
    params = {
        **tool("exec", command="cat deploy.env"),
        "result": {
            "for_llm": "AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP",
            "silent": False,
            "is_error": False,
            "async": False,
        },
        "duration": 1_500_000,
    }
    answer = hook.call(7, "hook.after_tool", params)["result"]
    assert answer["action"] == "modify"
    assert answer["result"]["tool"] == "exec"
    assert answer["result"]["result"]["for_llm"] == "AWS_ACCESS_KEY_ID=AKIA****************"


def test_approve_tool_approves_only_what_before_tool_passed(hook: Hook) -> None:
    # PicoClaw asks approve_tool about every call our before_tool let through
    # (pkg/agent/pipeline_execute.go): a call it never saw there is refused...
    unseen = hook.call(8, "hook.approve_tool", tool("exec", command="make test"))["result"]
    assert unseen["approved"] is False
    assert "never seen in before_tool" in unseen["reason"]
    # ...one it passed is approved without asking anybody, once per before_tool.
    listing = tool("exec", command="ls -la")
    assert hook.call(9, "hook.before_tool", listing)["result"]["action"] == "continue"
    passed = hook.call(10, "hook.approve_tool", listing)["result"]
    assert passed == {"approved": True, "reason": "before_tool passed this call without approval"}
    assert hook.call(11, "hook.approve_tool", listing)["result"]["approved"] is False
    # The same arguments in another turn are another call.
    assert hook.call(12, "hook.before_tool", listing)["result"]["action"] == "continue"
    elsewhere = {**listing, "meta": {**META, "TurnID": "turn-8"}}
    assert hook.call(13, "hook.approve_tool", elsewhere)["result"]["approved"] is False
    assert hook.call(14, "hook.approve_tool", listing)["result"]["approved"] is True


def test_without_mode_tool_approve_tool_judges_the_call_itself() -> None:
    running = Hook("--packs", str(RULES))
    running.call(1, "hook.hello", {"name": "hp", "version": 1, "modes": ["approve"]})
    denied = running.call(2, "hook.approve_tool", tool("exec", command="rm -rf /"))["result"]
    assert denied == {
        "approved": False,
        "reason": "recursive or forced delete outside the workspace",
    }
    assert running.call(3, "hook.approve_tool", tool("exec", command="ls"))["result"]["approved"]
    assert running.close() == 0


GATED_PACK = """apiVersion: hookpolicy/v1
kind: RulePack
name: ops
builtins:
  approval:
    tools: [bash]
    timeout: 1500ms
    approvers: ["secops-*"]
"""


def gated_config(tmp_path: Path) -> tuple[Path, str]:
    """Settings whose pack sends every `bash` call to `secops-*` for 1.5 s, with a
    SQLite approval store the test decides in; the config file and the store's URI."""
    pack = tmp_path / "ops.yaml"
    pack.write_text(GATED_PACK)
    store = f"sqlite:///{tmp_path / 'approvals.db'}"
    config = tmp_path / "policy.yaml"
    config.write_text(
        f"packs: [{pack}]\ndata_dir: {tmp_path / 'data'}\napprovals_store: '{store}'\n"
        f"audit_path: {tmp_path / 'decisions.log'}\n"
    )
    return config, store


def pending_requests(store: Any, count: int, within: float = 5.0) -> list[Any]:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = store.list()
        if len(found) >= count:
            return list(found)
        time.sleep(0.01)
    raise AssertionError(f"no {count} pending approval request(s) appeared")


RATE_PACK = """apiVersion: hookpolicy/v1
kind: RulePack
name: gate
builtins:
  tool_policy:
    applies_to: [web_fetch]
    rate_limits: [{tools: [web_fetch], limit: "10/minute"}]
"""


def test_a_call_stuck_in_the_state_store_does_not_hold_up_the_next(tmp_path: Path) -> None:
    """A call whose rate limit waits on a state store another process has locked (here
    for as long as the test holds it) must not keep the next call unanswered meanwhile:
    PicoClaw skips a hook that answers late, and the call behind would run unguarded."""
    pack, state = tmp_path / "gate.yaml", tmp_path / "state.db"
    pack.write_text(RATE_PACK)
    config = tmp_path / "policy.yaml"
    config.write_text(
        f"packs: [{pack}]\ndata_dir: {tmp_path / 'data'}\n"
        f"limits_storage_uri: 'sqlite:///{state}'\naudit_path: {tmp_path / 'decisions.log'}\n"
    )
    running = Hook("--config", str(config))
    running.call(1, "hook.hello", {"name": "hp", "version": 1, "modes": ["tool"]})
    fetch = tool("web_fetch", url="https://example.com/")
    assert running.call(2, "hook.before_tool", fetch)["result"]["action"] == "continue"
    holder = sqlite3.connect(state, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # (the store's busy timeout is 5 s)
    try:
        running.send(request(3, "hook.before_tool", fetch))
        running.send(request(4, "hook.before_tool", tool("exec", command="ls -la")))
        first = orjson.loads(running.read())
        assert first["id"] == 4, "the call behind the stuck one waited for it"
        assert first["result"]["action"] == "continue"
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert orjson.loads(running.read())["id"] == 3
    assert running.close() == 0


def test_each_of_two_identical_asks_needs_its_own_decision(tmp_path: Path) -> None:
    from policy.approvals import open_store
    from policy.approvals.rules import decide

    config, uri = gated_config(tmp_path)
    store = open_store(uri)
    running = Hook("--config", str(config))
    running.call(1, "hook.hello", {"name": "hp", "version": 1, "modes": ["tool", "approve"]})
    deploy = tool("exec", command="make deploy")
    for ident in (2, 3):  # the model asked for the same command twice in one iteration
        assert running.call(ident, "hook.before_tool", deploy)["result"]["action"] == "continue"
    running.send(request(4, "hook.approve_tool", deploy))
    (first,) = pending_requests(store, 1)
    decide(store, first.id, approved=True, by="secops-1")
    approved = orjson.loads(running.read())
    assert approved["id"] == 4
    assert approved["result"]["approved"] is True
    assert f"approved by secops-1 (request {first.id}" in approved["result"]["reason"]
    # The second ask is not covered by the first one's decision: nobody answers it.
    started = time.monotonic()
    second = running.call(5, "hook.approve_tool", deploy)["result"]
    assert time.monotonic() - started >= 1.2
    assert second["approved"] is False
    assert "no approval within" in second["reason"]
    assert first.id not in second["reason"]
    # Two asks, two approve_tools: a third finds nothing to take.
    third = running.call(6, "hook.approve_tool", deploy)["result"]
    assert third["approved"] is False
    assert "never seen in before_tool" in third["reason"]
    assert running.close() == 0


def test_two_identical_asks_at_once_take_one_decision_each(tmp_path: Path) -> None:
    from policy.approvals import open_store
    from policy.approvals.rules import decide

    config, uri = gated_config(tmp_path)
    store = open_store(uri)
    running = Hook("--config", str(config))
    running.call(1, "hook.hello", {"name": "hp", "version": 1, "modes": ["tool", "approve"]})
    deploy = tool("exec", command="make deploy")
    for ident in (2, 3):
        assert running.call(ident, "hook.before_tool", deploy)["result"]["action"] == "continue"
    running.send(request(4, "hook.approve_tool", deploy))
    running.send(request(5, "hook.approve_tool", deploy))
    decide(store, pending_requests(store, 1)[0].id, approved=True, by="secops-1")
    answers = {a["id"]: a["result"] for a in (orjson.loads(running.read()) for _ in range(2))}
    assert sorted(answers) == [4, 5]
    assert sorted(a["approved"] for a in answers.values()) == [False, True]
    assert running.close() == 0


def test_past_the_cap_of_pending_asks_a_gated_call_is_denied(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policy.hosts.picoclaw import hook_process as picoclaw_server
    from policy.hosts.picoclaw import ledger

    monkeypatch.setattr(ledger, "PENDING_MAX", 2)
    config, _ = gated_config(tmp_path)
    server = picoclaw_server._Server(argparse.Namespace(config=str(config), packs=[]))
    server.start()
    try:
        server.answer("hook.hello", {"name": "hp", "version": 1, "modes": ["tool", "approve"]})
        for command in ("make a", "make b"):
            asked = server.answer("hook.before_tool", tool("exec", command=command))
            assert asked["action"] == "continue"
        full = server.answer("hook.before_tool", tool("exec", command="make c"))
        assert full["action"] == "deny_tool"
        assert "too many calls wait for approval (2)" in full["reason"]
        # A call nobody has to approve still passes, and is approved at approve_tool.
        read = tool("read_file", path="README.md")
        assert server.answer("hook.before_tool", read)["action"] == "continue"
        assert server.answer("hook.approve_tool", read)["approved"] is True

        # The asks are kept while their iteration lasts; once PicoClaw is at the next
        # one, it will ask approve_tool about none of them any more, and they go.
        def at_two(command: str) -> dict[str, Any]:
            return {**tool("exec", command=command), "meta": {**META, "Iteration": 2}}

        for command in ("make c", "make d"):
            assert server.answer("hook.before_tool", at_two(command))["action"] == "continue"
        assert server.answer("hook.before_tool", at_two("make e"))["action"] == "deny_tool"
        # So do the asks of a turn that ended (PicoClaw's runtime event, mode observe).
        scope = {"agent_id": "main", "session_key": META["SessionKey"], "turn_id": "turn-7"}
        ended = server.answer("hook.runtime_event", {"kind": "agent.turn.end", "scope": scope})
        assert ended == {}
        assert server.answer("hook.before_tool", at_two("make e"))["action"] == "continue"
    finally:
        server._slot.engine.close()


def test_a_rewrite_sends_the_whole_call_with_the_hosts_tool_name(tmp_path: Path) -> None:
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules:\n"
        "  - id: no-color\n    tools: [bash]\n    action: modify\n"
        "    set: {args.command: 'string(args.command) + \" --no-color\"'}\n"
    )
    running = Hook("--packs", str(pack))
    running.call(1, "hook.hello", {"name": "hp", "version": 1, "modes": ["tool"]})
    answer = running.call(2, "hook.before_tool", tool("exec", command="ls", timeout=5))
    assert answer["result"]["call"] == {
        "tool": "exec",
        "arguments": {"command": "ls --no-color", "timeout": 5},
    }
    assert running.close() == 0


def test_packs_that_do_not_load_refuse_every_call(tmp_path: Path) -> None:
    running = Hook("--packs", str(tmp_path / "missing"))
    assert running.call(1, "hook.hello", {"name": "hp", "version": 1})["result"]["ok"] is True
    refused = running.call(2, "hook.before_tool", tool("exec", command="ls"))["result"]
    assert refused["action"] == "deny_tool"
    assert refused["reason"].startswith(
        "policy hook failed closed: RuntimeError: policy hook cannot decide"
    )
    approval = running.call(3, "hook.approve_tool", tool("exec", command="ls"))["result"]
    assert approval["approved"] is False
    assert running.close() == 0
    assert running.process.stdout is not None
    assert running.process.stdout.read() == b""  # stdout carries protocol lines only


def test_a_hook_ended_by_a_signal_expires_what_it_waited_on(tmp_path: Path) -> None:
    """PicoClaw stopping the hook (SIGTERM) while an approval waits: nobody will run the
    call, so nobody may approve it afterwards; the denial is in the decision log."""
    from policy.approvals import open_store

    config, uri = gated_config(tmp_path)
    pack = tmp_path / "ops.yaml"
    pack.write_text(GATED_PACK.replace("1500ms", "30s"))
    store = open_store(uri)
    running = Hook("--config", str(config))
    running.call(1, "hook.hello", {"name": "hp", "version": 1, "modes": ["tool", "approve"]})
    deploy = tool("exec", command="make deploy")
    assert running.call(2, "hook.before_tool", deploy)["result"]["action"] == "continue"
    running.send(request(3, "hook.approve_tool", deploy))
    (waiting,) = pending_requests(store, 1)
    running.process.send_signal(signal.SIGTERM)
    running.process.wait(timeout=30)
    assert store.get(waiting.id).state == "expired"
    log = (tmp_path / "decisions.log").read_text()
    assert f"approval request {waiting.id} abandoned: policy hook ended by SIGTERM" in log


def test_a_decision_held_up_is_refused_before_picoclaw_would_skip_the_hook(tmp_path: Path) -> None:
    """PicoClaw skips an interceptor that answers after its timeout (5 s by default),
    and the call then runs unguarded. A decision held up — here, another process holds
    the decision log's lock, as any process of the user's may — is refused at the
    hook's deadline (`min(--deadline, 4 s)`); its own answer, when the lock is let go,
    is not written after the refusal."""
    import fcntl
    import queue
    import threading

    log = tmp_path / "decisions.jsonl"
    config = tmp_path / "policy.yaml"
    config.write_text(f"packs: [{RULES}]\ndata_dir: {tmp_path / 'data'}\naudit_path: {log}\n")
    running = Hook("--config", str(config), "--deadline", "1")
    running.call(1, "hook.hello", {"name": "hp", "version": 1, "modes": ["tool"]})
    assert running.call(2, "hook.before_tool", tool("exec", command="ls"))["result"]["action"] == "continue"
    answers: queue.Queue[bytes] = queue.Queue()
    with log.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        started = time.monotonic()
        running.send(request(3, "hook.before_tool", tool("exec", command="rm -rf ~")))
        running.send(request(5, "hook.before_tool", tool("exec", command="pwd")))

        def read_two() -> None:
            answers.put(running.read())
            answers.put(running.read())

        threading.Thread(target=read_two, daemon=True).start()
        # (none at all: the test fails)
        refused = [orjson.loads(answers.get(timeout=30)) for _ in range(2)]
        waited = time.monotonic() - started
    # each held request gets its own refusal, under its own id
    assert sorted(r["id"] for r in refused) == [3, 5]
    for answer in refused:
        assert answer["result"]["action"] == "deny_tool"
        assert "no answer within 1 s" in answer["result"]["reason"]
    assert waited < 5.0  # (before PicoClaw's default interceptor timeout)
    # the lock let go: the held decision finishes, unwritten; the next call is answered
    after = running.call(4, "hook.before_tool", tool("exec", command="ls"))
    assert after["id"] == 4 and after["result"]["action"] == "continue"
    assert running.close() == 0
    # ... and the log says what PicoClaw got for it, once it could be written
    records = [orjson.loads(r) for r in log.read_bytes().splitlines()]
    refusals = [r for r in records if r["event"] == "hook.deadline_refused"]
    assert sorted((r["id"], r["method"], r["sent"], r["deadline_s"]) for r in refusals) == [
        (3, "hook.before_tool", {"action": "deny_tool"}, 1.0),
        (5, "hook.before_tool", {"action": "deny_tool"}, 1.0),
    ]
    assert all(r["tool"] == "exec" and r["session"] == META["SessionKey"] for r in refusals)


def test_the_watchdog_fires_what_is_due_first_and_never_what_was_cancelled() -> None:
    """The watchdog's thread sleeps until its first deadline and is woken only by a
    watch due before it; the watches cancelled meanwhile (a request answered in time,
    as nearly all are) are dropped, never fired."""
    import threading

    from policy.hosts._watchdog import Watchdog

    dog = Watchdog()
    fired: list[str] = []
    soon, late = threading.Event(), threading.Event()
    start = time.monotonic()
    later = dog.watch(start + 30.0, lambda: (fired.append("later"), late.set()))
    answered = [dog.watch(start + 0.2, lambda: fired.append("answered")) for _ in range(100)]
    for watch in answered:
        watch.cancel()
    dog.watch(start + 0.05, lambda: (fired.append("sooner"), soon.set()))
    assert soon.wait(10), "a watch due before the others waited for them"
    dog.watch(time.monotonic(), lambda: (fired.append("now"), late.set()))
    assert late.wait(10)
    later.cancel()
    assert fired == ["sooner", "now"]


def test_a_request_whose_handling_failed_unanswered_is_refused_at_its_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The watch of a request is cancelled only once an answer went out: a handling
    that failed without answering (stderr gone, say) leaves it to the watchdog."""
    import threading

    from policy.hosts._hook_process import Output
    from policy.hosts.picoclaw import hook_process as picoclaw_server

    server = picoclaw_server._Server(
        argparse.Namespace(config=None, packs=[str(RULES)], deadline=0.2)
    )
    written: list[bytes] = []
    answered = threading.Event()

    def write(self: Output, line: bytes) -> None:
        written.append(line)
        answered.set()

    monkeypatch.setattr(Output, "write", write)

    def fails(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("stderr is gone")

    monkeypatch.setattr(server, "handle", fails)
    watched = server._watched(7, "hook.before_tool", {})
    with pytest.raises(RuntimeError):
        server._handle_watched(7, "hook.before_tool", {}, watched)
    assert answered.wait(10), "the request went unanswered"
    (line,) = written
    refusal = orjson.loads(line)
    assert refusal["id"] == 7 and refusal["result"]["action"] == "deny_tool"


def test_a_request_whose_deadline_cannot_be_armed_is_still_decided(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No watch to be had (no thread for the watchdog): the request is decided all the
    same, never dropped — PicoClaw would skip the hook for a request left unanswered."""
    from policy.hosts._hook_process import Output
    from policy.hosts.picoclaw import hook_process as picoclaw_server

    server = picoclaw_server._Server(argparse.Namespace(config=None, packs=[str(RULES)]))
    server.start()
    written: list[bytes] = []
    monkeypatch.setattr(Output, "write", lambda self, line: written.append(line))

    def no_watch(*args: Any) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(server, "_watched", no_watch)
    line = request(5, "hook.before_tool", tool("exec", command="rm -rf /"))
    work = server._dispatch(line.strip(), approvals=None)  # type: ignore[arg-type]
    assert work is not None
    work()
    (answer,) = written
    decided = orjson.loads(answer)
    assert decided["id"] == 5 and decided["result"]["action"] == "deny_tool"


def test_a_watchdog_s_note_never_waits_on_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    """The watchdog that refused a request writes why on stderr through a thread of its
    own: a stderr nobody reads must not hold the watchdog, whose every later deadline
    depends on it (a refusal's note that blocked left later requests unanswered)."""
    import threading

    from policy.hosts import _watchdog

    stuck, two = threading.Event(), threading.Event()
    written: list[str] = []

    def blocked(text: str) -> None:
        stuck.wait(30)
        written.append(text)
        if len(written) >= 2:
            two.set()

    monkeypatch.setattr(_watchdog, "_report", blocked)
    try:
        started = time.monotonic()
        for number in range(_watchdog._NOTES_MAX * 2):
            _watchdog.note(f"note {number}\n")
        assert time.monotonic() - started < 5  # (the caller never waited on the writer)
    finally:
        stuck.set()
    assert two.wait(10)  # (written once stderr is read again; past the cap, dropped)
    assert len(written) <= _watchdog._NOTES_MAX + 1


def test_what_a_refusal_leaves_behind_is_done_in_turn_and_a_failure_stops_nothing() -> None:
    """`later`: the actions a refusal leaves (a record in a decision log another
    process may have locked) run on the notes' thread in the order given; one that
    raises does not stop the next, and none holds up the caller."""
    import threading

    from policy.hosts import _watchdog

    go, done = threading.Event(), threading.Event()
    ran: list[int] = []

    def fails() -> None:
        raise RuntimeError("the log is locked")

    started = time.monotonic()
    _watchdog.later(lambda: go.wait(30))
    _watchdog.later(lambda: ran.append(1))
    _watchdog.later(fails)
    _watchdog.later(lambda: (ran.append(2), done.set()))
    assert time.monotonic() - started < 5 and ran == []
    go.set()
    assert done.wait(10)
    assert ran == [1, 2]


def test_a_process_about_to_close_its_log_waits_for_what_it_left_behind() -> None:
    """`drain`: until every action given to `later` is done, bounded by its timeout."""
    import threading

    from policy.hosts import _watchdog

    go = threading.Event()
    _watchdog.later(lambda: go.wait(30))
    assert _watchdog.drain(0.05) is False  # (still waiting: given up at the timeout)
    go.set()
    assert _watchdog.drain(10) is True
    assert _watchdog.drain(10) is True  # (nothing left)


#: PicoClaw's reader buffer (`processHookReadBufferSize`): the longest line it reads.
PICOCLAW_LINE = 1024 * 1024


def redacted_output(hook: Hook, ident: int, size: int) -> bytes:
    """The raw answer line to an after_tool whose output of `size` bytes holds an AWS key
    (the shipped credentials pack redacts it: a `modify` echoing the whole output)."""
    params = {
        **tool("exec", command="cat build.log"),
        "result": {"for_llm": "x" * size + " AKIAABCDEFGHIJKLMNOP", "silent": False},
        "duration": 1_000,
    }
    hook.send(request(ident, "hook.after_tool", params))
    return hook.read()


def test_an_answer_longer_than_picoclaw_reads_is_a_refusal_and_the_hook_goes_on(
    tmp_path: Path,
) -> None:
    # A line over 1 MiB stops PicoClaw's reader for good: every later request would time
    # out and be skipped, the calls run unguarded. The redaction is refused instead.
    log = tmp_path / "decisions.jsonl"
    config = tmp_path / "policy.yaml"
    config.write_text(f"packs: [{RULES}]\ndata_dir: {tmp_path / 'data'}\naudit_path: {log}\n")
    hook = Hook("--config", str(config))
    hook.call(1, "hook.hello", {"name": "hp", "version": 1, "modes": ["tool"]})
    line = redacted_output(hook, 20, PICOCLAW_LINE)
    assert len(line) + 1 < PICOCLAW_LINE
    answer = orjson.loads(line)
    assert answer["id"] == 20
    assert answer["result"]["action"] == "abort_turn"
    assert "too long for PicoClaw's reader" in answer["result"]["reason"]
    # ... and the next request is answered as ever
    denied = hook.call(21, "hook.before_tool", tool("exec", command="rm -rf /"))
    assert denied["result"]["action"] == "deny_tool"
    assert hook.close() == 0
    # the decision log says what PicoClaw got, next to the `modify` it stands for
    records = [orjson.loads(r) for r in log.read_bytes().splitlines()]
    refused = [r for r in records if r["event"] == "hook.answer_refused"]
    assert len(refused) == 1
    assert refused[0]["method"] == "hook.after_tool" and refused[0]["id"] == 20
    assert refused[0]["answer_bytes"] > PICOCLAW_LINE and refused[0]["sent"] == {"action": "abort_turn"}
    assert refused[0]["tool"] == "exec" and refused[0]["session"] == META["SessionKey"]
    assert any(r["event"] == "decision" and r["action"] == "modify" for r in records)


def test_an_answer_that_fits_goes_out_whole(hook: Hook) -> None:
    line = redacted_output(hook, 22, PICOCLAW_LINE - 4096)
    assert PICOCLAW_LINE - 4096 < len(line) + 1 < PICOCLAW_LINE
    answer = orjson.loads(line)["result"]
    assert answer["action"] == "modify"
    assert answer["result"]["result"]["for_llm"].endswith(" AKIA****************")


@pytest.mark.parametrize(
    ("method", "refused"),
    [
        ("hook.before_tool", {"result": {"action": "deny_tool"}}),
        ("hook.before_llm", {"result": {"action": "abort_turn"}}),
        ("hook.after_llm", {"result": {"action": "abort_turn"}}),
        ("hook.approve_tool", {"result": {"approved": False}}),
        ("hook.runtime_event", {"error": {"code": -32603}}),
    ],
)
def test_every_answer_is_held_to_picoclaw_s_line(method: str, refused: dict[str, Any]) -> None:
    from policy.hosts.picoclaw.hook_process import _within_limit

    def answer(padding: int) -> dict[str, Any]:
        return {"id": 9, "result": {"action": "modify", "reason": "r" * padding}}

    bare = len(_within_limit(method, answer(0))[0])
    longest, size = _within_limit(method, answer(PICOCLAW_LINE - 1 - bare))
    assert len(longest) == PICOCLAW_LINE - 1 and size == 0  # (its newline included)
    assert orjson.loads(longest)["result"]["action"] == "modify"
    line, size = _within_limit(method, answer(PICOCLAW_LINE - bare))
    assert size == PICOCLAW_LINE
    one_more = orjson.loads(line)
    assert one_more["id"] == 9
    kind = next(iter(refused))
    for key, value in refused[kind].items():
        assert one_more[kind][key] == value
    assert "too long for PicoClaw's reader" in str(one_more[kind])
