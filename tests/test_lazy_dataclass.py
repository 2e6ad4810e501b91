"""policy._lazy_dataclass makes the class `@dataclass` makes — compiled later, and only
what is used.

Each shape hookpolicy's value classes take is made twice, once by the standard
`@dataclass` and once by the lazy one with the same arguments, and the two are asked
the same questions.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, ClassVar
from typing import ClassVar as Shared

import orjson
import pytest

from policy import _lazy_dataclass
from policy._lazy_dataclass import dataclass as lazy_dataclass

SHAPES: list[dict[str, Any]] = [
    {"frozen": True, "slots": True},
    {"frozen": True, "slots": True, "kw_only": True},
    {"frozen": True, "slots": True, "order": True},
    {"frozen": False, "slots": True},
    {"frozen": False, "slots": False},
    {"frozen": False, "slots": False, "eq": False},
]


def both(**options: Any) -> list[Any]:
    """The same class body made by both `@dataclass(**options)`, each declaring its
    fields with its own module's `field` (as hookpolicy's modules do)."""
    made = []
    for decorate, declare in ((dataclass, dataclasses.field), (lazy_dataclass, _lazy_dataclass.field)):

        class Point:
            """A value with every kind of field."""

            LIMIT: ClassVar[int] = 3
            x: int
            y: int = 0
            tags: tuple[str, ...] = ()
            notes: list[str] = declare(default_factory=list, hash=False)
            cached: str = declare(default="", compare=False, repr=False)

            def total(self) -> int:
                return self.x + self.y

        made.append(decorate(**options)(Point))
    return made


@pytest.mark.parametrize("options", SHAPES, ids=repr)
def test_the_class_is_built_compared_and_shown_as_the_standard_one(options: dict[str, Any]) -> None:
    standard, lazy = both(**options)
    kw = options.get("kw_only", False)

    def make(cls: Any, *args: Any, **kwargs: Any) -> Any:
        if kw:
            kwargs.update(zip(["x", "y", "tags"], args, strict=False))
            return cls(**kwargs)
        return cls(*args, **kwargs)

    for cls in (standard, lazy):
        a = make(cls, 1, 2, ("t",))
        b = make(cls, 1, 2, ("t",), cached="other")
        c = make(cls, 2)
        assert (a.x, a.y, a.tags, a.notes, a.cached) == (1, 2, ("t",), [], "")
        assert a.notes is not b.notes  # (a factory per instance)
        assert a.total() == 3 and cls.LIMIT == 3
        assert (a == b) is options.get("eq", True)  # `cached` is not compared
        assert a != c
        assert repr(a).replace(cls.__qualname__, "P") == "P(x=1, y=2, tags=('t',), notes=[])"
        if options.get("order"):
            assert a < c and c > a and a <= b and c >= a
        else:
            with pytest.raises(TypeError):
                _ = a < c
        if options.get("frozen"):
            assert hash(a) == hash(b)
            with pytest.raises(dataclasses.FrozenInstanceError):
                a.x = 5
            with pytest.raises(dataclasses.FrozenInstanceError):
                del a.y
        else:
            a.x = 5
            assert a.x == 5
        if options.get("slots"):
            assert not hasattr(a, "__dict__")
            assert set(cls.__slots__) == {"x", "y", "tags", "notes", "cached"}
        if options.get("eq", True) and not options.get("frozen"):
            with pytest.raises(TypeError, match="unhashable"):
                hash(a)
    assert lazy.__match_args__ == standard.__match_args__
    assert lazy.__qualname__ == standard.__qualname__
    assert lazy.__doc__ == standard.__doc__


@pytest.mark.parametrize("options", SHAPES[:3], ids=repr)
def test_dataclasses_functions_and_orjson_read_the_class_as_a_dataclass(
    options: dict[str, Any],
) -> None:
    standard, lazy = both(**options)
    values = {"x": 1, "y": 2, "tags": ("a",), "notes": ["n"], "cached": "c"}
    one, other = standard(**values), lazy(**values)
    assert dataclasses.is_dataclass(other)
    assert [(f.name, f.type, f.compare, f.repr, f.kw_only) for f in dataclasses.fields(other)] == [
        (f.name, f.type, f.compare, f.repr, f.kw_only) for f in dataclasses.fields(one)
    ]
    assert dataclasses.asdict(other) == dataclasses.asdict(one)
    assert dataclasses.replace(other, y=9) == lazy(**{**values, "y": 9})
    assert orjson.dumps(other) == orjson.dumps(one)
    assert copy.copy(other) == other and copy.deepcopy(other) == other
    # ... and this module's own `fields` and `replace`, which hookpolicy calls
    shown = [(f.name, f.type, f.compare, f.repr, f.kw_only) for f in _lazy_dataclass.fields(other)]
    assert shown == [(f.name, f.type, f.compare, f.repr, f.kw_only) for f in dataclasses.fields(one)]
    assert _lazy_dataclass.replace(other, y=9) == lazy(**{**values, "y": 9})
    assert _lazy_dataclass.replace(one, y=9) == dataclasses.replace(one, y=9)  # (any dataclass)
    with pytest.raises(TypeError):
        _lazy_dataclass.replace(other, z=1)


def test_a_field_declared_with_dataclasses_field_is_a_field_too() -> None:
    @lazy_dataclass(frozen=True, slots=True)
    class Mixed:
        a: list[int] = dataclasses.field(default_factory=list, repr=False)
        b: int = _lazy_dataclass.field(default=2, compare=False)

    assert Mixed() == Mixed(a=[], b=3)
    assert repr(Mixed()) == "test_a_field_declared_with_dataclasses_field_is_a_field_too.<locals>.Mixed(b=2)"
    assert [f.name for f in dataclasses.fields(Mixed)] == ["a", "b"]


def test_a_standard_subclass_of_a_made_class_keeps_its_own_fields() -> None:
    """`dataclasses.dataclass` on a subclass of a class made here: its fields are the
    standard ones, its own included, and `replace` keeps them."""

    @lazy_dataclass(frozen=True, slots=True, kw_only=True)
    class Base:
        x: int = 0

    @dataclass(frozen=True, kw_only=True)
    class Sub(Base):
        tenant: str

    one = Sub(x=1, tenant="acme")
    assert [f.name for f in _lazy_dataclass.fields(one)] == ["x", "tenant"]
    assert _lazy_dataclass.replace(one, x=2) == Sub(x=2, tenant="acme")

    class Plain(Base):  # (no decorator: the base's fields, as `dataclasses.fields` says)
        pass

    assert [f.name for f in _lazy_dataclass.fields(Plain)] == ["x"]


def test_a_fields_metadata_is_kept() -> None:
    @lazy_dataclass(frozen=True)
    class Described:
        a: int = dataclasses.field(default=1, metadata={"unit": "s"})
        b: int = _lazy_dataclass.field(default=2, metadata={"unit": "ms"})
        c: int = 3

    units = [dict(f.metadata) for f in dataclasses.fields(Described)]
    assert units == [{"unit": "s"}, {"unit": "ms"}, {}]


def test_replace_refuses_an_init_false_field_as_dataclasses_does() -> None:
    made = []
    for decorate, declare in ((dataclass, dataclasses.field), (lazy_dataclass, _lazy_dataclass.field)):

        @decorate
        class Counted:
            x: int
            seen: int = declare(default=0, init=False)

        made.append(Counted)
    refusals = []
    for cls, replace in zip(made, (dataclasses.replace, _lazy_dataclass.replace), strict=True):
        with pytest.raises(ValueError) as refused:
            replace(cls(1), seen=2)
        refusals.append(str(refused.value))
        assert replace(cls(1), x=2).x == 2
    assert refusals[0] == refusals[1]


def test_making_and_using_a_class_imports_no_dataclasses() -> None:
    """`dataclasses` imports `inspect`, ≈ 11 ms of a one-event hook's start (decision
    0029): made, compared, hashed, replaced and listed, a class needs none of it — only
    asking `dataclasses` itself about it (or refusing to change a frozen one, whose
    error is `dataclasses.FrozenInstanceError`) loads it, and then it answers."""
    code = (
        "import sys\n"
        "from policy._lazy_dataclass import dataclass, field, fields, replace\n"
        "@dataclass(frozen=True, slots=True)\n"
        "class A:\n"
        "    x: int\n"
        "    tags: list[str] = field(default_factory=list, compare=False)\n"
        "a = A(1)\n"
        "assert a == A(1, ['t']) and hash(a) == hash(A(1)) and replace(a, x=2).x == 2\n"
        "assert [f.name for f in fields(A)] == ['x', 'tags'] and repr(a) == \"A(x=1, tags=[])\"\n"
        "assert 'dataclasses' not in sys.modules, 'imported'\n"
        "import dataclasses\n"
        "try:\n"
        "    a.x = 3\n"
        "except dataclasses.FrozenInstanceError:\n"
        "    pass\n"
        "assert dataclasses.is_dataclass(a) and dataclasses.asdict(a) == {'x': 1, 'tags': []}\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.stdout.strip() == "ok", done.stderr


@lazy_dataclass(frozen=True, slots=True)
class Kept:
    """A module's class, as pickle finds it."""

    name: str
    count: int = 0


def test_a_frozen_slotted_instance_survives_pickle_and_copy() -> None:
    kept = Kept("a", 2)
    assert pickle.loads(pickle.dumps(kept)) == kept
    assert copy.deepcopy(kept) == kept and copy.copy(kept) is not kept


def test_keyword_only_fields_after_the_marker_and_init_false_fields_set_after_init() -> None:
    for decorate in (dataclass, lazy_dataclass):

        @decorate(frozen=False, slots=False, eq=False)
        class Rule:
            name: str
            _: KW_ONLY
            priority: int = 0
            full: str = field(init=False)

            def __post_init__(self) -> None:
                self.full = f"{self.name}/{self.priority}"

        rule = Rule("a", priority=2)
        assert rule.full == "a/2"
        with pytest.raises(TypeError):
            Rule("a", 2)  # type: ignore[misc]
        assert Rule("a") != Rule("a")  # eq=False: by identity


def test_a_subclass_inherits_its_bases_fields_first() -> None:
    for decorate in (dataclass, lazy_dataclass):

        @decorate(frozen=True, slots=True)
        class Base:
            a: int
            b: str = "b"

        @decorate(frozen=True, slots=True)
        class Child(Base):
            c: float = 0.5
            b: str = "child"

        child = Child(1)
        assert (child.a, child.b, child.c) == (1, "child", 0.5)
        assert [f.name for f in dataclasses.fields(Child)] == ["a", "b", "c"]
        assert Child(1) != Base(1)  # another class, never equal


class Named:
    """A plain base whose attribute a dataclass field takes as its default."""

    kind = "named"


def test_defaults_class_variables_and_own_methods_are_taken_as_dataclass_takes_them() -> None:
    for decorate in (dataclass, lazy_dataclass):

        @decorate(frozen=True, slots=True)
        class Base:
            x: int

        @decorate(frozen=True)
        class Child(Base):
            x: int = None  # type: ignore[assignment]

        @decorate(frozen=True)
        class FromPlain(Named):
            kind: str

        @decorate(frozen=True, slots=True)
        class Counted:
            LIMIT: Shared[int] = 3  # (a ClassVar under another name: no field)
            y: int = 0
            __match_args__ = ("y",)

        assert Child(5).x == 5  # (the default None hides the base's slot, not the value)
        assert FromPlain().kind == "named"
        assert [f.name for f in dataclasses.fields(Counted)] == ["y"]
        assert Counted.LIMIT == 3 and Counted.__match_args__ == ("y",)


def test_what_dataclass_refuses_is_refused_when_the_class_is_made() -> None:
    for decorate in (dataclass, lazy_dataclass):
        with pytest.raises(TypeError, match="non-default argument"):

            @decorate(frozen=True, slots=True)
            class Wrong:
                a: int = 0
                b: int  # type: ignore[misc]

        with pytest.raises(ValueError, match="mutable default"):

            @decorate(frozen=True, slots=True)
            class Shared:
                items: list[int] = []

        @decorate(frozen=True, slots=True)
        class Frozen:
            a: int

        with pytest.raises(ValueError, match="eq must be true if order is true"):

            @decorate(order=True, eq=False)
            class Unordered:
                a: int

        with pytest.raises(TypeError, match="is a field but has no type annotation"):

            @decorate
            class Unannotated:
                a = field(default=0)

        with pytest.raises(TypeError, match="Cannot overwrite attribute __setattr__"):

            @decorate(frozen=True)
            class Guarded:
                a: int

                def __setattr__(self, name: str, value: object) -> None:
                    object.__setattr__(self, name, value)

        with pytest.raises(TypeError, match="non-frozen dataclass from a frozen one"):

            @decorate(frozen=False, slots=True)
            class Thawed(Frozen):
                b: int = 0


def test_a_field_named_like_the_generated_code_is_refused_not_miscompiled() -> None:
    # (`__init__` reads its helpers by names starting with `__`; a parameter of that
    # name would shadow one)
    for name in ("self", "__set", "__slot0"):
        with pytest.raises(TypeError, match="may not be self or start with __"):
            lazy_dataclass(frozen=True, slots=True)(
                type("Clash", (), {"__annotations__": {name: "int"}})
            )


def test_a_class_that_is_never_made_compiles_no_code(monkeypatch: pytest.MonkeyPatch) -> None:
    # Why the module exists: `@dataclass` compiles six methods per frozen class at every
    # import; this one compiles `__init__` at the first instance, and nothing else.
    # (Its own `exec` and `compile` are watched, not the builtins: a thread another test
    # left building CEL programs must not count.)
    import policy._lazy_dataclass as module

    compiled: list[str] = []

    def counting(real: Any) -> Any:
        def run(source: Any, *args: Any, **kwargs: Any) -> Any:
            compiled.append(str(source)[:40])
            return real(source, *args, **kwargs)

        return run

    monkeypatch.setattr(module, "exec", counting(exec), raising=False)
    monkeypatch.setattr(module, "compile", counting(compile), raising=False)
    monkeypatch.setattr(dataclasses, "_create_fn", counting(dataclasses._create_fn))  # type: ignore[attr-defined]

    @lazy_dataclass(frozen=True, slots=True)
    class Value:
        a: int
        b: str = ""

    assert compiled == []
    assert Value(1) == Value(1, "")
    assert len(compiled) == 1 and compiled[0].startswith("def __init__(self, a, b=")
    Value(2)
    assert (
        repr(Value(3))
        == "test_a_class_that_is_never_made_compiles_no_code.<locals>.Value(a=3, b='')"
    )
    assert len(compiled) == 1  # (the compiled one is the class's from then on)


def test_every_value_class_of_hookpolicy_is_made_by_the_lazy_decorator() -> None:
    # (one standard `@dataclass` on a hook's path puts its compile cost back on every
    # tool call: docs/decisions/0026-lazy-dataclasses.md)
    import ast
    from pathlib import Path

    standard = []
    for path in sorted((Path(__file__).parent.parent / "policy").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "dataclasses":
                standard += [f"{path.name}: {a.name}" for a in node.names if a.name == "dataclass"]
            elif (
                isinstance(node, ast.Attribute)
                and node.attr == "dataclass"
                and isinstance(node.value, ast.Name)
                and node.value.id == "dataclasses"
            ):
                standard.append(f"{path.name}: dataclasses.dataclass")
    assert standard == []
