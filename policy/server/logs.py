"""The service's operational log: structlog, one line per event, on stderr.

JSON lines when stderr is not a terminal (a log pipeline reads them), key=value on a
terminal (a person reads them). Each request binds its id (`X-Request-Id`, ours or the
caller's) so every line it causes carries it. The decision log is another thing: the
engine's hash-chained file (or stdout), one line per decision, written by the engine.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

__all__ = ["configure", "get_logger", "listening_addresses"]


def configure(*, json_lines: bool | None = None, level: int = logging.INFO) -> None:
    """Set structlog up for this process (the service's only)."""
    if json_lines is None:
        json_lines = not sys.stderr.isatty()
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if json_lines
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    # JSON escapes what it must (and json.dumps all that is not ASCII); on a terminal,
    # text a caller chose (a path, a header) must not drive the reader's terminal.
    shown: list[Any] = [] if json_lines else [_visible_values]
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            *shown,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        # One write per line (print() writes the line and its newline apart, and a line
        # of another thread could land in between): every line stays whole JSON.
        logger_factory=structlog.WriteLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    # The engine and uvicorn log through the standard library: the same stream, through
    # structlog's renderer, so one service writes one format.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processor=renderer,
            foreign_pre_chain=[
                structlog.contextvars.merge_contextvars,
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                *shown,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("uvicorn.access").disabled = True  # our middleware logs requests


def _visible_values(_logger: Any, _name: str, event: Any) -> Any:
    """Every string value with its control and invisible characters escaped."""
    from policy._visible import visible

    for key, value in event.items():
        if isinstance(value, str):
            event[key] = visible(value)
        elif isinstance(value, tuple | list | dict):
            event[key] = visible(repr(value))
    return event


def get_logger(name: str = "policy.serve") -> Any:
    return structlog.get_logger(name)


def listening_addresses(line: str | bytes) -> list[str] | None:
    """The addresses a `listening` event names, if `line` is that event (JSON lines, or
    the plain line a terminal gets); None for any other line. For whatever starts the
    service and waits until it answers: the examples, the benchmarks, the tests."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    text = text.strip()
    if text.startswith("policy serve: listening on "):
        return text.split("listening on ", 1)[1].split(", ")
    if not text.startswith("{") or '"listening"' not in text:
        return None
    import json

    try:
        record = json.loads(text)
    except ValueError:
        return None
    if not isinstance(record, dict) or record.get("event") != "listening":
        return None
    addresses = record.get("addresses")
    return [str(a) for a in addresses] if isinstance(addresses, list) else None
