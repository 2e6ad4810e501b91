"""The package's shape: imports point down, and the one-event path loads only what it uses.

A *unit* is each top-level module or subpackage of `policy/` (`engine`, `packs`,
`hosts`, ...). The *edge* is what talks to the outside world — `hosts`, `cli`,
`server`, `client`, `__main__` and the package facade (`policy/__init__.py`, which
hands the engine its hosted-hook builder, policy.hosting). Every `import` statement
counts, wherever it is: at the top, inside a function, under `TYPE_CHECKING`. A core
unit that imports the edge, or two units that import each other (through any chain),
fail here, naming the file and line of each import on the way.

Run it as a script to print the graph: `.venv/bin/python tests/test_structure.py`.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import NamedTuple

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "policy"
FACADE = "<facade>"
EDGE = frozenset({"hosts", "cli", "server", "client", "__main__", FACADE})


class Import(NamedTuple):
    source: str  # the importing unit
    target: str  # the imported unit
    where: str  # file:line


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _unit(module: str, root: Path) -> str | None:
    """The unit `module` belongs to (None outside the package)."""
    parts = module.split(".")
    if parts[0] != root.name:
        return None
    if len(parts) == 1:
        return FACADE
    return parts[1]


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, root: Path
) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        name = ".".join(base + ([node.module] if node.module else []))
    else:
        name = node.module or ""
    if name != root.name:
        return [name]
    # `from policy import x`: a submodule is that unit; any other name is the facade's.
    return [
        f"{root.name}.{alias.name}"
        if (root / f"{alias.name}.py").exists() or (root / alias.name).is_dir()
        else root.name
        for alias in node.names
    ]


def imports(root: Path = PACKAGE) -> Iterator[Import]:
    """Every import from one unit of `root` into another, wherever it is written."""
    for path in sorted(root.rglob("*.py")):
        module = _module_name(path, root)
        source = _unit(module, root)
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            for name in _targets(node, module, path.name == "__init__.py", root):
                target = _unit(name, root)
                if target is not None and source is not None and target != source:
                    where = f"{path.relative_to(root.parent)}:{node.lineno}"
                    yield Import(source, target, where)


@functools.cache
def _package_imports() -> tuple[Import, ...]:
    """`imports()` of the package itself, parsed once for the tests that read it (each
    parse of every module took ≈ 2 s)."""
    return tuple(imports())


def graph(found: Iterable[Import]) -> dict[str, dict[str, list[str]]]:
    """unit -> imported unit -> where each import is."""
    out: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for item in found:
        out[item.source][item.target].append(item.where)
    return out


def climbing(edges: Mapping[str, Mapping[str, list[str]]]) -> list[str]:
    """Each import from a core unit into the edge."""
    return [
        f"{source} -> {target} at {where}"
        for source, targets in sorted(edges.items())
        if source not in EDGE
        for target, wheres in sorted(targets.items())
        if target in EDGE
        for where in wheres
    ]


def cycles(edges: Mapping[str, Mapping[str, list[str]]]) -> list[list[str]]:
    """The groups of units that import each other, each sorted (Tarjan's SCCs)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(unit: str) -> None:
        index[unit] = low[unit] = len(index)
        stack.append(unit)
        on_stack.add(unit)
        for target in edges.get(unit, {}):
            if target not in index:
                visit(target)
                low[unit] = min(low[unit], low[target])
            elif target in on_stack:
                low[unit] = min(low[unit], index[target])
        if low[unit] == index[unit]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == unit:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for unit in sorted(edges):
        if unit not in index:
            visit(unit)
    return sorted(groups)


def _described(edges: Mapping[str, Mapping[str, list[str]]], group: list[str]) -> str:
    members = set(group)
    return "\n".join(
        f"  {source} -> {target} at {', '.join(wheres)}"
        for source in group
        for target, wheres in sorted(edges.get(source, {}).items())
        if target in members
    )


# ------------------------------------------------------------------ the package


def test_no_core_unit_imports_the_edge() -> None:
    found = climbing(graph(_package_imports()))
    assert not found, "imports that climb from the core into the edge:\n" + "\n".join(found)


def test_no_two_units_import_each_other() -> None:
    edges = graph(_package_imports())
    found = cycles(edges)
    assert not found, "units that import each other:\n" + "\n\n".join(
        _described(edges, group) for group in found
    )


def test_analysis_imports_nothing_of_the_package_but_errors() -> None:
    """`analysis/` is pure: it knows no host, pack, hook or engine (DESIGN §2). Its
    errors, its dataclass decorator and its NamedTuple (policy._lazy_dataclass and
    policy._named_tuple, which stand for the standard library's and import nothing of
    the package) are all it takes."""
    edges = graph(_package_imports())
    assert set(edges.get("analysis", {})) <= {"errors", "_lazy_dataclass", "_named_tuple"}
    assert set(edges.get("_lazy_dataclass", {})) == set()
    assert set(edges.get("_named_tuple", {})) == set()


def test_the_kept_lines_are_keyed_by_every_module_the_analysis_runs() -> None:
    """A line's lexical facts read back by the next process (policy.packs.line_store)
    are keyed by the files of policy/analysis/ and of the package's modules it imports:
    an edit of any of them must make every entry a miss."""
    from policy.packs.line_store import OTHER_SOURCES

    edges = graph(_package_imports())
    stems = {source.removesuffix(".py") for source in OTHER_SOURCES}
    assert set(edges.get("analysis", {})) <= stems


def test_an_engine_on_default_settings_loads_no_host_code(tmp_path: Path) -> None:
    """The engine is handed hosted hooks (policy.hosting); it never imports the layer
    that builds them, so an engine whose settings name none loads none of it."""
    script = (
        "import sys\n"
        "from policy import Engine\n"
        "with Engine(): pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('policy.hosts', 'policy.cli',"
        " 'policy.server', 'policy.client'))))\n"
    )
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "XDG_DATA_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout + done.stderr


def test_a_rewrite_is_normalised_in_the_chain_without_calling_the_engine_back(
    tmp_path: Path,
) -> None:
    """A `modify` keeps the caller's identity and the tool's canonical name: the chain
    applies policy.identity to it, never a method of the engine that started the chain
    (engine -> chain -> engine on every rewrite, DESIGN §9)."""
    import inspect

    from policy import Engine, ToolCall
    from policy.identity import CallNormalizer
    from policy.settings import Settings

    with Engine(Settings(audit_path=tmp_path / "log", aliases={"run_it": "bash"})) as engine:
        normalize = engine._normalize_call
        assert isinstance(normalize, CallNormalizer)
        assert not (inspect.ismethod(normalize) and normalize.__self__ is engine)
        old = ToolCall(tool="bash", args={}, sender="alice", cwd="/w")
        new, warning = normalize(old, old.replace(tool="run_it", sender="mallory"), "h")
        assert (new.tool, new.sender, new.cwd) == ("bash", "alice", "/w")
        assert warning is not None and "identity" in warning


@pytest.mark.parametrize(
    ("module", "listing"),
    [("policy.packs.cache", "_SOURCES"), ("policy._fast_settings", "_SOURCES")],
)
def test_the_files_cache_keys_stamp_exist(module: str, listing: str) -> None:
    """A cache key stamps the modules whose code decides what is cached; a name that no
    longer exists (a module moved) turns every key off, and the cache with it."""
    import importlib

    names = getattr(importlib.import_module(module), listing)
    missing = [name for name in names if not (PACKAGE / name).exists()]
    assert not missing


# ------------------------------------------------- the checks, on a package of our own


def _package(root: Path, files: Mapping[str, str]) -> Path:
    package = root / "pkg"
    for name, text in files.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return package


def test_an_import_inside_a_function_that_climbs_is_found(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "engine.py": "def f():\n    from pkg.hosts.wire import x\n",
            "hosts/__init__.py": "",
            "hosts/wire.py": "from pkg import engine\n",
        },
    )
    edges = graph(imports(package))
    assert climbing(edges) == ["engine -> hosts at pkg/engine.py:2"]
    assert cycles(edges) == [["engine", "hosts"]]


def test_type_checking_and_relative_imports_count(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "errors.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .model import D\n",
            "model.py": "from pkg.aliases import A\n",
            "aliases.py": "from pkg.errors import E\n",
        },
    )
    edges = graph(imports(package))
    assert cycles(edges) == [["aliases", "errors", "model"]]
    assert edges["errors"]["model"] == ["pkg/errors.py:3"]


def test_a_name_from_the_facade_is_the_edge(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "__init__.py": "",
            "engine.py": "from pkg import Engine\nfrom pkg import model\n",
            "model.py": "",
        },
    )
    assert climbing(graph(imports(package))) == ["engine -> <facade> at pkg/engine.py:1"]


if __name__ == "__main__":
    for source, targets in sorted(graph(imports()).items()):
        print(f"{source} -> {', '.join(sorted(targets))}")


def test_hosted_hooks_come_from_the_builder_the_engine_is_handed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import policy.hosting
    from policy import Engine
    from policy.errors import SettingsError
    from policy.settings import Settings

    hooks_file = tmp_path / "hooks.json"
    hooks_file.write_text('{"hooks": {}}')
    settings = Settings(claude_hooks=[hooks_file], audit_path=tmp_path / "log")

    class Gate:
        name = "gate"

        def before_tool(self, call: object) -> None:
            return None

    asked: list[object] = []

    def build(*args: object) -> list[object]:
        asked.append(args[0])
        return [Gate()]

    with Engine(settings, hosted=build) as engine:
        assert engine.chain_order("before_tool") == ("gate",)
    assert asked == [settings]
    monkeypatch.setattr(policy.hosting, "builder", None)
    with pytest.raises(SettingsError, match="without a builder for hosted hooks"):
        Engine(settings)
