"""Finding pack files and reading them into validated models, with every error located.

Every problem of a file is reported, not only the first: each document of a
multi-document file is read on its own (a pack file holds one; the others are still
checked), a duplicate key does not hide the rest of its document, and a document with
schema errors is checked further with the offending parts left out (`salvage`), so
`policy check` also reports the CEL errors and lints of every rule that is well formed.
A pack with any error never loads: only `read_pack_all` hands such packs out, to check.

PyYAML and pydantic are imported by the functions that read a pack, not with the
module: finding the pack files (`discover`) is all a pack-cache hit needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from policy._hashes import sha256
from policy._lazy_dataclass import dataclass
from policy.packs.diagnostics import Diagnostic, PackError

if TYPE_CHECKING:
    from pydantic import ValidationError

    from policy._yaml import PathKey, YamlDocument, YamlError

    #: A file's YAML documents, each with its problems (`load_yaml_documents`).
    Parsed = list[tuple[YamlDocument | None, list[YamlError]]]
    from policy.packs.schema import Node, RulePack

__all__ = [
    "LoadedPack",
    "discover",
    "discover_walked",
    "duplicate_pack",
    "not_a_pack",
    "pack_locations",
    "read_pack",
    "read_pack_all",
    "read_packs",
    "rule_locations",
    "yaml_files",
]

_SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True, slots=True)
class LoadedPack:
    path: Path
    doc: YamlDocument
    model: RulePack
    digest: str  # sha256 of the file's bytes

    @property
    def name(self) -> str:
        return self.model.name


def _is_pack_file(path: Path) -> bool:
    return path.suffix in _SUFFIXES and not path.stem.endswith("_test")


def yaml_files(root: Path) -> list[Path]:
    """The YAML files under the directory `root`, sorted, hidden ones (and those under
    hidden directories) skipped: where packs and their test files are looked for."""
    return [
        p
        for p in sorted(root.rglob("*"))
        if p.suffix in _SUFFIXES
        and p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    ]


def duplicate_pack(pack: LoadedPack, first: LoadedPack) -> Diagnostic:
    """`pack` has the name `first` has already: names are how rules, tests and the
    decision log tell packs apart."""
    mark = pack.model.mark("name")
    return Diagnostic(
        str(pack.path),
        mark.line,
        mark.col,
        "error",
        "duplicate-pack",
        f"pack name {pack.name!r} is already used by {first.path}",
    )


def discover(paths: Iterable[str | PathLike[str]]) -> list[Path]:
    """Pack files at `paths` (files, or directories searched recursively), sorted.

    `*_test.yaml` files hold tests, not packs; hidden directories are skipped.
    A path that does not exist is a PackError.
    """
    found: list[Path] = []
    missing: list[Diagnostic] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(p for p in yaml_files(path) if _is_pack_file(p))
        elif path.is_file():
            found.append(path)
        else:
            missing.append(
                Diagnostic(str(path), 1, 1, "error", "no-such-path", "no such file or directory")
            )
    if missing:
        raise PackError(missing)
    unique: dict[Path, None] = {}
    for p in found:
        unique.setdefault(p, None)
    return list(unique)


#: The builtins whose decisions name the pack's section (`pack/tool_policy`).
_LOCATED_BUILTINS = ("autonomy", "tool_policy", "approval", "contract_scope")


def pack_locations(pack: LoadedPack) -> dict[str, str]:
    """Where each rule of `pack` is written: `pack/rule-id` -> `file:line` of its `id:`,
    and the same for each configured builtin whose decisions name it (`pack/tool_policy`,
    `pack/approval`, `pack/contract_scope/<contract-id>`: the line of its key).

    Computed while the pack still has its source (before `detach_sources`); compiled
    packs and the pack cache carry the result (`CompiledPack.locations`)."""
    out: dict[str, str] = {}
    for rule in pack.model.rules:
        out[f"{pack.name}/{rule.id}"] = f"{pack.path}:{rule.mark('id').line}"
    builtins = pack.model.builtins
    for name in _LOCATED_BUILTINS:
        if getattr(builtins, name) is not None:
            out[f"{pack.name}/{name}"] = f"{pack.path}:{builtins.key_mark(name).line}"
    if builtins.contract_scope is not None:
        for contract in builtins.contract_scope.contracts:
            where = f"{pack.path}:{contract.mark('id').line}"
            out[f"{pack.name}/contract_scope/{contract.id}"] = where
    return out


def rule_locations(packs: Iterable[LoadedPack]) -> dict[str, str]:
    """`pack_locations` of every pack in `packs`, merged."""
    out: dict[str, str] = {}
    for pack in packs:
        out.update(pack_locations(pack))
    return out


#: Top-level keys that make a YAML file a rule pack (however broken): a file under a
#: walked directory with none of them is some other tool's file (a service's settings,
#: a CI workflow) and is skipped by `policy check`.
PACK_KEYS = ("apiVersion", "kind", "rules", "builtins")


#: The parse `not_a_pack` made of each file it found to be a pack, with the bytes parsed:
#: `read_pack_all` takes it from here — once, and only for the same bytes — instead of
#: parsing the file a second time (`policy check DIR` walks the directory, then reads
#: every pack it kept). Held up to _WALKED_LIMIT bytes of files; past that, files are
#: parsed twice.
_WALKED: dict[Path, tuple[bytes, Parsed]] = {}
_WALKED_LIMIT = 64 << 20


def _keep_walked(path: Path, raw: bytes, documents: Parsed) -> None:
    if sum(len(kept) for kept, _ in _WALKED.values()) + len(raw) <= _WALKED_LIMIT:
        _WALKED[path] = (raw, documents)


def _parsed(path: Path, raw: bytes) -> Parsed:
    """The YAML documents of `raw`, the bytes of `path`: the walk's parse of the same
    bytes when it kept one, else parsed now."""
    from policy._yaml import load_yaml_documents

    walked = _WALKED.pop(path, None)
    if walked is not None and walked[0] == raw:
        return walked[1]
    return load_yaml_documents(raw, str(path))


def not_a_pack(path: Path) -> str | None:
    """Why the YAML file `path`, found by walking a directory, is not a rule pack — or
    None when it must be checked as one.

    Only a file that parses and whose every document is a mapping with none of
    `PACK_KEYS`, nor a key a slip away from one (`_looks_like_pack_key`), is not a
    pack. Anything else is checked, and its errors reported: a file that does not
    parse, is empty, or has a `kind:` or `apiVersion:` at all (a typo'd kind is an
    error, never a reason to skip a pack)."""
    from policy._yaml import load_yaml_documents

    try:
        raw = path.read_bytes()
    except OSError:
        return None  # reading it again reports why it cannot be read
    documents = load_yaml_documents(raw, str(path))
    mappings = [doc.data for doc, problems in documents if doc is not None and not problems]
    if (
        not mappings
        or len(mappings) != len(documents)
        or not all(isinstance(data, dict) for data in mappings)
        or any(_looks_like_pack_key(key) for data in mappings for key in data)
    ):
        _keep_walked(path, raw, documents)
        return None
    return "not a rule pack (no apiVersion/kind)"


def _looks_like_pack_key(key: object) -> bool:
    """A top-level key that is, or is a slip away from, one only packs have: `Kind:`,
    `ApiVersion:`, `rule:` mark a pack with a mistake (checked, so the mistake is
    reported), never a file to skip."""
    import difflib

    if not isinstance(key, str):
        return False
    if key in PACK_KEYS:
        return True
    folded = key.lower().replace("_", "").replace("-", "")
    return bool(difflib.get_close_matches(folded, _FOLDED_PACK_KEYS, n=1, cutoff=0.75))


_FOLDED_PACK_KEYS = [key.lower() for key in (*PACK_KEYS, "enforcement")]


def discover_walked(
    paths: Iterable[str | PathLike[str]],
) -> tuple[list[Path], list[tuple[Path, str]]]:
    """`discover`, for checking: the pack files at `paths`, and the YAML files found
    under a directory that are not packs (`not_a_pack`), each with why. A file named
    in `paths` is always a pack file."""
    given = list(paths)
    files = discover(given)
    named = {Path(raw) for raw in given if Path(raw).is_file()}
    kept: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    for path in files:
        why = None if path in named else not_a_pack(path)
        if why is None:
            kept.append(path)
        else:
            skipped.append((path, why))
    return kept, skipped


_FRIENDLY = {
    "extra_forbidden": "unknown key {key!r}{hint}",
    "missing": "missing required key {key!r}",
}


def _node_type(annotation: Any) -> type[Node] | None:
    from policy.packs.schema import Node

    if isinstance(annotation, type) and issubclass(annotation, Node):
        return annotation
    for arg in get_args(annotation):
        found = _node_type(arg)
        if found is not None:
            return found
    return None


def _hint(loc: tuple[Any, ...]) -> str:
    """A did-you-mean for an unknown key, from the keys valid at that place."""
    import difflib

    from policy.packs.schema import RulePack

    model: type[Node] | None = RulePack
    for part in loc[:-1]:
        if isinstance(part, int) or model is None:
            continue
        field = next((f for n, f in model.model_fields.items() if part in (n, f.alias)), None)
        model = _node_type(field.annotation) if field is not None else None
    if model is None:
        return ""
    keys = [f.alias or n for n, f in model.model_fields.items()]
    guess = difflib.get_close_matches(str(loc[-1]), keys, n=1)
    return f" (did you mean {guess[0]!r}?)" if guess else ""


def _schema_diagnostics(exc: ValidationError, doc: YamlDocument) -> list[Diagnostic]:
    from policy._yaml import Mark

    out: list[Diagnostic] = []
    for error in exc.errors():
        loc = tuple(error["loc"])
        kind = error["type"]
        where = ".".join(str(p) for p in loc)
        if kind == "extra_forbidden":
            mark = doc.key_mark(loc)
            message = _FRIENDLY[kind].format(key=loc[-1], hint=_hint(loc))
            code = "unknown-key"
        elif kind == "missing":
            mark = doc.mark(loc[:-1])
            message = _FRIENDLY[kind].format(key=loc[-1])
            if len(loc) > 1:
                message += f" in {'.'.join(str(p) for p in loc[:-1])}"
            code = "missing-key"
        else:
            mark = doc.mark(loc)
            message = f"{where}: {error['msg']}"
            code = (
                "invalid-value" if kind.startswith(("literal", "string_pattern")) else "wrong-type"
            )
        mark = mark or Mark(1, 1)
        out.append(Diagnostic(doc.source, mark.line, mark.col, "error", code, message))
    return out


def read_pack(path: Path, raw: bytes | None = None) -> tuple[LoadedPack | None, list[Diagnostic]]:
    """Read one pack file: the validated pack, or None and every error found in it.

    `raw`, when given, is the file's content as already read (the pack cache hashes
    the bytes it then compiles, so an edit in between cannot pair one with the other).
    """
    packs, diagnostics = read_pack_all(path, raw)
    if not packs or any(d.severity == "error" for d in diagnostics):
        return None, diagnostics
    return packs[0], diagnostics


def read_pack_all(
    path: Path, raw: bytes | None = None
) -> tuple[list[LoadedPack], list[Diagnostic]]:
    """Read one pack file for checking: every document that can be checked further, and
    every error. With any error, the packs returned are salvaged (parts with schema
    errors left out): to compile and lint for more diagnostics, never to enforce."""
    from policy._yaml import Mark

    name = str(path)
    if raw is None:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            return [], [
                Diagnostic(name, 1, 1, "error", "unreadable", f"cannot read: {exc.strerror}")
            ]
    digest = sha256(raw).hexdigest()
    documents = _parsed(path, raw)
    packs: list[LoadedPack] = []
    diagnostics: list[Diagnostic] = []
    for number, (doc, problems) in enumerate(documents):
        for problem in problems:
            mark = problem.mark or Mark(1, 1)
            code = "duplicate-key" if problem.message.startswith("duplicate key") else "yaml-syntax"
            diagnostics.append(
                Diagnostic(name, mark.line, mark.col, "error", code, problem.message)
            )
        if doc is None:
            continue
        if number == 1:
            start = doc.mark(()) or Mark(1, 1)
            diagnostics.append(
                Diagnostic(
                    name,
                    start.line,
                    start.col,
                    "error",
                    "multiple-documents",
                    f"a pack file holds one pack, this one has {len(documents)} YAML documents: "
                    "put each pack in its own file (every document is checked here)",
                )
            )
        pack, found = _validate(path, doc, digest, number)
        diagnostics.extend(found)
        if pack is not None:
            packs.append(pack)
    return packs, diagnostics


def _validate(
    path: Path, doc: YamlDocument, digest: str, number: int
) -> tuple[LoadedPack | None, list[Diagnostic]]:
    """One document as a pack: validated, or salvaged (with its schema errors)."""
    from pydantic import ValidationError

    from policy.packs.schema import RulePack, attach_sources

    if not isinstance(doc.data, dict):
        mark = doc.mark(())
        line, col = (mark.line, mark.col) if mark else (1, 1)
        return None, [
            Diagnostic(
                doc.source, line, col, "error", "wrong-type", "a rule pack must be a mapping"
            )
        ]
    try:
        model = RulePack.model_validate(doc.data)
    except ValidationError as exc:
        diagnostics = _schema_diagnostics(exc, doc)
        salvaged = _salvage(doc, exc, path, number)
        if salvaged is None:
            return None, diagnostics
        model, moved = salvaged
        attach_sources(model, doc)
        for key in _LISTS:
            for node, original in zip(getattr(model, key), moved.get(key, ()), strict=False):
                _repath(node, (key, original))
        return LoadedPack(path, doc, model, digest), diagnostics
    attach_sources(model, doc)
    return LoadedPack(path, doc, model, digest), []


#: Lists of a pack whose entries with schema errors are left out one by one.
_LISTS = ("rules", "tests")
#: What a required top-level key takes while the rest of a pack is checked.
_STAND_INS = {"apiVersion": "hookpolicy/v1", "kind": "RulePack"}


def _salvage(
    doc: YamlDocument, exc: ValidationError, path: Path, number: int
) -> tuple[RulePack, dict[str, list[int]]] | None:
    """The pack without the parts that have schema errors (a rule, a builtin, a test,
    a top-level key), so that what is well formed can be checked further; with the
    original index of each rule and test kept. None when nothing checkable is left."""
    import copy
    import re

    from pydantic import ValidationError as _ValidationError

    from policy.packs.schema import RulePack

    data: dict[str, Any] = copy.deepcopy(doc.data)
    indices = {
        key: list(range(len(data[key]))) for key in _LISTS if isinstance(data.get(key), list)
    }
    error = exc
    for _ in range(4):
        dropped: dict[str, set[int]] = {key: set() for key in _LISTS}
        for item in error.errors():
            loc = tuple(item["loc"])
            if not loc:
                return None
            top = str(loc[0])
            value = data.get(top)
            if top in _LISTS and len(loc) > 1 and isinstance(loc[1], int):
                dropped[top].add(loc[1])
            elif top == "variables" and len(loc) > 1 and isinstance(value, dict):
                if loc[-1] == "[key]" or not isinstance(loc[1], str):
                    value.pop(loc[1], None)
                else:
                    value[loc[1]] = "dyn(null)"  # still declared: no undeclared-variable
            elif top in ("builtins", "aliases") and len(loc) > 1 and isinstance(value, dict):
                value.pop(loc[1], None)
            elif top in _STAND_INS:
                data[top] = _STAND_INS[top]
            elif top == "name":
                stem = re.sub(r"[^a-z0-9_.-]+", "-", path.stem.lower()).strip("-._") or "pack"
                data["name"] = f"{stem}.{number}.unnamed"
            else:
                data.pop(top, None)
                indices.pop(top, None)
        for key, gone in dropped.items():
            if gone and isinstance(data.get(key), list):
                kept = [i for i in range(len(data[key])) if i not in gone]
                data[key] = [data[key][i] for i in kept]
                indices[key] = [indices[key][i] for i in kept]
        try:
            return RulePack.model_validate(data), indices
        except _ValidationError as again:
            error = again
    return None


def _repath(node: Node, prefix: PathKey) -> None:
    """Give a salvaged pack's node (and its children) its place in the file again."""
    from policy.packs.schema import Node as _Node

    old = node.path
    cut = len(prefix)

    def walk(item: _Node) -> None:
        item._path = (*prefix, *item.path[cut:])
        for name in type(item).model_fields:
            value = getattr(item, name)
            children = (
                value.values()
                if isinstance(value, dict)
                else value
                if isinstance(value, list)
                else [value]
            )
            for child in children:
                if isinstance(child, _Node):
                    walk(child)

    if old[:cut] != prefix:
        walk(node)


def read_packs(paths: Iterable[str | PathLike[str]]) -> tuple[list[LoadedPack], list[Diagnostic]]:
    """Every pack under `paths`, plus the diagnostics of the files that failed."""
    packs: list[LoadedPack] = []
    diagnostics: list[Diagnostic] = []
    for path in discover(paths):
        pack, problems = read_pack(path)
        diagnostics.extend(problems)
        if pack is not None:
            packs.append(pack)
    return packs, diagnostics
