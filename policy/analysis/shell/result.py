"""What the analysis of a shell line hands its callers: the `SimpleCommand`s found and
the `Analysis` holding them. Values only; the walk (policy.analysis.shell.walk) builds
them, everything above reads them.
"""

from __future__ import annotations

from typing import Any

from policy._lazy_dataclass import dataclass, field


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
