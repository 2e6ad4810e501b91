"""An on-disk cache of compiled rule packs, for processes that live for one event.

Claude Code and Agentao start `policy hook` once per tool call. Reading a pack the
slow way — PyYAML, pydantic validation, a CEL type check of every expression — costs
more than the rest of the process, and gives the same result every time the same
bytes are read by the same code. So the result of a successful compile is kept on
disk, keyed by a digest of everything the compile depends on:

* the cache format, hookpolicy's version, the Python it runs on, and the size and
  mtime of the hookpolicy modules that read and compile packs (an edited checkout
  must not read entries its old code wrote);
* the CEL engine named by the settings, and the files of the CEL libraries
  involved (cel-expr-python type-checks every pack, whatever engine evaluates);
* the files of pydantic, pydantic-core and PyYAML, which decide what a pack file
  parses and validates to;
* the alias table the packs extend (settings' `aliases`);
* each pack file's path, as given, and the SHA-256 of its bytes.

An entry is plain data — rule fields, CEL sources, patterns, each rule's `file:line`
(what `policy eval --explain` names it by), the builtins' configurations as
validation left them — written as JSON, never pickled and never code: reading one builds the
same `CompiledPack` objects the compiler builds, CEL programs are compiled from
their sources when a call first needs them (as after a fresh compile) — or, with
cel-expr-python, read back as cel-cpp serialised them for an earlier process
(`ProgramStore`, under `cel/`, keyed by the CEL libraries and the program's source) —
and the builtins' configurations are read back without pydantic
(`policy.builtins.kept_config`).

Who may stand behind an entry: an entry is a file of the effective user, and the
agent a policy governs runs its tools as that same user, so whatever an entry says,
that user could have written. The cache is therefore used — read or written — only
for packs the user could change anyway (`user_controls_packs`): every pack file
writable by the user or sitting in a directory the user can write, and likewise
every directory given and every directory between it and a pack in it. Packs an
administrator protected (a root-owned file in a root-owned directory) are compiled
from their files at every start, as without a cache; a forged entry under their key
is never read. Root controls every file, so root always may use the cache.

Trust in the file itself: entries are kept by the trusted-file store
(`policy._trusted_store`, which the settings cache uses too): read only when it is a
regular file (not a symlink), owned by this process's effective user and writable by
no one else, whose first line is the SHA-256 of the rest — and here, whose body names
its own key. This keeps other users out; it cannot keep out the user itself, hence
the rule above. Anything else — missing, unreadable, truncated, corrupt, foreign,
from another version — is a miss, and the packs are compiled from their files exactly
as without a cache, so a pack with errors fails with the same `file:line:col`
diagnostics. Packs with errors are never cached. Writes go to a private temporary
file renamed into place; a cache directory that cannot be written only means the
next start compiles again.

This module is the pack-specific part: the key, what may be cached, and the codec
between compiled packs (`policy.packs.runtime`) and entries. It rebuilds packs
without importing the compiler, pydantic or the schema.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policy import _json_bytes, _lazy_dataclass
from policy._hashes import sha256
from policy._logger import logger
from policy._trusted_store import (
    KEEP,
    SYSTEM,
    FileAccess,
    code_stamps,
    package_stamps,
    read_entry,
    user_controls,
    write_entry,
)
from policy._version import __version__
from policy.aliases import AliasTable
from policy.model import POINTS, ApprovalGate
from policy.packs.diagnostics import Diagnostic

if TYPE_CHECKING:
    from policy.packs import LoadedPacks
    from policy.packs.cel import CelEngine
    from policy.packs.glob_store import KeptGlobIndexes
    from policy.packs.line_store import KeptLines
    from policy.packs.recall import AnswerStore
    from policy.packs.runtime import CompiledPack

__all__ = [
    "FORMAT",
    "ProgramStore",
    "alias_mapping",
    "alias_table",
    "cache_key",
    "diagnostic_of",
    "diagnostic_row",
    "dumps",
    "environment",
    "load",
    "loads",
    "read_files",
    "store",
    "user_controls_packs",
]

log = logger("policy.packs.cache")

#: Bumped whenever the layout of an entry changes.
FORMAT = 4

#: hookpolicy modules whose code decides what a compiled pack is (relative to policy/).
_SOURCES = (
    "_trusted_store.py",
    "_version.py",
    "_yaml.py",
    "aliases.py",
    "builtins/__init__.py",
    "builtins/config.py",
    "builtins/kept_config.py",
    "durations.py",
    "model/__init__.py",
    "model/payloads.py",
    "pack_node.py",
    "packs/__init__.py",
    "packs/cache.py",
    "packs/cel/__init__.py",
    "packs/cel/celpython.py",
    "packs/cel/checker.py",
    "packs/cel/constants.py",
    "packs/cel/crossing.py",
    "packs/cel/expr.py",
    "packs/cel/functions.py",
    "packs/cel/interface.py",
    "packs/cel/native/__init__.py",
    "packs/cel/native/exact.py",
    "packs/cel/native/fast.py",
    "packs/cel/native/guard.py",
    "packs/cel/native/program.py",
    "packs/cel/native/syntax.py",
    "packs/cel/native/values.py",
    "packs/cel/types.py",
    "packs/compile.py",
    "packs/diagnostics.py",
    "packs/load.py",
    "packs/points.py",
    "packs/recall.py",
    "packs/runtime.py",
    "packs/schema.py",
)
_CEL_PACKAGES = {
    "native": ("cel_expr_python",),
    "cel-expr-python": ("cel_expr_python",),
    "cel-python": ("cel_expr_python", "celpy"),
}
#: Libraries that read and validate a pack file (YAML, the pydantic models of the
#: schema and of builtins' sections): another version may accept or default otherwise.
_PARSER_PACKAGES = ("pydantic", "pydantic_core", "yaml")


class _Uncacheable(Exception):
    """A compiled pack holds something an entry cannot represent: compile, don't cache."""


# ------------------------------------------------------------------ the key


def read_files(paths: Sequence[Path]) -> list[tuple[Path, bytes | None]]:
    """Each pack file with its bytes (None when it cannot be read: the compiler says why)."""
    out: list[tuple[Path, bytes | None]] = []
    for path in paths:
        try:
            out.append((path, path.read_bytes()))
        except OSError:
            out.append((path, None))
    return out


def environment(cel_engine: str) -> bytes | None:
    """A digest of the code a compile runs: the cache format, hookpolicy's version and
    modules, Python, the CEL engine and its libraries' files, and the files of the
    libraries that parse and validate packs (pydantic, pydantic-core, PyYAML). None
    when it cannot be told (then nothing is cached: stale code could not be told from
    current)."""
    if cel_engine not in _CEL_PACKAGES:
        return None
    try:
        code = code_stamps(_SOURCES)
        libraries = [package_stamps(name) for name in _CEL_PACKAGES[cel_engine]]
        parsers = [package_stamps(name) for name in _PARSER_PACKAGES]
    except (OSError, ImportError, ValueError):
        return None
    header = [
        FORMAT,
        __version__,
        sys.implementation.cache_tag,
        sys.version,
        cel_engine,
        code,
        libraries,
        parsers,
    ]
    return sha256(_json_bytes.dumps(header)).digest()


def cache_key(
    files: Sequence[tuple[Path, bytes | None]], env: bytes | None, aliases: AliasTable
) -> str | None:
    """The digest naming the entry for `files` compiled in `env` (see `environment`)
    over `aliases`; None when they cannot be cached."""
    if env is None or any(raw is None for _, raw in files):
        return None
    table = _json_bytes.dumps(alias_mapping(aliases), sort_keys=True)
    digest = sha256(env + table)
    for path, raw in files:
        assert raw is not None
        digest.update(b"\0" + os.fsencode(path) + b"\0" + sha256(raw).digest())
    return digest.hexdigest()


def alias_mapping(aliases: AliasTable) -> dict[str, Any]:
    """The table as JSON holds it: its own mapping and its glob spellings in the order
    they are tried (first match wins); `alias_table` rebuilds an equal table."""
    return {
        "names": dict(aliases._to_canonical),
        "globs": [list(pair) for pair in aliases._globs],
    }


def alias_table(mapping: Any, given: AliasTable) -> AliasTable:
    """The table `mapping` describes: `given` itself when equal (the engine tells the
    default table by identity), else a new one."""
    if mapping == alias_mapping(given):
        return given
    if not isinstance(mapping, dict) or not isinstance(mapping.get("names"), dict):
        raise TypeError("alias table is not a mapping")
    spellings: dict[str, list[str]] = {}
    for spelling, canonical in mapping["names"].items():
        if not isinstance(spelling, str) or not isinstance(canonical, str):
            raise TypeError("alias table holds a non-string")
        spellings.setdefault(canonical, [])
        if spelling != canonical:
            spellings[canonical].append(spelling)
    globs = mapping.get("globs")
    if not isinstance(globs, list) or not all(
        isinstance(g, list) and len(g) == 2 and all(isinstance(x, str) for x in g) for g in globs
    ):
        raise TypeError("alias globs are not a list of [pattern, tool] pairs")
    table = AliasTable(spellings, dict(tuple(g) for g in globs))
    if alias_mapping(table) != mapping:
        raise ValueError("alias table does not rebuild to itself")
    return table


def user_controls_packs(
    paths: Iterable[str | PathLike[str]], files: Iterable[Path], access: FileAccess = SYSTEM
) -> bool:
    """Whether the effective user could make the packs at `paths` say anything at all,
    so that a cache entry for them grants nothing it could not do already.

    `files` are the pack files found at `paths` (`policy.packs.load.discover`). Every
    one must be `user_controls`-ed, and so must every directory in `paths` and every
    directory between it and a pack file in it: whoever controls a directory decides
    which packs it holds, and an entry records that list too.
    """
    if access.euid() == 0:
        return True  # root could edit every pack: no need to ask about each
    found = list(files)
    needed: dict[Path, bool] = dict.fromkeys(found, False)
    for raw in paths:
        top = Path(raw)
        if top in needed:
            continue  # a pack file given by name
        needed[top] = True
        for file in found:
            try:
                parts = file.relative_to(top).parts
            except ValueError:
                continue
            for depth in range(1, len(parts)):
                needed.setdefault(top.joinpath(*parts[:depth]), True)
    return all(user_controls(path, access, directory=is_dir) for path, is_dir in needed.items())


# ------------------------------------------------------------------ reading


class ProgramStore:
    """Compiled CEL programs of cached packs, kept as cel-cpp serialises them.

    A pack's programs are compiled when a call first needs them, in every process: for
    the shipped packs that is a fifth of a one-event hook's life. Their serialised form
    is kept here, next to the pack entries and under the same rules — used only for
    packs the user controls (whose sources the user could change anyway), read only
    from a private file of this user with a valid checksum, keyed by the digest of the
    CEL libraries and code (`environment`), the hook point and the program's source. A
    damaged or missing entry is compiled again; one that does not deserialise is too,
    and so is one that does not begin with its own key (an entry renamed over another's
    name). The same store keeps what the native engine and the recalled answers read
    back: programs' shapes and plans, and the names their sources hold.
    """

    __slots__ = ("_dir", "_salt")

    def __init__(self, cache_dir: Path, salt: bytes) -> None:
        self._dir = cache_dir
        self._salt = salt

    def _key(self, point: str, source: str) -> bytes:
        digest = sha256(self._salt)
        digest.update(f"\0{point}\0{source}".encode())
        return digest.digest()

    def get(self, point: str, source: str) -> bytes | None:
        """The entry kept for `source` at `point`; None unless it says it is that one.
        (Each entry begins with its own key: an entry renamed or copied over another's
        name — by whoever may write the directory — is a miss, never another program's
        shape, names or answer standing for this one.)"""
        key = self._key(point, source)
        body = read_entry(self._dir, "cel-" + key.hex())
        if body is None or body[: len(key)] != key:
            return None
        return body[len(key) :]

    def put(self, point: str, source: str, program: bytes) -> None:
        key = self._key(point, source)
        write_entry(self._dir, "cel-" + key.hex(), key + program, keep=KEEP * 64)

    def lines(self) -> KeptLines:
        """The shell lines' lexical facts kept for the next one-event process, next to
        the programs (policy.packs.line_store, keyed by the analysis's own code)."""
        from policy.packs.line_store import KeptLines

        return KeptLines(self._dir / "lines")

    def glob_indexes(self) -> KeptGlobIndexes:
        """The packs' long glob lists' indexes kept for the next one-event process,
        next to the programs (policy.packs.glob_store, keyed by the analysis's code)."""
        from policy.packs.glob_store import KeptGlobIndexes

        return KeptGlobIndexes(self._dir / "globs")

    def answers(self) -> AnswerStore:
        """The programs' answers kept for the next one-event process, next to the
        programs and under the same salt (`policy.packs.recall.AnswerStore`)."""
        from policy.packs.recall import AnswerStore

        return AnswerStore(self._dir / "answers", self._salt)


def load(cache_dir: Path, key: str, engine: CelEngine, aliases: AliasTable) -> LoadedPacks | None:
    """The packs cached under `key`, or None (a miss) for any reason at all."""
    body = read_entry(cache_dir, key)
    if body is None:
        return None
    try:
        return loads(body, engine, aliases, key=key)
    except Exception as exc:  # noqa: BLE001 - an entry we cannot use is a miss, whatever the reason
        log.debug("pack cache: entry %s unusable (%s: %s); compiling", key, type(exc).__name__, exc)
        return None


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


def diagnostic_row(diagnostic: Diagnostic) -> list[Any]:
    """A diagnostic as an entry holds it (and a compile apart hands it over)."""
    d = diagnostic
    return [d.path, d.line, d.col, d.severity, d.code, d.message]


def diagnostic_of(row: Any) -> Diagnostic:
    """The diagnostic `diagnostic_row` wrote; TypeError for anything else."""
    if not isinstance(row, list) or len(row) != 6 or row[3] not in ("error", "warning"):
        raise TypeError("not a diagnostic's row")
    path, line, col, severity, code, message = row
    return Diagnostic(_str(path), _int(line), _int(col), severity, _str(code), _str(message))


def _strs(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise TypeError(f"expected a list, got {type(value).__name__}")
    return [_str(v) for v in value]


def _opt_strs(value: Any) -> list[str] | None:
    return None if value is None else _strs(value)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise TypeError(f"expected an int, got {type(value).__name__}")
    return value


def _mapping(value: Any) -> dict[Any, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected a mapping, got {type(value).__name__}")
    return value


def _pairs(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list):
        raise TypeError("expected a list of pairs")
    out: list[tuple[str, str]] = []
    for pair in value:
        first, second = _strs(pair)
        out.append((first, second))
    return tuple(out)


def _rebuild(entry: dict[str, Any], engine: CelEngine, aliases: AliasTable) -> LoadedPacks:
    from policy.packs import LoadedPacks
    from policy.packs.runtime import STRENGTH, CompiledPack, CompiledRule, name_filter

    table = alias_table(entry["aliases"], aliases)
    hooks: list[CompiledPack] = []
    for pack in entry["packs"]:
        name = _str(pack["name"])
        own = pack["aliases"]
        rules: list[CompiledRule] = []
        for rule in pack["rules"]:
            point, action = _str(rule["point"]), _str(rule["action"])
            spec = POINTS.get(point)
            if spec is None or not spec.rules or action not in STRENGTH:
                raise ValueError(f"unknown point or action {point!r} / {action!r}")
            tools = _opt_strs(rule["tools"])
            condition, message_expr = rule["condition"], rule["message_expr"]
            rules.append(
                CompiledRule(
                    pack=name,
                    id=_str(rule["id"]),
                    index=_int(rule["index"]),
                    point=point,
                    action=action,
                    audit=rule["audit"] is True,
                    tools=tuple(tools) if tools is not None else None,
                    senders=name_filter(_opt_strs(rule["senders"])),
                    channels=name_filter(_opt_strs(rule["channels"])),
                    sessions=name_filter(_opt_strs(rule["sessions"])),
                    condition=None if condition is None else _str(condition),
                    message=_str(rule["message"]),
                    message_expr=None if message_expr is None else _str(message_expr),
                    sets=_pairs(rule["sets"]),
                    respond=_pairs(rule["respond"]),
                    var_deps=frozenset(_strs(rule["var_deps"])),
                    gate=_gate(rule["gate"]),
                )
            )
        variables = pack["variables"]
        graph = pack["graph"]
        if not isinstance(variables, dict) or not isinstance(graph, dict):
            raise TypeError("variables and graph must be mappings")
        hooks.append(
            CompiledPack(
                name=name,
                priority=_int(pack["priority"]),
                revision=_str(pack["revision"]),
                digest=_str(pack["digest"]),
                on_error=_str(pack["on_error"]),
                rules=rules,
                engine=engine,
                var_sources={_str(k): _str(v) for k, v in variables.items()},
                var_graph={_str(k): frozenset(_strs(v)) for k, v in graph.items()},
                aliases=table if own is None else alias_table(own, table),
                locations={_str(k): _str(v) for k, v in _mapping(pack["locations"]).items()},
            )
        )
    builtins = _rebuild_builtins(entry["builtins"])
    warnings = [
        _lazy_dataclass.replace(diagnostic_of(w), severity="warning") for w in entry["warnings"]
    ]
    revisions = entry["revisions"]
    if not isinstance(revisions, dict):
        raise TypeError("revisions must be a mapping")
    return LoadedPacks(
        hooks=list(hooks),
        aliases=table,
        revisions={_str(k): _str(v) for k, v in revisions.items()},
        warnings=warnings,
        builtins=builtins,
    )


def _gate_entry(gate: ApprovalGate) -> dict[str, Any]:
    import math  # (writing an entry: a start that reads one needs none of it)

    if gate.timeout is not None and not math.isfinite(gate.timeout):
        # (JSON has no infinity: read back as null, it would be the engine's default)
        raise _Uncacheable(f"{gate.source}: a timeout that is not finite")
    return {
        "source": gate.source,
        "pack": gate.pack,
        "approvers": list(gate.approvers),
        "timeout": gate.timeout,
        "grants": list(gate.grants),
        "self_approval": gate.self_approval,
        "max_denials": gate.max_denials,
        "exempt_by_allow": gate.exempt_by_allow,
        "holds_respond": gate.holds_respond,
        "message": gate.message,
    }


def _gate(value: Any) -> ApprovalGate | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise TypeError("a gate must be a mapping")
    timeout, denials = value["timeout"], value["max_denials"]
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int | float)):
        raise TypeError("a gate's timeout must be a number")
    return ApprovalGate(
        source=_str(value["source"]),
        pack=_str(value["pack"]),
        approvers=tuple(_strs(value["approvers"])),
        timeout=None if timeout is None else float(timeout),
        grants=tuple(_strs(value["grants"])),
        self_approval=value["self_approval"] is True,
        max_denials=None if denials is None else _int(denials),
        exempt_by_allow=value["exempt_by_allow"] is True,
        holds_respond=value["holds_respond"] is True,
        message=_str(value["message"]),
    )


def _rebuild_builtins(sections: Any) -> list[Any]:
    """The packs' builtins as validation left them, read back without pydantic
    (`policy.builtins.kept_config`): a one-event hook on a pack with builtins would
    otherwise import pydantic at every start."""
    if not isinstance(sections, list):
        raise TypeError("builtins must be a list")
    if not sections:
        return []
    from policy.builtins import BuiltinSpec
    from policy.builtins.kept_config import decode

    return [
        BuiltinSpec(_str(pack), _str(name), decode(config)) for pack, name, config in sections
    ]


# ------------------------------------------------------------------ writing


def store(cache_dir: Path, key: str, result: LoadedPacks) -> bytes | None:
    """Write the entry for `key`, and return it; None when `result` cannot be one or
    it could not be written (the cache is then as it was). A set read back from an
    entry is written as that entry under `key`: its rules keep no source to write one
    from (the last good set of a service that started on the pack cache,
    policy.packs.last_good)."""
    try:
        if result.entry is not None:
            entry = _json_bytes.loads(result.entry)
            entry["key"] = key
            body = _json_bytes.dumps(entry)
        else:
            body = _serialised(key, result)
    except _Uncacheable as exc:
        log.debug("pack cache: not cached: %s", exc)
        return None
    return body if write_entry(cache_dir, key, body) else None


def dumps(result: LoadedPacks) -> bytes | None:
    """`result` as one entry's bytes, to hand to another process of this code (`policy
    serve`'s deciding processes: the very set the service serves, not a fresh compile
    of files that may have changed since); None when it cannot be written as one."""
    if result.entry is not None:  # (read back from one: handed on as it was read)
        return result.entry
    try:
        return _serialised("", result)
    except _Uncacheable as exc:
        log.debug("pack cache: not written as an entry: %s", exc)
        return None


def _serialised(key: str, result: LoadedPacks) -> bytes:
    """`result`'s entry as bytes; _Uncacheable when JSON cannot hold it exactly (an
    integer past 64 bits, which orjson refuses)."""
    entry = _entry(key, result)
    try:
        return _json_bytes.dumps(entry)
    except TypeError as exc:  # (orjson's error is a TypeError)
        raise _Uncacheable(f"not representable in JSON: {exc}") from None


def loads(
    body: bytes, engine: CelEngine, aliases: AliasTable, *, key: str | None = None
) -> LoadedPacks:
    """The set an entry holds (`dumps`', or the cache's under `key`); raises on anything
    else. The set keeps the entry, to be handed on as it was read."""
    entry = _json_bytes.loads(body)
    if entry.get("format") != FORMAT or (key is not None and entry.get("key") != key):
        raise ValueError("not an entry of this code's format, or not under this key")
    return _lazy_dataclass.replace(_rebuild(entry, engine, aliases), entry=body)


def _entry(key: str, result: LoadedPacks) -> dict[str, Any]:
    from policy.packs.runtime import APPROVAL_RULE_ID, CompiledPack

    table = alias_mapping(result.aliases)
    packs: list[dict[str, Any]] = []
    for hook in result.hooks:
        if not isinstance(hook, CompiledPack):
            raise _Uncacheable(f"{hook!r} is not a compiled pack")
        rules: list[dict[str, Any]] = []
        for rule in hook.rules:
            model = rule.model
            if model is None and rule.id != APPROVAL_RULE_ID:
                raise _Uncacheable(f"rule {rule.full_id} has no source")
            rules.append(
                {
                    "id": rule.id,
                    "index": rule.index,
                    "point": rule.point,
                    "action": rule.action,
                    "audit": rule.audit,
                    "tools": list(rule.tools) if rule.tools is not None else None,
                    "senders": model.senders if model is not None else None,
                    "channels": model.channels if model is not None else None,
                    "sessions": model.sessions if model is not None else None,
                    "condition": rule.condition,
                    "message": rule.message,
                    "message_expr": rule.message_expr,
                    "sets": [list(pair) for pair in rule.sets],
                    "respond": [list(pair) for pair in rule.respond],
                    "var_deps": sorted(rule.var_deps),
                    "gate": None if rule.gate is None else _gate_entry(rule.gate),
                }
            )
        own = alias_mapping(hook.aliases)
        packs.append(
            {
                "name": hook.pack_name,
                "priority": hook.priority,
                "revision": hook.revision,
                "digest": hook.digest,
                "on_error": hook.on_error,
                "variables": dict(hook.var_sources),
                "graph": {name: sorted(deps) for name, deps in hook.var_graph.items()},
                "aliases": None if own == table else own,
                "locations": dict(hook.locations),
                "rules": rules,
            }
        )
    from policy.builtins.kept_config import Unkeepable, encode

    try:
        sections = [[spec.pack, spec.name, encode(spec.config)] for spec in result.builtins]
    except Unkeepable as exc:
        raise _Uncacheable(str(exc)) from None
    return {
        "format": FORMAT,
        "key": key,
        "aliases": table,
        "revisions": result.revisions,
        "warnings": [diagnostic_row(w) for w in result.warnings],
        "builtins": sections,
        "packs": packs,
    }


