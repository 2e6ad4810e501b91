"""Rule packs: YAML with CEL conditions, compiled into the same chain as code hooks.

from policy.packs import load_packs
loaded = load_packs(["rules/"])          # raises PackError listing every error
loaded.hooks                             # one chain hook per pack
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from os import PathLike
from typing import TYPE_CHECKING

from policy.aliases import DEFAULT_ALIASES, AliasTable
from policy.packs.diagnostics import Diagnostic, PackError

if TYPE_CHECKING:
    from policy.builtins import BuiltinSpec

__all__ = ["Diagnostic", "LoadedPacks", "PackError", "load_packs"]


@dataclass(frozen=True, slots=True)
class LoadedPacks:
    """Compiled packs ready to register, the alias table they extend, and warnings."""

    hooks: list[object]
    aliases: AliasTable
    revisions: dict[str, str]
    warnings: list[Diagnostic]
    #: Builtins the packs configure; an engine builds them (policy.builtins.build).
    builtins: list[BuiltinSpec] = field(default_factory=list)


def load_packs(
    paths: Iterable[str | PathLike[str]],
    *,
    cel_engine: str = "cel-expr-python",
    aliases: AliasTable = DEFAULT_ALIASES,
) -> LoadedPacks:
    """Read, check and compile every pack under `paths`; PackError on any error."""
    from policy.packs.cel import get_engine
    from policy.packs.compile import compile_packs
    from policy.packs.load import read_packs
    from policy.packs.schema import detach_sources

    loaded, diagnostics = read_packs(paths)
    compiled, problems, table = compile_packs(loaded, get_engine(cel_engine), aliases)
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
