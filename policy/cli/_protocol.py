"""What the hook commands share: stdout is the host's protocol, and nothing else.

An answer that cannot be written is as bad as no answer — every host here treats
silence or garbage as "no objection" — so encoding never fails (orjson refuses lone
surrogates and integers past 64 bits that the stdlib writes), and the decision log
never goes to stdout, whatever `audit_stream` says.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import orjson

from policy.errors import PolicyError

__all__ = ["NoPolicyError", "encode_line", "engine_for_protocol"]


def encode_line(message: Any) -> bytes:
    """`message` as one JSON line; the stdlib's ASCII escapes when orjson refuses it."""
    try:
        return orjson.dumps(message) + b"\n"
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(message, ensure_ascii=True, default=str).encode() + b"\n"


class NoPolicyError(PolicyError):
    """A hook command was started with nothing to enforce."""


def engine_for_protocol(settings: Any) -> Any:
    """An Engine on `settings` whose decision log, when not in a file, goes to stderr.

    A hook that enforces no policy — no packs, an empty pack directory, packs with no
    rule and no builtin — would answer every call with "no objection", which every host
    takes as leave to run it; it is refused instead (NoPolicyError), and each adapter
    turns that into the refusal of every call, naming why."""
    from policy.engine import Engine

    if settings.audit_path is None:
        engine = Engine(settings, audit_stream=sys.stderr)
    else:
        engine = Engine(settings)
    if engine.no_policy:
        engine.close()
        raise NoPolicyError(f"no policy to enforce: {engine.no_policy}")
    return engine
