"""`typing.NamedTuple`, without compiling every field's annotation at each import.

Every module of hookpolicy reads its annotations as strings (`from __future__ import
annotations`). `typing.NamedTuple` checks each one as a type when the class is made,
and a string becomes a `ForwardRef`, which compiles it: for `Decision`'s 19 fields that
is two thirds of the ≈ 0.5 ms its class costs, and a one-event hook (Claude Code and
Agentao start one per tool call) makes six such classes at every start (decision 0028).

This makes the same class through `collections.namedtuple` — what `typing.NamedTuple`
calls too — with the annotations kept as written: `typing.get_type_hints` resolves
strings as it resolves `ForwardRef`s. Defaults, methods, properties and docstrings in
the class body, the refusals (a field without a default after one with, a namedtuple
attribute overridden, a base other than NamedTuple) and pickling are `typing`'s
(tests/test_named_tuple.py). The type checker reads `typing.NamedTuple` itself.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import collections

    __all__ = ["NamedTuple"]

    #: What a class body may not set (typing's own list, for Python 3.11).
    _PROHIBITED = frozenset(
        {
            "__new__",
            "__init__",
            "__slots__",
            "__getnewargs__",
            "_fields",
            "_field_defaults",
            "_make",
            "_replace",
            "_asdict",
            "_source",
        }
    )
    #: What a class body sets that the made class keeps its own of.
    _SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})

    class _NamedTupleMeta(type):
        def __new__(
            cls, typename: str, bases: tuple[type, ...], namespace: dict[str, object]
        ) -> type:
            if bases != (_NamedTupleBase,):
                raise TypeError("can only inherit from a NamedTuple type and Generic")
            annotations = namespace.get("__annotations__", {})
            defaulted: list[str] = []
            for name in annotations:
                if name in namespace:
                    defaulted.append(name)
                elif defaulted:
                    plural = "s" if len(defaulted) > 1 else ""
                    raise TypeError(
                        f"Non-default namedtuple field {name} cannot follow default "
                        f"field{plural} {', '.join(defaulted)}"
                    )
            made = collections.namedtuple(
                typename,
                list(annotations),
                defaults=[namespace[name] for name in defaulted],
                module=namespace["__module__"],
            )
            made.__annotations__ = made.__new__.__annotations__ = dict(annotations)
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError("Cannot overwrite NamedTuple attribute " + key)
                if key not in _SPECIAL and key not in made._fields:
                    setattr(made, key, value)
            return made

    _NamedTupleBase = type.__new__(_NamedTupleMeta, "NamedTuple", (), {})

    class _NamedTupleSpelling:
        """What `class X(NamedTuple)` names: its base is the metaclass's own."""

        __slots__ = ()

        def __mro_entries__(self, bases: tuple[object, ...]) -> tuple[type]:
            return (_NamedTupleBase,)

        def __repr__(self) -> str:
            return "policy._named_tuple.NamedTuple"

    NamedTuple = _NamedTupleSpelling()
