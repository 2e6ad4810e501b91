"""Running test suites: one engine per suite, every test in a state of its own.

Above the engine (it builds one), hence not inside `policy.packs`, which the engine
loads. Each test runs as its own principal (`policy.facts.Caller`), so the rate-limit
budgets and contract usage its calls spend are its own: a sequence that exhausts a
3/minute limit leaves the next test a full budget, and no test touches the user's
shared state file. A test's `workspace` and `home` are the caller's project and home
(what `~` means), as `policy serve` decides for a hook of another user.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import io
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policy._lazy_dataclass import dataclass, replace
from policy.codec import PART_TYPES, from_dict
from policy.durations import parse_duration
from policy.errors import InputError
from policy.model import POINTS, Decision
from policy.pack_tests.suite import Collection, Suite
from policy.pack_tests.verdict import verdict
from policy.packs.load import rule_locations
from policy.packs.schema import TEST_PARTS

if TYPE_CHECKING:
    from policy.engine import Engine
    from policy.packs.schema import Approve, Expect, PackTest, PriorCall, TestStep

__all__ = [
    "StepOutcome",
    "TestOutcome",
    "rule_locations",
    "run_collection",
    "run_pack_tests",
    "run_suite",
]

#: The session a test's contract is attached to when the test names none.
DEFAULT_SESSION = "policy-test"
#: The interceptor budget while tests run: ten minutes, no deadline in practice. Tests
#: judge what a rule decides, not how fast: a loaded CI machine running the pure-Python
#: engine must not turn a slow decision into a timeout's denial and a failed test.
_NO_DEADLINE_MS = 600_000
#: The call fields a test's context fills in (when the call gives none of its own).
_CONTEXT = ("sender", "session", "cwd")


@dataclass(frozen=True, slots=True)
class StepOutcome:
    """One call of a test: what it decided and what differed from `expect`."""

    index: int  # 1-based, counting each repeat
    name: str
    decision: Decision | None
    problems: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TestOutcome:
    """One test: passed or not, why not, and the decisions its calls got."""

    __test__ = False  # not a pytest class

    pack: str
    name: str
    line: int
    passed: bool
    problems: tuple[str, ...]
    #: The decision of the last call made (the failing one when the test failed).
    decision: Decision | None
    path: str = ""
    steps: tuple[StepOutcome, ...] = ()
    #: The rule that decided the failing call (its first rule id), and its file:line.
    decided_by: str = ""
    decided_at: str = ""
    seconds: float = 0.0

    @property
    def decisions(self) -> tuple[Decision, ...]:
        return tuple(s.decision for s in self.steps if s.decision is not None)


class TestClock:
    """The time a suite's engine decides in: a test's `now:` (moved on by `wait:`), or
    the system clock for tests that give none."""

    __test__ = False  # not a pytest class

    def __init__(self) -> None:
        self.at: float | None = None

    def __call__(self) -> float:
        return self.at if self.at is not None else time.time()

    def start(self, now: _dt.datetime | None) -> None:
        self.at = None if now is None else now.timestamp()

    def wait(self, seconds: float) -> None:
        self.at = (self.at if self.at is not None else time.time()) + seconds


@contextmanager
def _engine(
    files: Sequence[Path], cel_engine: str, aliases: Mapping[str, str], clock: TestClock
) -> Iterator[Engine]:
    """An engine of `files` whose counters live in a state file of this run only (a
    SQLite store, the one that counts in a given clock), never the user's."""
    from policy.engine import Engine
    from policy.settings import Settings

    with tempfile.TemporaryDirectory(prefix="policy-test-") as scratch:
        settings = Settings(
            packs=list(files),
            cel_engine=cel_engine,
            aliases=dict(aliases),
            data_dir=Path(scratch),
            limits_storage_uri=f"sqlite:///{scratch}/state.db",
            approvals_store="memory://",  # answers scripted by `approve:` stay in this run
            interceptor_timeout_ms=_NO_DEADLINE_MS,
            audit_path=None,  # the decision log goes to the stream below, never a file
            audit_capture_dir=None,  # nor the user's capture: test calls are not traffic
            audit_capture_args=False,
        )
        with Engine(settings, audit_stream=io.StringIO(), clock=clock) as engine:
            yield engine


def _parts(step: PackTest | TestStep | PriorCall, context: Mapping[str, str]) -> list[Any]:
    spec = POINTS[step.on]
    given = [name for name in TEST_PARTS if getattr(step, name) is not None]
    extra = [name for name in given if name not in spec.parts]
    if extra:
        raise InputError(
            f"a call on {step.on} takes {', '.join(spec.parts)}, not {', '.join(extra)}"
        )
    parts = []
    for name in spec.parts:
        data = getattr(step, name)
        if data is None:
            raise InputError(f"a call on {step.on} needs `{name}:`")
        kind = PART_TYPES[name]
        fields = {f.name for f in dataclasses.fields(kind)}
        filled = dict(data)
        for key, value in context.items():
            if key in fields:
                filled.setdefault(key, value)
        parts.append(from_dict(kind, filled, name))
    return parts


@contextmanager
def _as_test(engine: Engine, test: PackTest, index: int) -> Iterator[dict[str, str]]:
    """The test's own principal, home and workspace; its contract attached meanwhile."""
    from policy.facts import Caller, deciding_for

    context = {key: getattr(test, key) for key in _CONTEXT if getattr(test, key) is not None}
    session = ""
    if test.contract is not None:
        session = context.setdefault("session", DEFAULT_SESSION)
    caller = Caller(home=test.home, workspace=test.workspace, principal=f"test-{index}")
    with deciding_for(caller):
        if session:
            engine.contracts.attach(session, test.contract)  # type: ignore[arg-type]
        try:
            yield context
        finally:
            if session:
                engine.contracts.detach(session)


def _answer(
    engine: Engine, call: Any, decision: Decision, approve: Approve, expect: Expect
) -> list[str]:
    """Answer the requests the call's gates file as `approve.by` would, then ask again
    as a retried call does (`approve_tool(..., defer=True)`, the hooks' defer mode);
    what differs from `expect.approved`."""
    from policy.approvals.rules import NotAllowed, decide
    from policy.approvals.store import AlreadyDecided

    if not decision.needs_approval:
        return ["approve: the call needs no approval, there is nothing to answer"]
    store = engine.approvals
    before = {r.id for r in store.list("pending")}
    engine.approve_tool(call, gates=decision.gates, defer=True)
    filed = [r for r in store.list("pending") if r.id not in before]
    refused = ""
    for request in filed:
        try:
            decide(
                store,
                request.id,
                approved=approve.approved,
                by=approve.by,
                reason=approve.reason or "answered by a pack test",
            )
        except (NotAllowed, AlreadyDecided) as exc:
            refused = str(exc)
    final = engine.approve_tool(call, gates=decision.gates, defer=True)
    if expect.approved is None or final.approved == expect.approved:
        return []
    why = f" ({refused})" if refused else ""
    return [f"approved: expected {expect.approved}, got {final.approved}: {final.reason!r}{why}"]


def _located(decision: Decision | None, locations: Mapping[str, str]) -> tuple[str, str]:
    if decision is None or not decision.rule_ids:
        return "", ""
    rule = decision.rule_ids[0]
    where = locations.get(rule, "")
    if not where and rule.count("/") > 1:  # pack/contract_scope/id, pack/rule/...
        where = locations.get("/".join(rule.split("/")[:2]), "")
    return rule, where


def _prior(engine: Engine, test: PackTest, context: Mapping[str, str]) -> list[str]:
    """Make the test's `prior:` calls (decided, not checked); what stopped one."""
    for number, prior in enumerate(test.prior or (), 1):
        try:
            parts = _parts(prior, context)
            for _ in range(prior.repeat):
                engine.decide_at(prior.on, *parts)
        except InputError as exc:
            return [f"prior call {number}: {exc}"]
    return []


def _run_test(
    engine: Engine,
    clock: TestClock,
    suite: Suite,
    test: PackTest,
    index: int,
    locations: Mapping[str, str],
) -> TestOutcome:
    start = time.perf_counter()
    line = suite.doc.mark(("tests", index))
    outcome = TestOutcome(
        suite.target, test.name, line.line if line else 1, True, (), None, str(suite.source)
    )
    steps: list[StepOutcome] = []
    problems: list[str] = []
    decision: Decision | None = None
    sequence: Sequence[PackTest | TestStep] = test.sequence or [test]
    count = 0
    clock.start(test.now)
    with _as_test(engine, test, index) as context:
        problems.extend(_prior(engine, test, context))
        for number, step in enumerate(() if problems else sequence, 1):
            label = f"step {number}" + (f" ({step.name})" if getattr(step, "name", None) else "")
            wait = getattr(step, "wait", None)
            if wait is not None:
                clock.wait(parse_duration(wait))
            repeat: int = getattr(step, "repeat", 1)
            for turn in range(1, repeat + 1):
                count += 1
                where = label + (f", call {turn} of {repeat}" if repeat > 1 else "")
                prefix = f"{where}: " if test.sequence is not None else ""
                try:
                    parts = _parts(step, context)
                    answer = engine.decide_at(step.on, *parts)
                except InputError as exc:
                    problems.append(f"{prefix}{exc}")
                    steps.append(StepOutcome(count, where, None, (str(exc),)))
                    break
                decision = answer if isinstance(answer, Decision) else None
                if decision is None:
                    found = [f"a call on {step.on} gives no decision to compare"]
                else:
                    assert step.expect is not None  # the schema holds it
                    found = verdict(suite.target, step.expect, decision)
                    if step.approve is not None and not found:
                        found = _answer(engine, parts[0], decision, step.approve, step.expect)
                steps.append(StepOutcome(count, where, decision, tuple(found)))
                if found:
                    problems.extend(f"{prefix}{p}" for p in found)
                    break
            if problems:
                break
    decided_by, decided_at = _located(decision, locations) if problems else ("", "")
    return replace(
        outcome,
        passed=not problems,
        problems=tuple(problems),
        decision=decision,
        steps=tuple(steps),
        decided_by=decided_by,
        decided_at=decided_at,
        seconds=time.perf_counter() - start,
    )


def run_suite(
    suite: Suite,
    *,
    locations: Mapping[str, str],
    cel_engine: str = "native",
    aliases: Mapping[str, str] | None = None,
    select: Callable[[Suite, PackTest], bool] | None = None,
) -> list[TestOutcome]:
    """Run the tests of `suite` (those `select` keeps) in an engine of its packs."""
    chosen = [(i, t) for i, t in enumerate(suite.tests) if select is None or select(suite, t)]
    if not chosen:
        return []
    clock = TestClock()
    with _engine(suite.packs, cel_engine, aliases or {}, clock) as engine:
        return [_run_test(engine, clock, suite, test, index, locations) for index, test in chosen]


def run_collection(
    collection: Collection,
    *,
    cel_engine: str = "native",
    aliases: Mapping[str, str] | None = None,
    select: Callable[[Suite, PackTest], bool] | None = None,
) -> list[TestOutcome]:
    """Run every suite of `collection`, in order."""
    locations = rule_locations(list(collection.loaded.values()))
    outcomes: list[TestOutcome] = []
    for suite in collection.suites:
        outcomes.extend(
            run_suite(
                suite, locations=locations, cel_engine=cel_engine, aliases=aliases, select=select
            )
        )
    return outcomes


def run_pack_tests(path: Path, *, cel_engine: str = "native") -> list[TestOutcome]:
    """Run every test of the pack at `path` against that pack alone (a PackError if the
    pack does not load)."""
    from policy.pack_tests.suite import collect

    return run_collection(collect([path]), cel_engine=cel_engine)
