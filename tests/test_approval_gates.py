"""Who must approve which calls: gates from `ask` rules and the approval builtin.

A gate says who decides (`approvers:`), for how long (`timeout:`), what they may
grant and whether the requester may approve their own call. Rules put gates on the
calls they match; the builtin on the calls its `tools` and `when:` cover, unless an
`allow` rule matched. Several gates on one call must all be satisfied, one request
per approver group, all with the strictest deadline.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from policy import ApprovalDecision, ApprovalGate, Engine, ToolCall, ToolResult
from policy.approvals import AlreadyDecided, ApprovalRequest
from policy.approvals.rules import NotAllowed, decide
from policy.settings import Settings

HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\nname: {name}\n"

RELEASES = """
rules:
  - id: release-needs-secops
    tools: [bash]
    when: commands.exists(c, c.name == "make" && "deploy" in c.args)
    action: ask
    approvers: ["secops-*"]
    timeout: 3s
    grants: [once, session]
    message: deploys need secops
  - id: make-test-is-fine
    tools: [bash]
    when: commands.all(c, c.name == "make" && c.args == ["test"])
    action: allow
"""


def engine_on(tmp_path: Path, **packs: str) -> Engine:
    paths = []
    for name, body in packs.items():
        path = tmp_path / f"{name}.yaml"
        path.write_text(HEADER.format(name=name) + body)
        paths.append(path)
    return Engine(
        Settings(packs=paths, audit_path=tmp_path / "log.jsonl", approvals_store="memory://")
    )


def bash(command: str, sender: str = "alice", session: str = "s1") -> ToolCall:
    return ToolCall(tool="Bash", args={"command": command}, sender=sender, session=session)


def pending(engine: Engine, count: int = 1) -> list[ApprovalRequest]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        found = engine.approvals.list()
        if len(found) >= count:
            return found
        time.sleep(0.01)
    raise AssertionError(f"no {count} pending request(s)")


def ask(engine: Engine, call: ToolCall) -> tuple[list[ApprovalDecision], threading.Thread]:
    decision = engine.before_tool(call)
    answers: list[ApprovalDecision] = []
    thread = threading.Thread(
        target=lambda: answers.append(
            engine.approve_tool(decision.call or call, gates=decision.gates)
        )
    )
    thread.start()
    return answers, thread


# ------------------------------------------------------------------ rules name approvers


def test_only_the_calls_an_ask_rule_matches_wait_and_for_its_approvers(tmp_path: Path) -> None:
    with engine_on(tmp_path, ops=RELEASES) as engine:
        plain = engine.before_tool(bash("ls -la && make lint"))
        assert not plain.needs_approval and plain.gates == ()
        gated = engine.before_tool(bash("make build && make deploy"))
        assert gated.needs_approval
        (gate,) = gated.gates
        assert (gate.source, gate.approvers, gate.timeout, gate.grants) == (
            "ops/release-needs-secops",
            ("secops-*",),
            3.0,
            ("once", "session"),
        )
        answers, thread = ask(engine, bash("make build && make deploy"))
        (request,) = pending(engine)
        assert request.approvers == ("secops-*",)
        with pytest.raises(NotAllowed, match="may not decide"):
            decide(engine.approvals, request.id, approved=True, by="bob")
        decide(engine.approvals, request.id, approved=True, by="secops-1", grant="session")
        thread.join(10)
        assert answers[0].approved
        # The session grant admits the same call again without asking anybody.
        again = engine.approve_tool(bash("make build && make deploy"))
        assert again.approved and again.reason.startswith("grant session by secops-1")


def test_an_ask_rule_without_approvers_is_a_gate_anyone_but_the_requester_decides(
    tmp_path: Path,
) -> None:
    body = "rules:\n  - {id: ask-curl, tools: [bash], when: 'commands.exists(c, c.name == \"curl\")', action: ask}\n"
    with engine_on(tmp_path, ops=body) as engine:
        answers, thread = ask(engine, bash("curl https://example.com"))
        (request,) = pending(engine)
        assert request.approvers == ()
        with pytest.raises(NotAllowed, match="self-approval refused"):
            decide(engine.approvals, request.id, approved=True, by="alice")
        decide(engine.approvals, request.id, approved=True, by="bob")
        thread.join(10)
        assert answers[0].approved


def test_gate_keys_belong_to_ask_and_respond_rules_only(tmp_path: Path) -> None:
    from policy.packs.diagnostics import PackError

    body = "rules:\n  - {id: d, tools: [bash], action: deny, approvers: [x]}\n"
    with pytest.raises(PackError) as caught:
        engine_on(tmp_path, ops=body)
    (problem,) = caught.value.diagnostics
    assert problem.code == "invalid-key"
    assert "`approvers:` names who approves a call" in problem.message
    assert (problem.line, problem.col) == (5, 42)  # the key


# ------------------------------------------------------------------ the builtin


def test_the_builtin_gates_what_its_when_matches_and_an_allow_rule_exempts(
    tmp_path: Path,
) -> None:
    body = """
builtins:
  approval:
    tools: [bash]
    when: '!commands.all(c, c.reads_only)'
    approvers: ["secops-*"]
rules:
  - id: make-test-is-fine
    tools: [bash]
    when: commands.all(c, c.name == "make" && c.args == ["test"])
    action: allow
"""
    with engine_on(tmp_path, ops=body) as engine:
        reading = engine.before_tool(bash("cat README.md"))
        assert not reading.needs_approval  # `when:` false: no gate
        allowed = engine.before_tool(bash("make test"))
        assert (allowed.allowed, allowed.needs_approval, allowed.gates) == (True, False, ())
        assert allowed.reason == "allow by rule ops/make-test-is-fine"
        writing = engine.before_tool(bash("make install"))
        assert writing.needs_approval
        assert [g.source for g in writing.gates] == ["ops/approval"]
        assert "ops/builtin:approval" in writing.rule_ids


def test_an_allow_in_another_pack_exempts_from_the_builtin_but_not_from_an_ask(
    tmp_path: Path,
) -> None:
    gate = "builtins:\n  approval: {tools: [bash], approvers: ['secops-*']}\n"
    with engine_on(tmp_path, gate=gate, ops=RELEASES) as engine:
        tests = engine.before_tool(bash("make test"))
        assert (tests.needs_approval, tests.allowed) == (False, True)
        deploy = engine.before_tool(bash("make deploy"))
        assert deploy.needs_approval
        assert sorted(g.source for g in deploy.gates) == [
            "gate/approval",
            "ops/release-needs-secops",
        ]


def test_a_bad_when_is_reported_at_its_place(tmp_path: Path) -> None:
    from policy.packs.diagnostics import PackError

    body = "builtins:\n  approval: {tools: [bash], when: 'commands.size() > \"x\"'}\n"
    with pytest.raises(PackError) as caught:
        engine_on(tmp_path, ops=body)
    assert any(d.line == 5 and "when" not in d.code for d in caught.value.diagnostics)


# ------------------------------------------------------------------ several gates


def test_two_approver_groups_each_must_approve_within_the_strictest_timeout(
    tmp_path: Path,
) -> None:
    dba = """
rules:
  - id: migrations-need-dba
    tools: [bash]
    when: commands.exists(c, c.name == "make" && "deploy" in c.args)
    action: ask
    approvers: ["dba-*"]
    timeout: 30s
"""
    with engine_on(tmp_path, ops=RELEASES, db=dba) as engine:
        answers, thread = ask(engine, bash("make deploy"))
        requests = {r.approvers: r for r in pending(engine, 2)}
        secops, dbas = requests[("secops-*",)], requests[("dba-*",)]
        assert secops.deadline == dbas.deadline  # the strictest: 3 s, not 30 s
        assert secops.deadline - secops.created < 3.5
        decide(engine.approvals, secops.id, approved=True, by="secops-1")
        time.sleep(0.2)
        assert answers == []  # secops alone is not enough
        decide(engine.approvals, dbas.id, approved=True, by="dba-1")
        thread.join(10)
        assert answers[0].approved
        assert f"request {secops.id}" in answers[0].reason
        assert f"request {dbas.id}" in answers[0].reason


def test_the_first_denial_denies_and_expires_the_other_requests(tmp_path: Path) -> None:
    dba = RELEASES.replace("secops-*", "dba-*").replace("release-needs-secops", "dba-gate")
    dba = dba.replace("make-test-is-fine", "make-test-ok")
    with engine_on(tmp_path, ops=RELEASES, db=dba) as engine:
        answers, thread = ask(engine, bash("make deploy"))
        requests = {r.approvers: r for r in pending(engine, 2)}
        decide(engine.approvals, requests[("secops-*",)].id, approved=False, by="secops-2")
        thread.join(10)
        assert not answers[0].approved
        assert answers[0].reason.startswith("denied by secops-2")
        other = engine.approvals.get(requests[("dba-*",)].id)
        assert other.state == "expired"
        with pytest.raises(AlreadyDecided, match="already expired"):
            decide(engine.approvals, other.id, approved=True, by="dba-1")


def test_gates_of_one_pack_naming_the_same_approvers_are_one_request(tmp_path: Path) -> None:
    body = (
        RELEASES
        + """
  - id: also-secops
    tools: [bash]
    when: commands.exists(c, c.name == "make")
    action: ask
    approvers: ["secops-*"]
    timeout: 2s
    grants: [once]
"""
    )
    with engine_on(tmp_path, ops=body) as engine:
        answers, thread = ask(engine, bash("make deploy"))
        (request,) = pending(engine)
        assert request.grants == ("once",)  # only what every gate offers
        assert request.deadline - request.created < 2.5  # the shorter timeout
        decide(engine.approvals, request.id, approved=True, by="secops-1")
        thread.join(10)
        assert answers[0].approved


# ------------------------------------------------------------------ deferring


def test_defer_files_the_request_and_the_retry_runs_once_it_is_approved(tmp_path: Path) -> None:
    with engine_on(tmp_path, ops=RELEASES) as engine:
        call = bash("make deploy")
        gates = engine.before_tool(call).gates
        first = engine.approve_tool(call, gates=gates, defer=True)
        assert not first.approved
        (request,) = engine.approvals.list()
        assert f"approval {request.id} pending" in first.reason
        assert "retry the same command" in first.reason
        again = engine.approve_tool(call, gates=gates, defer=True)
        assert not again.approved and len(engine.approvals.list()) == 1  # same request
        decide(engine.approvals, request.id, approved=True, by="secops-1")
        retried = engine.approve_tool(call, gates=gates, defer=True)
        assert retried.approved
        assert retried.reason.startswith(f"approved by secops-1 (request {request.id}")
        assert engine.approvals.get(request.id).claimed_at is not None
        once_more = engine.approve_tool(call, gates=gates, defer=True)
        assert not once_more.approved  # the approval was for one run
        other_session = engine.approve_tool(bash("make deploy", session="s2"), defer=True)
        assert not other_session.approved


# ------------------------------------------------------------------ giving up


def test_a_stop_before_anything_was_asked_still_refuses_a_later_wait(tmp_path: Path) -> None:
    # A one-event hook closes without making the approval stage (nothing waited), but a
    # call still being decided when the stop came must not wait past it.
    with engine_on(tmp_path, ops=RELEASES) as engine:
        assert engine.abandon_approvals("the host went away") == 0
        decision = engine.before_tool(bash("make deploy"))
        answer = engine.approve_tool(decision.call or bash("make deploy"), gates=decision.gates)
        assert not answer.approved
        assert "the host went away" in answer.reason
        assert engine.approvals.list() == []  # nobody was asked


def test_a_stop_that_lands_while_a_call_files_its_request_ends_the_wait_at_once() -> None:
    # The stop arrives after the call checked for one and before its request is among
    # the waits a stop expires: the call must not wait out its budget, and nothing may
    # be left for a person to approve after the stop — it is not even filed (its
    # filer's thread would be the only one to expire it, and an ending process does
    # not wait for it).
    from policy.approvals import open_store
    from policy.builtins.approval import ApprovalGates

    store = open_store("memory://")
    stage = ApprovalGates(lambda: store, default_timeout=30.0)
    filing = stage._file
    expired_by_the_stop: list[Any] = []

    def file_after_the_stop(*args: Any, **kwargs: Any) -> Any:
        expired_by_the_stop.extend(stage.abandon_all("the host went away"))
        return filing(*args, **kwargs)

    stage._file = file_after_the_stop  # type: ignore[method-assign]
    gate = ApprovalGate(source="p/r", pack="p", approvers=("alice",), timeout=30.0)
    started = time.monotonic()
    answer = stage.approve(bash("make deploy"), [gate])
    assert not answer.approved
    assert "the host went away" in answer.reason
    assert time.monotonic() - started < 10  # not the 30 s budget
    assert expired_by_the_stop == []  # nothing was filed yet when the stop looked
    assert store.list(state=None) == []  # nor afterwards


def test_a_process_ending_while_a_request_is_being_filed_expires_it_once_stored() -> None:
    # A signal ends a hook while another thread files a request: the stop finds it
    # not yet in the store and leaves it to its filer — which the process's exit
    # (`os._exit`, right after the giving up) never lets run. The stop now waits for
    # the store to have it (briefly) and expires it itself, the filer stuck or gone.
    from policy.approvals import open_store

    store = open_store("memory://")
    stage = stage_on(store, timeout=30.0)
    go, never = threading.Event(), threading.Event()

    class SlowToFile:
        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

        def file(self, request: Any) -> Any:
            go.wait(30)
            stored = store.file(request)
            never.wait(30)  # the filer is stopped here for good: the process has ended
            return stored

    stage._open_store = SlowToFile  # type: ignore[method-assign]
    filer = threading.Thread(
        target=stage.approve, args=(bash("make deploy"), [gate(("alice",))]), daemon=True
    )
    filer.start()
    for _ in range(3000):
        if stage._waiting:
            break
        time.sleep(0.01)
    else:
        raise AssertionError("the call filed nothing")
    given_up: list[Any] = []
    stopping = threading.Thread(
        target=lambda: given_up.extend(stage.abandon_all("policy hook ended by SIGTERM"))
    )
    stopping.start()
    for _ in range(3000):  # the stop has looked, and found it not yet stored
        if stage._given_up:
            break
        time.sleep(0.01)
    else:
        raise AssertionError("the stop did not look")
    go.set()
    stopping.join(30)
    for _ in range(3000):
        if store.list(state=None):
            break
        time.sleep(0.01)
    (request,) = store.list(state=None)
    assert request.state == "expired"  # before the filer could do anything about it
    assert [r.id for _, r in given_up] == [request.id]
    with pytest.raises(AlreadyDecided, match="already expired"):
        decide(store, request.id, approved=True, by="alice")
    never.set()
    filer.join(30)


def test_nothing_is_filed_for_a_call_whose_client_has_hung_up() -> None:
    # `policy serve` decides each call under `unless_hung_up`, and sets it when the
    # client's connection closes: a call that reaches the gate after that files nothing.
    from policy.approvals import open_store
    from policy.builtins.approval import unless_hung_up

    store = open_store("memory://")
    stage = stage_on(store, timeout=30.0)
    hung_up = threading.Event()
    with unless_hung_up(hung_up):
        hung_up.set()
        answer = stage.approve(bash("make deploy"), [gate(("alice",))])
    assert not answer.approved
    assert answer.reason == "not asking approvers: the client hung up"
    assert store.list(state=None) == []
    # Another client's call, or the same one asked again, is asked as before.
    deferred = stage.approve(bash("make deploy"), [gate(("alice",))], defer=True)
    assert not deferred.approved and len(store.list()) == 1


def watched_stage(store: Any, waits: threading.Semaphore) -> Any:
    """A stage on `store` that releases `waits` each time a call starts waiting on a
    request: a test knows a call is in its wait without sleeping on it."""

    class Watched:
        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

        def wait(self, request_id: str, until: float) -> Any:
            waits.release()
            return store.wait(request_id, until=until)

    stage = stage_on(store, timeout=30.0)
    stage._open_store = Watched
    return stage


def test_a_call_whose_client_is_gone_leaves_an_identical_calls_approval_alone() -> None:
    # Two clients ask the same call (a hook killed at its host's timeout, and the retry):
    # they share one request. The one whose client is gone neither waits on it when it
    # reaches the gate, nor — gone while it waited — claims the approval when a person
    # gives it: that is the live call's.
    from policy.approvals import open_store
    from policy.builtins.approval import unless_hung_up

    store = open_store("memory://")
    waits = threading.Semaphore(0)
    stage = watched_stage(store, waits)
    call, gates = bash("make deploy"), [gate(("secops-1",))]
    assert not stage.approve(call, gates, defer=True).approved  # the live call files it
    (request,) = store.list()
    gone = threading.Event()
    gone.set()
    with unless_hung_up(gone):
        assert stage.approve(call, gates).reason == "not asking approvers: the client hung up"
    assert not waits.acquire(blocking=False)  # it did not wait on the shared request

    leaving = threading.Event()
    answers: list[Any] = []

    def waits_then_leaves() -> None:
        with unless_hung_up(leaving):
            answers.append(stage.approve(call, gates))

    waiter = threading.Thread(target=waits_then_leaves)
    waiter.start()
    assert waits.acquire(timeout=30)  # on the shared request
    leaving.set()
    decide(store, request.id, approved=True, by="secops-1")
    waiter.join(30)
    assert answers[0].reason == "not asking approvers: the client hung up"
    assert store.get(request.id).claimed_at is None  # left for the live call
    assert stage.approve(call, gates, defer=True).approved  # which claims it


def test_a_filer_that_hangs_up_leaves_its_request_to_an_identical_call_still_waiting() -> None:
    # The reverse of the case above: the call that filed the request is the one whose
    # client goes. Its hang-up used to expire the request under the identical call
    # still waiting on it, which was refused at once; now the request is left to that
    # call, and the gone one waits on without claiming.
    from policy.approvals import open_store
    from policy.builtins.approval import unless_hung_up

    store = open_store("memory://")
    waits = threading.Semaphore(0)
    stage = watched_stage(store, waits)
    call, gates = bash("make deploy"), [gate(("secops-1",))]
    filer_gone = threading.Event()
    answers: dict[str, Any] = {}

    def filer() -> None:
        with unless_hung_up(filer_gone):
            answers["filer"] = stage.approve(call, gates)

    def live() -> None:
        with unless_hung_up(threading.Event()):
            answers["live"] = stage.approve(call, gates)

    first = threading.Thread(target=filer)
    first.start()
    assert waits.acquire(timeout=30)  # the filer waits on its request
    second = threading.Thread(target=live)
    second.start()
    assert waits.acquire(timeout=30)  # and the live call on the same one
    (request,) = store.list()
    filer_gone.set()
    assert stage.abandon_like(call) == []  # what `policy serve` does at the hang-up
    assert store.get(request.id).state == "pending"
    decide(store, request.id, approved=True, by="secops-1")
    first.join(30)
    second.join(30)
    assert answers["live"].approved
    assert answers["filer"].reason == "not asking approvers: the client hung up"
    assert store.get(request.id).claimed_at is not None  # by the live call


def test_abandoning_expires_the_requests_being_waited_on_and_logs_the_denial(
    tmp_path: Path,
) -> None:
    with engine_on(tmp_path, ops=RELEASES) as engine:
        answers, thread = ask(engine, bash("make deploy"))
        (request,) = pending(engine)
        assert engine.abandon_approvals("the host went away") == 1
        thread.join(10)
        assert not answers[0].approved
        assert engine.approvals.get(request.id).state == "expired"
        with pytest.raises(AlreadyDecided, match="already expired"):
            decide(engine.approvals, request.id, approved=True, by="secops-1")
    import orjson

    lines = [orjson.loads(x) for x in (tmp_path / "log.jsonl").read_bytes().splitlines()]
    reasons = [x["reason"] for x in lines if x.get("point") == "approve_tool"]
    assert f"approval request {request.id} abandoned: the host went away; denied" in reasons


def test_closing_the_engine_expires_what_it_waits_on(tmp_path: Path) -> None:
    engine = engine_on(tmp_path, ops=RELEASES)
    answers, thread = ask(engine, bash("make deploy"))
    (request,) = pending(engine)
    store = engine.approvals
    engine.close()
    thread.join(10)
    assert store.get(request.id).state == "expired"
    assert not answers[0].approved


# ------------------------------------------------------------------ respond


def test_a_respond_rule_that_names_approvers_holds_its_answer_for_them(tmp_path: Path) -> None:
    body = """
rules:
  - id: cached-status
    tools: [bash]
    when: commands.exists(c, c.name == "kubectl")
    action: respond
    respond: {for_llm: '"status: all pods running"'}
    approvers: ["oncall-*"]
    timeout: 3s
"""
    with engine_on(tmp_path, ops=body) as engine:
        decision = engine.before_tool(bash("kubectl get pods"))
        assert decision.needs_approval  # respond_guard's default (flag) does not lift it
        assert [g.holds_respond for g in decision.gates] == [True]
        results: list[ToolResult] = []

        def run() -> None:
            results.append(engine.run_tool(bash("kubectl get pods"), lambda call: "ran"))

        thread = threading.Thread(target=run)
        thread.start()
        (request,) = pending(engine)
        assert request.approvers == ("oncall-*",)
        decide(engine.approvals, request.id, approved=True, by="oncall-1")
        thread.join(10)
        assert results[0].for_llm == "status: all pods running"


def test_a_plain_respond_still_skips_a_builtin_gate_and_is_flagged(tmp_path: Path) -> None:
    body = """
builtins:
  approval: {tools: [bash], approvers: ["secops-*"]}
rules:
  - id: cached
    tools: [bash]
    action: respond
    respond: {for_llm: '"cached"'}
"""
    with engine_on(tmp_path, ops=body) as engine:
        decision = engine.before_tool(bash("make deploy"))
        assert (decision.needs_approval, decision.gates) == (False, ())
        assert engine.respond_bypasses == 1


# ------------------------------------------------------------------ the stage itself


def stage_on(store: Any, timeout: float = 5.0) -> Any:
    from policy.builtins.approval import ApprovalGates

    return ApprovalGates(lambda: store, default_timeout=timeout)


def gate(approvers: tuple[str, ...], **fields: Any) -> ApprovalGate:
    return ApprovalGate(
        source=f"ops/{approvers[0] if approvers else 'any'}",
        pack="ops",
        approvers=approvers,
        **fields,
    )


def test_a_grant_of_one_approver_group_never_admits_for_another() -> None:
    from policy.approvals.memory import MemoryStore

    store = MemoryStore()
    stage = stage_on(store)
    gates = (gate(("secops-*",), grants=("once", "session")), gate(("dba-*",)))
    call = bash("make deploy")
    first = stage.approve(call, gates, defer=True)
    assert not first.approved
    by_group = {r.approvers: r for r in store.list()}
    decide(store, by_group[("secops-*",)].id, approved=True, by="secops-1", grant="session")
    decide(store, by_group[("dba-*",)].id, approved=True, by="dba-1")
    assert stage.approve(call, gates, defer=True).approved
    again = stage.approve(call, gates, defer=True)  # secops' session grant, dba's once spent
    assert not again.approved
    (dba_again,) = store.list()
    assert dba_again.approvers == ("dba-*",)


def test_one_groups_approval_is_not_spent_while_another_group_holds_the_call() -> None:
    from policy.approvals.memory import MemoryStore

    store = MemoryStore()
    stage = stage_on(store)
    gates = (gate(("secops-*",)), gate(("dba-*",)))
    call = bash("make deploy")
    stage.approve(call, gates, defer=True)
    by_group = {r.approvers: r for r in store.list()}
    decide(store, by_group[("secops-*",)].id, approved=True, by="secops-1")
    assert not stage.approve(call, gates, defer=True).approved  # dba still pending
    assert store.get(by_group[("secops-*",)].id).claimed_at is None  # not spent
    decide(store, by_group[("dba-*",)].id, approved=True, by="dba-1")
    retried = stage.approve(call, gates, defer=True)
    assert retried.approved, retried.reason
    assert all(store.get(r.id).claimed_at is not None for r in by_group.values())


def test_a_store_failing_while_the_call_waits_expires_what_it_filed() -> None:
    from policy.approvals.memory import MemoryStore
    from policy.approvals.store import StoreError

    class Failing(MemoryStore):
        def wait(self, request_id: str, until: float) -> ApprovalRequest:
            raise StoreError("the disk went away")

    store = Failing()
    answer = stage_on(store).approve(bash("make deploy"), (gate(("secops-*",)),))
    assert not answer.approved
    assert answer.reason == "approval store unavailable: the disk went away"
    (request,) = store.list(None)
    assert request.state == "expired"


def test_a_denial_found_before_asking_files_nothing() -> None:
    from policy.approvals.memory import MemoryStore

    store = MemoryStore()
    stage = stage_on(store)
    gates = (gate(("secops-*",)), gate(("dba-*",), max_denials=1))
    call = bash("make deploy")
    stage.approve(call, gates, defer=True)
    by_group = {r.approvers: r for r in store.list()}
    decide(store, by_group[("dba-*",)].id, approved=False, by="dba-1")
    capped = stage.approve(call, gates, defer=True)
    assert capped.reason.startswith("this call was denied 1 times")
    assert [r.id for r in store.list()] == [by_group[("secops-*",)].id]  # nothing new


def test_a_call_that_stops_waiting_leaves_another_calls_request_pending() -> None:
    from policy.approvals.memory import MemoryStore

    store = MemoryStore()
    gates = (gate(("secops-*",)),)
    call = bash("make deploy")
    patient = stage_on(store, timeout=30)
    answers: list[ApprovalDecision] = []
    thread = threading.Thread(target=lambda: answers.append(patient.approve(call, gates)))
    thread.start()
    (request,) = pending_in(store)
    hasty = stage_on(store, timeout=30).approve(call, gates, until=time.time() + 0.2)
    assert not hasty.approved
    assert hasty.reason.startswith(f"no approval within 0.2 s (request {request.id})")
    assert store.get(request.id).state == "pending"  # not the hasty call's to expire
    decide(store, request.id, approved=True, by="secops-1")
    thread.join(10)
    assert answers[0].approved


def pending_in(store: Any, count: int = 1) -> list[ApprovalRequest]:
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        found: list[ApprovalRequest] = store.list()
        if len(found) >= count:
            return found
        time.sleep(0.01)
    raise AssertionError("no pending request")


def test_an_ask_that_names_nobody_is_answered_by_the_builtins_approvers_allow_or_not(
    tmp_path: Path,
) -> None:
    """autonomy `supervised` asks without a gate; the pack's approval builtin says who
    answers, and an allow rule that lifts the builtin's own gate does not leave that
    ask without approvers."""
    body = """
builtins:
  autonomy: {mode: supervised}
  approval: {tools: [bash], approvers: ["secops-*"]}
rules:
  - id: make-test-is-fine
    tools: [bash]
    when: commands.all(c, c.name == "make" && c.args == ["test"])
    action: allow
"""
    with engine_on(tmp_path, ops=body) as engine:
        decision = engine.before_tool(bash("make test"))
        assert decision.needs_approval
        assert [g.source for g in decision.gates] == ["ops/approval"]


def test_a_builtin_when_that_fails_gates_the_call_even_with_on_error_skip(
    tmp_path: Path,
) -> None:
    body = """on_error: skip
builtins:
  approval: {tools: [bash], when: 'args.command.startsWith("make")', approvers: ["secops-*"]}
"""
    with engine_on(tmp_path, ops=body) as engine:
        odd = ToolCall(tool="Bash", args={"cmd": "make deploy"}, sender="a", session="s")
        decision = engine.before_tool(odd)
        assert decision.needs_approval
        assert [g.source for g in decision.gates] == ["ops/approval"]


# ------------------------------------------------------------ callers of policy serve


DEPLOYS = """
rules:
  - id: deploys-need-secops
    tools: [bash]
    when: args.command.startsWith("./deploy")
    action: ask
    approvers: ["secops-*"]
    timeout: 60s
    message: deploys need secops
"""


def test_requests_and_approvals_belong_to_the_principal_that_asked(tmp_path: Path) -> None:
    """Through `policy serve` an approval is bound to who asked (the socket's uid, a
    token): another caller's identical call neither joins its request nor uses it."""
    from policy.facts import Caller, deciding_for

    engine = engine_on(tmp_path, ops=DEPLOYS)
    call = bash("./deploy prod", sender="alice")
    with deciding_for(Caller(uid=1001, principal="uid:1001")):
        first = engine.approve_tool(call, defer=True)
    (request,) = pending(engine)
    assert request.id in first.reason and request.agent_uid == 1001
    engine.approvals.decide(request.id, approved=True, by="secops-bob")
    with deciding_for(Caller(uid=1002, principal="uid:1002")):
        theirs = engine.approve_tool(call, defer=True)
    assert not theirs.approved and request.id not in theirs.reason
    with deciding_for(Caller(uid=1001, principal="uid:1001")):
        assert engine.approve_tool(call, defer=True).approved
    engine.close()


def test_a_caller_of_the_service_has_a_bounded_number_of_pending_requests(
    tmp_path: Path,
) -> None:
    from policy.builtins.approval import MAX_PENDING_PER_CALLER, MAX_REQUEST_ARGS
    from policy.facts import Caller, deciding_for

    engine = engine_on(tmp_path, ops=DEPLOYS)
    with deciding_for(Caller(uid=7, principal="uid:7")):
        for i in range(MAX_PENDING_PER_CALLER):
            assert "pending" in engine.approve_tool(bash(f"./deploy {i}"), defer=True).reason
        refused = engine.approve_tool(bash("./deploy one-more"), defer=True)
        assert not refused.approved
        assert refused.reason == (
            f"uid:7 has {MAX_PENDING_PER_CALLER} approval requests pending already (at most "
            f"{MAX_PENDING_PER_CALLER}): refused until people answer them"
        )
        huge = engine.approve_tool(bash("./deploy " + "x" * MAX_REQUEST_ARGS), defer=True)
        assert "more than an approval request shows a person" in huge.reason
    # Another caller files as before, and an answer frees a place.
    with deciding_for(Caller(uid=8, principal="uid:8")):
        assert "pending" in engine.approve_tool(bash("./deploy 0"), defer=True).reason
    first = next(r for r in pending(engine, MAX_PENDING_PER_CALLER + 1) if r.agent_uid == 7)
    engine.approvals.decide(first.id, approved=False, by="secops-bob")
    with deciding_for(Caller(uid=7, principal="uid:7")):
        assert "pending" in engine.approve_tool(bash("./deploy later"), defer=True).reason
    assert len(engine.approvals.list("pending")) == MAX_PENDING_PER_CALLER + 1
    engine.close()


def test_an_anonymous_caller_files_nothing(tmp_path: Path) -> None:
    from policy.facts import Caller, deciding_for

    engine = engine_on(tmp_path, ops=DEPLOYS)
    with deciding_for(Caller(principal="anonymous", peer="127.0.0.1:5", may_file=False)):
        answer = engine.approve_tool(bash("./deploy prod"), defer=True)
    assert not answer.approved and "anonymous caller may not file" in answer.reason
    assert engine.approvals.list(None) == []
    engine.close()


def test_calls_that_first_need_approvals_at_once_share_one_store_and_one_stage(
    tmp_path: Path,
) -> None:
    """Two `memory://` stores, or two gate stages, made by calls racing to open them
    would each hold half the requests and waits: abandoning on one (a hang-up, a stop)
    left the other's waits to run to their deadline."""
    engine = engine_on(tmp_path, ops=DEPLOYS)
    start = threading.Barrier(16)
    stores, stages = [], []

    def first_use() -> None:
        start.wait()
        stages.append(engine.gate_stage)
        stores.append(engine.approvals)

    threads = [threading.Thread(target=first_use) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(s) for s in stores}) == 1 and len({id(s) for s in stages}) == 1
    engine.close()


def test_the_pending_cap_holds_for_racing_calls_and_across_restarts(tmp_path: Path) -> None:
    """Counting a caller's pending requests and filing a new one is one step for that
    caller, and the count is the store's: racing calls and a restarted service both
    stop at the cap."""
    from policy.builtins.approval import MAX_PENDING_PER_CALLER
    from policy.facts import Caller, deciding_for

    pack = tmp_path / "ops.yaml"
    pack.write_text(HEADER.format(name="ops") + DEPLOYS)
    settings = Settings(
        packs=[pack],
        audit_path=tmp_path / "log.jsonl",
        approvals_store=f"sqlite:///{tmp_path / 'approvals.db'}",
    )
    engine = Engine(settings)
    start = threading.Barrier(12)

    def file(index: int) -> None:
        start.wait()
        with deciding_for(Caller(uid=7, principal="uid:7")):
            engine.approve_tool(bash(f"./deploy {index}"), defer=True)

    with deciding_for(Caller(uid=7, principal="uid:7")):
        for index in range(MAX_PENDING_PER_CALLER - 4):
            engine.approve_tool(bash(f"./deploy early-{index}"), defer=True)
    threads = [threading.Thread(target=file, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert engine.approvals.count_pending("uid:7") == MAX_PENDING_PER_CALLER
    engine.close()
    restarted = Engine(settings)
    with deciding_for(Caller(uid=7, principal="uid:7")):
        refused = restarted.approve_tool(bash("./deploy after-restart"), defer=True)
    assert "approval requests pending already" in refused.reason
    restarted.close()


def test_once_the_service_stops_no_call_waits_for_people(tmp_path: Path) -> None:
    """A call that reaches the approval stage after the stop began (it was still being
    decided) is refused, not left to wait past the stop."""
    engine = engine_on(tmp_path, ops=DEPLOYS)
    engine.abandon_approvals("policy serve is stopping")
    answer = engine.approve_tool(bash("./deploy prod"), timeout=30)
    assert not answer.approved
    assert answer.reason == "not asking approvers: policy serve is stopping"
    assert engine.approvals.list(None) == []
    engine.close()
