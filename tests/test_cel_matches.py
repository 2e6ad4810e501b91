"""`X.matches(P)` runs CEL's own RE2 match with its pattern compiled once per process.

cel-expr-python compiles a `matches` pattern at every call, literal or not: 13-64 µs
for the shipped packs' patterns, inside loops over every argument of every command.
Programs are rewritten to call `X._re2_matches(P)` instead (google-re2, the library
cel-cpp's `matches` runs). What a user relies on: every answer and every error is
CEL's own, for every pattern and text — so the tests below hold the rewritten call to
the native one, pattern by pattern.
"""

from __future__ import annotations

from typing import Any

import pytest

from policy.packs.cel import constants, expr

POINT = "before_tool"

PATTERNS = [
    r"^(python|pypy)[0-9.]*$",
    r"(?i)^(.*/)?(hook[-_.]?)?policy((\[[^]]*\])?([<>=!~;@ ].*)?|-[0-9][^/]*[.](whl|tar[.]gz|zip))$",
    r"^remote\..+\.pushurl(=|$)",
    r"(^|[ /])(sh|bash|curl)( |$)",
    r"AKIA[0-9A-Z]{16}",
    r"\bword\b",
    r"\s+\d",
    r"[[:alpha:]]+",
    r"\pL",
    r"(?s)a.b",
    r"(?m)^x$",
    r"(?U)a+",
    r"a{2,3}?",
    r"",
    r"^$",
    r"[^a]",
    r"é+",
    r"(?i)k",
    r"(?i)straße",
]
TEXTS = [
    "",
    "python3",
    "python3\n",
    "hookpolicy-1.0.whl",
    "remote.origin.pushurl=x",
    "run sh now",
    "AKIAABCDEFGHIJKLMNOP",
    "a word here",
    "x\t9",
    "ünïcödé",
    "a\nb",
    "y\nx\nz",
    "aaa",
    "\n",
    "K",  # the Kelvin sign folds to k
    "STRASSE",
    "éé",
]
BROKEN = [r"(", r"a{1001}", r"(?P<n>a)(?P=n)", r"a(?=b)", r"\1"]


def _native() -> Any:
    """An environment without the rewrite: CEL's own `matches`."""
    from cel_expr_python import cel

    return cel.NewEnv(variables={"v": cel.Type.STRING, "p": cel.Type.STRING})


def _native_answer(source: str, value: str, pattern: str = "") -> Any:
    env = _native()
    try:
        got = env.compile(source).eval(data={"v": value, "p": pattern})
    except RuntimeError:
        return "error"
    plain = got.plain_value()
    return plain if type(plain) is bool else "error"


def _ours(source: str, value: str, pattern: str = "") -> Any:
    program = expr.ExprEngine().program(POINT, [source], [], None)
    assert "_re2_matches" in program._exprs[0]
    (answer,) = program.run({"tool": value, "tool_raw": pattern})
    return answer if type(answer) is bool else "error"


def _literal(pattern: str) -> str:
    return '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.mark.parametrize("pattern", PATTERNS + BROKEN)
def test_a_literal_pattern_answers_as_cel_does(pattern: str) -> None:
    for text in TEXTS:
        native = _native_answer(f"v.matches({_literal(pattern)})", text)
        ours = _ours(f"tool.matches({_literal(pattern)})", text)
        assert ours == native, (pattern, text)


@pytest.mark.parametrize("pattern", PATTERNS + BROKEN)
def test_a_pattern_from_a_value_answers_as_cel_does(pattern: str) -> None:
    for text in TEXTS:
        native = _native_answer("v.matches(p)", text, pattern)
        ours = _ours("tool.matches(tool_raw)", text, pattern)
        assert ours == native, (pattern, text)


def test_a_long_pattern_is_matched_without_being_kept() -> None:
    from policy.packs.cel import functions

    pattern = "^(" + "|".join(f"name{i}" for i in range(60)) + ")$"
    assert len(pattern) > functions._KEPT_PATTERN
    before = functions._re2.cache_info().currsize
    assert _ours("tool.matches(tool_raw)", "name42", pattern) is True
    assert _ours("tool.matches(tool_raw)", "name60", pattern) is False
    assert functions._re2.cache_info().currsize == before


@pytest.mark.parametrize(
    ("source", "rewritten"),
    [
        ('a.matches("^x")', "a._re2_matches_h(H)"),
        ('c.path.matches("^x")', "c.path._re2_matches_h(H)"),  # a field named path
        ("a.matches(b)", "a._re2_matches(b)"),
        ('"serve".matches(a)', '"serve"._re2_matches(a)'),
        ('a . matches ( "^x" )', "a ._re2_matches_h(H)"),
        ('path.matches(p, ["/etc/**"])', 'path.matches(p, ["/etc/**"])'),  # ours
        ('regex.matches(p, "x")', 'regex.matches(p, "x")'),
        ('"a.matches(b)" == s', '"a.matches(b)" == s'),  # text inside a string
        ("matches(a, b)", "matches(a, b)"),  # the global form stays CEL's
        ('a.matches("x") // a.matches("y")', 'a.matches("x") // a.matches("y")'),  # a comment
    ],
)
def test_what_is_rewritten(source: str, rewritten: str) -> None:
    used: dict[int, Any] = {}
    got = constants.with_native_matches(source, used)
    for handle in used:
        got = got.replace(str(handle), "H")
    assert got == rewritten
    assert all(constants.VALUES[h] == v for h, v in used.items())


def test_the_checker_never_sees_the_rewritten_function() -> None:
    # packs cannot call it: it exists in run-time environments only
    from policy.packs.cel import CelCompileError
    from policy.packs.cel.checker import Checker

    result = Checker().check(POINT, 'tool._re2_matches("x")')
    assert result.issues
    with pytest.raises(CelCompileError):
        expr._expr_envs().compile(POINT, 'tool._re2_matches("x")')


@pytest.mark.parametrize(
    "source",
    [
        "tool.matches(args.p)",
        '"zzz".matches(args.p)',
        "regex.matches(tool, args.p)",
        "path.matches(tool, args.p)",
        "glob(tool, args.p)",
    ],
)
def test_a_number_from_the_call_is_never_taken_for_a_handle(source: str) -> None:
    # A literal pattern goes by handle (an int naming a value kept in this process). A
    # number in the call's own data equal to one — handles are digests anyone can
    # compute — must fail as CEL fails on `matches(int)`, never match as that pattern.
    constants.with_native_matches('x.matches("^zzz$")')  # registers a handle
    constants.with_handles('path.matches(p, ["/etc/**"])', {})
    known = [constants._digest("^zzz$"), constants._digest(("/etc/**",))]
    assert all(h in constants.VALUES for h in known)
    program = expr.ExprEngine().program(POINT, [source], [], None)
    for handle in known:
        (answer,) = program.run({"tool": "zzz", "args": {"p": handle}})
        assert type(answer) is not bool, (source, handle, answer)


@pytest.mark.parametrize(
    ("engine", "argument"),
    [("native", "vars.names"), ("native", "literal"), ("cel-expr-python", "literal")],
)
def test_a_packs_own_long_pattern_is_compiled_once_not_at_every_call(
    engine: str, argument: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pack's alternation past `_KEPT_PATTERN` (the credentials pack's commands that
    print a secret: 6,322 characters) is compiled when the program is built or first
    asks it, not at every call — only a pattern the call brings is compiled afresh.
    (cel-expr-python takes a literal's by handle; a pack variable's it is handed as a
    string, compiled at each call as before.)"""
    import re2

    from policy.packs.cel import functions, get_engine

    pattern = "^(" + "|".join(f"name{i}" for i in range(60)) + ")$"
    assert len(pattern) > functions._KEPT_PATTERN
    compiled: list[str] = []
    real = re2.compile

    def counting(text: str, *args: Any) -> Any:
        compiled.append(text)
        return real(text, *args)

    monkeypatch.setattr(re2, "compile", counting)
    functions._re2_constant.cache_clear()
    source = (
        "tool.matches(vars.names)"
        if argument == "vars.names"
        else (f"tool.matches({_literal(pattern)})")
    )
    program = get_engine(engine).program(
        POINT, [source], [{"names": _literal(pattern)}], checked=True
    )
    for n in range(40):
        if n == 4:  # (the exact form's first evaluation, the guard's, then the fast form)
            first = compiled.count(pattern)
        # (each text new, half of them past the answers' memory)
        text = f"name{n}" if n % 2 else f"name{n}" + " " * functions.REMEMBERED_LENGTH
        assert program.run_mask({"tool": text}) == n % 2, text
    assert compiled.count(pattern) == first
