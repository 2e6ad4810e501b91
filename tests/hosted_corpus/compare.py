"""Do published Claude Code hooks behave in our chain as they do under Claude Code?

Each case folder here holds one hook setup exactly as its authors published it (the
hooks file and the scripts it runs, with their exec bits; `SOURCE` in `case.json` names
the repository, commit and paths), a few events that exercise it, and under `claude`
what the real Claude Code CLI did with each event (recorded by running it:
tools in `/tmp/corpus/drive.py` style — a fake model makes the event's tool call, the
published hooks installed as a plugin (`--plugin-dir`) or in the project's
`.claude/settings*.json`, `-p` in `acceptEdits` mode, so a permission prompt shows as a
denial). The named cases come from the repositories issue 23 names; `heldout/` holds
setups from other repositories, kept apart so the fixes are not tuned to them.

This script runs every event again, hosted in our chain, two ways:

* through `policy hook claude` (with `claude_hooks:` naming the published file and one
  pack that decides nothing the events touch), fed the very payload Claude Code sent,
  and with the environment Claude Code gives a hook command: the answer Claude Code
  would get, turned into what Claude Code would do with it (for "no answer", what
  Claude Code did with no hook at all: the recorded `baseline`);
* through the Python API, `Engine(Settings(claude_hooks=[...], workspace=project))`
  with `before_tool` / `after_tool` / `user_prompt`.

and prints one line per case (`same`, or `differs:` and why) and the totals, for the
named cases and the held-out ones apart:

    .venv/bin/python tests/hosted_corpus/compare.py [--case NAME] [--json out.json] [-v]

Every event runs in a fresh copy of its case (hooks keep state in the project), with
`{{CASE}}` in any file replaced by that copy's path (a README that says "use the full
path" is followed that way). `home/`, when a case has one, is `$HOME`. `$TMPDIR` is the
copy's own `_tmp/`, as each recording had its own: hooks keep counters there by session
id (ecc's suggest-compact adds context at its 50th, 75th, ... call), and the replayed
payloads all carry the recorded session id.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PACK = HERE / "pack"
PLACEHOLDER = "{{CASE}}"
POLICY = str(Path(sys.executable).with_name("policy"))
GROUPS = {"named": HERE, "heldout": HERE / "heldout"}
#: How much of a reason or context text must reappear in what Claude Code showed.
PREFIX = 80


# ------------------------------------------------------------------ the corpus


def case_dirs(group: str) -> list[Path]:
    """The case folders of one group, by name."""
    root = GROUPS[group]
    return sorted(p.parent for p in root.glob("*/case.json"))


def load(case_dir: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((case_dir / "case.json").read_text())
    return data


def materialize(case_dir: Path, dest: Path) -> None:
    """A copy of the case at `dest`, modes kept, `{{CASE}}` filled in."""
    shutil.copytree(case_dir, dest, symlinks=True)
    for path in dest.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if PLACEHOLDER in text:
            mode = path.stat().st_mode
            path.write_text(text.replace(PLACEHOLDER, str(dest)), encoding="utf-8")
            path.chmod(mode)


def unfilled(text: str | None, tmp: Path) -> str | None:
    """`text` with the paths of our copies written as Claude Code's were recorded."""
    if text is None:
        return None
    return re.sub(re.escape(str(tmp)) + r"/(hook|engine)", PLACEHOLDER, text)


def filled(value: Any, root: Path) -> Any:
    return json.loads(json.dumps(value).replace(PLACEHOLDER, str(root)))


# ------------------------------------------------------------------ outcomes


@dataclass
class Outcome:
    """What the model is left with after one event, in the terms compared.

    `ran`: the tool ran (PreToolUse) / the prompt reached the model (UserPromptSubmit) /
    None after the tool. `text`: what the model got instead, when it did not run. `hook_text`:
    context or feedback the hooks added (None when nothing).
    """

    ran: bool | None
    text: str | None = None
    hook_text: str | None = None
    #: the input the tool ran with, when a hook rewrote it
    rewritten: dict[str, Any] | None = None

    def brief(self) -> str:
        parts = []
        if self.ran is not None:
            parts.append("ran" if self.ran else "blocked")
        if self.text and self.ran is False:
            parts.append(f"«{squash(self.text)[:60]}»")
        if self.rewritten:
            parts.append(f"rewritten to {json.dumps(self.rewritten)[:60]}")
        if self.hook_text:
            parts.append(f"+context «{squash(self.hook_text)[:50]}»")
        return " ".join(parts) or "nothing"


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def contains(big: str | None, small: str | None) -> bool:
    """Each paragraph of `small` begins somewhere in `big` (whitespace aside): the
    hosts frame hook text differently, the hook's own words must all be there."""
    if not small:
        return True
    haystack = squash(big or "")
    pieces = [p for p in re.split(r"\n\s*\n", small) if p.strip()]
    return all(squash(p)[:PREFIX] in haystack for p in pieces)


def agrees(predicted: Outcome, observed: Outcome) -> str | None:
    """None when the two agree, else why not."""
    if predicted.ran != observed.ran:
        here = "ran" if predicted.ran else f"blocked («{squash(predicted.text or '')[:160]}»)"
        there = "ran" if observed.ran else f"blocked («{squash(observed.text or '')[:100]}»)"
        return f"{here} here, {there} in Claude Code"
    if predicted.ran is False and not contains(observed.text, predicted.text):
        return f"blocked with «{squash(predicted.text or '')[:70]}», Claude Code said «{squash(observed.text or '')[:70]}»"
    if predicted.ran and not same_input(predicted.rewritten, observed.rewritten):
        return f"ran with {json.dumps(predicted.rewritten)[:80]}, Claude Code ran {json.dumps(observed.rewritten)[:80]}"
    if bool(predicted.hook_text) != bool(observed.hook_text):
        have = "context here, none in Claude Code" if predicted.hook_text else "no context here"
        return f"{have} (Claude Code: «{squash(observed.hook_text or '')[:70]}»)"
    if predicted.hook_text and not contains(observed.hook_text, predicted.hook_text):
        return f"context «{squash(predicted.hook_text)[:60]}» not what Claude Code showed"
    return None


#: Fields of a tool's input a rewrite is judged on (Claude Code adds none of its own to them).
INPUT_KEYS = (
    "command",
    "file_path",
    "content",
    "old_string",
    "new_string",
    "url",
    "query",
    "pattern",
)


def same_input(predicted: dict[str, Any] | None, observed: dict[str, Any] | None) -> bool:
    def key(value: dict[str, Any] | None) -> dict[str, Any]:
        return {k: v for k, v in (value or {}).items() if k in INPUT_KEYS}

    return key(predicted) == key(observed)


def ran_with(event: dict[str, Any], seen: dict[str, Any]) -> dict[str, Any] | None:
    """The input the tool ran with under Claude Code, when not the one asked for
    (PostToolUse's payload carries it)."""
    for sent in seen.get("payloads") or []:
        if (
            sent.get("hook_event_name") == "PostToolUse"
            and sent.get("tool_name") == event["tool_name"]
        ):
            ran: dict[str, Any] = sent.get("tool_input") or {}
            return None if same_input(ran, event["tool_input"]) else ran
    return None


def claude_outcome(event: dict[str, Any], seen: dict[str, Any]) -> Outcome:
    """What Claude Code did, from the recording."""
    kind = event["event"]
    results = seen.get("tool_results") or []
    if kind == "UserPromptSubmit":
        context = [
            t for t in seen.get("first_turn_hook_texts") or [] if "UserPromptSubmit hook" in t
        ]
        reached = bool(seen.get("prompt_reached_model"))
        return Outcome(reached, None if reached else seen.get("result"), "\n".join(context) or None)
    if kind == "Stop":
        kept_going = seen.get("stop_hook_texts") or []
        return Outcome(None, None, kept_going[0] if kept_going else None)
    last = results[-1] if results else {}
    texts = [
        t for t in last.get("hook_texts") or [] if "PreToolUse" not in t or kind == "PreToolUse"
    ]
    if kind == "PreToolUse":
        ran = event["tool_name"] not in (seen.get("permission_denials") or [])
        context = [t for t in texts if "additional context" in t]
        return Outcome(
            ran,
            None if ran else last.get("tool_result"),
            "\n".join(context) or None,
            ran_with(event, seen) if ran else None,
        )
    return Outcome(None, None, "\n".join(t for t in texts if "PostToolUse" in t) or None)


def baseline(seen: dict[str, Any], tool: str) -> Outcome:
    """What Claude Code did with no hook answering: its own permission rules."""
    base = seen.get("baseline") or {}
    results = base.get("tool_results") or []
    ran = tool not in (base.get("permission_denials") or [])
    return Outcome(ran, None if ran else (results[-1]["tool_result"] if results else None))


def from_answer(
    event: dict[str, Any], seen: dict[str, Any], answer: dict[str, Any] | None
) -> Outcome:
    """What Claude Code would do with `policy hook claude`'s answer."""
    answer = answer or {}
    out = answer.get("hookSpecificOutput") or {}
    context = out.get("additionalContext")
    stop = answer.get("continue") is False
    kind = event["event"]
    if kind == "Stop":
        # `decision: block` keeps the agent going with the reason as its next message;
        # `continue: false` or nothing ends the turn
        keep_going = answer.get("decision") == "block" and not stop
        return Outcome(None, None, answer.get("reason") if keep_going else None)
    if kind == "UserPromptSubmit":
        if answer.get("decision") == "block" or stop:
            return Outcome(False, answer.get("reason") or answer.get("stopReason"), None)
        return Outcome(True, None, context)
    if kind == "PreToolUse":
        decision = out.get("permissionDecision")
        reason = (
            out.get("permissionDecisionReason") or answer.get("reason") or answer.get("stopReason")
        )
        if decision in ("deny", "ask") or answer.get("decision") == "block" or stop:
            return Outcome(False, reason, context)
        rewritten = out.get("updatedInput")
        if decision == "allow":
            return Outcome(True, None, context, rewritten)
        base = baseline(seen, event["tool_name"])
        return Outcome(base.ran, base.text, context, rewritten if base.ran else None)
    texts = [answer["reason"]] if answer.get("decision") == "block" and answer.get("reason") else []
    if context:
        texts.append(context)
    return Outcome(None, None, unlabelled("\n".join(texts)) or None)


#: Our label for a hosted hook's feedback after the tool; Claude Code labels the same
#: words "PostToolUse:<tool> hook blocking error from command: …". The words compared
#: are the hook's own.
FEEDBACK_LABEL = "PostToolUse hook feedback: "


def unlabelled(text: str | None) -> str | None:
    return text.replace(FEEDBACK_LABEL, "") if text else text


# ------------------------------------------------------------------ running ours


@dataclass
class EventResult:
    case: str
    event: str
    claude: Outcome | None
    hook: Outcome | None = None
    engine: Outcome | None = None
    why: list[str] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return self.claude is not None and not self.why


@contextlib.contextmanager
def environment_of(copy: Copy) -> Iterator[None]:
    """`$HOME` and `$TMPDIR` of `copy` for hooks the engine starts in this process."""
    old = {name: os.environ.get(name) for name in copy.environment}
    os.environ.update(copy.environment)
    try:
        yield
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class Copy:
    """One fresh copy of a case, set up for one event."""

    def __init__(
        self, case_dir: Path, case: dict[str, Any], event: dict[str, Any], root: Path
    ) -> None:
        self.root = root
        materialize(case_dir, root)
        self.project = root / "project"
        (self.project / ".claude").mkdir(parents=True, exist_ok=True)
        self.home = root / case["home"] if case.get("home") else root / "_home"
        self.home.mkdir(exist_ok=True)
        (root / "_tmp").mkdir(exist_ok=True)
        self.environment = {"HOME": str(self.home), "TMPDIR": str(root / "_tmp")}
        self.hooks_file = root / case["hooks_file"]
        env = dict(os.environ, **self.environment)
        for command in case.get("setup", []) + event.get("setup", []):
            subprocess.run(
                ["bash", "-c", command], cwd=self.project, env=env, check=True, capture_output=True
            )
        config = root / "_policy.yaml"
        config.write_text(
            json.dumps(
                {
                    "packs": [str(PACK)],
                    "claude_hooks": [str(self.hooks_file)],
                    "workspace": str(self.project),
                }
            )
        )
        self.config = config

    def apply_tool(self, event: dict[str, Any]) -> None:
        """Before PostToolUse: what the tool did (Write's file), so hooks find it."""
        if event["event"] == "PostToolUse" and event.get("tool_name") == "Write":
            args = filled(event["tool_input"], self.root)
            target = Path(args["file_path"])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(args["content"])


def payload_for(event: dict[str, Any], seen: dict[str, Any], root: Path) -> dict[str, Any] | None:
    """The payload Claude Code sent for this event (paths moved to `root`)."""
    sent_all = seen.get("payloads") or []
    # the event is the last of its kind (a PostToolUse after earlier calls), but the
    # first Stop (a Stop hook that blocks makes Claude Code stop again, and again)
    for sent in sent_all if event["event"] == "Stop" else reversed(sent_all):
        if sent.get("hook_event_name") != event["event"]:
            continue
        if event.get("tool_name") and sent.get("tool_name") != event["tool_name"]:
            continue
        moved: dict[str, Any] = filled(sent, root)
        moved["cwd"] = str(root / "project")
        return moved
    return None


def run_hook(copy: Copy, payload: dict[str, Any]) -> dict[str, Any] | None:
    """`policy hook claude` as Claude Code starts it: in the project, with its variables."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(("POLICY_", "CLAUDE"))}
    env.update(
        **copy.environment,
        CLAUDECODE="1",
        CLAUDE_PROJECT_DIR=str(copy.project),
        CLAUDE_CODE_ENTRYPOINT="sdk-cli",
    )
    done = subprocess.run(
        [POLICY, "hook", "claude", "--config", str(copy.config)],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        cwd=copy.project,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"policy hook claude exited {done.returncode}: {done.stderr.decode()[-500:]}"
        )
    text = done.stdout.decode().strip()
    return json.loads(text) if text else None


def run_engine(
    copy: Copy, event: dict[str, Any], seen: dict[str, Any], payload: dict[str, Any]
) -> Outcome:
    """The same event through the Python API."""
    from policy import Action, Engine
    from policy.hosts.claude.context import prompt_context, result_context
    from policy.hosts.claude.wire import call_of, event_of, prompt_of, result_of
    from policy.settings import Settings

    hook_event = event_of(payload, "claude")
    with environment_of(copy):
        engine = Engine(
            Settings(
                packs=[str(PACK)],
                claude_hooks=[str(copy.hooks_file)],
                workspace=str(copy.project),
                audit_path=str(copy.root / "_audit.jsonl"),
            )
        )
        try:
            kind = event["event"]
            if kind == "UserPromptSubmit":
                prompt = prompt_of(hook_event)
                decision = engine.user_prompt(prompt)
                if decision.action in (Action.ABORT_TURN, Action.HARD_ABORT):
                    return Outcome(False, decision.reason)
                final = decision.prompt.text if decision.prompt else prompt.text
                return Outcome(True, None, prompt_context(prompt.text, final))
            if kind == "Stop":
                from policy.hosts.claude.wire import stop_of

                decision = engine.decide_at("stop", stop_of(hook_event))
                instruction = decision.stop.instruction if decision.stop is not None else ""
                keep_going = decision.action not in (Action.ABORT_TURN, Action.HARD_ABORT)
                return Outcome(None, None, instruction if keep_going and instruction else None)
            call = call_of(hook_event)
            if kind == "PreToolUse":
                decision = engine.before_tool(call)
                if decision.action in (
                    Action.DENY_TOOL,
                    Action.ABORT_TURN,
                    Action.HARD_ABORT,
                    Action.RESPOND,
                ):
                    return Outcome(False, decision.reason)
                if decision.needs_approval:
                    return Outcome(False, decision.reason)
                rewritten = (
                    dict(decision.call.args)
                    if decision.action == Action.MODIFY and decision.call is not None
                    else None
                )
                # context a hook added for the model (a field of newer engines)
                context = getattr(decision, "context", "") or None
                if decision.allowed or getattr(decision, "allowed_by", None):
                    return Outcome(True, None, context, rewritten)
                base = baseline(seen, event["tool_name"])
                return Outcome(base.ran, base.text, context, rewritten if base.ran else None)
            result = result_of(hook_event)
            decision = engine.after_tool(call, result)
            if decision.action in (Action.ABORT_TURN, Action.HARD_ABORT):
                return Outcome(None, None, decision.reason or "(turn aborted)")
            final = decision.result.for_llm if decision.result else result.for_llm
            if final == result.for_llm:
                return Outcome(None)
            added = result_context(result.for_llm, final)
            return Outcome(None, None, unlabelled(added if added is not None else final))
        finally:
            engine.close()


def run_event(case_dir: Path, case: dict[str, Any], event: dict[str, Any]) -> EventResult:
    seen = (case.get("claude") or {}).get(event["id"])
    name = case_dir.name
    if not seen:
        return EventResult(name, event["id"], None, why=["not recorded under Claude Code"])
    observed = claude_outcome(event, seen)
    result = EventResult(name, event["id"], observed)
    tmp = tempfile.mkdtemp(prefix=f"corpus-{name}-")
    try:
        copy = Copy(case_dir, case, event, Path(tmp) / "hook")
        payload = payload_for(event, seen, copy.root)
        if payload is None:
            result.why.append("Claude Code sent no such event (nothing to replay)")
            return result
        copy.apply_tool(event)
        try:
            result.hook = from_answer(event, seen, run_hook(copy, payload))
        except Exception as exc:
            result.why.append(f"policy hook claude: {exc}")
        copy2 = Copy(case_dir, case, event, Path(tmp) / "engine")
        copy2.apply_tool(event)
        try:
            result.engine = run_engine(
                copy2, event, seen, payload_for(event, seen, copy2.root) or payload
            )
        except Exception as exc:
            result.why.append(f"Engine: {type(exc).__name__}: {squash(str(exc))[:200]}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for label, predicted in (("policy hook claude", result.hook), ("Engine", result.engine)):
        if predicted is not None:
            predicted.text, predicted.hook_text = (
                unfilled(t, Path(tmp)) for t in (predicted.text, predicted.hook_text)
            )
            if predicted.rewritten is not None:
                predicted.rewritten = json.loads(
                    unfilled(json.dumps(predicted.rewritten), Path(tmp)) or "{}"
                )
            why = agrees(predicted, observed)
            if why:
                result.why.append(f"{label}: {why}")
    return result


@dataclass
class CaseResult:
    name: str
    group: str
    source: str
    events: list[EventResult]

    @property
    def same(self) -> bool:
        return bool(self.events) and all(e.same for e in self.events)


def run_case(case_dir: Path, group: str) -> CaseResult:
    case = load(case_dir)
    events = [run_event(case_dir, case, ev) for ev in case["events"]]
    return CaseResult(case_dir.name, group, case.get("SOURCE", ""), events)


def core(names: list[str] | None = None) -> dict[str, list[CaseResult]]:
    """Every case of both groups (or only those named), compared."""
    out: dict[str, list[CaseResult]] = {}
    for group in GROUPS:
        out[group] = [run_case(d, group) for d in case_dirs(group) if not names or d.name in names]
    return out


def totals(results: list[CaseResult]) -> tuple[int, int]:
    return sum(r.same for r in results), len(results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", action="append", help="only this case (repeatable)")
    parser.add_argument("--json", help="write every event's outcomes here")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per event too")
    args = parser.parse_args(argv)
    # the hosted files' load warnings (keys ignored, events not run) go to the log, not here
    logging.basicConfig(level=logging.ERROR)
    results = core(args.case)
    for group, cases in results.items():
        if not cases:
            continue
        print(f"== {group}")
        for case in cases:
            why = "; ".join(f"{e.event}: {w}" for e in case.events for w in e.why)
            print(f"{case.name:28} {'same' if case.same else 'differs: ' + why}")
            if args.verbose:
                for e in case.events:
                    print(
                        f"    {e.event:22} claude: {e.claude.brief() if e.claude else '-'} | "
                        f"hook: {e.hook.brief() if e.hook else '-'} | "
                        f"engine: {e.engine.brief() if e.engine else '-'}"
                    )
        same, total = totals(cases)
        print(f"{same} of {total} behave as in their host ({group})")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    g: [
                        {
                            "case": c.name,
                            "source": c.source,
                            "same": c.same,
                            "events": [
                                {
                                    "event": e.event,
                                    "claude": e.claude and e.claude.__dict__,
                                    "hook": e.hook and e.hook.__dict__,
                                    "engine": e.engine and e.engine.__dict__,
                                    "why": e.why,
                                }
                                for e in c.events
                            ],
                        }
                        for c in cs
                    ]
                    for g, cs in results.items()
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
