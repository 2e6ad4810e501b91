"""Tool and argument names as a hook written for Claude Code or Agentao expects them.

A hook we run in our chain may be asked about a call from any host; it was written
for Claude Code's names (`Bash`, `Read {file_path}`), or Agentao's Claude-compatible
ones. `HostNames` shows it the call under those, and says which keys it renamed so a
rewritten input can be mapped back (`claude.hosted`). Where a call spells one
argument both ways with different values, the hook is shown the value the tool will
read, never the decoy. Each host's own names are its `claude.dialect`'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from policy._logger import logger
from policy.hosts.claude.dialect import CLAUDE, DIALECTS
from policy.hosts.picoclaw.wire import HOST as PICOCLAW

if TYPE_CHECKING:
    from policy.aliases import AliasTable
    from policy.hosts.claude.dialect import Dialect
    from policy.model import ToolCall

__all__ = ["CLAUDE_TOOL_NAMES", "MCP_PREFIX", "HostNames", "is_mcp"]

log = logger("policy.hosted")  # the logger docs/hosts.md names

#: How Claude Code names an MCP server's tools: `mcp__<server>__<tool>`. Their names
#: pass through our alias table unchanged, and only their output can be replaced by a
#: PostToolUse hook's `updatedMCPToolOutput`.
MCP_PREFIX = "mcp__"


def is_mcp(tool: str) -> bool:
    """Whether `tool` (as the call or a hook names it) is an MCP server's tool."""
    return tool.startswith(MCP_PREFIX)


#: Claude Code's built-in tool names. A call from another host is shown to a hook
#: under the one of these its canonical name maps to (through the engine's aliases).
CLAUDE_TOOL_NAMES = (
    "Bash",
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "LS",
    "Grep",
    "Glob",
    "WebFetch",
    "WebSearch",
    "Task",
    "TodoWrite",
)
#: The hosts' own tool names -> the Claude-compatible name they put in `toolName`
#: (`Dialect.tool_names`), for the tools no canonical name covers.
_CLAUDE_NAME_OF: Mapping[str, str] = {
    own: claude for dialect in DIALECTS.values() for own, claude in dialect.tool_names.items()
}
#: Which spelling of a renamed argument the file tools of a host read, by the `host`
#: a call carries. It settles a call that gives both spellings with different values:
#: the hook must judge the value the tool will use, and a model can add the other
#: spelling as a decoy. A call naming no host listed here reads PicoClaw's names (our
#: canonical tools' `read_file {path}`), unless it uses a Claude Code tool name, whose
#: arguments are Claude's.
_HOST_READS: Mapping[str, frozenset[str]] = {
    PICOCLAW: frozenset({"path", "old_text", "new_text"}),
    **{dialect.host_id: dialect.reads for dialect in DIALECTS.values()},
}


class HostNames:
    """Tool names and argument names as a hook written for the host expects them."""

    def __init__(self, aliases: AliasTable) -> None:
        self._aliases = aliases
        self._claude_names = frozenset(CLAUDE_TOOL_NAMES)
        self._for_canonical: dict[str, str] = {}
        for name in CLAUDE_TOOL_NAMES:
            canonical = aliases.canonical(name)
            if canonical != name:
                self._for_canonical.setdefault(canonical, name)

    def tool(self, call: ToolCall) -> str:
        """The host's spelling of `call`'s tool: its own when it came from Claude Code,
        else the Claude name of its canonical tool, else the name as the call has it."""
        raw = call.tool_raw or call.tool
        if is_mcp(raw):
            # Claude Code shows a hook an MCP tool by its own name, however our alias
            # table files it (`mcp__fs__read_text_file` is a read here, not `Read` there):
            # a `mcp__fs__.*` matcher or `if` rule must see it.
            return raw
        canonical = self._aliases.canonical(call.tool)
        if raw in self._claude_names and self._aliases.canonical(raw) == canonical:
            return raw
        if canonical in self._for_canonical:
            return self._for_canonical[canonical]
        return _CLAUDE_NAME_OF.get(raw, _CLAUDE_NAME_OF.get(canonical, raw))

    def tool_input(self, dialect: Dialect, call: ToolCall) -> tuple[dict[str, Any], dict[str, str]]:
        """The call's arguments under the key names of `dialect` (the shape of the
        hook's file), and {host key: our key} for every key renamed (so a rewritten
        input can be mapped back).

        When the call gives both spellings of one argument, the hook is shown the value
        the tool will read (`_reads`), whichever key it came under: a guard that reads
        `file_path` must not be shown a decoy while the tool opens `path`.
        """
        mcp = is_mcp(call.tool_raw or call.tool)  # shown as its server names them
        renames = {} if mcp else dialect.input_keys.get(self._aliases.canonical(call.tool), {})
        tool_input = dict(call.args)
        renamed: dict[str, str] = {}
        for ours, theirs in renames.items():
            if ours not in tool_input:
                continue
            if theirs in tool_input and tool_input[theirs] != tool_input[ours]:
                read = self._reads(call, ours, theirs)
                log.warning(
                    "call to %r gives both %r and %r with different values; hooks are "
                    "shown the value under %r, the one the tool reads",
                    call.tool_raw or call.tool,
                    ours,
                    theirs,
                    read,
                )
                if read == theirs:
                    continue  # the tool reads the host's spelling: shown as it is
            tool_input[theirs] = tool_input.pop(ours)
            renamed[theirs] = ours
        return tool_input, renamed

    def _reads(self, call: ToolCall, ours: str, theirs: str) -> str:
        """Which of two spellings of one argument the call's tool reads: its host's,
        when the call names a host we know; else Claude Code's for a Claude Code tool
        name, PicoClaw's for any other."""
        reads = _HOST_READS.get(call.host)
        if reads is None:
            claude = (call.tool_raw or call.tool) in self._claude_names
            reads = CLAUDE.reads if claude else _HOST_READS[PICOCLAW]
        return theirs if theirs in reads and ours not in reads else ours
