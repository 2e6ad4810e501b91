"""Who is approving (policy/approvals/identity.py, rules.decide, `policy approvals`).

The identity is the OS user running the CLI, mapped through `approvers_map` only
when the agent's uid cannot write that file; `--as` is root's alone. The tests run
as root (CI does too), so "the agent" is posed as uid 1000 — files are chowned to it
where a real owner matters, and `Writer`/`FileInfo` are injected where the question
is about groups or ACLs.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import orjson
import pytest

from policy.approvals import ApprovalRequest, open_store
from policy.approvals.identity import (
    ApproversMapError,
    FileInfo,
    Identity,
    IdentityRefused,
    Writer,
    load_approvers_map,
    os_user,
    resolve,
    writable_by,
)
from policy.approvals.rules import NotAllowed, decide
from policy.approvals.store import ApprovalStore, call_digest
from policy.cli import main

ROOT = Path(__file__).resolve().parent.parent
AGENT = 1000
AGENT_WRITER = Writer(AGENT, frozenset({AGENT}))

needs_root = pytest.mark.skipif(os.getuid() != 0, reason="chown needs root (CI runs as root)")


def request(**fields: object) -> ApprovalRequest:
    now = time.time()
    values: dict[str, object] = {
        "id": uuid.uuid4().hex[:12],
        "tool": "bash",
        "digest": call_digest("bash", {"command": "make deploy"}),
        "args": {"command": "make deploy"},
        "requester": "erin",
        "session": "s1",
        "pack": "ops",
        "created": now,
        "deadline": now + 60,
        "approvers": ("secops-*",),
        "grants": ("once", "session"),
        "agent_uid": AGENT,
    }
    values.update(fields)
    return ApprovalRequest(**values)  # type: ignore[arg-type]


@pytest.fixture
def store() -> ApprovalStore:
    return open_store("memory://")


def filed(store: ApprovalStore, **fields: object) -> ApprovalRequest:
    made = request(**fields)
    store.create(made)
    return made


def private_tree(tmp_path: Path) -> Path:
    """A root-owned 0755 directory for map files (tmp_path's own parents are root's)."""
    directory = tmp_path / "etc"
    directory.mkdir(mode=0o755)
    directory.chmod(0o755)
    return directory


def map_file(directory: Path, text: str, mode: int = 0o644, owner: int = 0, group: int = 0) -> Path:
    path = directory / "approvers.yaml"
    path.write_text(text)
    os.chown(path, owner, group)
    path.chmod(mode)
    return path


# ------------------------------------------------------------------ who may write


@needs_root
def test_a_root_owned_0644_file_is_out_of_the_agents_reach(tmp_path: Path) -> None:
    path = map_file(private_tree(tmp_path), "alice: [secops-alice]\n")
    assert writable_by(path, AGENT_WRITER) is None
    assert writable_by(path, Writer(AGENT, None)) is None  # unknown groups: no group bit set


@needs_root
def test_a_file_the_agent_owns_or_may_write_is_in_its_reach(tmp_path: Path) -> None:
    directory = private_tree(tmp_path)
    owned = map_file(directory, "alice: x\n", owner=AGENT)
    assert writable_by(owned, AGENT_WRITER) == f"{owned} is owned by uid {AGENT}"
    grouped = map_file(directory, "alice: x\n", mode=0o664, group=AGENT)
    assert writable_by(grouped, AGENT_WRITER) == (
        f"{grouped} is writable by group {AGENT} (mode 0664), one of uid {AGENT}'s"
    )
    other_group = map_file(directory, "alice: x\n", mode=0o664, group=4242)
    assert writable_by(other_group, AGENT_WRITER) is None
    assert "groups are unknown" in str(writable_by(other_group, Writer(AGENT, None)))
    everyone = map_file(directory, "alice: x\n", mode=0o646)
    assert writable_by(everyone, AGENT_WRITER) == f"{everyone} is writable by everyone (mode 0646)"
    assert writable_by(map_file(directory, "x: y\n"), Writer(0, frozenset({0}))) == (
        "uid 0 may write anything"
    )


@needs_root
def test_a_directory_above_the_file_counts_too(tmp_path: Path) -> None:
    directory = private_tree(tmp_path)
    path = map_file(directory, "alice: x\n")
    os.chown(directory, AGENT, AGENT)
    assert writable_by(path, AGENT_WRITER) == f"{directory} is owned by uid {AGENT}"
    os.chown(directory, 0, 0)
    directory.chmod(0o775)
    os.chown(directory, 0, AGENT)
    assert "one of uid 1000's" in str(writable_by(path, AGENT_WRITER))


@needs_root
def test_a_sticky_directory_protects_only_what_the_agent_does_not_own(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    theirs = map_file(shared, "alice: x\n")
    assert writable_by(theirs, AGENT_WRITER) is None
    os.chown(theirs, AGENT, AGENT)
    assert writable_by(theirs, AGENT_WRITER) == f"{theirs} is owned by uid {AGENT}"
    shared.chmod(0o777)  # without the sticky bit, the agent may replace anybody's file
    os.chown(theirs, 0, 0)
    assert writable_by(theirs, AGENT_WRITER) == f"{shared} is writable by everyone (mode 0777)"


@needs_root
def test_a_link_in_the_agents_directory_is_in_its_reach(tmp_path: Path) -> None:
    target = map_file(private_tree(tmp_path), "alice: x\n")
    agents = tmp_path / "agent"
    agents.mkdir()
    os.chown(agents, AGENT, AGENT)
    link = agents / "approvers.yaml"
    link.symlink_to(target)
    assert writable_by(link, AGENT_WRITER) == f"{agents} is owned by uid {AGENT}"
    # ... and a link the agent cannot touch, to a file it owns, is judged by its target.
    os.chown(target, AGENT, AGENT)
    other = tmp_path / "other"
    other.mkdir()
    safe = private_tree(other)
    (safe / "link.yaml").symlink_to(target)
    assert writable_by(safe / "link.yaml", AGENT_WRITER) == (
        f"{safe / 'link.yaml'} is owned by uid {AGENT}"  # the link's stat is its target's
    )


def test_group_bits_under_an_acl_count_as_writable(tmp_path: Path) -> None:
    """An ACL can grant write to a user through a group-bits mask the mode shows as
    group-writable; its entries are not read, so such a file is refused."""

    class Posed(FileInfo):
        def stat(self, path: str) -> os.stat_result:
            mode = stat.S_IFREG | 0o664 if path.endswith(".yaml") else stat.S_IFDIR | 0o755
            return os.stat_result((mode, 0, 0, 1, 0, 4242, 0, 0, 0, 0))

        def has_acl(self, path: str) -> bool:
            return path.endswith(".yaml")

        def realpath(self, path: str) -> str:
            return path

    why = writable_by(Path("/srv/policy/approvers.yaml"), AGENT_WRITER, Posed())
    assert why == "/srv/policy/approvers.yaml has an ACL that may let uid 1000 write it (mode 0664)"


# ------------------------------------------------------------------ the map file


def test_the_map_is_read_strictly(tmp_path: Path) -> None:
    path = tmp_path / "approvers.yaml"
    path.write_text("alice: [secops-alice]\nbob: [secops-bob, dba-bob]\ncarol: dba-carol\n")
    assert load_approvers_map(path) == {
        "alice": ("secops-alice",),
        "bob": ("secops-bob", "dba-bob"),
        "carol": ("dba-carol",),
    }
    path.write_text("")
    assert load_approvers_map(path) == {}
    bad = {
        "- alice\n": "1:1: expected a mapping",
        "alice: [secops-alice, 3]\n": "1:23: alice: 3 is not an approver name",
        "alice: {x: 1}\n": "1:8: alice: expected an approver name or a non-empty list",
        "alice: []\n": "1:8: alice: expected an approver name or a non-empty list",
        "alice: [secops alice]\n": "1:9: alice: 'secops alice' is not an approver name",
        "alice: a\nalice: b\n": "2:1:",  # duplicate key
        "alice: a\n1000: b\n": "2:1: 1000 is not an OS user name",
    }
    for text, message in bad.items():
        path.write_text(text)
        with pytest.raises(ApproversMapError) as error:
            load_approvers_map(path)
        assert f"approvers_map {path}:{message}" in str(error.value), text
    with pytest.raises(ApproversMapError, match="cannot read it"):
        load_approvers_map(tmp_path / "missing.yaml")


# ------------------------------------------------------------------ resolving


def test_as_is_root_acting_for_somebody(tmp_path: Path) -> None:
    assert resolve(as_name="secops-1", uid=0) == Identity("root", ("secops-1",))
    with pytest.raises(IdentityRefused, match="identity comes from the OS user"):
        resolve(as_name="secops-1", uid=AGENT)
    with pytest.raises(IdentityRefused, match="not an approver name"):
        resolve(as_name="", uid=0)
    # --as never consults the map (root is acting for somebody it names).
    assert resolve(as_name="x", uid=0, approvers_map=tmp_path / "missing.yaml").names == ("x",)


def test_without_a_map_the_identity_is_the_os_user() -> None:
    assert resolve(uid=0) == Identity("root", uid=0)
    assert resolve() == Identity(os_user(), uid=os.getuid())
    assert os_user(987654) == "987654"  # a uid without a name is its number


@needs_root
def test_a_map_out_of_the_agents_reach_is_honoured(tmp_path: Path) -> None:
    path = map_file(private_tree(tmp_path), "root: [secops-root, dba-root]\nalice: secops-a\n")
    warned: list[str] = []
    identity = resolve(approvers_map=path, agent_uid=AGENT, uid=0, warn=warned.append)
    assert identity == Identity("root", ("secops-root", "dba-root"), uid=0)
    assert warned == []
    # A user the map does not list is themselves.
    assert resolve(
        approvers_map=path, agent_uid=AGENT, uid=4242, writer=lambda uid: AGENT_WRITER
    ) == Identity(os_user(4242), uid=4242)


@needs_root
def test_a_map_in_the_agents_reach_is_refused_with_the_reason(tmp_path: Path) -> None:
    directory = private_tree(tmp_path)
    for owner, group, mode in ((AGENT, 0, 0o644), (0, AGENT, 0o664)):
        path = map_file(directory, "root: [secops-root]\n", mode=mode, owner=owner, group=group)
        warned: list[str] = []
        identity = resolve(
            approvers_map=path,
            agent_uid=AGENT,
            uid=0,
            writer=lambda uid: AGENT_WRITER,
            warn=warned.append,
        )
        assert identity == Identity("root", uid=0)
        (message,) = warned
        assert message.startswith(f"approvers_map {path} is writable by uid 1000 (the agent's: ")
        assert message.endswith("): mapping refused; deciding as OS user 'root'")
    # A request that does not say who filed it: this process's uid stands in (root here).
    safe = map_file(directory, "root: [secops-root]\n")
    warned = []
    assert resolve(approvers_map=safe, uid=0, warn=warned.append) == Identity("root", uid=0)
    assert "writable by uid 0 (the agent's: uid 0 may write anything)" in warned[0]
    # A missing or malformed map is an error, not a silent fallback.
    with pytest.raises(ApproversMapError, match="cannot read it"):
        resolve(approvers_map=directory / "missing.yaml", agent_uid=AGENT, uid=0)
    bad = map_file(directory, "root: []\n")
    with pytest.raises(ApproversMapError, match="1:7: root: expected"):
        resolve(approvers_map=bad, agent_uid=AGENT, uid=0)


# ------------------------------------------------------------------ deciding


def test_any_of_the_identitys_names_may_match_the_approvers(store: ApprovalStore) -> None:
    made = filed(store, approvers=("dba-*",))
    decided = decide(
        store, made.id, approved=True, identity=Identity("bob", ("secops-bob", "dba-bob"))
    )
    assert decided.decided_by == "dba-bob (os user bob)"
    anyone = filed(store, approvers=())
    assert (
        decide(store, anyone.id, approved=True, identity=Identity("alice", ("secops-alice",)))
    ).decided_by == "secops-alice (os user alice)"
    plain = filed(store, approvers=())
    assert decide(store, plain.id, approved=True, identity=Identity("carol")).decided_by == "carol"
    shorthand = filed(store)
    assert decide(store, shorthand.id, approved=True, by="secops-9").decided_by == "secops-9"


def test_the_uid_that_filed_a_request_cannot_approve_it_whatever_names_it_has(
    store: ApprovalStore,
) -> None:
    """The requester's name comes from the host's environment; the filing uid is a fact."""
    made = filed(store, approvers=(), requester="dev", agent_uid=1000)
    with pytest.raises(NotAllowed, match=r"self-approval refused: uid 1000 \(bob\)"):
        decide(store, made.id, approved=True, identity=Identity("bob", uid=1000))
    assert decide(store, made.id, approved=False, identity=Identity("bob", uid=1000)).state == (
        "denied"  # denying your own call is always allowed
    )
    other = filed(store, approvers=(), requester="dev", agent_uid=1000)
    decided = decide(store, other.id, approved=True, identity=Identity("carol", uid=1001))
    assert decided.state == "approved"


def test_an_identity_outside_the_approvers_is_refused(store: ApprovalStore) -> None:
    made = filed(store)
    with pytest.raises(NotAllowed, match=r"^'carol' may not decide this request \(approvers"):
        decide(store, made.id, approved=True, identity=Identity("carol"))
    with pytest.raises(NotAllowed) as error:
        decide(store, made.id, approved=False, identity=Identity("dave", ("dba-dave", "ops-d")))
    assert str(error.value) == (
        "'dba-dave' / 'ops-d' may not decide this request (approvers: secops-*; os user 'dave')"
    )
    with pytest.raises(NotAllowed, match="identity is required"):
        decide(store, made.id, approved=True)
    assert store.get(made.id).state == "pending"


def test_self_approval_is_refused_through_the_mapping(store: ApprovalStore) -> None:
    alice = Identity("alice", ("secops-alice",))
    for requester in ("alice", "secops-alice"):  # the OS user, or the name it maps to
        made = filed(store, requester=requester)
        with pytest.raises(NotAllowed, match=f"self-approval refused: '{requester}' asked"):
            decide(store, made.id, approved=True, identity=alice)
        assert decide(store, made.id, approved=False, identity=alice).state == "denied"
    lenient = filed(store, requester="alice", self_approval=True)
    assert decide(store, lenient.id, approved=True, identity=alice).state == "approved"


# ------------------------------------------------------------------ the command line


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["approvals", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def sqlite_uri(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'state' / 'approvals.db'}"


def settings_file(tmp_path: Path, approvers_map: Path | None, **more: str) -> Path:
    lines = [f"approvers_map: {approvers_map}"] if approvers_map else []
    lines += [f"{key}: {value}" for key, value in more.items()]
    path = tmp_path / "policy.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_as_is_refused_for_anybody_but_root(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, sqlite_uri: str
) -> None:
    store = open_store(sqlite_uri)
    made = filed(store)
    monkeypatch.setattr(os, "getuid", lambda: AGENT)
    code, out, err = cli(capsys, "approve", made.id, "--as", "secops-1", "--store", sqlite_uri)
    assert (code, out) == (2, "")
    assert "the approver's identity comes from the OS user" in err
    assert store.get(made.id).state == "pending"


@pytest.mark.skipif(
    os.getuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv"
)
def test_as_is_refused_for_a_real_non_root_user(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    env["XDG_DATA_HOME"] = str(tmp_path / "xdg")
    done = subprocess.run(
        [
            "setpriv",
            f"--reuid={AGENT}",
            f"--regid={AGENT}",
            "--clear-groups",
            # read the checkout wherever it is (a 0700 temporary directory, say), as
            # tests/test_hook_approvals_e2e.py does; the uid stays a non-root one
            "--inh-caps=+dac_read_search",
            "--ambient-caps=+dac_read_search",
            sys.executable,
            "-m",
            "policy",
            "approvals",
            "approve",
            "3f2a9c1b0d4e",
            "--as",
            "secops-bob",
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "--as is for root acting for somebody" in done.stderr


@needs_root
def test_root_may_act_for_somebody(capsys: pytest.CaptureFixture[str], sqlite_uri: str) -> None:
    store = open_store(sqlite_uri)
    made = filed(store)
    code, out, _ = cli(capsys, "approve", made.id, "--as", "secops-1", "--store", sqlite_uri)
    assert (code, out) == (0, f"{made.id}: approved by secops-1 (os user root), grant once\n")


@needs_root
def test_the_cli_decides_as_the_mapped_os_user(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sqlite_uri: str
) -> None:
    approvers = map_file(private_tree(tmp_path), "root: [secops-root]\n")
    config = settings_file(tmp_path, approvers)
    store = open_store(sqlite_uri)
    made = filed(store)
    code, out, err = cli(capsys, "approve", made.id, "--config", str(config), "--store", sqlite_uri)
    assert (code, err) == (0, "")
    assert out == f"{made.id}: approved by secops-root (os user root), grant once\n"
    assert store.get(made.id).decided_by == "secops-root (os user root)"


@needs_root
def test_the_cli_refuses_a_map_the_agent_could_write(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sqlite_uri: str
) -> None:
    approvers = map_file(private_tree(tmp_path), "root: [secops-root]\n", mode=0o664, group=AGENT)
    audit = tmp_path / "decisions.log"
    config = settings_file(tmp_path, approvers, audit_path=str(audit))
    store = open_store(sqlite_uri)
    made = filed(store)
    code, out, err = cli(capsys, "approve", made.id, "--config", str(config), "--store", sqlite_uri)
    assert (code, out) == (1, "")
    assert f"policy: approvers_map {approvers} is writable by uid 1000 (the agent's: " in err
    assert "mapping refused; deciding as OS user 'root'" in err
    assert "'root' may not decide this request (approvers: secops-*)" in err
    assert store.get(made.id).state == "pending"
    (refused,) = [orjson.loads(line) for line in audit.read_bytes().splitlines()]
    assert (refused["event"], refused["identity"], refused["os_user"]) == (
        "approval.refused",
        "root",
        "root",
    )


@needs_root
def test_the_cli_refuses_self_approval_through_the_mapping(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sqlite_uri: str
) -> None:
    approvers = map_file(private_tree(tmp_path), "root: [secops-root]\n")
    config = settings_file(tmp_path, approvers)
    store = open_store(sqlite_uri)
    made = filed(store, requester="secops-root")
    code, _, err = cli(capsys, "approve", made.id, "--config", str(config), "--store", sqlite_uri)
    assert code == 1
    assert "self-approval refused: 'secops-root' asked for this call" in err
    code, out, _ = cli(capsys, "deny", made.id, "--config", str(config), "--store", sqlite_uri)
    assert (code, out) == (0, f"{made.id}: denied by secops-root (os user root)\n")


def test_a_bad_map_stops_the_cli(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sqlite_uri: str
) -> None:
    config = settings_file(tmp_path, tmp_path / "missing.yaml")
    made = filed(open_store(sqlite_uri))
    code, _, err = cli(capsys, "approve", made.id, "--config", str(config), "--store", sqlite_uri)
    assert code == 2
    assert "cannot read it" in err


def test_purge_deletes_what_ended_long_ago(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, sqlite_uri: str
) -> None:
    store = open_store(sqlite_uri)
    old = time.time() - 40 * 86400
    for at in (old, old, time.time() - 3 * 86400):
        made = filed(store, created=at - 10)
        store.decide(made.id, approved=False, by="secops-1", now=at)
    code, out, _ = cli(capsys, "purge", "--store", sqlite_uri)  # the 30-day default
    assert code == 0 and out.startswith("purged 2 requests and grants that ended before ")
    code, out, _ = cli(capsys, "purge", "--before", "1d", "--store", sqlite_uri)
    assert code == 0 and out.startswith("purged 1 ")
    config = settings_file(tmp_path, None, approvals_retention="null")
    code, _, err = cli(capsys, "purge", "--config", str(config), "--store", sqlite_uri)
    assert code == 2 and "--before" in err
    code, _, err = cli(capsys, "purge", "--before", "soon", "--store", sqlite_uri)
    assert code == 2 and "'soon' is not a duration" in err


def test_show_says_who_filed_the_request_and_whether_it_was_used(
    capsys: pytest.CaptureFixture[str], sqlite_uri: str
) -> None:
    store = open_store(sqlite_uri)
    made = filed(store)
    store.decide(made.id, approved=True, by="secops-1")
    store.claim(made.id, now=0.0)
    _, out, _ = cli(capsys, "show", made.id, "--store", sqlite_uri)
    assert "agent_uid     1000\n" in out
    assert "claimed_at    1970-01-01T00:00:00+00:00\n" in out
