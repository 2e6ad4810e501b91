"""Durations as configuration spells them (`500ms`, `60s`, `15m`, `1h`, `2d`).

Its own module, with nothing but `re` under it, because settings, packs, builtins,
approvals and the CLI all read durations: parsing "15m" must not import pydantic
or the builtins' configuration models.
"""

from __future__ import annotations

from policy.analysis._lazy_re import LazyPattern

__all__ = ["parse_duration"]

_DURATION = LazyPattern(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}


def parse_duration(text: str | int | float) -> float:
    """Seconds in `60s`, `15m`, `1h`, `2d`, `500ms` (a bare number is seconds)."""
    if isinstance(text, bool):
        raise ValueError("a duration, like 60s or 1h, not a bool")  # noqa: TRY004 - pydantic reports ValueError only
    if isinstance(text, int | float):
        seconds = float(text)
    else:
        match = _DURATION.match(text)
        if match is None:
            raise ValueError(f"{text!r} is not a duration (like 500ms, 60s, 15m, 1h, 2d)")
        seconds = float(match[1]) * _UNIT_SECONDS[match[2]]
    if seconds <= 0:
        raise ValueError("a duration must be positive")
    return seconds
