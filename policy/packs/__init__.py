"""Rule packs: YAML with CEL conditions, compiled into the same chain as code hooks.

from policy.packs import load_packs
loaded = load_packs(["rules/"])          # raises PackError listing every error
loaded.hooks                             # one chain hook per pack
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

from policy._lazy_dataclass import dataclass, field
from policy.aliases import DEFAULT_ALIASES, AliasTable
from policy.packs.diagnostics import Diagnostic, PackError

if TYPE_CHECKING:
    from policy._trusted_store import FileAccess
    from policy.builtins import BuiltinSpec
    from policy.packs.cache import ProgramStore
    from policy.packs.cel import CelEngine
    from policy.packs.load import LoadedPack

__all__ = ["Diagnostic", "LoadedPacks", "PackError", "answer_across_processes", "load_packs"]


@dataclass(frozen=True, slots=True)
class LoadedPacks:
    """Compiled packs ready to register, the alias table they extend, and warnings."""

    hooks: list[object]
    aliases: AliasTable
    revisions: dict[str, str]
    warnings: list[Diagnostic]
    #: Builtins the packs configure; an engine builds them (policy.builtins.build).
    builtins: list[BuiltinSpec] = field(default_factory=list)
    #: The pack-cache entry they were read back from (None: compiled from the YAML),
    #: which is how they are handed on (`policy.packs.cache.dumps`): a rule read back
    #: keeps no source to write a new entry from.
    entry: bytes | None = field(default=None, compare=False, repr=False)


def load_packs(
    paths: Iterable[str | PathLike[str]],
    *,
    cel_engine: str = "native",
    aliases: AliasTable = DEFAULT_ALIASES,
    cache_dir: Path | None = None,
    access: FileAccess | None = None,
) -> LoadedPacks:
    """Read, check and compile every pack under `paths`; PackError on any error.

    With `cache_dir`, a compile of the same files by the same code is read from
    there instead (see policy.packs.cache): a process that decides one event
    should not spend most of its life re-reading YAML it read a second ago. Only
    for packs the effective user could change anyway (`cache.user_controls_packs`,
    asked through `access`, the system by default): an entry is this user's file,
    and reading one for packs the user may not write would let the user — and the
    agent running tools as it — rewrite a policy an administrator protected.
    Large sets are compiled by a child process and read back (policy.packs.apart).
    """
    from policy.packs.cel import get_engine
    from policy.packs.load import discover

    given = list(paths)  # read twice: to find the files, and to ask who controls them
    files = discover(given)
    engine = get_engine(cel_engine)
    if cache_dir is None:
        return _compile([(path, None) for path in files], cel_engine, aliases)
    from policy._trusted_store import SYSTEM
    from policy.packs import cache

    if not cache.user_controls_packs(given, files, access or SYSTEM):
        # Neither read nor written: compiled from the files, as without a cache.
        return _compile([(path, None) for path in files], cel_engine, aliases)
    contents = cache.read_files(files)
    environment = cache.environment(cel_engine)
    key = cache.cache_key(contents, environment, aliases)
    if key is not None:
        hit = cache.load(cache_dir, key, engine, aliases)
        if hit is not None:
            return _with_programs(hit, cache_dir, environment)
    result = _compile(contents, cel_engine, aliases, (cache_dir, key) if key is not None else None)
    return _with_programs(result, cache_dir, environment)


def answer_across_processes(hooks: Iterable[object]) -> None:
    """Packs read from the pack cache keep their programs' answers there too, for the
    next process (`policy.packs.recall.AnswerStore`): a one-event hook asked about a
    call it has seen answers without building CEL's environment. Only packs with a
    program store have one — those the user controls, as for the compiled programs.
    When every pack has one, the shell lines' lexical facts are kept there as well
    (policy.analysis.kept_lines): the answers are found without the analysis's modules;
    and so are the indexes of the packs' long glob lists (policy.packs.glob_store): a
    call the packs have not answered before does not index them again. Otherwise none
    are kept or read, whatever an earlier engine of the process set."""
    packs = stores = 0
    first: ProgramStore | None = None
    for hook in hooks:
        if not hasattr(hook, "answer_store"):
            continue  # (not a compiled pack)
        packs += 1
        store = getattr(hook, "program_store", None)
        if store is not None:
            hook.answer_store = store.answers()
            stores += 1
            first = first or store
    from policy.analysis.kept_lines import keep_lines_in
    from policy.analysis.paths import keep_indexes_in

    everyone = first if first is not None and stores == packs else None
    keep_lines_in(everyone.lines() if everyone is not None else None)
    keep_indexes_in(everyone.glob_indexes() if everyone is not None else None)


def _with_programs(result: LoadedPacks, cache_dir: Path, environment: bytes | None) -> LoadedPacks:
    """Cached packs keep their compiled CEL programs in the cache too."""
    if environment is not None:
        from policy.packs import cache

        store = cache.ProgramStore(cache_dir / "cel", environment)
        for hook in result.hooks:
            if hasattr(hook, "program_store"):
                hook.program_store = store
    return result


#: Packs of at least this many rules compiled in the caller's process are rebuilt from
#: their own entry once compiled (`_compile`); smaller ones leave too little behind to
#: be worth a second read.
COMPACT_FROM = 1000


def _compile(
    files: Sequence[tuple[Path, bytes | None]],
    cel_engine: str,
    aliases: AliasTable,
    keep: tuple[Path, str] | None = None,
) -> LoadedPacks:
    """Compile `files` (with their bytes when already read); PackError on any error.
    With `keep` (the pack cache's directory and key), the result is written there.

    A large set is read back from its own entry, as the next start would read it:
    compiling leaves the YAML's nodes, the schema's models and the checker's
    temporaries among the packs' objects, and the allocator cannot give back an arena
    that holds one live object. Sources of `apart.APART_FROM_BYTES` are compiled by a
    child process, which hands the entry over (policy.packs.apart); a set of
    `COMPACT_FROM` rules compiled here is dropped and read back. An engine on 10,000
    rules held 131 MiB compiled, 95 to 104 MiB read back after its own compile, 69 MiB
    compiled apart (docs/performance.md). The packs read back are the ones every later
    start runs on, and that the service's deciding processes get."""
    from policy.packs import apart, cache
    from policy.packs.cel import get_engine

    engine = get_engine(cel_engine)
    if apart.large(files):
        read_back = apart.compile_apart(files, cel_engine, aliases)
        if read_back is not None:
            if keep is not None:
                cache.store(*keep, read_back)
            return read_back
    result = _compiled(files, engine, aliases)
    body = cache.store(*keep, result) if keep is not None else None
    if sum(len(getattr(hook, "rules", ())) for hook in result.hooks) < COMPACT_FROM:
        return result
    key = keep[1] if body is not None and keep is not None else None
    body = body if body is not None else cache.dumps(result)
    if body is None:  # (not representable as an entry: kept as compiled)
        return result
    del result
    import gc

    gc.collect()  # (the compiled packs hold cycles: closures, bound methods)
    try:
        return cache.loads(body, engine, aliases, key=key)
    except Exception:  # noqa: BLE001 - as a cache entry that does not read back: compiled again
        return _compiled(files, engine, aliases)


def _compiled(
    files: Sequence[tuple[Path, bytes | None]], engine: CelEngine, aliases: AliasTable
) -> LoadedPacks:
    """The packs in `files`, compiled (what `_compile` keeps or reads back)."""
    from policy.packs.compile import compile_packs
    from policy.packs.load import read_pack
    from policy.packs.schema import detach_sources

    loaded: list[LoadedPack] = []
    diagnostics: list[Diagnostic] = []
    for path, raw in files:
        pack, found = read_pack(path, raw)
        diagnostics.extend(found)
        if pack is not None:
            loaded.append(pack)
    compiled, problems, table = compile_packs(loaded, engine, aliases)
    diagnostics.extend(problems)
    if any(d.severity == "error" for d in diagnostics):
        raise PackError(diagnostics)
    from policy.builtins import specs_of

    builtins = [spec for pack in loaded for spec in specs_of(pack.name, pack.model.builtins)]
    for pack in loaded:
        detach_sources(pack.model)
    return LoadedPacks(
        hooks=list(compiled),
        aliases=table,
        revisions={pack.pack_name: pack.label for pack in compiled},
        warnings=[d for d in diagnostics if d.severity == "warning"],
        builtins=builtins,
    )
