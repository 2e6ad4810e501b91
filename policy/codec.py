"""Plain JSON objects <-> model values, for `policy eval`, tests and the HTTP API.

Input is checked field by field: an unknown field or a wrong type is an
InputError naming it (`call.args: expected an object, got list`), never a
silently dropped key. Host wire formats live in `policy.hosts`, not here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from policy.errors import InputError
from policy.model import (
    POINTS,
    Action,
    ApprovalDecision,
    ApprovalGate,
    Decision,
    Event,
    HookPoint,
    ToolCall,
)

__all__ = [
    "PART_TYPES",
    "approval_from_dict",
    "decision_from_dict",
    "from_dict",
    "gate_from_dict",
    "parts_from_json",
    "parts_to_json",
    "to_dict",
]

T = TypeVar("T")

_JSON_NAMES = {"async_": "async"}
_PY_NAMES = {v: k for k, v in _JSON_NAMES.items()}


def _type_name(value: Any) -> str:
    return {
        dict: "an object",
        list: "an array",
        str: "a string",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        type(None): "null",
    }.get(type(value), type(value).__name__)


#: What each JSON kind accepts, and how an error names it. A table of tests rather than
#: one dict of every test's answer: a call body has a dozen fields, each checked once.
_ACCEPTS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "str": (lambda v: isinstance(v, str), "a string"),
    "bool": (lambda v: isinstance(v, bool), "a boolean"),
    "number": (lambda v: isinstance(v, int | float) and not isinstance(v, bool), "a number"),
    "object": (lambda v: isinstance(v, Mapping), "an object"),
    "array": (lambda v: isinstance(v, list | tuple), "an array"),
    "strings": (
        lambda v: isinstance(v, list | tuple) and all(isinstance(i, str) for i in v),
        "an array of strings",
    ),
    "objects": (
        lambda v: isinstance(v, list | tuple) and all(isinstance(i, Mapping) for i in v),
        "an array of objects",
    ),
}


def _expect(kind: str, value: Any, where: str) -> None:
    accepts, wanted = _ACCEPTS[kind]
    if not accepts(value):
        raise InputError(f"{where}: expected {wanted}, got {_type_name(value)}")


#: The type of each part a point takes, by its wire name (PointSpec.parts).
PART_TYPES: Mapping[str, type[Any]] = {
    "call": ToolCall,
    **{spec.parts[-1]: spec.payload_type for spec in POINTS.values()},
}
#: The parts a Decision carries back (every part but the observers' event).
_PAYLOADS = {name: kind for name, kind in PART_TYPES.items() if name in Decision._fields}

#: The JSON kind each annotation of a payload's fields stands for.
_KINDS = {
    "str": "str",
    "bool": "bool",
    "float": "number",
    "Mapping[str, Any]": "object",
    "tuple[str, ...]": "strings",
    "tuple[Mapping[str, Any], ...]": "objects",
}


def _kind(cls: type[Any], field: dataclasses.Field[Any]) -> str:
    kind = _KINDS.get(str(field.type))
    if kind is None:
        raise TypeError(f"{cls.__name__}.{field.name}: no JSON kind for {field.type!r} (_KINDS)")
    return kind


#: The JSON kind of every field of what decisions are asked about, read from the payload
#: types themselves (an event, which only observers hear, is read apart).
_FIELD_KINDS: dict[str, str] = {
    field.name: _kind(cls, field)
    for cls in PART_TYPES.values()
    if cls is not Event
    for field in dataclasses.fields(cls)
}


class _Shape:
    """What `from_dict` and `to_dict` need of a model class, worked out once per class
    (`dataclasses.fields` builds its tuple on every call): its field names, those a
    body must give, the JSON kind of each it may give, and the defaults left out."""

    __slots__ = ("defaults", "kinds", "known", "names", "required")

    def __init__(self, cls: type[Any]) -> None:
        fields = dataclasses.fields(cls)
        self.names = tuple(f.name for f in fields)
        self.required = tuple(
            f.name
            for f in fields
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        )
        self.defaults = {f.name: f.default for f in fields if f.default is not dataclasses.MISSING}
        self.kinds = {n: _FIELD_KINDS[n] for n in self.names if n in _FIELD_KINDS}
        self.known = ", ".join(sorted(_JSON_NAMES.get(n, n) for n in self.kinds))


_SHAPES: dict[type[Any], _Shape] = {}


def _shape(cls: type[Any]) -> _Shape:
    found = _SHAPES.get(cls)
    if found is None:
        found = _SHAPES[cls] = _Shape(cls)
    return found


def from_dict(cls: type[T], data: Any, where: str = "input") -> T:
    """Build a ToolCall, ToolResult, LLMRequest, LLMResponse or Prompt from JSON data."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected an object, got {_type_name(data)}")
    shape = _shape(cls)
    kinds = shape.kinds
    values: dict[str, Any] = {}
    body: Mapping[str, Any] = data
    for key, value in body.items():
        name = _PY_NAMES.get(key, key)
        kind = kinds.get(name)
        if kind is None:
            raise InputError(f"{where}.{key}: unknown field (known: {shape.known})")
        if value is None:
            continue
        _expect(kind, value, f"{where}.{key}")
        values[name] = value
    for needed in shape.required:
        if needed not in values:
            raise InputError(f"{where}: missing required field {needed!r}")
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: {exc}") from None


def _jsonable(value: Any) -> Any:
    if isinstance(value, str | int | float | None):  # (most values: answered first)
        return value
    if isinstance(value, Decision) or (
        dataclasses.is_dataclass(value) and not isinstance(value, type)
    ):
        return to_dict(value)
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


_ALWAYS = frozenset({"action", "reason", "approved"})
_NEVER: frozenset[str] = frozenset()
_DECISION_DEFAULTS: dict[str, Any] = dict(Decision._field_defaults)


def to_dict(value: Any) -> dict[str, Any]:
    """A JSON-ready dict of a model value; fields at their defaults are left out,
    except the ones a reader always needs (a decision's action and reason)."""
    out: dict[str, Any] = {}
    always = _ALWAYS if isinstance(value, Decision | ApprovalDecision) else _NEVER
    names: tuple[str, ...]
    if isinstance(value, Decision):
        names = Decision._fields
        defaults = _DECISION_DEFAULTS
    else:
        shape = _shape(type(value))
        names, defaults = shape.names, shape.defaults
    for name in names:
        item = getattr(value, name)
        if name not in always and (
            item is None
            or item == defaults.get(name)
            or (isinstance(item, tuple | Mapping) and not item)
        ):
            continue
        out[_JSON_NAMES.get(name, name)] = _jsonable(item)
    return out


# ----------------------------------------------- answers back (the service's clients)

def parts_from_json(
    point: HookPoint,
    body: Any,
    where: str | None = None,
    each: Callable[[Any], Any] | None = None,
) -> tuple[Any, ...]:
    """What a decision at `point` is asked about, from JSON (PointSpec.parts, in order).

    A point with one part takes that part's object as the body (`/v1/decide/before_tool`
    gets the call); a point with several takes an object of them by name (`after_tool`:
    `{"call": ..., "result": ...}`). An event is `{kind, payload}`. `each`, when given,
    is applied to every part as soon as it is read, before the next one is (the service
    checks who a call is sent as before it reads a 64 MiB result).
    """
    spec = POINTS[point]
    where = where or point.value
    if not isinstance(body, Mapping):
        raise InputError(f"{where}: expected an object, got {_type_name(body)}")
    if point is HookPoint.EVENT:
        kind, payload = body.get("kind"), body.get("payload", {})
        if not isinstance(kind, str) or not kind or not isinstance(payload, dict):
            raise InputError("event: {kind: string, payload: object} expected")
        return (Event(kind=kind, payload=payload),)
    if len(spec.parts) > 1:
        extra = set(body) - set(spec.parts)
        if extra:
            raise InputError(f"{where}.{sorted(extra)[0]}: unknown field ({', '.join(spec.parts)})")
    parts = []
    for name in spec.parts:
        part = from_dict(PART_TYPES[name], body if len(spec.parts) == 1 else body.get(name), name)
        parts.append(part if each is None else each(part))
    return tuple(parts)


def parts_to_json(point: HookPoint, parts: tuple[Any, ...]) -> dict[str, Any]:
    """The JSON body `parts_from_json` reads back."""
    spec = POINTS[point]
    if point is HookPoint.EVENT:
        (event,) = parts
        return {"kind": event.kind, "payload": dict(event.payload)}
    if len(spec.parts) == 1:
        return to_dict(parts[0])
    return {name: to_dict(part) for name, part in zip(spec.parts, parts, strict=True)}


def _strings(data: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = data.get(key, ())
    _expect("strings", value, f"{where}.{key}")
    return tuple(value)


def gate_from_dict(data: Any, where: str = "gate") -> ApprovalGate:
    """An ApprovalGate from `to_dict`'s output (a client sends a decision's gates back)."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected an object, got {_type_name(data)}")
    known = {f.name for f in dataclasses.fields(ApprovalGate)}
    for key in data:
        if key not in known:
            raise InputError(f"{where}.{key}: unknown field (known: {', '.join(sorted(known))})")
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key in ("approvers", "grants"):
            values[key] = _strings(data, key, where)
        elif key in ("timeout",):
            if value is not None:
                _expect("number", value, f"{where}.{key}")
            values[key] = value
        elif key == "max_denials":
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
                raise InputError(f"{where}.{key}: expected an integer, got {_type_name(value)}")
            values[key] = value
        elif key in ("self_approval", "exempt_by_allow", "holds_respond"):
            _expect("bool", value, f"{where}.{key}")
            values[key] = value
        else:
            _expect("str", value, f"{where}.{key}")
            values[key] = value
    for required in ("source", "pack"):
        if required not in values:
            raise InputError(f"{where}: missing required field {required!r}")
    return ApprovalGate(**values)


def decision_from_dict(data: Any, where: str = "decision") -> Decision:
    """A Decision from `to_dict`'s output: what a client of `policy serve` reads back."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected an object, got {_type_name(data)}")
    values: dict[str, Any] = {}
    for key, value in data.items():
        at = f"{where}.{key}"
        if key not in Decision._fields:
            raise InputError(f"{at}: unknown field")
        if key in ("action", "would_action"):
            try:
                values[key] = Action(value)
            except ValueError:
                raise InputError(f"{at}: not an action: {value!r}") from None
        elif key in _PAYLOADS:
            values[key] = from_dict(_PAYLOADS[key], value, at)
        elif key in ("rule_ids", "ignored"):
            values[key] = _strings(data, key, where)
        elif key == "gates":
            _expect("objects", value, at)
            values[key] = tuple(gate_from_dict(g, f"{at}[{i}]") for i, g in enumerate(value))
        elif key in ("needs_approval", "allowed"):
            _expect("bool", value, at)
            values[key] = value
        else:
            _expect("str", value, at)
            values[key] = value
    if "action" not in values:
        raise InputError(f"{where}: missing required field 'action'")
    return Decision(**values)


def approval_from_dict(data: Any, where: str = "approval") -> ApprovalDecision:
    """An ApprovalDecision from `to_dict`'s output."""
    if not isinstance(data, Mapping):
        raise InputError(f"{where}: expected an object, got {_type_name(data)}")
    kinds = {
        "approved": "bool",
        "reason": "str",
        "hook": "str",
        "approver": "str",
        "waited_ms": "number",
        "decision_id": "str",
        "failure": "str",
    }
    for key, value in data.items():
        if key not in kinds:
            raise InputError(f"{where}.{key}: unknown field")
        if value is not None:
            _expect(kinds[key], value, f"{where}.{key}")
    if "approved" not in data:
        raise InputError(f"{where}: missing required field 'approved'")
    return ApprovalDecision(
        data["approved"],
        data.get("reason") or "",
        hook=data.get("hook"),
        approver=data.get("approver"),
        waited_ms=float(data.get("waited_ms") or 0.0),
        decision_id=data.get("decision_id") or "",
        failure=data.get("failure"),
    )
