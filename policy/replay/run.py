"""Replaying a decision log against other packs: what would change, and which rules.

Above the engine (it builds one), like `policy.pack_tests`. The replay engine decides
each logged call as it was decided then, as far as the log can say:

* **in the record's time**: the engine's clock is each record's `ts`, so CEL's `now`,
  rate-limit windows and contract expiry read the time of the call, not of the replay;
* **in a state of its own, rebuilt from the replayed sequence**: rate-limit budgets and
  contract usage start empty in a scratch SQLite file and are spent by the replayed
  calls in log order, per principal and sender as live (the user's state file is never
  read or written);
* **as whoever asked**: the record's principal (`policy serve`), workspace and, from a
  capture line, home;
* **with the logged approval outcome**: a call that needs approval now and was answered
  then counts as answered the same way (`ask (approved)`), so replay never waits for a
  person and never files a request.

Only the packs (and their builtins) decide: code hooks and hosted hooks of the live
engine are not run, so a record that one of them decided is reported as not replayable.
"""

from __future__ import annotations

import io
import logging
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, cast

from policy._lazy_dataclass import dataclass, field
from policy.errors import InputError
from policy.facts import deciding_for
from policy.model import Decision
from policy.replay.records import Logged, approval_key, logged_from, outcome_of

if TYPE_CHECKING:
    from policy.engine import Engine
    from policy.settings import Settings

__all__ = ["Change", "Example", "Report", "replay"]

#: The interceptor budget while replaying: a loaded machine running ten thousand
#: decisions must not turn a slow one into a timeout's denial and a false change.
_NO_DEADLINE_MS = 600_000
#: What a hostile or garbled record raises while it is read (never a traceback).
_HOSTILE = (RecursionError, TypeError, ValueError)
#: Hook names whose decisions a replay engine makes again (the packs and builtins).
_REPLAYED_HOOKS = ("pack:", "builtin:")


@dataclass(frozen=True, slots=True)
class Example:
    """One changed call, for a person to look at."""

    line: int
    ts: str
    summary: str
    before: str
    after: str
    rule_ids: tuple[str, ...]
    reason: str


@dataclass(slots=True)
class Change:
    """Every call whose outcome went from `before` to `after`."""

    before: str
    after: str
    count: int = 0
    #: The rules responsible (the new decision's, or the old one's when the new decision
    #: names none), with how many calls each.
    rules: Counter[str] = field(default_factory=Counter)
    examples: list[Example] = field(default_factory=list)


@dataclass(slots=True)
class Report:
    """What a replay found."""

    log: str
    packs: tuple[str, ...]
    records: int = 0  # lines read
    decisions: int = 0  # decision records, approval answers apart
    approval_answers: int = 0
    replayed: int = 0
    unchanged: int = 0
    changed: int = 0
    #: Same outcome, decided by other rules.
    rules_changed: int = 0
    approvals_reused: int = 0
    not_replayable: Counter[str] = field(default_factory=Counter)
    #: Outcomes a rate limit or contract changed for a sender or session some of whose
    #: earlier calls could not be replayed (and so spent no budget here): not counted
    #: as changes, since the live budget may have been spent by those calls.
    uncertain: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: (principal, sender) and (principal, session) with a call not replayed so far.
    _gaps: set[tuple[str, str, str]] = field(default_factory=set)
    #: Lines that are no decision (audit records, a torn line...), by event.
    other_records: Counter[str] = field(default_factory=Counter)
    changes: dict[tuple[str, str], Change] = field(default_factory=dict)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "log": self.log,
            "packs": list(self.packs),
            "records": self.records,
            "decisions": self.decisions,
            "approval_answers": self.approval_answers,
            "replayed": self.replayed,
            "unchanged": self.unchanged,
            "changed": self.changed,
            "rules_changed": self.rules_changed,
            "approvals_reused": self.approvals_reused,
            "not_replayable": {
                "total": sum(self.not_replayable.values()),
                "reasons": dict(self.not_replayable.most_common()),
            },
            "uncertain": {
                "total": sum(self.uncertain.values()),
                "changes": [
                    {"from": before, "to": after, "count": count}
                    for (before, after), count in self.uncertain.most_common()
                ],
            },
            "other_records": dict(self.other_records.most_common()),
            "changes": [
                {
                    "from": change.before,
                    "to": change.after,
                    "count": change.count,
                    "rules": dict(change.rules.most_common()),
                    "examples": [
                        {
                            "line": e.line,
                            "ts": e.ts,
                            "call": e.summary,
                            "rule_ids": list(e.rule_ids),
                            "reason": e.reason,
                        }
                        for e in change.examples
                    ],
                }
                for change in sorted(self.changes.values(), key=lambda c: -c.count)
            ],
            "seconds": round(self.seconds, 3),
        }


class _ReplayClock:
    """The time of the record being replayed."""

    def __init__(self) -> None:
        self.at = time.time()

    def __call__(self) -> float:
        return self.at


@contextmanager
def _engine(settings: Settings, packs: Sequence[Path], clock: _ReplayClock) -> Iterator[Engine]:
    from policy.audit import capture_settings
    from policy.engine import Engine
    from policy.hooks_config import HooksConfig

    # The live engine's own files stay the policy's own files: a call that touched its
    # data dir, log, capture or hooks files was refused as self-protection, and is
    # judged so again although the replay keeps its state elsewhere.
    capture, _ = capture_settings(
        settings.audit_capture_dir,
        None,
        capture_args=settings.audit_capture_args,
        data_dir=settings.data_dir,
    )
    live = [settings.data_dir, settings.audit_path, capture, *settings.claude_hooks]
    protected = [*settings.protected_paths, *(p for p in live if p is not None)]
    with tempfile.TemporaryDirectory(prefix="policy-replay-") as scratch:
        replaying = settings.model_copy(
            update={
                "packs": list(packs),
                "protected_paths": protected,
                # code and hosted hooks are not replayed (module docstring)
                "hooks": HooksConfig(),
                "claude_hooks": [],
                "data_dir": Path(scratch),
                "limits_storage_uri": f"sqlite:///{scratch}/state.db",
                "approvals_store": "memory://",
                "interceptor_timeout_ms": _NO_DEADLINE_MS,
                "audit_path": None,
                "audit_capture_dir": None,
                "audit_capture_args": False,
            }
        )
        with Engine(replaying, audit_stream=_discard(), clock=clock) as engine:
            yield engine


def _discard() -> IO[Any]:
    """The replay engine's decision log: nothing a replay decides is a real decision."""
    return cast(IO[Any], _Discard())


class _Discard(io.RawIOBase):
    def write(self, data: Any) -> int:
        return len(data)

    def writable(self) -> bool:
        return True


@contextmanager
def _quiet() -> Iterator[None]:
    """Silence what the chain logs about each call it decides (an analysis that gave
    up, a request filed): the report counts those; thousands of lines would bury it."""
    loggers = [logging.getLogger(name) for name in ("policy.chain", "policy.approvals")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def _answers(
    lines: Iterable[tuple[int, Mapping[str, Any] | None]],
) -> tuple[int, dict[tuple[str, ...], str]]:
    """How many lines there are, and each call an approver answered (`approval_key`)
    with its last answer."""
    answers: dict[tuple[str, ...], str] = {}
    total = 0
    for _, record in lines:
        total += 1
        if record is None or record.get("point") != "approve_tool":
            continue
        approval = record.get("approval")
        if isinstance(approval, Mapping) and "approved" in approval:
            try:
                key = approval_key(record)
            except _HOSTILE:
                continue  # counted when the replay reads the record
            answers[key] = "approved" if approval["approved"] is True else "not approved"
    return total, answers


#: What the rule ids of builtins that count calls contain (their budgets need every call).
_STATEFUL = ("/tool_policy", "/contract_scope")


def _budget_keys(record: Mapping[str, Any]) -> set[tuple[str, str, str]]:
    """Whose budgets a record's call spends: its sender's and its session's."""
    principal = str(record.get("principal") or "")
    return {
        ("sender", principal, str(record.get("sender") or "")),
        ("session", principal, str(record.get("session") or "")),
    }


def _new_outcome(logged: Logged, decision: Decision) -> str:
    return outcome_of(logged.point, decision.action.value, decision.needs_approval)


def replay(
    settings: Settings,
    log: Path,
    packs: Sequence[Path],
    *,
    captured: Mapping[str, Mapping[str, Any]] | None = None,
    examples: int = 3,
    progress: Callable[[int, int], None] | None = None,
) -> Report:
    """Replay every decision of the log at `log` against `packs` (module docstring).

    `captured` holds capture lines by decision id (`records.captures_by_id`). InputError
    when the log cannot be read; a PackError when the packs do not load.
    """
    started = time.perf_counter()
    report = Report(log=str(log), packs=tuple(str(p) for p in packs))
    # Two passes over the file, never the whole log in memory: the approval answers
    # (they follow the calls they answer) and the line count, then the replay.
    total, answers = _answers(_records(log))
    clock = _ReplayClock()
    with _engine(settings, packs, clock) as engine, _quiet():
        for done, (number, record) in enumerate(_records(log), 1):
            report.records += 1
            if progress is not None:
                progress(done, total)
            if record is None:
                report.other_records["not a JSON record"] += 1
                continue
            event = record.get("event")
            if event != "decision":
                report.other_records[str(event)] += 1
                continue
            if record.get("point") == "approve_tool":
                report.approval_answers += 1  # reused for the call it answers (_answers)
                continue
            report.decisions += 1
            _replay_one(engine, clock, report, record, number, captured, answers, examples)
    report.seconds = time.perf_counter() - started
    return report


def _records(log: Path) -> Iterator[tuple[int, Mapping[str, Any] | None]]:
    from policy.replay.records import read_log

    try:
        with log.open("rb") as stream:
            yield from read_log(stream)
    except OSError as exc:
        raise InputError(f"{log}: {exc.strerror}") from None


def _replay_one(
    engine: Engine,
    clock: _ReplayClock,
    report: Report,
    record: Mapping[str, Any],
    number: int,
    captured: Mapping[str, Mapping[str, Any]] | None,
    answers: Mapping[tuple[str, ...], str],
    examples: int,
) -> None:
    decision_id = record.get("decision_id")
    capture = captured.get(decision_id) if captured and isinstance(decision_id, str) else None
    try:
        logged = logged_from(record, number, capture)
    except InputError as exc:
        report.not_replayable[f"unreadable record: {exc}"] += 1
        return
    except _HOSTILE as exc:  # nesting deeper than Python recurses, odd types
        report.not_replayable[f"unreadable record ({type(exc).__name__})"] += 1
        return
    hook = str(record.get("hook") or "")
    skip = logged.skip
    if not skip and hook and not hook.startswith(_REPLAYED_HOOKS):
        skip = "decided by a code or hosted hook, which replay does not run"
    if skip:
        report.not_replayable[skip] += 1
        report._gaps.update(_budget_keys(record))
        return
    assert logged.parts is not None
    clock.at = logged.ts
    try:
        with deciding_for(logged.caller):
            answer = engine.decide_at(logged.point, *logged.parts)
    except InputError as exc:
        report.not_replayable[f"the logged call is not a call: {exc}"] += 1
        return
    if not isinstance(answer, Decision):
        report.not_replayable[f"nothing decides at {logged.point}"] += 1
        return
    report.replayed += 1
    before, after = logged.outcome, _new_outcome(logged, answer)
    answered = answers.get(logged.key)
    if answered is not None:
        if before == "ask":
            before = f"ask ({answered})"
        if after == "ask":
            after = f"ask ({answered})"
            report.approvals_reused += 1
    if before == after:
        report.unchanged += 1
        if tuple(answer.rule_ids) != logged.rule_ids:
            report.rules_changed += 1
        return
    responsible = answer.rule_ids or logged.rule_ids
    stateful = any(part in rule for rule in responsible for part in _STATEFUL)
    if stateful and report._gaps.intersection(_budget_keys(record)):
        report.uncertain[(before, after)] += 1
        return
    report.changed += 1
    change = report.changes.get((before, after))
    if change is None:
        change = report.changes[(before, after)] = Change(before, after)
    change.count += 1
    for rule in answer.rule_ids or logged.rule_ids:
        change.rules[rule] += 1
    if len(change.examples) < examples:
        change.examples.append(
            Example(
                line=number,
                ts=str(record.get("ts", "")),
                summary=logged.summary,
                before=before,
                after=after,
                rule_ids=tuple(answer.rule_ids or logged.rule_ids),
                reason=answer.reason,
            )
        )
