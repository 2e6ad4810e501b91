"""The caps on one shell analysis (docs/security.md, "Bounded analysis"), the names a
refusal gives them, and the units parse steps are counted in.

One home for every bound: the parse (policy.analysis.shell.parse), the word
expansions (words) and the walk (walk) count against them, and the analyses built on
this one (policy.analysis.access, effects, programs) bound their own work by the same
numbers. `_Meter` is what the walk offers the lower modules to charge their work to.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from policy.analysis import paths as _paths

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
#: The longest line (with its cwd and home) the line memos keep: they are keyed by the
#: line itself, which may be 1 MiB, so a longer one is analysed again when it recurs.
KEEP_LINE_CHARS = 8 * 1024


def keeps_line(command: str, cwd: str, home: str) -> bool:
    """Whether a line memo may keep `command` run in `cwd` by `home`'s user: its key
    is short enough (`KEEP_LINE_CHARS`)."""
    return len(command) + len(cwd) + len(home) <= KEEP_LINE_CHARS


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


class _TooComplex(Exception):
    """A cap was met; `cap` names it (`analysis.max_steps`)."""

    def __init__(self, cap: str, what: str) -> None:
        super().__init__(f"{what} (cap: {cap})")
        self.cap = cap


def _too_many_words(what: str) -> _TooComplex:
    return _TooComplex("analysis.max_words", f"{what} more than {MAX_WORDS} words")


def _too_deep(what: str) -> _TooComplex:
    return _TooComplex("analysis.max_depth", f"{what} nested deeper than {MAX_DEPTH}")


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


class _Meter(Protocol):
    """What charges an analysis's work to the caps: the walk's `_Walker`, handed to
    the parse (policy.analysis.shell.parse) and to brace expansion (words)."""

    parse_steps: int

    def step(self, units: int = 1) -> None: ...

    def built(self, size: int) -> None: ...

    def parse_work(self, units: int) -> None: ...

    def late(self) -> bool: ...

    def backstop(self) -> _TooComplex: ...
