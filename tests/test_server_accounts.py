"""The service reads each request's peer account (its name: the default sender; its
home: what `~` means in its calls) through NSS, which cost more than the decision
itself; answers are kept for a minute. What a caller relies on: the right account,
an unknown uid never taken for another, and a changed account seen again in time."""

from __future__ import annotations

import os
import pwd
from typing import Any

import pytest

from policy.server.asker import _Accounts


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every uid the account database is asked about."""
    asked: list[int] = []
    real = pwd.getpwuid

    def counting(uid: int) -> Any:
        asked.append(uid)
        return real(uid)

    monkeypatch.setattr(pwd, "getpwuid", counting)
    return asked


def test_the_peer_account_is_its_name_and_home(lookups: list[int]) -> None:
    entry = pwd.getpwuid(os.getuid())
    assert _Accounts().lookup(os.getuid()) == (entry.pw_name, entry.pw_dir)


def test_a_uid_with_no_account_has_neither(lookups: list[int]) -> None:
    assert _Accounts().lookup(2**31 - 7) == (None, None)


def test_answers_are_kept_for_a_minute_then_asked_again(lookups: list[int]) -> None:
    clock = Clock()
    accounts = _Accounts(clock)
    uid = os.getuid()
    for _ in range(5):
        accounts.lookup(uid)
    assert lookups == [uid]
    clock.now += _Accounts.TTL - 1
    accounts.lookup(uid)
    assert lookups == [uid]
    clock.now += 2
    accounts.lookup(uid)
    assert lookups == [uid, uid]


def test_a_flood_of_uids_keeps_the_table_bounded(lookups: list[int]) -> None:
    accounts = _Accounts(Clock())
    for uid in range(_Accounts.LIMIT + 10):
        accounts.lookup(2**30 + uid)
    assert len(accounts._known) <= _Accounts.LIMIT
