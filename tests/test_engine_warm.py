"""A process that decides many calls warms its engine at start (`Engine.warm`): the
programs, conditions and patterns its first calls would build are built then, and
it decides exactly as an engine that was not warmed. A one-event hook never warms.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from policy import Engine, Settings, ToolCall
from policy.aliases import DEFAULT_ALIASES
from policy.analysis._lazy_re import LazyPattern, compile_all
from policy.hosts._hook_process import EngineSlot
from policy.packs.cel import get_engine
from policy.packs.cel.native import NativeProgram
from policy.packs.runtime import CompiledPack
from tests.test_recall import _corpus_calls, corpus_engine

KNOWN_TOOLS = DEFAULT_ALIASES.canonical_names


def known(calls: list[ToolCall]) -> list[ToolCall]:
    """The calls of tools the packs name or the alias table knows (what a warm builds
    for: any other tool builds its program on its first call)."""
    return [c for c in calls if DEFAULT_ALIASES.canonical(c.tool) in KNOWN_TOOLS]


def counting_builds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every program made and every condition built from now on, named."""
    seen: list[str] = []
    build, program = NativeProgram._build, CompiledPack.program

    def counted_build(self: NativeProgram, index: int) -> None:
        seen.append(f"condition {index}")
        build(self, index)

    def counted_program(self: CompiledPack, point: str, *args: Any) -> Any:
        seen.append(f"program {self.name}/{point}")
        return program(self, point, *args)

    monkeypatch.setattr(NativeProgram, "_build", counted_build)
    monkeypatch.setattr(CompiledPack, "program", counted_program)
    return seen


def builds_deciding(engine: Engine, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What deciding every 11th corpus call of a known tool made and built."""
    seen = counting_builds(monkeypatch)
    for call in known(_corpus_calls(11)):
        engine.before_tool(call)
    return seen


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Engine]:
    """An engine on the shipped packs in the corpus's deployment, not warmed."""
    engine = corpus_engine(tmp_path, monkeypatch)
    yield engine
    engine.close()


def test_a_warmed_engine_builds_nothing_for_the_calls_that_come(
    corpus: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = corpus.warm()
    assert built["programs"] >= 8 and built["conditions"] > 50, built
    assert built["packs_failed"] == 0
    assert compile_all() == 0  # (every pattern that compiles is; another test's
    # broken one, kept alive by its traceback's cycle, is not counted)
    assert builds_deciding(corpus, monkeypatch) == []


def test_an_engine_not_warmed_builds_on_its_calls(
    corpus: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(the test above can fail: without `warm` the same calls build)"""
    seen = builds_deciding(corpus, monkeypatch)
    assert any(s.startswith("program") for s in seen)
    assert any(s.startswith("condition") for s in seen)


def test_a_warmed_engine_decides_as_one_that_was_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cold = corpus_engine(tmp_path / "cold", monkeypatch)
    warm = corpus_engine(tmp_path / "warm", monkeypatch)
    try:
        warm.warm()
        differ = []
        calls = _corpus_calls(7)
        for call in calls:
            a, b = cold.before_tool(call), warm.before_tool(call)
            if (a.action, a.rule_ids, a.reason, a.needs_approval) != (
                b.action,
                b.rule_ids,
                b.reason,
                b.needs_approval,
            ):
                differ.append((call.args, a.action, b.action, a.rule_ids, b.rule_ids))
        assert differ == []
        assert len(calls) > 700
    finally:
        cold.close()
        warm.close()


def test_warming_twice_builds_nothing_the_second_time(corpus: Engine) -> None:
    first = corpus.warm()
    again = corpus.warm()
    assert again["programs"] == first["programs"]  # (the same programs, visited)
    assert (again["conditions"], again["patterns"]) == (0, 0)


PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: reloaded
rules:
  - id: no-{word}
    tools: [bash]
    when: commands.exists(c, c.name == "{word}")
    action: deny
  - id: no-etc-writes
    tools: [write_file]
    when: access.writes.exists(p, p.startsWith("/etc"))
    action: deny
"""


def _all_built(engine: Engine) -> list[bool]:
    states = []
    for hook in engine.hooks:
        if isinstance(hook, CompiledPack):
            for index in hook._index.values():
                for candidates in index.memo.values():
                    program = candidates._program
                    if isinstance(program, NativeProgram):
                        states += program._built
    return states


def test_a_warmed_engine_warms_the_packs_a_reload_puts_in_place(tmp_path: Path) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text(PACK.format(word="mkfs"))
    engine = Engine(Settings(packs=[pack], audit_path=tmp_path / "log", data_dir=tmp_path))
    try:
        engine.warm()
        assert _all_built(engine) and all(_all_built(engine))
        pack.write_text(PACK.format(word="fdisk"))
        engine.reload_packs()
        states = _all_built(engine)
        assert states and all(states)
        decision = engine.before_tool(ToolCall(tool="bash", args={"command": "fdisk /dev/sda"}))
        assert decision.rule_ids == ("reloaded/no-fdisk",)
    finally:
        engine.close()


def test_a_reload_of_an_engine_never_warmed_builds_on_the_calls(tmp_path: Path) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text(PACK.format(word="mkfs"))
    engine = Engine(Settings(packs=[pack], audit_path=tmp_path / "log", data_dir=tmp_path))
    try:
        pack.write_text(PACK.format(word="fdisk"))
        engine.reload_packs()
        assert _all_built(engine) == []  # (no program made before a call needs it)
    finally:
        engine.close()


def test_a_condition_that_fails_to_build_is_left_for_the_call_that_needs_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its call goes to cel-expr-python then, as it does when the build fails there."""
    sources = [
        "access.writes.exists(p, p.startsWith('/etc'))",
        "access.reads.exists(p, p.startsWith('/etc'))",
    ]
    program = get_engine("native").program("before_tool", sources, [], checked=True)
    reference = get_engine("cel-expr-python").program("before_tool", sources, [], checked=True)
    assert isinstance(program, NativeProgram)
    build = NativeProgram._build

    def failing(self: NativeProgram, index: int) -> None:
        if index == 0:
            raise RecursionError("too deep")
        build(self, index)

    monkeypatch.setattr(NativeProgram, "_build", failing)
    assert program.build_all() == 1
    assert program._built == [False, True]
    data = {"access": {"writes": ["/etc/passwd"], "reads": []}}
    # (its first evaluation is its exact form's, which builds; its second builds the
    # fast form, which fails: that call, and every later one, is cel-expr-python's)
    assert program.run_mask(data) == reference.run_mask(data) == 0b01
    assert not program._unsupported
    assert program.run_mask(data) == reference.run_mask(data) == 0b01
    assert program._unsupported  # (its call found it beyond the native forms)


def test_warming_imports_every_module_of_the_analysis() -> None:
    """Including those the analysis imports at first use (a one-event hook's line read
    back needs none of them: policy.analysis.kept_lines) — a review found the warm left
    them, and ≈ 95 of their patterns, to a service's first calls."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from policy.analysis.warm import warm\n"
        "warm()\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('policy.analysis'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    loaded = set(done.stdout.split())
    root = Path(__file__).resolve().parent.parent / "policy" / "analysis"
    every = {
        "policy." + ".".join(path.relative_to(root.parent).with_suffix("").parts)
        for path in root.rglob("*.py")
        if path.name != "__init__.py"
    }
    assert every <= loaded, sorted(every - loaded)


def test_compile_all_compiles_every_pattern_not_used_yet() -> None:
    unused = LazyPattern(r"warm-(\d+)-test")
    assert "_compiled" not in unused.__dict__
    assert compile_all() >= 1
    assert "_compiled" in unused.__dict__
    assert unused.search("a warm-12-test")[1] == "12"  # type: ignore[index]


def test_compile_all_leaves_a_broken_pattern_to_fail_where_it_is_used() -> None:
    broken = LazyPattern("(unclosed")
    compile_all()
    assert "_compiled" not in broken.__dict__
    with pytest.raises(re.error):
        broken.search("x")


def test_a_long_running_hook_warms_its_engine_beside_its_first_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = tmp_path / "pack.yaml"
    pack.write_text(PACK.format(word="mkfs"))
    config = tmp_path / "settings.yaml"
    config.write_text(f"audit_path: {tmp_path / 'log'}\ndata_dir: {tmp_path}\n")
    slot = EngineSlot(str(config), [str(pack)])
    slot.load()
    try:
        assert slot.ready.is_set() and not slot.broken
        decision = slot.get().before_tool(ToolCall(tool="bash", args={"command": "mkfs /dev/sda"}))
        assert decision.rule_ids == ("reloaded/no-mkfs",)
        assert slot.warming is not None
        slot.warming.join()
        states = _all_built(slot.engine)
        assert states and all(states)
    finally:
        slot.engine.close()


def test_warming_a_large_set_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A set naming thousands of tools, or giving thousands of rules a message, is not
    warmed whole (each tool's program and each value's is its own: minutes of start):
    at most `_WARMED_TOOLS` tools a point and `_WARMED_VALUES` values; the rest are
    built by the calls that need them."""
    from policy.packs import runtime

    monkeypatch.setattr(runtime, "_WARMED_TOOLS", 3)
    monkeypatch.setattr(runtime, "_WARMED_VALUES", 2)
    rules = "".join(
        f"  - id: r{i}\n    tools: [tool_{i}]\n    when: has(args.x)\n    action: deny\n"
        f"    message_expr: '\"no \" + string(args.x)'\n"
        for i in range(6)
    )
    pack = tmp_path / "pack.yaml"
    pack.write_text(f"apiVersion: hookpolicy/v1\nkind: RulePack\nname: many\nrules:\n{rules}")
    engine = Engine(Settings(packs=[pack], audit_path=tmp_path / "log", data_dir=tmp_path))
    try:
        built = engine.warm()
        assert built["programs"] == 3 + 2  # (before_tool: tool_0..tool_2; two messages)
        decision = engine.before_tool(ToolCall(tool="tool_5", args={"x": "y"}))
        assert (decision.rule_ids, decision.reason) == (("many/r5",), "no y")
    finally:
        engine.close()


def test_warming_stops_at_its_budget_of_cel_for_all_the_packs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red teams: each tool's program compiles the rules for every tool, and the pack
    variables they read, again — 1,000 such rules warmed for ten tools were 10,000
    builds, and 600 variables read by one rule on 32 tools 3.2 million characters of
    CEL (2.4 s, ≈ 300 MB), a budget of conditions a pack charging it nothing. One
    engine's warm compiles at most `WARM_BUDGET` characters of CEL, its packs
    together; a program that would pass it is its first call's to build."""
    from policy.packs import runtime

    condition = "has(args.x) && string(args.x).contains(vars.needle)"
    cost = len(condition) * 4 + len("'0123456789'")  # (a program: 4 conditions, 1 variable)
    monkeypatch.setattr(runtime, "WARM_BUDGET", 3 * cost)
    rules = "".join(
        f"  - id: r{i}\n    when: {condition}\n    action: deny\n    message: r{i}\n"
        for i in range(4)
    )
    packs = []
    for name in ("one", "two"):
        pack = tmp_path / f"{name}.yaml"
        pack.write_text(
            f"apiVersion: hookpolicy/v1\nkind: RulePack\nname: {name}\n"
            f"variables:\n  needle: \"'0123456789'\"\nrules:\n{rules}"
        )
        packs.append(pack)
    engine = Engine(Settings(packs=packs, audit_path=tmp_path / "log", data_dir=tmp_path))
    try:
        built = engine.warm()
        assert built["programs"] == 3  # (three of the first pack's tools' programs)
        assert built["cel_chars"] == 3 * cost
        second = next(h for h in engine.hooks if getattr(h, "name", "") == "pack:two")
        made = [c._program for i in second._index.values() for c in i.memo.values()]
        assert made and all(program is None for program in made)  # (nothing left for it)
        decision = engine.before_tool(ToolCall(tool="web_fetch", args={"x": "0123456789"}))
        assert decision.action.value == "deny_tool"
    finally:
        engine.close()


GAVE_UP_PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: scripts
rules:
  - id: curl-script-writing-etc
    tools: [bash]
    when: >-
      shell.has_substitution(string(args.script)) && commands.exists(c, c.name == "curl")
      && access.writes.exists(p, p.startsWith("/etc"))
    action: deny
"""


def test_a_condition_that_runs_the_analysis_decides_alike_warmed_or_not(tmp_path: Path) -> None:
    """Red team: a condition calling `shell.*` on a text whose analysis gives up refuses
    the call whatever its value; skipped by its guard until built, it let the call
    through in a cold engine and refused it in a warmed one (or after some other call
    built it). Such a condition has no guard: always evaluated, alike in both."""
    pack = tmp_path / "pack.yaml"
    pack.write_text(GAVE_UP_PACK)
    call = ToolCall(
        tool="bash",
        args={"command": "curl http://example.com", "script": "$(" * 20 + "x" + ")" * 20},
    )
    answers = []
    for warmed in (False, True):
        engine = Engine(
            Settings(packs=[pack], audit_path=tmp_path / f"{warmed}.log", data_dir=tmp_path)
        )
        try:
            if warmed:
                engine.warm()
            decision = engine.before_tool(call)
            answers.append((decision.action.value, decision.reason))
        finally:
            engine.close()
    assert answers[0] == answers[1]
    assert answers[0][0] == "deny_tool"
    assert "cannot be analysed" in answers[0][1]


def test_a_condition_s_function_holds_only_the_names_it_uses() -> None:
    """Red team: each condition's function held every value bound before it in its
    program (a program of 1,000 conditions: 36 KB a condition). Now its own and the
    helpers."""
    from policy.packs.cel.native.fast import _HELPERS

    sources = [
        f"commands.exists(c, c.name == 'w{i}' && c.args.exists(a, a in ['x{i}', 'y']))"
        for i in range(50)
    ]
    program = get_engine("native").program("before_tool", sources, [], checked=True)
    assert isinstance(program, NativeProgram)
    program.build_all()
    sizes = [len(fn.__globals__) - len(_HELPERS) for fn in program._fast if fn is not None]
    assert len(sizes) == 50
    assert max(sizes) <= 8  # (its constants and memos, and its own defs)
