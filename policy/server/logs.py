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

__all__ = ["configure", "get_logger"]


def configure(*, json_lines: bool | None = None, level: int = logging.INFO) -> None:
    """Set structlog up for this process (the service's only)."""
    if json_lines is None:
        json_lines = not sys.stderr.isatty()
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if json_lines
        else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
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
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("uvicorn.access").disabled = True  # our middleware logs requests


def get_logger(name: str = "policy.serve") -> Any:
    return structlog.get_logger(name)
