"""What `~` means to the path functions (`policy.facts.home_dir`): asked about twenty
times a decision, so its answer is kept — and must still follow every change of HOME.
"""

from __future__ import annotations

import os
import threading

import pytest

from policy.facts import Caller, deciding_for, home_dir


def test_it_follows_home_as_it_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ada")
    assert home_dir() == "/home/ada"
    assert home_dir() == "/home/ada"  # (kept)
    monkeypatch.setenv("HOME", "/home/bob/")
    assert home_dir() == "/home/bob"
    os.environ["HOME"] = "/home/ada"  # the same value as before, a new object
    assert home_dir() == "/home/ada"
    monkeypatch.setenv("HOME", "/")
    assert home_dir() == "/"


def test_without_home_it_asks_the_account_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ada")
    assert home_dir() == "/home/ada"
    monkeypatch.delenv("HOME")
    assert home_dir() == os.path.expanduser("~")


def test_the_caller_of_the_service_names_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/service")
    with deciding_for(Caller(home="/home/agent", principal="uid:1001")):
        assert home_dir() == "/home/agent"
    assert home_dir() == "/home/service"


def test_each_thread_sees_the_environment_as_it_is(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ada")
    assert home_dir() == "/home/ada"
    monkeypatch.setenv("HOME", "/home/bob")
    seen: list[str] = []
    thread = threading.Thread(target=lambda: seen.append(home_dir()))
    thread.start()
    thread.join()
    assert seen == ["/home/bob"]


def test_the_path_functions_read_home_as_the_environment_has_it_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`policy.analysis.environ.home_variable`: what the recalled answers' keys and the
    folded path functions read instead of `os.environ.get("HOME")`, kept between
    changes."""
    from policy.analysis.environ import home_variable

    monkeypatch.setenv("HOME", "/home/ada")
    assert home_variable() == "/home/ada"
    assert home_variable() == "/home/ada"  # (kept)
    os.environ["HOME"] = "/home/bob"
    assert home_variable() == "/home/bob"
    monkeypatch.delenv("HOME")
    assert home_variable() is None
    monkeypatch.setenv("HOME", "/home/ada")
    assert home_variable() == "/home/ada"
