"""Shared fixtures: every test gets a clean environment and its own decision log."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from policy import Engine
from policy.settings import Settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No POLICY_* variable from the developer's shell leaks into a test."""
    for name in list(os.environ):
        if name.upper().startswith("POLICY_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))


@pytest.fixture
def audit_log(tmp_path: Path) -> Path:
    return tmp_path / "decisions.log"


@pytest.fixture
def settings(audit_log: Path) -> Settings:
    return Settings(audit_path=audit_log)


@pytest.fixture
def engine(settings: Settings) -> Iterator[Engine]:
    with Engine(settings) as eng:
        yield eng


def make_engine(audit_log: Path, **values: object) -> Engine:
    """An engine with `values` as settings, logging to `audit_log`."""
    return Engine(Settings(audit_path=audit_log, **values))
