"""The decision log heals and stays private (issue 19, findings 6 and 9).

A write cut short leaves bytes after the last newline; the next writer moves them
verbatim into a 0600 sidecar, cuts the log back to its last complete line and
chains a `log_torn` record naming them, so a full disk costs refusals while it
lasts and nothing after. `policy audit verify` names each healed tear and proves
the rest; a line deleted or edited in the middle still fails.
"""

from __future__ import annotations

import datetime as dt
import errno
import hashlib
import multiprocessing
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Action, Engine, ToolCall
from policy.audit_verify import verify_file
from policy.errors import AuditError
from policy.settings import Settings
from tests.conftest import make_engine

POLICY = str(Path(sys.executable).with_name("policy"))
ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    environment = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    return subprocess.run(
        [*args], capture_output=True, env=environment, timeout=120, cwd=ROOT, check=False
    )


def verify(log: Path) -> subprocess.CompletedProcess[bytes]:
    """`policy audit verify LOG`, run as a user runs it."""
    return run(POLICY, "audit", "verify", str(log))


def records(log: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in log.read_bytes().splitlines()]


def sidecars(log: Path) -> list[Path]:
    return sorted(log.parent.glob(f"{log.name}.torn-*"))


def decide(engine: Engine, n: int) -> Any:
    return engine.before_tool(ToolCall(tool="bash", args={"command": f"echo {n}"}, sender="bob"))


def cut_record(log: Path) -> bytes:
    """The first 57 bytes of a real record (of another log), as a write cut short leaves."""
    other = log.with_name("other.log")
    with make_engine(other) as engine:
        decide(engine, 99)
    return other.read_bytes()[:57]


def tear(log: Path, torn: bytes) -> None:
    with open(log, "ab") as handle:
        handle.write(torn)


def assert_healed(log: Path, torn: bytes, verified: subprocess.CompletedProcess[bytes]) -> None:
    """One tear, recorded and kept verbatim, and `policy audit verify` says so (exit 0)."""
    (sidecar,) = sidecars(log)
    assert sidecar.read_bytes() == torn
    assert stat.S_IMODE(sidecar.stat().st_mode) == 0o600
    (record,) = [r for r in records(log) if r["event"] == "log_torn"]
    assert record["sidecar"] == sidecar.name
    assert record["length"] == len(torn)
    assert record["sha256"] == hashlib.sha256(torn).hexdigest()
    assert torn not in log.read_bytes()
    out = verified.stdout.decode()
    assert verified.returncode == 0, out
    lines = verify_file(log).lines
    assert out.startswith(f"{log}: OK, {lines} lines, head "), out
    assert out.splitlines()[0].endswith(", 1 healed tear")
    number = next(i for i, r in enumerate(records(log), 1) if r["event"] == "log_torn")
    assert out.splitlines()[1] == (
        f"{log}:{number}: healed tear: {len(torn)} bytes of a line cut short at offset "
        f"{record['offset']} were moved to {sidecar.name} (sha256 {record['sha256']}); "
        "the sidecar holds exactly these bytes"
    )


# ------------------------------------------------------------------ tears


def test_a_torn_last_line_is_moved_aside_at_the_next_decision(
    engine: Engine, audit_log: Path
) -> None:
    for n in range(4):
        decide(engine, n)
    whole = audit_log.stat().st_size
    torn = cut_record(audit_log)
    tear(audit_log, torn)

    for n in range(3):
        assert decide(engine, 10 + n).action is Action.CONTINUE

    log = records(audit_log)
    assert [r["event"] for r in log] == ["decision"] * 4 + ["log_torn"] + ["decision"] * 3
    assert log[4]["offset"] == whole
    assert log[4]["prev"] == log[3]["hash"]  # the chain goes on from the last whole line
    assert engine.audit_head == log[-1]["hash"]
    assert_healed(audit_log, torn, verify(audit_log))


def test_a_tear_is_recorded_before_the_records_waiting_to_go_with_the_next(
    audit_log: Path,
) -> None:
    """The audit hook's record of a call waits for the call's decision; a tear found
    when they are written was there before both, and its record comes first."""
    from policy.audit import DecisionLog

    log = DecisionLog(path=audit_log)
    log.write("decision", {"n": 1})
    torn = cut_record(audit_log)
    log.write_with_next("audit.tool_call", {"n": 2})
    tear(audit_log, torn)
    log.write("decision", {"n": 2})
    log.close()
    assert [r["event"] for r in records(audit_log)] == [
        "decision", "log_torn", "audit.tool_call", "decision",
    ]
    assert_healed(audit_log, torn, verify(audit_log))


def test_a_torn_tail_is_healed_when_the_log_is_opened(audit_log: Path) -> None:
    with make_engine(audit_log) as engine:
        decide(engine, 1)
    torn = cut_record(audit_log)
    tear(audit_log, torn)
    with make_engine(audit_log) as engine:
        # healed at start, before any decision
        assert [r["event"] for r in records(audit_log)] == ["decision", "log_torn"]
        assert engine.audit_head == records(audit_log)[-1]["hash"]
        decide(engine, 2)
    assert_healed(audit_log, torn, verify(audit_log))


def test_a_torn_first_record_is_healed_but_a_file_that_is_no_log_is_never_cut(
    tmp_path: Path,
) -> None:
    first = tmp_path / "first.log"
    torn = cut_record(first)
    first.write_bytes(torn)  # the very first write was cut short
    with make_engine(first) as engine:
        decide(engine, 1)
    assert_healed(first, torn, verify(first))
    assert records(first)[0]["offset"] == 0

    for content in (b"not a log, no newline", b'{"ts":"x","hash":"none"}\ngarbage line\n'):
        not_a_log = tmp_path / "not-a.log"
        not_a_log.write_bytes(content)
        with pytest.raises(AuditError, match="cannot continue the hash chain"):
            make_engine(not_a_log)
        assert not_a_log.read_bytes() == content
        assert sidecars(not_a_log) == []


def test_a_one_shot_process_heals_the_tear_and_a_long_lived_writer_goes_on(
    engine: Engine, audit_log: Path
) -> None:
    for n in range(3):
        decide(engine, n)
    torn = cut_record(audit_log)
    tear(audit_log, torn)

    # `policy eval` is a process of its own appending to the same file, as hooks are.
    done = run(POLICY, "eval", "--audit-log", str(audit_log), '{"tool": "Glob", "args": {}}')
    assert done.returncode == 0, done.stderr
    assert [r["event"] for r in records(audit_log)][-2:] == ["log_torn", "decision"]
    assert records(audit_log)[-1]["tool"] == "glob"

    # The engine of this process (as `policy serve`) continues from that process's line.
    assert decide(engine, 3).action is Action.CONTINUE
    assert records(audit_log)[-1]["prev"] == records(audit_log)[-2]["hash"]
    assert_healed(audit_log, torn, verify(audit_log))


def _append_from_another_process(path: str, sender: str, count: int) -> None:
    with Engine(Settings(audit_path=Path(path))) as engine:
        for n in range(count):
            engine.before_tool(ToolCall(tool="bash", args={"n": n}, sender=sender))


def test_processes_racing_to_a_torn_log_heal_it_once(audit_log: Path) -> None:
    with make_engine(audit_log) as engine:
        decide(engine, 0)
    torn = cut_record(audit_log)
    tear(audit_log, torn)
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_append_from_another_process, args=(str(audit_log), f"p{i}", 20))
        for i in range(3)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    assert len(records(audit_log)) == 1 + 1 + 60
    assert_healed(audit_log, torn, verify(audit_log))


# ------------------------------------------------------------- a full disk

# A process with a file-size limit just past the log's end: a decision's line is
# written in part, then the kernel says EFBIG, as a disk with a few bytes left says
# ENOSPC. Then the limit is lifted, as space comes back.
_FILE_SIZE_LIMIT = r"""
import json, os, resource, signal, sys
from pathlib import Path
from policy import Engine, ToolCall
from policy.settings import Settings

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
log = Path(sys.argv[1])
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
out = []
with Engine(Settings(audit_path=log)) as engine:
    def decide(phase, n):
        d = engine.before_tool(ToolCall(tool="bash", args={"command": f"echo {n}"}))
        out.append({"phase": phase, "action": d.action.value, "reason": d.reason,
                    "failure": d.failure, "head": engine.audit_head,
                    "size": os.path.getsize(log)})
    decide("before", 0)
    resource.setrlimit(resource.RLIMIT_FSIZE, (os.path.getsize(log) + 100, hard))
    for n in range(3):
        decide("full", n + 1)
    resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
    for n in range(2):
        decide("after", n + 10)
print(json.dumps(out))
"""


def test_while_writes_fail_calls_are_refused_and_the_first_that_succeeds_goes_on(
    audit_log: Path,
) -> None:
    import resource

    if resource.getrlimit(resource.RLIMIT_FSIZE)[1] != resource.RLIM_INFINITY:
        pytest.skip("the hard file-size limit is set: it could not be lifted again")
    done = run(sys.executable, "-c", _FILE_SIZE_LIMIT, str(audit_log))
    assert done.returncode == 0, done.stderr
    before, *full_and_after = orjson.loads(done.stdout)
    full, after = full_and_after[:3], full_and_after[3:]
    assert before["action"] == "continue"
    for refused in full:
        assert refused["action"] == "deny_tool"
        assert refused["failure"] == "audit"
        assert refused["reason"].startswith("decision log unavailable:")
        assert "File too large" in refused["reason"]
        # The cut-short line was taken back; the head never went past the file.
        assert refused["size"] == before["size"]
        assert refused["head"] == before["head"]
    assert [d["action"] for d in after] == ["continue", "continue"]
    log = records(audit_log)
    assert len(log) == 3
    assert after[-1]["head"] == log[-1]["hash"]
    assert verify(audit_log).returncode == 0


class _FullDisk:
    """os.write and os.ftruncate of a disk with `free` bytes left (None: space again);
    cutting a file back fails too while it is full, as on copy-on-write file systems."""

    def __init__(self, free: int) -> None:
        self.free: int | None = free

    def write(self, fd: int, data: Any) -> int:
        if self.free is None:
            return os.write(fd, data)
        if self.free == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        count = os.write(fd, bytes(data[: self.free]))
        self.free -= count
        return count

    def truncate(self, fd: int, length: int) -> None:
        if self.free is not None:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        os.ftruncate(fd, length)


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> _FullDisk:
    disk = _FullDisk(free=40)
    monkeypatch.setattr("policy.audit._write", disk.write)
    monkeypatch.setattr("policy.audit._truncate", disk.truncate)
    return disk


def test_a_line_the_full_disk_cut_short_is_healed_when_space_returns(
    engine: Engine, audit_log: Path, full_disk: _FullDisk
) -> None:
    full_disk.free = None
    for n in range(3):
        decide(engine, n)
    whole = audit_log.read_bytes()
    head = engine.audit_head
    full_disk.free = 40

    for n in range(3):
        refused = decide(engine, 10 + n)
        assert refused.action is Action.DENY_TOOL
        assert refused.failure == "audit"
        assert "No space left on device" in refused.reason
        assert engine.audit_head == head  # never ahead of the file
    # The first refused line left 40 bytes it could not take back; nothing else moved.
    torn = audit_log.read_bytes()[len(whole) :]
    assert len(torn) == 40 and audit_log.read_bytes().startswith(whole)
    assert sidecars(audit_log) == []
    unhealed = verify(audit_log)
    assert unhealed.returncode == 1
    assert b":4: line is not terminated" in unhealed.stdout

    full_disk.free = None  # space again: the next call goes on, no person involved
    assert decide(engine, 20).action is Action.CONTINUE
    assert [r["event"] for r in records(audit_log)][-2:] == ["log_torn", "decision"]
    assert_healed(audit_log, torn, verify(audit_log))


def test_an_engine_started_on_a_torn_log_while_the_disk_is_full_refuses_then_heals(
    audit_log: Path, full_disk: _FullDisk
) -> None:
    full_disk.free = None
    with make_engine(audit_log) as engine:
        decide(engine, 0)
    torn = cut_record(audit_log)
    tear(audit_log, torn)
    full_disk.free = 0
    with make_engine(audit_log) as engine:  # starts: the heal waits for space
        refused = decide(engine, 1)
        assert refused.action is Action.DENY_TOOL
        assert refused.reason.startswith("decision log unavailable:")
        assert audit_log.read_bytes().endswith(torn)
        assert sidecars(audit_log) == []
        full_disk.free = None
        assert decide(engine, 2).action is Action.CONTINUE
    assert [r["event"] for r in records(audit_log)] == ["decision", "log_torn", "decision"]
    assert_healed(audit_log, torn, verify(audit_log))


def test_a_heal_whose_record_could_not_be_written_is_recorded_by_the_next_write(
    engine: Engine, audit_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decide(engine, 0)
    torn = cut_record(audit_log)
    tear(audit_log, torn)
    inode = audit_log.stat().st_ino
    failing = True

    def write(fd: int, data: Any) -> int:
        if failing and os.fstat(fd).st_ino == inode:  # the sidecar is written, the log not
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, data)

    monkeypatch.setattr("policy.audit._write", write)
    assert decide(engine, 1).action is Action.DENY_TOOL
    (sidecar,) = sidecars(audit_log)
    assert [r["event"] for r in records(audit_log)] == ["decision"]
    noted = verify(audit_log)
    assert noted.returncode == 0
    assert f"note: sidecar {sidecar.name} is named by no log_torn record" in noted.stdout.decode()

    failing = False
    assert decide(engine, 2).action is Action.CONTINUE
    assert [r["event"] for r in records(audit_log)] == ["decision", "log_torn", "decision"]
    assert_healed(audit_log, torn, verify(audit_log))
    assert b"note:" not in verify(audit_log).stdout


# ------------------------------------------------ what healing must not hide


@pytest.fixture
def healed_log(engine: Engine, audit_log: Path) -> Path:
    for n in range(4):
        decide(engine, n)
    tear(audit_log, cut_record(audit_log))
    for n in range(4):
        decide(engine, 10 + n)
    assert [r["event"] for r in records(audit_log)][4] == "log_torn"
    assert verify(audit_log).returncode == 0
    return audit_log


def _rewrite(log: Path, edit: Any) -> None:
    raw = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(edit(raw)))


@pytest.mark.parametrize(
    ("edit", "line", "problem"),
    [
        (lambda raw: raw[:2] + raw[3:], 3, "prev hash does not match the hash of line 2"),
        (lambda raw: raw[:6] + raw[7:], 7, "prev hash does not match the hash of line 6"),
        (lambda raw: raw[:4] + raw[5:], 5, "prev hash does not match the hash of line 4"),
        (
            lambda raw: [*raw[:4], raw[4].replace(b'"length":57', b'"length":58'), *raw[5:]],
            5,
            "hash does not match the line (edited?)",
        ),
        (
            lambda raw: [*raw[:6], raw[6].replace(b"echo 11", b"echo 12"), *raw[7:]],
            7,
            "hash does not match the line (edited?)",
        ),
        (lambda raw: [*raw, raw[-1][:30]], 10, "line is not terminated"),
    ],
    ids=[
        "line-deleted-before-the-tear",
        "line-deleted-after-the-tear",
        "tear-record-deleted",
        "tear-record-edited",
        "record-edited-after-the-tear",
        "torn-tail-not-healed",
    ],
)
def test_healing_hides_no_deleted_or_edited_line(
    healed_log: Path, edit: Any, line: int, problem: str
) -> None:
    _rewrite(healed_log, edit)
    done = verify(healed_log)
    assert done.returncode == 1
    assert f"{healed_log}:{line}: {problem}" in done.stdout.decode()


def test_an_edited_sidecar_fails_verify_and_a_missing_one_is_named(healed_log: Path) -> None:
    (sidecar,) = sidecars(healed_log)
    kept = sidecar.read_bytes()
    sidecar.write_bytes(kept[:-1] + b"X")
    done = verify(healed_log)
    assert done.returncode == 1
    assert f"{healed_log}:5: sidecar {sidecar.name} does not hold the 57 torn bytes" in (
        done.stdout.decode()
    )
    sidecar.unlink()
    done = verify(healed_log)
    assert done.returncode == 0
    assert b"the sidecar is missing" in done.stdout


# ------------------------------------------------------------------ modes


@pytest.mark.parametrize("umask", [0o000, 0o022, 0o277])
def test_a_new_log_is_0600_and_the_directories_made_for_it_0700(tmp_path: Path, umask: int) -> None:
    tmp_path.chmod(0o755)
    log = tmp_path / "state" / "audit" / "decisions.log"
    previous = os.umask(umask)
    try:
        with make_engine(log) as engine:
            decide(engine, 0)
            tear(log, b'{"ts":"2026')
            decide(engine, 1)
    finally:
        os.umask(previous)
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert stat.S_IMODE(log.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(log.parent.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o755  # it was there: left alone
    (sidecar,) = sidecars(log)
    assert stat.S_IMODE(sidecar.stat().st_mode) == 0o600
    assert verify(log).returncode == 0


def test_an_existing_log_keeps_its_mode_and_verify_warns_when_others_can_read_it(
    audit_log: Path,
) -> None:
    for mode in (0o640, 0o644):
        audit_log.touch()
        audit_log.chmod(mode)
        with make_engine(audit_log) as engine:
            decide(engine, 0)
        assert stat.S_IMODE(audit_log.stat().st_mode) == mode
        done = verify(audit_log)
        assert done.returncode == 0
        warned = f"{audit_log} is open to other users (mode 0644)".encode() in done.stderr
        assert warned == (mode == 0o644), done.stderr


def test_the_sidecar_is_never_written_through_a_planted_link(
    engine: Engine, audit_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    decide(engine, 0)
    target = audit_log.with_name("elsewhere")
    target.write_bytes(b"keep me")
    monkeypatch.setattr(
        "policy.audit._now", lambda tz: dt.datetime(2026, 1, 2, 3, 4, 5, 6, tzinfo=tz)
    )
    planted = audit_log.with_name(f"{audit_log.name}.torn-20260102T030405.000006Z")
    planted.symlink_to(target)
    tear(audit_log, b'{"ts":"2026')
    assert decide(engine, 1).action is Action.CONTINUE
    assert target.read_bytes() == b"keep me"
    sidecar = audit_log.with_name(f"{planted.name}-2")
    assert sidecar.read_bytes() == b'{"ts":"2026'
    assert records(audit_log)[1]["sidecar"] == sidecar.name
