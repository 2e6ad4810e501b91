"""The decision log rotated by size or age (issue 25): a new file takes the live one's
place, its first line chained to the old file's last, so the set proves as one chain —
however many processes write, and after the oldest files are pruned."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

import policy.audit as audit
from policy.audit import DecisionLog
from policy.audit_rotate import ROTATED_EVENT, Rotation, rotated_files
from policy.audit_verify import in_order, verify_set

POLICY = str(Path(sys.executable).parent / "policy")


def records(path: Path) -> list[dict[str, object]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def write(log: DecisionLog, count: int, tag: str = "w") -> None:
    for n in range(count):
        log.write("decision", {"tag": tag, "n": n, "pad": "x" * 200})


def test_a_full_log_gives_way_to_one_that_continues_its_chain(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    log = DecisionLog(path=path, rotation=Rotation(max_bytes=4096))
    write(log, 60)
    log.close()

    rotated = rotated_files(path)
    assert len(rotated) >= 3
    for older, newer in zip(rotated, [*rotated[1:], path], strict=True):
        first = records(newer)[0]
        assert first["event"] == ROTATED_EVENT and first["previous"] == older.name
        assert first["prev"] == records(older)[-1]["hash"]
        assert older.stat().st_size <= 4096 and oct(older.stat().st_mode)[-3:] == "600"
    proven = verify_set(in_order([path]))
    assert all(item.report.ok for item in proven)
    tags = [r["n"] for f in in_order([path]) for r in records(f) if r.get("event") == "decision"]
    assert tags == list(range(60))  # every record once, in order


def test_policy_audit_verify_proves_the_set_as_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    log = DecisionLog(path=path, rotation=Rotation(max_bytes=4096))
    write(log, 40)
    log.close()
    done = subprocess.run([POLICY, "audit", "verify", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "one chain: OK" in done.stdout
    as_json = subprocess.run(
        [POLICY, "audit", "verify", str(path), "--format", "json"], capture_output=True
    )
    document = orjson.loads(as_json.stdout)
    assert document["ok"] is True and len(document["files"]) == len(rotated_files(path)) + 1

    middle = rotated_files(path)[1]
    middle.unlink()  # a file of the set removed
    done = subprocess.run([POLICY, "audit", "verify", str(path)], capture_output=True, text=True)
    assert done.returncode == 1
    assert f"continues {middle.name}" in done.stdout


def test_keep_prunes_the_oldest_and_the_rest_still_proves(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    log = DecisionLog(path=path, rotation=Rotation(max_bytes=4096, keep=2))
    write(log, 80)
    log.close()
    assert len(rotated_files(path)) == 2
    proven = verify_set(in_order([path]))
    assert all(item.report.ok for item in proven)
    assert "not in the set" in proven[0].note  # where the kept files start


def test_age_rotates_a_log_whose_first_record_is_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "decisions.jsonl"
    log = DecisionLog(path=path, rotation=Rotation(max_age=86400))
    write(log, 3)
    assert rotated_files(path) == []
    real = audit._wall_clock
    monkeypatch.setattr(audit, "_wall_clock", lambda: real() + 2 * 86400)
    write(log, 1, "later")
    log.close()
    assert len(rotated_files(path)) == 1
    assert [r["event"] for r in records(path)] == [ROTATED_EVENT, "decision"]


def _writer(path: str, tag: str, count: int) -> None:
    log = DecisionLog(path=Path(path), rotation=Rotation(max_bytes=8192))
    write(log, count, tag)
    log.close()


def test_processes_writing_at_once_lose_no_record_across_rotations(tmp_path: Path) -> None:
    path = tmp_path / "decisions.jsonl"
    DecisionLog(path=path).close()  # the log exists, as a service's would
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_writer, args=(str(path), f"p{n}", 150)) for n in range(3)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
        assert worker.exitcode == 0
    files = in_order([path])
    assert len(files) > 5
    assert all(item.report.ok for item in verify_set(files))
    seen = [
        (r["tag"], r["n"]) for f in files for r in records(f) if r.get("event") == "decision"
    ]
    assert sorted(seen) == sorted((f"p{w}", n) for w in range(3) for n in range(150))


def test_settings_take_sizes_and_durations() -> None:
    from policy.settings import Settings

    settings = Settings(audit_rotate_bytes=1 << 20, audit_rotate_age="1d", audit_rotate_keep=30)
    assert (settings.audit_rotate_bytes, settings.audit_rotate_age) == (1 << 20, 86400.0)
    assert audit.rotation_of(settings) == Rotation(1 << 20, 86400.0, 30)
    assert audit.rotation_of(Settings()) is None


def test_a_clock_stepping_back_changes_neither_the_order_nor_what_is_pruned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import datetime as dt

    moments = iter(dt.datetime(2030 - n // 10, 1, 1, tzinfo=dt.UTC) for n in range(10_000))
    monkeypatch.setattr(audit, "_now", lambda tz=None: next(moments))  # ever earlier
    path = tmp_path / "decisions.jsonl"
    log = DecisionLog(path=path, rotation=Rotation(max_bytes=4096, keep=2))
    write(log, 80)
    log.close()
    kept = rotated_files(path)
    assert len(kept) == 2
    assert all(item.report.ok for item in verify_set(in_order([path])))
    last = [r["n"] for r in records(path) if r.get("event") == "decision"]
    assert last[-1] == 79  # the newest records kept, whatever the names' times say


def test_a_rotation_cut_off_between_its_link_and_its_rename_leaves_one_chain(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    path = tmp_path / "decisions.jsonl"
    log = DecisionLog(path=path, rotation=Rotation(max_bytes=4096))
    write(log, 30)
    real = os.rename
    failed: list[str] = []

    def rename_failing_once(source: object, target: object) -> None:
        if ".rotating-" in str(source) and not failed:
            failed.append(str(source))
            raise OSError(28, "No space left on device")
        real(source, target)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "rename", rename_failing_once)
    with pytest.raises(Exception, match="decision log"):
        write(log, 30, "after")  # the write that met the failed rotation is refused
    monkeypatch.setattr(os, "rename", real)
    write(log, 30, "later")
    log.close()
    assert failed
    inodes = [os.stat(f).st_ino for f in in_order([path])]
    assert len(inodes) == len(set(inodes))  # no file under two names
    assert all(item.report.ok for item in verify_set(in_order([path])))


def test_a_stale_link_to_the_live_file_is_taken_back(tmp_path: Path) -> None:
    """As a process killed between the link and the rename leaves it."""
    import os

    path = tmp_path / "decisions.jsonl"
    log = DecisionLog(path=path, rotation=Rotation(max_bytes=4096))
    write(log, 30)
    newest = rotated_files(path)[-1]
    stale = newest.with_name(
        newest.name.replace(newest.name.split(".")[2], f"{int(newest.name.split('.')[2]) + 1:06d}")
    )
    os.link(path, stale)
    write(log, 40, "more")
    log.close()
    assert all(item.report.ok for item in verify_set(in_order([path])))
