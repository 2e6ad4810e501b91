"""Which files a tool call touches, for every tool, not only the shell.

A policy that judges `Bash` by the paths its commands read but `Read`, `Glob`,
`Grep`, `MultiEdit`, `NotebookEdit` or `apply_patch` by one argument (or not at all)
is walked around through the other tools. Here every call gets the same answer:
the paths it reads, writes and deletes, located against the call's working
directory like a shell command's (`effects`), with a recursive read written as
`DIR/**` so that "does this read reach `~/.ssh`" has one answer for `cat`, `grep -r`,
`Grep {"path": "~"}` and `Glob {"pattern": "/home/*/.ssh/*"}`.

Shell tools are analysed by `effects`; their facts are merged in here.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from policy._lazy_dataclass import dataclass, field
from policy.analysis import effects
from policy.analysis._lazy_re import LazyPattern
from policy.analysis.operands import is_unknown, locate, unique
from policy.analysis.shell import MAX_ARGUMENT_VALUES, too_many_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policy.analysis import git, network, programs
else:
    from policy.analysis._lazy_module import lazy_submodules

    # (imported at the first read: a shell line whose lexical facts were read back,
    # policy.analysis.kept_lines, reads none of them unless it may connect)
    lazy_submodules(globals(), "policy.analysis", "git", "network", "programs")

__all__ = [
    "KNOWN_TOOLS",
    "MAY_CONNECT",
    "SHELL_TOOLS",
    "Access",
    "may_connect_all",
    "not_a_path",
    "of_call",
    "shell_start",
]

#: Canonical tools whose `command` argument is a shell command line.
SHELL_TOOLS = frozenset({"bash"})

#: Argument names that hold a path, in any tool we do not know better.
_PATH_KEYS = frozenset(
    {
        "path",
        "paths",
        "file_path",
        "filePath",
        "filepath",
        "filename",
        "file",
        "files",
        "notebook_path",
        "absolute_path",
        "target_file",
        "target",
        "destination",
        "source",
        "directory",
        "dir",
        "dir_path",
        "folder",
        "old_path",
        "new_path",
        "src",
        "dst",
    }
)
_DIRECTORY_KEYS = ("cwd", "working_dir", "workdir", "working_directory", "directory", "dir")
_READERS = frozenset({"read_file", "list_dir", "grep", "glob", "web_fetch", "web_search"})
_WRITERS = frozenset({"write_file", "edit_file", "apply_patch"})
#: Tools whose arguments this module reads by what they are.
#: Tools that show names, never contents.
_LISTERS = frozenset({"glob", "list_dir"})
KNOWN_TOOLS = SHELL_TOOLS | _READERS | _WRITERS
_PATCH_FILE = LazyPattern(
    r"^\*\*\* (?:Update|Add|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$"
    r"|^(?:---|\+\+\+) (?:[ab]/)?(.+?)(?:\t.*)?\s*$|^diff --git a/(\S+) b/(\S+)",
    re.MULTILINE,
)
_PATCH_DELETE = LazyPattern(r"^\*\*\* Delete File: (.+?)\s*$|^\+\+\+ /dev/null", re.MULTILINE)
#: Values looked at in one call's arguments; a call with more is refused (every value
#: is read: a path after the first few thousand must not go unseen).
_MAX_WALK = MAX_ARGUMENT_VALUES


@dataclass(frozen=True, slots=True)
class Access:
    """Everything one call touches. `commands` are the shell commands' facts."""

    commands: tuple[effects.Command, ...]
    reads: tuple[str, ...]
    writes: tuple[str, ...]
    deletes: tuple[str, ...]
    hosts: tuple[str, ...]
    sends: tuple[str, ...]
    parse_error: str = ""
    #: Paths whose names and metadata it shows, never contents (`ls`, `find`, Glob).
    lists: tuple[str, ...] = ()
    #: Database statements an MCP tool runs that destroy data or reach the database
    #: server's files or shell (`DROP`, `DELETE` without `WHERE`, `COPY ... PROGRAM`).
    statements: tuple[str, ...] = ()
    #: Why the analysis gave up ("" when it did not): a cap it met, named, or an
    #: error it failed with (`effects.Line.limit`). The rest is then not what the call
    #: does, and a policy must refuse the call (`policy.facts` does).
    limit: str = ""
    #: What is built from it, kept with it (its facts in the CEL engines' shape,
    #: policy.facts); not one of its facts, so no CEL field (policy.packs.cel.types).
    kept: dict[str, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    def to_cel(self) -> dict[str, Any]:
        return {
            "reads": list(self.reads),
            "lists": list(self.lists),
            "writes": list(self.writes),
            "deletes": list(self.deletes),
            "hosts": list(self.hosts),
            "sends": list(self.sends),
            "parse_error": self.parse_error,
            "statements": list(self.statements),
        }


def shell_start(args: Mapping[str, Any], cwd: str, home: str) -> str:
    """Where a shell tool's command starts: its own directory argument (PicoClaw's
    `working_dir`), located against the call's cwd, or the call's cwd."""
    for key in _DIRECTORY_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value:
            located = locate(value, cwd or "", home)
            return "" if is_unknown(located) else located
    return cwd if cwd.startswith("/") else ""


def of_call(
    tool: str,
    args: Mapping[str, Any],
    cwd: str,
    home: str,
    *,
    disk: bool = True,
    tool_raw: str = "",
) -> Access:
    """The access of one call of canonical tool `tool` made from `cwd` (with `disk`:
    globs expanded and links resolved as of now). `tool_raw`, the host's own name of
    the tool, names the CLI an MCP tool runs (`mcp__kubernetes__kubectl`)."""
    base = cwd if cwd.startswith("/") else ""
    if tool in SHELL_TOOLS:
        command = _command_line(args, tool_raw)
        if isinstance(command, str):
            start = shell_start(args, base, home)
            line = effects.analyze(command, start, home, disk=disk)
            if line.limit:
                return Access((), (), (), (), (), (), line.parse_error, limit=line.limit)
            found: Access | None = line.kept.get(start)
            if found is None:
                # (kept with the line: a line nothing on disk changed is the same
                # object at each call, so a repeated call's access is this one)
                found = line.kept[start] = _shell_access(line, start)
            return found
    if tool in _FILE_TOOLS:
        refused = _not_paths(tool, args)
        if refused:
            return Access((), (), (), (), (), (), refused, limit=refused)
    try:
        reads, writes, deletes, hosts = _tool_paths(tool, args)
    except _TooManyValues as exc:
        return Access((), (), (), (), (), (), str(exc), limit=str(exc))
    if tool in _FILE_TOOLS:
        # ` ~/.ssh/id_rsa`: a tool that trims its argument opens the key, one that
        # does not a file of that odd name; both are judged
        reads, writes = _with_trimmed(reads), _with_trimmed(writes)
    f = _Located(base, home)
    located = (f.all(reads), f.all(writes), f.all(deletes))
    refused = too_many_paths(p for found in located for p in found)
    if refused:
        return Access((), (), (), (), (), (), refused, limit=refused)
    r, w, d = (_disk(p, home) if disk else unique(p) for p in located)
    if disk and w:
        w = unique((*w, *_git_spellings(w, base, home)))
    refused = too_many_paths((*r, *w, *d), on_disk=disk)
    if refused:
        return Access((), (), (), (), (), (), refused, limit=refused)
    hosts = network.canonical_hosts(hosts)
    if tool in _LISTERS:
        return Access((), (), w, d, unique(hosts), (), lists=r)
    found = Access((), r, w, d, unique(hosts), (), statements=_statements(tool, args))
    if tool.startswith("mcp__"):
        return _with_named_code(found, tool, args, cwd, home, disk)
    return found


def _shell_access(line: effects.Line, start: str) -> Access:
    """What the commands of `line`, run from `start`, touch, all together."""
    connects: tuple[bool, ...] | None = line.kept.get(MAY_CONNECT)
    reads = [start] if start else []
    writes: list[str] = []
    deletes: list[str] = []
    hosts: list[str] = []
    sends: list[str] = []
    lists: list[str] = []
    for index, c in enumerate(line.commands):
        reads += c.reads
        lists += c.lists
        writes += c.writes
        deletes += c.deletes
        hosts += c.hosts
        sends += c.sends
        if _may_connect(c) if connects is None else connects[index]:
            hosts += network.hosts_in_words(c.argv)  # `python -c` code, any client
    return Access(
        line.commands,
        unique(reads),
        unique(writes),
        unique(deletes),
        # (a line that names no host leaves network's module unimported)
        unique(network.canonical_hosts(hosts)) if hosts else (),
        unique(sends),
        line.parse_error,
        unique(lists),
    )


def _with_named_code(
    found: Access, tool: str, args: Mapping[str, Any], cwd: str, home: str, disk: bool
) -> Access:
    """`found` with what an MCP tool no alias names runs, when an argument's name says
    it is a command line or code (`{"cmd": ...}`, `{"python_code": ...}`): the same
    facts a shell tool gets, so the rules that judge any tool's reads, writes, deletes
    and hosts judge them (the exfiltration pack asks about the call itself)."""
    line = _unaliased_line(args, tool)
    if not line:
        return found
    shell = of_call("bash", {"command": line}, cwd, home, disk=disk, tool_raw=tool)
    if shell.limit:
        return shell
    return Access(
        shell.commands,
        unique((*found.reads, *shell.reads)),
        unique((*found.writes, *shell.writes)),
        unique((*found.deletes, *shell.deletes)),
        unique((*found.hosts, *shell.hosts)),
        shell.sends,
        lists=shell.lists,
        statements=found.statements,
    )


def _unaliased_line(args: Mapping[str, Any], tool: str) -> str:
    """The command line or code an argument named like one holds (not keys or text:
    an unknown tool's `text` is a message, not typing)."""
    for key, value in args.items():
        if _LINE_KEY.match(str(key)) and (words := _words(value)):
            return words
    code, language = _shaped_code(args, _text(args, *_LANGUAGE_KEYS).lower())
    if code:
        return _code_line(code, language)
    argv = next((v for k in ("argv",) if isinstance(v := args.get(k), list | tuple) and v), None)
    if argv is not None and all(isinstance(v, str) for v in argv):
        return _argv_line(list(argv), tool)
    return ""


#: The file tools: each path argument they are given must name a file.
_FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file", "list_dir", "glob", "grep"})
#: ... and of those, the ones that act on a file they must be told: with no path
#: argument at all they name nothing the analysis can judge. (Grep and Glob without
#: `path` search the working directory; a listing without one lists it.)
_NAMED_FILE_TOOLS = frozenset({"read_file", "write_file", "edit_file"})
#: Path keys whose value is a list of paths.
_PLURAL_KEYS = frozenset({"paths", "files"})
#: (a Glob's pattern is a path too)
_GLOB_KEYS = _PATH_KEYS | {"pattern"}


def _not_paths(tool: str, args: Mapping[str, Any]) -> str:
    """Why a file tool's path arguments name no file ("" when each names one).

    Present but empty, blank, holding a NUL byte or not a string, a path argument is
    no path: read as `.` it would pass as "inside the workspace" while the tool does
    whatever it does with it. Absent is the tool's own default."""
    keys = _GLOB_KEYS if tool == "glob" else _PATH_KEYS
    stack: list[tuple[str, Any]] = [("", args)]
    seen = named = 0
    while stack and seen < _MAX_WALK:  # (more values are refused by the walk after)
        key, current = stack.pop()
        seen += 1
        if key in keys:
            named += 1
            why = _not_a_path(key, current, key in _PLURAL_KEYS)
            if why:
                return f"{tool}: the {key!r} argument {why}; it names no file to judge"
        elif isinstance(current, Mapping):
            stack.extend((str(k), v) for k, v in current.items())
        elif isinstance(current, list | tuple):
            stack.extend((key, v) for v in current)
    if not named and tool in _NAMED_FILE_TOOLS:
        return f"{tool}: the call has no path argument; it names no file to judge"
    return ""


def not_a_path(key: str, value: Any) -> str:
    """Why `value`, given under the path argument `key`, names no file ("" when it
    names one): empty, blank, a NUL byte, not a string (a list for `paths`/`files`)."""
    return _not_a_path(key, value, key in _PLURAL_KEYS)


def _not_a_path(key: str, value: Any, plural: bool) -> str:
    if isinstance(value, str):
        if not value:
            return "is empty"
        if not value.strip():
            return "is blank"
        if "\x00" in value:
            return "holds a NUL byte"
        return ""
    if plural and isinstance(value, list | tuple):
        return next((why for v in value if (why := _not_a_path(key, v, False))), "")
    kind = "null" if value is None else _KINDS.get(type(value), type(value).__name__)
    return f"is {kind}, not a path"


_KINDS = {dict: "an object", list: "a list", tuple: "a list", bool: "a boolean",
          int: "a number", float: "a number"}  # fmt: skip


def _with_trimmed(paths: list[str]) -> list[str]:
    return paths + [p.strip() for p in paths if p != p.strip() and p.strip()]


class _Located:
    def __init__(self, cwd: str, home: str) -> None:
        self.cwd = cwd
        self.home = home

    def all(self, words: Iterable[str]) -> list[str]:
        return [locate(w, self.cwd, self.home) for w in words if w]


def _git_spellings(writes: tuple[str, ...], cwd: str, home: str) -> list[str]:
    """The files written as git reads them: a bare repository's config, a file a git
    config includes, a hook under `core.hooksPath` (`git.written_as`)."""
    found = git.inspect(cwd, home=home) if cwd else git.Inspection()
    return git.written_as(writes, found, home)


def _disk(paths: list[str], home: str) -> tuple[str, ...]:
    return effects.resolve_all(unique(paths), home)


def _tool_paths(
    tool: str, args: Mapping[str, Any]
) -> tuple[list[str], list[str], list[str], list[str]]:
    reads: list[str] = []
    writes: list[str] = []
    deletes: list[str] = []
    hosts: list[str] = []
    if tool == "glob":
        root = _text(args, "path", "dir_path", "directory") or "."
        pattern = _text(args, "pattern", "glob") or "*"
        reads += [root, _join(root, pattern)]
        return reads, writes, deletes, hosts
    if tool == "grep":
        root = _text(args, "path", "dir_path", "directory") or "."
        reads += [root, _join(root, "**")]
        narrowed = False
        for key in ("glob", "include"):
            pattern = _text(args, key)
            if pattern:
                narrowed = True
                reads.append(_join(root, pattern if "/" in pattern else "**/" + pattern))
        if not narrowed and not _text(args, "type") and programs.KEY_VALUES.search(
            _text(args, "pattern", "regex", "query")
        ):  # a hunt for key material over a tree, as `grep -r AKIA .` (programs)
            reads.append(_join(root, "**/.env"))
        return reads, writes, deletes, hosts
    if tool == "list_dir":
        reads.append(_text(args, "path", "dir_path", "directory") or ".")
        return reads, writes, deletes, hosts
    if tool in ("web_fetch", "web_search"):
        url = _text(args, "url")
        if url:
            hosts += network.url_hosts(url)
            if url.startswith("file:"):
                reads.append(url)
        return reads, writes, deletes, hosts
    if tool == "apply_patch":
        text = _text(args, "input", "patch", "diff", "content")
        for match in _PATCH_FILE.finditer(text):
            name = next(g for g in match.groups() if g)
            if name != "/dev/null":
                writes.append(name)
        for match in _PATCH_DELETE.finditer(text):
            if match[1]:
                deletes.append(match[1])
    found = list(_path_values(args))
    # a file tool that also fetches (`read_file {"path": "http://...", "isUrl": true}`)
    hosts += network.hosts_in_words(p for p in found if _URL_PATH.match(p))
    if tool in _WRITERS:
        writes += found
        if tool == "edit_file":
            reads += found  # an edit finds the text it replaces: it reads the file
    elif tool == "read_file" or tool in _READERS:
        reads += found
    else:
        # a tool we do not know: whatever it names may be read or written
        reads += found
        writes += [p for p in found if tool not in _READERS]
        # and a page it opens (a browser's `navigate {url}`) is fetched, or read
        for key in _URL_KEYS:
            value = args.get(key)
            if isinstance(value, str) and value.strip():
                hosts += network.url_hosts(value.strip())
                if _FILE_URL.match(value):
                    reads.append(_file_url_path(value))
    return reads, writes, deletes, hosts


#: Arguments of a tool we do not know that hold a URL it opens.
_URL_KEYS = ("url", "uri", "href", "link", "page_url", "pageUrl", "target_url", "targetUrl")
_FILE_URL = LazyPattern(r"^\s*file:", re.IGNORECASE)


def _file_url_path(url: str) -> str:
    """The file a `file:` URL names (`file:///h/.ssh/id_rsa`, `file://localhost/x`,
    `file:/x`, percent-encoded), as a browser opens it."""
    rest = _FILE_URL.sub("", url.strip(), count=1).split("#", 1)[0].split("?", 1)[0]
    if rest.startswith("//"):
        rest = "/" + rest[2:].partition("/")[2]
    return urllib.parse.unquote(rest) or "/"


# -------------------------------------------------------------- database statements
#
# An MCP database tool (`query {sql}`, `execute_sql {query}`) runs what it is given
# on a server the call does not show. Statements that destroy data (DROP, TRUNCATE,
# DELETE or UPDATE without WHERE, ALTER ... DROP) or reach the server's files and
# shell (`COPY ... PROGRAM`, `pg_read_file`, `LOAD_FILE`, `INTO OUTFILE`,
# `xp_cmdshell`) are the facts `statements` holds; the exfiltration pack asks.

_SQL_KEY = LazyPattern(r"(?i)^(?:sql|query|queries|statements?|sql_?query|sql_?statements?|stmt)$")
#: Tools whose `query` is a search, not a statement.
_SEARCH_TOOL = LazyPattern(r"(?i)search|find|lookup|web|brave|google|docs|grep|browse|tavily|exa")
_SQL_STATEMENT = LazyPattern(
    r"(?i)^\s*(?:select|insert|update|delete|drop|truncate|alter|create|copy|with|grant|revoke"
    r"|load|attach|pragma|exec|execute|call|merge|replace|do|vacuum|rename)\b"
)
_SQL_NOISE = LazyPattern(r"'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/|#[^\n]*", re.DOTALL)
_SQL_DANGER = LazyPattern(
    r"""(?ix)
    ^\s*(?:drop|truncate)\b
    |^\s*alter\b.*\bdrop\b
    |^\s*(?:delete|update)\b(?!.*\bwhere\b)
    |\bprogram\b|\bpg_(?:read_file|read_binary_file|ls_dir|stat_file|file_write)\b
    |\blo_(?:import|export)\b|\bload_file\b|\binto\s+(?:out|dump)file\b
    |\bload\s+data\b|\bxp_cmdshell\b|\bopenrowset\b|\bbulk\s+insert\b
    |\bload_extension\b|^\s*attach\b|\bsp_oacreate\b|\bdblink\w*\s*\(
    """
)


def _statements(tool: str, args: Mapping[str, Any]) -> tuple[str, ...]:
    """The destructive or server-reaching statements an MCP tool's SQL arguments hold."""
    if not tool.startswith("mcp__") and tool not in SHELL_TOOLS:
        return ()
    found: list[str] = []
    for key, value in args.items():
        if not _SQL_KEY.match(str(key)):
            continue
        if str(key).lower() in ("query", "queries") and _SEARCH_TOOL.search(tool):
            continue
        texts = (value,) if isinstance(value, str) else value
        if not isinstance(texts, list | tuple):
            continue
        if len(texts) > 64:  # past what is read: asked about like a dangerous one
            found.append(f"{len(texts)} statements, more than are read")
        for text in texts[:64]:
            if isinstance(text, str):
                found += _dangerous_sql(text)
    return tuple(found)


def _dangerous_sql(text: str) -> list[str]:
    if len(text) > 65536:  # past what is read: asked about like a dangerous one
        return [f"{len(text)} characters of SQL, more than are read"]
    if not _SQL_STATEMENT.match(_SQL_NOISE.sub(" ", text[:65536])):
        return []
    bare = _SQL_NOISE.sub(" ", text[:65536])
    return [
        " ".join(part.split())[:200]
        for part in bare.split(";")
        if part.strip() and _SQL_DANGER.search(part)
    ]


#: A path argument that is a URL: the tool fetches it.
_URL_PATH = LazyPattern(r"^\s*(?:https?|ftp|wss?):", re.IGNORECASE)
#: Where a tool judged as `bash` (an MCP server's, through `policy.aliases`) takes
#: its command: a line, or a program and its argument list, or code and its language.
_COMMAND_KEYS = ("command", "cmd", "script", "commandLine", "command_line", "shell_command")
_PROGRAM_KEYS = ("executable", "program")
_ARGV_KEYS = ("args", "arguments", "argv")
_CODE_KEYS = ("code", "source_code", "snippet")
_LANGUAGE_KEYS = ("language", "lang", "kernel", "kernel_name", "runtime", "interpreter")
#: Arguments that change how a `command` runs: a tool with none of them is a shell tool
#: as Claude Code's Bash is, its `command` one line.
_NOT_PLAIN = frozenset({"args", "arguments", "argv", "shell"})
#: Code of these languages is read as the program that runs it would read it.
_RUNNERS = {
    "python": "python3 -c", "python3": "python3 -c", "py": "python3 -c", "ipython": "python3 -c",
    "jupyter": "python3 -c", "javascript": "node -e", "js": "node -e", "node": "node -e",
    "nodejs": "node -e", "typescript": "node -e", "ts": "node -e", "ruby": "ruby -e",
    "perl": "perl -e", "php": "php -r", "lua": "lua -e", "r": "Rscript -e",
    "julia": "julia -e", "powershell": "pwsh -c", "pwsh": "pwsh -c",
}  # fmt: skip
_SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "zsh", "dash", "ksh"})
#: IPython's ways into the shell: `!cmd`, `x = !cmd`, `%sx`/`%system`, `%%bash` cells.
_IPYTHON_SHELL = LazyPattern(r"^\s*(?:[\w.]+\s*=\s*)?(?:!!?|%sx\s|%system\s)(.*)$", re.MULTILINE)
_IPYTHON_CELL = LazyPattern(r"^\s*%%(?:bash|sh|script\s+\S*(?:ba|z|k|da)?sh|system)\b[^\n]*\n")
_IPYTHON_MAGIC = LazyPattern(r"^\s*%(pip|conda|run)\s+(.*)$", re.MULTILINE)
#: What stands for code the analysis cannot read: a hidden command, to be asked about.
_UNREAD = 'eval "$CODE"'


#: MCP argument names by shape (servers name them freely): a shell line
#: (`command`, `shell_cmd`, `command_line`, `bash_script`), code (`code`, `cell`,
#: `python_code`, `js_code`, `code_python`, `snippet`, `expression`), keys typed into a
#: terminal (`keys`, `text`, `keystrokes`), an argument vector (`argv`, `args`).
_LINE_KEY = LazyPattern(
    r"(?i)^(?:(?:shell|bash|sh|zsh|run|exec|execute|raw|user|input|full|terminal|system)_)?"
    r"(?:command|cmd|cmdline|commandline|script)(?:_?(?:line|string|text|str))?s?$"
)
_LANGUAGES = (
    r"python3?|py|js|javascript|node|ts|typescript|ruby|rb|perl|php|lua|r|julia|bash|sh"
    r"|shell|zsh|powershell|pwsh"
)
_CODE_KEY = LazyPattern(
    rf"(?i)^(?:(?P<pre>{_LANGUAGES}|source|cell|run|exec|execute|eval|raw|user|input|kernel"
    r"|notebook)_)?(?:code|cell|cell_source|snippet|expression|expr|source_code)"
    rf"(?:_(?P<post>{_LANGUAGES}))?$"
)
_TYPED_KEYS = ("keys", "text", "keystrokes", "chars", "characters", "key_sequence", "literal")
#: tmux's and terminal servers' names of the keys that end a line, or type nothing
#: the shell analysis reads (`C-c`, `Escape`).
_KEY_NAME = LazyPattern(
    r"(?i)^(?:enter|return|kpenter|c-m|c-j|\{enter\}|<enter>|<cr>|<return>|\\n|\\r)$"
)
_OTHER_KEY = LazyPattern(
    r"^(?:[CMS]-\S|Escape|Esc|Tab|BTab|BSpace|Up|Down|Left|Right|Home|End|PageUp|PageDown"
    r"|PgUp|PgDn|NPage|PPage|F\d{1,2}|IC|DC|Space)$"
)
#: The CLI a tool named after it runs (`mcp__kubernetes__kubectl {"args": [...]}`).
_CLI_TOOL = LazyPattern(
    r"^mcp__.+?__(kubectl|helm|oc|docker|podman|nerdctl|terraform|git|gh|aws|gcloud|az)$"
)
#: A shell's `-c` (as `-c`, `-lc`, `-ec`): the next word is its script.
_SHELL_C = LazyPattern(r"^-[a-z]*c[a-z]*$")


def _command_line(args: Mapping[str, Any], tool_raw: str = "") -> str | None:
    """The shell line a tool judged as `bash` runs (None: it names none)."""
    command = args.get("command")
    if isinstance(command, str) and not _NOT_PLAIN.intersection(args):
        return command
    line = next((w for k in (*_COMMAND_KEYS, *_PROGRAM_KEYS) if (w := _words(args.get(k)))), "")
    if not line:
        line = next(
            (w for k, v in args.items() if _LINE_KEY.match(str(k)) and (w := _words(v))), ""
        )
    if line:
        import shlex  # (here and below: a `command` string, nearly every call, needs none)

        for key in _ARGV_KEYS:
            value = args.get(key)
            if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
                line += " " + shlex.join(value)  # (a call's lists arrive as tuples)
            elif isinstance(value, str) and value:
                line += " " + value
        shell = _text(args, "shell")
        return f"{shlex.quote(shell)} -c {shlex.quote(line)}" if shell else line
    code = _text(args, *_CODE_KEYS)
    language = _text(args, *_LANGUAGE_KEYS).lower()
    if not code:
        code, language = _shaped_code(args, language)
    if code:
        return _code_line(code, language)
    typed = _text(args, "input")
    if typed:
        # typed into a running process (`interact_with_process`): a shell or a REPL
        shell_too = [typed] if not effects.analyze(typed, "", "", disk=False).parse_error else []
        return "\n".join((_code_line(typed, "python"), *shell_too, _UNREAD))
    keys = next((t for k in _TYPED_KEYS if (t := _typed(args.get(k)))), "")
    if keys:
        # typed into a terminal (`send_keys`): its shell, or what runs in it
        if effects.analyze(keys, "", "", disk=False).parse_error:
            return "\n".join((_code_line(keys, "python"), _UNREAD))
        return "\n".join((keys, _code_line(keys, "python")))
    argv = next(
        (list(v) for k in _ARGV_KEYS if isinstance(v := args.get(k), list | tuple) and v), None
    )
    if argv is not None and all(isinstance(v, str) for v in argv):
        return _argv_line(argv, tool_raw)
    return None


def _shaped_code(args: Mapping[str, Any], language: str) -> tuple[str, str]:
    """Code under an argument named like code (`cell`, `python_code`, `code_js`), and
    its language: the one the call names, else the one the argument's name names."""
    for key, value in args.items():
        match = _CODE_KEY.match(str(key))
        if match and isinstance(value, str) and value:
            named = (match["pre"] or match["post"] or "").lower()
            named = {"py": "python", "rb": "ruby"}.get(named, named)
            if named not in _RUNNERS and named not in _SHELL_LANGUAGES:
                named = ""  # `source_code`, `cell_source`, `run_code`: the default
            return value, language or named
    return "", language


def _typed(value: Any) -> str:
    """Keys typed into a terminal as the text they make: tmux's `Enter`/`C-m` end a
    line, other named keys (`C-c`, `Escape`) type nothing; a list is typed in order
    (tmux joins its arguments without spaces), a string's last word may name a key."""
    if isinstance(value, str):
        words = value.replace("\r", "\n").split(" ")
        end = ""
        while len(words) > 1 and (
            _KEY_NAME.match(words[-1].strip()) or _OTHER_KEY.match(words[-1])
        ):
            end = "\n" if _KEY_NAME.match(words.pop().strip()) else end
        return " ".join(words) + end
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return "".join(
            "\n" if _KEY_NAME.match(v) else "" if _OTHER_KEY.match(v) else v for v in value
        )
    return ""


def _argv_line(argv: list[str], tool_raw: str) -> str:
    """The line an argument vector with no program beside it runs: a shell's when it
    starts with `-c`, the CLI's the tool is named after, else its first word's. A first
    word no table knows (a CLI's own arguments, `["delete", "ns", "prod"]`) may be for
    any program: it is asked about."""
    import shlex

    if _SHELL_C.match(argv[0]):
        return "sh " + shlex.join(argv)
    cli = _CLI_TOOL.match(tool_raw)
    if cli and argv[0] != cli[1]:
        return shlex.join([cli[1], *argv])
    first = argv[0].rsplit("/", 1)[-1]
    if programs.handler_for(first) is not None or programs.language_of(first):
        return shlex.join(argv)
    return "\n".join((shlex.join(argv), _UNREAD))


#: `Line.kept`'s entry for whether each command may connect (`_may_connect`), worked
#: out when the line was kept on disk (policy.analysis.kept_lines) and read back with
#: it: the question reads the programs' tables, whose module a line read back needs
#: for nothing else. A tuple: the line's other entries are keyed by start directory, a
#: string — which may be any string (a relative `working_dir`, a red team found: the
#: key was a string once, and a call whose directory was named "may connect" took the
#: flags for its access).
MAY_CONNECT = ("may connect",)


def may_connect_all(line: effects.Line) -> tuple[bool, ...]:
    """Whether each command of `line` may connect to a URL written in its words."""
    return tuple(map(_may_connect, line.commands))


def _may_connect(c: effects.Command) -> bool:
    """Whether a command may connect to a URL written in its words: a network program,
    an interpreter, or a program the tables do not know (`lynx -dump URL`); not one
    known to work on local files only (`grep -rn http://... docs`)."""
    return c.network or programs.language_of(c.name) != "" or programs.handler_for(c.name) is None


def _words(value: Any) -> str:
    import shlex

    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
        return shlex.join(value)  # `{"command": ["rm", "-rf", "~"]}`: an argument vector
    return ""


def _code_line(code: str, language: str) -> str:
    """A shell line that runs `code` as the program of `language` would (Python,
    with IPython's shell escapes, when none is named); code of a language no program
    here reads stands for hidden code."""
    import shlex

    language = language.split()[0] if language.strip() else "python"
    language = re.sub(r"[\d.]+$", "", language) or language
    if language in _SHELL_LANGUAGES:
        return code
    runner = _RUNNERS.get(language)
    if runner is None:
        return _UNREAD
    lines = [f"{runner} {shlex.quote(code)}"]
    if runner.startswith("python"):
        cell = _IPYTHON_CELL.match(code)
        if cell:
            return code[cell.end() :]
        lines += [m[1] for m in _IPYTHON_SHELL.finditer(code)]
        lines += [
            f"python3 {m[2]}" if m[1] == "run" else f"{m[1]} {m[2]}"
            for m in _IPYTHON_MAGIC.finditer(code)
        ]
    return "\n".join(lines)


def _text(args: Mapping[str, Any], *keys: str) -> str:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _join(root: str, pattern: str) -> str:
    if pattern.startswith(("/", "~")):
        return pattern
    return root.rstrip("/") + "/" + pattern


class _TooManyValues(Exception):
    pass


def _path_values(value: Any) -> Iterable[str]:
    """Strings under a path-like key anywhere in the arguments (`edits[].file_path`)."""
    stack: list[tuple[str, Any]] = [("", value)]
    seen = 0
    while stack:
        if seen >= _MAX_WALK:
            raise _TooManyValues(
                f"the arguments hold more than {_MAX_WALK} values "
                "(cap: analysis.max_argument_values)"
            )
        key, current = stack.pop()
        seen += 1
        if isinstance(current, str):
            if key in _PATH_KEYS and current:
                yield current
        elif isinstance(current, Mapping):
            stack.extend((str(k), v) for k, v in current.items())
        elif isinstance(current, list | tuple):
            stack.extend((key, v) for v in current)
