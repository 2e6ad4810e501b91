"""Constant arguments reach the pack functions by handle, and the packs deciding one
call share one activation (issue 24: cel-expr-python copies a list argument into
Python at every call and keeps the copy; converting the facts once per pack was most
of a realistic decision).

What a user relies on: the same answers as before — every constant the rewrite
takes is the value CEL itself reads from the source — and memory that stays flat
however often a rule asks `path.matches(p, vars.places)`.
"""

from __future__ import annotations

import gc
import os
import tracemalloc
from pathlib import Path

import pytest
import yaml

from policy import Action, Engine, ToolCall
from policy.packs.cel import constants, get_engine
from policy.packs.cel.interface import referenced_names
from policy.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def cel_value(source: str) -> object:
    """What cel-expr-python itself makes of a constant source."""
    from cel_expr_python import cel

    value = cel.NewEnv().compile(source).eval().plain_value()
    return tuple(value) if isinstance(value, list) else value


@pytest.mark.parametrize(
    "source",
    [
        '["~/.ssh/**", "/etc/shadow"]',
        "['a', \"b\"]",
        '["trailing", ]',
        "[]",
        r'"^(python|pypy)[0-9.]*$"',
        r'"backup\\.(bak|old)$"',
        r'"quote \" and \' inside"',
        r'"tab\tnew\nline"',
        r'["\\\\server\\share", "x\?y"]',
        'r"raw text"',
        '"unicode é ✓"',
    ],
)
def test_a_constant_is_the_value_cel_reads(source: str) -> None:
    assert constants.constant(source) == cel_value(source)


@pytest.mark.parametrize(
    "source",
    [
        '["a"] + ["b"]',  # two literals
        '["a", vars.b]',  # a variable inside
        '"\\x41"',  # an escape the decoder does not take: the ordinary call then
        'r"a\\b"',  # a raw string with a backslash
        '"""triple"""',
        "[1, 2]",
        'b"bytes"',
        'dyn(["a"])',
    ],
)
def test_what_is_not_certainly_a_constant_is_left_alone(source: str) -> None:
    assert constants.constant(source) is None


def test_every_constant_of_the_shipped_packs_is_read_as_cel_reads_it() -> None:
    taken = 0
    for pack in sorted((ROOT / "rules").glob("*.yaml")) + sorted(
        (ROOT / "examples" / "packs").rglob("*.yaml")
    ):
        document = yaml.safe_load(pack.read_text())
        if not isinstance(document, dict):
            continue
        for name, source in (document.get("variables") or {}).items():
            value = constants.constant(str(source))
            if value is not None:
                taken += 1
                assert value == cel_value(str(source)), f"{pack.name}: vars.{name}"
    assert taken >= 30  # the lists of places, files and names the shipped rules ask about


def test_only_a_constant_second_argument_becomes_a_handle() -> None:
    source = (
        "access.reads.exists(p, path.matches(p, vars.places) || path.names(p, vars.files)"
        ' || glob(p, vars.pattern) || regex.matches(path.base(p), "^id_")'
        ' || path.within(p, workspace)) && "path.matches(p, vars.places)" != ""'
    )
    rewritten = constants.with_handles(
        source, {"places": '["~/.ssh/**"]', "pattern": '["not", "a", "string"]'}
    )
    handles = [int(h) for h in _handles(rewritten)]
    assert [constants.VALUES[h] for h in handles] == [("~/.ssh/**",), "^id_"]
    assert "path.names(p, vars.files)" in rewritten  # not a constant: the ordinary call
    assert "glob(p, vars.pattern)" in rewritten  # a list where a string is wanted
    assert '"path.matches(p, vars.places)"' in rewritten  # inside a string: text
    assert "path.within(p, workspace)" in rewritten  # not a function that takes handles


def _handles(source: str) -> list[str]:
    import re

    return re.findall(r"(?:_h_path_matches|_h_regex_matches)\(\S+, (\d+)\)", source)


def test_a_handle_names_the_same_value_in_every_process() -> None:
    # a program compiled here and read back from the program store elsewhere
    import subprocess
    import sys

    here = constants.with_handles('path.matches(p, ["/etc/**"])', {})
    there = subprocess.run(
        [
            sys.executable,
            "-c",
            "from policy.packs.cel import constants;"
            "print(constants.with_handles('path.matches(p, [\"/etc/**\"])', {}))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert here == there != 'path.matches(p, ["/etc/**"])'


def test_the_handled_call_answers_as_the_ordinary_one() -> None:
    engine = get_engine("cel-expr-python")
    places = '["~/.ssh/**", "/etc/sudoers.d/**", "**/.env"]'
    condition = "access.reads.exists(p, path.matches(p, vars.places))"
    handled = engine.program("before_tool", [condition], [{"places": places}])
    plain = engine.program(
        "before_tool", [f"access.reads.exists(p, path.matches(p, {places} + []))"], []
    )
    home = os.path.expanduser("~")
    for reads, expected in (
        ([f"{home}/.ssh/id_rsa"], True),
        (["/etc/sudoers.d/x"], True),
        (["/srv/app/.env"], True),
        (["/srv/app/main.py"], False),
        ([], False),
    ):
        data = {"access": {"reads": reads}}
        assert handled.run(data) == plain.run(data) == [expected]


def test_asking_a_long_constant_list_leaves_nothing_behind() -> None:
    engine = get_engine("cel-expr-python")
    places = "[" + ", ".join(f'"/srv/place{i}/**"' for i in range(200)) + "]"
    program = engine.program(
        "before_tool", ["access.reads.exists(p, path.matches(p, vars.places))"], [{"places": places}]
    )
    data = {"access": {"reads": ["/home/dev/project/src/main.py"]}}
    for _ in range(200):
        program.run_mask(data)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(2000):
            program.run_mask(data)
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    # passed as a list, the 200 patterns were copied and kept at every call: ≈ 15 KB
    # a call, 30 MB here; by handle, at most the call's own argument is kept
    assert grown < 2000 * 400, f"{grown} bytes kept over 2,000 calls"


def test_words_inside_string_literals_are_not_variables_a_program_needs() -> None:
    assert referenced_names('commands.exists(c, c.raw.matches("now tool host"))') == {
        "commands",
        "exists",
        "c",
        "raw",
        "matches",
    }
    # a raw string with a backslash: where it ends is not certain, every word counts
    assert "now" in referenced_names(r'r"\" + now')


def test_alternating_calls_never_see_each_others_facts(tmp_path: Path) -> None:
    # One activation is shared by the packs deciding one call; the next call, even with
    # equal values in new objects, must be judged on its own facts.
    engine = Engine(
        Settings(
            packs=[ROOT / "rules"],
            data_dir=tmp_path / "data",
            audit_path=tmp_path / "decisions.log",
            workspace="/home/dev/project",
        )
    )
    try:
        for _ in range(3):
            for command, expected in (
                ("cat ~/.ssh/id_rsa", Action.DENY_TOOL),
                ("ls -la", Action.CONTINUE),
                ("rm -rf /", Action.DENY_TOOL),
                ("git status", Action.CONTINUE),
            ):
                call = ToolCall(
                    tool="Bash", args={"command": command}, cwd="/home/dev/project", sender="dev"
                )
                assert engine.before_tool(call).action is expected, command
    finally:
        engine.close()


# ---------------------------------------------- what a red team found (2026-12-05)

COMMENTED = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: first
priority: -1000
on_error: skip
rules:
  - id: deny-rm
    tools: [bash]
    when: |
      // python's \"\"\" docstrings hold no code
      args.command.startsWith("rm")
      // (nor does this \"\"\" one)
    action: deny
    message: no rm
"""

CALL_IN_A_COMMENT = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: wipers
rules:
  - id: deny-wipers
    tools: [bash]
    when: |
      args.command in ["rm -rf /", // exact commands only, no glob(pattern,
        "mkfs /dev/sda"] + [
        "dd if=/dev/zero of=/dev/sda"]
    action: deny
    message: disk wiper
"""

RAW_ACROSS_LINES = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: rawvar
on_error: skip
variables:
  wipe: '"rm -rf /"'
rules:
  - id: deny-wipe
    tools: [bash]
    when: |
      r'''^\\s*\\
      ''' != args.command && args.command == vars.wipe && 'z' != r"\\d"
    action: deny
    message: wipe
"""


@pytest.mark.parametrize(
    ("pack", "refused", "allowed"),
    [
        # quotes in comments: the variables a condition reads were taken for string text,
        # and the activation shared with the previous call served that call's `args`
        (COMMENTED, "rm foo.txt", "echo hi"),
        # a handled call's name in a comment: the rewrite ate the comment's line end
        (CALL_IN_A_COMMENT, "mkfs /dev/sda", "ls"),
        # a raw string across lines: the pack variable read was taken for string text
        (RAW_ACROSS_LINES, "rm -rf /", "ls"),
    ],
)
def test_comments_and_raw_strings_never_hide_what_a_condition_reads(
    tmp_path: Path, pack: str, refused: str, allowed: str
) -> None:
    path = tmp_path / "pack.yaml"
    path.write_text(pack)
    engine = Engine(
        Settings(packs=[path], data_dir=tmp_path / "data", audit_path=tmp_path / "log")
    )
    cwd = "/srv/work"  # the same string object for every call, as a library caller's
    try:
        for command, expected in (
            ("ls", Action.CONTINUE),
            (refused, Action.DENY_TOOL),
            (allowed, Action.CONTINUE),
            (refused, Action.DENY_TOOL),
        ):
            decision = engine.before_tool(ToolCall(tool="Bash", args={"command": command}, cwd=cwd))
            assert decision.action is expected, (command, decision.reason)
    finally:
        engine.close()


def test_a_source_with_a_comment_or_a_raw_string_is_not_rewritten() -> None:
    for source in (
        'path.matches(p, ["/etc/**"]) // glob(x,\n',
        'path.matches(p, ["/etc/**"]) && r"\\d" != ""',
    ):
        assert constants.with_handles(source, {}) == source
    assert "now" in referenced_names('commands.size() > 0 // "now"\n')


@pytest.mark.parametrize(
    ("source", "certain"),
    [
        ('a.contains("://") && path.matches(p, ["/etc/**"])', True),  # `//` in a string
        ('f in ["f", "full", "r", "regexp"]', True),  # `r"` closing a string
        ('p.endsWith(".rb") || q == "b"', True),
        ("'single // quoted'", True),
        ('"""triple\n// inside"""', True),
        ('x == "a\\"b" // a comment', False),
        ('a "//" // c', False),
        ('r"raw"', False),
        ('"never ends', False),
        ('"line\nbreak"', False),
    ],
)
def test_strings_are_told_from_comments_as_cels_lexer_reads_them(source: str, certain: bool) -> None:
    # A `//` or an `r"` inside or at the end of a string used to be taken for a comment
    # or a raw string, and the conditions of seven shipped rules lost their handles.
    from policy.packs.cel.interface import strings_are_certain

    assert strings_are_certain(source) is certain


def test_every_shipped_condition_without_a_comment_or_raw_string_is_rewritten() -> None:
    from policy.packs.cel.interface import strings_are_certain

    uncertain = []
    for pack in sorted((ROOT / "rules").glob("*.yaml")):
        document = yaml.safe_load(pack.read_text())
        sources = [r.get("when") for r in document.get("rules") or []]
        sources += [str(v) for v in (document.get("variables") or {}).values()]
        uncertain += [f"{pack.name}: {s[:40]!r}" for s in sources if s and not strings_are_certain(s)]
    assert uncertain == []


def test_a_remembered_answer_is_keyed_by_home_exactly_where_the_function_reads_it() -> None:
    # Handled answers are remembered per (value, constant), and per home only for the
    # functions whose constant may say `~`: a function that read the home without
    # being listed would answer one user's question with another's.
    import inspect

    from policy.packs.cel.functions import _FUNCTIONS, READS_HOME

    for name, _, _, impl, _ in _FUNCTIONS:
        if name in constants.HANDLED:
            reads_home = "home_dir" in inspect.getsource(impl)
            assert reads_home == (name in READS_HOME), name
