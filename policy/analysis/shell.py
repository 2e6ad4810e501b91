"""Shell commands -> the simple commands they would run, parsed by tree-sitter-bash.

A rule that matches a command line as one string is fooled by `git status && rm -rf /`;
one that matches each simple command is not. `analyze` walks the whole syntax tree:
pipes, lists, subshells, groups, functions, loops, `$(...)`, backticks, process
substitution, here-documents, and the scripts of `bash -c` / `sh -c` / `su -c` / `eval` /
`find -exec` and of a shell fed a here-document or here-string (parsed again, to a
bounded depth). Wrapper programs (`sudo`, `env`, `timeout`, `xargs`, `busybox`, ...) are
unwrapped so the real program is reported.

What cannot be known without running the shell is marked, never guessed: a command
whose name, arguments, redirect targets or script come from a variable or a
substitution is `dynamic`; so is a shell that reads its script from a pipe or a file
(`curl x | sh`), and a program run by `xargs` (its arguments come from standard input).
Variables are followed only through plain assignments earlier in the same line
(`X=rm; $X -rf /` -> `rm`, still `dynamic`), with bash's field splitting on `IFS`.
Brace expansion (`{rm,-rf,/}`, `{r..r}m`), ANSI-C quoting (`$'\\x72m'`), backslashes
and quotes are resolved the way bash would.

Where tree-sitter-bash reads bash wrongly, the source is rewritten into an equivalent
it reads right and parsed again (`{rm,-rf,/}` in command position, backquotes that
follow one another or nest), and here-document bodies are parsed apart (tree-sitter
misses backquotes and indented substitutions in them).

Variables are followed by building their values, so a few hundred bytes can spell
terabytes (`v1=$v0$v0; v2=$v1$v1; ...`). Every analysis is bounded by caps (`CAPS`,
docs/security.md "Bounded analysis") that are counted while it works, before anything
larger is built, and that depend on the line alone, never on the clock: the bytes
expansions put into one word (`MAX_WORD_BYTES`) and into all of them together
(`MAX_TOTAL_BYTES`), the words and commands found, the steps of the walk (`MAX_STEPS`:
nodes, expansions, loop rounds, brace products...) and of tree-sitter (`MAX_PARSE_STEPS`:
the bytes its lexer reads, its progress callbacks, the pipes of a script, as
tree-sitter-bash recovers from some errors in quadratic time), nested scripts
(`MAX_DEPTH`) and nesting (`MAX_NESTING`). A wall-clock backstop (`BACKSTOP_S`) is only
a guard against bugs. Past a cap the result names it in `limit` (`expanded word larger
than 65536 bytes (cap: analysis.max_word_bytes)`), `parse_error` says the same and
`dynamic` is true; the caller must refuse the line (policy.facts does, whatever the
packs say). Never raises on any string.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import posixpath
import re
import shlex
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from policy.analysis import paths as _paths

__all__ = [
    "BACKSTOP_S",
    "CAPS",
    "KEEP_BYTES",
    "MAX_ARGUMENT_VALUES",
    "MAX_CODE_BYTES",
    "MAX_COMMANDS",
    "MAX_DEPTH",
    "MAX_INPUT",
    "MAX_NESTING",
    "MAX_PARSE_STEPS",
    "MAX_PATHS",
    "MAX_PATTERNS",
    "MAX_PATTERN_COMPONENTS",
    "MAX_PIPES",
    "MAX_STEPS",
    "MAX_TOTAL_BYTES",
    "MAX_WORDS",
    "MAX_WORD_BYTES",
    "Analysis",
    "SimpleCommand",
    "analyze",
    "commands",
    "has_substitution",
    "parse_error",
]

# The caps on one analysis (docs/security.md, "Bounded analysis"). Each is counted
# while the analysis works, before anything larger is built, and none depends on the
# clock: the same line meets the same cap on a busy machine as on an idle one.
MAX_INPUT = 1 << 20  # bytes of one command line
MAX_WORD_BYTES = 64 * 1024  # bytes expansions put into one word (`$v$v`, `$(...)`)
MAX_TOTAL_BYTES = 1 << 20  # bytes of every word, value and here-document built
MAX_WORDS = 10_000  # words of the commands found, over all nested scripts
MAX_COMMANDS = 256  # simple commands found, over all nested scripts
MAX_STEPS = 50_000  # units of the walk's work: nodes, words, expansions, loop rounds...
MAX_PARSE_STEPS = 30_000  # units of tree-sitter's work (`_parse_once`), over all scripts
MAX_DEPTH = 8  # nested `bash -c` / `eval` / `$(...)` scripts
MAX_NESTING = 64  # words inside words (`${a:-${b:-...}}`), loops inside loops...
# tree-sitter-bash recovers from an error at the end of a long pipeline in one step of
# time quadratic in its length (no progress callback fires meanwhile): the pipes of a
# script are counted before it is parsed, and charged as that quadratic cost.
MAX_PIPES = 2_000
# Bytes of interpreter code read for one line (policy.analysis.programs: a few µs a byte).
MAX_CODE_BYTES = 64 * 1024
# Values in the arguments of a call of another tool (policy.analysis.access): all are
# looked at, so a path after the first thousands is not missed.
MAX_ARGUMENT_VALUES = 100_000
# Paths one call names (its facts: what it reads, lists, writes, deletes, sends): rules
# look at each, some against dozens of globs. As written, and four times as many once
# its globs are expanded on disk (up to 256 files a glob).
MAX_PATHS = 256
# Those that are patterns (`/x*/1`, a recursive read `DIR/**`), and their components:
# they are matched against each glob component by component.
MAX_PATTERNS = 64
MAX_PATTERN_COMPONENTS = 512
# A guard against bugs, never what bounds a line: past it the answer is a refusal
# that no cache keeps (it depends on the clock).
BACKSTOP_S = 3.0

#: Every cap by the name a refusal gives it.
CAPS: dict[str, float] = {
    "analysis.max_input_bytes": MAX_INPUT,
    "analysis.max_word_bytes": MAX_WORD_BYTES,
    "analysis.max_total_bytes": MAX_TOTAL_BYTES,
    "analysis.max_words": MAX_WORDS,
    "analysis.max_commands": MAX_COMMANDS,
    "analysis.max_steps": MAX_STEPS,
    "analysis.max_parse_steps": MAX_PARSE_STEPS,
    "analysis.max_depth": MAX_DEPTH,
    "analysis.max_nesting": MAX_NESTING,
    "analysis.max_pipes": MAX_PIPES,
    "analysis.max_code_bytes": MAX_CODE_BYTES,
    "analysis.max_argument_values": MAX_ARGUMENT_VALUES,
    "analysis.max_paths": MAX_PATHS,
    "analysis.max_patterns": MAX_PATTERNS,
    "analysis.max_pattern_components": MAX_PATTERN_COMPONENTS,
    "analysis.max_seconds": BACKSTOP_S,
}
KEEP_BYTES = 64 * 1024  # a larger analysis is worked out again rather than memoised
_CHUNK = 256  # bytes handed to tree-sitter per read: what it reads is what it is charged
# Parse steps, calibrated to take about as long as one another: a read of `_CHUNK`
# bytes is one, a progress callback (100 parser operations) four, and a script with
# P pipes is charged P * P // _PIPE_COST before it is parsed.
_CALLBACK_COST = 4
_PIPE_COST = 180
# Shapes tree-sitter parses in more time than its operations show (`_shape_cost`): a
# script with Q backquotes is charged Q * Q // _BACKQUOTE_COST, each `${` this many,
# and a callback once the parse has met an error one more step per _ERROR_COST bytes
# already parsed.
_BACKQUOTE_COST = 32
_CLOSER_COST = 64  # a script with C more `)` than `(`: C * C // _CLOSER_COST
_EXPANSION_COST = 2
_ERROR_COST = 16

# Programs that run another program given in their arguments.
_WRAPPERS = frozenset(
    {
        "sudo",
        "doas",
        "env",
        "command",
        "builtin",
        "exec",
        "nohup",
        "nice",
        "time",
        "timeout",
        "xargs",
        "stdbuf",
        "ionice",
        "setsid",
        "chrt",
        "taskset",
        "chroot",
        "coproc",
        "busybox",
        "toybox",
        "pkexec",
        "run0",
        "strace",
        "ltrace",
        "unbuffer",
        "chronic",
        "firejail",
        "unshare",
        "setpriv",
        "systemd-run",
        "proot",
        "faketime",
        "torsocks",
        "proxychains",
        "proxychains4",
        "caffeinate",
        "rlwrap",
        "aa-exec",
        "aoss",
        "cpulimit",
        "choom",
        "setarch",
        "ssh-agent",
        "dbus-launch",
        "catchsegv",
        "valgrind",
        "gdbserver",
        "ld.so",
        "sem",
        "dbus-run-session",
        "xvfb-run",
        "fakeroot",
        "fakeroot-ng",
        "bwrap",
        "eatmydata",
        "nocache",
        "trickle",
        "flatpak-spawn",
        "distrobox-enter",
        "toolbox",
        "systemd-nspawn",
        "chpst",
        "setuidgid",
        "envuidgid",
        "softlimit",
        "logsave",
        "multitime",
        "daemonize",
        "sccache",
        "ccache",
        "distcc",
        "icecc",
    }
)
#: The dynamic loader run as a program (`/lib64/ld-linux-x86-64.so.2 /bin/sh`) runs
#: the program it is given.
#: The name `coproc NAME { ...; }` gives the co-process.
_COPROC_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LOADER = re.compile(r"^ld(?:-linux[\w.-]*|-musl-[\w.-]+)?\.so(?:\.\d+)*$")
# Options of wrappers that take a value in the next word.
_WRAPPER_OPTION_ARGS = {
    "sudo": frozenset(
        {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-R", "-U", "--user", "--group"}
    ),
    "doas": frozenset({"-u", "-C"}),
    "env": frozenset({"-u", "-C", "-S", "-P", "--unset", "--chdir", "--split-string"}),
    "exec": frozenset({"-a"}),
    "sem": frozenset({"-j", "--jobs", "--id", "-P", "--semaphoretimeout", "--st"}),
    "xvfb-run": frozenset(
        {
            "-n",
            "--server-num",
            "-s",
            "--server-args",
            "-e",
            "--error-file",
            "-f",
            "--auth-file",
            "-p",
            "--xauth-protocol",
        }
    ),
    "dbus-run-session": frozenset({"--config-file", "--dbus-daemon"}),
    "ld.so": frozenset({"--library-path", "--preload", "--audit", "--argv0", "--inhibit-rpath"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    # -i and -l take their value attached (`-i{}`), never in the next word.
    "xargs": frozenset(
        "-I -J -L -n -P -s -d -E -a -R -S --delimiter --process-slot-var --max-args "
        "--max-procs --arg-file --eof --max-lines --max-chars".split()
    ),
    "ionice": frozenset({"-c", "-n", "-p"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "chroot": frozenset({"--userspec", "--groups"}),
    "strace": frozenset({"-o", "-e", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-S", "-P"}),
    "ltrace": frozenset({"-o", "-e", "-p", "-s", "-u", "-a", "-n", "-F", "-l", "-x"}),
    "unshare": frozenset({"-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd"}),
    "systemd-run": frozenset(
        "-p -u -E -M -H --unit --property --uid --gid --nice --setenv --slice --description "
        "--service-type --machine --host --timer-property --on-active --on-boot --on-startup "
        "--on-unit-active --on-unit-inactive --on-calendar --path-property "
        "--socket-property".split()
    ),
    "proot": frozenset({"-r", "-b", "-w", "-q", "-k", "-0"}),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
    "aa-exec": frozenset({"-p", "--profile", "-n", "--namespace"}),
    "cpulimit": frozenset({"-l", "--limit", "-p", "--pid", "-e", "--exe"}),
    "choom": frozenset({"-n", "--adjust", "-p", "--pid"}),
    "ssh-agent": frozenset({"-a", "-E", "-t", "-P", "-O"}),
    "valgrind": frozenset({"--tool", "--log-file"}),
    "fakeroot": frozenset({"-l", "--lib", "--faked", "-i", "-s", "-b"}),
    "fakeroot-ng": frozenset({"-l", "-p", "-s"}),
    # bwrap's options taking two values are in _WRAPPER_OPTION_PAIRS
    "bwrap": frozenset(
        "--args --userns --userns2 --pidns --uid --gid --hostname --chdir --unsetenv "
        "--lock-file --sync-fd --remount-ro --exec-label --file-label --proc --dev --tmpfs "
        "--mqueue --dir --seccomp --add-seccomp-fd --block-fd --userns-block-fd --info-fd "
        "--json-status-fd --cap-add --cap-drop --perms --size --argv0".split()
    ),
    "trickle": frozenset({"-d", "-u", "-w", "-t", "-l", "-n"}),
    "flatpak-spawn": frozenset({"--env", "--directory", "--forward-fd", "--app-path"}),
    "distrobox-enter": frozenset({"-n", "--name", "-a", "--additional-flags"}),
    "systemd-nspawn": frozenset(
        "-D --directory -i --image -M --machine -u --user --bind --bind-ro --setenv -E "
        "--chdir --network-interface --private-users --capability --drop-capability".split()
    ),
    "chpst": frozenset({"-u", "-U", "-b", "-e", "-/", "-n", "-l", "-L", "-m", "-d", "-o"}),
    "softlimit": frozenset({"-m", "-a", "-d", "-o", "-p", "-f", "-c", "-r", "-t", "-s", "-l"}),
    "daemonize": frozenset({"-a", "-c", "-e", "-E", "-o", "-p", "-l", "-u"}),
    "multitime": frozenset({"-n", "-s", "-i", "-o"}),
}
#: Wrapper options that take two values (`bwrap --bind SRC DEST`).
_WRAPPER_OPTION_PAIRS = {
    "bwrap": frozenset(
        "--bind --bind-try --dev-bind --dev-bind-try --ro-bind --ro-bind-try --symlink "
        "--setenv --file --bind-data --ro-bind-data --chmod --overlay-src --tmp-overlay "
        "--ro-overlay --remount-ro --bind-fd --ro-bind-fd".split()
    )
    - {"--overlay-src", "--tmp-overlay", "--ro-overlay", "--remount-ro"},
}
#: `RUNNER SUBCOMMAND [options] COMMAND...`: tools that run the command they are
#: given (in an environment of theirs), with the options of theirs that take a value
#: and how many operands come before the command.
_RUNNERS: dict[tuple[str, str], tuple[frozenset[str], int]] = {
    ("uv", "run"): (
        frozenset(
            "--with --python -p --project --directory --package --env-file --extra --group "
            "--index --with-requirements --script".split()
        ),
        0,
    ),
    ("poetry", "run"): (frozenset({"-P", "--project", "-C", "--directory"}), 0),
    ("perf", "stat"): (
        frozenset(
            {"-e", "--event", "-o", "--output", "-p", "--pid", "-r", "--repeat", "-C", "-G", "-I"}
        ),
        0,
    ),
    ("perf", "record"): (
        frozenset(
            {
                "-e",
                "--event",
                "-o",
                "--output",
                "-p",
                "--pid",
                "-F",
                "-c",
                "-C",
                "-g",
                "--call-graph",
            }
        ),
        0,
    ),
    ("perf", "trace"): (frozenset({"-e", "--event", "-o", "--output", "-p", "--pid"}), 0),
    ("pipenv", "run"): (frozenset(), 0),
    ("pdm", "run"): (frozenset({"-p", "--project"}), 0),
    ("hatch", "run"): (frozenset(), 0),
    ("rye", "run"): (frozenset(), 0),
    ("pixi", "run"): (frozenset({"-e", "--environment", "--manifest-path"}), 0),
    ("conda", "run"): (frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}), 0),
    ("mamba", "run"): (frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}), 0),
    ("micromamba", "run"): (frozenset({"-n", "--name", "-p", "--prefix", "--cwd"}), 0),
    ("bundle", "exec"): (frozenset(), 0),
    ("npm", "exec"): (frozenset({"--package", "-w", "--workspace"}), 0),
    ("pnpm", "exec"): (frozenset({"-C", "--dir", "--filter", "-F"}), 0),
    ("yarn", "exec"): (frozenset(), 0),
    ("mise", "exec"): (frozenset({"-C", "--cd"}), 0),
    ("mise", "x"): (frozenset({"-C", "--cd"}), 0),
    ("asdf", "exec"): (frozenset(), 0),
    ("doppler", "run"): (frozenset({"-p", "--project", "-c", "--config", "--token"}), 0),
    ("op", "run"): (frozenset({"--env-file", "--account"}), 0),
    ("dotenvx", "run"): (frozenset({"-f", "--env-file"}), 0),
    ("infisical", "run"): (frozenset({"--env", "--path", "--projectId"}), 0),
    ("aws-vault", "exec"): (frozenset({"-d", "--duration", "-r", "--region"}), 1),
    ("direnv", "exec"): (frozenset(), 1),
    ("chamber", "exec"): (frozenset(), 1),
    ("sops", "exec-env"): (frozenset(), 1),
}
# Wrappers whose first operand is not the program (`timeout 5 rm`, `chroot /srv rm`).
_MAX_WRAPPERS = 16  # unwrapped from one command
_LEADING_OPERAND = frozenset(
    {"timeout", "chrt", "taskset", "chroot", "faketime", "logsave", "setuidgid", "envuidgid"}
)
_SHELLS = frozenset(
    {
        "sh",
        "bash",
        "dash",
        "zsh",
        "ksh",
        "mksh",
        "ash",
        "csh",
        "tcsh",
        "fish",
        "elvish",
        "yash",
        "posh",
        "xonsh",
        "rbash",
        "ksh93",
        "oksh",
        "loksh",
        "busybox-sh",
    }
)
# Options of a shell that take a value in the next word (`bash -o pipefail script`).
_SHELL_OPTION_ARGS = frozenset({"--rcfile", "--init-file"})
_SU = frozenset({"su", "runuser"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_DECLARATIONS = frozenset({"declaration_command", "unset_command"})
_ANSI_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_ANSI = re.compile(
    r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL
)
_BRACE = re.compile(r"\{([^{},]*(?:,[^{},]*)+)\}")
_SEQUENCE = re.compile(r"\{(-?\d{1,9}|[A-Za-z])\.\.(-?\d{1,9}|[A-Za-z])(?:\.\.(-?\d{1,9}))?\}")
_MAX_TRIMMED = 256  # bytes of a value `${X%pattern}` is worked out on (each cut is a match)
_MAX_LOOP_VALUES = 8  # a `for` loop over more known words is walked once, its variable unknown
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_ENV_ASSIGNMENT = re.compile(r"[^=\s/-][^=\s/]*=")
# A `{` where a word starts: bash reads `{rm,-rf,/}` as a word, tree-sitter as a group.
_BRACE_WORD = re.compile(rb"(?<![^\s;&|()`!])\{(?=[^\s}])")
# An expansion a here-document performs: an unescaped `$` that starts one, or a backtick.
_HEREDOC_EXPANSION = re.compile(r"(?:^|[^\\])(?:\\\\)*(?:\$[({A-Za-z0-9_@*#?$!-]|`)")
# An operator that starts a here-document (not a here-string).
_HEREDOC_OPERATOR = re.compile(rb"(?<!<)<<(?!<)")
_PIPE = re.compile(rb"(?<!\|)\|(?!\|)")  # `|` and `|&`, not `||`
_MAX_HEREDOC_COST = 50_000_000  # sum over lines of (expansions on the line) squared
_MAX_REWRITES = 4096  # places one rewrite of the source may change
_DEFAULT_IFS = " \t\n"
_UNKNOWN = "$?"  # how a word whose value cannot be known appears in argv


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One program invocation.

    `name` is the program's base name (`/usr/bin/rm` -> `rm`), "" when it cannot be
    known (and for a bare redirection like `> file`, which runs no program); `argv` the
    words with quotes removed, starting with the program as written, `$?` standing for
    a word whose value cannot be known; `args` the words after it; `flags` its options
    split (`-rf` -> r, f; `--recursive` -> recursive); `redirects` like `>out.txt`,
    `2>/dev/null`, `<<EOF`. `dynamic`: something in it comes from a variable or a
    substitution, or it runs a script or arguments that cannot be seen. `via` says how
    it is reached: "" at top level, "$()", "<()", "bash -c" (also `su -c` and a shell
    fed a here-document or here-string), "eval", "find -exec". `wrappers` are the
    programs it was unwrapped from.
    """

    name: str
    argv: tuple[str, ...]
    args: tuple[str, ...]
    flags: tuple[str, ...]
    redirects: tuple[str, ...] = field(default=())
    raw: str = ""
    dynamic: bool = False
    via: str = ""
    wrappers: tuple[str, ...] = field(default=())
    #: `NAME=value` in effect for it from the line: its own prefix (`X=1 cmd`, `env X=1
    #: cmd`), and earlier assignments of variables that change what runs (`PATH=.; ls`).
    assignments: tuple[str, ...] = field(default=())
    #: The directory it runs in, with `cd`, `pushd`, `popd` and `env -C` followed: an
    #: absolute path, a path relative to the starting directory when that is not
    #: given ("" is the starting directory itself), or None when it cannot be known.
    cwd: str | None = ""
    #: How the words whose value is unknown (`$?` in argv) were written (`$HOME/x`).
    unknown: tuple[str, ...] = field(default=())
    #: (pipeline number, stage) — 0 when it is in no pipeline — so that what feeds a
    #: command's standard input can be found.
    pipe: tuple[int, int] = (0, 0)
    #: The function whose body holds it ("" outside any).
    function: str = ""
    #: Indexes [start, end) of the commands run by its own substitutions (`$(...)`,
    #: `<(...)` in its words), which come before it in the list.
    inner: tuple[int, int] = (0, 0)
    #: Under xargs: the operands it reads were known (literal text piped in) and are in
    #: `argv`, so nothing unseen is added to them.
    fed: bool = False
    #: Index of the command whose script it belongs to (`bash -c`, `eval`, `ssh`,
    #: `find -exec`, `alias`, ...), or -1.
    parent: int = -1
    #: The text a here-document or here-string feeds to its standard input, when known.
    stdin: str | None = None
    #: Variables whose value it expands and the line does not set (`$AWS_SECRET`).
    variables: tuple[str, ...] = field(default=())

    def to_cel(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "argv": list(self.argv),
            "args": list(self.args),
            "flags": list(self.flags),
            "redirects": list(self.redirects),
            "raw": self.raw,
            "dynamic": self.dynamic,
            "via": self.via,
            "wrappers": list(self.wrappers),
        }


@dataclass(frozen=True, slots=True)
class Analysis:
    """Everything a rule may ask about one command line."""

    commands: tuple[SimpleCommand, ...]
    #: "" when the line parsed cleanly; otherwise what and where (1-based line:col).
    parse_error: str = ""
    #: Code whose output becomes data, or a script run from a string:
    #: `$(...)`, backticks, `<(...)`, `eval`, `bash -c`, `curl x | sh`, `find -exec`.
    has_substitution: bool = False
    #: "" when the analysis went to the end; otherwise why it gave up: the cap it met,
    #: named (`... (cap: analysis.max_word_bytes)`), or the error it failed with.
    #: `commands` then holds what was seen before, and `parse_error` says the same:
    #: what the line does is not known, and a policy must refuse it.
    limit: str = ""
    #: The answer depends on the clock (the wall-clock backstop, a guard against bugs,
    #: stopped it): no cache may keep it.
    clocked: bool = False
    #: Units of work spent (walk and parse steps): what nested analyses add up.
    cost: int = 0
    #: Bytes of the words, values and here-documents it built (what `MAX_TOTAL_BYTES`
    #: bounds): a large analysis is not memoised (`KEEP_BYTES`).
    built: int = 0

    @property
    def dynamic(self) -> bool:
        """True when some command cannot be known without running the shell."""
        return bool(self.parse_error or self.limit) or any(c.dynamic for c in self.commands)


def commands(command: str) -> list[SimpleCommand]:
    """The simple commands `command` would run, in source order (nested ones too)."""
    return list(analyze(command).commands)


def has_substitution(command: str) -> bool:
    return analyze(command).has_substitution


def parse_error(command: str) -> str:
    return analyze(command).parse_error


def analyze(command: str, cwd: str = "", home: str = "") -> Analysis:
    """The analysis of one command line; memoised, since rules ask about the same
    line several times per call (`cache_info`, `cache_clear` as functools gives them).

    `cwd` (absolute) is the directory the line starts in and `home` the user's home:
    with them `$PWD`, `$HOME` and `~` have known values and every command's `cwd`
    is absolute until a `cd` to somewhere unknown. Without them a command's `cwd`
    is relative to wherever the line starts ("" for that directory itself).

    Never raises. A line past a cap comes back with `limit` (and `parse_error`) set.
    """
    given: object = command  # callers outside Python's type checks may pass anything
    if not isinstance(given, str):
        refused = f"not a string: {type(given).__name__}"
        return Analysis((), refused, False, limit=refused)
    try:
        return _memoised(given, cwd, home)
    except _Unkept as exc:  # not memoised (stopped by the clock, or large)
        return exc.analysis


@functools.lru_cache(maxsize=2048)
def _memoised(command: str, cwd: str, home: str) -> Analysis:
    source = command.encode("utf-8", "surrogatepass")
    if len(source) > MAX_INPUT:
        too_long = f"command longer than {MAX_INPUT} bytes"
        refused = str(_TooComplex("analysis.max_input_bytes", too_long))
        return Analysis((), refused, False, limit=refused)
    walker = _Walker(cwd, home)
    limit = ""
    clocked = False
    try:
        walker.script(source, 0, "")
    except _TooComplex as exc:
        limit = str(exc)
        clocked = exc.cap == "analysis.max_seconds"
    except RecursionError:
        limit = str(_TooComplex("analysis.max_nesting", "nested too deep for the analysis"))
    except Exception as exc:  # noqa: BLE001 - never raise on input; refuse it instead
        limit = f"the analysis failed: {type(exc).__name__}: {exc}"
    found = Analysis(
        tuple(walker.found),
        walker.error or limit,
        walker.substitution,
        limit=limit,
        clocked=clocked,
        cost=walker.steps + walker.parse_steps,
        built=walker.total_bytes,
    )
    if not _kept(found):
        raise _Unkept(found)
    return found


def _kept(analysis: Analysis) -> bool:
    """Whether a memo may keep `analysis`: not when the clock stopped it, nor when it
    is large (the memo holds 2,048 lines: of at most `KEEP_BYTES` each, not of
    `MAX_TOTAL_BYTES`)."""
    return not analysis.clocked and analysis.built <= KEEP_BYTES


analyze.cache_info = _memoised.cache_info  # type: ignore[attr-defined]
analyze.cache_clear = _memoised.cache_clear  # type: ignore[attr-defined]


# ------------------------------------------------------------------ internals


class _TooComplex(Exception):
    """A cap was met; `cap` names it (`analysis.max_steps`)."""

    def __init__(self, cap: str, what: str) -> None:
        super().__init__(f"{what} (cap: {cap})")
        self.cap = cap


def _too_many_words(what: str) -> _TooComplex:
    return _TooComplex("analysis.max_words", f"{what} more than {MAX_WORDS} words")


def _too_deep(what: str) -> _TooComplex:
    return _TooComplex("analysis.max_depth", f"{what} nested deeper than {MAX_DEPTH}")


class _Unkept(Exception):
    """Carries an analysis past `_memoised`'s cache (see `_kept`)."""

    def __init__(self, analysis: Analysis) -> None:
        super().__init__(analysis.limit)
        self.analysis = analysis


_local = threading.local()


def _parser() -> Any:
    """One tree-sitter parser per thread (parsers are not thread-safe); imported lazily."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter
        import tree_sitter_bash

        parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))
        _local.parser = parser
    return parser


def _parse(source: bytes, walker: _Walker, nested: bool) -> tuple[Any, bytes]:
    """The syntax tree of `source`, with two misreadings of tree-sitter-bash undone by
    rewriting the source into an equivalent that it reads as bash does, then parsing
    again: a `{` that starts a word taken for a group (`{rm,-rf,/}`), and backquotes
    (`` `a` `b` `` read as one substitution, `` `a \\`b\\`` `` with b unseen).
    Returns the tree and the source it was parsed from. The parse steps are charged
    to `walker`; `nested`: a script inside the line (`bash -c`, `eval`, `$(...)`)."""
    if source.count(b"|") > MAX_PIPES and len(_PIPE.findall(source)) > MAX_PIPES:
        # No progress callback fires while tree-sitter recovers from an error in a
        # long pipeline, and that recovery is quadratic in the pipeline's length.
        raise _TooComplex("analysis.max_pipes", f"more than {MAX_PIPES} pipes in one script")
    if _HEREDOC_OPERATOR.search(source) and source.count(b"$") ** 2 > _MAX_HEREDOC_COST:
        # tree-sitter-bash reads a here-document line in time quadratic in its expansions.
        cost = sum(line.count(b"$") ** 2 for line in source.split(b"\n"))
        if cost > _MAX_HEREDOC_COST:
            raise _TooComplex(
                "analysis.max_parse_steps", "a here-document line with too many expansions"
            )
    tree = _parse_once(source, walker, nested)
    for fix in (_brace_edits, _backquote_edits):
        if fix is _backquote_edits and source.count(b"`") >= 3:
            # rewritten in Python, byte by byte: charged before it is done
            walker.parse_work(source.count(b"`") + len(source) // 16)
        edits = fix(tree.root_node, source)
        if edits:
            pieces: list[bytes] = []
            last = 0
            for start, end, replacement in edits:
                pieces += (source[last:start], replacement)
                last = end
            pieces.append(source[last:])
            source = b"".join(pieces)
            tree = _parse_once(source, walker, nested)
    return tree, source


def _shape_cost(source: bytes, nested: bool) -> int:
    """Parse steps charged before `source` is parsed, for the shapes on which one
    tree-sitter-bash operation costs far more than others, in a way its progress
    callbacks do not show: backquotes (a line of many backquoted substitutions is
    reduced again and again: quadratic in them), `)` that close nothing (each costs
    more than the last: quadratic), `${` (an expansion costs dozens of times an
    ordinary token), and, in a nested script (which an expansion may hand to
    a shell again and again), a long pipeline that ends in an error (recovered from
    in one step, quadratic in its length; `MAX_PIPES` bounds it in the line itself).
    What a quoted here-document holds is counted too, so the quadratic terms are
    counted per line, where a here-document's text is spread."""
    cost = source.count(b"${") * _EXPANSION_COST
    closers = source.count(b")") - source.count(b"(")
    if closers > 0:
        cost += closers * closers // _CLOSER_COST
    if source.count(b"`") > 1:
        cost += sum(line.count(b"`") ** 2 for line in source.split(b"\n")) // _BACKQUOTE_COST
    if nested and source.count(b"|") > 32:
        pipes = len(_PIPE.findall(source))
        cost += pipes * pipes // _PIPE_COST
    return cost


def _parse_once(source: bytes, walker: _Walker, nested: bool) -> Any:
    """Parse `source`, charging `walker` a parse step per `_CHUNK` bytes tree-sitter
    reads (its lexer reads some shapes again and again: `x=(x=(...`, here-document
    lines full of `$(`), `_CALLBACK_COST` per progress callback (one every 100 parser
    operations) — more once the parse has met an error, as tree-sitter's error
    recovery costs more the further it is into the source — and the cost of its
    shape (`_shape_cost`); cut at `MAX_PARSE_STEPS`. Deterministic: tree-sitter does
    the same work on the same source on any machine."""
    walker.parse_work(_shape_cost(source, nested))
    parser = _parser()
    over = False

    def read(offset: int, _point: Any) -> bytes:
        nonlocal over
        walker.parse_steps += 1
        if walker.parse_steps > MAX_PARSE_STEPS:
            over = True
            return b""  # (an exception raised here does not come back out of parse)
        return source[offset : offset + _CHUNK]

    def progress(offset: int, has_error: bool) -> bool:
        walker.parse_steps += _CALLBACK_COST + (offset // _ERROR_COST if has_error else 0)
        return over or walker.parse_steps > MAX_PARSE_STEPS or walker.late()

    # The nodes of a tree parsed from `read` read their text through it, so the
    # walker slices its own copy of the source instead (`_Walker.text`).
    try:
        tree = parser.parse(read, progress_callback=progress)
    except ValueError:  # cancelled by `progress`
        parser.reset()
        tree = None
    if over or walker.parse_steps > MAX_PARSE_STEPS:
        raise _TooComplex(
            "analysis.max_parse_steps", f"parsing took more than {MAX_PARSE_STEPS} steps"
        )
    if tree is None:
        raise walker.backstop()
    return tree


def _brace_edits(root: Any, source: bytes) -> list[tuple[int, int, bytes]]:
    """`""` before a `{` that starts a word but that tree-sitter takes for a group's
    (bash requires a blank after a group's `{`); bash expands `""` to nothing."""
    if b"{" not in source:
        return []
    edits: list[tuple[int, int, bytes]] = []
    for count, match in enumerate(_BRACE_WORD.finditer(source)):
        if count >= _MAX_REWRITES:
            break
        token = root.descendant_for_byte_range(match.start(), match.start() + 1)
        if token is not None and token.type == "{" and not token.is_named:
            edits.append((match.start(), match.start(), b'""'))
    return edits


def _backquote_edits(root: Any, source: bytes) -> list[tuple[int, int, bytes]]:
    """`$(...)` for a backquoted substitution that holds another backquote: bash ends
    one at the first unescaped backquote and runs `\\`...\\`` inside as a nested one."""
    if source.count(b"`") < 3:
        return []
    edits: list[tuple[int, int, bytes]] = []
    stack = [root]
    while stack and len(edits) < _MAX_REWRITES:
        node = stack.pop()
        if node.type == "command_substitution":
            start, end = node.start_byte, node.end_byte
            if source[start : start + 1] == b"`" and b"`" in source[start + 1 : end - 1]:
                edits.append((start, end, _dollar_parens(source[start:end])))
                continue
        stack.extend(node.children)
    return sorted(edits)


def _dollar_parens(text: bytes) -> bytes:
    """`` `a` `b \\`c\\`` `` -> `$(a) $(b $(c))`, the way bash pairs backquotes."""
    out = bytearray()
    index, size = 0, len(text)
    opened = -1
    while index < size:
        char = text[index]
        if char == 0x5C:  # a backslash quotes the next byte
            if opened < 0:
                out += text[index : index + 2]
            index += 2
            continue
        if char == 0x60:
            if opened < 0:
                opened = index + 1
            else:
                inner = re.sub(rb"\\([$`\\])", rb"\1", text[opened:index])
                out += b"$(" + _dollar_parens(inner) + b"\n)"
                opened = -1
        elif opened < 0:
            out.append(char)
        index += 1
    if opened >= 0:
        out += text[opened - 1 :]
    return bytes(out)


class _Word:
    """A word after expansion: its fields (None where unknown), whether a variable or
    substitution went into it, and its template: the word with every unknown part
    replaced by `$?` (what a nested script such as `bash -c "..."` is parsed from).
    `split_before` / `split_after`: an unquoted expansion began / ended with a field
    separator, so it does not join the text next to it. `grown`: the bytes expansions
    put into it (what `MAX_WORD_BYTES` bounds; the source's own text is bounded by
    `MAX_INPUT`)."""

    __slots__ = ("dynamic", "grown", "split_after", "split_before", "template", "values")

    def __init__(
        self,
        values: list[str] | None,
        dynamic: bool,
        template: str | None = None,
        split_before: bool = False,
        split_after: bool = False,
        *,
        grown: int = 0,
    ) -> None:
        self.values = values
        self.dynamic = dynamic
        if template is None:
            template = _UNKNOWN if values is None else " ".join(values)
        self.template = template
        self.split_before = split_before
        self.split_after = split_after
        self.grown = grown


class _Unknown(str):
    """`$?` in a word list, remembering the template of the word it stands for."""

    template: str

    def __new__(cls, template: str) -> _Unknown:
        word = super().__new__(cls, _UNKNOWN)
        word.template = template
        return word


class _Array(str):
    """The value of an indexed array the line spells out (`a=(x y)`, `a+=(z)`,
    `read -a`, `mapfile`): as a string it is `${a[0]}`, what `$a` expands to; `items`
    are its elements at indexes 0, 1, ... (a sparse array is not followed: unknown).
    `open`: the last element is an unquoted glob (`a=(*.py)`), which bash replaces by
    any number of files, so any index from it on may be any of them (the pattern)."""

    items: tuple[str, ...]
    open: bool

    def __new__(cls, items: Iterable[str], *, open: bool = False) -> _Array:
        values = tuple(str(item) for item in items)
        array = super().__new__(cls, values[0] if values else "")
        array.items = values
        array.open = open
        return array


class _Redirect(NamedTuple):
    text: str  # as reported: `>out`, `2>&1`, `<<EOF`, `<<<text`
    stdin: bool  # replaces standard input
    script: str | None  # the text it feeds to standard input, when known
    dynamic: bool  # its target (a file) comes from an expansion
    expands: bool = False  # the text it feeds comes partly from expansions
    #: The text it feeds is known as the shell would feed it (a here-string's
    #: expansions included, without its final newline; a here-document's body).
    known: bool = False


class _Walker:
    def __init__(self, cwd: str = "", home: str = "") -> None:
        self.found: list[SimpleCommand] = []
        self.error = ""
        self.substitution = False
        # What the caps count (module constants MAX_*): the work done so far, in walk
        # steps and parse steps, the bytes of words built, the words found.
        self.steps = 0
        self.parse_steps = 0
        self.total_bytes = 0
        self.words = 0
        self.next_clock = 1024  # the step count at which the backstop is next looked at
        self.deadline = time.monotonic() + BACKSTOP_S
        self.variables: dict[str, str | None] = {}
        #: Variables whose value the context gives (`$HOME`, `$PWD`): expanding them
        #: is not "dynamic", they say nothing the caller does not know.
        self.given: set[str] = set()
        #: `$1`... of the script being walked (`sh -c '...' NAME ARGS`), when known.
        self.positional: list[str] | None = None
        #: The bodies of the functions the line defines, to walk again with the
        #: arguments of a call (`f() { cat ~/"$1"; }; f .aws/credentials`).
        self.functions: dict[str, str] = {}
        self.home = home
        self.cwd: str | None = _normal_dir(cwd) if cwd.startswith("/") else ""
        self.oldpwd: str | None = None
        self.dirs: list[str | None] = []  # pushd's stack
        if home:
            self.variables["HOME"] = home
            self.given.add("HOME")
        if self.cwd:
            self.variables["PWD"] = self.cwd
            self.given.add("PWD")
        if home or self.cwd:
            # the temporary directory, as most systems set it (macOS's per-user one is
            # scratch space just the same)
            self.variables["TMPDIR"] = "/tmp"
            self.given.add("TMPDIR")
        #: Line-level assignments of variables that change what later commands run.
        self.acting: dict[str, str] = {}
        #: Attributes variables were declared with that change what they hold
        #: (`declare -l`, `-u`, `-i`), associative arrays (`declare -A`), and name
        #: references (`declare -n`: assigning one may change any variable).
        self.attributes: dict[str, str] = {}
        self.assoc: set[str] = set()
        self.refs: set[str] = set()
        self.pipe: tuple[int, int] = (0, 0)
        self.pipes = 0
        #: Variables expanded by the command whose words are being read.
        self.expanded: list[str] = []
        self.function = ""
        self.parent = -1
        self.level = 0  # words and bodies being walked inside one another
        #: byte ranges of the here-document bodies of the script being walked, which
        #: are parsed apart: tree-sitter's errors inside them do not count
        self.bodies: list[tuple[int, int]] = []
        self.source = b""  # of the tree being walked

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")

    # -- the caps

    def step(self, units: int = 1) -> None:
        """Charge `units` of work: a node visited, a word expanded, a loop round, a
        word made by brace expansion, a look over the commands found..."""
        self.steps += units
        if self.steps > MAX_STEPS:
            raise _TooComplex("analysis.max_steps", f"more than {MAX_STEPS} steps of analysis")
        if self.steps >= self.next_clock:
            self.next_clock = self.steps + 1024
            if self.late():
                raise self.backstop()

    def nest(self) -> None:
        """One level deeper in words inside words and bodies inside bodies."""
        self.level += 1
        if self.level > MAX_NESTING:
            raise _TooComplex(
                "analysis.max_nesting", f"words and bodies nested deeper than {MAX_NESTING}"
            )

    def parse_work(self, units: int) -> None:
        """Charge `units` of parse steps for work done on a script's source outside
        tree-sitter (before it is done)."""
        self.parse_steps += units
        if self.parse_steps > MAX_PARSE_STEPS:
            raise _TooComplex(
                "analysis.max_parse_steps", f"parsing took more than {MAX_PARSE_STEPS} steps"
            )

    def late(self) -> bool:
        return time.monotonic() > self.deadline

    def backstop(self) -> _TooComplex:
        return _TooComplex("analysis.max_seconds", f"took longer than {BACKSTOP_S:g} s")

    def built(self, size: int) -> None:
        """Charge the bytes of a word, value or here-document the walk copies or
        builds (each time: a loop or a function walks its body again)."""
        self.total_bytes += size
        if self.total_bytes > MAX_TOTAL_BYTES:
            raise _TooComplex(
                "analysis.max_total_bytes", f"words of more than {MAX_TOTAL_BYTES} bytes in all"
            )

    def expanded_word(self, size: int) -> None:
        """Refuse a word into which expansions put more than `MAX_WORD_BYTES` (checked
        before it is built)."""
        if size > MAX_WORD_BYTES:
            raise _TooComplex(
                "analysis.max_word_bytes", f"expanded word larger than {MAX_WORD_BYTES} bytes"
            )

    def delivered(self, size: int) -> None:
        """An expansion puts `size` bytes into a word."""
        self.expanded_word(size)
        self.built(size)

    def replaced(self, word: str, old: str, new: str) -> str:
        """`word.replace(old, new)`, charged (and refused past the caps) before it is built."""
        count = word.count(old) if old else 0
        if not count:
            return word if type(word) is str else str(word)
        self.delivered(len(word) + count * (len(new) - len(old)))
        return word.replace(old, new)

    def substituted(self, pattern: re.Pattern[str], new: str, word: str) -> str:
        """`pattern.sub(new, word)` (`new` taken literally), charged before it is built."""
        count = sum(1 for _ in pattern.finditer(word))
        if not count:
            return word if type(word) is str else str(word)
        self.delivered(len(word) + count * len(new))
        return pattern.sub(lambda _: new, word)

    # -- scripts and statements

    def script(self, source: bytes, depth: int, via: str) -> None:
        if depth > MAX_DEPTH:
            raise _too_deep("scripts")
        tree, parsed = _parse(source, self, depth > 0)
        root = tree.root_node
        outer = self.bodies, self.source
        self.bodies, self.source = [], parsed
        try:
            self.walk(root, depth, via, ())
        finally:
            if root.has_error and not self.error:
                self.error = _describe_error(root, self.bodies, self.source)
            self.bodies, self.source = outer

    def walk(self, node: Any, depth: int, via: str, redirects: tuple[_Redirect, ...]) -> None:
        """Visit `node` and its statements in source order, without recursion in Python
        for plain nesting (a 10,000-deep `$(` must not exhaust the stack). `redirects`
        apply to every command inside (`{ a; b; } > out`)."""
        # (node, via, redirects, redirects for the last command of a list only, pipe)
        stack: list[tuple[Any, str, tuple[_Redirect, ...], bool, tuple[int, int]]] = [
            (node, via, redirects, False, self.pipe)
        ]
        outer_pipe = self.pipe
        # A loop, a function or a word walks its body with a call of its own: the
        # nesting is bounded, with words inside words, by MAX_NESTING (long before
        # Python's own recursion limit, so the answer does not depend on the caller).
        self.nest()
        try:
            self._walk(stack, depth)
        finally:
            self.pipe = outer_pipe
            self.level -= 1

    def _walk(
        self,
        stack: list[tuple[Any, str, tuple[_Redirect, ...], bool, tuple[int, int]]],
        depth: int,
    ) -> None:
        while stack:
            current, where, pending, last_only, pipe = stack.pop()
            self.pipe = pipe
            self.step()
            kind = current.type
            if kind == "function_definition":
                self.define(current, depth, where, pending)
                continue
            if kind == "pipeline":
                self.pipes += 1
                number = self.pipes
                stage = 0
                staged: list[tuple[Any, tuple[int, int]]] = []
                for child in current.children:
                    if child.type in ("|", "|&"):
                        stage += 1
                        continue
                    staged.append((child, (number, stage)))
                last = len(staged) - 1
                for index in range(last, -1, -1):
                    child, position = staged[index]
                    mine = last_only and index == last
                    given = pending if (mine or not last_only) else ()
                    stack.append((child, where, given, mine, position))
                continue
            if kind == "command":
                self.command(current, depth, where, pending, ())
                continue
            if kind == "variable_assignment":
                self.assign(current, depth, where)
                continue
            if kind in _DECLARATIONS:
                self.declaration(current, depth, where, pending)
                continue
            if kind == "redirected_statement":
                self.redirected(current, depth, where, pending, stack, pipe)
                continue
            if kind == "file_redirect":
                # `$(<file)`: bash's shorthand for `$(cat file)`
                found, _, after = self.redirect(current, depth, where)
                self.emit([], (*pending, *found), any(r.dynamic for r in found), depth, where)
                for statement in after:
                    self.walk(statement, depth, where, ())
                continue
            if kind == "for_statement":
                self.loop(current, depth, where, pending)
                continue
            if kind in _SUBSTITUTIONS:
                self.substitution = True
                where = "<()" if kind == "process_substitution" else "$()"
            if kind in _ARITHMETIC or (
                kind == "compound_statement"
                and current.children[:1]
                and current.children[0].type == "(("
            ):
                self.arithmetic(current, depth)
            children = current.children
            if not children:
                continue
            if last_only and kind == "list":
                # tree-sitter hangs `a && b > out` on the list; bash on `b` alone.
                last = len(children) - 1
                for index in range(last, -1, -1):
                    mine = index == last
                    stack.append((children[index], where, pending if mine else (), mine, pipe))
            else:
                for index in range(len(children) - 1, -1, -1):
                    stack.append((children[index], where, pending, False, pipe))

    def loop(self, node: Any, depth: int, via: str, pending: tuple[_Redirect, ...]) -> None:
        """`for X in WORDS; do BODY; done`: the body is walked once per word (up to
        `_MAX_LOOP_VALUES` known words), with `$X` that word; otherwise once, with
        `$X` unknown."""
        variable = node.child_by_field_name("variable")
        name = self.text(variable) if variable is not None else ""
        values: list[str] = []
        known = True
        rest: list[Any] = []
        for index, child in enumerate(node.children):
            field_name = node.field_name_for_child(index)
            if field_name == "value":
                word = self.word(child, depth, via)
                if word.values is None:
                    known = False
                else:
                    values.extend(word.values)
            elif field_name == "body" or (child.is_named and field_name != "variable"):
                rest.append(child)
        values = _expand_braces(values, self)
        rounds: list[str | None] = (
            list(values) if known and 0 < len(values) <= _MAX_LOOP_VALUES else [None]
        )
        for value in rounds:
            self.step()
            if name:
                self.variables[name] = value
                self.given.discard(name)
            for child in rest:
                self.walk(child, depth, via, pending)

    def define(self, node: Any, depth: int, via: str, pending: tuple[_Redirect, ...]) -> None:
        """`f() { ...; }`: its body is code, walked here (where it is defined: a call of
        `f` runs the same commands) with the commands marked as the function's, so a
        function that calls itself can be seen."""
        name_node = node.child_by_field_name("name")
        name = self.text(name_node) if name_node is not None else ""
        if depth + 1 > MAX_DEPTH:
            raise _too_deep("functions")
        outer = self.function
        self.function = name
        before = (dict(self.variables), self.positional, self.cwd)
        try:
            for child in node.children:
                if child.is_named and (name_node is None or child.id != name_node.id):
                    self.walk(child, depth + 1, via, pending)
                    if name and len(self.functions) < 64:
                        self.built(child.end_byte - child.start_byte)
                        self.functions[name] = self.text(child)
        finally:
            self.function = outer
            self.unsettled(*before)

    def unsettled(
        self, variables: dict[str, str | None], positional: list[str] | None, cwd: str | None
    ) -> None:
        """After a function's body was walked where it is defined: what it assigns,
        the positional parameters it sets and the directory it changes to hold
        whether or not it is called (a call without arguments is not walked again),
        so they are unknown from here on."""
        self.step(len(self.variables))
        for name, value in self.variables.items():
            if name not in variables or variables[name] is not value:
                self.variables[name] = None
                self.given.discard(name)
        if self.positional is not positional:
            self.positional = None
        if self.cwd != cwd:
            self.set_cwd(None)

    def redirected(
        self,
        node: Any,
        depth: int,
        via: str,
        pending: tuple[_Redirect, ...],
        stack: list[tuple[Any, str, tuple[_Redirect, ...], bool, tuple[int, int]]],
        pipe: tuple[int, int],
    ) -> None:
        """`body > out`: the redirects apply to the body; what tree-sitter put inside a
        here-document redirect (`cat <<EOF | sh`, `cat <<EOF file`) is sorted out."""
        body = node.child_by_field_name("body")
        redirects: list[_Redirect] = []
        extra: list[_Word] = []
        trailing: list[Any] = []
        for index, child in enumerate(node.children):
            if body is not None and child.id == body.id:
                continue
            if child.type in _REDIRECTS or node.field_name_for_child(index) == "redirect":
                found, words, after = self.redirect(child, depth, via)
                redirects += found
                extra += words
                trailing += after
            elif child.is_named:
                trailing.append(child)
        for child in reversed(trailing):
            stack.append((child, via, (), False, pipe))
        every = pending + tuple(redirects)
        if body is None:
            # `> file` alone runs no program but creates or truncates the file.
            if redirects:
                dynamic = any(r.dynamic for r in redirects)
                self.emit([], every, dynamic, depth, via)
        elif body.type == "command":
            self.command(body, depth, via, every, tuple(extra))
        else:
            stack.append((body, via, every, True, pipe))

    def assign(self, node: Any, depth: int, via: str, *, track: bool = True) -> _Word:
        """`X=value`: walk the value (and an index: `a[$(id)]=1`); remember a plain
        value for later `$X` in the same line, an array's elements (`a=(x y)`,
        `a+=(z)`, `a[1]=y`) for later `${a[1]}` and `"${a[@]}"`."""
        name_node = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name_node is not None and name_node.type != "variable_name":
            self.word(name_node, depth, via)
        items: list[str] | None = None
        is_open = False
        if track and value is not None and value.type == "array":
            items, is_open, word = self.array_value(value, depth, via)
        else:
            word = (
                self.word(value, depth, via, quoted=True)
                if value is not None
                else _Word([""], False)
            )
        if not track or name_node is None:
            return word
        appended = any(child.type == "+=" for child in node.children)
        if name_node.type == "subscript":
            parts = name_node.children
            name = self.text(parts[0]) if parts else ""
            scalar = None if word.values is None else " ".join(word.values)
            key = parts[2] if len(parts) == 4 else None
            at = self.index_of(key) if key is not None and name not in self.assoc else None
            self.set_element(name, at, scalar, appended=appended)
            return word
        name = self.text(name_node)
        known: str | None = None
        if items is not None:
            known = self.appended_items(name, items, is_open) if appended else _Array(items)
            if known is not None and not known.items:
                known = None  # `a=()`: no element, `$a` unset
            elif known is not None and is_open and not known.open:
                known = _Array(known.items, open=True)
        elif value is None or value.type != "array":
            if word.values is not None:
                known = " ".join(word.values)
            previous = self.variables.get(name)
            if known is not None and appended:
                if previous is not None:  # `a+=$a`: doubled as `a=$a$a` is
                    self.expanded_word(len(previous) + word.grown)
                    self.built(len(previous) + len(known))
                known = None if previous is None else previous + known
            if known is not None and isinstance(previous, _Array):
                # `a=x`, `a+=x` on an array change its element 0 only
                known = _Array((known, *previous.items[1:]), open=previous.open)
        self.store(name, known, template=word.template)
        if known is not None:
            # `v='x[$(id)]'; echo $((v))`, `x='$(id)'; echo ${x@P}`: arithmetic and
            # prompt expansion run what the value spells
            for text in known.items if isinstance(known, _Array) else (known,):
                self.latent(text, depth)
        return word

    def array_value(self, node: Any, depth: int, via: str) -> tuple[list[str] | None, bool, _Word]:
        """`(x "y z" {a,b} *.py)`: its elements as bash makes them (fields split,
        braces expanded), each word walked once; None when one is unknown, spelled
        `[k]=v` (sparse or associative), or an unquoted glob before the last. Also
        whether the last is such a glob, and the value as a word (its text)."""
        items: list[str] | None = []
        is_open = False
        dynamic = False
        for child in node.children:
            if not child.is_named:
                continue
            if child.type == "concatenation" and child.children[:1] and (
                self.text(child.children[0]) == "["
            ):
                self.word(child, depth, via)  # `([k]=v)`
                items = None
                continue
            word = self.word(child, depth, via)
            dynamic = dynamic or word.dynamic
            if word.values is None or items is None or is_open:
                items = None
                continue
            if self.braces_quoted(child):
                values: list[str] = list(word.values)
            else:
                values = _expand_braces(list(word.values), self)
            if child.type not in _QUOTED_KINDS and any(_GLOB.search(v) for v in values):
                is_open = True  # bash puts the files it matches here: how many, unknown
            items.extend(str(v) for v in values)
        self.built(node.end_byte - node.start_byte)
        if items is None:
            return None, False, _Word(None, True, self.text(node))
        return items, is_open, _Word([self.text(node)], dynamic)

    def appended_items(self, name: str, items: list[str], is_open: bool) -> _Array | None:
        """`a+=(x y)`: the elements after those `a` had, when they are known."""
        previous = self.variables.get(name)
        if previous is None or name in self.assoc:
            return None
        before = previous.items if isinstance(previous, _Array) else (previous,)
        if isinstance(previous, _Array) and previous.open:
            return None  # after an unquoted glob: at which index, unknown
        self.step(len(before) + len(items))
        self.built(sum(len(v) for v in before))
        return _Array((*before, *items), open=is_open)

    def set_element(self, name: str, at: int | None, value: str | None, *, appended: bool) -> None:
        """`a[i]=v` (and `a[i]+=v`, `printf -v 'a[i]'`, `read 'a[i]'`): the element
        changed, when the array and the index are known; else the array is unknown."""
        previous = self.variables.get(name)
        if name in self.assoc or previous is None or at is None or value is None:
            self.store(name, None)
            return
        items = list(previous.items if isinstance(previous, _Array) else (previous,))
        is_open = isinstance(previous, _Array) and previous.open
        if at < 0:
            at += len(items)
        if is_open or at < 0 or at > len(items):
            self.store(name, None)  # past the end (sparse), or after a glob
            return
        if appended:
            value = (items[at] if at < len(items) else "") + value
        self.step(len(items))
        self.built(len(value) + sum(len(v) for v in items))
        if at == len(items):
            items.append(value)
        else:
            items[at] = value
        self.store(name, _Array(items))

    def store(self, name: str, value: str | None, *, template: str | None = None) -> None:
        """`name` now holds `value` (None: unknown), with the attributes it was
        declared with (`declare -l`, `-u`, `-i`) applied; through a name reference
        (`declare -n`), any variable may have changed."""
        if name in self.refs:
            for other in self.variables:
                if other not in self.given:
                    self.variables[other] = None
            value = None
        value = self.attributed(name, value)
        self.variables[name] = value
        self.given.discard(name)
        if acting_variable(name):
            self.acting[name] = value if value is not None else (template or _UNKNOWN)

    def attributed(self, name: str, value: str | None) -> str | None:
        """`value` as a variable declared `-l` (lower case), `-u` (upper case) or `-i`
        (an integer: evaluated as arithmetic, known here for a plain number) holds it."""
        attributes = self.attributes.get(name, "")
        if value is None or not attributes:
            return value
        values = value.items if isinstance(value, _Array) else (value,)
        if "i" in attributes:
            if not all(_INTEGER.match(v) for v in values):
                return None
        elif "l" in attributes:
            values = tuple(v.lower() for v in values)
        elif "u" in attributes:
            values = tuple(v.upper() for v in values)
        if isinstance(value, _Array):
            return _Array(values, open=value.open)
        return values[0]

    def index_of(self, node: Any) -> int | None:
        """An indexed array's subscript, evaluated when it is a number or a variable
        holding one (`a[1]`, `a[-1]`, `a[i]`, `a[$i]`); None otherwise."""
        if node is None:
            return None
        if node.type == "simple_expansion" and node.named_child_count == 1:
            node = node.named_children[0]
        return self.index_text(self.text(node))

    def index_text(self, text: str) -> int | None:
        text = text.strip()
        if _IDENTIFIER.match(text):
            text = self.variables.get(text) or ""
        if not _INTEGER.match(text):
            return None
        return int(text)

    def valued(self, value: str, quoted: bool, dynamic: bool = True) -> _Word:
        """A known value expanded into a word: one field when quoted, else split at $IFS."""
        value = str(value)
        grown = len(value)
        self.delivered(grown)
        if quoted:
            return _Word([value], dynamic, value, grown=grown)
        ifs = self.variables.get("IFS", _DEFAULT_IFS)
        if ifs is None:
            return _Word(None, True)
        fields, before, after = _split_fields(value, ifs)
        return _Word(fields, dynamic, value, before, after, grown=grown)

    def element(self, name: str, key: str | int | None, quoted: bool) -> _Word:
        """`${a[i]}`, `"${a[@]}"`, `"${a[*]}"` (key "@", "*" or an index; None when
        the index is unknown) of an array (or a plain variable: its element 0)."""
        value = self.variables.get(name)
        if value is None or key is None or name in self.assoc:
            self.expanded.append(name)
            return _Word(None, True)
        dynamic = name not in self.given
        items = value.items if isinstance(value, _Array) else (str(value),)
        if key in ("@", "*"):
            grown = sum(len(v) + 1 for v in items)
            self.delivered(grown)
            self.step(len(items))
            if quoted and key == "@":
                return _Word(list(items), dynamic, grown=grown)
            ifs = self.variables.get("IFS", _DEFAULT_IFS)
            if ifs is None:
                return _Word(None, True)
            if quoted:
                joined = ifs[:1].join(items)
                return _Word([joined], dynamic, joined, grown=grown)
            return _Word([w for v in items for w in _split_fields(v, ifs)[0]], dynamic, grown=grown)
        assert isinstance(key, int)
        at = key + len(items) if key < 0 else key
        is_open = isinstance(value, _Array) and value.open
        if is_open and at >= len(items) - 1:
            at = len(items) - 1  # one of the files the glob matched
        if at < 0 or at >= len(items) or (at and not isinstance(value, _Array)):
            # unset (an expansion to nothing): taken as unknown, never as "no file"
            return _Word(None, True)
        return self.valued(items[at], quoted, dynamic)

    def subscript_of(self, node: Any) -> tuple[str, str | int | None] | None:
        """`${a[KEY]}` -> (a, KEY: "@", "*", the index, or None when it is unknown)."""
        children = node.children
        if node.type != "expansion" or len(children) != 3 or children[1].type != "subscript":
            return None
        parts = children[1].children
        if len(parts) != 4 or parts[0].type != "variable_name":
            return None
        key = self.text(parts[2])
        return self.text(parts[0]), key if key in ("@", "*") else self.index_of(parts[2])

    def indirect(self, target: str, quoted: bool) -> _Word | None:
        """`${!r}` where `r` holds a name the line knows: that variable's value
        (`r=f; f=~/.bashrc; ${!r}`, `r='a[1]'`, `r=1`); None when it is not a name."""
        match = _REFERENCE.fullmatch(target)
        if match is None:
            return None
        name, key = match.group(1) or match.group(3), match.group(2)
        if key is None:
            value = self.variables.get(name)
            if value is None:
                self.expanded.append(name)
                return _Word(None, True)
            return self.valued(value, quoted, name not in self.given)
        at: str | int | None = key if key in ("@", "*") else self.index_text(key)
        return self.element(name, at, quoted)

    def transformed(
        self, node: Any, name_node: Any, depth: int, via: str, walked: set[int]
    ) -> str | None:
        """`${X/old/new}` (`//`, `/#`, `/%`; `old` spelled out, `new` known),
        `${X^^}`, `${X,,}`, `${X^}`, `${X,}`, `${X@U}`, `${X@L}`, `${X@u}`, `${X@E}`,
        `${X:offset}`, `${X:offset:length}` of a value the line knows; None otherwise."""
        parts = [c for c in node.children if c.type not in ("${", "}")]
        if len(parts) < 2 or parts[0].id != name_node.id:
            return None
        operator = self.text(parts[1])
        replacement = ""
        if operator in _SUBSTITUTE and len(parts) == 5 and self.text(parts[3]) == "/":
            walked.add(parts[4].id)
            word = self.word(parts[4], depth, via, quoted=True)
            if word.values is None:
                return None
            replacement = " ".join(word.values)
        value = self.variables.get(self.text(name_node))
        if value is None or value.startswith("~"):
            # (a leading `~` is kept as written: whether bash expanded it, unknown)
            return None
        value = str(value)
        self.step(1 + len(value) // 64)
        if operator in _CASES and len(parts) == 2:
            return _CASES[operator](value)
        if operator == "@" and len(parts) == 3:
            letter = self.text(parts[2])
            if letter == "E":
                return _ansi_c(value)
            change = _CASES.get({"U": "^^", "L": ",,", "u": "^"}.get(letter, ""))
            return change(value) if change is not None else None
        if operator == ":" and len(parts) in (3, 5):
            return _substring(value, [self.text(p) for p in parts[2:]])
        if operator not in _SUBSTITUTE or len(parts) not in (3, 4, 5):
            return None
        pattern = self.text(parts[2])
        if parts[2].type not in ("regex", "word") or _PATTERN_SPECIAL.search(pattern):
            return None  # a glob or a quoted pattern: not worked out here
        if "&" in replacement or "\\" in replacement:
            return None  # `&` is the matched text (bash 5.2's patsub_replacement)
        if operator == "/#":
            return replacement + value[len(pattern) :] if value.startswith(pattern) else value
        if operator == "/%":
            if not value.endswith(pattern):
                return value
            return value[: len(value) - len(pattern)] + replacement
        if not pattern:
            return value
        if operator == "/":
            return value.replace(pattern, replacement, 1)
        return self.replaced(value, pattern, replacement)

    def arithmetic(self, node: Any, depth: int) -> None:
        """`[[ ]]`, `(( ))`, `$(( ))`, `$[ ]` and subscripts evaluate operands as
        arithmetic, and arithmetic runs the substitutions a quoted operand spells
        (`[[ 1 -eq 'a[$(id)]' ]]`): those are walked as commands."""
        for found in _descendants_of_kind(node, _QUOTED_KINDS, self):
            text = self.text(found)
            if "$(" in text or "`" in text:
                self.latent(text.replace("\\$", "$").replace("\\`", "`"), depth)

    def latent(self, text: str, depth: int) -> None:
        """Walk the command substitutions spelled inside `text`, a value bash may still
        evaluate (a subscript, an arithmetic operand, a prompt string)."""
        if isinstance(text, _Unknown) or ("`" not in text and "$(" not in text):
            return
        for body in _latent_bodies(text):
            self.substitution = True
            self.script(body.encode("utf-8", "surrogatepass"), depth + 1, "$()")

    def declaration(
        self, node: Any, depth: int, via: str, redirects: tuple[_Redirect, ...]
    ) -> None:
        """`export A=1`, `declare -x B`, `local c`, `unset d`: reported as commands."""
        words: list[str] = []
        dynamic = False
        named: list[str] = []
        own = list(redirects)
        for index, child in enumerate(node.children):
            kind = child.type
            if not child.is_named:
                if not words:
                    words.append(self.text(child))  # the keyword
                continue
            if kind == "variable_assignment":
                target = child.child_by_field_name("name")
                label = self.text(target) if target is not None else ""
                self.declared(words, label.split("[", 1)[0])
                word = self.assign(child, depth, via)
                named.append(label.split("[", 1)[0])
                if word.values is None:
                    words.append(_Unknown(f"{label}={word.template}"))
                    dynamic = True
                else:
                    words.append(f"{label}={' '.join(word.values)}")
                    dynamic = dynamic or word.dynamic
            elif kind in _REDIRECTS or node.field_name_for_child(index) == "redirect":
                found, _, after = self.redirect(child, depth, via)
                own += found
                for statement in after:
                    self.walk(statement, depth, via, ())
            else:
                word = self.word(child, depth, via)
                if kind == "variable_name":
                    named.append(self.text(child))
                    self.declared(words, self.text(child))
                dynamic = _add(words, word) or dynamic
        if not words:
            return
        options = "".join(w[1:] for w in words[1:] if w.startswith("-"))
        reference = words[0] in ("declare", "typeset", "local") and "n" in options
        if words[0] == "unset":
            # `unset 'a[1]'`, `unset -v "$x"`: what it names is no longer known
            named += [w.split("[", 1)[0] for w in words[1:] if not w.startswith("-")]
            if any(isinstance(w, _Unknown) for w in words):
                named += list(self.variables)
        if words[0] == "unset" or reference:
            for name in named:  # unset, or a name reference: value no longer known
                self.variables[name] = None
                if reference:
                    self.refs.add(name)
        self.emit(words, tuple(own), dynamic, depth, via, declaration=True)

    def declared(self, words: list[str], name: str) -> None:
        """The attributes `declare`, `typeset`, `local`, `export` or `readonly` (`words`
        so far: the keyword and its options) give `name` before its value is assigned:
        `-l`/`-u` (case), `-i` (integer), `-A` (associative)."""
        if not words or words[0] == "unset" or not _IDENTIFIER.match(name):
            return
        attributes = self.attributes.get(name, "")
        for option in words[1:]:
            if isinstance(option, _Unknown):
                attributes += "i"  # unknown attributes: no value is known
            elif option[:1] in "-+" and len(option) > 1:
                for letter in option[1:]:
                    attributes = attributes.replace(letter, "")
                    if option[0] == "-" and letter in "ilu":
                        if letter in "lu":
                            attributes = attributes.replace("l", "").replace("u", "")
                        attributes += letter
                    if option[0] == "-" and letter == "A":
                        self.assoc.add(name)
        self.attributes[name] = attributes

    # -- redirects

    def redirect(
        self, node: Any, depth: int, via: str
    ) -> tuple[list[_Redirect], list[_Word], list[Any]]:
        """A redirect -> (redirects, words that are really arguments of the command,
        statements that follow it)."""
        if node.type == "heredoc_redirect":
            return self.heredoc(node, depth, via)
        operator = ""
        target: _Word | None = None
        extra: list[_Word] = []
        trailing: list[Any] = []
        for child in node.children:
            kind = child.type
            if kind == "file_descriptor" or not child.is_named:
                operator += self.text(child)
            elif kind == "ERROR":
                trailing.append(child)
            elif target is None:
                target = self.word(child, depth, via)
            else:
                extra.append(self.word(child, depth, via))  # `ls > out x`: x is ls's
        descriptor, op = _split_operator(operator)
        stdin = op in ("<", "<>", "<&", "<<<") and descriptor in ("", "0")
        dynamic = target is not None and (target.values is None or target.dynamic)
        if target is None:
            shown, script = "", None
        elif target.values is None:
            # what is known of it stays (`"$(cmd)"/x.pth` -> `$?/x.pth`)
            shown, script = target.template, target.template
        else:
            shown = script = " ".join(target.values)
        if op == "<<<":  # a here-string is data, not a target
            known = target is not None and target.values is not None
            found = _Redirect(f"{operator}{shown}", stdin, script, False, dynamic, known)
        else:
            found = _Redirect(f"{operator}{shown}", stdin, None, dynamic)
        return [found], extra, trailing

    def heredoc(
        self, node: Any, depth: int, via: str
    ) -> tuple[list[_Redirect], list[_Word], list[Any]]:
        """`<<EOF ... EOF`. tree-sitter-bash misses substitutions in many bodies
        (backticks, a line starting with blanks), so the body is cut out of the source
        and its expansions parsed as those of a double-quoted string."""
        operator = ""
        start = end = None
        redirects: list[_Redirect] = []
        extra: list[_Word] = []
        trailing: list[Any] = []
        self.built(node.end_byte - node.start_byte)
        raw = self.source[node.start_byte : node.end_byte]
        line_end = -1  # where the line of `<<EOF` ends and the body begins (absolute)
        for index, child in enumerate(node.children):
            kind = child.type
            field_name = node.field_name_for_child(index)
            if kind == "heredoc_start":
                start = child
                newline = raw.find(b"\n", child.end_byte - node.start_byte)
                line_end = node.end_byte if newline < 0 else node.start_byte + newline
            elif kind == "heredoc_end":
                end = child
            elif kind == "heredoc_body" or (start is not None and child.start_byte >= line_end):
                continue  # the body (tree-sitter sometimes reads its first line as words)
            elif kind == "file_descriptor" or (not child.is_named and start is None):
                operator += self.text(child)
            elif not child.is_named:
                continue
            elif field_name == "argument":
                extra.append(self.word(child, depth, via))
            elif kind in _REDIRECTS or field_name == "redirect":
                found, words, after = self.redirect(child, depth, via)
                redirects += found
                extra += words
                trailing += after
            else:
                trailing.append(child)  # `cat <<EOF | sh`, `cat <<EOF && ls`
        delimiter = self.text(start) if start is not None else ""
        body = ""
        if start is not None and line_end < node.end_byte:
            begin = line_end + 1 - node.start_byte
            stop = end.start_byte - node.start_byte if end is not None else len(raw)
            body = raw[begin : max(begin, stop)].decode("utf-8", "surrogateescape")
            self.bodies.append((node.start_byte + begin, node.start_byte + max(begin, stop)))
        descriptor, op = _split_operator(operator)
        if op == "<<-":
            body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
        expands = False
        if not any(quote in delimiter for quote in "'\"\\"):
            expands = _HEREDOC_EXPANSION.search(body) is not None
            if expands:
                self.heredoc_expansions(body, node, depth, via)
            body = _unescape_heredoc(body)
        stdin = descriptor in ("", "0")
        redirects.insert(
            0, _Redirect(f"{operator}{delimiter}", stdin, body, False, expands, not expands)
        )
        return redirects, extra, trailing

    def heredoc_expansions(self, body: str, node: Any, depth: int, via: str) -> None:
        """Walk the substitutions of an unquoted here-document body."""
        self.parse_work(len(body) // 16)  # `_double_quoted` goes through it in Python
        source = f': "{_double_quoted(body)}"'.encode("utf-8", "surrogatepass")
        tree, parsed = _parse(source, self, False)  # (its pipes are quoted)
        root = tree.root_node
        statement = root.named_children[0] if root.named_child_count else None
        argument = None
        if statement is not None and statement.type == "command":
            argument = statement.child_by_field_name("argument")
        if (root.has_error or argument is None) and not self.error:
            row, col = node.start_point
            self.error = f"cannot parse the here-document at {row + 1}:{col + 1}"
        outer, self.source = self.source, parsed
        try:
            if argument is None:
                self.walk(root, depth, via, ())
            else:
                self.word(argument, depth, via, quoted=True)
        finally:
            self.source = outer

    # -- simple commands

    def command(
        self,
        node: Any,
        depth: int,
        via: str,
        redirects: tuple[_Redirect, ...],
        extra: tuple[_Word, ...],
    ) -> None:
        words: list[str] = []
        dynamic = False
        own = list(redirects)
        more = list(extra)
        trailing: list[Any] = []
        seen_name = False
        prefix: list[str] = []
        start = len(self.found)
        pipe = self.pipe
        outer_expanded, self.expanded = self.expanded, []
        for index, child in enumerate(node.children):
            field_name = node.field_name_for_child(index)
            kind = child.type
            if kind == "variable_assignment":
                # `X=1 cmd`: for cmd only; but substitutions in it still run.
                value = self.assign(child, depth, via, track=False)
                target = child.child_by_field_name("name")
                label = self.text(target) if target is not None else ""
                shown = " ".join(value.values) if value.values is not None else value.template
                prefix.append(f"{label}={shown}")
                continue
            if kind in _REDIRECTS or field_name == "redirect":
                found, words_after, after = self.redirect(child, depth, via)
                own += found
                more += words_after
                trailing += after
                continue
            if kind == "command_name":
                seen_name = True
                target = child.children[0] if child.children else child
            elif not child.is_named:
                continue
            else:
                target = child
            word = self.word(target, depth, via)
            dynamic = _add(words, word, quoted=self.braces_quoted(target)) or dynamic
        for word in more:
            dynamic = _add(words, word) or dynamic
        dynamic = dynamic or any(r.dynamic for r in own)
        expanded, self.expanded = self.expanded, outer_expanded
        if seen_name or words:
            self.pipe = pipe
            self.emit(
                words,
                tuple(own),
                dynamic,
                depth,
                via,
                prefix=prefix,
                inner=(start, len(self.found)),
                expanded=expanded,
            )
        for statement in trailing:
            self.walk(statement, depth, via, ())

    def emit(
        self,
        words: list[str],
        redirects: tuple[_Redirect, ...],
        dynamic: bool,
        depth: int,
        via: str,
        *,
        declaration: bool = False,
        prefix: list[str] | None = None,
        inner: tuple[int, int] = (0, 0),
        expanded: list[str] | None = None,
        piped_done: bool = False,
        wrapped: list[str] | None = None,
    ) -> None:
        unwrapped = _unwrap(_expand_braces(words, self))
        words, wrappers, assigned, chdir, replace = unwrapped[:5]
        for runner, spec in unwrapped.fetches:
            # `uv run --with URL cmd` installs URL first: judged as `uv install URL`
            self.emit([runner, "install", spec], (), dynamic, depth, f"{runner} run")
        for line in unwrapped.commands:
            # `systemd-run -p ExecStartPre=CMD true`: CMD runs as the unit's
            if line == _UNKNOWN:
                self.emit([_UNKNOWN], (), True, depth + 1, "systemd-run -p")
            elif line.strip():
                self.script(line.encode("utf-8", "surrogatepass"), depth + 1, "systemd-run -p")
        if unwrapped.inputs:
            # `xargs -a F CMD`: the arguments come from F, as `xargs CMD < F` takes them
            redirects = (
                *redirects,
                *(_Redirect("<" + i, False, None, False) for i in unwrapped.inputs),
            )
        if unwrapped.outputs:
            redirects = (
                *redirects,
                *(_Redirect(">" + o, False, None, False) for o in unwrapped.outputs),
            )
        if any(w.startswith("systemd-run") for w in wrappers) and chdir is None:
            chdir = "/"  # systemd-run starts the command in / unless told otherwise
        elif chdir == "":
            chdir = None
        words = [self.tilde(w) for w in words]
        if not words and not redirects:
            return
        self.step(1 + len(words))
        self.words += len(words)
        if self.words > MAX_WORDS:
            raise _too_many_words("the commands have")
        if "xargs" in wrappers and not piped_done:
            items = self.piped_items(split=unwrapped.split)
            if items is not None:
                # what comes down the pipe is known: xargs's arguments are those words
                runs = (
                    [[self.replaced(w, replace, item) for w in words] for item in items]
                    if replace
                    else [[*words, *items]]
                )
                for run in runs:
                    self.emit(
                        run,
                        redirects,
                        dynamic,
                        depth,
                        via,
                        prefix=[*(prefix or ()), *assigned],
                        inner=inner,
                        expanded=expanded,
                        piped_done=True,
                        wrapped=[*wrappers],
                    )
                return
        program = words[0] if words else ""
        name = "" if program in ("", _UNKNOWN) else _program_name(program)
        args = words[1:]
        flags = _flags(args)
        if wrapped:
            wrappers = [*wrapped, *wrappers]
        if "xargs" in wrappers and not piped_done:
            dynamic = True  # more arguments come from standard input
        if len(wrappers) >= _MAX_WRAPPERS:
            dynamic = True  # `sudo sudo sudo ... rm`: not unwrapped to the end
        argv = tuple(str(word) for word in words)
        own = [*(prefix or ()), *assigned]
        named = {a.split("=", 1)[0] for a in own}
        own += [f"{k}={v}" for k, v in self.acting.items() if k not in named]
        cwd = self.cwd
        if chdir is not None:
            cwd = self.changed_dir(chdir, own)
        index = len(self.found)
        if index >= MAX_COMMANDS:
            raise _TooComplex("analysis.max_commands", f"more than {MAX_COMMANDS} commands")
        self.found.append(
            SimpleCommand(
                name=name,
                argv=argv,
                args=argv[1:],
                flags=flags,
                redirects=tuple(r.text for r in redirects),
                raw=" ".join(argv),
                dynamic=dynamic,
                via=via,
                wrappers=tuple(str(w) for w in wrappers),
                assignments=tuple(str(a) for a in own),  # plain str: CEL takes no subclass
                cwd=cwd,
                unknown=tuple(w.template for w in words if isinstance(w, _Unknown)),
                pipe=self.pipe,
                function=self.function,
                inner=inner,
                parent=self.parent,
                stdin=next((r.script for r in reversed(redirects) if r.stdin), None),
                variables=tuple(dict.fromkeys(expanded or ())),
                fed=piped_done,
            )
        )
        if not declaration:
            self.forget(name, args)
            if name == "read":
                self.read_given(args, redirects, own)
            elif name in ("mapfile", "readarray"):
                self.mapfile_given(args, redirects)
            elif name == "printf":
                self.printf_given(args)
            elif name in ("set", "shift"):
                self.positional_given(name, args)
            if name in _DIRECTORY_CHANGERS:
                self.change_dir(name, args, own)
        self.nested(index, name, args, redirects, depth)

    # -- the working directory

    def changed_dir(self, target: str, assignments: list[str]) -> str | None:
        """Where `cd target` lands from the current directory; None when unknown."""
        if isinstance(target, _Unknown) or _UNKNOWN in target:
            return None
        if target == "~" or target.startswith("~/") or target == "":
            if not self.home:
                return None
            target = self.home + target[1:] if target else self.home
        elif target.startswith("~"):
            return None  # another user's home: not known here
        if not target.startswith("/"):
            relative_to_cdpath = not target.startswith(("./", "../")) and target not in (".", "..")
            cdpath = self.variables.get("CDPATH") if "CDPATH" in self.variables else ""
            given = [a.split("=", 1)[1] for a in assignments if a.startswith("CDPATH=")]
            if given:
                cdpath = given[-1]
            if relative_to_cdpath and cdpath != "":
                # CDPATH sends it elsewhere: to the one directory it names (bash tries
                # each entry in turn; with several, where it lands is not known here)
                entries = (cdpath or "").split(":")
                if cdpath is None or len(entries) != 1 or _UNKNOWN in cdpath:
                    return None
                base = entries[0] or self.cwd
                if base is None or not base.startswith("/"):
                    return None
                return _normal_dir(f"{base}/{target}")
            if self.cwd is None:
                return None
            target = f"{self.cwd}/{target}" if self.cwd else target
        return _normal_dir(target)

    def change_dir(self, name: str, args: list[str], assignments: list[str]) -> None:
        """Follow `cd`, `pushd` and `popd` (options skipped; `cd -` is $OLDPWD)."""
        operands = [a for a in args if not (a.startswith("-") and a != "-" and len(a) > 1)]
        if any(a.startswith("+") or (a.startswith("-") and a[1:].isdigit()) for a in args):
            self.set_cwd(None)  # pushd +N / popd -N rotate the stack
            return
        before = self.cwd
        if name == "popd":
            self.set_cwd(self.dirs.pop() if self.dirs else None)
        elif name == "pushd" and not operands:
            top = self.dirs.pop() if self.dirs else None
            self.dirs.append(before)
            self.set_cwd(top)
        else:
            target = operands[0] if operands else "~"
            new = self.oldpwd if target == "-" else self.changed_dir(target, assignments)
            if name == "pushd":
                self.dirs.append(before)
            self.set_cwd(new)
        self.oldpwd = before

    def set_cwd(self, cwd: str | None) -> None:
        self.cwd = cwd
        if cwd is not None and cwd.startswith("/"):
            self.variables["PWD"] = cwd
            self.given.add("PWD")
        else:
            self.variables["PWD"] = None
            self.given.discard("PWD")

    def forget(self, program: str, args: list[str]) -> None:
        """A command may set a variable it names (`read X`, `printf -v X`, `let X=1`);
        a builtin that sets one that changes what runs (`printf -v HOME`, `read PATH`)
        is an assignment of it, to a value nobody knows."""
        setter = program in _SETTERS
        if not self.variables and not setter:
            return
        for arg in args:
            name = arg.split("=", 1)[0].split("[", 1)[0]
            if name in self.variables:
                self.variables[name] = None
            if setter and not isinstance(arg, _Unknown) and acting_variable(name):
                self.acting[name] = f"{_UNKNOWN}<{program}>"

    def read_given(
        self, args: list[str], redirects: tuple[_Redirect, ...], assignments: list[str]
    ) -> None:
        """`read X <<< word`, `IFS= read -r A B <<EOF`, `read -a A <<< ...`: the line
        read is known, so are the variables, split as bash splits it. Left unknown
        (`forget`) when it is not: input from elsewhere or of several lines (a loop
        reads them one by one), `-u`, `-n`, `-N`, backslashes without `-r`, an `$IFS`
        with other characters than blanks."""
        if any(isinstance(a, _Unknown) for a in args):
            return
        options, names = _getopt(args, "adinNptu")
        if any(letter in options for letter in "unN"):
            return
        text = _fed_text(redirects)
        if text is None:
            return
        delimiter = options.get("d", "\n")
        delimiter = delimiter[:1] if isinstance(delimiter, str) and delimiter else "\0"
        line, _, more = text.partition(delimiter)
        if more.strip("\n") or ("\\" in line and "r" not in options):
            return
        ifs = next(
            (a.split("=", 1)[1] for a in reversed(assignments) if a.startswith("IFS=")),
            self.variables.get("IFS", _DEFAULT_IFS),
        )
        if ifs is None or isinstance(ifs, _Unknown) or _UNKNOWN in ifs or ifs.strip(_DEFAULT_IFS):
            return
        array = options.get("a")
        if isinstance(array, str):
            fields = _split_fields(line, ifs)[0] if ifs else [line]
            self.store(array, _Array(fields) if fields else None)
            return
        names = names or ["REPLY"]
        if ifs and len(names) > 1:
            blank = f"[{re.escape(ifs)}]+"
            fields = re.split(blank, line.strip(ifs), maxsplit=len(names) - 1)
        else:
            fields = [line.strip(ifs)] if ifs else [line]
        for index, name in enumerate(names):
            self.store_named(name, fields[index] if index < len(fields) else "")

    def mapfile_given(self, args: list[str], redirects: tuple[_Redirect, ...]) -> None:
        """`mapfile -t A <<< ...`, `readarray A <<EOF`: A's elements are the known lines
        (with `-d`, `-s`, `-n`); unknown with `-u`, `-O`, `-C` (a callback: code)."""
        if any(isinstance(a, _Unknown) for a in args):
            return
        options, names = _getopt(args, "dnOsuCc")
        text = _fed_text(redirects)
        if text is None or any(letter in options for letter in "uOC"):
            return
        delimiter = options.get("d", "\n")
        delimiter = delimiter[:1] if isinstance(delimiter, str) and delimiter else "\0"
        counts = [options.get(letter, "0") for letter in "sn"]
        if not all(isinstance(c, str) and c.isdigit() for c in counts):
            return
        skip, most = (int(c) for c in counts)
        pieces = text.split(delimiter)
        keep = "" if "t" in options else delimiter
        lines = [piece + keep for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
        self.step(len(lines))
        lines = lines[skip:]
        if most:
            lines = lines[:most]
        self.store_named(names[0] if names else "MAPFILE", _Array(lines) if lines else None)

    def printf_given(self, args: list[str]) -> None:
        """`printf -v X FORMAT ARGS`: X holds what printf would print, when that is
        known (policy.analysis.literal)."""
        from policy.analysis import literal

        rest = list(args)
        target: str | None = None
        while rest and rest[0].startswith("-") and not isinstance(rest[0], _Unknown):
            option = rest.pop(0)
            if option == "--":
                break
            if option == "-v" and rest:
                target = rest.pop(0)
            elif option.startswith("-v") and len(option) > 2:
                target = option[2:]
            else:
                return  # an option printf does not take: it prints nothing
        if target is None or isinstance(target, _Unknown) or not rest:
            return
        printed = None
        if not any(isinstance(a, _Unknown) for a in rest):
            fake = SimpleCommand("printf", ("printf", *rest), tuple(rest), ())
            printed = literal.output_of([fake])
            if printed is not None:
                self.delivered(len(printed))
        self.store_named(target, printed)

    def store_named(self, target: str, value: str | None) -> None:
        """`value` into what a builtin names: a variable or an array element (`a[1]`)."""
        name, bracket, rest = target.partition("[")
        if not _IDENTIFIER.match(name):
            return
        if not bracket:
            self.store(name, value)
            return
        key = rest[:-1] if rest.endswith("]") else ""
        at = None if name in self.assoc else self.index_text(key)
        self.set_element(name, at, value, appended=False)

    def positional_given(self, name: str, args: list[str]) -> None:
        """`set -- A B`, `set A B`, `set -e -- A`, `shift [N]`: the positional
        parameters `$1`..., `$@` (at the top of the line, or in a script or function)."""
        values: list[str] | None
        if name == "shift":
            count = args[0] if args else "1"
            if self.positional is None or isinstance(count, _Unknown) or not count.isdigit():
                values = None
            else:
                values = self.positional[int(count) :]
        else:
            rest = list(args)
            ended = False
            while rest and not ended:
                word = rest[0]
                if isinstance(word, _Unknown):
                    break
                if word in ("--", "-"):
                    rest.pop(0)
                    ended = word == "--"
                    break
                if len(word) > 1 and word[0] in "-+":
                    rest.pop(0)
                    if word in ("-o", "+o") and rest and not rest[0].startswith(("-", "+")):
                        rest.pop(0)
                    continue
                break
            if not rest and not ended:
                return  # options alone: the parameters stay as they were
            values = None if any(isinstance(w, _Unknown) for w in rest) else list(rest)
        self.positional = values
        for number in range(1, 10):
            known = values[number - 1] if values is not None and number <= len(values) else None
            self.variables[str(number)] = known
            self.given.discard(str(number))

    def nested(
        self,
        index: int,
        name: str,
        args: list[str],
        redirects: tuple[_Redirect, ...],
        depth: int,
    ) -> None:
        """Scripts a command runs from its arguments or its standard input: `bash -c`,
        `sh <<EOF`, `su -c`, `eval`, `find -exec`, `ssh HOST CMD`, `watch CMD`, `alias`,
        `trap`, `at <<EOF`, `script -c`, `flock -c`. Their commands name `index` as
        their parent."""
        outer = self.parent
        self.parent = index
        try:
            self._nested(index, name, args, redirects, depth)
        finally:
            self.parent = outer

    def _nested(
        self,
        index: int,
        name: str,
        args: list[str],
        redirects: tuple[_Redirect, ...],
        depth: int,
    ) -> None:
        body = self.functions.get(name)
        if body is not None and args and self.function != name:
            self.run_string(index, body, depth, "function", positional=[name, *args])
        if name in _SUBSCRIPT_EVALUATORS:
            # `test -v 'a[$(id)]'`, `printf -v 'a[$(id)]'`, `unset 'a[$(id)]'`: bash
            # evaluates the subscript, substitutions included
            for arg in _evaluated_names(name, args):
                self.latent(arg, depth)
        if name in _STRING_RUNNERS:
            given = _string_script(name, args)
            if given is not None:
                self.substitution = True
                text, is_argv = given
                if is_argv:
                    unknown = any(isinstance(word, _Unknown) for word in text)
                    if depth + 1 > MAX_DEPTH:
                        raise _too_deep("scripts")
                    self.emit(list(text), (), unknown, depth + 1, name)
                else:
                    self.run_string(index, _joined(text), depth, name)
            return
        if name == "parallel":
            self.parallel(index, args, depth)
            return
        if name in ("at", "batch"):
            stdin = next((r for r in reversed(redirects) if r.stdin), None)
            if stdin is not None and stdin.script is not None:
                self.substitution = True
                self.script(stdin.script.encode("utf-8", "surrogatepass"), depth + 1, name)
            return
        if name in _SHELLS:
            mode, script, at = shell_script_at(args)
            if mode == "file":
                return
            self.substitution = True
            if mode == "stdin":
                stdin = next((r for r in reversed(redirects) if r.stdin), None)
                if stdin is None or stdin.script is None:
                    self.mark_dynamic(index)  # `curl x | sh`, `sh < file`
                    return
                if stdin.expands:
                    self.mark_dynamic(index)
                self.script(stdin.script.encode("utf-8", "surrogatepass"), depth + 1, "bash -c")
                return
            self.run_string(index, script, depth, "bash -c", positional=args[at + 1 :])
        elif name in _SU:
            has_script, su_script = _su_script(args)
            if has_script:
                self.substitution = True
                self.run_string(index, su_script, depth, "bash -c")
        elif name == "eval":
            self.substitution = True
            if any(isinstance(arg, _Unknown) for arg in args):
                self.mark_dynamic(index)
            text = " ".join(_template(arg) for arg in args)
            if text.strip() and text.strip() != _UNKNOWN:
                self.script(text.encode("utf-8", "surrogatepass"), depth + 1, "eval")
        elif name in ("source", "."):
            self.substitution = True
            for variable in self.variables:
                self.variables[variable] = None
            if args and args[0] in _STDIN_FILES:
                stdin = next((r for r in reversed(redirects) if r.stdin), None)
                if stdin is None or stdin.script is None or stdin.expands:
                    self.mark_dynamic(index)
                if stdin is not None and stdin.script is not None:
                    self.script(stdin.script.encode("utf-8", "surrogatepass"), depth + 1, name)
        elif name in ("fd", "fdfind"):
            self.fd_exec(args, depth)
        elif name == "find":
            places = find_found(args)
            for start, arg in enumerate(args):
                if arg in _FIND_EXEC:
                    self.substitution = True
                    if depth + 1 > MAX_DEPTH:
                        raise _too_deep("scripts")
                    inner: list[str] = []
                    for word in args[start + 1 :]:
                        if word in (";", "+"):
                            break
                        # `{}` is each file found: below the start points (or, with no
                        # test to pick some, the start points themselves too)
                        if "{}" in word and not isinstance(word, _Unknown):
                            inner.extend(self.replaced(word, "{}", place) for place in places)
                        else:
                            inner.append(word)
                    if inner:
                        unknown = any(isinstance(word, _Unknown) for word in inner)
                        self.emit(inner, (), unknown, depth + 1, "find -exec")

    def run_string(
        self,
        index: int,
        script: str | None,
        depth: int,
        via: str,
        *,
        positional: list[str] | None = None,
    ) -> None:
        """The script of `sh -c SCRIPT [NAME ARGS...]`: parsed when known, its unknown
        parts as `$?`, with `$0`, `$1`, ... the words after it."""
        if script is None:
            self.mark_dynamic(index)
            return
        if isinstance(script, _Unknown):
            self.mark_dynamic(index)
            script = script.template
            if script.strip() == _UNKNOWN:
                return
        saved = {str(n): self.variables.get(str(n)) for n in range(10)}
        given = set(self.given)
        outer_positional = self.positional
        for number in range(10):
            value = positional[number] if positional and number < len(positional) else None
            self.variables[str(number)] = None if isinstance(value, _Unknown) else value
        arguments = positional[1:] if positional else []
        self.positional = (
            None if any(isinstance(a, _Unknown) for a in arguments) else list(arguments)
        )
        try:
            self.script(script.encode("utf-8", "surrogatepass"), depth + 1, via)
        finally:
            self.positional = outer_positional
            for key, value in saved.items():
                if value is None:
                    self.variables.pop(key, None)
                else:
                    self.variables[key] = value
            self.given = given

    def defaulted(
        self, node: Any, name_node: Any, depth: int, via: str, walked: set[int]
    ) -> str | None:
        """`${X:-word}`, `${X-word}`, `${X:=word}`, `${X=word}`, `${X:?msg}`, `${X:+word}`:
        the value when it can be told — X's own when the line or context knows it, else
        the default word (a variable the line does not set is taken as unset)."""
        parts = [c for c in node.children if c.type not in ("${", "}")]
        if len(parts) < 2 or parts[0].id != name_node.id:
            return None
        operator = self.text(parts[1])
        if operator not in (":-", "-", ":=", "=", ":?", "?", ":+", "+"):
            return None
        variable = self.text(name_node)
        current = self.variables.get(variable)
        default = ""
        if len(parts) > 2:
            walked.add(parts[2].id)
            word = self.word(parts[2], depth, via, quoted=True)
            if not parts[2].child_count:
                self.latent(self.text(parts[2]), depth)  # `${x:-`id`}`: a plain word
            if word.values is None:
                default_known = False
            else:
                default_known = True
                default = " ".join(word.values)
        else:
            default_known = True
        self.expanded.append(variable)
        if operator in (":+", "+"):
            return None
        if current is not None and (current != "" or ":" not in operator):
            return current
        if operator in (":?", "?") or not default_known:
            return None
        if operator in (":=", "="):
            self.variables[variable] = default
        return default

    def fd_exec(self, args: list[str], depth: int) -> None:
        """`fd PATTERN [PATH] -x CMD` / `-X CMD`: CMD runs on what fd finds below PATH
        (`{}` and its variants stand for each file)."""
        for at, arg in enumerate(args):
            if arg in ("-x", "--exec", "-X", "--exec-batch"):
                break
            if arg.startswith(("--exec=", "--exec-batch=")):
                option, _, value = arg.partition("=")
                args = [*args[:at], option, value, *args[at + 1 :]]
                break
        else:
            return
        before: list[str] = []  # fd's operands: PATTERN [PATH...]
        skip = False
        for arg in args[:at]:
            if skip:
                skip = False
            elif arg.startswith("-"):
                skip = arg in _FD_VALUE_OPTIONS
            else:
                before.append(arg)
        place = (before[1] if len(before) > 1 else ".").rstrip("/") + "/**"
        command = list(args[at + 1 :])
        if ";" in command:
            command = command[: command.index(";")]
        if not command:
            return
        self.substitution = True
        if depth + 1 > MAX_DEPTH:
            raise _too_deep("scripts")
        if any(_FD_TOKEN.search(w) for w in command if not isinstance(w, _Unknown)):
            command = [
                w if isinstance(w, _Unknown) else self.substituted(_FD_TOKEN, place, w)
                for w in command
            ]
        else:
            command.append(place)
        unknown = any(isinstance(w, _Unknown) for w in command)
        self.emit(command, (), unknown, depth + 1, "fd -x")

    def trimmed(self, node: Any, name_node: Any) -> str | None:
        """`${X%pat}`, `${X%%pat}`, `${X#pat}`, `${X##pat}` of a value the line knows
        (`${HOME%/}`), with a pattern spelled out; None otherwise."""
        parts = [c for c in node.children if c.type not in ("${", "}")]
        if len(parts) != 3 or parts[0].id != name_node.id or parts[2].child_count:
            return None
        operator = self.text(parts[1])
        if operator not in ("%", "%%", "#", "##"):
            return None
        value = self.variables.get(self.text(name_node))
        pattern = self.text(parts[2])
        if value is not None and operator.startswith("#") and value.startswith("~"):
            return None  # (a leading `~` is kept as written: whether bash expanded it, unknown)
        if value is None or len(value) > _MAX_TRIMMED or any(c in pattern for c in "$`\\'\"[("):
            return None  # (a long value is not trimmed: each cut is a match)
        if len(pattern) > 64:
            return None
        self.step((len(value) + 1) * (1 + len(pattern) // 8))
        return _trim(value, operator, pattern)

    def parallel(self, index: int, args: list[str], depth: int) -> None:
        """GNU parallel: `parallel CMD ::: ARGS` runs CMD once per argument (put where
        `{}` is, else appended); with no CMD each argument is a command line; with no
        `:::` the arguments come down the pipe."""
        rest = list(args)
        template: list[str] = []
        while rest and rest[0].startswith("-") and rest[0] not in (":::", "::::"):
            option = rest.pop(0)
            if option in _PARALLEL_OPTION_ARGS and rest:
                rest.pop(0)
        while rest and rest[0] not in (":::", "::::", ":::+", "::::+"):
            template.append(rest.pop(0))
        items: list[str] | None = []
        group = ""
        for word in rest:
            if word in (":::", "::::", ":::+", "::::+"):
                group = word
                continue
            if group.startswith("::::") or isinstance(word, _Unknown):
                items = None  # arguments read from a file, or unknown
                break
            assert items is not None
            items.append(word)
        if not rest:
            own = self.found[index]
            items = self.piped_items(own.pipe, own.parent)
        self.substitution = True
        if items is None or not items:
            if template:
                unknown = any(isinstance(w, _Unknown) for w in template)
                self.emit(template, (), True if items is None else unknown, depth + 1, "parallel")
            else:
                self.mark_dynamic(index)
            return
        for item in items:  # each run is charged: the caps bound how many
            if not template:
                self.run_string(index, item, depth, "parallel")
                continue
            if any(_PARALLEL_TOKEN.search(w) for w in template if not isinstance(w, _Unknown)):
                run = [
                    w if isinstance(w, _Unknown) else self.substituted(_PARALLEL_TOKEN, item, w)
                    for w in template
                ]
            else:
                run = [*template, item]
            self.emit(run, (), False, depth + 1, "parallel")

    def piped_items(
        self, pipe: tuple[int, int] | None = None, parent: int | None = None, split: str = " "
    ) -> list[str] | None:
        """The words coming down the pipe into the command being emitted (or at
        `pipe`), when the stages before it print literal text (`echo / | xargs rm
        -rf`); else None."""
        from policy.analysis import literal

        number, stage = self.pipe if pipe is None else pipe
        parent = self.parent if parent is None else parent
        if not number or not stage:
            return None
        self.step(len(self.found))
        before = [c for c in self.found if c.pipe[0] == number and c.pipe[1] < stage]
        if not before or len(before) != stage or any(c.parent != parent for c in before):
            return None
        output = literal.output_of(sorted(before, key=lambda c: c.pipe[1]))
        if output is None:
            return None
        self.delivered(len(output))
        if split == " ":
            return output.split()
        items = output.split(split)
        return items[:-1] if items and items[-1] == "" else items

    def output(self, start: int) -> str | None:
        """What the commands found from `start` on (one substitution's) print, when
        they are literal producers and decoders (policy.analysis.literal)."""
        from policy.analysis import literal

        stages = self.found[start:]
        # `$(dirname $(find ~ -name x))`: a substitution nested in a stage's words is
        # already in that stage's words (as what it prints), not a stage of its own
        nested = {i for c in stages for i in range(*c.inner) if c.inner[0] >= start}
        if nested:
            stages = [c for i, c in enumerate(stages, start) if i not in nested]
        if not stages or len(stages) > 8 or any(c.parent >= start for c in stages):
            return None
        pipes = {c.pipe[0] for c in stages}
        if len(stages) > 1 and (len(pipes) != 1 or 0 in pipes):
            return None
        ordered = sorted(stages, key=lambda c: c.pipe[1])
        if len(ordered) == 1 and ordered[0].name == "find" and not ordered[0].dynamic:
            # `$(find rules -name '*.yaml')`: the files found, as the patterns they match
            # (what -exec would be handed), so a command on them is judged on them
            found = find_found(list(ordered[0].args))
            if all(_UNKNOWN not in p and " " not in p for p in found):
                return " ".join(found)
        return literal.output_of(ordered)

    def tilde(self, word: str) -> str:
        """`~+` is $PWD and `~-` is $OLDPWD, as far as the line tells them."""
        if isinstance(word, _Unknown) or not word.startswith(("~+", "~-")):
            return word
        rest = word[2:]
        if rest and not rest.startswith("/"):
            return word
        place = self.cwd if word[1] == "+" else self.oldpwd
        return place + rest if place and place.startswith("/") else word

    def braces_quoted(self, node: Any) -> bool:
        """True when every `{` of the word `node` is inside quotes (no brace expansion)."""
        if "{" not in self.text(node):
            return False
        if node.type in ("string", "raw_string", "ansi_c_string", "translated_string"):
            return True
        if node.type != "concatenation":
            return False
        return all(
            "{" not in self.text(part)
            for part in node.children
            if part.type not in ("string", "raw_string", "ansi_c_string", "translated_string")
        )

    def mark_dynamic(self, index: int) -> None:
        self.found[index] = dataclasses.replace(self.found[index], dynamic=True)

    # -- words

    def word(self, node: Any, depth: int, via: str, *, quoted: bool = False) -> _Word:
        """A word's fields (brace expansion aside), with substitutions walked.
        `quoted`: inside double quotes or an assignment, where no field splitting happens."""
        if node is None:
            return _Word([""], False)
        self.step()
        self.nest()  # `${a:-${a:-...}}`: the recursion is bounded
        try:
            return self.expand(node, depth, via, quoted)
        finally:
            self.level -= 1

    def expand(self, node: Any, depth: int, via: str, quoted: bool) -> _Word:
        kind = node.type
        if kind in _LITERAL_KINDS:
            # text of the source: bounded by it, but copied again each time a loop or a
            # function walks it, so charged each time
            self.built(node.end_byte - node.start_byte)
            if kind == "raw_string":
                return _Word([self.text(node)[1:-1]], False)
            if kind == "ansi_c_string":
                return _Word([_ansi_c(self.text(node)[2:-1])], False)
            if kind == "string_content":
                return _Word([_unescape_double(self.text(node))], False)
            if kind == "heredoc_content":
                return _Word([self.text(node)], False)
            return _Word([_unescape(self.text(node))], False)
        if kind in ("string", "translated_string"):
            return self.concat(node, depth, via, quoted=True)
        if kind == "concatenation":
            return self.concat(node, depth, via, quoted=quoted)
        if kind in ("simple_expansion", "expansion"):
            return self.expansion(node, depth, via, quoted=quoted)
        if kind in _SUBSTITUTIONS:
            self.substitution = True
            if depth + 1 > MAX_DEPTH:
                raise _too_deep("substitutions")
            start = len(self.found)
            self.walk(node, depth + 1, via, ())
            output = self.output(start) if kind == "command_substitution" else None
            if output is None:
                return _Word(None, True)
            output = output.rstrip("\n")  # as bash strips it
            self.delivered(len(output))
            if quoted:
                return _Word([output], True, output, grown=len(output))
            fields, before, after = _split_fields(output, self.variables.get("IFS") or _DEFAULT_IFS)
            return _Word(fields, True, output, before, after, grown=len(output))
        # Arithmetic, arrays, globs with expansions...: walk for commands, value unknown.
        self.walk(node, depth, via, ())
        if any(True for _ in _descendants_of_kind(node, _DYNAMIC_KINDS, self)):
            return _Word(None, True)
        self.built(node.end_byte - node.start_byte)
        return _Word([self.text(node)], False)

    def concat(self, node: Any, depth: int, via: str, *, quoted: bool) -> _Word:
        """Adjacent parts of one word (`"r"m`, `a$X`); a quoted string is one field,
        an unquoted concatenation joins the split fields of its expansions. The bytes
        expansions put into it are counted before it is built (`$v$v`, doubled again
        and again, must not be)."""
        fields: list[list[str]] = []  # each field as its pieces, joined at the end
        joinable = False
        dynamic = False
        unknown = False
        template: list[str] = []
        grown = 0
        for child in node.children:
            if not child.is_named:
                if quoted:
                    continue  # the quotes themselves
                part = _Word([self.text(child)], False)
            else:
                part = self.word(child, depth, via, quoted=quoted)
            if part.grown:
                grown += part.grown
                self.expanded_word(grown)
            template.append(part.template)
            dynamic = dynamic or part.dynamic
            if part.values is None:
                unknown = True  # keep walking: later parts may hold substitutions
                continue
            if unknown:
                continue
            if quoted:
                # One field, except that "$@" keeps each argument a field of its own
                # ("a$@b" with x y: `ax`, `yb`), as bash does.
                if not fields:
                    fields = [[]]
                if part.values:
                    fields[-1].append(part.values[0])
                    fields.extend([value] for value in part.values[1:])
                continue
            if not part.values:
                joinable = joinable and not (part.split_before or part.split_after)
                continue
            if fields and joinable and not part.split_before:
                fields[-1].append(part.values[0])
                fields.extend([value] for value in part.values[1:])
            else:
                fields.extend([value] for value in part.values)
            joinable = not part.split_after
        if unknown:
            return _Word(None, True, "".join(template), grown=grown)
        joined = ["".join(pieces) for pieces in fields]
        if quoted and not joined:
            joined = [""]
        return _Word(joined, dynamic, "".join(template), grown=grown)

    def expansion(self, node: Any, depth: int, via: str, *, quoted: bool) -> _Word:
        self.step(node.child_count)  # (each child is looked at, some more than once)
        names = [c for c in node.children if c.type == "variable_name"]
        if names and any(c.type == "!" for c in node.children):
            # `${!k}`: the variable `k` names; its value is not known, its name may be
            target = self.variables.get(self.text(names[0]))
            if target is not None and len(node.children) == 4:
                resolved = self.indirect(target, quoted)
                if resolved is not None:
                    return resolved
            # a name nobody can tell may be any variable's: read as the environment
            self.expanded.extend([self.text(names[0]), target or _ANY_VARIABLE])
            return _Word(None, True)
        plain = len(node.children) == (2 if node.type == "simple_expansion" else 3)
        defaulted: str | None = None
        walked: set[int] = set()
        if not plain and names and node.type == "expansion":
            defaulted = self.defaulted(node, names[0], depth, via, walked)
            if defaulted is None:
                defaulted = self.trimmed(node, names[0])
            if defaulted is None:
                defaulted = self.transformed(node, names[0], depth, via, walked)
        for child in node.children:  # `${X:-$(id)}`: the default may run
            if child.id not in walked and (child.type in _SUBSTITUTIONS or child.child_count):
                self.word(child, depth, via, quoted=True)
            elif child.id not in walked and not child.child_count:
                # tree-sitter leaves `${x:-`id`}` and `${x%`id`}` operands as plain words
                self.latent(self.text(child), depth)
        if defaulted is not None:
            grown = len(defaulted)
            self.delivered(grown)
            if quoted:
                return _Word([defaulted], True, defaulted, grown=grown)
            separators = self.variables.get("IFS") or _DEFAULT_IFS
            fields, before, after = _split_fields(defaulted, separators)
            return _Word(fields, True, defaulted, before, after, grown=grown)
        if plain and not names and self.positional is not None:
            special = [c for c in node.children if c.type == "special_variable_name"]
            if special and self.text(special[0]) in ("@", "*"):
                grown = sum(len(p) + 1 for p in self.positional)
                self.delivered(grown)
                self.step(len(self.positional))
                # "$@" is each argument a word of its own; "$*" joins them
                if quoted and self.text(special[0]) == "*":
                    separator = self.variables.get("IFS", _DEFAULT_IFS)
                    if separator is None:
                        return _Word(None, True)
                    joined = separator[:1].join(self.positional)  # "$*": by $IFS's first
                    return _Word([joined], True, joined, grown=grown)
                if quoted:
                    return _Word(list(self.positional), True, grown=grown)
                ifs = self.variables.get("IFS", _DEFAULT_IFS)
                if ifs is None:
                    return _Word(None, True)
                # unquoted, each argument is split again at $IFS
                return _Word(
                    [w for p in self.positional for w in _split_fields(p, ifs)[0]],
                    True,
                    grown=grown,
                )
        subscript = self.subscript_of(node)
        if subscript is not None:
            return self.element(*subscript, quoted)
        if not (plain and names):
            self.expanded.extend(self.text(n) for n in names)
            return _Word(None, True)
        variable = self.text(names[0])
        known = self.variables.get(variable)
        if known is None:
            self.expanded.append(variable)
            return _Word(None, True)
        return self.valued(known, quoted, variable not in self.given)


#: What `${!x}` reads when `x` is not known: any variable at all.
_ANY_VARIABLE = "(any variable)"
#: A plain decimal number, as an array index or an integer variable holds it.
_INTEGER = re.compile(r"^-?(?:0|[1-9][0-9]{0,17})$")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: What `${!r}` may name: a variable, an array element, a positional parameter.
_REFERENCE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\]]*)\])?|([1-9])")
#: Characters that make a word a glob bash expands against the disk.
_GLOB = re.compile(r"[*?\[]")
_SUBSTITUTE = frozenset({"/", "//", "/#", "/%"})
#: `${X^^}` and friends: bash's case changes of a whole value or its first letter.
_CASES: dict[str, Callable[[str], str]] = {
    "^^": str.upper,
    ",,": str.lower,
    "^": lambda v: v[:1].upper() + v[1:],
    ",": lambda v: v[:1].lower() + v[1:],
}
#: A `${X/pattern/...}` pattern that is not plain text (a glob, quotes, an expansion,
#: a tilde): not worked out here.
_PATTERN_SPECIAL = re.compile(r"[*?\[\]\\$'\"`~(){}]")


def _substring(value: str, spelled: list[str]) -> str | None:
    """`${X:offset}` / `${X:offset:length}` with numbers spelled out, as bash counts
    negative ones (from the end); None for anything else or bash's own error (a
    negative length before the offset)."""
    if len(spelled) == 3 and spelled[1] != ":":
        return None
    numbers = [spelled[0].strip()] + ([spelled[2].strip()] if len(spelled) == 3 else [])
    if len(spelled) not in (1, 3) or not all(_INTEGER.match(n) for n in numbers):
        return None
    size = len(value)
    offset = int(numbers[0])
    if offset < 0:
        offset += size
    if offset < 0 or offset > size:
        return ""
    if len(numbers) == 1:
        return value[offset:]
    length = int(numbers[1])
    end = size + length if length < 0 else offset + length
    if end < offset:
        return None
    return value[offset:end]


def _fed_text(redirects: tuple[_Redirect, ...]) -> str | None:
    """What a here-string or a here-document feeds to standard input, as a program
    reads it (a here-string ends with a newline); None when it is not known."""
    stdin = next((r for r in reversed(redirects) if r.stdin), None)
    if stdin is None or stdin.script is None or not stdin.known:
        return None
    if stdin.text.lstrip("0123456789").startswith("<<<"):
        return stdin.script + "\n"
    return stdin.script

#: Nodes whose operands bash evaluates as arithmetic (`(( ))` is a compound statement).
_ARITHMETIC = frozenset({"test_command", "arithmetic_expansion", "subscript"})
_QUOTED_KINDS = frozenset({"raw_string", "string"})
#: Builtins that set the variables they name.
_SETTERS = frozenset("read printf let mapfile readarray getopts".split())
#: Builtins that evaluate an array subscript they are handed as text.
_SUBSCRIPT_EVALUATORS = frozenset(
    "test [ [[ printf unset let declare typeset local export readonly read mapfile "
    "readarray wait getopts".split()
)


def _evaluated_names(name: str, args: list[str]) -> list[str]:
    """The words a variable-naming builtin evaluates as names or arithmetic: what
    follows `-v`/`-R` (test, printf), every operand (unset, let, read, ...), and
    for declarations the name part (the value too under `-i`, an integer)."""
    if name in ("test", "[", "[[", "printf"):
        return [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-v", "-R")]
    if name in ("declare", "typeset", "local", "export", "readonly"):
        integer = any(a.startswith("-") and "i" in a for a in args)
        return [a if integer else a.split("=", 1)[0] for a in args if not a.startswith("-")]
    return [a for a in args if not a.startswith("-")]


def _trim(value: str, operator: str, pattern: str) -> str:
    """`${X%pat}` and friends: the shortest (`%`, `#`) or longest (`%%`, `##`) suffix or
    prefix of `value` that `pattern` matches, removed."""
    cuts = range(len(value) + 1)
    if operator.startswith("%"):
        order = reversed(cuts) if operator == "%" else cuts
        for cut in order:
            if fnmatch.fnmatchcase(value[cut:], pattern):
                return value[:cut]
    else:
        order = cuts if operator == "#" else reversed(cuts)
        for cut in order:
            if fnmatch.fnmatchcase(value[:cut], pattern):
                return value[cut:]
    return value


def _latent_bodies(text: str) -> list[str]:
    """The bodies of the `...` and $(...) substitutions spelled in `text` (not $((...)),
    which is arithmetic), every one: each is walked, and charged, as a script."""
    bodies: list[str] = []
    index = 0
    while index < len(text):
        if text[index] == "`":
            end = text.find("`", index + 1)
            if end < 0:
                bodies.append(text[index + 1 :])
                break
            bodies.append(text[index + 1 : end])
            index = end + 1
            continue
        if text.startswith("$(", index) and not text.startswith("$((", index):
            level, end = 1, index + 2
            while end < len(text) and level:
                level += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            bodies.append(text[index + 2 : end - 1 if not level else end])
            index = end
            continue
        index += 1
    return [b for b in bodies if b.strip()]


_DYNAMIC_KINDS = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "process_substitution"}
)
#: Words whose value is their text (unquoted, unescaped as their kind says).
_LITERAL_KINDS = frozenset(
    {
        "word",
        "number",
        "variable_name",
        "file_descriptor",
        "raw_string",
        "ansi_c_string",
        "string_content",
        "heredoc_content",
    }
)


def _add(words: list[str], word: _Word, *, quoted: bool = False) -> bool:
    """Append a word's fields (or `$?`) to `words`; True when it is dynamic. `quoted`:
    its braces are quoted, so bash does not expand them (`'{a,b}'`)."""
    if word.values is None:
        words.append(_Unknown(word.template))
        return True
    if quoted:
        words.extend(_Quoted(value) for value in word.values)
    else:
        words.extend(word.values)
    return word.dynamic


class _Quoted(str):
    """A word whose braces were quoted: brace expansion leaves it alone."""


def _template(word: str) -> str:
    return word.template if isinstance(word, _Unknown) else word


def _descendants_of_kind(node: Any, kinds: frozenset[str], walker: _Walker) -> Any:
    """The nodes of `kinds` below `node`; each node looked at is a step of `walker`."""
    stack = list(node.children)
    while stack:
        current = stack.pop()
        walker.step()
        if current.type in kinds:
            yield current
        stack.extend(current.children)


def _split_operator(operator: str) -> tuple[str, str]:
    """`2>` -> ("2", ">"); `<<-` -> ("", "<<-")."""
    digits = len(operator) - len(operator.lstrip("0123456789"))
    return operator[:digits], operator[digits:]


def _describe_error(root: Any, bodies: list[tuple[int, int]], source: bytes) -> str:
    """The first ERROR or MISSING node, as "what at line:col"; "" when every one lies
    inside a here-document body (those are parsed apart)."""
    stack = [root]
    skipped = False
    while stack:
        node = stack.pop()
        if node.is_missing or node.type == "ERROR":
            start, end = node.start_byte, node.end_byte
            if any(low <= start and end <= high for low, high in bodies):
                skipped = True
                continue
            row, col = node.start_point
            if node.is_missing:
                return f"missing {node.type!r} at {row + 1}:{col + 1}"
            snippet = source[start : min(end, start + 80)].decode("utf-8", "surrogateescape")[:20]
            return f"cannot parse {snippet!r} at {row + 1}:{col + 1}"
        if node.has_error:
            stack.extend(reversed(node.children))
    return "" if skipped else "cannot parse the command"


def _unescape(text: str) -> str:
    """An unquoted word: a backslash quotes the next character; a backslash-newline vanishes."""
    if "\\" not in text:
        return text
    out: list[str] = []
    chars = iter(text)
    for char in chars:
        if char == "\\":
            following = next(chars, "")
            if following != "\n":
                out.append(following)
        else:
            out.append(char)
    return "".join(out)


def _unescape_double(text: str) -> str:
    """Inside double quotes a backslash quotes only $ ` " \\ and newline."""
    if "\\" not in text:
        return text
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _unescape_heredoc(text: str) -> str:
    """An unquoted here-document: a backslash quotes only $ ` \\ and newline."""
    if "\\" not in text:
        return text
    return re.sub(r"\\([$`\\\n])", lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def _double_quoted(text: str) -> str:
    """A here-document body as the inside of a double-quoted string with the same
    expansions. A `"` of the body itself is quoted (`\\"` there is a backslash and a
    quote); quotes inside `$(...)` and backticks are left alone, they are code."""
    out: list[str] = []
    stack: list[str] = []  # ")" in $(...), "`" in backticks, '"' in a string inside them
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        context = stack[-1] if stack else ""
        if char == "\\":
            pair = text[index : index + 2]
            if len(pair) == 1:
                out.append("\\\\")
            elif not context and pair == '\\"':
                out.append('\\\\\\"')
            else:
                out.append(pair)
            index += 2
            continue
        if text.startswith("$(", index):
            stack.append(")")
            out.append("$(")
            index += 2
            continue
        if char == "`":
            if context == "`":
                stack.pop()
            else:
                stack.append("`")
        elif not context:
            if char == '"':
                char = '\\"'
        elif context == '"':
            if char == '"':
                stack.pop()
        elif char == "'":
            close = text.find("'", index + 1)
            close = size - 1 if close < 0 else close
            out.append(text[index : close + 1])
            index = close + 1
            continue
        elif char == '"':
            stack.append('"')
        elif char == "(" and context == ")":
            stack.append(")")
        elif char == ")" and context == ")":
            stack.pop()
        out.append(char)
        index += 1
    return "".join(out)


def _ansi_c(body: str) -> str:
    def replace(match: re.Match[str]) -> str:
        escape = match.group(1)
        head = escape[0]
        if head in "xuU" and len(escape) > 1:
            return chr(min(int(escape[1:], 16), 0x10FFFF))
        if head in "01234567":
            return chr(int(escape, 8) & 0xFF)
        if head == "c" and len(escape) == 2:
            return chr(ord(escape[1]) & 0x1F)
        return _ANSI_ESCAPES.get(escape, "\\" + escape)

    return _ANSI.sub(replace, body)


def _split_fields(value: str, ifs: str) -> tuple[list[str], bool, bool]:
    """Bash field splitting of an unquoted expansion -> (fields, starts with a
    separator, ends with one)."""
    if not value:
        return [], False, False
    if not ifs:
        return [value], False, False
    white = "".join(c for c in _DEFAULT_IFS if c in ifs)
    other = "".join(c for c in ifs if c not in _DEFAULT_IFS)
    stripped = value.strip(white) if white else value
    before = bool(white) and value[0] in white
    after = bool(white) and value[-1] in white
    if not stripped:
        return [], True, True
    blank = f"[{re.escape(white)}]" if white else ""
    if other:
        separator = f"{blank}*[{re.escape(other)}]{blank}*" if white else f"[{re.escape(other)}]"
        if white:
            separator += f"|{blank}+"
    else:
        separator = f"{blank}+"
    fields = re.split(separator, stripped)
    if len(fields) > 1 and fields[-1] == "":
        fields.pop()  # a trailing separator ends the last field, it opens no new one
        after = True
    return fields, before, after


def _brace_choices(word: str) -> tuple[int, int, list[str]] | None:
    """The first brace expansion in `word`: (start, end, alternatives)."""
    best: tuple[int, int, list[str]] | None = None
    match = _BRACE.search(word)
    if match is not None:
        best = (match.start(), match.end(), match.group(1).split(","))
    sequence = _SEQUENCE.search(word)
    if sequence is not None and (best is None or sequence.start() < best[0]):
        items = _sequence(*sequence.groups())
        if items is not None:
            best = (sequence.start(), sequence.end(), items)
    return best


def _sequence(first: str, last: str, step: str | None) -> list[str] | None:
    """`{a..e}`, `{1..10..2}`; None when bash would leave it alone. One longer than
    `MAX_WORDS` is refused before it is built."""
    increment = abs(int(step)) if step else 1
    increment = increment or 1
    letters = first.isalpha() and last.isalpha()
    if not letters and (first.isalpha() or last.isalpha()):
        return None
    low, high = (ord(first), ord(last)) if letters else (int(first), int(last))
    if abs(high - low) // increment >= MAX_WORDS:
        raise _too_many_words("a brace expansion makes")
    direction = 1 if high >= low else -1
    numbers = range(low, high + direction, increment * direction)
    return [chr(n) if letters else str(n) for n in numbers]


def _expand_braces(words: list[str], walker: _Walker) -> list[str]:
    """Bash brace expansion (`{rm,-rf,/}` -> rm -rf /; `a{b,c}` -> ab ac;
    `{r..r}m` -> rm), bounded; each word made is charged to `walker`."""
    out: list[str] = []
    for word in words:
        if "{" not in word or isinstance(word, _Unknown | _Quoted):
            out.append(word)
            continue
        pending = [word]
        done: list[str] = []
        while pending:
            if len(out) + len(done) + len(pending) > MAX_WORDS:
                raise _too_many_words("brace expansion makes")
            current = pending.pop()
            choice = _brace_choices(current)
            if choice is None:
                done.append(current)
                continue
            start, end, items = choice
            head, tail = current[:start], current[end:]
            walker.step(len(items))
            walker.built(len(items) * (len(head) + len(tail)) + sum(len(i) for i in items))
            pending.extend(head + item + tail for item in reversed(items))
        out.extend(done)
    return out


def _split_string(value: str) -> list[str]:
    """`env -S 'rm -rf /'`: env splits the string into words itself."""
    try:
        return shlex.split(value)
    except ValueError:
        return value.split()


class _Unwrapped(NamedTuple):
    words: list[str]
    wrappers: list[str]
    #: The assignments dropped (`A=1`, `env A=1`).
    assigned: list[str]
    #: The directory a wrapper changes to (`env -C DIR`, `sudo -D DIR`), or None.
    chdir: str | None
    #: xargs's replace string (`-I {}`), or None.
    replace: str | None
    #: Files a wrapper writes its own output to (`strace -o F`, `ltrace -o F`).
    outputs: tuple[str, ...] = ()
    #: What xargs splits its input at: " " for blanks, else the delimiter (`-d`, `-0`,
    #: `-I` reads whole lines).
    split: str = " "
    #: Packages a runner installs first (`uv run --with URL`, `npm exec --package=URL`),
    #: as (runner, spec).
    fetches: tuple[tuple[str, str], ...] = ()
    #: Files a wrapper reads the command's arguments from (`xargs -a F`): as `<F`.
    inputs: tuple[str, ...] = ()
    #: Command lines a wrapper runs besides the command (`systemd-run -p
    #: ExecStartPre=CMD`).
    commands: tuple[str, ...] = ()


def _unwrap(words: list[str]) -> _Unwrapped:
    """Drop leading assignments and wrapper programs (`sudo -u x env A=1 rm` -> `rm`)."""
    return _unwrap_words(words)


def _unwrap_words(words: list[str]) -> _Unwrapped:
    wrappers: list[str] = []
    assigned: list[str] = []
    chdir: str | None = None
    replace: str | None = None
    outputs: list[str] = []
    split_at = " "
    fetches: list[tuple[str, str]] = []
    inputs: list[str] = []
    commands: list[str] = []
    for _ in range(_MAX_WRAPPERS):
        taken = _leading(words, _ASSIGNMENT)
        if taken:
            assigned += words[:taken]
            words = words[taken:]
        if not words:
            return _Unwrapped(
                words, wrappers, assigned, chdir, replace, tuple(outputs), split_at, tuple(fetches),
                inputs=tuple(inputs), commands=tuple(commands),
            )
        wrapper = posixpath.basename(words[0])
        if wrapper not in _WRAPPERS and wrapper.isupper() and wrapper.lower() in _WRAPPERS:
            wrapper = wrapper.lower()  # case-insensitive file systems run XARGS as xargs
        elif _LOADER.match(wrapper):
            wrapper = "ld.so"
        runner = _RUNNERS.get((wrapper, words[1] if len(words) > 1 else ""))
        if runner is not None:
            rest = _after_runner(words[2:], *runner)
            own_options = words[2 : len(words) - len(rest)]
            fetches += [
                (wrapper, spec)
                for spec in (o.split("=", 1)[-1] for o in own_options)
                if not isinstance(spec, _Unknown) and REMOTE_SPEC.search(spec)
            ]
            if not rest:
                return _Unwrapped(
                    words, wrappers, assigned, chdir, replace, tuple(outputs), split_at
                )
            wrappers.append(f"{wrapper} {words[1]}")
            words = rest
            continue
        if wrapper not in _WRAPPERS:
            return _Unwrapped(
                words, wrappers, assigned, chdir, replace, tuple(outputs), split_at, tuple(fetches),
                inputs=tuple(inputs), commands=tuple(commands),
            )
        takes_value = _WRAPPER_OPTION_ARGS.get(wrapper, frozenset())
        rest = list(words[1:])
        if wrapper == "setarch" and rest and not rest[0].startswith("-"):
            rest.pop(0)  # `setarch ARCH [options] program`
        if wrapper == "coproc":
            # `coproc NAME { CMD; }`, `coproc { CMD; }`: the body runs; the parse
            # leaves the name and the brace in front of its first command
            if len(rest) > 1 and rest[1] in ("{", "(") and _COPROC_NAME.match(rest[0]):
                rest = rest[2:]
            elif rest and rest[0] in ("{", "("):
                rest = rest[1:]
        if wrapper in ("distrobox-enter", "toolbox") and rest and rest[0] == "run":
            rest.pop(0)  # `toolbox run CMD`
        options: list[str] = []
        split: list[str] = []
        name = wrapper
        while rest and rest[0].startswith("-") and (rest[0] != "-" or wrapper == "env"):
            option = rest.pop(0)
            if option == "--":
                break
            options.append(option)
            value = None
            if option in takes_value and rest:
                value = rest.pop(0)
            elif option in _WRAPPER_OPTION_PAIRS.get(wrapper, ()) and len(rest) >= 2:
                value = rest.pop(0)
                rest.pop(0)
            if wrapper in ("strace", "ltrace") and option == "-o" and value is not None:
                outputs.append(value)
            elif wrapper != "stdbuf" and _WRAPPER_OUTPUT.match(option):
                # `valgrind --log-file=F`, `time -o F`: the wrapper writes F itself
                written = option.split("=", 1)[1] if "=" in option else value
                if written:
                    outputs.append(written)
            if wrapper == "systemd-run" and (
                option in ("-d", "--same-dir") or option.startswith("--working-directory=")
            ):
                chdir = option.split("=", 1)[1] if "=" in option else ""
            if wrapper == "systemd-run" and option.startswith(("--on-", "--timer-property")):
                name = "systemd-run " + option.split("=", 1)[0]  # a timer: it runs later
            elif wrapper == "systemd-run" and _as_root(option, value):
                name = "systemd-run --uid"  # runs as another user (root)
            if wrapper == "systemd-run":
                commands += _unit_commands(option, value)
            if wrapper == "xargs":
                split_at = _xargs_split(option, value, split_at)
                given = _xargs_arg_file(option, value)
                if given is not None:
                    inputs.append(given)
                if option in ("-I", "-J") and value is not None:
                    replace = value
                elif option.startswith(("-I", "-J")) and len(option) > 2:
                    replace = option[2:]
                elif option == "--replace":
                    replace = "{}"
                elif option.startswith("-i"):
                    replace = option[2:] or "{}"
                elif option.startswith("--replace="):
                    replace = option.split("=", 1)[1] or "{}"
            if wrapper in ("env", "sudo"):
                if option in ("-C", "-D", "--chdir") and value is not None:
                    chdir = value
                elif option.startswith("--chdir="):
                    chdir = option.partition("=")[2]
                elif option.startswith(("-C", "-D")) and len(option) > 2 and wrapper == "env":
                    chdir = option[2:]
            if wrapper == "env":
                if option in ("-S", "--split-string"):
                    split += _split_string(value or "")
                elif option.startswith("--split-string="):
                    split += _split_string(option.partition("=")[2])
                elif option.startswith("-S"):
                    split += _split_string(option[2:])
        if wrapper == "command" and any(
            not o.startswith("--") and ("v" in o or "V" in o) for o in options
        ):
            return _Unwrapped(
                words, wrappers, assigned, chdir, replace
            )  # `command -v rm` runs nothing
        rest = split + rest
        if wrapper in _LEADING_OPERAND and rest:
            if wrapper == "logsave":
                outputs.append(rest[0])  # `logsave FILE CMD`: the log goes to FILE
            rest = rest[1:]
        # env takes any NAME=VALUE (`env 'BASH_FUNC_ls%%=() { ...; }' bash`), the shell
        # only identifiers
        assignment = _ENV_ASSIGNMENT if wrapper == "env" else _ASSIGNMENT
        taken = _leading(rest, assignment)
        if taken:
            assigned += rest[:taken]
            rest = rest[taken:]
        if not rest:
            # the wrapper alone (`sudo -v`, `env`) is the command
            return _Unwrapped(
                words, wrappers, assigned, chdir, replace, tuple(outputs), split_at, tuple(fetches),
                inputs=tuple(inputs), commands=tuple(commands),
            )
        wrappers.append(name)
        words = rest
    return _Unwrapped(
        words, wrappers, assigned, chdir, replace, tuple(outputs), split_at, tuple(fetches),
                inputs=tuple(inputs), commands=tuple(commands),
    )


def _leading(words: list[str], pattern: re.Pattern[str]) -> int:
    """How many words at the start of `words` `pattern` matches (`A=1 B=2 cmd`: 2)."""
    count = 0
    for word in words:
        if not pattern.match(word):
            break
        count += 1
    return count


def too_many_paths(paths: Iterable[str], *, on_disk: bool = False) -> str:
    """Why a call must be refused for the paths it names (`MAX_PATHS`, `MAX_PATTERNS`,
    `MAX_PATTERN_COMPONENTS`), or "". `on_disk`: its globs were expanded."""
    named = set(paths)
    most = MAX_PATHS * 4 if on_disk else MAX_PATHS
    if len(named) > most:
        found = " once its globs are expanded" if on_disk else ""
        return str(_TooComplex("analysis.max_paths", f"more than {most} paths{found}"))
    patterns = {p for p in named if _paths.is_pattern(p)}
    if len(patterns) > MAX_PATTERNS:
        return str(
            _TooComplex(
                "analysis.max_patterns", f"more than {MAX_PATTERNS} paths that are patterns"
            )
        )
    if sum(p.count("/") + 1 for p in patterns) > MAX_PATTERN_COMPONENTS:
        return str(
            _TooComplex(
                "analysis.max_pattern_components",
                f"paths that are patterns of more than {MAX_PATTERN_COMPONENTS} components",
            )
        )
    return ""


def _as_root(option: str, value: str | None) -> bool:
    """systemd-run's `--uid=0`, `--uid root`, `-p User=root`: the unit runs as root."""
    given = option.split("=", 1)[1] if "=" in option else (value or "")
    if option.split("=", 1)[0] == "--uid":
        return given in ("0", "root")
    if option.split("=", 1)[0] in ("-p", "--property"):
        return given.replace(" ", "") in ("User=root", "User=0")
    return False


def _xargs_arg_file(option: str, value: str | None) -> str | None:
    """The file `xargs -a F` / `--arg-file=F` reads its arguments from, or None."""
    if option in ("-a", "--arg-file"):
        return value
    if option.startswith("--arg-file="):
        return option.partition("=")[2]
    if option.startswith("-a") and len(option) > 2:
        return option[2:]
    return None


#: systemd unit settings whose value is a command line the unit runs.
_UNIT_COMMAND = re.compile(r"^Exec[A-Za-z]*=(.*)$", re.DOTALL)


def _unit_commands(option: str, value: str | None) -> list[str]:
    """`systemd-run -p ExecStartPre=CMD` (`--property=`, `-pExec...`): CMD runs too
    (its prefixes `@-:+!|` dropped; `+` and `!` run it with full privileges)."""
    name, _, attached = option.partition("=")
    if name == "-p" or name == "--property":
        given = attached if attached else (value or "")
    elif option.startswith("-p") and not option.startswith("--"):
        given = option[2:]
    else:
        return []
    if isinstance(given, _Unknown):
        return [_UNKNOWN]
    match = _UNIT_COMMAND.match(given)
    if match is None:
        return []
    return [match[1].lstrip("@-:+!|")]


def _xargs_split(option: str, value: str | None, split_at: str) -> str:
    """Where xargs splits its input, after `option` (with `value`)."""
    if option in ("-0", "--null"):
        return "\0"
    if option.startswith(("-I", "-i", "--replace")):
        return "\n"
    delimiter = None
    if option in ("-d", "--delimiter"):
        delimiter = value
    elif option.startswith("--delimiter="):
        delimiter = option.partition("=")[2]
    elif option.startswith("-d") and len(option) > 2:
        delimiter = option[2:]
    if delimiter is None:
        return split_at
    escapes = {"\\n": "\n", "\\t": "\t", "\\0": "\0", "\\\\": "\\"}
    return escapes.get(delimiter, delimiter[:1] or split_at)


def _after_runner(words: list[str], takes_value: frozenset[str], leading: int) -> list[str]:
    """The command a runner runs: its own options and `leading` operands skipped."""
    rest = list(words)
    while rest and rest[0].startswith("-") and rest[0] != "-":
        option = rest.pop(0)
        if option == "--":
            return rest
        if option in takes_value and rest:
            rest.pop(0)
    rest = rest[leading:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    return rest


#: Variables that change which program runs, or make a program run other code:
#: the shell's own lookup, the dynamic loader, startup files, pagers and editors
#: that tools start, git's and other tools' command hooks, interpreters' load paths.
_ACTING_NAMES = frozenset(
    {
        "PATH",
        "BASH_ENV",
        "ENV",
        "CDPATH",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "PROMPT_COMMAND",
        "HOME",
        "XDG_CONFIG_HOME",
        "PAGER",
        "MANPAGER",
        "EDITOR",
        "VISUAL",
        "BROWSER",
        "LESSOPEN",
        "LESSCLOSE",
        "LESSKEY",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PERL5LIB",
        "PERL5OPT",
        "PERLLIB",
        "RUBYLIB",
        "RUBYOPT",
        "LUA_INIT",
        "LUA_PATH",
        "LUA_CPATH",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "CLASSPATH",
        "OPENSSL_CONF",
        "GCONV_PATH",
        "SSH_ASKPASS",
        "SUDO_ASKPASS",
        "RUSTC_WRAPPER",
        "TAR_OPTIONS",
        "GREP_OPTIONS",
        "SYSTEMD_PAGER",
    }
)
_ACTING_PREFIXES = (
    "LD_", "DYLD_", "GIT_", "PYTHON", "NPM_CONFIG_", "npm_config_", "PIP_", "BASH_FUNC_",
)  # fmt: skip
_ACTING_SUFFIXES = ("_PAGER", "_EDITOR", "_COMMAND", "_ASKPASS", "_SHELL")


def acting_variable(name: str) -> bool:
    """True when assigning `name` can change what a command runs (`PATH=. ls`,
    `LD_PRELOAD=x.so ls`, `GIT_PAGER='sh -c ...' git log`)."""
    return (
        name in _ACTING_NAMES
        or name.startswith(_ACTING_PREFIXES)
        or name.endswith(_ACTING_SUFFIXES)
    )


_DIRECTORY_CHANGERS = frozenset({"cd", "pushd", "popd"})


#: Programs the walker itself looks into (shells, `eval`, `find -exec`, ...).
_CASE_FOLDED = frozenset(
    {*_SHELLS, *_WRAPPERS, "eval", "source", "find", "parallel", "at", "batch", "su"}
)


def _program_name(program: str) -> str:
    """The name a program is known by: `/usr/bin/rm` -> rm, `C:\\Git\\bin\\git.exe` ->
    git (Git Bash on Windows runs both spellings)."""
    name = posixpath.basename(program) or program
    if "\\" in name:
        name = name.rsplit("\\", 1)[-1] or name
    if name.lower().endswith(".exe") and len(name) > 4:
        name = name[:-4]
    if name.isupper() and name.lower() in _CASE_FOLDED:
        name = name.lower()  # case-insensitive file systems run `SH` as sh
    return name


def _normal_dir(path: str) -> str:
    """A directory path without `.`, `..` and `//` (lexically, as `cd` does by default);
    a relative one stays relative ("" for the starting directory)."""
    collapsed = _paths._collapse(path)
    return "" if collapsed == "." else collapsed


def _flags(args: list[str]) -> tuple[str, ...]:
    flags: list[str] = []
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--") and len(arg) > 2:
            flags.append(arg[2:].split("=", 1)[0])
        elif arg.startswith("-") and len(arg) > 1 and not arg[1:].isdigit():
            flags.extend(arg[1:])
    return tuple(flags)


def _shell_script(args: list[str]) -> tuple[str, str | None]:
    """How a shell gets its script: ("c", SCRIPT or None) for `sh -c SCRIPT`,
    ("file", PATH) for `sh PATH`, ("stdin", None) when it reads standard input."""
    mode, script, _ = shell_script_at(args)
    return mode, script


def shell_script_at(args: list[str]) -> tuple[str, str | None, int]:
    """`_shell_script`, and the index in `args` of the script (-1 when none): the words
    after it are the script's `$0`, `$1`, ..."""
    command = stdin = skip = operands = False
    for position, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if not operands and not isinstance(arg, _Unknown):
            if arg in ("-", "--"):
                operands = True
                continue
            if len(arg) > 1 and arg[0] in "-+":
                if arg.startswith("--"):
                    skip = arg in _SHELL_OPTION_ARGS
                    continue
                letters = arg[1:]
                command = command or (arg[0] == "-" and "c" in letters)
                stdin = stdin or "s" in letters
                skip = "o" in letters or "O" in letters
                continue
        if command:
            return "c", arg, position
        if stdin or arg in _STDIN_FILES:
            return "stdin", None, -1  # `sh /dev/stdin <<< ...` reads its input too
        return "file", arg, position
    return ("c", None, -1) if command else ("stdin", None, -1)


#: Files that are the reading program's standard input.
_STDIN_FILES = frozenset({"/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"})
#: Programs that run a script given in their arguments, besides shells, `su` and `eval`.
_STRING_RUNNERS = frozenset(
    {"ssh", "watch", "alias", "trap", "script", "flock", "tmux", "screen", "byobu", "entr", "rush"}
)
#: rush's options that take a value (rush(1)).
_RUSH_OPTION_ARGS = frozenset(
    "-D --field-delimiter -d --record-delimiter -j --jobs -n --nrecords -J "
    "--records-join-sep -i --infile -o --out-file -t --timeout -r --retries "
    "--retry-interval -v --assign --escape -c --continue -C --succ-cmd-file".split()
) - {"-c", "--continue"}
#: tmux commands that run a shell command, with the letters of their options that take
#: a value (tmux(1); they differ per command: `-d` is a delay for run-shell, a flag
#: for new-window). `send-keys` types its operands into a pane's shell instead.
_TMUX_VALUED: dict[str, str] = {
    "new-session": "cefFnstxy",
    "new-window": "ceFnt",
    "split-window": "celtF",
    "respawn-pane": "cet",
    "respawn-window": "cet",
    "run-shell": "cdt",
    "display-popup": "bcdehsStTwxy",
    "if-shell": "t",
    "pipe-pane": "t",
    "send-keys": "cNt",
}
_TMUX_ALIASES = {
    "new": "new-session",
    "neww": "new-window",
    "splitw": "split-window",
    "respawnp": "respawn-pane",
    "respawnw": "respawn-window",
    "run": "run-shell",
    "popup": "display-popup",
    "if": "if-shell",
    "pipep": "pipe-pane",
    "send": "send-keys",
}
_TMUX_GLOBAL_VALUED = "cfLST"
_TMUX_KEYS = re.compile(r"^(?:Enter|KPEnter|C-[a-zA-Z]|M-.|Escape|Tab|BSpace|Space)$")
_SCREEN_VALUED = frozenset("-S -c -e -h -p -s -T -t -Logfile".split())
_PARALLEL_OPTION_ARGS = frozenset(
    "-j --jobs -S --sshlogin --sslogin --env -a --arg-file --colsep -C -d --delimiter -I "
    "--replace --tmpdir --joblog --results --res -N -n --max-args -L --max-lines --timeout "
    "--retries --delay --memfree --load --nice --workdir --wd --basefile --bf --return "
    "--transferfile --tf --tagstring --header -E --halt --sqlworker --sqlmaster -X --xargs "
    "--shebang-wrap --termseq -P --max-procs --plus --jobs-log".split()
) - {"-X", "--xargs", "--plus"}
#: A package named by where it is fetched from, not by a registry name.
REMOTE_SPEC = re.compile(r"://|^git\+|^(?:github|gitlab|bitbucket|gist):|@\s*https?:")
_WRAPPER_OUTPUT = re.compile(
    r"^--?(?:o|output|log-?file|logfile|xml-file|output-file|log-socket-file)(?:=|$)"
)
_FD_VALUE_OPTIONS = frozenset(
    "-e --extension -t --type -d --max-depth --min-depth --exact-depth -E --exclude -c "
    "--color -j --threads -S --size --changed-within --changed-before --owner -g --glob "
    "--base-directory --path-separator --max-results --search-path --ignore-file".split()
)
_FD_TOKEN = re.compile(r"\{(?:/|//|\.|/\.)?\}")
_PARALLEL_TOKEN = re.compile(r"\{[0-9]*[./#%]*[0-9]*\}")
_SSH_OPTION_ARGS = frozenset("BbcDEeFIiJLlmOoPpQRSWw")
_SCRIPT_OPTION_ARGS = frozenset("EIOBTm")
_FLOCK_OPTION_ARGS = frozenset("Ew")
_WATCH_OPTION_ARGS = frozenset({"-n", "--interval", "-q", "--equexit"})


def _joined(words: list[str] | str) -> str:
    """Words a program joins with spaces before a shell parses them (`ssh`, `watch`)."""
    if isinstance(words, str):
        return words
    if len(words) == 1:
        return words[0]
    return (
        _Unknown(" ".join(_template(w) for w in words))
        if any(isinstance(w, _Unknown) for w in words)
        else " ".join(words)
    )


def _string_script(name: str, args: list[str]) -> tuple[Any, bool] | None:
    """(script, False) or (argv, True) that `name` runs from its arguments; None when
    it runs none (`ssh host` alone, `trap -p`)."""
    if name == "alias":
        values = [a.split("=", 1)[1] for a in args if "=" in a and not a.startswith("-")]
        if not values:
            return None
        if any(isinstance(a, _Unknown) for a in args):
            return _Unknown("; ".join(_template(v) for v in values)), False
        return "\n".join(values), False
    if name == "trap":
        operands = [a for a in args if not (a.startswith("-") and a != "-")]
        if len(operands) < 2 or operands[0] in ("-", ""):
            return None
        return operands[0], False
    if name in ("tmux", "byobu"):
        return _tmux_script(args)
    if name in ("entr", "rush"):
        return _runner_script(name, args)
    if name == "screen":
        rest = list(args)
        while rest and rest[0].startswith("-"):
            option = rest.pop(0)
            if option == "-X":  # a screen command: `-X stuff "make deploy^M"` types it
                if len(rest) >= 2 and rest[0] == "stuff":
                    return _joined(rest[1:]), False
                return None
            clustered = len(option) > 2 and option[1] != "-" and f"-{option[-1]}" in _SCREEN_VALUED
            if (option in _SCREEN_VALUED or clustered) and rest:
                rest.pop(0)  # `-S name`, `-dmS name`
        return (rest, True) if rest else None
    if name in ("script", "flock"):
        takes_value = _SCRIPT_OPTION_ARGS if name == "script" else _FLOCK_OPTION_ARGS
        for position, arg in enumerate(args):
            if arg == "--":
                break
            if arg in ("-c", "--command"):
                return (args[position + 1], False) if position + 1 < len(args) else None
            if arg.startswith("--command="):
                return arg.partition("=")[2], False
            if arg.startswith("-") and not arg.startswith("--"):
                # getopt clusters: `-qc CMD`, `-qcCMD`; a letter taking a value ends one.
                for at, letter in enumerate(arg[1:], 1):
                    if letter == "c":
                        if at + 1 < len(arg):
                            return arg[at + 1 :], False
                        if position + 1 < len(args):
                            return args[position + 1], False
                        return None
                    if letter in takes_value:
                        break
        if name == "flock":  # flock [options] FILE COMMAND [ARGS]
            operands = [a for a in args if not a.startswith("-")]
            if len(operands) >= 2:
                return operands[1:], True
        return None
    rest = list(args)
    takes_value = _SSH_OPTION_ARGS if name == "ssh" else _WATCH_OPTION_ARGS
    direct = False
    while rest and rest[0].startswith("-") and rest[0] != "-":
        option = rest.pop(0)
        if option == "--":
            break
        if name == "ssh":
            if option[-1] in takes_value and len(option) == 2 and rest:
                rest.pop(0)
        elif option in takes_value and rest:
            rest.pop(0)
        elif option in ("-x", "--exec"):
            direct = True
    if name == "ssh":
        if not rest:
            return None
        rest = rest[1:]  # the host
    if not rest:
        return None
    if direct:
        return rest, True
    return _joined(rest), False


def _runner_script(name: str, args: list[str]) -> tuple[Any, bool] | None:
    """`entr [-s] UTILITY ARGS` runs UTILITY on each change (a shell line with -s);
    `rush 'CMD {}'` runs the shell line once per input record, whose text replaces
    `{}` (and follows CMD when it has none): what comes down the pipe, unknown."""
    rest = list(args)
    shell = name == "rush"
    while rest and rest[0].startswith("-") and rest[0] != "-":
        option = rest.pop(0)
        if option == "--":
            break
        if name == "entr" and "s" in option[1:]:
            shell = True
        elif name == "rush" and option in _RUSH_OPTION_ARGS and rest:
            rest.pop(0)
    if not rest:
        return None
    if name == "entr":
        return (_joined(rest), False) if shell else (rest, True)
    line = _joined(rest)
    if isinstance(line, _Unknown):
        return line, False
    item = '"$(cat)"'  # a record of the input: no text the policy can know
    if _PARALLEL_TOKEN.search(line):
        return _PARALLEL_TOKEN.sub(item, line), False
    return f"{line} {item}", False


def _getopt(args: list[Any], valued: str) -> tuple[dict[str, Any], list[Any]]:
    """getopt-style options (`-dP`, `-t x`, `-tx`) up to the first operand or `--`:
    ({letter: value or True}, operands). An unknown word as an option ends them."""
    options: dict[str, Any] = {}
    rest = list(args)
    while rest and isinstance(rest[0], str) and rest[0].startswith("-") and rest[0] != "-":
        word = rest.pop(0)
        if word == "--":
            break
        for at, letter in enumerate(word[1:], 1):
            if letter in valued:
                if at + 1 < len(word):
                    options[letter] = word[at + 1 :]
                else:
                    options[letter] = rest.pop(0) if rest else ""
                break
            options[letter] = True
    return options, rest


def _tmux_script(args: list[Any]) -> tuple[Any, bool] | None:
    """The shell command a tmux (or byobu) call runs: `tmux -c CMD`, `tmux new -d CMD`,
    `tmux run-shell -b CMD`, `tmux if-shell CMD ...`, or what `send-keys` types into a
    pane (key names dropped unless `-l`); None for the rest (`tmux ls`, `tmux attach`)."""
    options, rest = _getopt(args, _TMUX_GLOBAL_VALUED)
    if isinstance(options.get("c"), str):  # tmux -c SHELL-COMMAND, as a login shell would
        return options["c"], False
    if not rest or not isinstance(rest[0], str):
        return None
    command = _TMUX_ALIASES.get(rest[0], rest[0])
    if command not in _TMUX_VALUED:
        return None
    options, operands = _getopt(rest[1:], _TMUX_VALUED[command])
    if not operands:
        return None
    if command == "if-shell":
        return operands[0], False  # then tmux commands, not shell
    if command == "send-keys" and not options.get("l"):
        operands = [w for w in operands if not (isinstance(w, str) and _TMUX_KEYS.match(w))]
    return (_joined(operands), False) if operands else None


_FIND_OPTIONS = frozenset({"-H", "-L", "-P", "-O0", "-O1", "-O2", "-O3"})
#: find's expressions that only choose what to act on (everything else acts or is an
#: option): with one of them, find acts on some files below its start points.
_FIND_TESTS = frozenset(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -size "
    "-empty -mtime -mmin -atime -amin -ctime -cmin -newer -anewer -cnewer -newermt -user "
    "-group -uid -gid -nouser -nogroup -perm -links -inum -samefile -lname -ilname "
    "-readable -writable -executable -fstype -used".split()
)


def find_starts(args: list[str]) -> list[str]:
    """The start points of `find ARGS` ("." when none is given)."""
    index = 0
    while index < len(args) and (args[index] in _FIND_OPTIONS or args[index] == "-D"):
        index += 2 if args[index] == "-D" else 1
    starts: list[str] = []
    while index < len(args):
        arg = args[index]
        if arg.startswith(("-", "(", "!", ")")) and arg != "-":
            break
        starts.append(arg)
        index += 1
    return starts or ["."]


def find_found(args: list[str]) -> list[str]:
    """What `find ARGS` acts on: below its start points (`START/**`, or
    `START/**/NAME` when one `-name` picks the files) when a test picks them, else
    the start points and everything below them."""
    starts = find_starts(args)
    below = [s.rstrip("/") + "/**" if s != "/" else "/**" for s in starts]
    if not any(arg in _FIND_TESTS for arg in args):
        return [*starts, *below]
    names = [
        args[i + 1]
        for i, arg in enumerate(args[:-1])
        if arg in ("-name", "-iname") and (i == 0 or args[i - 1] not in ("!", "-not"))
    ]
    if len(names) == 1 and "-o" not in args and "-or" not in args:
        name = names[0]
        if "/" not in name and not isinstance(name, _Unknown):
            return [f"{b}/{name}" for b in below]
    return below


def _su_script(args: list[str]) -> tuple[bool, str | None]:
    """`su -c SCRIPT [user]`, `su user --command=SCRIPT` -> (has -c, SCRIPT or None)."""
    for index, arg in enumerate(args):
        if arg.startswith("--command="):
            return True, arg.partition("=")[2]
        if arg == "--command" or (
            arg.startswith("-") and not arg.startswith("--") and arg.endswith("c")
        ):
            return True, args[index + 1] if index + 1 < len(args) else None
    return False, None
