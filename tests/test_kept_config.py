"""The builtins' configurations, kept in the pack cache and read back without pydantic.

A one-event hook answers from the pack cache; the shipped `gate` pack configures
builtins, and validating them again imported pydantic at every tool call (a third of
the start). The cache now keeps what validation produced. What a user relies on: the
builtins built from the cache see exactly what they see after a fresh compile, and
the hook's start on the shipped packs imports no pydantic.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from policy.builtins.config import BuiltinsConfig
from policy.builtins.kept_config import KeptConfig, Unkeepable, decode, encode

ROOT = Path(__file__).resolve().parent.parent
HOOK = (sys.executable, "-X", "importtime", "-m", "policy", "hook", "claude")

#: Every field of every builtin, with values unlike the defaults.
EVERYTHING: dict[str, Any] = {
    "autonomy": {
        "mode": "readonly",
        "workspace": "~/project",
        "workspace_only": True,
        "forbidden_paths": ["~/.ssh/**"],
        "shell": {"enabled": True, "allowed_commands": ["git *"], "tools": ["bash", "exec"]},
        "mutating_tools": ["deploy"],
        "readonly_tools": ["lint"],
        "action_tools": {"jira": {"arg": "op", "readonly": ["get"]}},
        "readonly_commands": ["ls *"],
        "path_args": {"git": "cwd", "*": ["path", "dir"]},
        "follow_symlinks": False,
        "priority": 5,
    },
    "contract_scope": {
        "contracts": [
            {
                "id": "ticket-42",
                "sessions": ["s-*"],
                "tools": ["read_file", "bash"],
                "scopes": [{"tool": "read_file", "paths": ["/srv/app/**"]}, {"tool": "bash"}],
                "max_tool_calls": 40,
                "max_runtime": "30m",
                "expires_at": dt.datetime(2027, 1, 31, 12, 0, tzinfo=dt.UTC),
            }
        ],
        "follow_symlinks": True,
        "path_args": {"bash": ["cwd"]},
    },
    "tool_policy": {
        "applies_to": ["web_*"],
        "allow": ["web_fetch"],
        "deny": ["web_post"],
        "rate_limits": [{"tools": "web_fetch", "limit": "30/minute", "per_channel": True}],
        "strategy": "fixed-window",
        "count_denied": True,
    },
    "audit_hook": {"points": ["after_tool"]},
    "approval": {
        "tools": ["deploy"],
        "when": 'args.env == "prod"',
        "timeout": "5m",
        "approvers": ["group:sre"],
        "self_approval": True,
        "grants": ["once", "window=15m"],
        "max_denials": 3,
    },
    "respond_guard": {"mode": "deny", "trusted": ["pack:cache"]},
}


def same(model: Any, kept: Any, where: str = "builtins") -> None:
    """`kept` reads, attribute by attribute, as `model` does (deeply)."""
    from pydantic import BaseModel

    if isinstance(model, BaseModel):
        assert isinstance(kept, KeptConfig), where
        for name in type(model).model_fields:
            same(getattr(model, name), getattr(kept, name), f"{where}.{name}")
    elif isinstance(model, list):
        assert type(kept) is list and len(kept) == len(model), where
        for i, (a, b) in enumerate(zip(model, kept, strict=True)):
            same(a, b, f"{where}[{i}]")
    elif isinstance(model, dict):
        assert type(kept) is dict and list(kept) == list(model), where
        for key in model:
            same(model[key], kept[key], f"{where}.{key}")
    else:
        assert type(kept) is type(model) and kept == model, where


def kept(model: BuiltinsConfig) -> Any:
    return decode(orjson.loads(orjson.dumps(encode(model))))  # through JSON, as cached


def test_every_field_of_every_builtin_reads_back_as_validated() -> None:
    model = BuiltinsConfig.model_validate(EVERYTHING)
    back = kept(model)
    same(model, back)
    contract = back.contract_scope.contracts[0]
    assert contract.runtime_seconds == model.contract_scope.contracts[0].runtime_seconds == 1800
    assert back.approval.timeout_seconds == 300


@pytest.mark.parametrize(
    "pack", [ROOT / "rules" / "gate.yaml", ROOT / "tests" / "packs" / "team" / "team.yaml"]
)
def test_the_packs_builtins_read_back_as_validated(pack: Path) -> None:
    section = yaml.safe_load(pack.read_text())["builtins"]
    model = BuiltinsConfig.model_validate(section)
    same(model, kept(model))


def test_a_kept_configuration_is_read_only_and_names_a_missing_field() -> None:
    back = kept(BuiltinsConfig.model_validate({"audit_hook": {}}))
    with pytest.raises(AttributeError, match="read only"):
        back.audit_hook.points = []
    with pytest.raises(AttributeError, match="AuditHookConfig has no field 'pionts'"):
        _ = back.audit_hook.pionts


def test_what_is_not_a_kept_configuration_is_refused() -> None:
    for bad in ({"x": 1}, {"o": "not a pair"}, {"o": [1, {}]}, {"t": 5}, {"m": []}):
        with pytest.raises((ValueError, TypeError)):
            decode(bad)
    with pytest.raises(Unkeepable):
        encode({1: "a mapping with a number for a key"})
    # (JSON has no infinity or NaN: written, either would read back as null, "not set")
    for number in (float("inf"), float("-inf"), float("nan")):
        with pytest.raises(Unkeepable, match="not finite"):
            encode({"timeout": number})
    assert encode(1.5) == 1.5


def test_the_hook_on_the_shipped_packs_answers_from_the_cache_without_pydantic(
    tmp_path: Path,
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # no POLICY_* variable: nothing to validate
    payload = json.dumps(
        {
            "hook_event_name": "PreToolUse",
            "tool_name": "WebFetch",  # governed by gate's tool_policy: the builtin decides
            "tool_input": {"url": "https://example.com", "prompt": "read"},
            "cwd": str(tmp_path),
            "session_id": "s1",
        }
    )
    runs = []
    for _ in range(2):
        done = subprocess.run(
            [*HOOK, "--packs", str(ROOT / "rules")],
            input=payload,
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        imported = {
            line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line
        }
        records = [json.loads(line) for line in done.stderr.splitlines() if '"event"' in line]
        # (the log goes to stderr here: the call's decision is its record; the shipped
        # gate's audit_hook records results only, rules/gate.yaml)
        assert [(r["event"], r["tool"]) for r in records] == [("decision", "web_fetch")]
        runs.append((done.stdout, imported))
    (first, compiled), (second, from_cache) = runs
    assert first == second
    assert "pydantic" in compiled  # the first start validates the packs
    assert "policy.builtins.tool_policy" in from_cache  # the builtin was built ...
    assert "pydantic" not in from_cache  # ... from what the cache kept
