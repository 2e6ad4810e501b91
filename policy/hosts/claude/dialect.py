"""What tells the hosts that speak Claude Code's hook vocabulary apart: one `Dialect`
per host, in one table.

Claude Code and Agentao share one vocabulary (`claude.wire`: the events, the nested
payload, the JSON answers); where they differ — the `host` their calls carry, the
timeout of a hook whose entry gives none, Agentao's flat `{event, data}` envelope and
hooks files, what an `allow` does beside a rewrite, the tool and argument names their
hooks expect, the keys their settings files know — is a field of their `Dialect`
here, and the code that writes, reads and checks the vocabulary reads the field. A
third host of that family is one more instance, registered in `DIALECTS`: `policy hook
NAME` and `policy check --host NAME` take their choices from it.

Imported by the `policy` parser for every command and by the one-event hooks, so it
holds plain data only: standard library, no dataclass (building one costs ≈ 1 ms,
importing `dataclasses` ≈ 10 ms, on the path of every hook via the service).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final

__all__ = ["AGENTAO", "CLAUDE", "DIALECTS", "Dialect"]


class Dialect:
    """One host that speaks Claude Code's hook vocabulary, and how it speaks it.
    Read-only: its fields are facts about the host, checked by running it where the
    comments say so (docs/hosts.md lists the sources)."""

    __slots__ = (
        "allow_skips_permissions",
        "contracts",
        "default_timeout",
        "disable_all_hooks",
        "display",
        "flat_payloads",
        "host_id",
        "input_keys",
        "keeps_failed_output",
        "name",
        "on_failure",
        "project_folder",
        "reads",
        "tool_names",
    )

    def __init__(
        self,
        *,
        name: str,
        host_id: str,
        display: str,
        default_timeout: float,
        project_folder: str,
        contracts: tuple[str, ...],
        input_keys: Mapping[str, Mapping[str, str]],
        reads: frozenset[str],
        flat_payloads: bool,
        allow_skips_permissions: bool,
        tool_names: Mapping[str, str],
        disable_all_hooks: bool,
        on_failure: bool,
        keeps_failed_output: bool,
    ) -> None:
        #: `policy hook NAME`, `policy check --host NAME`, `/v1/hosts/NAME/event`; and
        #: the first part of the name of a hook read from a file in its shape
        #: (`claude:/path/hooks.json:PreToolUse[0].hooks[0]`).
        self.name: Final = name
        #: The `host` of the calls and prompts that come from it (ToolCall.host), and the
        #: prefix of the events `policy hook` only observes (`claude-code.Stop`).
        self.host_id: Final = host_id
        #: How the checks' messages name it.
        self.display: Final = display
        #: Timeout (seconds) of a command hook whose entry gives none.
        self.default_timeout: Final = default_timeout
        #: The folder a project keeps its settings in (`<project>/.claude/hooks.json`).
        self.project_folder: Final = project_folder
        #: The values of a hooks file's `contract` key that declare its shape.
        self.contracts: Final = contracts
        #: Argument names per canonical tool, as a hook of its file shape is shown
        #: them: {another host's name: this host's name}.
        self.input_keys: Final = input_keys
        #: Which spelling of a renamed argument its file tools read: it settles a call
        #: that gives both spellings with different values (`claude.names`).
        self.reads: Final = reads
        #: It speaks the flat shape: `policy hook` takes its `{event, data{toolName,
        #: toolInput, sessionId, ...}}` envelope beside the nested payload, and a hooks
        #: file of flat entries (`{type, command, matcher: {toolName}}`) is in its shape
        #: — hooks sent that envelope and read as it reads them: exit 2 ignored, no
        #: `updatedInput`, PostToolUse output unread, `blockingError` at
        #: UserPromptSubmit (`claude.hosted`).
        self.flat_payloads: Final = flat_payloads
        #: Answering `allow` skips its own permission flow (rules, mode, dialog). Then a
        #: rewrite no rule allowed is answered with `updatedInput` alone, which it
        #: applies before its own permission flow judges the rewritten input; where an
        #: `allow` lifts none of its own checks, the rewrite goes out as an `allow`.
        self.allow_skips_permissions: Final = allow_skips_permissions
        #: Its own tool names -> the Claude-compatible name it puts in a hook's
        #: payload, for the tools no canonical name covers.
        self.tool_names: Final = tool_names
        #: Its settings file's `disableAllHooks: true` turns every hook off.
        self.disable_all_hooks: Final = disable_all_hooks
        #: A hook entry's `"onFailure": "block"` makes it fail closed; without it the
        #: host runs the call when the hook times out, crashes or prints no JSON.
        self.on_failure: Final = on_failure
        #: At PostToolUseFailure it takes no replacement output (only
        #: `additionalContext`): a rewrite of a failed tool's output hides nothing.
        self.keeps_failed_output: Final = keeps_failed_output

    def __repr__(self) -> str:
        return f"<Dialect {self.name}>"


CLAUDE = Dialect(
    name="claude",
    host_id="claude-code",
    display="Claude Code",
    # Claude Code 2.1.197 and 2.1.332 use 600 s (`rm=600000` in the bundle; a hook was
    # SIGTERMed at 600.0 s; older docs said 60 s).
    default_timeout=600.0,
    project_folder=".claude",
    contracts=("claude-code@profile-1", "claude-code"),
    # Claude's Read/Write/Edit take `file_path`, `old_string`, `new_string`; PicoClaw's
    # take `path`, `old_text`, `new_text`.
    input_keys={
        "read_file": {"path": "file_path"},
        "write_file": {"path": "file_path"},
        "edit_file": {"path": "file_path", "old_text": "old_string", "new_text": "new_string"},
    },
    reads=frozenset({"file_path", "old_string", "new_string"}),
    flat_payloads=False,
    # Checked by running 2.1.197 and 2.1.332: `updatedInput` alone is applied, and
    # Claude Code's own permission flow then judges the rewritten input.
    allow_skips_permissions=True,
    tool_names={},
    disable_all_hooks=True,
    # 2.1.332 honours it; older versions ignore the key.
    on_failure=True,
    keeps_failed_output=True,
)

AGENTAO = Dialect(
    name="agentao",
    host_id="agentao",
    display="Agentao",
    # Agentao's flat shape (agentao/plugins/hooks/_parser.py).
    default_timeout=60.0,
    project_folder=".agentao",
    contracts=("agentao-v1",),
    # Agentao's own Read/Write/Edit take `file_path`, `old_text`, `new_text`.
    input_keys={
        "read_file": {"path": "file_path"},
        "write_file": {"path": "file_path"},
        "edit_file": {"path": "file_path", "old_string": "old_text", "new_string": "new_text"},
    },
    reads=frozenset({"file_path", "old_text", "new_text"}),
    # Agentao 0.5.17, contract `agentao-v1`.
    flat_payloads=True,
    # Agentao's `allow` lifts none of its own checks.
    allow_skips_permissions=False,
    # agentao/plugins/hooks/_alias.py
    tool_names={
        "save_memory": "SaveMemory",
        "ask_user": "AskUser",
        "todo_write": "TodoWrite",
        "plan_save": "PlanSave",
        "plan_finalize": "PlanFinalize",
        "activate_skill": "ActivateSkill",
    },
    disable_all_hooks=False,
    on_failure=False,
    keeps_failed_output=False,
)

#: Every host that speaks Claude Code's vocabulary, by `Dialect.name`: the one table
#: `policy hook`, `policy check --host` and the hook processes take them from.
DIALECTS: Mapping[str, Dialect] = {dialect.name: dialect for dialect in (CLAUDE, AGENTAO)}
