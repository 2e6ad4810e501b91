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

The package, one concept a module, each importing only those before it: `limits`
(the caps and what a refusal names), `result` (`SimpleCommand`, `Analysis`),
`words` (word expansion), `wrappers` (programs that run other programs), `parse`
(tree-sitter), `walk` (the walk of the tree); here the public surface and the memo.
"""

from __future__ import annotations

import functools

from policy.analysis._lazy_module import names_on_first_use
from policy.analysis.shell.limits import (
    BACKSTOP_S,
    CAPS,
    KEEP_BYTES,
    KEEP_LINE_CHARS,
    MAX_ARGUMENT_VALUES,
    MAX_CODE_BYTES,
    MAX_COMMANDS,
    MAX_DEPTH,
    MAX_INPUT,
    MAX_NESTING,
    MAX_PARSE_STEPS,
    MAX_PATHS,
    MAX_PATTERN_COMPONENTS,
    MAX_PATTERNS,
    MAX_PIPES,
    MAX_STEPS,
    MAX_TOTAL_BYTES,
    MAX_WORD_BYTES,
    MAX_WORDS,
    _TooComplex,
)
from policy.analysis.shell.limits import keeps_line as keeps_line
from policy.analysis.shell.limits import too_many_paths as too_many_paths
from policy.analysis.shell.result import Analysis, SimpleCommand

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policy.analysis.shell.words import _ANY_VARIABLE as _ANY_VARIABLE
    from policy.analysis.shell.words import _UNKNOWN as _UNKNOWN
    from policy.analysis.shell.wrappers import _CASE_FOLDED as _CASE_FOLDED
    from policy.analysis.shell.wrappers import _SHELLS as _SHELLS
    from policy.analysis.shell.wrappers import _STDIN_FILES as _STDIN_FILES
    from policy.analysis.shell.wrappers import _STRING_RUNNERS as _STRING_RUNNERS
    from policy.analysis.shell.wrappers import REMOTE_SPEC as REMOTE_SPEC
    from policy.analysis.shell.wrappers import _shell_script as _shell_script
    from policy.analysis.shell.wrappers import acting_variable as acting_variable
    from policy.analysis.shell.wrappers import find_found as find_found
    from policy.analysis.shell.wrappers import find_starts as find_starts
    from policy.analysis.shell.wrappers import remote_spec as remote_spec
    from policy.analysis.shell.wrappers import shell_script_at as shell_script_at

#: Re-exported for the analyses built on this one (policy.analysis.effects, programs,
#: network, operands, access; policy.builtins.autonomy), which read them from here —
#: each imported at its first read (`__getattr__`), as is the walk (`_analysis`): a line
#: whose facts a one-event hook read back (policy.analysis.kept_lines) needs neither.
_REEXPORTED = {
    "_ANY_VARIABLE": "words",
    "_UNKNOWN": "words",
    "_CASE_FOLDED": "wrappers",
    "_SHELLS": "wrappers",
    "_STDIN_FILES": "wrappers",
    "_STRING_RUNNERS": "wrappers",
    "REMOTE_SPEC": "wrappers",
    "_shell_script": "wrappers",
    "acting_variable": "wrappers",
    "find_found": "wrappers",
    "find_starts": "wrappers",
    "remote_spec": "wrappers",
    "shell_script_at": "wrappers",
}

__getattr__ = names_on_first_use(__name__, _REEXPORTED, globals())


__all__ = [
    "BACKSTOP_S",
    "CAPS",
    "KEEP_BYTES",
    "KEEP_LINE_CHARS",
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
    "keeps_line",
    "parse_error",
]


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
    if not keeps_line(given, cwd, home):
        return _analysis(given, cwd, home)
    try:
        return _memoised(given, cwd, home)
    except _Unkept as exc:  # not memoised (stopped by the clock, or large)
        return exc.analysis


@functools.lru_cache(maxsize=2048)
def _memoised(command: str, cwd: str, home: str) -> Analysis:
    found = _analysis(command, cwd, home)
    if not _kept(found):
        raise _Unkept(found)
    return found


def _analysis(command: str, cwd: str, home: str) -> Analysis:
    source = command.encode("utf-8", "surrogatepass")
    if len(source) > MAX_INPUT:
        too_long = f"command longer than {MAX_INPUT} bytes"
        refused = str(_TooComplex("analysis.max_input_bytes", too_long))
        return Analysis((), refused, False, limit=refused)
    from policy.analysis.shell.walk import _Walker

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
    return Analysis(
        tuple(walker.found),
        walker.error or limit,
        walker.substitution,
        limit=limit,
        clocked=clocked,
        cost=walker.steps + walker.parse_steps,
        built=walker.total_bytes,
    )


def _kept(analysis: Analysis) -> bool:
    """Whether a memo may keep `analysis`: not when the clock stopped it, nor when it
    is large (the memo holds 2,048 lines: of at most `KEEP_BYTES` each, not of
    `MAX_TOTAL_BYTES`)."""
    return not analysis.clocked and analysis.built <= KEEP_BYTES


analyze.cache_info = _memoised.cache_info  # type: ignore[attr-defined]
analyze.cache_clear = _memoised.cache_clear  # type: ignore[attr-defined]


class _Unkept(Exception):
    """Carries an analysis past `_memoised`'s cache (see `_kept`)."""

    def __init__(self, analysis: Analysis) -> None:
        super().__init__(analysis.limit)
        self.analysis = analysis
