"""policy._named_tuple makes the class `typing.NamedTuple` makes, without compiling its
annotations.

Each class body is made twice, once on `typing.NamedTuple` and once on ours, and the
two are asked the same questions.
"""

from __future__ import annotations

import copy
import pickle
import re
import typing
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy._named_tuple import NamedTuple as FastNamedTuple

ROOT = Path(__file__).resolve().parent.parent


def both() -> list[Any]:
    """The same class body on both bases."""
    made = []
    for base in (typing.NamedTuple, FastNamedTuple):

        class Point(base):  # type: ignore[valid-type,misc]
            """A value with a method, a property and a class method."""

            x: int
            y: int = 0
            tags: tuple[str, ...] = ()
            label: str | None = None

            def total(self) -> int:
                return int(self.x + self.y)

            @property
            def doubled(self) -> int:
                return int(self.x * 2)

            @classmethod
            def origin(cls) -> Any:
                return cls(0)

        made.append(Point)
    return made


def test_the_class_is_the_one_typing_makes() -> None:
    standard, fast = both()
    assert fast._fields == standard._fields == ("x", "y", "tags", "label")
    assert fast._field_defaults == standard._field_defaults
    assert fast.__match_args__ == standard.__match_args__
    assert fast.__doc__ == standard.__doc__
    assert (fast.__name__, fast.__qualname__, fast.__module__) == (
        standard.__name__,
        standard.__qualname__,
        standard.__module__,
    )
    assert fast.__mro__[1:] == standard.__mro__[1:] == (tuple, object)
    assert set(fast.__annotations__) == set(standard.__annotations__)
    assert typing.get_type_hints(fast) == typing.get_type_hints(standard)


def test_its_values_behave_as_typings() -> None:
    standard, fast = both()
    for cls in (standard, fast):
        value = cls(1, tags=("a",))
        assert value == (1, 0, ("a",), None) and value == cls._make([1, 0, ("a",), None])
        assert hash(value) == hash((1, 0, ("a",), None))
        assert value._replace(y=2).total() == 3 and value.doubled == 2
        assert value._asdict() == {"x": 1, "y": 0, "tags": ("a",), "label": None}
        assert cls.origin() == (0, 0, (), None)
        assert repr(value) == "Point(x=1, y=0, tags=('a',), label=None)"
        assert copy.copy(value) == value and copy.deepcopy(value) == value
        with pytest.raises(TypeError, match="not JSON serializable"):
            orjson.dumps(value)  # (a tuple's subclass: orjson refuses typing's too)
        match value:
            case cls(x, y):
                assert (x, y) == (1, 0)
        with pytest.raises(AttributeError):
            value.x = 2  # type: ignore[misc]
        with pytest.raises(TypeError):
            cls()


def test_it_pickles_by_name(tmp_path: Path) -> None:
    from policy.model import Action, Decision

    decision = Decision(Action.DENY_TOOL, "no", rule_ids=("a/b",))
    assert pickle.loads(pickle.dumps(decision)) == decision


def test_it_refuses_what_typing_refuses() -> None:
    for base in (typing.NamedTuple, FastNamedTuple):
        with pytest.raises(TypeError, match="Non-default namedtuple field y cannot follow"):

            class Late(base):  # type: ignore[valid-type,misc]
                x: int = 0
                y: int

        with pytest.raises(AttributeError, match="Cannot overwrite NamedTuple attribute _asdict"):

            class Overwritten(base):  # type: ignore[valid-type,misc]
                x: int

                def _asdict(self) -> dict[str, Any]:
                    return {}

        with pytest.raises(TypeError, match="can only inherit from a NamedTuple type"):

            class Mixed(base, int):  # type: ignore[valid-type,misc]
                x: int


def test_it_compiles_no_annotation(monkeypatch: pytest.MonkeyPatch) -> None:
    """What it spares: typing turns each string annotation into a ForwardRef, which
    compiles it."""
    made: list[str] = []
    forward = typing.ForwardRef.__init__

    def watched(self: Any, arg: str, *args: Any, **kwargs: Any) -> None:
        made.append(arg)
        forward(self, arg, *args, **kwargs)

    monkeypatch.setattr(typing.ForwardRef, "__init__", watched)
    both()
    assert made == ["int", "int", "tuple[str, ...]", "str | None"]  # (typing's class only)


def test_no_module_of_the_package_uses_typings_named_tuple() -> None:
    spelled = re.compile(r"^from typing import [^\n]*\bNamedTuple\b|typing\.NamedTuple", re.M)
    found = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "policy").rglob("*.py")
        if path.name != "_named_tuple.py" and spelled.search(path.read_text())
    ]
    assert found == []
