"""Claude Code and Agentao hooks.json command hooks, run as hooks in our chain.

The `claude_hooks` setting names hooks files written for those hosts. Each configured
command becomes one hook here, so a guard script written for Claude Code decides calls
from PicoClaw, OpenClaw or the Python API next to rule packs and code hooks. The host's
contract is kept exactly where it is a fact (docs/hosts.md lists the sources):

* **Claude Code's nested shape** `{"hooks": {"PreToolUse": [{"matcher": "Bash",
  "hooks": [{"type": "command", ...}]}]}}`: Claude's matcher (exact names or a
  `|`-list, an unanchored regex otherwise, `*`/empty for all), Claude's snake_case
  payload, exit 2 blocks with stderr as the reason, JSON read only on exit 0,
  default timeout 600 s.
* **Agentao's flat shape** `{"hooks": {"PreToolUse": [{"type": "command", ...,
  "matcher": {"toolName": "Bash"}}]}}` (Agentao 0.5.17, contract `agentao-v1`): a
  glob over the tool name, the `{event, data}` envelope, exit 2 ignored, no
  `updatedInput`, PostToolUse output unread, `blockingError`/`preventContinuation`
  at UserPromptSubmit, and `prompt` hooks that inject their text without a model.

Which of the two a hook is in is its `Spec.dialect` (`claude.dialect`: the flat shape
is the one of a dialect with `flat_payloads`).

Where we part from both hosts, on purpose: before the tool and at a prompt, a command
that cannot start, times out or is killed by a signal is a hook FAILURE (the chain's
failure policy decides, by default a denial, with a reason that names the fix — "not
executable: chmod +x …") where the hosts let the call run; a verdict field that is malformed (an
unknown `permissionDecision`, `continue: "no"`) is a failure too. At the points where
a hook guards, PreToolUse and UserPromptSubmit, so is a crash: both hosts call an exit
status other than 0 and 2 a "non-blocking error" and go on, so a guard that dies on an
input it did not expect (a traceback, exit 1) would wave through exactly the call it
failed to read. Here that exit is a failure whose reason gives the status and stderr;
and exit 0 with stdout that starts like a JSON verdict (`{`) but does not parse is one
too, where the hosts take it as plain text. For Agentao's flat shape the same holds for
statuses other than 0 and 2 (its exit 2 stays ignored, as Agentao ignores it), except
that a refusal the hook printed still stands, as Agentao would apply it. After the tool
(PostToolUse, PostToolUseFailure) the call has run and we follow the hosts: any
failure — a command that cannot start, times out or crashes, a bad exit, unreadable
output — is logged as a warning on the `policy.hosted` logger and the result goes on.
Plain text on exit 0 stays what the hosts make of it (ignored before a tool, context
at a prompt).

Where the commands run is Claude Code's choice too: a hooks file of a project
(`<project>/.claude/hooks.json`) runs its commands in that project; a plugin's
(`<plugin>/hooks/hooks.json`) in the project the call is for — the operator's
`workspace` (which `policy hook claude` takes from `CLAUDE_PROJECT_DIR`), else our own
working directory, never the cwd the agent reports — with `CLAUDE_PROJECT_DIR` that
project and `CLAUDE_PLUGIN_ROOT` the plugin, so a plugin's project-local rules are found.
What runs is still what the operator's file names.

Context a hook adds (`additionalContext`, plain stdout at a prompt) stays an addition:
before the prompt's text, or after the tool's output, never a change of either, so an
answer writer can tell it from a rewrite and hand it on as context (`claude.context`).

Argument names are the host's (`Read {file_path}`), so a call that spells one argument
both ways with different values (`{"path": "/etc/shadow", "file_path": "/tmp/x"}`)
shows the hook the value the tool will read, not the decoy (`claude.names`);
a rewritten input that spells one argument both ways with different values is a
failure. Files are read strictly (`claude.hooks_file`), commands run by
`claude.command`, payloads written by `claude.wire`; this module reads what the
commands answer, as each host reads it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from policy._logger import logger
from policy.aliases import AliasTable
from policy.facts import home_dir
from policy.hosts.claude import wire
from policy.hosts.claude.command import (
    QUOTE_CHARS,
    Command,
    CommandHookError,
    Completed,
    first_line,
    stderr_quote,
)
from policy.hosts.claude.context import after_blocks, context_block
from policy.hosts.claude.hooks_file import (
    HooksFileNotJson,
    Spec,
    read_hooks_file,
    settings_error,
    type_name,
)
from policy.hosts.claude.names import HostNames, is_mcp
from policy.hosts.claude.permission_rule import Match
from policy.model import Action, CallContext, Decision, Prompt, Stop, ToolCall, ToolResult

__all__ = ["CommandHookError", "load_claude_hooks"]

log = logger("policy.hosted")  # the logger docs/hosts.md names

#: The chain waits this much longer than the command may run, so the hook's own
#: error (naming the command and its timeout) is the one that lands.
_CHAIN_SLACK_MS = 1000


def _input_back(updated: Mapping[str, Any], renamed: Mapping[str, str]) -> dict[str, Any]:
    """A hook's `updatedInput` under the call's own key names. A key the hook returns
    under both spellings with different values is refused: whichever one we kept, the
    tool would run with a value the hook may not have meant."""
    args: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for key, value in updated.items():
        ours = renamed.get(key, key)
        if ours in args and args[ours] != value:
            raise CommandHookError(
                f"`updatedInput` gives `{spelled[ours]}` and `{key}`, two spellings of the "
                f"call's `{ours}`, with different values"
            )
        args[ours] = value
        spelled[ours] = key
    return args


def _payload_cwd(context: CallContext) -> str:
    """The `cwd` the payload reports: the call's working directory when it exists here,
    else ours. The hook may read it; it never chooses where or what runs."""
    if context.cwd and os.path.isdir(context.cwd):
        return context.cwd
    return os.getcwd()


class _CommandHook:
    """One configured command: runs it per matching call and reads its answer."""

    inline = False

    def __init__(
        self,
        spec: Spec,
        names: HostNames,
        priority: int,
        workspace: Path | None = None,
        data_dir: Path | None = None,
    ) -> None:
        self.name = spec.name
        self.priority = priority
        self.timeout_ms = round(spec.timeout * 1000) + _CHAIN_SLACK_MS
        self.spec = spec
        self._names = names
        self._command = Command(spec, data_dir)
        self._workspace = workspace

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} command={self.spec.command!r}>"

    def close(self) -> None:
        """Kill what is still running: a call the chain stopped waiting for must not
        leave its command behind when the engine goes."""
        self._command.close()

    def _condition(self, call: ToolCall, fields: Mapping[str, Any]) -> Match:
        """How this call reads against the hook's `if` rule (Claude Code's
        permission-rule syntax; `exact` when it has none), over `fields`, the call as the
        hook is shown it: `no` skips the hook, `maybe` runs it without letting it grant
        (`claude.permission_rule`)."""
        condition = self.spec.condition
        if condition is None:
            return "exact"
        tool_input = fields.get("tool_input")
        return condition.matches(
            self._names.tool(call),
            tool_input if isinstance(tool_input, Mapping) else {},
            project=str(self._project()),
            cwd=call.cwd if os.path.isabs(call.cwd) else "",
            home=home_dir(),
        )

    # ------------------------------------------------------------------ payloads

    def _tool_fields(self, call: ToolCall) -> tuple[dict[str, Any], dict[str, str]]:
        dialect = self.spec.dialect
        tool_input, renamed = self._names.tool_input(dialect, call)
        fields = wire.tool_fields(dialect, self._names.tool(call), tool_input, call.call_id)
        return fields, renamed

    def _project(self) -> Path:
        """Where the command runs: the project its hooks file belongs to; for a
        plugin's, the project the call is for — the operator's workspace, else ours.
        Never the call's cwd, which the agent chooses."""
        fixed = self.spec.project_dir
        if fixed is not None:
            return fixed
        return self._workspace if self._workspace is not None else Path.cwd()

    def _run(self, context: CallContext, fields: dict[str, Any]) -> Completed:
        spec = self.spec
        return self._command.run(
            wire.payload(spec.dialect, spec.event, context, _payload_cwd(context), fields),
            self._project(),
        )

    # ------------------------------------------------------------------- reading

    def _warn_exit(self, done: Completed, consequence: str) -> None:
        """Log an exit status the chain follows the host on (after the tool, or
        Agentao's ignored exit 2): the operator still needs to hear of it."""
        log.warning(
            "hook %r exited %d at %s (%s): %s",
            self.name,
            done.code,
            self.spec.event,
            consequence,
            stderr_quote(done.stderr),
        )

    def _exit_failure(self, done: Completed) -> CommandHookError:
        """The failure for a guard that exited with neither a verdict (0) nor a block
        (2): it most likely crashed on this very input, so its silence is no "yes"."""
        return CommandHookError(
            f"command {self.spec.command!r} exited {done.code} at {self.spec.event} "
            f"(a crash, not a verdict): {stderr_quote(done.stderr)}"
        )

    def _claude_json(self, done: Completed) -> dict[str, Any] | str | None:
        """The output as the hosts read it: a dict, plain text, or None (no output).

        Output that starts with `{` was meant as a verdict; when it does not parse, the
        hosts take it as text. Where the hook guards that is a failure (a deny that
        does not parse must not read as no opinion); after the tool it is a warning.
        """
        text = done.stdout.strip()
        if not text:
            return None
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            if not text.startswith("{"):
                return text
            problem = (
                f"printed output that starts like a JSON verdict but is not JSON "
                f"({exc.msg} at line {exc.lineno} column {exc.colno}): "
                f"{first_line(text)[:QUOTE_CHARS]}"
            )
            if self.spec.event in wire.GUARD_EVENTS:
                raise CommandHookError(f"command {self.spec.command!r} {problem}") from None
            log.warning("hook %r %s; the tool already ran, so it is ignored", self.name, problem)
            return text
        return value if isinstance(value, dict) else text

    def _stop(self, output: Mapping[str, Any]) -> Decision | None:
        """`continue: false` ends the turn, whatever else the output says."""
        go_on = output.get("continue")
        if go_on is None:
            return None
        if not isinstance(go_on, bool):
            raise CommandHookError(f"`continue` must be true or false, not {go_on!r}")
        if go_on:
            return None
        reason = _optional_text(output, "stopReason") or f"stopped by hook {self.name!r}"
        return Decision(Action.ABORT_TURN, reason=reason)

    def _specific(self, output: Mapping[str, Any]) -> Mapping[str, Any]:
        specific = output.get("hookSpecificOutput")
        if specific is None:
            return {}
        if not isinstance(specific, dict):
            raise CommandHookError(
                f"`hookSpecificOutput` must be an object, not {type_name(specific)}"
            )
        named = specific.get("hookEventName")
        if named is not None and named != self.spec.event:
            raise CommandHookError(
                f"`hookSpecificOutput.hookEventName` is {named!r}, but this is a "
                f"{self.spec.event} hook"
            )
        return specific

    def _notice(self, output: Mapping[str, Any]) -> None:
        message = output.get("systemMessage")
        if isinstance(message, str) and message:
            log.info("hook %r says to the user: %s", self.name, message)


class _PreToolUse(_CommandHook):
    """PreToolUse -> before_tool."""

    #: Its `allow` may reach the host (policy.chain: only such hooks vouch for a call).
    vouches = True

    def before_tool(self, call: ToolCall) -> Decision | None:
        if not self.spec.matcher(self._names.tool(call)):
            return None
        fields, renamed = self._tool_fields(call)
        reading = self._condition(call, fields)
        if reading == "no":
            return None
        decision = self._decide(call, fields, renamed)
        if reading == "maybe" and decision is not None and decision.allowed_by is not None:
            # Started by the wide reading of its `if` only: its refusals count, a grant
            # needs a call the rule names as Claude Code reads it.
            log.info("hook %r: allow not passed on: its `if` names the call loosely", self.name)
            decision = decision.replace(allowed_by=None)
            if decision.action is Action.CONTINUE and not decision.context:
                return None
        return decision

    def _decide(
        self, call: ToolCall, fields: dict[str, Any], renamed: Mapping[str, str]
    ) -> Decision | None:
        done = self._run(call, fields)
        if self.spec.dialect.flat_payloads:
            return self._flat(done)
        return self._nested(call, done, renamed)

    def _nested(
        self, call: ToolCall, done: Completed, renamed: Mapping[str, str]
    ) -> Decision | None:
        if done.code == 2:
            reason = done.stderr.strip() or f"blocked by hook {self.name!r} (exit 2)"
            return Decision(Action.DENY_TOOL, reason=reason)
        if done.code != 0:
            raise self._exit_failure(done)
        output = self._claude_json(done)
        if output is None:
            return None
        if isinstance(output, str):
            log.warning(
                "hook %r printed output that is not a JSON object; Claude Code ignores it "
                "and so does the chain: %s",
                self.name,
                first_line(output),
            )
            return None
        self._notice(output)
        stop = self._stop(output)
        if stop is not None:
            return stop
        specific = self._specific(output)
        verdict = specific.get("permissionDecision")
        reason = _optional_text(specific, "permissionDecisionReason")
        if verdict is None and output.get("decision") is not None:
            # The deprecated top-level form: approve -> allow, block -> deny.
            legacy = output["decision"]
            if legacy not in ("approve", "block"):
                raise CommandHookError(f"`decision` must be 'approve' or 'block', not {legacy!r}")
            verdict = "allow" if legacy == "approve" else "deny"
            reason = _optional_text(output, "reason")
        if verdict is not None and verdict not in ("allow", "deny", "ask", "defer"):
            raise CommandHookError(
                f"`permissionDecision` must be allow, deny, ask or defer, not {verdict!r}"
            )
        context = self._pre_context(specific)
        if verdict == "deny":
            # Claude Code's words for a refusal that gives no reason; the decision's
            # `hook` names which hook refused.
            return Decision(Action.DENY_TOOL, reason=reason or _NO_REASON, context=context)
        updated = specific.get("updatedInput")
        if updated is not None and not isinstance(updated, dict):
            raise CommandHookError(f"`updatedInput` must be an object, not {type_name(updated)}")
        ask = verdict in ("ask", "defer")
        if ask and not reason:
            reason = f"hook {self.name!r} asks for approval"
        if verdict == "defer":
            reason = f"hook {self.name!r} deferred the decision: {reason}"
        # An auto-approver's `allow` vouches for the call (`Decision.allowed_by`): the chain
        # passes it to the host only when nothing denies or asks, and it lifts no gate.
        allowed_by = self.name if verdict == "allow" else None
        if updated is not None:
            args = _input_back(updated, renamed)
            return Decision(
                Action.MODIFY,
                reason=reason or f"input rewritten by hook {self.name!r}",
                call=call.replace(args=args),
                needs_approval=ask,
                allowed_by=allowed_by,
                context=context,
            )
        if ask:
            return Decision(Action.CONTINUE, reason=reason, needs_approval=True, context=context)
        if allowed_by is not None or context:
            return Decision(Action.CONTINUE, allowed_by=allowed_by, context=context)
        return None

    def _flat(self, done: Completed) -> Decision | None:
        if done.code in (0, 2):
            if done.code == 2:
                # Agentao's flat shape reads no exit code, 2 included: it only logs.
                self._warn_exit(done, "Agentao ignores exit 2; its JSON, if any, decides")
            return self._flat_verdict(done)
        return _refusal_or_failure(self._flat_verdict, done, self._exit_failure(done))

    def _flat_verdict(self, done: Completed) -> Decision | None:
        output = self._claude_json(done)
        if not isinstance(output, dict):
            if output is not None and output.strip():
                # Agentao adds plain text as context, as it does at a prompt.
                return Decision(Action.CONTINUE, context=output.strip())
            return None
        specific = self._specific(output)
        verdict = specific.get("permissionDecision")
        if verdict is not None and verdict not in ("allow", "deny", "ask"):
            raise CommandHookError(
                f"`permissionDecision` must be allow, deny or ask, not {verdict!r}"
            )
        reason = _optional_text(specific, "permissionDecisionReason") or _optional_text(
            specific, "reason"
        )
        reason = reason or _optional_text(output, "reason")
        context = self._pre_context(specific)
        if verdict == "deny":
            # Claude Code's words for a refusal that gives no reason; the decision's
            # `hook` names which hook refused.
            return Decision(Action.DENY_TOOL, reason=reason or _NO_REASON, context=context)
        if verdict == "ask":
            return Decision(
                Action.CONTINUE,
                reason=reason or f"hook {self.name!r} asks for approval",
                needs_approval=True,
                context=context,
            )
        # Agentao's `allow` is a no-op (it lifts none of its own checks), so a hook
        # written for it vouches for nothing here either.
        return Decision(Action.CONTINUE, context=context) if context else None

    def _pre_context(self, specific: Mapping[str, Any]) -> str:
        """`additionalContext` at PreToolUse: for the model, which Claude Code shows it
        after the tool's result (and with a refusal too); the chain carries it on the
        decision (`Decision.context`) for an answer writer to hand on. A value that is
        no text is dropped with a warning: it is no verdict, and Claude Code's own
        handling of it is unknown."""
        value = specific.get("additionalContext")
        if value is None or value == "":
            return ""
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            value = "\n".join(v for v in value if v)
        if not isinstance(value, str):
            log.warning(
                "hook %r returned an additionalContext that is not text (%s) at PreToolUse; "
                "it is dropped",
                self.name,
                type_name(value),
            )
            return ""
        log.debug("hook %r added context at PreToolUse: %s", self.name, first_line(value))
        return value


class _PostToolUse(_CommandHook):
    """PostToolUse (results that are not errors) and PostToolUseFailure (error results)
    -> after_tool."""

    #: After the tool nothing is left to stop, and the hosts go on past a hook that
    #: fails there: so does the chain, whatever the operator's `failure_policy` (its own
    #: deadline passing while the hook still runs, say), with a warning.
    failure_policy = "ignore"

    def after_tool(self, call: ToolCall, result: ToolResult) -> Decision | None:
        failure = self.spec.event == "PostToolUseFailure"
        if result.is_error != failure or not self.spec.matcher(self._names.tool(call)):
            return None
        fields, _renamed = self._tool_fields(call)
        if self._condition(call, fields) == "no":
            return None
        fields.update(
            wire.result_fields(
                self.spec.dialect, failure=failure, text=result.for_llm, duration=result.duration
            )
        )
        host = self.spec.dialect.display
        try:
            done = self._run(call, fields)
            if self.spec.dialect.flat_payloads:
                # Agentao's flat shape runs PostToolUse hooks for their side effects only.
                if done.code != 0:
                    self._warn_exit(done, "the tool already ran; Agentao goes on, and so do we")
                return None
            return self._nested(call, result, done)
        except CommandHookError as exc:
            # The call has run: a hook that could not start, timed out, was killed or
            # answered what is no verdict has nothing left to stop. The hosts log it
            # and go on (Claude Code 2.1.332: `hook_non_blocking_error`, exit 126 too).
            log.warning(
                "hook %r failed at %s (the tool already ran; %s goes on, and so do we): %s",
                self.name,
                self.spec.event,
                host,
                exc,
            )
            return None

    def _nested(self, call: ToolCall, result: ToolResult, done: Completed) -> Decision | None:
        if done.code == 2:
            # The tool already ran; stderr goes to the model as feedback.
            reason = done.stderr.strip() or f"hook {self.name!r} exited 2"
            return self._amend(result, feedback=reason)
        if done.code != 0:
            # Unlike before the tool, nothing is left to stop: follow Claude Code.
            self._warn_exit(done, "the tool already ran; Claude Code goes on, and so do we")
            return None
        output = self._claude_json(done)
        if not isinstance(output, dict):
            return None  # Claude Code shows plain stdout in the transcript only
        self._notice(output)
        stop = self._stop(output)
        if stop is not None:
            return stop
        specific = self._specific(output)
        feedback = ""
        if output.get("decision") is not None:
            if output["decision"] != "block":
                raise CommandHookError(f"`decision` must be 'block', not {output['decision']!r}")
            feedback = _optional_text(output, "reason") or f"blocked by hook {self.name!r}"
        replaced = self._replaced_output(call, specific)
        context = _context_text(specific.get("additionalContext"), "additionalContext")
        return self._amend(result, replaced=replaced, feedback=feedback, context=context)

    def _replaced_output(self, call: ToolCall, specific: Mapping[str, Any]) -> str | None:
        """The output a hook puts in place of the tool's, as Claude Code 2.1.332 takes it:
        `updatedToolOutput` first, for any tool, though a built-in tool's must be an
        object in its own output shape (a string is refused there and the original kept);
        else `updatedMCPToolOutput`, for MCP tools only (on Bash it is ignored)."""
        mcp = is_mcp(call.tool_raw or call.tool)
        value = specific.get("updatedToolOutput")
        if value is not None and not mcp and not isinstance(value, dict):
            log.warning(
                "hook %r returned an updatedToolOutput that is not an object for the built-in "
                "tool %r; Claude Code keeps the original output then, and so does the chain",
                self.name,
                self._names.tool(call),
            )
            return None
        if value is None and mcp:
            value = specific.get("updatedMCPToolOutput")
        if value is None:
            return None
        return value if isinstance(value, str) else json.dumps(value, default=str)

    def _amend(
        self,
        result: ToolResult,
        *,
        replaced: str | None = None,
        feedback: str = "",
        context: str = "",
    ) -> Decision | None:
        """What the model sees after the hook: the (replaced) output, then the hook's
        feedback and context, which Claude Code adds after the tool result."""
        if replaced is None and not feedback and not context:
            return None
        text = result.for_llm if replaced is None else replaced
        notes = []
        if feedback:
            notes.append(f"{self.spec.event} hook feedback: {feedback}")
        if context:
            notes.append(context)
        if notes:
            text = "\n\n".join([text, *notes]) if text else "\n\n".join(notes)
        why = "output replaced" if replaced is not None else "feedback added"
        return Decision(
            Action.MODIFY,
            reason=f"{why} by hook {self.name!r}",
            result=result.replace(for_llm=text),
        )


class _UserPromptSubmit(_CommandHook):
    """UserPromptSubmit -> user_prompt."""

    def user_prompt(self, prompt: Prompt) -> Decision | None:
        done = self._run(prompt, wire.prompt_fields(self.spec.dialect, prompt.text))
        if self.spec.dialect.flat_payloads:
            return self._flat(prompt, done)
        return self._nested(prompt, done)

    def _nested(self, prompt: Prompt, done: Completed) -> Decision | None:
        if done.code == 2:
            reason = done.stderr.strip() or f"prompt blocked by hook {self.name!r} (exit 2)"
            return Decision(Action.ABORT_TURN, reason=reason)
        if done.code != 0:
            raise self._exit_failure(done)
        output = self._claude_json(done)
        if output is None:
            return None
        if isinstance(output, str):
            return _with_context(prompt, [output], self.name)  # plain stdout is context
        self._notice(output)
        stop = self._stop(output)
        if stop is not None:
            return stop
        if output.get("decision") is not None:
            if output["decision"] != "block":
                raise CommandHookError(f"`decision` must be 'block', not {output['decision']!r}")
            reason = _optional_text(output, "reason") or f"prompt blocked by hook {self.name!r}"
            return Decision(Action.ABORT_TURN, reason=reason)
        try:
            specific = self._specific(output)
            context = _context_text(specific.get("additionalContext"), "additionalContext")
        except CommandHookError as exc:
            # No `decision`, no `continue: false`: this answer could only add context,
            # so context that cannot be read is dropped and the prompt goes on, as
            # Claude Code goes on past hook output it cannot use.
            log.warning(
                "hook %r answered context that cannot be read at %s; it is dropped and "
                "the prompt goes on: %s",
                self.name,
                self.spec.event,
                exc,
            )
            return None
        return _with_context(prompt, [context] if context else [], self.name)

    def _flat(self, prompt: Prompt, done: Completed) -> Decision | None:
        if done.code in (0, 2):
            if done.code == 2:
                self._warn_exit(done, "Agentao ignores exit 2; its JSON, if any, decides")
            return self._flat_verdict(prompt, done)
        return _refusal_or_failure(
            lambda d: self._flat_verdict(prompt, d), done, self._exit_failure(done)
        )

    def _flat_verdict(self, prompt: Prompt, done: Completed) -> Decision | None:
        output = self._claude_json(done)
        if output is None:
            return None
        if isinstance(output, str):
            return _with_context(prompt, [output], self.name)
        if "blockingError" in output:
            blocked = str(output["blockingError"])
            if blocked:
                return Decision(Action.ABORT_TURN, reason=blocked)
            return None
        if output.get("preventContinuation"):
            reason = _optional_text(output, "stopReason") or "Hook prevented continuation"
            return Decision(Action.ABORT_TURN, reason=reason)
        contexts = _contexts(output.get("additionalContext"))
        return _with_context(prompt, contexts, self.name)


class _Stop(_CommandHook):
    """Stop / SubagentStop -> stop, as Claude Code (2.1.197 and 2.1.332, run) reads the
    answer: exit 2 (stderr) or `decision: "block"` (`reason`) keeps the agent going with
    that text as its next instruction, added after what hooks before this one asked;
    `continue: false` ends the turn and wins over a block. A Stop hook runs when the
    agent's turn ends, a SubagentStop hook when a subagent's does.

    Any other exit status is a failure, as at the points where a hook guards (the
    failure policy decides; by default the turn ends with an error, which is where
    Claude Code's "non-blocking error" leaves the turn too, silently). Plain text or
    output that does not parse is logged and the agent stops, as in Claude Code.
    Agentao's flat shape is not run here: what its Stop hooks are sent has not been
    checked against Agentao, so they stay skipped, with a warning.
    """

    def __init__(
        self,
        spec: Spec,
        names: HostNames,
        priority: int,
        workspace: Path | None = None,
        data_dir: Path | None = None,
    ) -> None:
        super().__init__(spec, names, priority, workspace, data_dir)
        if spec.dialect.flat_payloads:
            log.warning(
                "hook %r: %s hooks in Agentao's flat shape are not run (what Agentao "
                "sends them is unchecked)",
                self.name,
                spec.event,
            )

    def on_stop(self, stop: Stop) -> Decision | None:
        spec = self.spec
        if spec.dialect.flat_payloads or (spec.event == "SubagentStop") != bool(stop.subagent):
            return None
        if stop.subagent and not spec.matcher(stop.subagent):
            return None
        done = self._run(stop, wire.stop_fields(stop))
        if done.code == 2:
            told = done.stderr.strip() or f"hook {self.name!r} asked the agent not to stop"
            return self._go_on(stop, told)
        if done.code != 0:
            raise self._exit_failure(done)
        output = self._claude_json(done)
        if output is None or isinstance(output, str):
            return None  # Claude Code shows plain stdout in the transcript only
        self._notice(output)
        ended = self._stop(output)
        if ended is not None:
            return ended
        verdict = output.get("decision")
        if verdict is None:
            return None
        if verdict != "block":
            raise CommandHookError(f"`decision` must be 'block', not {verdict!r}")
        told = _optional_text(output, "reason") or f"hook {self.name!r} asked the agent not to stop"
        return self._go_on(stop, told)

    def _go_on(self, stop: Stop, told: str) -> Decision:
        before = stop.instruction
        return Decision(
            Action.MODIFY,
            reason=f"hook {self.name!r} keeps the agent going: {first_line(told)[:QUOTE_CHARS]}",
            stop=stop.replace(instruction=f"{before}\n{told}" if before else told),
        )


class _PromptText:
    """Agentao's `prompt` hook: its text, with `{userMessage}` filled in, added to the
    prompt as context. No process and no model, so it runs inline."""

    inline = True

    def __init__(self, spec: Spec, priority: int) -> None:
        self.name = spec.name
        self.priority = priority
        self.spec = spec

    def user_prompt(self, prompt: Prompt) -> Decision | None:
        context = self.spec.text.replace("{userMessage}", prompt.text)
        return _with_context(prompt, [context], self.name)


# --------------------------------------------------------------------------- helpers


def _refusal_or_failure(
    verdict: Callable[[Completed], Decision | None], done: Completed, failure: CommandHookError
) -> Decision | None:
    """For a flat-shape hook that exited with a failure status: a refusal it still
    printed stands (Agentao reads the output whatever the exit, and a failure policy of
    `ignore` must not undo a "no"); anything else is the failure."""
    try:
        decision = verdict(done)
    except CommandHookError:
        raise failure from None
    if decision is not None and decision.action in (Action.DENY_TOOL, Action.ABORT_TURN):
        return decision
    raise failure


#: What Claude Code tells the model of a hook's refusal that gives no reason.
_NO_REASON = "Blocked by hook"


def _optional_text(output: Mapping[str, Any], key: str) -> str:
    value = output.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise CommandHookError(f"`{key}` must be a string, not {type_name(value)}")
    return value


def _contexts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value else []
    if isinstance(value, list):
        return [str(v) for v in value]
    return []


def _context_text(value: Any, key: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(str(v) for v in value)
    raise CommandHookError(f"`{key}` must be a string, not {type_name(value)}")


def _with_context(prompt: Prompt, contexts: Sequence[str], hook: str) -> Decision | None:
    """Agentao's rendering of hook context: each piece in its own
    <user-prompt-submit-hook> tag, before the user's text and after the pieces hooks
    before this one added, so they read in the order the hooks ran (as the hosts list
    them)."""
    pieces = [c for c in contexts if c.strip()]
    if not pieces:
        return None
    extra = "\n".join(context_block(c) for c in pieces)
    text = prompt.text
    at = after_blocks(text)
    return Decision(
        Action.MODIFY,
        reason=f"context added by hook {hook!r}",
        prompt=prompt.replace(text=f"{text[:at]}{extra}\n{text[at:]}"),
    )


class _InBackground(_CommandHook):
    """`"async": true`: the command is started detached with the payload its event's
    hook would send (`claude.background`), and the call goes on as if it had answered
    nothing, as in Claude Code, which neither waits for it nor lets it decide. It
    never fails the call; `close()` ends those still running."""

    failure_policy = "ignore"

    def __init__(
        self,
        spec: Spec,
        names: HostNames,
        priority: int,
        workspace: Path | None = None,
        data_dir: Path | None = None,
    ) -> None:
        from policy.hosts.claude.background import Background

        super().__init__(spec, names, priority, workspace, data_dir)
        self._background = Background(self._command)

    def close(self) -> None:
        super().close()
        self._background.close()

    def _run(self, context: CallContext, fields: dict[str, Any]) -> Completed:
        from policy.hosts.claude.background import start_or_log

        spec = self.spec
        payload = wire.payload(spec.dialect, spec.event, context, _payload_cwd(context), fields)
        start_or_log(self._background, payload, self._project(), self._command)
        return _STARTED


#: What a background hook "answered": nothing, so each event's reading gives no opinion.
_STARTED = Completed(0, "", "")


class _BackgroundPreToolUse(_InBackground, _PreToolUse):
    """PreToolUse, `"async": true`: sees the call, decides nothing."""


class _BackgroundPostToolUse(_InBackground, _PostToolUse):
    """PostToolUse / PostToolUseFailure, `"async": true` (a formatter, a logger)."""


class _BackgroundUserPromptSubmit(_InBackground, _UserPromptSubmit):
    """UserPromptSubmit, `"async": true`: sees the prompt, adds nothing to it."""


class _BackgroundStop(_InBackground, _Stop):
    """Stop / SubagentStop, `"async": true`: the agent stops as it would have."""


#: The background variant of each hook class (`Spec.background`).
_BACKGROUND_CLASSES: Mapping[str | None, type[_CommandHook]] = {
    "before_tool": _BackgroundPreToolUse,
    "after_tool": _BackgroundPostToolUse,
    "user_prompt": _BackgroundUserPromptSubmit,
    "stop": _BackgroundStop,
}


#: The hook for each point of our chain an event runs at (wire.EVENTS).
_HOOK_CLASSES: Mapping[str | None, type[_CommandHook]] = {
    "before_tool": _PreToolUse,
    "after_tool": _PostToolUse,
    "user_prompt": _UserPromptSubmit,
    "stop": _Stop,
}


def load_claude_hooks(
    paths: Sequence[Path],
    *,
    aliases: AliasTable,
    workspace: str | os.PathLike[str] | None = None,
    skip_unsupported: bool = False,
    not_json: Literal["skip", "refuse"] = "skip",
    data_dir: Path | None = None,
) -> list[object]:
    """Read every hooks file and make one chain hook per configured hook.

    Priorities follow the order of the files, then of the hooks in each file, so the
    chain runs them as the host would. What a file holds that is not run here (events
    with no point in the chain, settings keys, hook types we cannot run where they
    could not block, or anywhere with `skip_unsupported`) is named in one warning per
    file on the `policy.hosted` logger, with the fields Claude Code ignores. A hook
    with `"async": true` becomes its event's background variant (`_InBackground`).
    `workspace` (the operator's setting) is the project a plugin's hooks run in;
    `data_dir` holds plugins' `CLAUDE_PLUGIN_DATA`. SettingsError names the file and
    the field (or line:col) of the first thing that is wrong; no hook is returned then.

    A file that is not JSON at all (a `//` comment, a trailing comma) is, with
    `not_json="skip"`, loaded as its host loads it: none of its hooks, with an error on
    the log naming `file:line:col` each time it is read. Claude Code skips such a
    settings.json whole and silently and fails such a plugin's load, so a guard in it
    never ran there either; refusing every call would make hosting it stricter than
    the host it was written for. `refuse` stops the engine instead.
    """
    names = HostNames(aliases)
    project = Path(os.path.expanduser(workspace)) if workspace else None
    hooks: list[object] = []
    seen: dict[Path, Path] = {}
    for path in paths:
        path = Path(path)
        key = path.resolve()
        if key in seen:
            raise settings_error(path, f"listed twice (also as {seen[key]})")
        seen[key] = path
        try:
            read = read_hooks_file(path, skip_unsupported=skip_unsupported)
        except HooksFileNotJson as exc:
            if not_json == "refuse":
                raise
            log.error(  # noqa: TRY400 - the message names file:line:col; a traceback adds nothing
                "%s\n  none of its hooks run, as in Claude Code (`claude_hooks_not_json: "
                "refuse` stops the engine instead)",
                str(exc).removeprefix("invalid settings:\n  "),
            )
            continue
        if read.skipped:
            log.warning("claude_hooks: %s: %s", path, "; ".join(read.skipped))
        for spec in read.specs:
            priority = len(hooks)
            if spec.kind == "prompt":
                hooks.append(_PromptText(spec, priority))
            else:
                classes = _BACKGROUND_CLASSES if spec.background else _HOOK_CLASSES
                kind = classes[wire.EVENTS[spec.event]]
                hooks.append(kind(spec, names, priority, project, data_dir))
    return hooks
