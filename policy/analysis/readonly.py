"""Which commands are known to do nothing but read and print.

An explicit allow skips the host's own permission prompt, so "it only reads" must
be a claim about the program *and every option it was given*, not about its name:
`sort -o`, `tree -o`, `fd -x`, `rg --pre`, `date -s`, `printf -v`, `test -v` and
`git -c` all act while their program looks like a reader. This module holds, per
program, what makes an invocation more than a read (options that write, run code,
follow links out of the place named, read files named somewhere else, or change
the system), taken from each program's manual. A program that is not in the table
is never read-only here; the caller adds what the facts say (no writes, no hidden
code, no network).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["knows", "reads_only"]


@dataclass(frozen=True, slots=True)
class _Reader:
    #: Short option letters that make it act (`-o` of sort), checked in clusters.
    short: str = ""
    #: Long options that make it act (`--output`), without their `=value`.
    long: frozenset[str] = frozenset()
    #: The most operands it may take and still only read (`uniq IN OUT` writes OUT).
    operands: int | None = None
    #: Short options whose value follows (so `-n 5` is not the operand `5`).
    values: str = ""


def _r(short: str = "", long: str = "", operands: int | None = None, values: str = "") -> _Reader:
    return _Reader(short, frozenset(long.split()), operands, values)


_FILES0 = "--files0-from"
_PLAIN = _r(long=_FILES0)

_READERS: dict[str, _Reader] = {
    **dict.fromkeys(
        "cat tac head tail nl rev fold expand unexpand column paste join comm cut tr seq "
        "od hexdump strings cmp stat realpath readlink basename dirname pwd echo true "
        "false whoami id uname which type md5sum sha1sum sha224sum sha256sum sha384sum "
        "sha512sum b2sum cksum wc df ls dir".split(),
        _PLAIN,
    ),
    # -L follows links out of the tree named; the rest lists sizes
    "du": _r("L", f"--dereference {_FILES0} --exclude-from"),
    "file": _r("Cf", "--compile --files-from"),
    # -r follows links as it recurses (a link to ~ in a checkout reads the home)
    "diff": _r(
        "rN", f"--recursive --new-file --unidirectional-new-file {_FILES0} --from-file --to-file"
    ),
    # -R follows every link below the start (a link to ~ reads the home)
    "grep": _r("R", "--dereference-recursive", values="efmABCd"),
    "egrep": _r("R", "--dereference-recursive", values="efmABCd"),
    "fgrep": _r("R", "--dereference-recursive", values="efmABCd"),
    "rg": _r("L", "--follow --pre --pre-glob --hostname-bin", values="efmABCgtTjM"),
    "ag": _r("fz", "--follow --search-zip", values="ABCGgm"),
    "fd": _r("xXlL", "--exec --exec-batch --list-details --follow", values="edtEcj"),
    "fdfind": _r("xXlL", "--exec --exec-batch --list-details --follow", values="edtEcj"),
    "tree": _r("oRlH", "--fromfile", values="LPIo"),
    "sort": _r("oT", f"--output --compress-program {_FILES0} --temporary-directory", values="ktSo"),
    "uniq": _r(operands=1, values="fsw"),
    "xxd": _r(operands=1, values="clsgo"),
    "base64": _r("oi", "--output --input", operands=1),
    "date": _r("sf", "--set --file --reference"),
    "hostname": _r("Fb", "--file --boot", operands=0),
    "printf": _r("v"),
    "test": _r("vR"),
    "[": _r("vR"),
    "[[": _r("vR"),
    "jq": _r("L", "--rawfile --slurpfile --library-path"),
}

_FIND_ACTS = frozenset(
    "-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls -files0-from -L -H "
    "-follow".split()
)
#: jq filters that print the environment or read other files
_JQ_REACH = re.compile(r"\$ENV\b|\benv\b|\binput_filename\b|\bimport\b|\binclude\b|\$__prog")

_GIT_READERS = frozenset(
    "status log diff show ls-files ls-tree rev-parse describe blame shortlog cat-file "
    "rev-list grep whatchanged remote branch tag".split()
)
#: git's own options that let it read config or run programs from elsewhere
_GIT_GLOBAL_SAFE = frozenset(
    "-C --no-pager -P --no-optional-locks --literal-pathspecs --no-replace-objects "
    "--glob-pathspecs --noglob-pathspecs --icase-pathspecs".split()
)
#: subcommand options that write a file, run a program or read a file named elsewhere
_GIT_ACTS = frozenset(
    "--output -O --open-files-in-pager --ext-diff --textconv --filters --contents -S "
    "--no-index --batch-command".split()
)
#: what `git remote`, `git branch` and `git tag` may be asked and still only list
_GIT_LISTING = {
    "remote": frozenset({"-v", "--verbose", "show", "get-url"}),
    "branch": frozenset(
        "-a --all -r --remotes -v -vv --verbose -l --list --show-current --contains "
        "--no-contains --merged --no-merged --sort --format --color --no-color --column "
        "--points-at".split()
    ),
    "tag": frozenset(
        "-l --list -n --contains --no-contains --merged --no-merged --sort --format "
        "--points-at --column --color".split()
    ),
}


def knows(name: str) -> bool:
    """True when the table says which of `name`'s options act."""
    return name in _READERS or name in ("find", "git")


def reads_only(name: str, args: Sequence[str]) -> bool:
    """True when `name ARGS` is in the table and none of its options acts."""
    if name == "find":
        return not any(a in _FIND_ACTS for a in args)
    if name == "git":
        return _git_reads_only(args)
    reader = _READERS.get(name)
    if reader is None:
        return False
    operands = 0
    skip = False
    ended = False
    for arg in args:
        if skip:
            skip = False
            continue
        if ended or not arg.startswith("-") or arg == "-":
            operands += 1
            if name == "jq" and _JQ_REACH.search(arg):
                return False
            if name == "date" and not arg.startswith("+"):
                return False  # `date MMDDhhmm` sets the clock
            continue
        if arg == "--":
            ended = True
            continue
        if arg.startswith("--"):
            if _acts(arg.split("=", 1)[0], reader.long):
                return False
            continue
        for position, letter in enumerate(arg[1:], 1):
            if letter in reader.short:
                return False
            if letter in reader.values:
                skip = position == len(arg) - 1
                break
    return reader.operands is None or operands <= reader.operands


def _acts(option: str, acting: frozenset[str]) -> bool:
    """`option` is one of `acting`, or a prefix GNU's getopt and git take for one
    (`--ou` for `--output`, `--open` for `--open-files-in-pager`)."""
    return option in acting or (
        len(option) > 3 and any(a.startswith(option) for a in acting if a.startswith("--"))
    )


def _git_reads_only(args: Sequence[str]) -> bool:
    index = 0
    while index < len(args) and args[index].startswith("-"):
        if args[index] not in _GIT_GLOBAL_SAFE:
            return False
        index += 2 if args[index] == "-C" else 1
    if index >= len(args):
        return False
    subcommand, rest = args[index], args[index + 1 :]
    if subcommand not in _GIT_READERS:
        return False
    for arg in rest:
        if arg == "--":
            break
        option = arg.split("=", 1)[0]
        if (
            option in _GIT_ACTS
            or (option.startswith("--") and _acts(option, _GIT_ACTS))
            or (subcommand == "blame" and arg.startswith("-S"))
        ):
            return False
    listing = _GIT_LISTING.get(subcommand)
    if listing is not None:
        words = [a.split("=", 1)[0] for a in rest if a.startswith("-") or subcommand == "remote"]
        if subcommand == "remote":
            words = words[:1] if words and not words[0].startswith("-") else words
        if subcommand != "remote" and [a for a in rest if not a.startswith("-")]:
            return False  # `git branch NAME`, `git tag NAME` make one
        return all(w in listing for w in words)
    return True
