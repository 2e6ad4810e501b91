"""Test entries checked without running them, for `policy check`.

`check_tests` reports, at the file:line:col of the entry: a call's tool that is no
known tool, alias, or tool the pack declares in its `aliases:` (`tool: Bsh`); a rule id
in `expect.rule`/`rules` that no loaded pack has; a call field the payload has not
(`call: {tool: bash, argz: ...}`); a part the point needs but the entry lacks (an
`after_tool` test without `result:`) or gives but the point does not take. Running the
tests is `policy test`'s job.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING

from policy.aliases import DEFAULT_ALIASES, AliasConflictError, AliasTable
from policy.pack_tests.verdict import qualify
from policy.packs.diagnostics import Diagnostic

if TYPE_CHECKING:
    from policy.packs.load import LoadedPack
    from policy.packs.schema import Node, PackTest, PriorCall, TestStep

__all__ = ["check_tests"]


def check_tests(
    packs: Sequence[LoadedPack],
    aliases: AliasTable = DEFAULT_ALIASES,
    test_files: Iterable[str | PathLike[str]] = (),
) -> list[Diagnostic]:
    """Every problem of the `tests:` of `packs` and of the `*_test.yaml` files
    `test_files` (read and validated here; their packs are looked up in `packs`).

    `aliases` is the table of the settings (the default tool names plus
    `settings.aliases`); each pack's own `aliases:` are added for its tests. Rule ids
    resolve against every pack in `packs`.
    """
    from policy.pack_tests.suite import read_test_file

    by_name = {pack.name: pack for pack in packs}
    out: list[Diagnostic] = []
    for pack in packs:
        table = _table(aliases, [pack])
        for test in pack.model.tests:
            out.extend(_check_test(test, pack.name, by_name, table))
    for raw in test_files:
        read, problems = read_test_file(Path(raw))
        out.extend(problems)
        if read is None:
            continue
        _, model = read
        named = [by_name[n] for n in model.pack_names if n in by_name]
        for index, name in enumerate(model.pack_names):
            if name not in by_name:
                mark = model.mark("pack") if model.pack is not None else model.mark("packs", index)
                out.append(
                    Diagnostic(
                        model.source,
                        mark.line,
                        mark.col,
                        "error",
                        "test-unknown-pack",
                        f"no pack named {name!r} among the packs checked",
                    )
                )
        table = _table(aliases, named)
        for test in model.tests:
            out.extend(_check_test(test, model.pack_names[0], by_name, table))
    return sorted(set(out))


def _table(aliases: AliasTable, packs: Sequence[LoadedPack]) -> AliasTable:
    table = aliases
    for pack in packs:
        try:
            table = table.extend(pack.model.aliases)
        except AliasConflictError:
            continue  # the pack's own check reports the conflict
    return table


def _at(node: Node, code: str, message: str, *field: str | int) -> Diagnostic:
    mark = node.mark(*field)
    return Diagnostic(node.source, mark.line, mark.col, "error", code, message)


def _check_test(
    test: PackTest, target: str, packs: dict[str, LoadedPack], aliases: AliasTable
) -> list[Diagnostic]:
    steps: Sequence[PackTest | TestStep] = test.sequence or [test]
    out: list[Diagnostic] = []
    for step in steps:
        out.extend(_check_parts(step, aliases))
        if step.expect is not None:
            out.extend(_check_rules(step, target, packs))
    for prior in test.prior or ():
        out.extend(_check_parts(prior, aliases))
    return out


def _check_parts(step: PackTest | TestStep | PriorCall, aliases: AliasTable) -> list[Diagnostic]:
    from policy.codec import PART_TYPES, from_dict
    from policy.errors import InputError
    from policy.model import POINTS
    from policy.packs.schema import TEST_PARTS

    out: list[Diagnostic] = []
    wanted = POINTS[step.on].parts
    for name in TEST_PARTS:
        data = getattr(step, name)
        if data is None and name in wanted:
            out.append(_at(step, "test-missing-part", f"a call on {step.on} needs `{name}:`", "on"))
        elif data is not None and name not in wanted:
            out.append(
                _at(
                    step,
                    "test-extra-part",
                    f"a call on {step.on} takes {', '.join(wanted)}, not `{name}:`",
                    name,
                )
            )
    for name in wanted:
        data = getattr(step, name)
        if data is None:
            continue
        try:
            from_dict(PART_TYPES[name], data, name)
        except InputError as exc:
            text = str(exc)
            key = text[len(name) + 1 :].split(":", 1)[0] if text.startswith(f"{name}.") else ""
            where = (name, key) if key in data else (name,)
            mark = step._doc.key_mark((*step.path, *where)) if step._doc is not None else None
            line, col = (mark.line, mark.col) if mark is not None else (1, 1)
            code = "test-unknown-field" if "unknown field" in text else "test-invalid-call"
            out.append(Diagnostic(step.source, line, col, "error", code, text))
        tool = data.get("tool") if name == "call" else None
        if isinstance(tool, str) and not _known_tool(tool, aliases):
            known = sorted({s for c in aliases.canonical_names for s in aliases.spellings(c)})
            guess = difflib.get_close_matches(tool, known, n=1, cutoff=0.6)
            hint = f" (did you mean {guess[0]!r}?)" if guess else ""
            out.append(
                _at(
                    step,
                    "test-unknown-tool",
                    f"tool {tool!r} is no known tool or alias{hint}; declare a custom tool in "
                    f"the pack's aliases (`aliases: {{{tool}: {tool}}}`)",
                    name,
                    "tool",
                )
            )
    return out


def _known_tool(tool: str, aliases: AliasTable) -> bool:
    """A canonical tool, a spelling of one, or an MCP tool (`mcp__server__tool`)."""
    return aliases.knows(tool) or (tool.startswith("mcp__") and tool.count("__") >= 2)


def _check_rules(
    step: PackTest | TestStep, target: str, packs: dict[str, LoadedPack]
) -> list[Diagnostic]:
    expect = step.expect
    assert expect is not None
    named: list[tuple[str, tuple[str | int, ...]]] = []
    if expect.rule is not None:
        named.append((expect.rule, ("rule",)))
    named += [(r, ("rules", i)) for i, r in enumerate(expect.rules or [])]
    out: list[Diagnostic] = []
    for rule, field in named:
        pack_name, _, rule_id = qualify(target, rule).partition("/")
        pack = packs.get(pack_name)
        if pack is None:
            message = f"rule {rule!r}: no pack named {pack_name!r} among the packs checked"
            out.append(_at(expect, "test-unknown-rule", message, *field))
            continue
        known = _rule_ids(pack)
        if rule_id not in known:
            guess = difflib.get_close_matches(rule_id, sorted(known), n=1, cutoff=0.6)
            hint = f" (did you mean {guess[0]!r}?)" if guess else ""
            message = f"rule {rule!r}: pack {pack_name!r} has no rule {rule_id!r}{hint}"
            out.append(_at(expect, "test-unknown-rule", message, *field))
    return out


def _rule_ids(pack: LoadedPack) -> set[str]:
    """The ids a decision of `pack` can name after `pack/`: its rules and builtins."""
    ids = {rule.id for rule in pack.model.rules}
    builtins = pack.model.builtins
    for name in ("autonomy", "tool_policy", "approval"):
        if getattr(builtins, name) is not None:
            ids.add(name)
    if builtins.contract_scope is not None:
        ids.update(f"contract_scope/{c.id}" for c in builtins.contract_scope.contracts)
    return ids
