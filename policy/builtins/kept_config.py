"""A builtin's validated configuration, kept in the pack cache and read back without
pydantic.

A one-event hook answers from the pack cache; when a shipped pack configures a
builtin (`gate`'s rate limits and audit record), validating its `builtins:` section
again with the pydantic models of `config.py` imported pydantic on every tool call —
about a third of the hook's start (tests/bench/bench_cold_start.py --mount). So the
cache keeps what validation produced instead: `encode` writes a validated model as a
tree of JSON values that says which values are models, mappings and times, and
`decode` reads it back as `KeptConfig` objects, whose attributes are the model's
fields with the same values (lists, dicts, datetimes; the `runtime_seconds` and
`timeout_seconds` properties too). The builtins read a configuration only through its
attributes, so they take either (tests/test_kept_config.py compares the two, field by
field, for every section the shipped and example packs configure).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from typing import Any

from policy.durations import parse_duration

__all__ = ["KeptConfig", "decode", "encode"]


class KeptConfig:
    """A validated configuration model, as its fields' values (read only)."""

    __slots__ = ("_fields", "_model")

    def __init__(self, model: str, fields: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_model", model)
        object.__setattr__(self, "_fields", dict(fields))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._fields[name]
        except KeyError:
            raise AttributeError(f"{self._model} has no field {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{self._model} is read only")

    def __repr__(self) -> str:
        return f"{self._model}({self._fields!r})"


class _KeptContract(KeptConfig):
    """`config.Contract`, with its `runtime_seconds`."""

    __slots__ = ()

    @property
    def runtime_seconds(self) -> float | None:
        runtime = self._fields["max_runtime"]
        return None if runtime is None else parse_duration(runtime)


class _KeptApproval(KeptConfig):
    """`config.ApprovalConfig`, with its `timeout_seconds`."""

    __slots__ = ()

    @property
    def timeout_seconds(self) -> float | None:
        timeout = self._fields["timeout"]
        return None if timeout is None else parse_duration(timeout)


#: Model class name -> the class that reads it back (the rest: KeptConfig).
_KINDS: dict[str, type[KeptConfig]] = {"Contract": _KeptContract, "ApprovalConfig": _KeptApproval}


class Unkeepable(ValueError):
    """A value the encoding cannot hold (the pack is then not cached)."""


def encode(value: Any) -> Any:
    """A validated model (or a value inside one) as JSON values: a model as
    `{"o": [class name, {field: value}]}`, a mapping `{"m": {...}}`, a datetime
    `{"t": iso}`; scalars and lists as themselves."""
    from pydantic import BaseModel

    if isinstance(value, float) and not math.isfinite(value):
        # (JSON has no infinity or NaN: read back as null, it would mean "not set")
        raise Unkeepable("a number that is not finite in a builtin's configuration")
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if isinstance(value, BaseModel):
        fields = {name: encode(getattr(value, name)) for name in type(value).model_fields}
        return {"o": [type(value).__name__, fields]}
    if isinstance(value, list | tuple):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise Unkeepable("a mapping with keys that are not strings")
        return {"m": {k: encode(v) for k, v in value.items()}}
    if "datetime" in sys.modules:  # (a process that never imported it holds no datetime)
        import datetime

        if isinstance(value, datetime.datetime):
            return {"t": value.isoformat()}
    raise Unkeepable(f"a {type(value).__name__} in a builtin's configuration")


def decode(value: Any) -> Any:
    """What `encode` wrote, read back; ValueError/TypeError on anything else."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if isinstance(value, dict):
        ((tag, inner),) = value.items()
        if tag == "o":
            name, fields = inner
            if not isinstance(name, str) or not isinstance(fields, dict):
                raise TypeError("a kept model is [class name, fields]")
            kind = _KINDS.get(name, KeptConfig)
            return kind(name, {str(k): decode(v) for k, v in fields.items()})
        if tag == "m":
            if not isinstance(inner, dict):
                raise TypeError("a kept mapping is an object")
            return {str(k): decode(v) for k, v in inner.items()}
        if tag == "t":
            if not isinstance(inner, str):
                raise TypeError("a kept time is a string")
            import datetime  # (here: a kept time, rare; a start reads none)

            return datetime.datetime.fromisoformat(inner)
        raise ValueError(f"unknown tag {tag!r}")
    if value is None or isinstance(value, str | bool | int | float):
        return value
    raise TypeError(f"a {type(value).__name__} in a kept configuration")
