"""The call's facts as CEL message types, for the checker only.

cel-expr-python checks field names of message types (from a protobuf descriptor
pool) and not of maps, so `policy check` declares `Command` and `Access` as
messages built here from the fact classes themselves (one list of fields, never a
second copy to keep in step). At run time the facts stay plain maps: both CEL
engines take them without protobuf, and a one-event hook never imports it.
"""

from __future__ import annotations

import functools
from typing import Any

from policy import _lazy_dataclass

__all__ = ["ACCESS", "COMMAND", "descriptor_pool"]

COMMAND = "hookpolicy.facts.Command"
ACCESS = "hookpolicy.facts.Access"

_SCALARS = {"str": "TYPE_STRING", "bool": "TYPE_BOOL"}


def _fields(cls: type) -> list[tuple[str, str, bool]]:
    """(name, protobuf type, repeated) for each field a class puts in its CEL map."""
    out: list[tuple[str, str, bool]] = []
    for item in _lazy_dataclass.fields(cls):
        kind = str(item.type)
        if kind.startswith("tuple[str"):
            out.append((item.name, "TYPE_STRING", True))
        elif kind in _SCALARS:
            out.append((item.name, _SCALARS[kind], False))
    return out


@functools.lru_cache(maxsize=1)
def descriptor_pool() -> Any:
    from google.protobuf import descriptor_pb2, descriptor_pool

    from policy.analysis.access import Access
    from policy.analysis.effects import Command

    proto = descriptor_pb2.FileDescriptorProto(
        name="hookpolicy/facts.proto", package="hookpolicy.facts", syntax="proto3"
    )
    label = descriptor_pb2.FieldDescriptorProto
    for message, fields in (("Command", _fields(Command)), ("Access", _fields(Access))):
        built = proto.message_type.add(name=message)
        for number, (name, kind, repeated) in enumerate(fields, 1):
            built.field.add(
                name=name,
                number=number,
                type=getattr(label, kind),
                label=label.LABEL_REPEATED if repeated else label.LABEL_OPTIONAL,
            )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return pool
