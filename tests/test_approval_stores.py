"""Every approval store keeps the same promises (policy/approvals/store.py).

Each test runs against `memory://`, a SQLite file, and a real `redis-server` the
tests start on a free loopback port.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from policy.approvals import AlreadyDecided, ApprovalRequest, Grant, RequestNotFound, open_store
from policy.approvals.store import ApprovalStore, call_digest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(params=["memory", "sqlite", "redis"])
def uri(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'approvals.db'}"
    redis_uri: str = request.getfixturevalue("redis_uri")
    return f"{redis_uri}/0?prefix=t{uuid.uuid4().hex[:8]}"


@pytest.fixture
def store(uri: str) -> Iterator[ApprovalStore]:
    opened = open_store(uri)
    yield opened
    opened.close()


def request(deadline_in: float = 30.0, **fields: object) -> ApprovalRequest:
    now = time.time()
    values: dict[str, object] = {
        "id": uuid.uuid4().hex,
        "tool": "bash",
        "digest": call_digest("bash", {"command": "make deploy"}),
        "args": {"command": "make deploy"},
        "requester": "alice",
        "session": "s1",
        "pack": "ops",
        "created": now,
        "deadline": now + deadline_in,
        "approvers": ("secops-*",),
        "grants": ("once", "session"),
    }
    values.update(fields)
    return ApprovalRequest(**values)  # type: ignore[arg-type]


def test_a_request_round_trips(store: ApprovalStore) -> None:
    created = request()
    store.create(created)
    assert store.get(created.id) == created
    assert [r.id for r in store.list()] == [created.id]
    assert store.list("approved") == []
    with pytest.raises(RequestNotFound):
        store.get("nope")


def test_a_request_is_decided_exactly_once_under_a_race(store: ApprovalStore) -> None:
    created = request()
    store.create(created)
    outcomes: list[str] = []
    lock = threading.Lock()

    def answer(index: int) -> None:
        try:
            store.decide(created.id, approved=index % 2 == 0, by=f"secops-{index}")
            result = "won"
        except AlreadyDecided as exc:
            result = f"lost to {exc.current.decided_by}"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=answer, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = store.get(created.id)
    assert outcomes.count("won") == 1
    assert all(o == "won" or o == f"lost to {final.decided_by}" for o in outcomes)
    assert final.state in ("approved", "denied")


def test_a_request_past_its_deadline_cannot_be_approved(store: ApprovalStore) -> None:
    created = request(deadline_in=-1)
    store.create(created)
    with pytest.raises(AlreadyDecided) as error:
        store.decide(created.id, approved=True, by="secops-1")
    assert error.value.current.state == "expired"


def test_expire_keeps_an_answer_that_came_first(store: ApprovalStore) -> None:
    created = request()
    store.create(created)
    store.decide(created.id, approved=True, by="secops-1", grant="session")
    assert store.expire(created.id).state == "approved"
    other = request()
    store.create(other)
    assert store.expire(other.id).state == "expired"


def test_wait_wakes_up_soon_after_the_decision(store: ApprovalStore) -> None:
    created = request()
    store.create(created)

    def approve_later() -> None:
        time.sleep(0.3)
        store.decide(created.id, approved=True, by="secops-1")

    threading.Thread(target=approve_later).start()
    started = time.monotonic()
    final = store.wait(created.id, until=time.time() + 10)
    waited = time.monotonic() - started
    assert final.state == "approved"
    assert 0.25 < waited < 0.3 + 0.15  # resumes within 100 ms of the decision (+ slack)


def test_wait_returns_at_the_deadline(store: ApprovalStore) -> None:
    created = request(deadline_in=0.5)
    store.create(created)
    started = time.monotonic()
    final = store.wait(created.id, until=created.deadline)
    waited = time.monotonic() - started
    assert final.state == "pending"
    assert 0.45 <= waited <= 0.6


def test_grants_cover_what_their_scope_says(store: ApprovalStore) -> None:
    digest = call_digest("bash", {"command": "make deploy"})
    now = time.time()
    store.add_grant(Grant(digest, "ops", "session", "alice", "s1", "secops-1", "r1"))
    store.add_grant(Grant(digest, "ops", "window", "bob", "s9", "secops-1", "r2", expires=now + 60))
    assert store.find_grant("ops", digest, "s1", "carol", now) is not None  # same session
    assert store.find_grant("ops", digest, "s2", "alice", now) is None  # other session
    assert store.find_grant("ops", digest, "s5", "bob", now) is not None  # bob's window
    assert store.find_grant("ops", digest, "s5", "bob", now + 61) is None  # expired window
    other = call_digest("bash", {"command": "make deploy --force"})
    assert store.find_grant("ops", other, "s1", "alice", now) is None  # arguments changed
    assert store.find_grant("strict", digest, "s1", "alice", now) is None  # another pack's
    assert call_digest("bash", {"command": "make"}, "/srv/a") != call_digest(
        "bash", {"command": "make"}, "/srv/b"
    )


def test_denials_are_counted_per_call_and_session(store: ApprovalStore) -> None:
    for session in ("s1", "s1", "s2"):
        created = request(session=session)
        store.create(created)
        store.decide(created.id, approved=False, by="secops-1", reason="no")
    digest = call_digest("bash", {"command": "make deploy"})
    assert store.denials("ops", digest, "s1") == 2
    assert store.denials("ops", digest, "s2") == 1
    assert store.denials("ops", digest, "s3") == 0
    assert store.denials("strict", digest, "s1") == 0


def test_another_process_decides_and_the_waiting_call_resumes(
    store: ApprovalStore, uri: str
) -> None:
    if uri.startswith("memory://"):
        pytest.skip("memory:// is one process by definition")
    created = request()
    store.create(created)
    script = (
        "import sys, time; from policy.approvals import open_store; "
        "time.sleep(0.3); s = open_store(sys.argv[1]); "
        "s.decide(sys.argv[2], approved=True, by='secops-7', reason='looks fine'); s.close()"
    )
    child = subprocess.Popen([sys.executable, "-c", script, uri, created.id], cwd=ROOT)
    final = store.wait(created.id, until=time.time() + 20)
    child.wait(timeout=20)
    assert (final.state, final.decided_by, final.reason) == ("approved", "secops-7", "looks fine")


def test_pending_requests_survive_a_restart(store: ApprovalStore, uri: str) -> None:
    if uri.startswith("memory://"):
        pytest.skip("memory:// keeps nothing")
    created = request()
    store.create(created)
    store.close()
    reopened = open_store(uri)
    try:
        assert reopened.get(created.id) == created
        assert reopened.decide(created.id, approved=True, by="secops-1").state == "approved"
    finally:
        reopened.close()


def test_an_answer_that_commits_after_the_deadline_loses(store: ApprovalStore) -> None:
    """The deadline is judged inside the compare-and-set, not before it: an approver
    whose answer is checked just in time but lands late gets `expired`."""
    created = request(deadline_in=0.3)
    store.create(created)
    too_late = time.time() - 1  # `decide`'s own early check sees a deadline far ahead
    time.sleep(0.35)
    with pytest.raises(AlreadyDecided) as error:
        store._transition(created.id, "approved", "secops-1", "", "once", too_late)
    assert error.value.current.state == "expired"
    assert store.get(created.id).state == "expired"
