"""The autonomy gate: how much an agent may do on its own (DESIGN §6.1).

OpenClaw's AutonomyHook, with its holes closed: it matched `allowed_commands`
against the whole command line (so `git *` admitted `git status && rm -rf /`),
read one path argument per tool, and hard-coded tool names. Here every simple
command of a shell line (parsed by tree-sitter, see analysis.shell) must be
admitted on its own, every path the call touches is checked after `..` and
symlinks, and the tool lists are canonical names extendable from the pack.

Deny wins: forbidden paths, workspace escapes and shell refusals deny before the
mode is consulted. Then `readonly` denies a mutating call, `supervised` sends it
to approval, `full` lets it through.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from policy.aliases import AliasTable
from policy.analysis import paths, readonly
from policy.analysis.effects import Command
from policy.analysis.shell import acting_variable
from policy.builtins._match import PathGlobs, ToolSet
from policy.builtins._touch import DEFAULT_PATH_ARGS, Touched, shell_command, touched
from policy.builtins.config import DEFAULT_PRIORITY, ActionTool, AutonomyConfig
from policy.facts import CallFacts, FactsContext
from policy.model import Action, Decision, ToolCall

__all__ = ["MUTATING_TOOLS", "READONLY_COMMANDS", "Autonomy"]

#: OpenClaw's always-write tools, plus the editing tools of Claude Code and Agentao.
MUTATING_TOOLS: Final = (
    "write_file",
    "edit_file",
    "MultiEdit",
    "NotebookEdit",
    "apply_patch",
    "bash",
    "code_exec",
    "home_assistant_write",
    "mqtt_publish",
    "inbox_zero",
    "delegate_agent",
    "database",
)

#: Tools that mutate or not depending on one argument.
ACTION_TOOLS: Final = {
    "git": ActionTool(
        arg="action",
        readonly=["status", "log", "diff", "show", "blame", "branch", "remote", "ls-files"],
    ),
    "email": ActionTool(arg="action", readonly=["list", "read", "search", "get"]),
    "calendar": ActionTool(arg="action", readonly=["list", "get", "search", "freebusy"]),
    "home_assistant": ActionTool(arg="action", readonly=["get_state", "list", "get_history"]),
}

#: Shell commands that only read, for `readonly` mode (each simple command must match).
READONLY_COMMANDS: Final = (
    "ls",
    "ls *",
    "cat *",
    "head *",
    "tail *",
    "wc *",
    "grep *",
    "rg *",
    "pwd",
    "echo *",
    "stat *",
    "file *",
    "du *",
    "df *",
    "which *",
    "git status*",
    "git log*",
    "git diff*",
    "git show*",
)

_DEVICES: Final = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})


class CommandPatterns:
    """Shell command patterns (`git *`), matched against `name args...` of one command."""

    __slots__ = ("_match", "_memo", "patterns")

    def __init__(self, patterns: tuple[str, ...] | list[str]) -> None:
        from wcmatch import fnmatch as wfnmatch

        self.patterns = tuple(patterns)
        # `git *` also admits a bare `git`.
        expanded = [*self.patterns, *(p[:-2] for p in self.patterns if p.endswith(" *"))]
        matcher = wfnmatch.compile(expanded, flags=wfnmatch.BRACE | wfnmatch.DOTMATCH)
        self._match: Callable[[str], bool] = matcher.match
        self._memo: dict[str, bool] = {}

    def admits(self, command: Command) -> bool:
        text = " ".join((command.name, *command.args))
        # A wrapper runs the command with its own powers (sudo): it must be admitted too.
        return self._admits(text) and all(
            self._admits(f"{wrapper} {text}") for wrapper in command.wrappers
        )

    def _admits(self, text: str) -> bool:
        """(Memoised: the same commands come up call after call.)"""
        found = self._memo.get(text)
        if found is None:
            found = bool(self._match(text))
            if len(self._memo) < 4096:
                self._memo[text] = found
        return found


class Autonomy:
    """One pack's autonomy gate, as an inline, trusted before_tool hook."""

    inline = True
    failure_policy = "fail"
    #: Asked again on a rewritten call, whole (policy.rejudge): it counts nothing.
    rejudge = "always"

    def __init__(
        self,
        pack: str,
        config: AutonomyConfig,
        aliases: AliasTable,
        home: str | None = None,
        facts: FactsContext | None = None,
    ) -> None:
        self.name = f"builtin:{pack}/autonomy"
        #: The engine's context (its protected paths); the workspace is this gate's own.
        self.facts = facts or FactsContext()
        self.rule_id = f"{pack}/autonomy"
        self.priority = (
            config.priority if config.priority is not None else DEFAULT_PRIORITY["autonomy"]
        )
        self.mode = config.mode
        self.home = home
        self.workspace = paths.normalize(config.workspace, home=home) if config.workspace else ""
        self.workspace_only = config.workspace_only
        self._resolved_workspace: str | None = None
        self.follow_symlinks = config.follow_symlinks
        self.forbidden = PathGlobs(config.forbidden_paths, home)
        self.shell_enabled = config.shell.enabled
        self.shell_tools = ToolSet(config.shell.tools, aliases)
        self.allowed = (
            CommandPatterns(config.shell.allowed_commands)
            if config.shell.allowed_commands is not None
            else None
        )
        self.readonly_commands = CommandPatterns(
            config.readonly_commands
            if config.readonly_commands is not None
            else list(READONLY_COMMANDS)
        )
        self.mutating = ToolSet((*MUTATING_TOOLS, *config.mutating_tools), aliases)
        self.harmless = ToolSet(config.readonly_tools, aliases)
        self.action_tools = {
            aliases.canonical(tool): spec
            for tool, spec in {**ACTION_TOOLS, **config.action_tools}.items()
        }
        self.path_args = {aliases.canonical(t): names for t, names in config.path_args.items()}

    # ------------------------------------------------------------------ hook

    def before_tool(self, call: ToolCall) -> Decision | None:
        refusal: str | None = None
        shell_call = call.tool in self.shell_tools
        if shell_call and shell_command(call) is None:
            if not self.shell_enabled:
                refusal = "the shell is disabled by autonomy"
            elif self.allowed is not None:
                # A list, a number, nothing: no command line whose commands can be checked.
                refusal = "the shell call has no command string to check against allowed_commands"
            shell_call = False
        found: Touched | None = None
        if refusal is None and (self.forbidden.patterns or self.workspace_only):
            refusal = self._argument_refusal(call)
        if refusal is None and (shell_call or self.forbidden.patterns or self.workspace_only):
            found = touched(
                call,
                self.facts,
                self.path_args,
                self.workspace,
                follow_symlinks=self.follow_symlinks,
            )
            refusal = refusal or self._refusal(found, shell_call)
        if refusal is not None:
            return Decision(Action.DENY_TOOL, refusal, rule_ids=(self.rule_id,))
        facts = found.facts if found is not None and shell_call else None
        if self.mode == "full" or not self._mutates(call, facts):
            return None
        if self.mode == "readonly":
            return Decision(
                Action.DENY_TOOL,
                f"autonomy is readonly: {call.tool!r} can change things",
                rule_ids=(self.rule_id,),
            )
        return Decision(
            Action.CONTINUE,
            f"autonomy is supervised: {call.tool!r} can change things, a person must approve",
            rule_ids=(self.rule_id,),
            needs_approval=True,
        )

    # -------------------------------------------------------------- refusals

    def _refusal(self, found: Touched, shell_call: bool) -> str | None:
        if shell_call:
            refusal = self._shell_refusal(found.facts)
            if refusal is not None:
                return refusal
        if not self.forbidden.patterns and not self.workspace_only:
            return None  # no path policy
        for path in found.paths:
            refusal = self._path_refusal(path)
            if refusal is not None:
                return refusal
        return None

    def _argument_refusal(self, call: ToolCall) -> str | None:
        """A path argument that names no file (`""`, blank, NUL, not a string) of a
        tool the analysis does not know: the path policy cannot check it, and it must
        not pass as the working directory. (The analysis refuses those of the file
        tools it knows itself: their facts cannot be built.)"""
        from policy.analysis.access import KNOWN_TOOLS, not_a_path

        if call.tool in KNOWN_TOOLS and call.tool not in self.path_args:
            return None
        names = self.path_args.get(call.tool) or self.path_args.get("*") or DEFAULT_PATH_ARGS
        for name in names:
            if name in call.args:
                why = not_a_path(name, call.args[name])
                if why:
                    return f"path argument {name!r} {why}: it names no file to check"
        return None

    def _shell_refusal(self, facts: CallFacts) -> str | None:
        if not self.shell_enabled:
            return "the shell is disabled by autonomy"
        if self.allowed is None:
            return None
        if facts.access.parse_error:
            return f"the command cannot be checked: {facts.access.parse_error}"
        for command in facts.access.commands:
            if not command.name:
                return (
                    f"the command cannot be checked: {command.raw!r} runs a program "
                    "named by a variable or substitution"
                )
            if command.hidden:
                return f"the command cannot be checked: {command.hidden}"
            acting = [a for a in command.assignments if acting_variable(a.split("=", 1)[0])]
            if acting:
                return (
                    f"shell command {command.raw!r} runs with {acting[0]!r}, which changes "
                    "what runs; allowed_commands admits programs, not that"
                )
            if not self.allowed.admits(command):
                return f"shell command {command.raw!r} is not in allowed_commands"
        return None

    def _path_refusal(self, path: str) -> str | None:
        from policy.analysis.operands import is_unknown

        if is_unknown(path):
            return f"path {path[1:]!r} cannot be checked: where it lands is not known"
        if not path.startswith("/") and (path == ".." or path.startswith("../")):
            # a relative path and no cwd or workspace to place it: matched as written
            return f"path {path!r} climbs out of a working directory nobody named"
        if paths.is_pattern(path):
            pattern = self.forbidden.may_match(path)
            if pattern is not None:
                return f"path {path!r} may reach what {pattern!r} forbids"
            if (
                self.workspace_only
                and self.workspace
                and not paths.inside(path, [self.workspace, self.workspace + "/**"])
            ):
                return f"path {path!r} may reach outside the workspace {self.workspace}"
            return None
        # (`may_match` compares names as macOS and Windows do: `~/.SSH` is `~/.ssh`)
        pattern = self.forbidden.match(path) or self.forbidden.may_match(path)
        if pattern is not None:
            return f"path {path!r} is forbidden by {pattern!r}"
        if self.workspace_only and self.workspace:
            inside = paths.within(path, self._real_workspace()) or paths.within(
                path, self.workspace
            )
            if not inside:
                return f"path {path!r} is outside the workspace {self.workspace}"
        return None

    def _real_workspace(self) -> str:
        """The workspace as the OS sees it, resolved once (it is not expected to move)."""
        if self._resolved_workspace is None:
            resolved = self.workspace
            if self.follow_symlinks:
                try:
                    resolved = paths.resolve(self.workspace)
                except paths.UnsafePathError:
                    resolved = self.workspace
            self._resolved_workspace = resolved
        return self._resolved_workspace

    # ------------------------------------------------------------- mutation

    def _mutates(self, call: ToolCall, facts: CallFacts | None) -> bool:
        tool = call.tool
        if tool in self.harmless:
            return False
        spec = self.action_tools.get(tool)
        if spec is not None:
            value = call.args.get(spec.arg)
            return not (isinstance(value, str) and value in spec.readonly)
        if facts is not None:
            return not self._reads_only(facts)
        return tool in self.mutating

    def _reads_only(self, facts: CallFacts) -> bool:
        """Every command is a reader the pack admits, and none writes (but to
        /dev/null), deletes, runs hidden code, sends anything or runs under an
        assignment that changes what runs (`PATH=. ls`)."""
        commands = facts.access.commands
        if facts.access.parse_error or not commands:
            return False
        for command in commands:
            if not command.name or command.hidden or command.sends or command.downloaded:
                return False
            if any(acting_variable(a.split("=", 1)[0]) for a in command.assignments):
                return False
            if not self.readonly_commands.admits(command):
                return False
            if readonly.knows(command.name) and not readonly.reads_only(command.name, command.args):
                return False  # `sort -o`, `fd -x`, `date -s`: a reader's option acts
            if any(w not in _DEVICES for w in command.writes) or command.deletes:
                return False
        return True
