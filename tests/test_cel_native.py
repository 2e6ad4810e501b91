"""The native engine: CEL compiled to Python, answering as cel-expr-python does.

The shared corpus (tests/test_cel_corpus.py) holds it to the expected values; these
tests pin what is its own — the fast form that raises rather than guess, the exact form
that absorbs CEL's errors, the programs and calls it leaves to cel-expr-python.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from policy.packs.cel import CelEvalError, get_engine
from policy.packs.cel.interface import VARIABLES_AT
from policy.packs.cel.native import NativeEngine, NativeProgram
from policy.packs.cel.native.exact import _Compiler
from policy.packs.cel.native.fast import _FastCompiler, _FastUnsupported
from policy.packs.cel.native.syntax import Unsupported, parse
from tests.test_cel_corpus import DATA, RUNTIME, _layers


def _native(expr: str, point: str = "before_tool") -> Any:
    return get_engine("native").program(point, [expr], [], checked=True)


def _run(expr: str, data: dict[str, Any] | None = None) -> Any:
    program = _native(expr)
    (value,) = program.run({k: v for k, v in (data or DATA).items() if k in program.needs})
    return value


DATA_VARIABLES = VARIABLES_AT["before_tool"]
NATIVE = [c for c in RUNTIME if not c.get("vars") and "point" not in c]


@pytest.mark.parametrize("case", NATIVE, ids=[c["expr"][:60] for c in NATIVE])
def test_the_fast_form_answers_as_the_exact_one_or_raises(case: dict[str, Any]) -> None:
    """Python's `and`, `or`, `any` and `==` stand for CEL's only where the two agree:
    on every corpus case the fast form gives the exact form's value, or raises (and
    the exact form is asked)."""
    try:
        tree = parse(case["expr"])
        exact = _Compiler(DATA_VARIABLES).compile(tree)
        fast = _FastCompiler(DATA_VARIABLES, {}).function(tree)
    except Unsupported:
        pytest.skip("left to cel-expr-python")
    except _FastUnsupported:
        pytest.skip("no fast form: the exact form answers")
    frame = dict(DATA)
    try:
        expected = exact(frame)
    except BaseException as exc:
        expected = exc
    try:
        got = fast(frame)
    except BaseException:
        return
    assert not isinstance(expected, BaseException), f"fast form answered {got!r} for an error"
    assert got == expected
    assert type(got) is type(expected) or isinstance(expected, list | tuple)



def test_errors_that_cel_absorbs_are_absorbed() -> None:
    assert _run("args.missing == 'x' || args.flag") is True
    assert _run("args.missing == 'x' && !args.flag") is False
    assert _run("[0, 1].exists(x, 1 / x == 1)") is True
    assert isinstance(_run("args.missing == 'x' || !args.flag"), CelEvalError)


def test_a_comprehension_variable_does_not_outlive_its_macro() -> None:
    program = _native("[1].exists(tool, tool == 1)")
    data = {"tool": "bash"}
    assert program.run(dict(data)) == [True]
    both = get_engine("native").program(
        "before_tool", ["['x'].exists(tool, tool == 'x')", "tool == 'bash'"], [], checked=True
    )
    assert both.run({"tool": "bash"}) == [True, True]
    assert both.run_mask({"tool": "bash"}) == 0b11


def test_what_it_does_not_compile_is_cel_expr_pythons_program() -> None:
    for expr in ("now > timestamp('2026-01-01T00:00:00Z')", "b'x' == b'x'", "1u == 1u"):
        program = get_engine("native").program("before_tool", [expr], [], checked=True)
        assert not isinstance(program, NativeProgram), expr
    assert isinstance(_native("args.n > 1"), NativeProgram)


def test_a_value_it_does_not_answer_for_is_asked_of_cel_expr_python() -> None:
    """An int against a double, a double as a string: answered, as cel-cpp answers,
    by the same program on cel-expr-python (built on that first need)."""
    program = _native("args.n < 7.5")
    assert isinstance(program, NativeProgram)
    assert program._fallback is None
    assert program.run({"args": {"n": 5}}) == [True]
    assert program.run_mask({"args": {"n": 9}}) == 0
    assert program._fallback is not None
    assert _run("string(args.f)", {"args": {"f": 1.5}}) == "1.5"


def test_remembered_path_answers_follow_the_users_home(monkeypatch: pytest.MonkeyPatch) -> None:
    """`~` in a constant list is the user's home: the same path asked for another user
    is answered again, not recalled."""
    program = _native("path.matches(args.p, ['~/.ssh/**'])")
    data = {"args": {"p": "/home/a/.ssh/id_rsa"}}
    monkeypatch.setenv("HOME", "/home/a")
    assert program.run_mask(data) == 1
    monkeypatch.setenv("HOME", "/home/b")
    assert program.run_mask(data) == 0


def _tool_data(**facts: Any) -> dict[str, Any]:
    access = {"reads": [], "writes": [], "sends": [], "deletes": [], **facts.pop("access", {})}
    return {"commands": [], "workspace": "/w", "protected": (), **facts, "access": access}


def test_a_body_answered_for_an_element_again_follows_what_else_it_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An `exists` body is answered once for a path it saw before (`_ElementMemo`),
    under the path, the call's variables it reads, and `$HOME`: change any of them and
    it is asked again."""
    program = _native(
        "access.reads.exists(p, path.matches(p, ['~/.ssh/**']) || path.within(p, workspace)"
        " || p in protected)"
    )
    monkeypatch.setenv("HOME", "/home/a")
    key = {"access": {"reads": ["/home/a/.ssh/id_rsa"]}}
    assert program.run_mask(_tool_data(**key)) == 1
    assert program.run_mask(_tool_data(**key)) == 1  # (now from memory)
    monkeypatch.setenv("HOME", "/home/b")
    assert program.run_mask(_tool_data(**key)) == 0
    inside = {"access": {"reads": ["/srv/x/a"]}}
    assert program.run_mask(_tool_data(**inside, workspace="/srv/x")) == 1
    assert program.run_mask(_tool_data(**inside, workspace="/srv/y")) == 0
    assert program.run_mask(_tool_data(**inside, protected=("/srv/x/a",))) == 1
    assert program.run_mask(_tool_data(**inside, protected=["/srv/x/a"])) == 1
    assert program.run_mask(_tool_data(**inside, protected=("/other",))) == 0


def test_a_body_reading_an_enclosing_element_or_the_disk_is_asked_each_time(
    tmp_path: Any,
) -> None:
    """What a body reads beyond its element and the call's variables — an enclosing
    macro's element, a path's target on disk — is no key: such a body is not kept."""
    program = _native("commands.exists(c, c.reads.exists(p, p == c.cwd))")

    def command(cwd: str) -> dict[str, Any]:
        return {"name": "ls", "cwd": cwd, "reads": ["/srv/a"]}

    assert program.run_mask(_tool_data(commands=[command("/srv/a")])) == 1
    assert program.run_mask(_tool_data(commands=[command("/srv/b")])) == 0
    # a pack variable worked out from the call is the call's, as an enclosing element is
    layers = [{"home_files": "[home + '/.netrc']"}]
    by_call = NativeEngine().program(
        "before_tool", ["access.reads.exists(p, p in vars.home_files)"], layers, checked=True
    )
    netrc = {"access": {"reads": ["/home/a/.netrc"]}}
    assert by_call.run_mask(_tool_data(**netrc, home="/home/a")) == 1
    assert by_call.run_mask(_tool_data(**netrc, home="/home/b")) == 0
    link = tmp_path / "link"
    link.symlink_to("/etc")
    resolved = _native("access.reads.exists(p, path.resolve(p) == '/etc')")
    assert resolved.run_mask(_tool_data(access={"reads": [str(link)]})) == 1
    link.unlink()
    link.symlink_to("/srv")
    assert resolved.run_mask(_tool_data(access={"reads": [str(link)]})) == 0


def test_the_answers_kept_for_a_body_are_bounded() -> None:
    from policy.packs.cel.native import fast

    program = _native("access.reads.exists(p, p.startsWith('/etc/'))")
    for n in range(fast._ELEMENT_ANSWERS + 10):
        assert program.run_mask(_tool_data(access={"reads": [f"/etc/{n}"]})) == 1
    (condition,) = (f for f in program._fast if f is not None)
    memos = [v for v in condition.__globals__.values() if isinstance(v, fast._ElementMemo)]
    assert memos and all(len(m.answers) <= fast._ELEMENT_ANSWERS for m in memos)
    for memo in memos:
        memo.answers.clear()
    long = "/etc/" + "x" * fast._KEPT_ELEMENT
    assert program.run_mask(_tool_data(access={"reads": [long]})) == 1  # (answered ...
    assert all(not m.answers for m in memos)  # ... not kept)


def test_a_condition_evaluated_once_compiles_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-event hook evaluates each condition once: it gets the exact form, a tree of
    closures built without writing or compiling Python. The fast form, the pruning and
    the fast forms of the variables that read the call are compiled for a second
    evaluation, when they will pay for themselves (decision 0027); the answers are the
    same throughout."""
    from policy.packs.cel.native import fast, guard

    compiled: list[str] = []

    def watched(source: str, filename: str, mode: str, *args: Any, **kwargs: Any) -> Any:
        compiled.append(filename)
        return compile(source, filename, mode, *args, **kwargs)

    monkeypatch.setattr(fast, "compile", watched, raising=False)
    monkeypatch.setattr(guard, "compile", watched, raising=False)
    program = get_engine("native").program(
        "before_tool",
        ["access.writes.exists(p, p.startsWith(vars.root))", "size(commands) > 0"],
        [{"root": "workspace + '/etc'"}],
        checked=True,
    )
    assert isinstance(program, NativeProgram)
    written = _tool_data(access={"writes": ["/w/etc/passwd"]})
    assert program.run_mask(written) == 0b01
    assert compiled == []
    assert program._tier == [2, 2] and program._fast == [None, None]  # (evaluated once)
    assert program.run_mask(written) == 0b01
    assert sorted(set(compiled)) == ["<cel>", "<pruning>"]
    assert all(form is not None for form in program._fast)
    assert all(quick is not None for _, quick, _ in program._call_vars)
    assert program.run_mask(_tool_data(access={"writes": ["/w/x"]})) == 0
    assert program.run(written) == [True, False]


def test_a_warmed_program_has_every_fast_form_before_its_first_call() -> None:
    program = _native_many(["access.writes.exists(p, p == '/etc')", "size(commands) > 0"])
    assert isinstance(program, NativeProgram)
    assert program.build_all() == 2
    assert program._tier == [3, 3] and program._pruned
    assert all(form is not None for form in program._fast)
    assert program.build_all() == 0


def test_an_element_named_vars_hides_the_pack_variables_from_a_membership() -> None:
    """`L.exists(vars, vars in vars.blocked)`: `vars` is the element there, a string,
    and `vars.blocked` an error on both engines — not the pack's list."""
    exprs = ["args.paths.exists(vars, vars in vars.blocked)"]
    layers = [{"blocked": "['/etc/shadow']"}]
    native = NativeEngine().program("before_tool", exprs, layers, checked=True)
    cel_expr = get_engine("cel-expr-python").program("before_tool", exprs, layers, checked=True)
    for paths in (["/tmp/notes.txt"], ["/etc/shadow"]):
        data = {"args": {"paths": paths}}
        (got,), (expected,) = native.run(data), cel_expr.run(data)
        assert isinstance(expected, CelEvalError)
        assert isinstance(got, CelEvalError), paths


def test_a_long_value_is_no_key_of_a_kept_answer() -> None:
    """A prompt may be megabytes: an element's answer that depends on one is asked again,
    never kept under it."""
    from policy.packs.cel.native import fast

    program = NativeEngine().program(
        "user_prompt",
        ["vars.words.exists(w, prompt.contains(w))"],
        [{"words": "['rm', 'curl']"}],
        checked=True,
    )
    for n in range(20):
        assert program.run_mask({"prompt": f"{n} " + "x" * fast._KEYED_LENGTH}) == 0
    assert program.run_mask({"prompt": "please curl it"}) == 1
    (condition,) = (f for f in program._fast if f is not None)
    memos = [v for v in condition.__globals__.values() if isinstance(v, fast._ElementMemo)]
    assert memos and sum(len(m.answers) for m in memos) == 2  # (the short prompt's two)


def test_a_pack_variable_that_fails_is_left_to_cel_expr_python() -> None:
    """cel-expr-python fails more than the readers of a variable that fails (`has()` of
    it errs, and so may its siblings, bound in one map): such a call is its to answer."""
    exprs = ["vars.bad == 1", "vars.ok", "has(vars.bad)"]
    layers = [{"bad": "args.missing", "ok": "true"}]
    native = NativeEngine().program("before_tool", exprs, layers, checked=True)
    cel_expr = get_engine("cel-expr-python").program("before_tool", exprs, layers, checked=True)
    assert isinstance(native, NativeProgram)
    got, expected = native.run({"args": {}}), cel_expr.run({"args": {}})
    assert [isinstance(v, CelEvalError) for v in got] == [
        isinstance(v, CelEvalError) for v in expected
    ]
    assert native.run_mask({"args": {}}) == cel_expr.run_mask({"args": {}})
    assert native.run({"args": {"missing": 1}}) == [True, True, True]


@pytest.mark.parametrize("source", ["now.getHours() >= 0", "timestamp('2020-01-01T00:00:00Z') < now"])
def test_a_variable_reading_the_call_beyond_both_forms_leaves_the_program_to_cel_expr_python(
    source: str,
) -> None:
    """Red team: a pack variable that reads the call and that neither form compiles
    made a program's second frame fail (its fast form, built then, raised), and the
    pack's hook with it: every call after the first refused. It is found when the
    program is made, as before the forms were built in tiers: the program is
    cel-expr-python's, at every evaluation and after a warm."""
    exprs = ["vars.late && tool == 'bash'", "tool == 'write'"]
    layers = [{"late": source}]
    from datetime import UTC, datetime

    data = {"tool": "bash", "now": datetime(2020, 1, 2, 3, 4, 5, tzinfo=UTC)}
    reference = get_engine("cel-expr-python").program("before_tool", exprs, layers, [layers, []])
    expected_mask, expected = reference.run_mask(data), reference.run(data)
    for warm in (False, True):
        program = NativeEngine().program("before_tool", exprs, layers, [layers, []], checked=True)
        if warm:
            program.build_all()
        for _ in range(3):
            assert program.run_mask(data) == expected_mask
            assert program.run(data) == expected


def test_unchecked_sources_are_refused_as_cel_expr_python_refuses_them() -> None:
    from policy.packs.cel import CelCompileError

    with pytest.raises(CelCompileError):
        NativeEngine().program("before_tool", ["1 + 'a'"], [])


@pytest.mark.parametrize(
    "source",
    ["b'x'", "1u", "Msg{a: 1}", "a.?b", "x[?0]", "'\\q'", "'\\ud800'", "99999999999999999999"],
)
def test_the_parser_leaves_what_it_does_not_read_with_certainty(source: str) -> None:
    with pytest.raises(Unsupported):
        parse(source)


def test_the_parser_reads_precedence_as_cel_does() -> None:
    assert parse("a || b && c") == ("or", ("id", "a"), ("and", ("id", "b"), ("id", "c")))
    assert parse("!a == b") == ("op", "==", ("not", ("id", "a")), ("id", "b"))
    assert parse("a ? b : c ? d : e")[3][0] == "cond"
    assert parse("-1 - -2") == ("op", "-", ("lit", -1), ("lit", -2))
    assert parse("x.y[0].z(1)") == (
        "call", "z", ("index", ("sel", ("id", "x"), "y"), ("lit", 0)), (("lit", 1),)
    )
    assert parse("l.exists(e, e in m)") == (
        "macro", "exists", ("id", "l"), "e", (("op", "in", ("id", "e"), ("id", "m")),)
    )


def test_layers_of_the_corpus_compile(tmp_path: Any) -> None:
    case = next(c for c in RUNTIME if c.get("vars") and c["expr"] == "vars.first")
    layers = _layers(case["expr"], case["vars"])
    program = get_engine("native").program("before_tool", [case["expr"]], layers, checked=True)
    assert isinstance(program, NativeProgram)
    assert program.run({k: v for k, v in DATA.items() if k in program.needs}) == ["rm"]


EXPRS = ["commands.exists(c, c.name in vars.killers)", "path.matches(args.p, vars.places)"]
LAYERS = [{"killers": "['kill', 'pkill']", "places": "['~/.ssh/**']", "cmd": "string(args.p)"}]


def test_a_programs_shape_is_kept_and_read_back_without_parsing(
    monkeypatch: pytest.MonkeyPatch, program_store: Any
) -> None:
    store = program_store
    data = {"commands": [{"name": "pkill"}], "args": {"p": "/home/dev/.ssh/id"}}
    monkeypatch.setenv("HOME", "/home/dev")
    built = NativeEngine().program("before_tool", EXPRS, LAYERS, checked=True, store=store)
    assert len(store.entries) == 1
    import policy.packs.cel.native.program as program_module

    def no_parsing(source: str) -> Any:
        raise AssertionError("parsed again")

    monkeypatch.setattr(program_module, "parse", no_parsing)
    again = NativeEngine().program("before_tool", EXPRS, LAYERS, checked=True, store=store)
    assert isinstance(again, NativeProgram)
    assert again.needs == built.needs == {"commands", "args"}
    assert again.run(data) == built.run(data) == [True, True]
    assert again.run_mask({**data, "commands": []}) == 0b10


def _kept_shape(
    trees: str, needs: str = '["tool"]', guard_needs: str = '[["in", ["tool"], ["bash"]]]'
) -> bytes:
    """A kept shape whose trees are `trees` (a JSON list of them), each kept as its own
    JSON text as the store keeps it."""
    texts = json.dumps([json.dumps(tree) for tree in json.loads(trees)])
    return (
        f'{{"format": 3, "trees": {texts}, "call_vars": [], "constants": [], '
        f'"needs": {needs}, "guard_needs": {guard_needs}}}'
    ).encode()


@pytest.mark.parametrize(
    "forged",
    [
        _kept_shape('[["id", "x; import os"]]'),
        _kept_shape('[["exec", "x"]]'),
        _kept_shape('[["lit", true]]', needs='["os"]'),
        _kept_shape('[["op", "import", ["lit", 1], ["lit", 2]]]'),
        b"not json",
        _kept_shape("[" + '["not", ' * 300 + '["lit", true]' + "]" * 300 + "]"),
        _kept_shape('[["lit", true]]', guard_needs='[["exec", ["tool"]]]'),
        _kept_shape('[["lit", true]]', guard_needs='[["in", ["tool"], [1]]]'),
        _kept_shape('[["lit", true]]', guard_needs="[null, null]"),
        _kept_shape('[["exec", "x"]]', guard_needs="[null]"),  # (built with its program)
        _kept_shape('[["lit", true]]').replace(b'"format": 3', b'"format": 2'),
        _kept_shape('[["lit", true]]').replace(b'"trees": ["', b'"trees": [["lit", true], "'),
        _kept_shape("[]").replace(b'"trees": []', b'"trees": ["[\\"lit\\", tru"]'),
    ],
)
def test_a_kept_shape_that_does_not_validate_is_never_run(
    forged: bytes, program_store: Any
) -> None:
    """A kept shape is data read back and checked: what `parse` and `need_of` would
    not have made (a name that is no identifier, a kind or operator they have not, a
    need that is no need, a layout of another format) is never run. Needs and names
    are checked as the shape is read (a miss: the shape is built again from source);
    a tree when its condition is first built (then its calls are cel-expr-python's,
    which compiles the source): either way the answer is the source's."""
    store = program_store
    NativeEngine().program("before_tool", ["tool == 'bash'"], [], checked=True, store=store)
    (key,) = store.entries
    store.entries[key] = forged
    program = NativeEngine().program("before_tool", ["tool == 'bash'"], [], checked=True, store=store)
    assert program.run({"tool": "bash"}) == [True]
    assert program.run_mask({"tool": "sh"}) == 0
    assert "tool" in program.needs and "os" not in program.needs


def test_a_kept_shape_is_read_back_one_tree_at_a_time(
    monkeypatch: pytest.MonkeyPatch, program_store: Any
) -> None:
    """A call builds a fraction of its programs' conditions: only their trees are read
    back and checked, and what the guards need is kept, not derived again."""
    import policy.packs.cel.native.program as program_module

    store = program_store
    exprs = ["tool == 'bash'", "tool == 'write' && args.path.startsWith('/etc')"]
    NativeEngine().program("before_tool", exprs, [], checked=True, store=store)
    read: list[Any] = []
    node = program_module._node
    monkeypatch.setattr(
        program_module, "_node", lambda value, depth=1: (depth == 1 and read.append(value)) or node(value, depth)
    )
    monkeypatch.setattr(program_module, "need_of", lambda *args: pytest.fail("derived again"))
    again = NativeEngine().program("before_tool", exprs, [], checked=True, store=store)
    assert read == []
    assert again.run_mask({"tool": "bash", "args": {"path": "/etc/x"}}) == 0b01
    assert len(read) == 1  # (the second condition's guard rules it out: `tool` is not "write")


def test_a_shape_whose_needs_nest_deeper_than_a_kept_one_may_is_not_kept(
    program_store: Any,
) -> None:
    """`[L1, ..., Ln].exists(...)` needs one of n lists: a need nested n deep. Past what
    a kept need may hold, the shape is not kept (it would be written at every start
    and never read back); the program is built from source, and answers alike."""
    from policy.packs.cel.native.syntax import TREE_DEPTH

    for lists in (20, TREE_DEPTH + 5):
        source = "[" + ", ".join(f"args.a{i}" for i in range(lists)) + "].exists(l, l == 'x')"
        data = {"args": {f"a{i}": "y" for i in range(lists)}}
        program = NativeEngine().program("before_tool", [source], [], checked=True, store=program_store)
        assert program.run_mask(data) == 0
        assert program.run_mask({"args": {**data["args"], "a3": "x"}}) == 1
    assert len(program_store.entries) == 1  # (the shallow one's)


def test_vars_as_a_whole_map_is_left_to_cel_expr_python() -> None:
    """Packs read a variable at a time (a whole-map use is refused at load); ad hoc,
    cel-expr-python binds only what each expression reads, so it answers such a use."""
    for expr in ("size(vars) == 1", "'a' in vars"):
        program = NativeEngine().program("before_tool", [expr], [{"a": "'k'"}], checked=True)
        assert not isinstance(program, NativeProgram), expr
    program = NativeEngine().program(
        "before_tool", ["vars.a == 'k' && has(vars.a) && vars['a'] == 'k'"], [{"a": "'k'"}],
        checked=True,
    )
    assert isinstance(program, NativeProgram)
    assert program.run({}) == [True]


def test_strings_are_read_whole() -> None:
    """A NUL in the call's text is part of it (cel-expr-python 0.1.3 cuts strings it is
    handed at the first NUL, so there `'ab\\0cd' == 'ab'`: decision 0021 says why the
    native engine does not follow it)."""
    data = {"args": {"p": "ab\x00cd"}}
    program = NativeEngine().program(
        "before_tool", ["args.p == 'ab'", "size(args.p) == 5", "args.p.endsWith('cd')"], [],
        checked=True,
    )
    assert program.run(data) == [False, True, True]


def test_the_facts_hand_the_engines_plain_strings() -> None:
    """The shell analysis marks words with `str` subclasses (a quoted brace, an unknown
    value); the facts give CEL plain strings, which cel-expr-python takes and the
    native engine compares alike."""
    from policy.analysis import effects

    line = effects.analyze("sudo 'rm { /' -rf /tmp/x", "/srv", "/home/dev")
    names = [c["name"] for c in line.to_cel()]
    assert "rm { /" in names
    assert all(type(name) is str for name in names)
    exprs = ["commands.exists(c, c.name == 'rm { /')", "size(commands) > 0"]
    data = {"commands": line.to_cel()}
    expected = get_engine("cel-expr-python").program("before_tool", exprs, [], checked=True)
    assert _native_many(exprs).run(data) == expected.run(data) == [True, True]


def _native_many(exprs: list[str]) -> Any:
    return get_engine("native").program("before_tool", exprs, [], checked=True)


def test_a_remembered_answer_is_keyed_by_what_its_function_reads() -> None:
    """The native engine remembers the answers of the list-taking path functions; one
    that read the user's home without being keyed on it would answer one user's
    question with another's (policy.packs.cel.functions.READS_HOME)."""
    import inspect

    from policy.packs.cel.functions import READS_ENV_HOME, READS_HOME
    from policy.packs.cel.native.fast import _REMEMBERING
    from policy.packs.cel.native.values import _CUSTOM

    assert set(_REMEMBERING) == READS_HOME | READS_ENV_HOME
    for name in _REMEMBERING:
        impl = _CUSTOM[name][2]
        assert ("home_dir" in inspect.getsource(impl)) == (name in READS_HOME), name


@pytest.mark.slow  # ≈ 5 s: every corpus call through the shipped packs
def test_the_shipped_packs_decide_the_corpus_without_cel_expr_python(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each call the native engine leaves to cel-expr-python builds cel-cpp's
    environment in the process that first meets one (≈ 15 MiB and tens of ms, kept for
    its life): the shipped packs are written so that no corpus call needs it (a
    `substring` ending at the string's end, which cel-cpp refuses, was one)."""
    from tests.test_recall import _corpus_calls, corpus_engine

    left: list[str] = []

    def refused(self: NativeProgram) -> Any:
        left.append(current)
        raise AssertionError("left to cel-expr-python")

    monkeypatch.setattr(NativeProgram, "_on_cel_expr", refused)
    engine = corpus_engine(tmp_path, monkeypatch)
    try:
        for call in _corpus_calls(1):
            current = f"{call.tool} {dict(call.args)}"
            engine.before_tool(call)
    finally:
        engine.close()
    assert left == []


SHELL_VARIABLE_PACKS = {
    "a variable that runs the analysis": (
        "variables:\n  sub: shell.has_substitution(string(args.script))\n"
        "rules:\n  - id: r\n    tools: [bash]\n"
        "    when: commands.exists(c, c.name == 'curl')"
        " && access.writes.exists(p, p.startsWith('/etc')) && vars.sub\n"
        "    action: deny\n"
    ),
    "a list variable that runs it": (
        "variables:\n  cmds: shell.commands(string(args.script))\n"
        "rules:\n  - id: r\n    tools: [bash]\n"
        "    when: commands.exists(c, c.name == 'curl') && vars.cmds.exists(c, c.name == 'rm')\n"
        "    action: deny\n"
    ),
}


@pytest.mark.parametrize("rules", SHELL_VARIABLE_PACKS.values(), ids=list(SHELL_VARIABLE_PACKS))
def test_a_shell_variable_that_gives_up_refuses_only_the_calls_that_read_it(
    rules: str, tmp_path: Any
) -> None:
    """Red team: this engine works out a program's variables before its conditions,
    cel-expr-python only those a condition reads; a `shell.*` variable that gave up
    refused every call here (`ls` too) and only the calls reaching it there. The give-up
    this engine met before handing the call over is forgotten: both engines agree."""
    from policy import Engine, Settings, ToolCall

    pack = tmp_path / "pack.yaml"
    pack.write_text(f"apiVersion: hookpolicy/v1\nkind: RulePack\nname: scripts\n{rules}")
    script = "$(" * 20 + "x" + ")" * 20  # (nested deeper than the analysis goes)
    calls = [
        ToolCall(tool="bash", args={"command": line, "script": script})
        for line in ("ls", "wget x", "curl http://e.com", "curl x > /etc/y")
    ]
    answers = {}
    for name in ("native", "cel-expr-python"):
        engine = Engine(
            Settings(
                packs=[pack], audit_path=tmp_path / f"{name}.log", data_dir=tmp_path,
                cel_engine=name,
            )
        )
        try:
            answers[name] = [engine.before_tool(call).action.value for call in calls]
        finally:
            engine.close()
    assert answers["native"] == answers["cel-expr-python"]
    assert answers["native"][:2] == ["continue", "continue"]  # (they never read it)
    assert answers["native"][3] == "deny_tool"  # (read, and it gave up)


@pytest.mark.slow  # ≈ 15 s: every corpus call through the shipped packs, twice
def test_a_one_event_hook_decides_the_corpus_as_a_warmed_engine_does(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A one-event hook evaluates each condition once, through its exact form, with no
    pruning built; a process that decides many calls is warmed: fast forms and
    pruning. Every corpus call through the shipped packs gets the same decision —
    action, rules and reason — from an engine that never builds a fast form or a
    pruning as from a warmed one."""
    from tests.test_recall import _corpus_calls, corpus_engine

    calls = _corpus_calls(1)

    def decided(engine: Any) -> list[tuple[Any, ...]]:
        try:
            out = []
            for call in calls:
                decision = engine.before_tool(call)
                out.append((decision.action, decision.rule_ids, decision.reason))
            return out
        finally:
            engine.close()

    with monkeypatch.context() as exact_only:
        built: list[int] = []
        exact_only.setattr(NativeProgram, "_fast_form", staticmethod(lambda fast, tree: None))
        exact_only.setattr(NativeProgram, "_prune", lambda self: built.append(1))
        once = decided(corpus_engine(tmp_path / "once", monkeypatch))
    assert built  # (the exact engine asked for a pruning and got none)
    warmed = corpus_engine(tmp_path / "warm", monkeypatch)
    warmed.warm()
    differ = [
        (call.args, a, b)
        for call, a, b in zip(calls, once, decided(warmed), strict=True)
        if a != b
    ]
    assert not differ, differ[:5]


def test_a_pack_variable_made_of_constants_is_worked_out_once() -> None:
    """`vars.b` made of `vars.a` and literals is a constant, as `vars.a` is: worked out
    when the program is made, not at every call (and so read by the guards, as
    credentials' `printing` is: `'^(?:' + vars.printing_commands.join('|') + ')'`);
    one that reads the call, or a variable that does, is not."""
    layers = [
        {"a": "['x', 'y']", "d": "workspace"},
        {"b": "'^(' + vars.a.join('|') + ')$'", "e": "vars.d + '/x'"},
        {"g": "vars.b + '|z'"},
    ]
    exprs = ["commands.exists(c, c.name.matches(vars.g))", "vars.e.endsWith('/x')"]
    program = get_engine("native").program("before_tool", exprs, layers, checked=True)
    assert isinstance(program, NativeProgram)
    assert program._constants == {"a": ("x", "y"), "b": "^(x|y)$", "g": "^(x|y)$|z"}
    assert sorted(name for name, _, _ in program._call_vars) == ["d", "e"]
    cel_expr = get_engine("cel-expr-python").program("before_tool", exprs, layers, checked=True)
    for name in ("x", "z", "xz", "w"):
        data = _tool_data(commands=[{"name": name}])
        assert program.run(data) == cel_expr.run(data)


@pytest.mark.parametrize("expr", ["tool.matches(vars.p)", "tool in vars.p"])
def test_a_later_layers_definition_shadows_an_earlier_constant(expr: str) -> None:
    """Layers handed through the engine's API may define a name twice; the later one
    reads the call here, and both engines read it — never the earlier constant."""
    matches = "matches" in expr
    layers = [
        {"p": "'^zzz$'" if matches else "['zzz']"},
        {"p": "tool_raw" if matches else "[tool_raw]"},
    ]
    native = NativeEngine().program("before_tool", [expr], layers, checked=True)
    cel_expr = get_engine("cel-expr-python").program("before_tool", [expr], layers, checked=True)
    data = {"tool": "abc", "tool_raw": "abc"}
    for _ in range(4):  # (the exact form, then the fast form)
        assert native.run(data) == cel_expr.run(data) == [True]
