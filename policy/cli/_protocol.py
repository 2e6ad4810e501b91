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

__all__ = ["encode_line", "engine_for_protocol"]


def encode_line(message: Any) -> bytes:
    """`message` as one JSON line; the stdlib's ASCII escapes when orjson refuses it."""
    try:
        return orjson.dumps(message) + b"\n"
    except (orjson.JSONEncodeError, TypeError):
        return json.dumps(message, ensure_ascii=True, default=str).encode() + b"\n"


def engine_for_protocol(settings: Any) -> Any:
    """An Engine on `settings` whose decision log, when not in a file, goes to stderr."""
    from policy.engine import Engine

    if settings.audit_path is None:
        return Engine(settings, audit_stream=sys.stderr)
    return Engine(settings)
