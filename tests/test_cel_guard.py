"""Guards: a condition that cannot hold for a call's facts is not built until a call
it may hold for comes, and skipping it gives the bit evaluating it would
(policy.packs.cel.native.guard).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from policy.packs.cel import get_engine
from policy.packs.cel.interface import VARIABLES_AT
from policy.packs.cel.native import NativeProgram
from policy.packs.cel.native.guard import Pruning, guard_of, need_of
from policy.packs.cel.native.syntax import parse
from tests.test_recall import _corpus_calls, corpus_engine

VARIABLES = VARIABLES_AT["before_tool"]
CONSTANTS = {"tools": ("mkfs", "fdisk"), "mixed": ("a", 1), "none": ()}


def may_hold(source: str, frame: dict[str, Any]) -> bool:
    guard = guard_of(parse(source), VARIABLES, CONSTANTS)
    return True if guard is None else guard(frame)


def command(name: str = "ls", **fields: Any) -> dict[str, Any]:
    return {"name": name, "network": False, "args": [], "flags": [], "deletes": [], **fields}


#: (a condition, facts, whether its guard lets it through)
DECIDED: list[tuple[str, dict[str, Any], bool]] = [
    # a list that is empty: exists is false
    ("access.writes.exists(p, p.startsWith('/etc'))", {"access": {"writes": []}}, False),
    ("access.writes.exists(p, p.startsWith('/etc'))", {"access": {"writes": ["/x"]}}, False),
    ("access.writes.exists(p, p.startsWith('/etc'))", {"access": {"writes": ["/etc/x"]}}, True),
    # one of two lists
    (
        "[access.reads, access.sends].exists(l, l.exists(p, p == 'x'))",
        {"access": {"reads": [], "sends": []}},
        False,
    ),
    (
        "[access.reads, access.sends].exists(l, l.exists(p, p == 'x'))",
        {"access": {"reads": [], "sends": ["y"]}},
        False,
    ),
    (
        "[access.reads, access.sends].exists(l, l.exists(p, p == 'x'))",
        {"access": {"reads": [], "sends": ["x"]}},
        True,
    ),
    # what an element must be: its name among strings, a flag, a list of its own
    ("commands.exists(c, c.name in vars.tools && c.args.size() > 0)", {"commands": [command()]}, False),
    ("commands.exists(c, c.name in [])", {"commands": [command()]}, False),
    ("commands.exists(c, c.name in vars.tools && c.args.size() > 0)", {"commands": [command("mkfs")]}, True),
    ("commands.exists(c, c.name == 'dd' || c.name.startsWith('mkfs'))", {"commands": [command("mkfs.ext4")]}, True),
    ("commands.exists(c, c.name == 'dd' || c.name.startsWith('mkfs'))", {"commands": [command("ls")]}, False),
    ("commands.exists(c, c.network && c.args.size() > 2)", {"commands": [command()]}, False),
    ("commands.exists(c, c.network && c.args.size() > 2)", {"commands": [command(network=True)]}, True),
    ("commands.exists(c, 'f' in c.flags && c.deletes.exists(p, true))", {"commands": [command(flags=["f"])]}, False),
    ("commands.exists(c, 'f' in c.flags && c.deletes.exists(p, true))", {"commands": [command(flags=["r"], deletes=["x"])]}, False),
    ("commands.exists(c, 'f' in c.flags && c.deletes.exists(p, true))", {"commands": [command(flags=["f"], deletes=["x"])]}, True),
    ("commands.exists(c, c.args.exists(a, a == 'serve'))", {"commands": [command(args=["run"])]}, False),
    # either side of ||, both of &&
    ("access.writes.exists(p, true) || access.deletes.exists(p, true)", {"access": {"writes": [], "deletes": ["d"]}}, True),
    ("access.writes.exists(p, true) && workspace == ''", {"access": {"writes": []}}, False),
    # a string among a list's: `x in L`, `L.exists(a, a == ...)`, `... a in [...]`
    ("commands.exists(c, c.args.exists(a, a in ['serve', 'run']))", {"commands": [command(args=["x"])]}, False),
    ("commands.exists(c, c.args.exists(a, a in ['serve', 'run']))", {"commands": [command(args=["x", "run"])]}, True),
    ("commands.exists(c, 'serve' in c.args && c.network)", {"commands": [command(args=["run"])]}, False),
    ("commands.exists(c, 'serve' in c.args && c.network)", {"commands": [command(args=["serve"], network=True)]}, True),
    # a ternary: its test's need, or its test's and the other branch's
    ("commands.exists(c, c.name in vars.tools ? c.args.size() > 0 : false)", {"commands": [command()]}, False),
    ("commands.exists(c, c.name in vars.tools ? c.args.size() > 0 : false)", {"commands": [command("mkfs")]}, True),
    ("workspace == '' ? access.writes.exists(p, true) : false", {"workspace": "/w", "access": {"writes": []}}, False),
    ("workspace == '' ? true : access.writes.exists(p, true)", {"workspace": "/w", "access": {"writes": []}}, False),
    ("workspace == '' ? true : access.writes.exists(p, true)", {"workspace": "/w", "access": {"writes": ["x"]}}, True),
    ("workspace == '' ? true : access.writes.exists(p, true)", {"workspace": "", "access": {"writes": []}}, True),
    # what every match of a pack's pattern starts with, or holds
    ("commands.exists(c, regex.matches(c.raw, '^(kubectl|gcloud) auth'))", {"commands": [command(raw="go mod tidy")]}, False),
    ("commands.exists(c, regex.matches(c.raw, '^(kubectl|gcloud) auth'))", {"commands": [command(raw="kubectl get pods")]}, False),
    ("commands.exists(c, regex.matches(c.raw, '^(kubectl|gcloud) auth'))", {"commands": [command(raw="gcloud auth login")]}, True),
    ("commands.exists(c, regex.matches(c.raw, 'approve|grant') && c.network)", {"commands": [command(raw="ls -la")]}, False),
    ("commands.exists(c, regex.matches(c.raw, 'approve|grant') && c.network)", {"commands": [command(raw="x grant y", network=True)]}, True),
    # ... and of a pattern CEL's own `matches` searches with (RE2)
    ("commands.exists(c, c.raw.matches('^(kubectl|gcloud) auth'))", {"commands": [command(raw="go mod tidy")]}, False),
    ("commands.exists(c, c.raw.matches('^(kubectl|gcloud) auth'))", {"commands": [command(raw="gcloud auth login")]}, True),
]
#: (a condition, facts the guard cannot be sure of: it lets the condition through)
UNSURE: list[tuple[str, dict[str, Any]]] = [
    # facts that are not there, or not of the type the guard reads: CEL decides
    ("access.writes.exists(p, true)", {"access": {}}),
    ("access.writes.exists(p, true)", {"access": {"writes": "not a list"}}),
    ("access.writes.exists(p, true)", {}),
    ("commands.exists(c, c.name in vars.tools)", {"commands": [{"name": 3}]}),
    ("commands.exists(c, c.network)", {"commands": [{"name": "ls"}]}),
    ("commands.exists(c, 'f' in c.flags)", {"commands": [command(flags=[1])]}),
    # building [L1, L2] errs when one is missing: not pruned, whatever the body
    ("[access.reads, access.sends].exists(l, commands.exists(c, c.network))", {"access": {"reads": []}, "commands": []}),
    # what a guard does not read: a negation, the branch a ternary takes, a constant list
    # with a non-string
    ("!access.writes.exists(p, true)", {"access": {"writes": []}}),
    ("workspace == '' ? access.writes.exists(p, true) : false", {"access": {"writes": []}}),
    ("workspace == '' ? access.writes.exists(p, true) : false", {"workspace": "", "access": {"writes": []}}),
    # a pattern that tells nothing for certain: case-insensitive, matching the empty
    # text, not compiling; a value that is not a string; a list field that is not a list
    ("commands.exists(c, regex.matches(c.raw, '(?i)^kubectl'))", {"commands": [command(raw="ls")]}),
    ("commands.exists(c, regex.matches(c.raw, 'x*'))", {"commands": [command(raw="ls")]}),
    ("commands.exists(c, regex.matches(c.raw, '(?<=a+)b'))", {"commands": [command(raw="ls")]}),
    ("commands.exists(c, regex.matches(c.raw, '^kubectl'))", {"commands": [command(raw=3)]}),
    # RE2 reads a POSIX class, and `{,n}`, otherwise than Python's parse: no need read
    ("commands.exists(c, c.raw.matches('^[[:alpha:]]x'))", {"commands": [command(raw="ax")]}),
    ("commands.exists(c, c.raw.matches('^ab{,3}c'))", {"commands": [command(raw="ab{,3}c")]}),
    ("commands.exists(c, c.raw.matches('(?=x)y'))", {"commands": [command(raw="ls")]}),
    ("commands.exists(c, 'serve' in c.args)", {"commands": [command(args="serve")]}),
    ("commands.exists(c, c.args.exists(a, a in ['serve']))", {"commands": [command(args=[3])]}),
    ("commands.exists(c, c.name in vars.mixed)", {"commands": [command()]}),
    # a name among none: false for a name, an error for a command without one
    ("commands.exists(c, c.name in [])", {"commands": [{"network": True}]}),
    ("commands.exists(c, c.name in vars.none && c.network)", {"commands": [{"name": 3}]}),
]


@pytest.mark.parametrize(("source", "frame", "holds"), DECIDED)
def test_a_guard_fails_only_where_the_facts_rule_the_condition_out(
    source: str, frame: dict[str, Any], holds: bool
) -> None:
    assert may_hold(source, frame) is holds


@pytest.mark.parametrize(("source", "frame"), UNSURE)
def test_a_guard_passes_what_it_cannot_be_sure_of(source: str, frame: dict[str, Any]) -> None:
    assert may_hold(source, frame) is True


def pruning_of(*sources: str) -> Pruning | None:
    """The pruning of a program of these conditions (condition i: bit i)."""
    return Pruning.of([need_of(parse(s), VARIABLES, CONSTANTS) for s in sources])


def let_through(source: str, frame: dict[str, Any]) -> bool:
    """Whether the pruning of a program of this one condition leaves it to evaluate."""
    pruning = pruning_of(source)
    return True if pruning is None else bool(pruning.enabled(frame) & 1)


@pytest.mark.parametrize(("source", "frame", "holds"), DECIDED)
def test_the_pruning_rules_out_only_what_the_guard_rules_out(
    source: str, frame: dict[str, Any], holds: bool
) -> None:
    if not let_through(source, frame):
        assert not holds
    if holds:
        assert let_through(source, frame)


@pytest.mark.parametrize(("source", "frame"), UNSURE)
def test_the_pruning_lets_through_what_the_guard_cannot_be_sure_of(
    source: str, frame: dict[str, Any]
) -> None:
    assert let_through(source, frame) is True


def test_the_pruning_checks_a_fact_once_for_every_condition_that_needs_it() -> None:
    """Conditions naming commands (`c.name in [...]`, `==`) are one table: a call's
    command names are looked up in it, and only the conditions of those names, and the
    ones needing nothing it knows, are left to evaluate."""
    pruning = pruning_of(
        "commands.exists(c, c.name in vars.tools && c.args.size() > 0)",
        "commands.exists(c, c.name == 'dd' || c.name == 'shred')",
        "commands.exists(c, c.network) || access.sends.exists(p, true)",
        "access.writes.exists(p, p.startsWith('/etc'))",
        "size(commands) > 3",
    )
    assert pruning is not None
    assert len(pruning.tables) == 1  # (commands' names: one table for both)
    ls = {"commands": [command()], "access": {"writes": [], "sends": []}}
    assert pruning.enabled(ls) == 0b10000
    dd = {**ls, "commands": [command("ls"), command("dd", network=True)]}
    assert pruning.enabled(dd) == 0b10110
    writes = {**ls, "access": {"writes": ["/etc/x"], "sends": []}}
    assert pruning.enabled({**ls, "access": {"writes": ["/tmp/x"], "sends": []}}) == 0b10000
    assert pruning.enabled(writes) == 0b11000


def test_one_walk_of_a_list_answers_every_fact_about_its_elements() -> None:
    """A program's facts about the same list's elements — their names in a table and by
    prefix, a field not false, a field a list that is not empty — are answered in one
    walk; an element the facts cannot read (a name that is no string, an element that
    is no map) lets through every condition that reads it."""
    pruning = pruning_of(
        "commands.exists(c, c.name in ['dd', 'shred'])",
        "commands.exists(c, c.name.startsWith('mkfs'))",
        "commands.exists(c, c.network)",
        "commands.exists(c, c.deletes.exists(p, true))",
        "access.writes.exists(p, true)",
    )
    assert pruning is not None

    def enabled(*commands: Any, writes: Any = ()) -> int:
        return pruning.enabled({"commands": list(commands), "access": {"writes": list(writes)}})

    assert enabled(command("ls")) == 0
    assert enabled(command("ls"), command("shred")) == 0b00001
    assert enabled(command("mkfs.ext4")) == 0b00010
    assert enabled(command("curl", network=True)) == 0b00100
    assert enabled(command("rm", deletes=["/x"])) == 0b01000
    assert enabled(command("ls"), writes=["/x"]) == 0b10000
    assert enabled(command(5)) == 0b00011  # type: ignore[arg-type]
    assert enabled("not a map") == 0b01111
    assert pruning.enabled({"commands": "not a list", "access": {"writes": []}}) == 0b01111
    assert pruning.enabled({}) == 0b11111


def test_a_macro_variable_hides_the_constants_and_the_outer_names() -> None:
    # `vars` bound by the macro is not the pack's: its `tools` is not the constant
    assert may_hold(
        "commands.exists(vars, vars.name in vars.tools)", {"commands": [command()]}
    ) is True
    # inside an element, `access` is no longer the call's: not followed
    assert may_hold(
        "commands.exists(c, access.writes.exists(p, true))",
        {"commands": [command()], "access": {"writes": []}},
    ) is True


def test_an_unbuilt_condition_ruled_out_is_false_without_being_built() -> None:
    program = get_engine("native").program(
        "before_tool", ["access.writes.exists(p, p.startsWith('/etc'))", "size(commands) > 0"],
        [], checked=True,
    )
    assert isinstance(program, NativeProgram)
    assert program._built == [False, True]  # (built when its guard first passes)
    data = {"access": {"writes": []}, "commands": [command()]}
    assert program.run_mask(data) == 0b10
    assert program._built == [False, True]
    assert program.run_mask({**data, "access": {"writes": ["/etc/passwd"]}}) == 0b11
    assert program._built == [True, True]


def test_a_guarded_condition_beyond_both_forms_is_left_to_cel_expr_python() -> None:
    """What neither form compiles is found when the guard first lets it through; from
    then on the program is cel-expr-python's, as one found at build is."""
    sources = [
        "access.writes.exists(p, true) && timestamp('2020-01-01T00:00:00Z') > timestamp('2019-01-01T00:00:00Z')",
    ]
    program = get_engine("native").program("before_tool", sources, [], checked=True)
    reference = get_engine("cel-expr-python").program("before_tool", sources, [], checked=True)
    assert isinstance(program, NativeProgram)
    empty = {"access": {"writes": []}}
    assert program.run_mask(empty) == reference.run_mask(empty) == 0
    written = {"access": {"writes": ["x"]}}
    assert program.run_mask(written) == reference.run_mask(written) == 1
    assert program._unsupported
    assert program.run(written) == reference.run(written) == [True]


def test_on_the_shipped_packs_a_failed_guard_is_a_false_condition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every third corpus call through the shipped packs: each condition whose guard
    fails for the call's facts evaluates to false, each the pruning rules out is one
    whose guard fails, and each program's mask (skipping what is not built yet, and
    what the pruning rules out) is the conditions' values, bit for bit. The guards
    rule out most of a call's conditions on this corpus, and the pruning most of
    those."""
    checked = {"programs": 0, "ruled_out": 0, "pruned": 0, "conditions": 0}
    differ: list[tuple[Any, ...]] = []
    mask_of = NativeProgram._mask

    def compared(program: NativeProgram, data: Any) -> int | None:
        # (noted, not asserted, here: run_mask takes an exception for a failed condition)
        mask = mask_of(program, data)
        frame = program._frame(data)
        each = program._results(data)
        evaluated = (
            None
            if not all(type(v) is bool for v in each)
            else sum(1 << i for i, v in enumerate(each) if v is True)
        )
        if mask != evaluated:
            differ.append(("mask", program._trees, mask, each))
        pruning = program._pruning
        enabled = -1 if pruning is None else pruning.enabled(frame)
        for index, (tree, guard, value) in enumerate(
            zip(program._trees, program._guards, each, strict=True)
        ):
            ruled_out = guard is not None and not guard(frame)
            if ruled_out:
                checked["ruled_out"] += 1
                if value is not False:
                    differ.append(("guard", tree, value))
            if not enabled & 1 << index:
                checked["pruned"] += 1
                if not ruled_out:  # (the pruning's facts are the guard's: never more)
                    differ.append(("pruned", tree, value))
        checked["programs"] += 1
        checked["conditions"] += len(each)
        return mask

    monkeypatch.setattr(NativeProgram, "_mask", compared)
    engine = corpus_engine(tmp_path, monkeypatch)
    try:
        for call in _corpus_calls(3):
            engine.before_tool(call)
    finally:
        engine.close()
    assert differ == []
    assert checked["programs"] > 5000
    assert checked["ruled_out"] > checked["conditions"] / 2
    assert checked["pruned"] > checked["ruled_out"] * 0.8


@pytest.mark.parametrize(
    ("source", "data"),
    [
        ("args.reqs.exists(r, r.host in [])", {"args": {"reqs": "not a list"}}),
        ("args.reqs.exists(r, r.host in [] && r.x)", {"args": {"reqs": [{"x": True}]}}),
        ("commands.exists(c, c.name in [])", {"commands": [{"network": True}]}),
        # a pattern that does not compile is no need: the condition errs
        ("commands.exists(c, regex.matches(c.raw, '(?<=a+)b'))", {"commands": [{"raw": "x"}]}),
        # a test that errs errs the ternary, whatever its other branch needs
        ("args.n > 1 ? true : access.writes.exists(p, true)", {"args": {}, "access": {"writes": []}}),
        # a branch of 0 is no `false` (0 == False in Python; an error in CEL: a red team)
        ('tool == "x" ? true : 0', {"tool": "y"}),
        ('commands.exists(c, c.name == "x" ? c.network : 0.0)', {"commands": [command()]}),
    ],
)
def test_a_condition_that_errs_is_not_pruned_to_false(source: str, data: dict[str, Any]) -> None:
    """A name among none is false for a name, and an error where the name is missing
    (red team, issue 24): the pruning leaves it to CEL, so a pack's `on_error` holds."""
    native = get_engine("native").program("before_tool", [source], [], checked=True)
    reference = get_engine("cel-expr-python").program("before_tool", [source], [], checked=True)
    assert native.run_mask(data) is None
    assert reference.run_mask(data) is None


def test_the_shipped_packs_needs_read_back_as_they_were_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-event hook reads its programs' guard needs back from the program store
    (policy.packs.cel.native.program, decision 0027): every need of every shipped
    program, kept and read back, is the need `need_of` made."""
    import gc

    from policy.packs.cel.native.guard import kept_need, read_need

    engine = corpus_engine(tmp_path, monkeypatch)
    try:
        engine.warm()
        programs = [o for o in gc.get_objects() if isinstance(o, NativeProgram)]
        needs = [need for program in programs for need in program._needs]
    finally:
        engine.close()
    assert len(needs) > 100 and any(need is not None for need in needs)
    for need in needs:
        assert read_need(orjson.loads(orjson.dumps(kept_need(need)))) == need


def test_a_pack_variable_that_reads_the_call_is_looked_through() -> None:
    """`vars.git.exists(c, ...)` for `git: commands.filter(c, c.name == "git")` needs a
    git command, as `vars.setup == true` needs what `setup`'s own expression needs: the
    shipped git pack's six conditions are ruled out for a call without one."""
    call_vars = {
        "git": parse('commands.filter(c, c.name == "git")'),
        "setup": parse('commands.exists(c, c.name == "git" && "config" in c.args)'),
        "deeper": parse("vars.setup"),
        "in_prod": parse('cwd.startsWith("/srv/prod")'),
    }

    def holds(source: str, frame: dict[str, Any]) -> bool:
        need = need_of(parse(source), VARIABLES, CONSTANTS, call_vars)
        pruning = Pruning.of([need])
        guard = True if need is None else guard_of_need(need)(frame)
        pruned = pruning is not None and not pruning.enabled(frame) & 1
        assert not (pruned and guard)  # (the pruning never rules out more than the guard)
        return guard

    ls, git = {"commands": [command()]}, {"commands": [command("git", args=["config"])]}
    for source in (
        'vars.git.exists(c, c.args.exists(a, a == "push"))',
        "vars.setup == true",
        "vars.setup",
        "vars.deeper",
    ):
        assert not holds(source, ls), source
        assert holds(source, git), source
    # a variable that is not a filter, or is shadowed, tells nothing
    assert holds("vars.git.size() > 0", ls)
    assert holds("[1].exists(vars, vars > 0)", ls)
    # nor one inside a macro's body, where the element is the root: the call's `cwd`
    # is not the command's (a red team)
    prod = {"cwd": "/srv/prod/app", "commands": [command("rm", cwd="")]}
    assert not holds("vars.in_prod", {"cwd": "/home/x"})
    assert holds('commands.exists(c, c.name == "rm" && vars.in_prod)', prod)
    assert holds('commands.exists(c, c.name == "rm" && vars.git.exists(g, true))', prod)


def guard_of_need(need: Any) -> Any:
    from policy.packs.cel.native.guard import check_of

    return check_of(need)


@pytest.mark.parametrize(
    "kept",
    [
        ["prefixes", ["commands"], []],
        ["prefixes", ["commands"], [""]],
        ["contains", ["commands"], ["x", 3]],
        ["contains", ["commands"], "x"],
    ],
)
def test_a_kept_need_of_texts_reads_back_only_as_need_of_makes_one(kept: Any) -> None:
    from policy.packs.cel.native.guard import read_need

    with pytest.raises(ValueError):
        read_need(kept)
