"""Compiling a large set of packs in a process of its own, and reading back its entry.

A compile leaves the YAML's nodes, the schema's validators and the checker's
temporaries spread over the allocator's arenas, and an arena that holds one live
object is never given back: an engine that compiled 10,000 rules itself held
95-104 MiB once the compile's objects were dropped, one that read the same set back
from its pack-cache entry 69 MiB. So a large set is compiled by a child interpreter
of the same code, which hands back the set's entry (`policy.packs.cache.dumps`); the
engine's process reads it as it would read the pack cache, and never imports the
compiler. The child costs a second interpreter's start (≈ 0.2 s), which only a large
compile is worth.

Nothing the child says is taken on trust beyond what the pack cache's entries are:
an answer that does not read back, a child that cannot start, does not answer within
`TIMEOUT` or stops for any other reason than the packs' own errors, and the caller
compiles in its own process, which gives the same set (and, for a bad pack, the same
errors).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from base64 import b64decode, b64encode
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from policy._logger import logger
from policy.aliases import AliasTable
from policy.packs.diagnostics import Diagnostic, PackError

if TYPE_CHECKING:
    from policy.packs import LoadedPacks

__all__ = ["APART_FROM_BYTES", "TIMEOUT", "compile_apart", "large"]

log = logger("policy.packs.apart")

#: Sources of at least this many bytes are compiled in a child process. The rule count
#: is not known before the compile; the bytes are. 1,000 rules of one line each are
#: ≈ 140 KB, the shipped `rules/` (65 rules, commented) 129 KB: both compile in the
#: caller's process, where the child's start would cost more than the compile.
APART_FROM_BYTES = 512 * 1024

#: The packs' own errors: the answer is their diagnostics, as JSON.
_PACK_ERRORS = 2

#: How long the child may take before it is killed and the set compiled here (10,000
#: rules compile in ≈ 4 s on a 2-core machine).
TIMEOUT = 300.0

#: The child's whole program: the caller's absolute module directories, this `policy`
#: package loaded from where the caller's was (its `__init__.py` and `__path__`, not a
#: search), then `main`. (`-I`: nothing from the environment (PYTHONINSPECT,
#: PYTHONSTARTUP, ...) changes what it runs; `-S`: no `.pth` file or `sitecustomize`
#: runs; no directory but the ones it is given is searched for modules.)
_BOOT = (
    "import json, sys, importlib.util as u\n"
    "path, init, package = json.loads(sys.argv[1])\n"
    "sys.path[:] = path\n"
    "spec = u.spec_from_file_location('policy', init, submodule_search_locations=package)\n"
    "policy = u.module_from_spec(spec)\n"
    "sys.modules['policy'] = policy\n"
    "spec.loader.exec_module(policy)\n"
    "from policy.packs.apart import main\n"
    "main()\n"
)


def large(files: Sequence[tuple[Path, bytes | None]]) -> bool:
    """Whether `files` are large enough to be compiled in a child (`APART_FROM_BYTES`)."""
    total = 0
    for path, raw in files:
        if raw is not None:
            total += len(raw)
        else:
            try:
                total += path.stat().st_size
            except OSError:
                continue  # (the compile says why it cannot be read)
    return total >= APART_FROM_BYTES


def compile_apart(
    files: Sequence[tuple[Path, bytes | None]], cel_engine: str, aliases: AliasTable
) -> LoadedPacks | None:
    """`files` compiled by a child interpreter over `aliases`, read back from the entry
    it answers; PackError with the child's diagnostics for packs with errors; None when
    the child gave no answer that reads back (the caller compiles in its own process)."""
    from policy.packs.cache import alias_mapping, loads
    from policy.packs.cel import get_engine

    if getattr(sys, "frozen", False):  # (`sys.executable` is the application, no Python)
        return None
    try:
        request = orjson.dumps(
            {
                "engine": cel_engine,
                "aliases": alias_mapping(aliases),
                "files": [
                    [_encoded(os.fsencode(path)), None if raw is None else _encoded(raw)]
                    for path, raw in files
                ],
                "parent": os.getpid(),
                "filesystem": _filesystem_encoding(),
                "python": _interpreter(),
            }
        )
        argv = [
            os.fspath(sys.executable),
            "-I",
            "-S",
            "-X",
            f"utf8={sys.flags.utf8_mode}",
            "-c",
            _BOOT,
            json.dumps(_module_path()),
        ]
        done = subprocess.run(
            argv, input=request, capture_output=True, check=False, timeout=TIMEOUT
        )
    except Exception as exc:  # noqa: BLE001 - no child (none to start, or too slow): compiled here
        log.debug("pack compile apart: no answer (%s); compiled here", exc)
        return None
    if done.returncode == _PACK_ERRORS:
        diagnostics = _diagnostics(done.stdout)
        if any(d.severity == "error" for d in diagnostics):
            raise PackError(diagnostics)
    if done.returncode != 0:
        log.debug(
            "pack compile apart: the child exited %s; compiled here: %s",
            done.returncode,
            done.stderr[-2000:].decode(errors="replace"),
        )
        return None
    try:
        return loads(done.stdout, get_engine(cel_engine), aliases)
    except Exception as exc:  # noqa: BLE001 - as a cache entry that does not read back
        log.debug("pack compile apart: the answer does not read back (%s); compiled here", exc)
        return None


def _module_path() -> list[Any]:
    """Where the child finds its modules: the caller's absolute `sys.path` entries, and
    this `policy` package where the caller loaded it. A relative entry (`''`, which
    `python -c`, a REPL or a notebook puts first) would be read against the child's
    working directory — an agent's workspace, maybe — and a `policy/` there imported
    instead of this one; nor is the directory holding `policy/` searched (an editable
    install's repository root: a `base64.py` there is nothing the caller imports)."""
    policy = sys.modules["policy"]  # (loaded: this module is in it; not the facade's names)
    # (Without -P the interpreter put the script's directory, or the working directory
    # for `-m`, first: an agent's workspace, maybe, where a planted `yaml.py` would be
    # the compiler's. The child does without it: it loads `policy` by its own path.)
    given = sys.path if sys.flags.safe_path else sys.path[1:]
    entries = [e for e in given if isinstance(e, str) and os.path.isabs(e)]
    init = policy.__file__
    package = [p for p in policy.__path__ if isinstance(p, str)]
    if init is None or not os.path.isabs(init) or not all(os.path.isabs(p) for p in package):
        raise ValueError("the policy package has no absolute place to load it from")
    return [entries, init, package]


def _interpreter() -> list[str]:
    """Which Python this is: a `sys.executable` that is another one (an embedding host's
    binary, another version) does not answer."""
    return [sys.version, sys.implementation.cache_tag or ""]


def _filesystem_encoding() -> list[str]:
    """How file names become strings here: the child decodes its paths (in its
    diagnostics and rule locations) the same way, or does not answer."""
    return [sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()]


def _encoded(raw: bytes) -> str:
    return b64encode(raw).decode("ascii")


def _diagnostics(body: bytes) -> list[Diagnostic]:
    """The child's diagnostics; none when they do not read back as such."""
    from policy.packs.cache import diagnostic_of

    try:
        return [diagnostic_of(row) for row in orjson.loads(body)]
    except (orjson.JSONDecodeError, TypeError):
        return []


def main() -> None:
    """The child: compile the request on stdin, write the entry (or the errors) out."""
    from policy.aliases import DEFAULT_ALIASES
    from policy.packs import _compiled
    from policy.packs.cache import alias_table, diagnostic_row, dumps
    from policy.packs.cel import get_engine

    request = orjson.loads(sys.stdin.buffer.read())
    if request["filesystem"] != _filesystem_encoding() or request["python"] != _interpreter():
        sys.exit(1)  # (paths read otherwise, or another Python: compiled by the caller)
    _end_with(request["parent"])
    files = [
        (Path(os.fsdecode(b64decode(path))), None if raw is None else b64decode(raw))
        for path, raw in request["files"]
    ]
    engine = get_engine(request["engine"])
    aliases = alias_table(request["aliases"], DEFAULT_ALIASES)
    out = sys.stdout.buffer
    try:
        result = _compiled(files, engine, aliases)
    except PackError as exc:
        out.write(orjson.dumps([diagnostic_row(d) for d in exc.diagnostics]))
        out.flush()
        sys.exit(_PACK_ERRORS)
    body = dumps(result)
    if body is None:  # (not representable as an entry: the caller compiles it)
        sys.exit(1)
    out.write(body)
    out.flush()


def _end_with(parent: int) -> None:
    """End this process when `parent` does: a caller killed mid-compile (a host's hook
    timeout) leaves no compile running for nobody."""
    import threading
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()
