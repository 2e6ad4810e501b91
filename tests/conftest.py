"""Shared fixtures: every test gets a clean environment and its own decision log."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import textwrap
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from policy import Engine
from policy.settings import Settings


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No POLICY_* variable from the developer's shell leaks into a test, nor what a
    one-event engine keeps on disk (lines' facts, glob lists' indexes) into the next."""
    for name in list(os.environ):
        if name.upper().startswith("POLICY_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    # (a one-event engine keeps lines' facts and glob indexes on disk for the process:
    # not past its test)
    from policy.analysis import kept_lines, paths

    monkeypatch.setattr(kept_lines, "in_use", None)
    monkeypatch.setattr(paths, "kept_indexes", None)


class MemoryProgramStore:
    """The program store's two calls, in memory (policy.packs.cache.ProgramStore)."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], bytes] = {}

    def get(self, point: str, source: str) -> bytes | None:
        return self.entries.get((point, source))

    def put(self, point: str, source: str, program: bytes) -> None:
        self.entries[(point, source)] = program


@pytest.fixture
def program_store() -> MemoryProgramStore:
    return MemoryProgramStore()


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


BuiltinsEngine = Callable[..., Engine]


@pytest.fixture
def builtins_engine(tmp_path: Path) -> Iterator[BuiltinsEngine]:
    """A factory: `build(pack_name, builtins_yaml, **settings)` writes a pack whose
    `builtins:` section is the given YAML and returns an engine on it (each with its
    own decision log, all closed at the end of the test)."""
    engines: list[Engine] = []

    def build(pack: str, builtins: str, **settings: Any) -> Engine:
        path = tmp_path / f"{pack}.yaml"
        section = textwrap.dedent(builtins).strip("\n") + "\n"
        path.write_text(
            f"apiVersion: hookpolicy/v1\nkind: RulePack\nname: {pack}\nbuiltins:\n"
            + textwrap.indent(section, "  ")
        )
        settings.setdefault("audit_path", tmp_path / f"decisions{len(engines)}.log")
        engine = Engine(Settings(packs=[path], **settings))
        engines.append(engine)
        return engine

    yield build
    for engine in engines:
        engine.close()


# ------------------------------------------------------------------ redis


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def redis_uri(tmp_path: Path) -> Iterator[str]:
    server = shutil.which("redis-server")
    if server is None:
        if os.environ.get("CI"):
            pytest.fail("redis-server is not installed (.ci/run installs it)")
        pytest.skip("redis-server is not installed")
    port = free_port()
    process = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or process.poll() is not None:
                pytest.fail("redis-server did not start")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def build(audit_log: Path) -> Iterator[Callable[..., Engine]]:
    """Engines hosting the given hooks files (`claude_hooks`), closed after the test."""
    engines: list[Engine] = []

    def make(*files: Path, **settings: Any) -> Engine:
        engine = Engine(Settings(claude_hooks=list(files), audit_path=audit_log, **settings))
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture(params=["native", "cel-expr-python", "cel-python"])
def pack_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., Engine]]:
    """Engines on the rule packs given as YAML bodies (`apiVersion` and `kind` added),
    once on each CEL engine, closed after the test."""
    engines: list[Engine] = []

    def build(*bodies: str, **settings: Any) -> Engine:
        paths = []
        for index, body in enumerate(bodies):
            path = tmp_path / f"pack{index}.yaml"
            path.write_text("apiVersion: hookpolicy/v1\nkind: RulePack\n" + textwrap.dedent(body))
            paths.append(path)
        engine = Engine(
            Settings(
                packs=paths,
                audit_path=tmp_path / "decisions.log",
                cel_engine=request.param,
                **settings,
            )
        )
        engines.append(engine)
        return engine

    yield build
    for engine in engines:
        engine.close()
