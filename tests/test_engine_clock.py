"""An engine given a clock decides in that time: CEL's `now`, rate-limit windows and
contract expiry all read it, so `policy replay` can decide each logged call at its
record's `ts` and a pack test at its `now:`. Limits' own stores read the system clock,
so a clock with one of them is refused rather than silently ignored."""

from __future__ import annotations

import datetime as _dt
import io
import textwrap
from pathlib import Path

from policy import Engine
from policy.model import Action, ToolCall
from policy.settings import Settings

PACK = """
apiVersion: hookpolicy/v1
kind: RulePack
name: timed
builtins:
  tool_policy:
    applies_to: [web_fetch]
    rate_limits:
      - tools: [web_fetch]
        limit: 2/minute
  contract_scope:
    contracts:
      - id: docs-writer
        sessions: ["docs-*"]
        tools: [read_file]
        expires_at: 2026-12-31T00:00:00Z
rules:
  - id: no-bash-at-night
    tools: [bash]
    when: now.getHours() >= 22
    action: deny
    message: no bash at night
"""


def at(text: str) -> float:
    return _dt.datetime.fromisoformat(text).timestamp()


def engine(tmp_path: Path, clock: list[float], storage: str = "") -> Engine:
    pack = tmp_path / "timed.yaml"
    pack.write_text(textwrap.dedent(PACK).lstrip())
    settings = Settings(
        packs=[pack],
        data_dir=tmp_path / "data",
        audit_path=None,
        limits_storage_uri=storage or None,
    )
    return Engine(settings, audit_stream=io.StringIO(), clock=lambda: clock[0])


def test_cel_now_is_the_engines_clock(tmp_path: Path) -> None:
    clock = [at("2026-12-04T23:30:00+00:00")]
    with engine(tmp_path, clock) as e:
        assert e.before_tool(ToolCall(tool="bash", args={"command": "ls"})).action is Action.DENY_TOOL
        clock[0] = at("2026-12-05T09:00:00+00:00")
        assert e.before_tool(ToolCall(tool="bash", args={"command": "ls"})).action is Action.CONTINUE


def test_rate_limit_windows_count_in_the_engines_clock(tmp_path: Path) -> None:
    clock = [at("2026-12-04T12:00:00+00:00")]
    fetch = ToolCall(tool="web_fetch", args={"url": "https://example.com"}, sender="alice")
    with engine(tmp_path, clock) as e:
        assert [e.before_tool(fetch).action for _ in range(3)] == [
            Action.CONTINUE,
            Action.CONTINUE,
            Action.DENY_TOOL,
        ]
        clock[0] += 61  # no real second passed; the window did
        assert e.before_tool(fetch).action is Action.CONTINUE


def test_a_contract_expires_in_the_engines_clock(tmp_path: Path) -> None:
    read = ToolCall(tool="read_file", args={"path": "README.md"}, session="docs-1", cwd="/srv")
    clock = [at("2026-12-30T23:59:00+00:00")]
    with engine(tmp_path, clock) as e:
        assert e.before_tool(read).action is Action.CONTINUE
        clock[0] = at("2026-12-31T00:00:01+00:00")
        refused = e.before_tool(read)
    assert refused.action is Action.DENY_TOOL
    assert "expired" in refused.reason


def test_a_clock_with_a_store_that_reads_the_system_clock_refuses(tmp_path: Path) -> None:
    clock = [at("2026-12-04T12:00:00+00:00")]
    fetch = ToolCall(tool="web_fetch", args={"url": "https://example.com"}, sender="alice")
    with engine(tmp_path, clock, storage="memory://") as e:
        refused = e.before_tool(fetch)
    assert refused.action is Action.DENY_TOOL
    assert "cannot count in a given clock" in refused.reason
