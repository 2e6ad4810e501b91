"""Tool policy: allow/deny globs and rate limits per sender per tool (DESIGN §6.3).

The rate limits run against `memory://` and against a real `redis-server` that
the tests start on a free loopback port, where two engines share one budget.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from policy import Action, Engine, ToolCall
from tests.conftest import BuiltinsEngine, free_port

HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\nname: sk\n"

Make = Callable[..., Engine]


@pytest.fixture
def make(builtins_engine: BuiltinsEngine) -> Make:
    return lambda builtins, **settings: builtins_engine("sk", builtins, **settings)


def sk(tool: str, sender: str = "alice", channel: str = "cli") -> ToolCall:
    return ToolCall(tool=tool, args={"q": "x"}, sender=sender, channel=channel)


GLOBS = """
tool_policy:
  applies_to: ["sk_*", "semantic_kernel"]
  allow: ["sk_*", "semantic_kernel"]
  deny: ["sk_delete_*"]
"""


def test_deny_wins_and_ungoverned_tools_pass(make: Make) -> None:
    engine = make(GLOBS)
    assert engine.before_tool(sk("sk_search")).action is Action.CONTINUE
    denied = engine.before_tool(sk("sk_delete_all"))
    assert denied.action is Action.DENY_TOOL
    assert denied.reason == "tool 'sk_delete_all' is denied by tool_policy"
    assert denied.rule_ids == ("sk/tool_policy",)
    assert engine.before_tool(sk("bash")).action is Action.CONTINUE  # not governed


def test_a_governed_tool_no_allow_glob_matches_is_denied(make: Make) -> None:
    engine = make(
        """
        tool_policy: {applies_to: ["sk_*"], allow: ["sk_read_*"]}
        """
    )
    assert engine.before_tool(sk("sk_read_doc")).action is Action.CONTINUE
    decision = engine.before_tool(sk("sk_write_doc"))
    assert decision.reason == "tool 'sk_write_doc' is not in tool_policy's allow list"


def test_an_empty_allow_list_denies_every_governed_tool(make: Make) -> None:
    engine = make("tool_policy: {applies_to: ['sk_*'], allow: []}\n")
    assert engine.before_tool(sk("sk_search")).blocked
    assert not engine.before_tool(sk("bash")).blocked


def test_globs_match_every_spelling_of_a_tool(make: Make) -> None:
    engine = make("tool_policy: {applies_to: ['Bash'], deny: ['shell']}\n")
    for spelling in ("Bash", "bash", "exec", "run_shell_command"):
        assert engine.before_tool(ToolCall(tool=spelling, args={"command": "ls"})).blocked


RATE = """
tool_policy:
  applies_to: ["sk_*"]
  rate_limits:
    - {tools: "sk_search_*", limit: "3/minute"}
  strategy: {strategy}
"""


@pytest.mark.parametrize("strategy", ["moving-window", "fixed-window", "sliding-window-counter"])
def test_three_a_minute_admits_three_and_denies_the_fourth_for_that_sender_and_tool(
    make: Make, strategy: str
) -> None:
    engine = make(RATE.replace("{strategy}", strategy))
    for _ in range(3):
        assert engine.before_tool(sk("sk_search_web")).action is Action.CONTINUE
    fourth = engine.before_tool(sk("sk_search_web"))
    assert fourth.action is Action.DENY_TOOL
    assert fourth.reason.startswith(
        "rate limit 3/minute for sender 'alice' on tool 'sk_search_web' exceeded; resets in "
    )
    wait = int(fourth.reason.rsplit(" ", 2)[1])
    assert 0 <= wait <= 60
    # Another sender, another tool, a tool no limit names: each has its own budget.
    assert engine.before_tool(sk("sk_search_web", sender="bob")).action is Action.CONTINUE
    assert engine.before_tool(sk("sk_search_docs")).action is Action.CONTINUE
    assert engine.before_tool(sk("sk_other")).action is Action.CONTINUE


def test_refused_calls_do_not_use_up_the_budget_unless_asked(make: Make) -> None:
    engine = make(RATE.replace("{strategy}", "fixed-window"))
    limiter = engine._chain.snapshot.ordered[0].hook._limiter
    for _ in range(10):
        engine.before_tool(sk("sk_search_web"))
    from limits import parse

    stats = limiter.get_window_stats(parse("3/minute"), "hookpolicy/sk", "alice", "sk_search_web")
    assert stats.remaining == 0
    counted = make(RATE.replace("{strategy}", "fixed-window") + "  count_denied: true\n")
    assert counted.before_tool(sk("sk_search_web", sender="carol")).action is Action.CONTINUE


def test_per_channel_limits_key_on_the_channel_too(make: Make) -> None:
    engine = make(
        """
        tool_policy:
          rate_limits: [{tools: [sk_chat], limit: "1/minute", per_channel: true}]
        """
    )
    assert not engine.before_tool(sk("sk_chat", channel="slack")).blocked
    assert not engine.before_tool(sk("sk_chat", channel="cli")).blocked
    second = engine.before_tool(sk("sk_chat", channel="slack"))
    assert second.blocked
    assert "in channel 'slack'" in second.reason


def test_several_limits_in_one_string_all_apply(make: Make) -> None:
    engine = make("tool_policy:\n  rate_limits: [{tools: sk_x, limit: '5/minute;2/second'}]\n")
    assert [engine.before_tool(sk("sk_x")).blocked for _ in range(3)] == [False, False, True]


# ------------------------------------------------------------------ redis


@pytest.mark.parametrize("strategy", ["moving-window", "fixed-window", "sliding-window-counter"])
def test_two_engines_share_one_budget_through_redis(
    make: Make, redis_uri: str, strategy: str
) -> None:
    builtins = RATE.replace("{strategy}", strategy)
    first = make(builtins, limits_storage_uri=redis_uri)
    second = make(builtins, limits_storage_uri=redis_uri)
    assert not first.before_tool(sk("sk_search_web")).blocked
    assert not second.before_tool(sk("sk_search_web")).blocked
    assert not first.before_tool(sk("sk_search_web")).blocked
    fourth = second.before_tool(sk("sk_search_web"))
    assert fourth.blocked
    assert "rate limit 3/minute" in fourth.reason
    assert not first.before_tool(sk("sk_search_web", sender="bob")).blocked


def test_an_unreachable_redis_denies_the_calls_it_governs(make: Make) -> None:
    """Fail closed: no counter, no call; the engine keeps deciding other calls."""
    engine = make(
        RATE.replace("{strategy}", "moving-window"),
        limits_storage_uri=f"redis://127.0.0.1:{free_port()}",
    )
    decision = engine.before_tool(sk("sk_search_web"))
    assert decision.action is Action.DENY_TOOL
    assert decision.reason.startswith("hook 'builtin:sk/tool_policy' failed: ")
    assert decision.failure == "error"
    assert not engine.before_tool(sk("bash")).blocked


def test_an_unknown_storage_scheme_is_a_settings_error(make: Make) -> None:
    from policy.errors import SettingsError

    with pytest.raises(SettingsError, match="limits_storage_uri"):
        make(RATE.replace("{strategy}", "moving-window"), limits_storage_uri="bogus://x")
