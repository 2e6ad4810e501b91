"""What a pack may write under `builtins:` (DESIGN §6), as strict pydantic models.

Validated with the rest of the pack, so `policy check` reports a wrong key or type
at its file:line:col; checks pydantic cannot express (a rate-limit string `limits`
cannot parse, a workspace that is not absolute) are made by the pack compiler,
at the same positions.
"""

from __future__ import annotations

import datetime as _dt
import re
from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator

from policy.builtins.priority import DEFAULT_PRIORITY
from policy.durations import parse_duration
from policy.pack_node import Node

__all__ = [
    "DEFAULT_PRIORITY",
    "ActionTool",
    "ApprovalConfig",
    "AuditHookConfig",
    "AutonomyConfig",
    "BuiltinsConfig",
    "Contract",
    "ContractScopeConfig",
    "RateLimit",
    "RespondGuardConfig",
    "Scope",
    "ShellConfig",
    "ToolPolicyConfig",
    "check_grants",
    "check_timeout",
    "parse_duration",
]

Pattern = Annotated[str, StringConstraints(min_length=1)]
ContractId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")]


def _one_or_many(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


class _Builtin(Node):
    priority: int | None = None


# ------------------------------------------------------------------ autonomy


class ShellConfig(Node):
    """Which shell commands may run: each simple command must match a pattern."""

    enabled: bool = True
    #: `git *` admits `git status`, never `git status && rm -rf /`; None admits any.
    allowed_commands: list[Pattern] | None = None
    #: Tools whose `command` argument is a shell command line.
    tools: list[Pattern] = Field(default_factory=lambda: ["bash"])


class ActionTool(Node):
    """A tool that mutates or not depending on one argument (`git` status vs push)."""

    arg: str = "action"
    readonly: list[str]


class AutonomyConfig(_Builtin):
    mode: Literal["readonly", "supervised", "full"] = "supervised"
    workspace: str | None = None
    workspace_only: bool = False
    forbidden_paths: list[Pattern] = Field(default_factory=list)
    shell: ShellConfig = Field(default_factory=ShellConfig)
    #: Added to the built-in list of mutating tools.
    mutating_tools: list[Pattern] = Field(default_factory=list)
    #: Taken off that list (a tool this deployment knows to be harmless).
    readonly_tools: list[Pattern] = Field(default_factory=list)
    #: Added to (or overriding) the built-in action-aware tools.
    action_tools: dict[str, ActionTool] = Field(default_factory=dict)
    #: In readonly mode, shell commands that count as reading (each simple command).
    readonly_commands: list[Pattern] | None = None
    #: Which arguments hold paths, per tool (canonical name); `*` is every tool.
    path_args: dict[str, list[str]] = Field(default_factory=dict)
    follow_symlinks: bool = True

    @field_validator("path_args", mode="before")
    @classmethod
    def _path_args(cls, value: Any) -> Any:
        # `path_args: {git: cwd}` names one argument; a list names several.
        if isinstance(value, dict):
            return {tool: _one_or_many(names) for tool, names in value.items()}
        return value


# ------------------------------------------------------------ contract_scope


class Scope(Node):
    tool: Pattern
    #: Globs the tool's paths must stay inside (after `..` and symlinks); None: any path.
    paths: list[Pattern] | None = None


class Contract(Node):
    """What one session may do: tools, where, how often, for how long."""

    id: ContractId
    sessions: list[Pattern] = Field(default_factory=list)
    tools: list[Pattern]
    scopes: list[Scope] = Field(default_factory=list)
    max_tool_calls: int | None = Field(default=None, gt=0)
    max_runtime: str | int | None = None
    expires_at: _dt.datetime | None = None

    @field_validator("max_runtime")
    @classmethod
    def _duration(cls, value: Any) -> Any:
        if value is not None:
            parse_duration(value)
        return value

    @field_validator("expires_at", mode="before")
    @classmethod
    def _timestamp(cls, value: Any) -> Any:
        # YAML reads an unquoted timestamp as a datetime already; a string is parsed.
        if isinstance(value, str):
            return _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
        return value

    @property
    def runtime_seconds(self) -> float | None:
        return None if self.max_runtime is None else parse_duration(self.max_runtime)


class ContractScopeConfig(_Builtin):
    contracts: list[Contract] = Field(default_factory=list)
    follow_symlinks: bool = True
    #: Which arguments hold paths, per tool, as in autonomy.
    path_args: dict[str, list[str]] = Field(default_factory=dict)

    _path_args = AutonomyConfig._path_args


# --------------------------------------------------------------- tool_policy


class RateLimit(Node):
    tools: list[Pattern]
    limit: Pattern  # "30/minute", "5 per second", "100/hour;1000/day"
    per_channel: bool = False

    @field_validator("tools", mode="before")
    @classmethod
    def _tools(cls, value: Any) -> Any:
        return _one_or_many(value)  # `tools: "sk_search_*"` as DESIGN writes it


class ToolPolicyConfig(_Builtin):
    applies_to: list[Pattern] = Field(default_factory=lambda: ["*"])
    #: None admits every governed tool; an empty list admits none (DESIGN §6.3).
    allow: list[Pattern] | None = None
    deny: list[Pattern] = Field(default_factory=list)
    rate_limits: list[RateLimit] = Field(default_factory=list)
    strategy: Literal["fixed-window", "moving-window", "sliding-window-counter"] = "moving-window"
    #: Whether a call the limiter refuses still uses up the budget.
    count_denied: bool = False


# ------------------------------------------------------------------ approval

_GRANT = re.compile(r"^(once|session|window(=\S+)?)$")


def check_timeout(value: Any) -> Any:
    """A gate's `timeout:` must be a duration (ValueError names what is wrong)."""
    if value is not None:
        parse_duration(value)
    return value


def check_grants(value: list[str] | None) -> list[str] | None:
    """A gate's `grants:` must each be once, session, window or window=DURATION."""
    for grant in value or ():
        if not _GRANT.match(grant):
            raise ValueError(f"{grant!r} is not a grant (once, session, window, window=15m)")
        if grant.startswith("window="):
            parse_duration(grant.split("=", 1)[1])
    return value


class ApprovalConfig(_Builtin):
    """Which calls wait for a person, who may answer, and for how long (DESIGN §6.4)."""

    tools: list[Pattern]
    #: A CEL condition over the call's facts, as a rule's `when:`; absent: every call
    #: on `tools`. An `allow` rule that matches the call exempts it either way.
    when: str | None = None
    #: How long a call waits; unanswered, it is denied. Default: approval_timeout_ms.
    timeout: str | int | None = None
    #: Identity globs of the people who may decide; empty: anyone.
    approvers: list[Pattern] = Field(default_factory=list)
    self_approval: bool = False
    #: What an approver may grant: once, session, window (window=15m caps the window).
    grants: list[str] = Field(default_factory=lambda: ["once"])
    #: After this many denials of the same call in a session, deny without asking.
    max_denials: int | None = Field(default=None, gt=0)

    @field_validator("timeout")
    @classmethod
    def _timeout(cls, value: Any) -> Any:
        return check_timeout(value)

    @field_validator("grants")
    @classmethod
    def _grants(cls, value: list[str]) -> list[str]:
        check_grants(value)
        return value

    @field_validator("when", mode="before")
    @classmethod
    def _no_empty_when(cls, value: Any) -> Any:
        if value is None or (isinstance(value, str) and not value.strip()):
            raise ValueError("empty value: give a condition, or remove the key")
        return value

    @property
    def timeout_seconds(self) -> float | None:
        return None if self.timeout is None else parse_duration(self.timeout)


# ------------------------------------------------------------- respond_guard


class RespondGuardConfig(Node):
    """What happens to a `respond`, which skips approval by design (DESIGN §3, §6.5).

    Not a hook (respond ends the chain): the engine hands it every respond.
    """

    #: flag: record a `respond_bypass` event and count it; deny: refuse the respond;
    #: approve: hold its result until a person approves the call.
    mode: Literal["flag", "deny", "approve"] = "flag"
    #: Hooks (`pack:cache`, `my-hook`) whose responds are only flagged.
    trusted: list[Pattern] = Field(default_factory=list)


# ---------------------------------------------------------------- audit_hook


AuditPoint = Literal["before_tool", "after_tool"]


def _both_points() -> list[AuditPoint]:
    return ["before_tool", "after_tool"]


class AuditHookConfig(_Builtin):
    #: Points recorded: a record per call (before_tool) and per result (after_tool).
    points: list[AuditPoint] = Field(default_factory=_both_points)


class BuiltinsConfig(Node):
    """The `builtins:` section of a pack."""

    autonomy: AutonomyConfig | None = None
    contract_scope: ContractScopeConfig | None = None
    tool_policy: ToolPolicyConfig | None = None
    audit_hook: AuditHookConfig | None = None
    approval: ApprovalConfig | None = None
    respond_guard: RespondGuardConfig | None = None
