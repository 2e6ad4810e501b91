"""The rule-pack format (apiVersion `hookpolicy/v1`, kind `RulePack`) as pydantic models.

Models are strict (a string where a list belongs is an error, not a one-item
list), forbid unknown keys, and remember where in the YAML file they came from:
`node.mark("when")` is the line:col of that field's value, so errors found later
(CEL, lint) point at the right place.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator, model_validator

from policy._yaml import PathKey, YamlDocument
from policy.builtins.config import BuiltinsConfig, Contract, check_grants, check_timeout
from policy.durations import parse_duration
from policy.pack_node import Node
from policy.packs.points import ACTION_POINTS, RESPOND_FIELDS, RULE_POINTS, SET_TARGETS, TO_ACTION

__all__ = [
    "ACTION_POINTS",
    "RESPOND_FIELDS",
    "RULE_POINTS",
    "SET_TARGETS",
    "TEST_PARTS",
    "Approve",
    "Expect",
    "Node",
    "PackTest",
    "PackTests",
    "Rule",
    "RulePack",
    "TestStep",
    "attach_sources",
    "detach_sources",
]

if TYPE_CHECKING:
    RulePoint = str
    RuleAction = str
else:
    # What `on:` and `action:` accept, read from the point table (policy.packs.points):
    # a Literal, so a wrong value is an error naming every valid one.
    RulePoint = Literal[RULE_POINTS]
    RuleAction = Literal[(*TO_ACTION, "log")]
# The point tables live in policy.packs.points (plain data the decision path reads);
# they are re-exported here, where the schema has always offered them.

Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
Name = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9_.-]*$", max_length=100)]
RuleId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", max_length=100)]
Pattern = Annotated[str, StringConstraints(min_length=1)]


class Expect(Node):
    """What a pack test expects of the decision (every field given must hold)."""

    action: (
        Literal["allow", "deny", "ask", "modify", "respond", "abort_turn", "hard_abort", "continue"]
        | None
    ) = None
    #: A rule id that must be among the decision's `rule_ids` (`id` of the pack under
    #: test, or `pack/id` of any loaded pack); `rules:` names several.
    rule: str | None = None
    rules: list[str] | None = None
    approval: bool | None = None
    #: The approver globs the call's gates name, all together (`[]`: anyone may approve).
    approvers: list[str] | None = None
    reason: str | None = None
    args: dict[str, Any] | None = None
    result: str | None = None  # text the final tool result (for_llm) must contain
    #: With `approve:` — whether the call may run once the approver answered.
    approved: bool | None = None


class Approve(Node):
    """An approver's scripted answer to the requests a call's gates file."""

    by: Annotated[str, StringConstraints(min_length=1)]
    approved: bool
    reason: str = ""


def _check_approve(on: str, approve: Approve | None, expect: Expect | None) -> None:
    if approve is not None and on != "before_tool":
        raise ValueError("approve: answers the gates of a before_tool call only")
    if expect is not None and expect.approved is not None and approve is None:
        raise ValueError("expect.approved needs `approve:` (the approver's answer)")


#: What a test may give a decision about, by the point's part names (policy.model.POINTS).
TEST_PARTS = ("call", "result", "request", "response", "prompt", "stop")


def _check_test_dir(value: str | None) -> str | None:
    if value is not None and not value.startswith(("/", "~")):
        raise ValueError("must be an absolute path")
    return value


def _check_wait(value: str | int | float | None) -> str | int | float | None:
    if value is not None:
        parse_duration(value)
    return value


def _check_now(value: Any) -> Any:
    # YAML reads an unquoted timestamp as a datetime already; a string is parsed. A
    # time without a zone is UTC, as the decision log's `ts` is.
    if isinstance(value, str):
        value = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    if isinstance(value, _dt.datetime) and value.tzinfo is None:
        value = value.replace(tzinfo=_dt.UTC)
    return value


class PriorCall(Node):
    """A call made before a test's own (`prior:`): decided, never checked — the budget
    the sender has already spent, the contract calls already used."""

    on: RulePoint = "before_tool"
    call: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    request: dict[str, Any] | None = None
    response: dict[str, Any] | None = None
    prompt: dict[str, Any] | None = None
    stop: dict[str, Any] | None = None
    repeat: int = Field(default=1, ge=1, le=10_000)


class TestStep(Node):
    """One step of a test's `sequence:`: a call (at any point) and what it must decide.

    `repeat: N` makes the same call N times, each expected to decide as `expect` says.
    `wait: 61s` moves the test's clock on before the step (a window resets)."""

    __test__ = False  # not a pytest class

    name: str | None = None
    wait: str | int | float | None = None
    on: RulePoint = "before_tool"
    call: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    request: dict[str, Any] | None = None
    response: dict[str, Any] | None = None
    prompt: dict[str, Any] | None = None
    stop: dict[str, Any] | None = None
    repeat: int = Field(default=1, ge=1, le=10_000)
    approve: Approve | None = None
    expect: Expect

    @field_validator("wait")
    @classmethod
    def _duration(cls, value: str | int | float | None) -> str | int | float | None:
        return _check_wait(value)

    @model_validator(mode="after")
    def _approval(self) -> TestStep:
        _check_approve(self.on, self.approve, self.expect)
        return self


class PackTest(Node):
    """One test case (run by `policy test`): one call and its `expect`, or a `sequence:`
    of steps run one after another in the same state (rate limits, contracts), with the
    context every step's call is made in."""

    __test__ = False

    name: Annotated[str, StringConstraints(min_length=1)]
    on: RulePoint = "before_tool"
    # The context of every call of the test, unless the call gives its own.
    sender: str | None = None
    session: str | None = None
    cwd: str | None = None
    #: The project the agent works in (as CLAUDE_PROJECT_DIR), and what `~` means.
    workspace: str | None = None
    home: str | None = None
    #: A contract attached to the test's session (default session `policy-test`).
    contract: Contract | None = None
    #: The time the test's calls are decided at (CEL `now`, rate-limit windows, contract
    #: expiry); `wait:` in a step moves it on. Unset: the time the test runs.
    now: _dt.datetime | None = None
    #: Calls made first, in the test's context, and not checked (budget already spent).
    prior: list[PriorCall] | None = None
    call: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    request: dict[str, Any] | None = None
    response: dict[str, Any] | None = None
    prompt: dict[str, Any] | None = None
    stop: dict[str, Any] | None = None
    approve: Approve | None = None
    expect: Expect | None = None
    sequence: list[TestStep] | None = None

    @field_validator("workspace", "home", "cwd")
    @classmethod
    def _absolute(cls, value: str | None) -> str | None:
        return _check_test_dir(value)

    @field_validator("now", mode="before")
    @classmethod
    def _timestamp(cls, value: Any) -> Any:
        return _check_now(value)

    @model_validator(mode="after")
    def _one_form(self) -> PackTest:
        given = [name for name in TEST_PARTS if getattr(self, name) is not None]
        if self.approve is not None:
            given.append("approve")
        if self.sequence is not None:
            if not self.sequence:
                raise ValueError("sequence: give at least one step")
            if given or self.expect is not None:
                extra = ", ".join([*given, *(["expect"] if self.expect is not None else [])])
                raise ValueError(
                    f"a test gives either one call and `expect:` or a `sequence:` of steps, "
                    f"not both (remove {extra}, or put it in a step)"
                )
        elif self.expect is None:
            raise ValueError("a test needs `expect:` (or a `sequence:` of steps, each with one)")
        _check_approve(self.on, self.approve, self.expect)
        return self


class PackTests(Node):
    """A `*_test.yaml` file: tests of one pack (`pack:`) or of packs together (`packs:`)."""

    __test__ = False

    api_version: Literal["hookpolicy/v1"] = Field(alias="apiVersion")
    kind: Literal["PackTests"]
    pack: Name | None = None
    packs: list[Name] | None = None
    tests: list[PackTest] = Field(min_length=1)

    @model_validator(mode="after")
    def _names_packs(self) -> PackTests:
        if (self.pack is None) == (self.packs is None):
            raise ValueError("name the packs under test: `pack: NAME` or `packs: [NAME, ...]`")
        if self.packs is not None and not self.packs:
            raise ValueError("packs: name at least one pack")
        return self

    @property
    def pack_names(self) -> list[str]:
        return [self.pack] if self.pack is not None else list(self.packs or [])


class Rule(Node):
    """One rule: filters, a CEL condition, and the action taken when it holds."""

    id: RuleId
    on: RulePoint = "before_tool"
    tools: list[Pattern] | None = None
    senders: list[Pattern] | None = None
    channels: list[Pattern] | None = None
    sessions: list[Pattern] | None = None
    when: str | None = None
    action: RuleAction
    message: str = ""
    message_expr: str | None = None
    set_: dict[str, str] | None = Field(default=None, alias="set")
    respond: dict[str, str] | None = None
    enforcement: Literal["enforce", "audit"] | None = None
    # Who decides an `ask` (or a `respond` held for approval), and for how long.
    approvers: list[Pattern] | None = None
    timeout: str | int | None = None
    grants: list[str] | None = None
    self_approval: bool | None = None

    @property
    def names_gate(self) -> bool:
        """Whether the rule says anything about who approves it."""
        return not (
            self.approvers is None
            and self.timeout is None
            and self.grants is None
            and self.self_approval is None
        )

    @field_validator("timeout")
    @classmethod
    def _timeout(cls, value: Any) -> Any:
        return check_timeout(value)

    @field_validator("grants")
    @classmethod
    def _grants(cls, value: list[str] | None) -> list[str] | None:
        return check_grants(value)

    @field_validator(
        "tools",
        "senders",
        "channels",
        "sessions",
        "when",
        "message_expr",
        "set_",
        "respond",
        "enforcement",
        "approvers",
        "grants",
        "timeout",
        mode="before",
    )
    @classmethod
    def _no_empty_values(cls, value: Any) -> Any:
        # `when:` with nothing after it is YAML null: an unconditional rule nobody
        # meant to write; `tools: []` a rule that never applies. Both are errors.
        if value is None:
            raise ValueError("empty value: give one, or remove the key")
        if isinstance(value, list | dict | str) and len(value) == 0:
            raise ValueError("empty value: give one, or remove the key")
        return value


class RulePack(Node):
    """A whole pack file."""

    api_version: Literal["hookpolicy/v1"] = Field(alias="apiVersion")
    kind: Literal["RulePack"]
    name: Name
    revision: str = ""
    priority: int = 100
    enforcement: Literal["enforce", "audit"] = "enforce"
    on_error: Literal["deny", "skip"] = "deny"
    variables: dict[Identifier, str] = Field(default_factory=dict)
    aliases: dict[Pattern, Pattern] = Field(default_factory=dict)
    builtins: BuiltinsConfig = Field(default_factory=BuiltinsConfig)
    rules: list[Rule] = Field(default_factory=list)
    tests: list[PackTest] = Field(default_factory=list)

    @field_validator("revision", mode="before")
    @classmethod
    def _revision_text(cls, value: Any) -> Any:
        # `revision: 2026-11-30` unquoted is a YAML date; it is meant as text.
        if isinstance(value, _dt.date | int) and not isinstance(value, bool):
            return value.isoformat() if isinstance(value, _dt.date) else str(value)
        return value


def attach_sources(pack: RulePack, doc: YamlDocument) -> None:
    """Tell every node of `pack` where it sits in `doc`."""

    def attach(node: Node, path: PathKey) -> None:
        node._doc = doc
        node._path = path
        for name, field in type(node).model_fields.items():
            key = field.alias or name
            value = getattr(node, name)
            if isinstance(value, Node):
                attach(value, (*path, key))
            elif isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, Node):
                        attach(item, (*path, key, index))
            elif isinstance(value, dict):
                for name_key, item in value.items():
                    if isinstance(item, Node):
                        attach(item, (*path, key, name_key))

    attach(pack, ())


def detach_sources(pack: RulePack) -> None:
    """Forget source positions once a pack has compiled (they are only needed for
    diagnostics); for 10,000 rules they hold tens of megabytes."""

    def detach(node: Node) -> None:
        node._doc = None
        for name in type(node).model_fields:
            value = getattr(node, name)
            if isinstance(value, Node):
                detach(value)
            elif isinstance(value, list | dict):
                for item in value.values() if isinstance(value, dict) else value:
                    if isinstance(item, Node):
                        detach(item)

    detach(pack)
