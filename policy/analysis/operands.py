"""How a program's words are read: options, operands, and where a path lands.

The program tables (`programs`, `network`, `git`) describe each program by what
its operands and options mean; this module holds what they share: the `Facts`
being gathered for one command, option splitting (`-rf`, `-ofile`, `--opt=value`,
`--`), and `locate`, which turns a word into the path the program would open
without touching the disk (`?` when its place cannot be known).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from policy._lazy_dataclass import dataclass, field
from policy.analysis import paths as _paths
from policy.analysis import shell as _shell
from policy.analysis._lazy_re import LazyPattern
from policy.analysis._memo import remember_short
from policy.analysis.environ import note_account_lookup

__all__ = [
    "UNKNOWN",
    "Facts",
    "first_operand",
    "has_option",
    "host_of",
    "is_unknown",
    "locate",
    "option_values",
    "split_options",
    "unique",
    "words",
]


def words(text: str) -> frozenset[str]:
    """A set of names written as one string (option tables read better that way)."""
    return frozenset(text.split())


UNKNOWN = "?"


"""How a path whose location cannot be known starts: `?/dist`, `?/srv/work/x`."""


def is_unknown(path: str) -> bool:
    return path.startswith(UNKNOWN)


@dataclass
class Facts:
    """The facts of one command while they are being worked out."""

    cmd: _shell.SimpleCommand
    cwd: str | None
    home: str
    subcommand: str = ""
    reads: list[str] = field(default_factory=list)
    #: Files and directories whose names and metadata it prints, never contents.
    lists: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)
    recursive: bool = False
    network: bool = False
    hosts: list[str] = field(default_factory=list)
    sends: list[str] = field(default_factory=list)
    hidden: str = ""
    downloaded: bool = False
    privileged: bool = False
    forks: bool = False
    variables: list[str] = field(default_factory=list)
    #: What it runs as code from its standard input ("" when nothing).
    runs_stdin: bool = False
    #: Files it runs as code (a script given to a shell or an interpreter).
    runs_files: list[str] = field(default_factory=list)
    #: Shell code found inside its own code (interpreters, awk, sed, vim, git).
    scripts: list[str] = field(default_factory=list)
    argvs: list[list[str]] = field(default_factory=list)
    #: Paths written by a download (curl -o, wget, git clone).
    downloads: list[str] = field(default_factory=list)
    #: It takes the names of files to read from its standard input (cpio -o).
    reads_from_input: bool = False
    #: Symbolic links it makes: link path -> where it points (`ln -s T L`).
    links: dict[str, str] = field(default_factory=dict)
    #: Its options as the program reads them, when that differs from the parse
    #: (git's abbreviated long options); None: the parse's.
    flags: list[str] | None = None

    def at(self, word: str, base: str | None = None) -> str:
        """`word` located against `base` (default: the command's directory)."""
        return locate(word, self.cwd if base is None else base, self.home)

    def read(self, *words: str, base: str | None = None) -> None:
        self.reads += [self.at(w, base) for w in words if is_path_word(w)]

    def listing(self, *words: str, base: str | None = None) -> None:
        """`words` are listed (`ls`, `find`, `stat`): names and metadata, no contents."""
        self.lists += [self.at(w, base) for w in words if is_path_word(w)]

    def write(self, *words: str, base: str | None = None) -> None:
        self.writes += [self.at(w, base) for w in words if is_path_word(w)]

    def read_tree(self, *words: str, base: str | None = None) -> None:
        """`words` and everything below them (`grep -r`, `tar c`, `cp -r`)."""
        located = [self.at(w, base) for w in words if is_path_word(w)]
        self.reads += located + [_below(p) for p in located]

    def write_tree(self, *words: str, base: str | None = None) -> None:
        located = [self.at(w, base) for w in words if is_path_word(w)]
        self.writes += located + [_below(p) for p in located]

    def delete(self, *words: str, base: str | None = None) -> None:
        located = [self.at(w, base) for w in words if is_path_word(w)]
        self.deletes += located
        self.writes += located

    def hide(self, reason: str) -> None:
        if not self.hidden:
            self.hidden = reason


def _below(path: str) -> str:
    """`DIR/**`: everything below a path (the path itself when it already says so)."""
    if path.endswith("/**"):
        return path
    return path.rstrip("/") + "/**" if path != "/" else "/**"


def unique(items: Iterable[str]) -> tuple[str, ...]:
    """`items` without repeats or empty ones, in order. (Most lists a line's facts
    hold are empty or short: taken as they are, not through a generator.)"""
    if not items:
        return ()
    kept = dict.fromkeys(items)
    kept.pop("", None)
    kept.pop(None, None)  # type: ignore[call-overload]
    return tuple(kept)


VARIABLE = LazyPattern(r"\$\{?#?!?([A-Za-z_][A-Za-z0-9_]*)")


def is_path_word(word: str) -> bool:
    return bool(word) and word != "-"


@remember_short(256, 64)  # (a user name is at most 32 characters)
def user_home(user: str) -> str:
    """`~user`'s home from the password database, or where homes conventionally are.

    The call may run on another machine than the policy (the HTTP service), so a
    user this machine does not know is still someone's home, not a name in the cwd."""
    expanded = os.path.expanduser("~" + user)
    if not expanded.startswith("~"):
        return expanded
    return "/root" if user == "root" else "/home/" + user


def locate(word: str, cwd: str | None, home: str) -> str:
    """Where `word` names a file, without touching the disk: absolute and collapsed,
    relative to an unnamed starting directory, or `?...` when the place is unknown."""
    if _shell._UNKNOWN in word:  # a part comes from a variable or substitution
        return UNKNOWN + ("" if word.startswith("/") else "/") + word
    if word.startswith("file://"):
        word = word[len("file://") :] or "/"
    if word.startswith("~"):
        head, _, rest = word[1:].partition("/")
        if head in ("", "+") and home:
            base: str | None = home if head == "" else (cwd if cwd else None)
        elif head == "" or head in ("+", "-"):
            base = None
        elif re.fullmatch(r"[A-Za-z0-9._-]+", head):
            note_account_lookup()
            base = user_home(head)
        else:
            base = None
        if base is None:
            return UNKNOWN + "/" + word
        word = base.rstrip("/") + ("/" + rest if rest else "")
    if word.startswith("/"):
        return collapse(word)
    if cwd is None:
        return UNKNOWN + "/" + collapse(word)
    if not cwd:
        return collapse(word)
    return collapse(cwd + "/" + word)


def collapse(path: str) -> str:
    try:
        return _paths.normalize(path)
    except _paths.UnsafePathError:
        return UNKNOWN + "/" + path


def split_options(
    args: Sequence[str],
    takes_value: frozenset[str] = frozenset(),
    *,
    long_values: bool = True,
) -> tuple[list[str], dict[str, list[str]]]:
    """Split `args` into operands and {option: [values]}.

    `takes_value` lists the options whose value is the next word (short ones also
    take it attached: `-ofile`); `--opt=value` always carries its value. Options
    end at `--`."""
    operands: list[str] = []
    options: dict[str, list[str]] = {}
    index = 0
    ended = False
    while index < len(args):
        arg = args[index]
        index += 1
        if ended or not arg.startswith("-") or arg == "-" or arg == _shell._UNKNOWN:
            operands.append(arg)
            continue
        if arg == "--":
            ended = True
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if eq:
                options.setdefault(name, []).append(value)
            elif name in takes_value and index < len(args) and long_values:
                options.setdefault(name, []).append(args[index])
                index += 1
            else:
                options.setdefault(name, [])
            continue
        # short options, possibly clustered (-rf), one of which may take a value
        letters = arg[1:]
        for position, letter in enumerate(letters):
            option = "-" + letter
            if option in takes_value:
                rest = letters[position + 1 :]
                if rest:
                    options.setdefault(option, []).append(rest)
                elif index < len(args):
                    options.setdefault(option, []).append(args[index])
                    index += 1
                else:
                    options.setdefault(option, [])
                break
            options.setdefault(option, [])
    return operands, options


def option_values(options: dict[str, list[str]], *names: str) -> list[str]:
    return [v for name in names for v in options.get(name, ())]


def has_option(options: dict[str, list[str]], *names: str) -> bool:
    return any(name in options for name in names)


def first_operand(args: Sequence[str]) -> str:
    for arg in args:
        if not arg.startswith("-"):
            return arg
    return ""


URL_SCHEME = LazyPattern(r"^[A-Za-z][A-Za-z0-9+.-]*://")


LOOPBACK = words("localhost 127.0.0.1 ::1 [::1] 0.0.0.0 ip6-localhost")


def host_of(url: str) -> str:
    rest = URL_SCHEME.sub("", url)
    host = rest.split("/", 1)[0].rsplit("@", 1)[-1]
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.split(":", 1)[0]


def send(f: Facts, path: str) -> None:
    if path == "-" or path in ("/dev/stdin", "/proc/self/fd/0"):
        f.sends.append("-")
    else:
        located = f.at(path)
        f.sends.append(located)
        f.reads.append(located)


def stdin_is_data(f: Facts) -> bool:
    """Its standard input carries data: a pipe into it, or a `<` redirect / here-doc."""
    if f.cmd.pipe[1] > 0:
        return True
    return any(r.startswith(("<", "0<")) for r in f.cmd.redirects)


def remote_host(text: str) -> str:
    host = text.rsplit("@", 1)[-1]
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.split(":", 1)[0]
