"""One corpus of CEL expressions; both engines must give the expected result."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
import yaml

from policy.packs.cel import CelEvalError, Checker, get_engine

CORPUS = yaml.safe_load((Path(__file__).parent / "cel_corpus.yaml").read_text())["cases"]
NOW = dt.datetime(2026, 11, 30, 12, 0, 0, tzinfo=dt.UTC)
DATA: dict[str, Any] = {
    "tool": "bash",
    "tool_raw": "Bash",
    "args": {
        "command": "sudo rm -rf /tmp/x",
        "n": 5,
        "flag": True,
        "list": ["a", "b"],
        "nested": {"k": "v"},
        "path": "/srv/work/../work/a.txt",
    },
    "sender": "alice",
    "channel": "cli",
    "chat_id": "c1",
    "session": "s1",
    "agent": "main",
    "turn": "t1",
    "cwd": "/srv/work",
    "host": "picoclaw",
    "mode": "supervised",
    "now": NOW,
    "result": {"for_llm": "all done", "for_user": "", "is_error": False, "silent": False},
    "duration": dt.timedelta(seconds=2),
    "request": {"model": "gpt", "messages": [{"role": "user", "content": "hi"}], "tools": []},
    "response": {"model": "gpt", "content": "hello there"},
    "prompt": "Please help",
}


def _facts() -> dict[str, Any]:
    """The call's facts for the data above, as the engine binds them (HOME=/home/dev)."""
    from policy.analysis import access

    found = access.of_call("bash", DATA["args"], "/srv/work", "/home/dev", disk=False)
    return {
        "commands": [c.to_cel() for c in found.commands],
        "access": found.to_cel(),
        "workspace": "/srv/work",
        "home": "/home/dev",
        "protected": ["/etc/hookpolicy", "/srv/work/rules"],
    }


DATA.update(_facts())


def _layers(expr: str, variables: dict[str, str]) -> list[dict[str, str]]:
    """The variables `expr` reads (transitively), grouped by dependency depth,
    as the pack compiler binds them."""
    from policy.packs.runtime import var_references

    needed: set[str] = set()
    stack = [name for name, _ in var_references(expr)]
    while stack:
        name = stack.pop()
        if name in variables and name not in needed:
            needed.add(name)
            stack.extend(n for n, _ in var_references(variables[name]))
    variables = {name: variables[name] for name in needed}
    depth: dict[str, int] = {}

    def of(name: str) -> int:
        if name not in depth:
            deps = [n for n, _ in var_references(variables[name]) if n in variables]
            depth[name] = 1 + max((of(d) for d in deps), default=-1)
        return depth[name]

    layers: list[dict[str, str]] = []
    for name in sorted(variables, key=of):
        while len(layers) <= of(name):
            layers.append({})
        layers[of(name)][name] = variables[name]
    return layers


#: The native engine evaluates an expression through its exact form the first time and
#: its fast form from the second on (policy.packs.cel.native.program): both are asked.
_SECOND = "native, evaluated again"


def _run(engine_name: str, case: dict[str, Any]) -> Any:
    point = case.get("point", "before_tool")
    layers = _layers(case["expr"], case.get("vars", {}))
    engine = get_engine("native" if engine_name == _SECOND else engine_name)
    program = engine.program(point, [case["expr"]], layers, [layers])
    data = {k: v for k, v in DATA.items() if k in program.needs}
    (value,) = program.run(data)
    if engine_name == _SECOND:
        (value,) = program.run(data)
    return value


def test_the_corpus_is_big_enough() -> None:
    assert len([c for c in CORPUS if c["expect"] != "compile_error"]) >= 100


RUNTIME = [c for c in CORPUS if c["expect"] != "compile_error"]


@pytest.mark.parametrize("engine_name", ["native", _SECOND, "cel-expr-python", "cel-python"])
@pytest.mark.parametrize("case", RUNTIME, ids=[c["expr"][:60] for c in RUNTIME])
def test_engines_agree_with_the_corpus(engine_name: str, case: dict[str, Any]) -> None:
    named = "native" if engine_name == _SECOND else engine_name
    if named in case.get("not_on", {}):
        pytest.skip(f"{engine_name}: {case['not_on'][named]}")
    value = _run(engine_name, case)
    if case["expect"] == "error":
        assert isinstance(value, CelEvalError), f"expected an error, got {value!r}"
    else:
        assert not isinstance(value, CelEvalError), f"unexpected error: {value}"
        assert value == case["expect"]
        assert type(value) is type(case["expect"]) or isinstance(case["expect"], list)


CONDITIONS = [c for c in RUNTIME if c["expect"] in (True, False, "error")]


@pytest.mark.parametrize("engine_name", ["native", "cel-expr-python", "cel-python"])
def test_the_condition_mask_agrees_with_each_result(engine_name: str) -> None:
    """Packs read conditions as one int mask first; it must say what `run` says.

    Every boolean case of the corpus runs as one batch (cel-expr-python sums
    them into a single mask program only up to 62 conditions, so the batch is
    split to exercise both its mask program and the list fallback).
    """
    engine = get_engine(engine_name)
    for batch in (CONDITIONS[:40], CONDITIONS[40:]):
        exprs = [c["expr"] for c in batch if not c.get("vars") and "point" not in c]
        program = engine.program("before_tool", exprs, [])
        data = {k: v for k, v in DATA.items() if k in program.needs}
        results = program.run(data)
        mask = program.run_mask(data)
        if any(not isinstance(r, bool) for r in results):
            assert mask is None
            good = [e for e, r in zip(exprs, results, strict=True) if isinstance(r, bool)]
            program = engine.program("before_tool", good, [])
            data = {k: v for k, v in DATA.items() if k in program.needs}
            results, mask = program.run(data), program.run_mask(data)
        assert mask == sum(1 << i for i, r in enumerate(results) if r is True)


@pytest.mark.parametrize("case", CORPUS, ids=[c["expr"][:60] for c in CORPUS])
def test_compile_errors_are_found_at_load(case: dict[str, Any]) -> None:
    """Whatever engine runs, the checker decides what loads: `compile_error` cases
    never reach an engine, and every other case type-checks."""
    result = Checker().check(case.get("point", "before_tool"), case["expr"])
    if case["expect"] == "compile_error":
        assert result.issues, case["expr"]
    else:
        assert result.issues == [], result.issues


def test_the_error_value_is_never_read_as_truthy() -> None:
    """cel-expr-python returns errors as a Value of type ERROR; it must surface as an error."""
    program = get_engine("cel-expr-python").program("before_tool", ["args.missing == 1"], [])
    (value,) = program.run({"args": {}})
    assert isinstance(value, CelEvalError)
    assert "missing" in str(value)
