"""`@dataclass`, with its methods' code compiled when first needed instead of at import.

The standard `@dataclass` writes the source of each method it adds (`__init__`,
`__repr__`, `__eq__`, `__hash__`, and for a frozen class `__setattr__` and
`__delattr__`) and compiles it at every import: ≈ 1 ms for a frozen slotted class of
six fields on the development machine, ≈ 26 ms for the 29 classes a `policy hook
claude` process makes before it decides — and Claude Code and Agentao start that
process once per tool call (docs/decisions/0026-lazy-dataclasses.md). This one makes
the same class — the same fields, defaults, `__slots__`, equality, hash, order, repr,
frozen-ness, `__match_args__` and `__post_init__` — but compiles only `__init__`, when
the class is first instantiated; the other methods compare and hash the fields
through one `operator.attrgetter`, which needs no code of its own.

Nor does it import `dataclasses`: that module imports `inspect` (and with it `ast`,
`dis`, `tokenize`), ≈ 11 ms of such a process's start for nothing it decides with
(decision 0029). Fields are declared with this module's `field` (the same options) and
read with its `fields` and `replace`. The class carries `__dataclass_fields__` all the
same, made of `dataclasses.Field` objects the first time anything asks for it — which
imports `dataclasses` then —, so `dataclasses.fields`, `replace`, `asdict`,
`is_dataclass`, pydantic, copy, pickle and orjson treat it as the dataclass it is; and a
`dataclasses.field(...)` declares a field too. tests/test_lazy_dataclass.py asks every
shape hookpolicy uses the same questions as `@dataclass` itself.

The arguments are `@dataclass`'s, with its defaults: `frozen`, `slots`, `kw_only`,
`order`, `eq`. `unsafe_hash`, `weakref_slot`, `init=False`, `repr=False`, `InitVar` and
`match_args=False` are not offered (nothing here uses them): a class needing one is a
TypeError when decorated (the arguments) or made (`InitVar`), never a different class.
"""

from __future__ import annotations

import reprlib
import sys
import typing
from collections.abc import Callable, Mapping
from operator import attrgetter
from types import MemberDescriptorType, ModuleType
from typing import Any, TypeVar, dataclass_transform, overload

__all__ = ["MISSING", "Field", "dataclass", "field", "fields", "replace"]

_T = TypeVar("_T")


class _Missing:
    """No default (`dataclasses.MISSING`'s role; a field made into a `dataclasses.Field`
    gets `dataclasses.MISSING` in its place)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
_MISSING = MISSING
#: The default of a field made by a factory, in a compiled `__init__`'s signature.
_FACTORY = object()
_KW_ONLY_NAMES = ("KW_ONLY", "dataclasses.KW_ONLY")


class Field:
    """A field's options, as `dataclasses.Field` holds them (what `field` declares and
    the decorator completes with the name, the annotation and `kw_only`)."""

    __slots__ = (
        "compare",
        "default",
        "default_factory",
        "hash",
        "init",
        "kw_only",
        "metadata",
        "name",
        "repr",
        "type",
    )

    def __init__(
        self,
        default: Any,
        default_factory: Any,
        init: bool,
        repr: bool,
        hash: bool | None,
        compare: bool,
        kw_only: Any,
        metadata: Any = None,
    ) -> None:
        if default is not MISSING and default_factory is not MISSING:
            raise ValueError("cannot specify both default and default_factory")
        self.metadata = metadata
        self.name: str = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.kw_only = kw_only

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r})"


def field(
    *,
    default: Any = MISSING,
    default_factory: Any = MISSING,
    init: bool = True,
    repr: bool = True,
    hash: bool | None = None,
    compare: bool = True,
    metadata: Mapping[Any, Any] | None = None,
    kw_only: Any = MISSING,
) -> Any:
    """`dataclasses.field`: the same options, and the same refusal of both a default and
    a factory. (Typed `Any`, as a default is: the annotation is the field's type.)"""
    return Field(default, default_factory, init, repr, hash, compare, kw_only, metadata)


def fields(class_or_instance: Any) -> tuple[Field, ...]:
    """`dataclasses.fields` for a class this module made (its `Field`s); any other
    dataclass is `dataclasses.fields`'."""
    cls = class_or_instance if isinstance(class_or_instance, type) else type(class_or_instance)
    made = _made_fields(cls)
    if made is None:
        import dataclasses

        return dataclasses.fields(class_or_instance)  # type: ignore[return-value]
    return tuple(made.values())


def replace(obj: _T, /, **changes: Any) -> _T:
    """`dataclasses.replace`: a new instance, `changes` over `obj`'s fields."""
    made = _made_fields(type(obj))
    if made is None:
        import dataclasses

        return dataclasses.replace(obj, **changes)  # type: ignore[type-var]
    for f in made.values():
        if not f.init:
            if f.name in changes:
                raise ValueError(
                    f"field {f.name} is declared with init=False, it cannot be specified with "
                    "replace()"
                )
            continue
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    made_again: _T = obj.__class__(**changes)
    return made_again


def _made_fields(cls: type[Any]) -> dict[str, Field] | None:
    """The fields of `cls` if this module made the dataclass it is (its own, or the
    nearest base's that is one); None when `@dataclass` itself made that one — a
    standard subclass of a class made here has fields of its own."""
    for klass in cls.__mro__:
        own = klass.__dict__
        if "__dataclass_fields__" in own:
            made: dict[str, Field] | None = own.get("__lazy_fields__")
            return made
    return None


class _StandardFields:
    """A made class's `__dataclass_fields__`: at the first read, the class's fields as
    `dataclasses.Field` objects (importing `dataclasses`), put on the class in its
    place — what `dataclasses.fields`, `asdict`, pydantic and orjson read."""

    __slots__ = ("owner",)

    def __init__(self, owner: type[Any]) -> None:
        self.owner = owner

    def __get__(self, instance: Any, cls: Any = None) -> dict[str, Any]:
        import dataclasses

        made: dict[str, Field] = self.owner.__dict__["__lazy_fields__"]
        standard: dict[str, Any] = {}
        for name, f in made.items():
            one: Any = dataclasses.field(
                default=dataclasses.MISSING if f.default is MISSING else f.default,
                default_factory=(
                    dataclasses.MISSING if f.default_factory is MISSING else f.default_factory
                ),
                init=f.init,
                repr=f.repr,
                hash=f.hash,
                compare=f.compare,
                metadata=f.metadata,
                kw_only=f.kw_only,
            )
            one.name = name
            one.type = f.type
            one._field_type = dataclasses._FIELD  # type: ignore[attr-defined]
            standard[name] = one
        type.__setattr__(self.owner, "__dataclass_fields__", standard)
        return standard


def _standard() -> Any:
    """`dataclasses` if this process has begun to import it (waiting for the import to
    end, as the `import` statement does), else None: only then can a value be one of
    its fields or markers."""
    if "dataclasses" not in sys.modules:
        return None
    import dataclasses

    return dataclasses


def _from_standard(declared: Any) -> Field | None:
    """A `dataclasses.Field` (a `dataclasses.field(...)` default, or a standard base's
    field) as this module's; None for anything else."""
    standard = _standard()
    if standard is None or not isinstance(declared, standard.Field):
        return None
    missing = standard.MISSING
    made = Field(
        MISSING if declared.default is missing else declared.default,
        MISSING if declared.default_factory is missing else declared.default_factory,
        declared.init,
        declared.repr,
        declared.hash,
        declared.compare,
        MISSING if declared.kw_only is missing else declared.kw_only,
        declared.metadata or None,
    )
    made.name = declared.name
    made.type = declared.type
    return made


class _Params:
    """What `__dataclass_params__` says of a `@dataclass` class, for code that reads it
    (a `@dataclass` subclass asks whether its base is frozen)."""

    __slots__ = ("eq", "frozen", "init", "kw_only", "match_args", "order", "repr", "slots")
    unsafe_hash = False
    weakref_slot = False

    def __init__(self, *, eq: bool, frozen: bool, kw_only: bool, order: bool, slots: bool):
        self.init = self.repr = self.match_args = True
        self.eq = eq
        self.frozen = frozen
        self.kw_only = kw_only
        self.order = order
        self.slots = slots


@overload
def dataclass(cls: type[_T], /) -> type[_T]: ...


@overload
def dataclass(
    *,
    frozen: bool = False,
    slots: bool = False,
    kw_only: bool = False,
    order: bool = False,
    eq: bool = True,
) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(field_specifiers=(field, Field))
def dataclass(
    cls: type[Any] | None = None,
    /,
    *,
    frozen: bool = False,
    slots: bool = False,
    kw_only: bool = False,
    order: bool = False,
    eq: bool = True,
) -> Any:
    """The class `dataclasses.dataclass` makes with these arguments (see the module's
    docstring for what differs: when code is compiled)."""

    def make(cls: type[Any]) -> type[Any]:
        return _make(cls, frozen=frozen, slots=slots, kw_only=kw_only, order=order, eq=eq)

    return make if cls is None else make(cls)


def _make(
    cls: type[Any], *, frozen: bool, slots: bool, kw_only: bool, order: bool, eq: bool
) -> type[Any]:
    fields = _fields_of(cls, kw_only)
    _check(cls, fields, frozen=frozen, order=order, eq=eq)
    own = cls.__dict__
    if slots:
        if "__slots__" in own:
            raise TypeError(f"{cls.__name__} already specifies __slots__")
        made = _with_slots(cls, fields)
    else:
        made = cls
        for f in fields.values():  # (the class attribute is the default, as @dataclass leaves it)
            if f.name in own:
                if f.default is _MISSING:
                    delattr(cls, f.name)
                else:
                    setattr(cls, f.name, f.default)
    listed = tuple(fields.values())
    added: dict[str, Any] = {
        "__lazy_fields__": fields,
        "__dataclass_fields__": _StandardFields(made),
        "__dataclass_params__": _Params(
            eq=eq, frozen=frozen, kw_only=kw_only, order=order, slots=slots
        ),
    }
    if "__match_args__" not in own:
        added["__match_args__"] = tuple(f.name for f in listed if f.init and not f.kw_only)
    if "__init__" not in own:  # (a class's own `__init__` stays, as @dataclass leaves it)
        added["__init__"] = _first_init(made, listed, frozen)
    key = _key_of(tuple(f.name for f in listed if f.compare))
    if "__repr__" not in own:
        added["__repr__"] = _repr_of(tuple(f.name for f in listed if f.repr))
    if eq:
        if "__eq__" not in own:
            added["__eq__"] = _eq_of(key)
        explicit_hash = own.get("__hash__", _MISSING)
        if explicit_hash is _MISSING or (explicit_hash is None and "__eq__" in own):
            # (@dataclass's rule: frozen and equal by value hashes by value; equal by
            # value and mutable cannot be hashed)
            hashed = _key_of(
                tuple(f.name for f in listed if (f.compare if f.hash is None else f.hash))
            )
            added["__hash__"] = _hash_of(hashed) if frozen else None
    if order:
        for name, compare in _ORDER.items():
            added[name] = _order_of(key, compare)
    if frozen:
        names = frozenset(fields)
        added["__setattr__"] = _frozen_setattr(made, names)
        added["__delattr__"] = _frozen_delattr(made, names)
        if slots:  # (copy and pickle set slots one by one: past the frozen __setattr__)
            if "__getstate__" not in own:
                added["__getstate__"] = _getstate_of(tuple(fields))
            if "__setstate__" not in own:
                added["__setstate__"] = _setstate_of(tuple(fields))
    for name, value in added.items():
        setattr(made, name, value)
    return made


def _fields_of(cls: type[Any], kw_only: bool) -> dict[str, Field]:
    """The fields, in `@dataclass`'s order: the bases' (nearest last), then the class's
    own annotations; a `field(...)` default declares the field's options."""
    fields: dict[str, Field] = {}
    standard = _standard()
    for base in reversed(cls.__mro__[1:]):
        inherited = base.__dict__.get("__lazy_fields__")
        if inherited is None and standard is not None and "__dataclass_fields__" in base.__dict__:
            inherited = {  # (a base made by `@dataclass` itself)
                kept.name: _from_standard(kept)
                for kept in base.__dict__["__dataclass_fields__"].values()
                if kept._field_type is standard._FIELD
            }
        if inherited:
            fields.update(inherited)
    after_marker = False
    annotations: dict[str, Any] = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 - unevaluated
    for name, annotation in annotations.items():
        spelt = annotation if isinstance(annotation, str) else ""
        if spelt in _KW_ONLY_NAMES or (standard is not None and annotation is standard.KW_ONLY):
            after_marker = True
            continue
        if _is_class_var(annotation) or (spelt and _spells_class_var(cls, spelt)):
            continue
        if spelt.startswith(("InitVar", "dataclasses.InitVar")) or (
            standard is not None and isinstance(annotation, standard.InitVar)
        ):
            raise TypeError(f"{cls.__name__}.{name}: InitVar fields are not supported")
        declared = getattr(cls, name, MISSING)  # (a base's attribute too, as @dataclass)
        if isinstance(declared, MemberDescriptorType):  # (a base's slot: no default)
            declared = MISSING
        if isinstance(declared, Field):
            f = declared
        else:
            converted = _from_standard(declared)
            f = converted if converted is not None else field(default=declared)
        if type(f.default).__hash__ is None:  # (@dataclass's test: shared by every instance)
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed:"
                " use default_factory"
            )
        f.name = name
        f.type = annotation
        if f.kw_only is MISSING:
            f.kw_only = kw_only or after_marker
        fields[name] = f
    return fields


def _spells_class_var(cls: type[Any], spelt: str) -> bool:
    """Whether a string annotation names `typing.ClassVar` in the class's module, as
    `@dataclass` resolves it: `ClassVar[...]`, `typing.ClassVar[...]`, or an alias of
    either — not any name that merely starts with the word."""
    module = sys.modules.get(cls.__module__)
    if module is None:
        return False
    space = vars(module)
    owner, _, name = spelt.split("[", 1)[0].strip().rpartition(".")
    if owner:
        held = space.get(owner.strip())
        space = vars(held) if isinstance(held, ModuleType) else {}
    return space.get(name.strip()) is typing.ClassVar


def _is_class_var(annotation: object) -> bool:
    origin = getattr(annotation, "__origin__", annotation)
    return getattr(origin, "_name", None) == "ClassVar"


def _check(
    cls: type[Any],
    fields: dict[str, Field],
    *,
    frozen: bool,
    order: bool,
    eq: bool,
) -> None:
    """What `@dataclass` refuses when it decorates (not when `__init__` first compiles:
    this `__init__` is compiled later, so a bad signature would surface far from here)."""
    dataclass_bases: list[Any] = [  # (read from the classes' own dicts: nothing is made)
        base for base in cls.__mro__[-1:0:-1] if "__dataclass_fields__" in base.__dict__
    ]
    if dataclass_bases:  # (@dataclass's rule: any frozen base makes the class frozen)
        any_frozen = any(base.__dataclass_params__.frozen for base in dataclass_bases)
        if any_frozen and not frozen:
            raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
        if frozen and not any_frozen:
            raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    annotations = cls.__dict__.get("__annotations__", {})  # noqa: RUF063 - unevaluated
    for name, value in cls.__dict__.items():
        if (isinstance(value, Field) or _from_standard(value)) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    for name in fields:
        if name == "self" or name.startswith("__"):
            raise TypeError(
                f"{cls.__name__}.{name}: a field's name may not be self or start with __"
            )
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    written = (*(_ORDER if order else ()), *(("__setattr__", "__delattr__") if frozen else ()))
    for name in written:  # (methods the class must not have of its own)
        if name in cls.__dict__:
            raise TypeError(f"Cannot overwrite attribute {name} in class {cls.__name__}")
    defaulted = False
    for f in fields.values():
        if not f.init or f.kw_only:
            continue
        if f.default is not _MISSING or f.default_factory is not _MISSING:
            defaulted = True
        elif defaulted:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")


def _with_slots(cls: type[Any], fields: dict[str, Field]) -> type[Any]:
    """A new class with the fields as `__slots__` (as `@dataclass(slots=True)` makes it:
    a class's slots cannot be added once it exists)."""
    inherited = {
        name
        for base in cls.__mro__[1:-1]
        for name in (
            (base.__dict__.get("__slots__", ()),)
            if isinstance(base.__dict__.get("__slots__", ()), str)
            else base.__dict__.get("__slots__", ())
        )
    }
    body = dict(cls.__dict__)
    body["__slots__"] = tuple(name for name in fields if name not in inherited)
    for name in fields:
        body.pop(name, None)  # (a default would clash with the slot of the same name)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    metaclass: Any = type(cls)
    made: type[Any] = metaclass(cls.__name__, cls.__bases__, body)
    made.__qualname__ = cls.__qualname__
    return made


def _first_init(
    cls: type[Any], fields: tuple[Field, ...], frozen: bool
) -> Callable[..., None]:
    """An `__init__` that compiles the real one, puts it on the class and runs it: a
    class no call of this process makes costs no compilation."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        real = _compiled_init(cls, fields, frozen)
        cls.__init__ = real
        real(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


def _compiled_init(
    cls: type[Any], fields: tuple[Field, ...], frozen: bool
) -> Callable[..., None]:
    """`__init__` as `@dataclass` writes it: each field a parameter (keyword-only after
    `*`), a factory run when its argument is left out, `__post_init__` last. A frozen
    class's fields are set past its `__setattr__` — through their slot's own setter
    where the field is a slot (a third faster than `object.__setattr__`, which looks the
    slot up by name each time). The names it reads besides the parameters start with
    `__`, which no field may (`_check`)."""
    names: dict[str, Any] = {"__set": object.__setattr__, "__FACTORY": _FACTORY}
    positional: list[str] = []
    keywords: list[str] = []
    lines: list[str] = []
    for number, f in enumerate(fields):
        if f.default_factory is not _MISSING:
            names[f"__factory{number}"] = f.default_factory
        elif f.default is not _MISSING:
            names[f"__default{number}"] = f.default
        if f.init:
            if f.default_factory is not _MISSING:
                parameter = f"{f.name}=__FACTORY"
                value = f"__factory{number}() if {f.name} is __FACTORY else {f.name}"
            elif f.default is not _MISSING:
                parameter = f"{f.name}=__default{number}"
                value = f.name
            else:
                parameter = value = f.name
            (keywords if f.kw_only else positional).append(parameter)
        elif f.default_factory is not _MISSING:
            value = f"__factory{number}()"
        elif f.default is not _MISSING:
            value = f"__default{number}"
        else:
            continue  # (left for `__post_init__` to set, as @dataclass leaves it)
        if not frozen:
            lines.append(f"self.{f.name} = {value}")
            continue
        slot = _slot_of(cls, f.name)
        if slot is None:
            lines.append(f"__set(self, {f.name!r}, {value})")
        else:
            names[f"__slot{number}"] = slot.__set__
            lines.append(f"__slot{number}(self, {value})")
    if hasattr(cls, "__post_init__"):
        lines.append("self.__post_init__()")
    signature = ", ".join(["self", *positional, *(["*", *keywords] if keywords else [])])
    body = "\n    ".join(lines) or "pass"
    exec(f"def __init__({signature}) -> None:\n    {body}\n", names)
    init: Callable[..., None] = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


def _slot_of(cls: type[Any], name: str) -> Any:
    """The slot `name` of `cls` (its own or a base's), None when it is no slot."""
    for klass in cls.__mro__:
        found = klass.__dict__.get(name, _MISSING)
        if found is not _MISSING:  # (a class attribute of None hides a base's slot too)
            return found if isinstance(found, MemberDescriptorType) else None
    return None


def _key_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The compared fields of an instance, as the tuple `@dataclass` compares."""
    if not names:
        return lambda self: ()
    if len(names) == 1:
        one = names[0]
        return lambda self: (getattr(self, one),)
    got: Callable[[Any], tuple[Any, ...]] = attrgetter(*names)
    return got


def _repr_of(names: tuple[str, ...]) -> Callable[[Any], str]:
    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({shown})"

    return __repr__


def _eq_of(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return key(self) == key(other)
        return NotImplemented

    return __eq__


def _hash_of(key: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(key(self))

    return __hash__


_ORDER: dict[str, Callable[[tuple[Any, ...], tuple[Any, ...]], bool]] = {
    "__lt__": lambda a, b: a < b,
    "__le__": lambda a, b: a <= b,
    "__gt__": lambda a, b: a > b,
    "__ge__": lambda a, b: a >= b,
}


def _order_of(
    key: Callable[[Any], tuple[Any, ...]],
    compare: Callable[[tuple[Any, ...], tuple[Any, ...]], bool],
) -> Callable[[Any, Any], Any]:
    def method(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return compare(key(self), key(other))
        return NotImplemented

    return method


def _frozen_setattr(cls: type[Any], names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _frozen_delattr(cls: type[Any], names: frozenset[str]) -> Callable[[Any, str], None]:
    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise _frozen_error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


def _frozen_error(message: str) -> Exception:
    """`dataclasses.FrozenInstanceError(message)`, importing `dataclasses` only for it:
    callers catch that class (an AttributeError)."""
    import dataclasses

    return dataclasses.FrozenInstanceError(message)


def _getstate_of(names: tuple[str, ...]) -> Callable[[Any], list[Any]]:
    def __getstate__(self: Any) -> list[Any]:
        return [getattr(self, name) for name in names]

    return __getstate__


def _setstate_of(names: tuple[str, ...]) -> Callable[[Any, list[Any]], None]:
    def __setstate__(self: Any, state: list[Any]) -> None:
        for name, value in zip(names, state, strict=True):
            object.__setattr__(self, name, value)

    return __setstate__
