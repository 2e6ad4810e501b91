"""The soak's smoke run (issue 25): tests/soak/soak.py for 30 s — decisions at half the
service's capacity, approvals approved, denied and expired, reloads with a broken pack
in the middle — must end with no error, the decision counters equal to the log, and the
open files where they were. The 10-minute run is by hand (docs/service.md#soak)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SOAK = Path(__file__).resolve().parent / "soak" / "soak.py"


@pytest.mark.slow
@pytest.mark.parametrize("deciders", ["0", "1"])  # the threads, and a deciding process
def test_thirty_seconds_of_mixed_traffic_leave_no_error(deciders: str) -> None:
    done = subprocess.run(
        [sys.executable, str(SOAK), "--seconds", "30", "--measure", "3", "--deciders", deciders],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "reload 422: 1" in done.stdout  # the broken pack, refused mid-run
    assert "reload 200:" in done.stdout
    assert "approver approve:" in done.stdout and "approver deny:" in done.stdout
