"""What `policy test` runs: the `tests:` of every pack under PATHS and the `*_test.yaml`
files there, each with the pack files its engine loads.

A pack's own tests run against that pack plus the `--with` packs; a test file's run
against the packs it names (`pack:` or `packs:`, found under PATHS or `--with`) plus
the `--with` packs. Every problem found on the way — a pack or test file that does not
load, a pack name no file has — is a Diagnostic at file:line:col, raised together as
one PackError.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, cast

from policy._lazy_dataclass import dataclass
from policy.packs.diagnostics import Diagnostic, PackError
from policy.packs.load import (
    LoadedPack,
    discover_walked,
    duplicate_pack,
    read_pack,
    yaml_files,
)

if TYPE_CHECKING:
    from policy._yaml import YamlDocument
    from policy.packs.schema import PackTest, PackTests, RulePack

__all__ = ["Collection", "Suite", "collect", "discover_test_files", "read_test_file"]

_TEST_SUFFIXES = ("_test.yaml", "_test.yml")


@dataclass(frozen=True, slots=True)
class Suite:
    """Tests written in one file, and the packs they run against."""

    source: Path
    doc: YamlDocument
    #: The pack a bare rule id in `expect` belongs to (the first pack under test).
    target: str
    under_test: tuple[str, ...]
    #: The pack files the suite's engine loads.
    packs: tuple[Path, ...]
    tests: tuple[PackTest, ...]


@dataclass(frozen=True, slots=True)
class Collection:
    suites: list[Suite]
    #: The packs under test (found under PATHS, or named by a test file there).
    under_test: list[LoadedPack]
    #: Every pack read, under test or `--with`, by name.
    loaded: dict[str, LoadedPack]


def _is_test_file(path: Path) -> bool:
    return path.name.endswith(_TEST_SUFFIXES)


def discover_test_files(paths: Iterable[str | PathLike[str]]) -> list[Path]:
    """`*_test.yaml` files at `paths` (named, or under directories; hidden ones skipped)."""
    found: dict[Path, None] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for candidate in yaml_files(path):
                if _is_test_file(candidate):
                    found.setdefault(candidate, None)
        elif path.is_file() and _is_test_file(path):
            found.setdefault(path, None)
    return list(found)


def read_test_file(path: Path) -> tuple[tuple[YamlDocument, PackTests] | None, list[Diagnostic]]:
    """Read and validate one `*_test.yaml` file (kind `PackTests`), errors located."""
    from pydantic import ValidationError

    from policy._yaml import Mark, YamlError, load_yaml
    from policy.packs.load import _schema_diagnostics
    from policy.packs.schema import PackTests, attach_sources

    name = str(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, [Diagnostic(name, 1, 1, "error", "unreadable", f"cannot read: {exc.strerror}")]
    try:
        doc = load_yaml(raw, name)
    except YamlError as exc:
        mark = exc.mark or Mark(1, 1)
        code = "duplicate-key" if exc.message.startswith("duplicate key") else "yaml-syntax"
        return None, [Diagnostic(name, mark.line, mark.col, "error", code, exc.message)]
    if not isinstance(doc.data, dict):
        return None, [
            Diagnostic(name, 1, 1, "error", "wrong-type", "a test file must be a mapping")
        ]
    try:
        model = PackTests.model_validate(doc.data)
    except ValidationError as exc:
        return None, _schema_diagnostics(exc, doc)
    # attach_sources walks any Node; its annotation names the pack it was written for.
    attach_sources(cast("RulePack", model), doc)
    return (doc, model), []


def _read_all(paths: Sequence[Path], problems: list[Diagnostic]) -> list[LoadedPack]:
    out = []
    for path in paths:
        loaded, found = read_pack(path)
        problems.extend(found)
        if loaded is not None:
            out.append(loaded)
    return out


def collect(
    paths: Sequence[str | PathLike[str]], with_paths: Sequence[str | PathLike[str]] = ()
) -> Collection:
    """Every suite under `paths`, run beside the packs under `with_paths` (PackError
    naming every problem when a file does not load or a named pack is missing)."""
    problems: list[Diagnostic] = []
    explicit_tests = [Path(p) for p in paths if Path(p).is_file() and _is_test_file(Path(p))]
    pack_paths = [p for p in paths if Path(p) not in explicit_tests]
    tested = _read_all(discover_walked(pack_paths)[0] if pack_paths else [], problems)
    tested_files = {p.path.resolve() for p in tested}
    beside = [
        p
        for p in _read_all(discover_walked(with_paths)[0] if with_paths else [], problems)
        if p.path.resolve() not in tested_files
    ]
    loaded: dict[str, LoadedPack] = {}
    for pack in [*tested, *beside]:
        other = loaded.setdefault(pack.name, pack)
        if other is not pack:
            problems.append(duplicate_pack(pack, other))
    with_files = tuple(p.path for p in beside)
    suites = [
        Suite(
            pack.path,
            pack.doc,
            pack.name,
            (pack.name,),
            (pack.path, *with_files),
            tuple(pack.model.tests),
        )
        for pack in tested
        if pack.model.tests
    ]
    under_test = {pack.name: pack for pack in tested}
    for path in [*discover_test_files(pack_paths), *explicit_tests]:
        read, found = read_test_file(path)
        problems.extend(found)
        if read is None:
            continue
        doc, model = read
        names = model.pack_names
        files: list[Path] = []
        for index, name in enumerate(names):
            named = loaded.get(name)
            if named is None:
                mark = model.mark("pack") if model.pack is not None else model.mark("packs", index)
                problems.append(
                    Diagnostic(
                        str(path),
                        mark.line,
                        mark.col,
                        "error",
                        "unknown-pack",
                        f"no pack named {name!r} under PATHS or --with "
                        f"(packs found: {', '.join(sorted(loaded)) or 'none'})",
                    )
                )
                continue
            under_test.setdefault(name, named)
            if named.path not in with_files:
                files.append(named.path)
        suites.append(
            Suite(path, doc, names[0], tuple(names), (*files, *with_files), tuple(model.tests))
        )
    if problems:
        raise PackError(problems)
    return Collection(suites, list(under_test.values()), loaded)
