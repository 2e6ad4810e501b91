"""Every approval store keeps the same promises (policy/approvals/store.py).

Each test runs against `memory://`, a SQLite file, and a real `redis-server` the
tests start on a free loopback port.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sqlite3
import stat
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

from policy.approvals import (
    AlreadyClaimed,
    AlreadyDecided,
    ApprovalRequest,
    Grant,
    RequestNotFound,
    StoreError,
    open_store,
)
from policy.approvals import redis as redis_store
from policy.approvals import sqlite as sqlite_store
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


#: How long a wait may run past the moment it must end (a decision, its `until`): far
#: longer than it takes on any machine, however loaded, and far shorter than a wait
#: that missed that moment takes (`MISSED`).
LATE = 10.0
#: What a wait that missed its moment takes: it runs to its `until`, or to Redis's
#: recheck of the request, which the tests below set as long.
MISSED = 60.0


def test_wait_wakes_up_soon_after_the_decision(
    store: ApprovalStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Redis would find an unannounced decision at its next recheck (1 s): as long as
    # `until` here, so that only the announcement wakes the wait in time.
    monkeypatch.setattr(redis_store, "RECHECK_SECONDS", MISSED)
    created = request(deadline_in=2 * MISSED)
    store.create(created)
    decided_at: list[float] = []

    def approve_later() -> None:
        time.sleep(0.3)  # the wait is asleep by then
        store.decide(created.id, approved=True, by="secops-1")
        decided_at.append(time.monotonic())

    approver = threading.Thread(target=approve_later)
    approver.start()
    final = store.wait(created.id, until=time.time() + MISSED)
    woke = time.monotonic()
    approver.join()
    assert final.state == "approved"  # it waited for the decision
    assert woke - decided_at[0] < LATE  # and the decision woke it, not `until`


def test_wait_returns_at_the_deadline(
    store: ApprovalStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(redis_store, "RECHECK_SECONDS", MISSED)
    created = request(deadline_in=0.5)
    store.create(created)
    started = time.monotonic()
    final = store.wait(created.id, until=created.deadline)
    waited = time.monotonic() - started
    assert final.state == "pending"
    assert time.time() >= created.deadline  # not before it (the stores' clock)
    assert waited < 0.5 + LATE  # at it: not at the next recheck


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


def test_a_call_s_digest_is_its_own_whichever_mapping_holds_its_arguments() -> None:
    """An approval is bound to a call's digest; a call's small flat arguments are kept
    by their contents (`FrozenDict.content_key`), so each call repeated is digested
    alike — and never as another: not another tool, directory, principal, or values
    that only look alike (`1`, `1.0`, `true`)."""
    from policy.model import FrozenDict

    def digest(args: dict[str, object], cwd: str = "", principal: str = "", tool: str = "bash") -> str:
        return call_digest(tool, FrozenDict(args), cwd, principal)

    plain = call_digest("bash", {"command": "make deploy"})
    assert digest({"command": "make deploy"}) == digest({"command": "make deploy"}) == plain
    asked = [
        digest({"command": "make deploy"}, "/srv/a"),
        digest({"command": "make deploy"}, "/srv/a", "uid:1001"),
        digest({"command": "make deploy"}, tool="sh"),
        digest({"n": 1}),
        digest({"n": 1.0}),
        digest({"n": True}),
    ]
    assert len({plain, *asked}) == 1 + len(asked)
    assert asked == [
        call_digest("bash", {"command": "make deploy"}, "/srv/a"),
        call_digest("bash", {"command": "make deploy"}, "/srv/a", "uid:1001"),
        call_digest("sh", {"command": "make deploy"}),
        call_digest("bash", {"n": 1}),
        call_digest("bash", {"n": 1.0}),
        call_digest("bash", {"n": True}),
    ]


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


# ------------------------------------------------------------------ find, claim, purge


def approved_request(store: ApprovalStore, **fields: object) -> ApprovalRequest:
    created = request(**fields)
    store.create(created)
    return store.decide(created.id, approved=True, by="secops-1")


def test_new_fields_round_trip(store: ApprovalStore) -> None:
    created = request(agent_uid=1000)
    store.create(created)
    assert store.get(created.id) == created
    assert (store.get(created.id).agent_uid, store.get(created.id).claimed_at) == (1000, None)
    anonymous = request()
    store.create(anonymous)
    assert store.get(anonymous.id).agent_uid is None


def test_find_returns_the_requests_for_exactly_that_call_newest_first(
    store: ApprovalStore,
) -> None:
    digest = call_digest("bash", {"command": "make deploy"})
    now = time.time()
    first = request(created=now - 30)
    second = request(created=now - 20)
    third = request(created=now - 10)
    for made in (second, first, third):  # stored out of order
        store.create(made)
    store.decide(first.id, approved=False, by="secops-1")
    store.create(request(session="s2"))
    store.create(request(pack="strict"))
    store.create(request(digest=call_digest("bash", {"command": "make"})))
    found = store.find("ops", digest, "s1")
    assert [r.id for r in found] == [third.id, second.id, first.id]
    assert [r.state for r in found] == ["pending", "pending", "denied"]
    assert store.find("ops", digest, "s9") == []
    assert store.find("ops", "0" * 64, "s1") == []


def test_an_approval_is_claimed_exactly_once_under_a_race(store: ApprovalStore) -> None:
    approved = approved_request(store)
    outcomes: list[str] = []
    lock = threading.Lock()

    def claim() -> None:
        try:
            store.claim(approved.id)
            result = "won"
        except AlreadyClaimed as exc:
            result = "lost" if exc.current.claimed_at is not None else "lost, unclaimed"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=claim) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["lost"] * 11 + ["won"]
    final = store.get(approved.id)
    assert final.state == "approved" and final.claimed_at is not None
    # Everything but the claim is as the decision left it.
    assert dataclasses.replace(final, claimed_at=None) == approved


def test_identical_retries_racing_each_other_file_one_request(store: ApprovalStore) -> None:
    """`file` is atomic: of 12 retries of one call filing at once, one request is
    filed and every retry gets it back (approvals.md: one pending request per call)."""
    got: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(12)

    def retry() -> None:
        start.wait()
        filed = store.file(request(agent_uid=1001))
        with lock:
            got.append(filed.id)

    threads = [threading.Thread(target=retry) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(got)) == 1
    assert [r.id for r in store.list()] == got[:1]


def test_a_retry_is_a_twin_only_of_the_same_call_for_the_same_people(
    store: ApprovalStore,
) -> None:
    first = store.file(request(agent_uid=1001))
    assert store.file(request(agent_uid=1001)).id == first.id
    others = [
        request(agent_uid=1002),  # another agent's uid
        request(agent_uid=1001, session="s2"),
        request(agent_uid=1001, pack="other"),
        request(agent_uid=1001, approvers=("dba-*",)),
        request(agent_uid=1001, digest=call_digest("bash", {"command": "make test"})),
    ]
    ids = {store.file(other).id for other in others}
    assert first.id not in ids and len(ids) == len(others)
    # Once it is decided, the same call asks afresh.
    store.decide(first.id, approved=False, by="secops-bob")
    again = store.file(request(agent_uid=1001))
    assert again.id != first.id and again.state == "pending"
    # Past its deadline, a pending request is no twin either.
    late = store.file(request(deadline_in=-1.0, agent_uid=7, session="late"))
    assert store.file(request(agent_uid=7, session="late")).id != late.id


def test_only_an_unused_approval_can_be_claimed(store: ApprovalStore) -> None:
    approved = approved_request(store)
    claimed = store.claim(approved.id, now=1234.5)
    assert claimed.claimed_at == 1234.5 and store.get(approved.id) == claimed
    with pytest.raises(AlreadyClaimed, match="was already used") as error:
        store.claim(approved.id)
    assert error.value.current == claimed
    pending = request()
    store.create(pending)
    denied = request()
    store.create(denied)
    store.decide(denied.id, approved=False, by="secops-1")
    expired = request(deadline_in=-1)
    store.create(expired)
    store.expire(expired.id)
    for other, state in ((pending, "pending"), (denied, "denied"), (expired, "expired")):
        with pytest.raises(AlreadyClaimed, match=f"is {state}, not approved") as error:
            store.claim(other.id)
        assert error.value.current.state == state
        assert store.get(other.id).claimed_at is None
    with pytest.raises(RequestNotFound):
        store.claim("nope")


_CLAIMER = """
import sys, time
from policy.approvals import AlreadyClaimed, open_store
store = open_store(sys.argv[1])
start = float(sys.argv[3])
time.sleep(max(0.0, start - time.time()))
try:
    store.claim(sys.argv[2])
    print("won")
except AlreadyClaimed:
    print("lost")
store.close()
"""


def test_claimers_in_several_processes_get_one_approval_once(
    store: ApprovalStore, uri: str
) -> None:
    if uri.startswith("memory://"):
        pytest.skip("memory:// is one process by definition")
    approved = approved_request(store)
    start = time.time() + 1.5  # every child imported and connected by then
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _CLAIMER, uri, approved.id, repr(start)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(6)
    ]
    outcomes = sorted(child.communicate(timeout=30)[0].strip() for child in children)
    assert outcomes == ["lost"] * 5 + ["won"]
    assert store.get(approved.id).claimed_at is not None


def test_purge_deletes_what_ended_before_the_time(store: ApprovalStore) -> None:
    now = time.time()
    digest = call_digest("bash", {"command": "make deploy"})
    old, recent = now - 3600, now - 60

    def ended(state: str, at: float) -> ApprovalRequest:
        made = request(created=at - 10)
        store.create(made)
        if state == "expired":
            return store.expire(made.id, now=at)
        return store.decide(made.id, approved=state == "approved", by="secops-1", now=at)

    gone = [ended("approved", old), ended("denied", old), ended("expired", old)]
    kept = [ended("approved", recent), ended("denied", recent), ended("expired", recent)]
    # Pending with its deadline long past (its caller is gone): nobody can approve it.
    abandoned = request(created=old - 10, deadline=old)
    store.create(abandoned)
    gone.append(abandoned)
    waiting = request(created=old - 10, deadline=now + 60)  # still pending, still waited on
    store.create(waiting)
    kept.append(waiting)
    grants = [
        Grant(digest, "ops", "window", "bob", "s1", "secops-1", "r1", expires=old, created=old),
        Grant(digest, "ops", "session", "bob", "s1", "secops-1", "r2", created=old),
        Grant(digest, "ops", "window", "bob", "s1", "secops-1", "r3", expires=now + 60),
        Grant(digest, "ops", "session", "bob", "s2", "secops-1", "r4", created=recent),
    ]
    other_digest = call_digest("bash", {"command": "ls"})
    grants.append(Grant(other_digest, "ops", "session", "bob", "s1", "secops-1", "r5", created=old))
    for grant in grants:
        store.add_grant(grant)

    assert store.purge(now - 600) == len(gone) + 3
    remaining = {r.id for r in store.list(None)}
    assert remaining == {r.id for r in kept}
    assert [g.request_id for g in store.grants_for(digest)] == ["r3", "r4"]
    assert store.grants_for(other_digest) == []
    assert {r.id for r in store.find("ops", digest, "s1")} == remaining
    for request_ in gone:
        with pytest.raises(RequestNotFound):
            store.get(request_.id)
    assert store.purge(now - 600) == 0
    # An hour on, even the pending request's deadline has passed.
    assert store.purge(now + 3600) == len(kept) + 2
    assert store.list(None) == []


def test_a_store_with_a_retention_purges_once_on_its_first_create(uri: str) -> None:
    old = time.time() - 3 * 86400

    def old_denial(store: ApprovalStore) -> ApprovalRequest:
        made = request(created=old - 10)
        store._insert(made)  # filed without the purge `create` may do
        return store.decide(made.id, approved=False, by="secops-1", now=old)

    with contextlib.closing(open_store(uri, retention=86400)) as store:
        first = old_denial(store)
        store.create(request())
        with pytest.raises(RequestNotFound):
            store.get(first.id)
        second = old_denial(store)
        store.create(request())  # not the first create of this store: no purge
        assert store.get(second.id).state == "denied"
        if uri.startswith("memory://"):
            return
    with contextlib.closing(open_store(uri)) as plain:
        plain.create(request())  # no retention: no purge
        assert plain.get(second.id).state == "denied"
    with contextlib.closing(open_store(uri, retention=86400)) as again:
        again.create(request())
        with pytest.raises(RequestNotFound):
            again.get(second.id)
    with pytest.raises(StoreError, match="retention must be positive"):
        open_store(uri, retention=0)


# ------------------------------------------------------------------ SQLite files


def _v1_file(path: Path) -> ApprovalRequest:
    """A store file as version 1 wrote it, holding one pending request."""
    made = request()
    columns = [name for name in sqlite_store._REQUEST_COLUMNS if name not in _LATER_COLUMNS]
    data = made.to_dict()
    values = [
        orjson.dumps(data[c]).decode()
        if c in sqlite_store._JSON_COLUMNS
        else int(data[c])
        if c == "self_approval"
        else data[c]
        for c in columns
    ]
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.executescript(sqlite_store._SCHEMA_V1)
        conn.execute(
            f"INSERT INTO requests ({sqlite_store._quoted(columns)}) "
            f"VALUES ({', '.join('?' for _ in columns)})",
            values,
        )
        conn.execute("PRAGMA user_version = 1")
        conn.commit()
    return made


# added by versions 2, 4 and 5
_LATER_COLUMNS = ("agent_uid", "claimed_at", "cwd", "principal", "rules", "message")


def test_a_version_1_file_is_migrated(tmp_path: Path) -> None:
    path = tmp_path / "approvals.db"
    made = _v1_file(path)
    with contextlib.closing(open_store(f"sqlite:///{path}")) as store:
        assert store.get(made.id) == made
        assert store.find("ops", made.digest, "s1") == [made]
        approved = store.decide(made.id, approved=True, by="secops-1")
        assert store.claim(approved.id, now=5.0).claimed_at == 5.0
    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == sqlite_store.SCHEMA_VERSION
        indexes = {row[1] for row in conn.execute("PRAGMA index_list(requests)")}
        assert {"requests_by_digest", "requests_by_principal"} <= indexes
    with contextlib.closing(open_store(f"sqlite:///{path}")) as again:  # opens as is
        assert again.get(made.id).claimed_at == 5.0


def test_a_file_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "approvals.db"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute(f"PRAGMA user_version = {sqlite_store.SCHEMA_VERSION + 1}")
        conn.commit()
    with pytest.raises(StoreError, match="newer than this hookpolicy understands"):
        open_store(f"sqlite:///{path}")


def test_the_sqlite_file_and_its_journal_are_private(tmp_path: Path) -> None:
    directory = tmp_path / "data" / "hookpolicy"
    path = directory / "approvals.db"
    old_umask = os.umask(0o022)
    try:
        store = open_store(f"sqlite:///{path}")
        # A reader keeps the -wal and -shm files in place (the last connection to
        # close would checkpoint and remove them).
        with contextlib.closing(sqlite3.connect(path)) as reader:
            reader.execute("SELECT count(*) FROM requests").fetchall()
            store.create(request())
            modes = {
                name: stat.S_IMODE(os.stat(directory / name).st_mode)
                for name in ("approvals.db", "approvals.db-wal", "approvals.db-shm")
            }
        store.close()
    finally:
        os.umask(old_umask)
    assert modes == dict.fromkeys(modes, 0o600)
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_a_loose_store_file_of_ours_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "approvals.db"
    with contextlib.closing(open_store(f"sqlite:///{path}")):
        pass
    path.chmod(0o644)
    with contextlib.closing(open_store(f"sqlite:///{path}")):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_pending_requests_are_counted_per_principal(store: ApprovalStore) -> None:
    for principal in ("uid:1001", "uid:1001", "uid:1002", ""):
        store.create(request(principal=principal))
    store.create(request(principal="uid:1001", deadline_in=-1.0))  # past: nobody answers
    answered = request(principal="uid:1001")
    store.create(answered)
    store.decide(answered.id, approved=False, by="secops-bob")
    assert store.count_pending("uid:1001") == 2
    assert store.count_pending("uid:1002") == 1
    assert store.count_pending("token:ci") == 0


# ------------------------------------------------------------------ what asked, and expiry


def test_every_store_keeps_the_rules_that_asked_and_their_message(store: ApprovalStore) -> None:
    asked = request(
        rules=("ops/deploys-need-secops", "ops/approval"), message="deploys need secops"
    )
    store.create(asked)
    assert store.get(asked.id).rules == ("ops/deploys-need-secops", "ops/approval")
    assert store.get(asked.id).message == "deploys need secops"
    denied = store.decide(asked.id, approved=False, by="secops-bob")
    assert (denied.rules, denied.message) == (asked.rules, asked.message)
    (listed,) = store.list("denied")
    assert listed == denied


def test_a_pending_request_past_its_deadline_is_listed_as_expired(store: ApprovalStore) -> None:
    from policy.approvals.store import listing

    late, waiting = request(deadline_in=-1.0), request()
    store.create(late)
    store.create(waiting)
    assert [r.id for r in listing(store, "pending")] == [waiting.id]
    (expired,) = listing(store, "expired")
    assert (expired.id, expired.state) == (late.id, "expired")
    assert {r.id: r.state for r in listing(store, None)} == {
        late.id: "expired",
        waiting.id: "pending",
    }
    assert store.get(late.id).state == "pending"  # shown so; the store records it on touch


def test_a_version_4_file_keeps_its_rows_and_gains_the_rules_columns(tmp_path: Path) -> None:
    path = tmp_path / "approvals.db"
    made = _v1_file(path)
    with contextlib.closing(sqlite3.connect(path)) as conn:  # as version 4 left it
        for step in (2, 3, 4):
            for statement in sqlite_store._MIGRATIONS[step]:
                conn.execute(statement)
        conn.execute("PRAGMA user_version = 4")
        conn.commit()
    with contextlib.closing(open_store(f"sqlite:///{path}")) as store:
        kept = store.get(made.id)
        assert kept == made and (kept.rules, kept.message) == ((), "")
        newer = request(rules=("ops/r1",), message="why")
        store.create(newer)
        assert store.get(newer.id).rules == ("ops/r1",)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 5
        assert conn.execute("SELECT COUNT(*) FROM requests").fetchone()[0] == 2
