"""Module loggers are `logging`'s own, looked up when something is first logged."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from policy._logger import logger


def test_a_deferred_logger_is_the_named_logger_of_logging(
    caplog: pytest.LogCaptureFixture,
) -> None:
    log = logger("policy.test-logger")
    with caplog.at_level(logging.INFO, logger="policy.test-logger"):
        log.info("decided %s", "ls")
        log.warning("hook %r failed", "x")
    assert [(r.name, r.levelname, r.getMessage()) for r in caplog.records] == [
        ("policy.test-logger", "INFO", "decided ls"),
        ("policy.test-logger", "WARNING", "hook 'x' failed"),
    ]
    assert log.isEnabledFor(logging.WARNING)
    assert log.name == logging.getLogger("policy.test-logger").name


def test_logging_is_imported_only_when_something_is_logged() -> None:
    program = (
        "import sys\n"
        "from policy._logger import logger\n"
        "log = logger('policy.x')\n"
        "assert 'logging' not in sys.modules, 'imported at once'\n"
        "log.warning('now')\n"
        "assert 'logging' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr == "now\n"  # logging's last-resort handler, as before
