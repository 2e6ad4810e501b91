"""What a one-event `policy hook` no longer pays for at every start (issue 24), held
to the behaviour it replaced.

- Program plans: how a program's sources are rewritten (constants by handle, the
  variables still read, the named-binding form) is kept in the program store and read
  back, handles registered again; a plan that does not match its handles is not used.
- A program's conditions summed into one mask parse whatever their number: cel-cpp
  refuses a source nested deeper than 32, and a flat `a + b + c ...` nests once per
  term, so the named form of a big pack failed to compile at every start.
- Patterns compiled on first use read exactly like compiled ones.
- The command line builds only the part of the command being run.
"""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy.analysis._lazy_re import LazyPattern
from policy.cli import main
from policy.cli.commands import parser as _parser
from policy.packs.cel import constants, expr

POINT = "before_tool"


class _Store:
    """A program store in memory, counting what is put."""

    def __init__(self) -> None:
        self.entries: dict[tuple[str, str], bytes] = {}
        self.puts = 0

    def get(self, point: str, source: str) -> bytes | None:
        return self.entries.get((point, source))

    def put(self, point: str, source: str, program: bytes) -> None:
        self.puts += 1
        self.entries[(point, source)] = program


def _program(store: Any, exprs: list[str], layers: list[dict[str, str]]) -> Any:
    return expr.ExprEngine().program(POINT, exprs, layers, None, checked=True, store=store)


def _plans(store: _Store) -> dict[str, bytes]:
    return {key: body for (point, key), body in store.entries.items() if point.startswith("plan:")}


EXPRS = [
    'path.matches(tool, vars.places) || tool == "x"',
    'tool.startsWith("web") && glob(tool, "web_*")',
    "tool in vars.names",
]
LAYERS = [{"places": '["/etc/**", "~/.ssh/**"]', "names": '["bash", "shell"]'}]


@pytest.mark.parametrize("tool", ["bash", "web_fetch", "/etc/passwd", "x", "other"])
def test_a_plan_read_back_decides_as_one_worked_out(tool: str) -> None:
    store = _Store()
    fresh = _program(None, EXPRS, LAYERS)
    first = _program(store, EXPRS, LAYERS)  # works the plan out and keeps it
    (kept,) = _plans(store).values()
    again = _program(store, EXPRS, LAYERS)  # reads it back
    data = {"tool": tool, **{name: "" for name in fresh.needs if name != "tool"}}
    answers = {p.run_mask(data) for p in (fresh, first, again)}
    assert len(answers) == 1 and None not in answers
    assert _plans(store) == {next(iter(_plans(store))): kept}  # read, not worked out again
    assert again.needs == fresh.needs


@pytest.mark.parametrize(
    ("point", "source", "data"),
    [
        ("before_tool", "now > timestamp('2000-01-01T00:00:00Z')", {"now": _dt.datetime.now(_dt.UTC)}),
        ("after_tool", "duration > duration('1s')", {"duration": _dt.timedelta(seconds=2)}),
    ],
)
def test_a_program_read_back_takes_times_where_nothing_was_compiled(
    point: str, source: str, data: dict[str, Any]
) -> None:
    """cel-expr-python converts a `datetime` or `timedelta` only in an environment that
    has compiled something: one that has only read programs back (a one-event hook's
    from its second start) refused `now` as "Non-CEL value type"."""
    store = _Store()
    compiled_by = expr.ExprEngine()
    compiled_by._loaded = expr._ExprEnvs(handles=True)  # (another process's environments)
    compiled_by.program(point, [source], [], None, checked=True, store=store)
    reader = expr.ExprEngine()
    reader._loaded = expr._ExprEnvs(handles=True)  # (a new process's: nothing compiled)
    program = reader.program(point, [source], [], None, checked=True, store=store)
    assert store.puts == 2  # (the plan and the program: read back, not compiled again)
    assert program.run_mask(data) == 1


def test_a_plan_registers_its_handles_again_in_a_new_process(monkeypatch: Any) -> None:
    store = _Store()
    _program(store, EXPRS, LAYERS)
    (kept,) = _plans(store).values()
    handles = [handle for handle, _ in orjson.loads(kept)["handles"]]
    assert handles  # `vars.places` and `"web_*"` go by handle
    for handle in handles:  # as in a process that never worked this plan out
        monkeypatch.delitem(constants.VALUES, handle)
    plan = expr._Plan.from_bytes(kept)
    assert plan is not None
    assert {h: constants.VALUES[h] for h in handles} == plan.handles
    assert constants.VALUES[handles[0]] in (("/etc/**", "~/.ssh/**"), "web_*")


@pytest.mark.parametrize(
    "tamper",
    [
        lambda kept: {**kept, "handles": [[h, "/"] for h, _ in kept["handles"]]},  # another value
        lambda kept: {**kept, "handles": [[h + 1, v] for h, v in kept["handles"]]},  # another handle
        lambda kept: {**kept, "exprs": [1]},
        lambda kept: {**kept, "needs": "tool"},
        lambda kept: {k: v for k, v in kept.items() if k != "mask_named"},
    ],
)
def test_a_plan_that_does_not_hold_together_is_worked_out_again(tamper: Any) -> None:
    store = _Store()
    _program(store, EXPRS, LAYERS)
    ((key, kept),) = _plans(store).items()
    assert expr._Plan.from_bytes(kept) is not None
    damaged = orjson.dumps(tamper(orjson.loads(kept)))
    assert expr._Plan.from_bytes(damaged) is None
    store.entries[(f"plan:{POINT}", key)] = damaged
    program = _program(store, EXPRS, LAYERS)
    assert program.run_mask({"tool": "/etc/passwd"}) == 0b001
    assert _plans(store)[key] == kept  # worked out again, and kept again


def test_a_big_program_compiles_its_mask_in_the_named_form() -> None:
    # 20 conditions reading 8 variables: a flat sum nests 20 deep inside 8 binds
    names = [f"v{i}" for i in range(8)]
    layers = [{name: f'["{name}-a", "{name}-b"]' for name in names}]
    exprs = [f'tool in vars.{names[i % 8]} && tool != "{i}"' for i in range(20)]
    store = _Store()
    program = _program(store, exprs, layers)
    plan = program._plan
    assert plan.mask_named is not None and program._mask is not None
    program._envs.compile(POINT, plan.mask_named)  # parses: no CelCompileError
    assert program.run_mask({"tool": "v3-b"}) == sum(1 << i for i in range(20) if i % 8 == 3)


def test_a_named_form_too_deep_to_parse_is_forgotten_once() -> None:
    # 40 variables, one bind each: deeper than cel-cpp parses, whatever the body
    names = [f"v{i}" for i in range(40)]
    layers = [{name: f'"{name}"' for name in names}]
    exprs = [" || ".join(f"tool == vars.{name}" for name in names)]
    store = _Store()
    program = _program(store, exprs, layers)
    assert program.run_mask({"tool": "v39"}) == 1
    (kept,) = _plans(store).values()
    assert orjson.loads(kept)["mask_named"] is None  # the next start goes to the map form
    puts = store.puts
    again = _program(store, exprs, layers)
    assert again.run_mask({"tool": "v7"}) == 1 and again.run_mask({"tool": "v"}) == 0
    assert store.puts == puts  # nothing failed, nothing was kept again


@pytest.mark.parametrize(
    ("pattern", "flags", "text"),
    [
        (r"(?P<word>\w+)=(\d+)", 0, "a=1 b=22 c"),
        (r"^X", re.IGNORECASE | re.MULTILINE, "a\nx\nX"),
    ],
)
def test_a_lazy_pattern_reads_as_the_compiled_one(pattern: str, flags: int, text: str) -> None:
    lazy = LazyPattern(pattern, flags)
    real = re.compile(pattern, flags)
    assert "_compiled" not in lazy.__dict__  # nothing compiled before the first use
    assert (lazy.pattern, lazy.flags) == (pattern, flags)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert bool(lazy.search(text)) == bool(real.search(text))
    assert bool(lazy.match(text)) == bool(real.match(text))
    assert lazy.fullmatch(text) == real.fullmatch(text) is None
    assert lazy.findall(text) == real.findall(text)
    assert lazy.sub("-", text) == real.sub("-", text)
    assert lazy.split(text) == real.split(text)
    assert (lazy.groups, dict(lazy.groupindex)) == (real.groups, dict(real.groupindex))
    assert lazy.compiled is lazy.compiled  # compiled once


def test_a_lazy_pattern_that_does_not_compile_fails_when_used() -> None:
    broken = LazyPattern("(")
    with pytest.raises(re.error):
        broken.search("x")


def test_the_command_line_of_one_command_has_that_command_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def commands(parser: Any) -> list[str]:
        (action,) = [a for a in parser._actions if a.dest == "command"]
        return list(action.choices)

    assert commands(_parser("hook")) == ["hook"]
    every = commands(_parser())
    assert {"eval", "check", "hook", "serve", "approvals"} <= set(every)
    with pytest.raises(SystemExit):
        main(["no-such-command"])
    assert "invalid choice: 'no-such-command'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert [name for name in every if name not in out] == []


def test_every_command_parses_as_part_of_the_whole(tmp_path: Path) -> None:
    # a command's own part and the whole line give the same arguments
    argv = ["check", str(tmp_path), "--format", "json"]
    alone = _parser("check").parse_args(argv)
    whole = _parser().parse_args(argv)
    assert vars(alone) == vars(whole)


def test_the_bash_grammar_loads_without_its_packages_imports() -> None:
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from policy.analysis.shell.parse import _bash_language\n"
        "import tree_sitter\n"
        "p = tree_sitter.Parser(tree_sitter.Language(_bash_language()))\n"
        "print(str(p.parse(b'rm -rf /tmp/x | tee y').root_node))\n"
        "print(sorted(m for m in ('shutil', 'tempfile', 'importlib.resources') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    tree, imported = done.stdout.splitlines()
    import tree_sitter
    import tree_sitter_bash

    package = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
    assert tree == str(package.parse(b"rm -rf /tmp/x | tee y").root_node)
    assert imported == "[]"


@pytest.mark.parametrize("columns", ["50", "200", ""])
def test_help_is_as_wide_as_argparse_makes_it(
    columns: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    import policy.cli.commands

    monkeypatch.setenv("COLUMNS", columns)

    def help_text() -> str:
        with pytest.raises(SystemExit):
            main(["hook", "--help"])
        return capsys.readouterr().out

    ours = help_text()
    monkeypatch.setattr(policy.cli.commands, "_Formatter", argparse.HelpFormatter)  # shutil's width
    assert ours == help_text()
