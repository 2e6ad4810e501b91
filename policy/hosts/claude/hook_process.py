"""`policy hook claude|agentao`: answer one command-hook event, and fail closed doing it.

Claude Code and Agentao start the command once per event, pipe the payload on stdin
and read the answer on stdout. Both let the call run when a hook crashes, hangs or
prints garbage, so this command never does any of that: whatever goes wrong — a bad
payload, a pack that does not load, an unreachable approval store, a bug here — is
printed as an explicit JSON refusal naming the error, with exit 0, and a watchdog
prints one if no answer is ready by `--deadline` (keep it below the host's hook
timeout: Claude Code's default is 600 s).

Started once per event, so its cold start is on the path of every tool call: this
module imports only what a decision needs (tests/test_hook_cold_start.py).

The decision log goes to stderr unless `audit_path` is set: stdout is the protocol.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from policy.hosts import ANSWER_MARGIN

if TYPE_CHECKING:
    from policy.hosts.hook_command import HookCommand

__all__ = ["run"]

#: The module that runs PicoClaw process hooks: when loaded, their process groups
#: go with a process that gives up (the chain started them; nobody else will end them).
_PROCESS_HOOKS = "policy.hosts.picoclaw.jsonrpc"


class _Answer:
    """The one answer this process prints: the decision, or a refusal shaped for the
    event (a PreToolUse deny until the payload names one)."""

    def __init__(self) -> None:
        from policy.hosts._hook_process import Output, Reply

        self._reply = Reply(Output())
        self.event: str | None = None
        self.flat = False

    def give(self, answer: dict[str, Any] | None) -> None:
        self._reply.give(answer)

    def refuse(self, reason: str) -> None:
        from policy.hosts.claude.wire import answer_denied

        self.give(answer_denied(self.event, reason, flat=self.flat))


def _engine(args: HookCommand, settings: Any = None) -> Any:
    """The engine for this event.

    Settings come from the settings cache when they can (`read_settings(cached=True)`).
    Compiled packs come from the pack cache under data_dir when their files have not
    changed and the user controls them (policy.packs.cache): a cache the governed agent
    can write must never grant what the policy files do not.
    """
    from policy.hosts._hook_process import engine_for_protocol, read_settings, with_packs

    if settings is None:
        settings = read_settings(args.config, cached=True)
    update: dict[str, Any] = {}
    # Where the agent works, when the operator did not say: Claude Code (and Agentao
    # for Claude-shaped hooks) name the project in the hook's environment; the
    # payload's cwd is the agent's to choose, so it is judged, not trusted.
    project = os.environ.get("CLAUDE_PROJECT_DIR", "")
    if settings.workspace is None and project.startswith("/"):
        update["workspace"] = project
    if args.config is not None:
        update["protected_paths"] = [*settings.protected_paths, Path(args.config)]
    return engine_for_protocol(with_packs(settings, args.packs, **update), per_event=True)


def run(args: HookCommand) -> int:
    """Answer one event: through `policy serve` when one is configured (`--server`, or
    the `server` setting), else here. Settings that do not load are a refusal, printed
    by the in-process path, which reads them again and says why — with `--server` too:
    they may name whom the service must run as (`server_owner`), and a client that
    went on without them would trust a service of its own user instead."""
    settings: Any = None
    try:
        from policy.hosts._settings import read_settings

        settings = read_settings(args.config, cached=True)
    except Exception:  # noqa: BLE001 - _answer_one reads them again and refuses, naming why
        settings = None
    if settings is not None and (args.server or settings.server):
        from policy.hosts.claude.thin import forward

        forward(args, settings)  # never returns
    _answer_one(args, settings)
    from policy.hosts._hook_process import end_process

    end_process()  # never returns: the process ends here, skipping teardown


def _answer_one(args: HookCommand, settings: Any = None) -> None:
    """Read the event, decide it and print the answer (or a refusal); never raises.
    `settings` are those `run` read already (None: read them here, refusing if they
    do not load)."""
    from policy._json_bytes import loads
    from policy.hosts._hook_process import (
        Watchdog,
        abandon_approvals,
        end_process,
        failed_closed,
        no_answer_within,
        on_signal,
    )
    from policy.hosts.claude.decide import decide

    answer = _Answer()
    ends_at = time.monotonic() + args.deadline
    engine = None

    def give_up(reason: str) -> NoReturn:
        answer.refuse(reason)
        hosted = sys.modules.get(_PROCESS_HOOKS)
        if hosted is not None:  # process hooks run in their own sessions: end them too
            hosted.kill_all()
        # A request this process waited on is expired and its denial logged, so nobody
        # approves a call that was refused; then the process ends (the main thread may
        # be stuck, and the answer is out).
        abandon_approvals(engine, reason)
        end_process()

    watch = Watchdog().watch(ends_at, lambda: give_up(no_answer_within(args.deadline)))
    on_signal(give_up)
    try:
        raw = sys.stdin.buffer.read()
        try:
            payload = loads(raw)
        except ValueError as exc:  # (orjson's error, whoever read the payload)
            answer.refuse(f"policy hook failed closed: the payload is not JSON: {exc}")
            return
        if isinstance(payload, dict):
            name = payload.get("hook_event_name", payload.get("event"))
            answer.event = name if isinstance(name, str) else None
            answer.flat = "hook_event_name" not in payload and "data" in payload
        from policy.hosts.claude.wire import event_of

        event = event_of(payload, args.host)
        engine = _engine(args, settings)
        budget = ends_at - time.monotonic() - ANSWER_MARGIN
        answer.give(decide(engine, event, args.approval, budget))
    except Exception as exc:  # noqa: BLE001 - every failure becomes an explicit refusal
        answer.refuse(failed_closed(exc))
    finally:
        # The watchdog keeps running through close: a host that waits past its hook
        # timeout treats the hook as failed (and lets the call run), answer or not.
        if engine is not None:
            background = sys.modules.get("policy.hosts.claude.background")
            if background is not None:  # async hooks are Claude Code's session's, not ours
                background.outlive_close()
            try:
                engine.close()
            except Exception as exc:  # noqa: BLE001 - the answer is out; say why on stderr
                sys.stderr.write(f"policy: closing the engine failed: {exc}\n")
        watch.cancel()
