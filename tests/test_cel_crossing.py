"""A rule's call into Python leaves nothing behind (issue 24, decision record 0018).

cel-expr-python 0.1.3 never releases the argument tuple of a call into a Python
function, nor its result. What a user relies on: a long-lived `policy serve` whose
memory stays flat however many paths its rules ask about, with every answer — and
every error — the same as before. So the run-time environments answer through
crossings (policy.packs.cel.crossing), and rewritten calls compare an int
(constants.with_int_answers).
"""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from policy.packs.cel import constants, crossing
from policy.packs.cel import expr as cel_expr
from policy.packs.cel.functions import fn_path_base


def run_env() -> Any:
    return cel_expr._run_envs().env("before_tool")


def evaluate(source: str, **data: Any) -> Any:
    """`source` evaluated in a run-time environment, as it is (no rewrite)."""
    value = run_env().compile(source, disable_check=True).eval(data=data).plain_value()
    crossing.settle()
    return value


def rewritten(source: str) -> str:
    return cel_expr._int_answers(constants.with_native_matches(source))


def test_the_installed_library_is_the_one_the_crossings_were_checked_against() -> None:
    # An upgrade of cel-expr-python fails here until py_cel_function.cc and
    # py_cel_value.cc are read again and `_KNOWN` says the new version: until then
    # its crossings release nothing (correct, and leaking as before).
    assert crossing._library_version() in crossing._KNOWN
    assert crossing.probe() == (1, 1), "the library forgets one reference to each"


def kept_over(calls: int, run: Callable[[], None]) -> int:
    for _ in range(crossing._BATCH * 2):
        run()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(calls):
            run()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize(
    "source",
    [
        "names.exists(n, (_int_path_is_pattern(n) != 0))",  # answered as an int
        "names.exists(n, path.is_pattern(n))",  # as a BoolValue
        'names.exists(n, path.normalize(n) == "")',  # as a StringValue
        'names.exists(n, n._re2_matches("^z"))',  # a member call
    ],
)
def test_calls_into_python_leave_nothing_behind(source: str) -> None:
    env = run_env()
    program = env.compile(source, disable_check=True)
    # the same names every time, so no remembered answer grows; the library still
    # makes each call's arguments anew: kept, they would be ≈ 150 B a call
    names = [f"/srv/app/file-{i}.txt" for i in range(10)]

    def run() -> None:
        assert program.eval(data={"names": names}).plain_value() is False
        crossing.settle()

    kept = kept_over(1000, run)  # 10,000 crossings: kept, ≈ 1.5 MB or more
    # at most one batch owed, not yet released: ≤ 256 instances, their tuples and
    # arguments, ≈ 400 B each
    assert kept < 250_000, f"{kept} bytes kept over 10,000 calls"


def remembering_program() -> tuple[Any, list[str]]:
    """`xs.all(x, f(x) != 0)`, `f` an int crossing that keeps every argument it is given
    (the strings the library made for the call): their reference counts tell whether
    the library's tuples are gone."""
    from cel_expr_python import cel

    seen: list[str] = []

    def remember(value: str) -> bool:
        seen.append(value)
        return True

    t = cel.Type
    overload = cel.Overload("f_string", t.INT, [t.STRING], impl=crossing.int_crossing(remember, "f"))
    env = cel.NewEnv(
        variables={"xs": t.List(t.STRING)}, functions=[cel.FunctionDecl("f", [overload])]
    )
    return env.compile("xs.all(x, f(x) != 0)"), seen


def test_the_arguments_of_a_call_are_released_with_it() -> None:
    program, seen = remembering_program()
    for round_ in range(3):
        assert program.eval(data={"xs": [f"{round_}-{i}" for i in range(crossing._BATCH)]}).plain_value()
    crossing.settle()
    # each argument the library made is held by `seen` alone: its tuple, and the
    # instance that held that, are gone (the library's tuple would make it 4)
    import sys

    control = [f"{i}-control" for i in range(3)]
    assert {sys.getrefcount(value) for value in control} == {3}  # list, loop, argument
    assert {sys.getrefcount(value) for value in seen} == {3}


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('path.is_pattern("a/*")', True),
        ('path.is_pattern("a/b")', False),
        ('(_int_path_is_pattern("a/*") != 0)', True),
        ('(_int_path_is_pattern("a/b") != 0)', False),
        ('path.base("/srv/app/main.py")', "main.py"),
        ('path.base("/srv/app/")', "app"),
        ('path.base("")', ""),
        ('path.normalize("/srv/./app/../é" + "x".repeat(0))', None),  # an error: no repeat
    ],
)
def test_a_crossing_answers_as_the_plain_function(source: str, expected: object) -> None:
    value = evaluate(source)
    if expected is None:
        assert isinstance(value, str) and "repeat" in value  # an ERROR's plain value
    else:
        assert value == expected


def test_a_long_and_non_ascii_answer_crosses_whole() -> None:
    # a StringValue's length is a varint: one byte up to 127, more after
    for path in ["/" + "\u00e9" * 70, "/" + "x" * 126, "/" + "y" * 127, "/" + "\u2713" * 1300]:
        assert evaluate("path.normalize(p)", p=path) == path


def test_an_error_in_python_is_the_calls_error_and_leaves_nothing() -> None:
    # path.resolve refuses a relative path: the pack's on_error decides, as before
    value = evaluate('path.resolve("relative/path") == ""')
    assert isinstance(value, str) and "relative" in value.lower()
    program = run_env().compile('path.resolve("relative/" + x) == ""', disable_check=True)
    counter = iter(range(10**9))

    def run() -> None:
        program.eval(data={"x": f"name-{next(counter)}"})
        crossing.settle()

    assert kept_over(5000, run) < 250_000  # kept: ≈ 560 KB


def test_a_false_answer_is_false_and_an_error_is_never_an_answer() -> None:
    assert evaluate("!path.is_pattern(x)", x="plain") is True
    assert evaluate("!(_int_path_is_pattern(x) != 0)", x="plain") is True
    # an error absorbed as CEL absorbs it: by a true `||` operand, not otherwise
    assert evaluate('path.resolve("rel") == "" || true') is True
    assert isinstance(evaluate('path.resolve("rel") == "" || false'), str)


# ------------------------------------------------------------ the rewrite


@pytest.mark.parametrize(
    ("source", "receiver"),
    [
        ('a.matches("x")', "a"),
        ('c.name.matches("x")', "c.name"),
        ('a.lowerAscii().matches("x")', "a.lowerAscii()"),
        ('w.split("@")[size(w.split("@")) - 1].matches("x")', 'w.split("@")[size(w.split("@")) - 1]'),
        ('size(x) > 1 && ("policy serve".matches(y))', '"policy serve"'),
        ('r.substring(size(p) + 1).matches("x")', "r.substring(size(p) + 1)"),
        ('!a.matches("x")', "a"),
        ("x in [1, 2].matches(y)", "[1, 2]"),
        ("f(a, b.matches(y))", "b"),
        ("path.base(p).matches(y)", "path.base(p)"),
        ("(a + b).matches(y)", "(a + b)"),
        ("z - (a + b).matches(y)", "(a + b)"),
        ("a ? b.matches(y) : c", "b"),
        ('{"a": 1}.matches(y)', '{"a": 1}'),
        ("T{a: 1}.matches(y)", "T{a: 1}"),
        ('x[")"].matches(y)', 'x[")"]'),
        ("m[k] [j] .matches(y)", "m[k] [j] "),
        (" .matches(y)", None),
        ("1.matches(y)", None),
    ],
)
def test_a_member_calls_receiver_is_read_as_cel_binds_it(source: str, receiver: str | None) -> None:
    dot = source.index(".matches")
    start = constants._receiver_start(source, dot, constants._string_spans(source))
    assert (None if start is None else source[start:dot]) == receiver


BOOLEAN_SOURCES = [
    'x.matches("^a")',
    '!x.matches("^a") || y.matches("b$")',
    '(x + "y").matches("ay$")',
    '[x, y][1].matches("^b")',
    '{"k": x}["k"].matches("a")',
    'x in ["a", "ab"] && x.matches("b")',
    '"policy serve".matches(x) == false',
    'x.matches(y) ? y.matches(x) : !y.matches("q")',
    'path.base(x + "/" + y).matches("^b")',
    'path.within(x, "/") || path.is_pattern(y + "*")',
    'regex.matches(path.base(y), "b") && !glob(x, "a*")',
    '[x].exists(v, v.matches("a") && !path.is_pattern(v))',
    'x.matches("\\\\(") || y.matches("[)]")',
    'x.matches(".matches(")',
]


@pytest.mark.parametrize("source", BOOLEAN_SOURCES)
@pytest.mark.parametrize(("x", "y"), [("a", "b"), ("ab", "ba"), ("(", ")"), ("q", ""), ("é/", "b/")])
def test_a_rewritten_condition_answers_as_the_original(source: str, x: str, y: str) -> None:
    changed = rewritten(source)
    assert "_int_" in changed
    want, got = evaluate(source, x=x, y=y), evaluate(changed, x=x, y=y)
    if type(want) is str:  # an ERROR's plain value is its message: RE2 words it its own way
        assert type(got) is str and "regular expression" in want and "regular expression" in got
    else:
        assert got == want


def test_an_unplaceable_member_call_keeps_its_bool_answer() -> None:
    source = '1._re2_matches("x")'  # no receiver the rewrite can read: left alone
    assert rewritten(source) == source
    assert evaluate('"abc"._re2_matches("b")') is True


@pytest.mark.parametrize("path", ["a/b/c", "/", "", "x/", "abc", "/a/b//", "/é/ü", "//", "a//b"])
def test_path_base_in_cel_answers_as_python(path: str) -> None:
    assert evaluate(constants.with_native_base("path.base(p)"), p=path) == fn_path_base(path)


# ------------------------------------------------ what a red team found (issue 24)


@pytest.mark.parametrize(
    ("source", "data"),
    [
        # cel-cpp's `cel.bind` read the leftover of an `exists` that stopped early: with
        # `path.base` rewritten through a bind, "curl" was read as "https://…"
        (
            'cs.exists(c, c.args.exists(a, a in ["-k", "--insecure"]) && path.base(c.path) == "curl")',
            {"cs": [{"args": ["-k", "https://example.com"], "path": "/usr/bin/curl"}]},
        ),
        ('[xs.exists(v, true), path.base(p)]', {"xs": ["/etc/a", "b"], "p": "/home/u/.bashrc"}),
        (
            'xs.exists(v, v.startsWith("/etc")) && path.base(p) == ".bashrc"',
            {"xs": ["/etc/a", "b"], "p": "/home/u/.bashrc"},
        ),
        ('path.base(p + "/x") == "x" && path.base(c.path) == "b"', {"p": "a", "c": {"path": "/a/b"}}),
    ],
)
def test_path_base_in_cel_never_reads_a_stale_value(source: str, data: dict[str, Any]) -> None:
    changed = rewritten(source)
    assert "cel.bind" not in changed
    assert evaluate(changed, **data) == evaluate(source, **data)


def test_only_a_name_or_a_field_chain_is_read_three_times() -> None:
    assert "path.base(p + " in constants.with_native_base('path.base(p + "/x")')
    assert "path.base(f(p))" in constants.with_native_base("path.base(f(p))")
    assert constants.with_native_base("path.base(c . path)").startswith('(c.path.endsWith("/")')


def test_a_null_in_a_list_argument_never_costs_none_a_reference() -> None:
    import gc
    import sys

    # the library puts None in the list without a reference of its own: releasing the
    # list would take one from None each time, until Python aborts (3.11)
    program = run_env().compile(rewritten("path.matches(x, xs)"), disable_check=True)
    # (the collector off while counting: garbage other tests left, collected in the
    # loop, would give back None's references too)
    gc.collect()
    gc.disable()
    try:
        before = sys.getrefcount(None)
        for _ in range(crossing._BATCH * 4):
            program.eval(data={"x": "/a", "xs": [None, None]})
            crossing.settle()
        after = sys.getrefcount(None)
    finally:
        gc.enable()
    # released: 2,048 fewer. (Others than the loop may give back a few dozen meanwhile:
    # caches other tests filled, letting entries go.)
    assert after >= before - 512


@pytest.mark.parametrize(
    "source",
    [
        'xs.exists(path, path.matches("secret"))',  # a variable named path: a string's matches
        'xs.all(regex, !regex.matches("^a"))',
        'xs.exists(path, path.matches(vars_places, ["x"]))',
    ],
)
def test_a_variable_named_as_a_namespace_is_left_as_it_is(source: str) -> None:
    assert rewritten(source) == source.replace(".matches(", "._re2_matches(") or rewritten(
        source
    ) == source
    assert "_int_" not in rewritten(source) and "_h_" not in constants.with_handles(source, {})


def test_a_call_with_another_number_of_arguments_is_not_the_function() -> None:
    assert constants.with_int_answers("path.within(x)", cel_expr._INT_FUNCTIONS, frozenset()) == (
        "path.within(x)"
    )


def test_a_name_after_a_dot_is_a_member_chain_not_the_function() -> None:
    source = 'm. path.within(x, "/etc") || true'
    assert constants.with_int_answers(source, cel_expr._INT_FUNCTIONS, frozenset()) == source
    assert constants.with_native_base("m. path.base(x)") == "m. path.base(x)"


def test_a_program_too_deep_once_rewritten_runs_as_before() -> None:
    from policy.packs.cel import get_engine

    env = run_env()

    def compiles(source: str) -> bool:
        try:
            env.compile(f"[({source})]", disable_check=True)
        except RuntimeError:
            return False
        return True

    deep = None
    for depth in range(20, 40):
        source = "(" * depth + 'path.within(tool, "/etc")' + ")" * depth
        if compiles(source) and not compiles(rewritten(source)):
            deep = source
            break
    assert deep is not None, "the rewrite nests one level deeper"
    program = get_engine("cel-expr-python").program("before_tool", [deep], [])
    assert program.run({"tool": "/etc/passwd"}) == [True]
    assert program.run({"tool": "/home"}) == [False]


def test_a_list_answer_is_released() -> None:
    program = run_env().compile(
        'shell.commands(x).exists(c, c.name == "git")', disable_check=True
    )
    line = "ls -la /srv/app | grep main.py && cat README.md | head -n 20"

    def run() -> None:
        assert program.eval(data={"x": line}).plain_value() is False
        crossing.settle()

    # the commands' facts (≈ 6.7 KB a call, 27 MB here) are released; the library
    # keeps the line itself (≈ 200 B), the argument a list answer cannot hold; and up
    # to one batch of answers may be owed (≈ 256 answers of 7 KB)
    assert kept_over(4000, run) < 4000 * 1000


def test_what_a_thread_owes_is_released_when_it_ends() -> None:
    import sys
    import threading

    program, seen = remembering_program()

    def decide() -> None:  # fewer than a batch, then the thread ends
        assert program.eval(data={"xs": [f"t-{i}" for i in range(10)]}).plain_value()
        crossing.settle()

    crossing._releaser()  # probed already, as in a process that has decided before
    thread = threading.Thread(target=decide)
    thread.start()
    thread.join()
    gc.collect()
    assert len(seen) == 10
    assert {sys.getrefcount(value) for value in seen} == {3}  # list, loop, argument


def test_a_null_in_a_result_never_costs_none_a_reference() -> None:
    import sys

    from policy.packs.cel import get_engine

    # a `set` or `respond` that echoes a caller's null: each null in a program's result
    # cost None a reference in the library's conversion, until Python 3.11 aborts
    program = get_engine("cel-expr-python").program(
        "before_tool", ['[null, tool, [null, {"b": null}]]', '{"a": null}'], []
    )
    assert program.run({"tool": "x"}) == [[None, "x", [None, {"b": None}]], {"a": None}]
    before = sys.getrefcount(None)
    for _ in range(1000):
        program.run({"tool": "x"})
    assert sys.getrefcount(None) >= before - 50  # the library alone: 4,000 fewer
