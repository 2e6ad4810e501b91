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

import os
import re
from collections.abc import Iterator, Sequence

from policy._lazy_dataclass import dataclass
from policy.analysis._lazy_re import LazyPattern

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
    # -z runs a decompressor found on PATH on every compressed file
    "rg": _r(
        "Lz", "--follow --pre --pre-glob --hostname-bin --search-zip", values="efmABCgtTjMrEd"
    ),
    "ag": _r("fzp", "--follow --search-zip --path-to-ignore --pager", values="ABCGgm"),
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
    # -f: the program is a file's; -L: modules from elsewhere (both code not seen)
    "jq": _r("Lf", "--rawfile --slurpfile --library-path --from-file"),
}

_FIND_ACTS = frozenset(
    "-exec -execdir -ok -okdir -delete -fprint -fprint0 -fprintf -fls -files0-from -L -H "
    "-follow".split()
)
#: What in a jq program reaches past the JSON it is given (looked for in its code,
#: `jq_code`): the environment (`$ENV`, `$ ENV`, `env`), modules and data files loaded
#: from a search path (`import`, `include`), and jq's own whereabouts.
_JQ_REACH = LazyPattern(
    r"\$\s*(?:ENV|__prog\w*)\b|(?<![\w.$\"])env\b|\b(?:import|include|input_filename"
    r"|get_search_list|modulemeta|get_prog_origin|get_jq_origin)\b"
)
#: jq's options and how many words follow each (`--arg NAME VALUE`).
_JQ_VALUES = {
    "--arg": 2, "--argjson": 2, "--slurpfile": 2, "--rawfile": 2, "-L": 1,
    "--library-path": 1, "--indent": 1,
}  # fmt: skip
def jq_code(program: str) -> str:
    """`program` (jq) as code only: comments dropped, each string literal kept when it
    is a plain word (`env["HOME"]` still names HOME) and emptied otherwise, the code
    interpolated in strings (`"\\(env)"`) kept as code. An unterminated string or
    interpolation leaves the rest as code (judged as such)."""
    return _jq_scan(program, 0, nested=False)[0]


def _jq_scan(program: str, index: int, *, nested: bool) -> tuple[str, int]:
    """The code from `index` to the end (or, `nested`, to the `)` closing an
    interpolation), and where it stopped."""
    out: list[str] = []
    depth = 0
    size = len(program)
    while index < size:
        char = program[index]
        if char == "#":
            end = program.find("\n", index)
            index = size if end < 0 else end
        elif char == '"':
            text, index = _jq_string(program, index + 1)
            out.append(text)
        else:
            if nested and char in "()":
                depth += 1 if char == "(" else -1
                if depth < 0:
                    return "".join(out), index + 1
            out.append(char)
            index += 1
    return "".join(out), size


def _jq_string(program: str, index: int) -> tuple[str, int]:
    """The string literal opened before `index` as code: `"word"` or `""`, with the
    code of its interpolations after it; and where the code resumes."""
    text: list[str] = []
    code: list[str] = []
    size = len(program)
    while index < size:
        char = program[index]
        if char == '"':
            word = "".join(text)
            kept = word if _JQ_WORD.fullmatch(word) else ""
            return '"' + kept + '"' + "".join(f" ({c}) " for c in code), index + 1
        if char == "\\" and program[index + 1 : index + 2] == "(":
            inner, index = _jq_scan(program, index + 2, nested=True)
            code.append(inner)
            text.append("\x00")
        elif char == "\\":
            text.append(program[index : index + 2])
            index += 2
        else:
            text.append(char)
            index += 1
    return '"' + "".join(f" ({c}) " for c in code) + "".join(text), size


_JQ_WORD = LazyPattern(r"\w+")


def _jq_reads_only(args: Sequence[str]) -> bool:
    """jq only reads when its program is given in the line, loads nothing and reaches
    nothing but its input (`_JQ_REACH`)."""
    program: str | None = None
    index = 0
    while index < len(args):
        arg = args[index]
        if arg in ("--args", "--jsonargs"):
            break  # what follows are values, not files (after the program, if any)
        if arg == "--":
            if program is None and index + 1 < len(args):
                program = args[index + 1]
            break
        if arg.startswith("--"):
            option = arg.split("=", 1)[0]
            if _acts(option, _READERS["jq"].long):
                return False
            index += 1 + (_JQ_VALUES.get(option, 0) if "=" not in arg else 0)
            continue
        if arg.startswith("-") and arg != "-":
            if any(letter in "Lf" for letter in arg[1:]):
                return False
            index += 1
            continue
        if program is None:
            program = arg
        index += 1
    if program is None:
        return True
    return not _JQ_REACH.search(jq_code(program))

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


#: Searchers that walk a tree: their filters decide what they can print.
_GREPS = frozenset({"grep", "egrep", "fgrep"})
#: Options whose value is the next word when not given with `=`.
_SEARCH_VALUES = {
    "grep": (
        "efmABCdD",
        frozenset(
            "--regexp --file --max-count --label --include --exclude --exclude-dir "
            "--exclude-from --directories --devices --binary-files --context "
            "--after-context --before-context --group-separator".split()
        ),
    ),
    "rg": (
        "efmABCgtTjMrEd",
        frozenset(
            "--regexp --file --max-count --glob --iglob --type --type-not --type-add "
            "--type-clear --pre --pre-glob --threads --max-columns --max-depth "
            "--max-filesize --replace --sort --sortr --color --colors --encoding --engine "
            "--context --after-context --before-context --context-separator "
            "--field-context-separator --field-match-separator --path-separator "
            "--ignore-file --dfa-size-limit --regex-size-limit --hyperlink-format "
            "--max-columns-preview --generate".split()
        ),
    ),
    "ag": (
        "ABCGgmp",
        frozenset(
            "--file-search-regex --depth --context --after --before --ignore --ignore-dir "
            "--path-to-ignore --max-count --pager --workers --color-line-number "
            "--color-match --color-path".split()
        ),
    ),
}
#: File name extensions of source and documentation, where no credential file of
#: rules/credentials.yaml lives: a recursive search kept to these prints no secret
#: file. Configuration and data formats (`json`, `yml`, `toml`, `properties`, `xml`,
#: `ini`, `conf`, `php` for wp-config.php, `txt`, `log`, `sh` for rc files) are not here.
_SOURCE_EXTENSIONS = frozenset(
    "py pyi pyx pxd js jsx mjs cjs ts tsx mts cts vue svelte go rs c h cc cpp cxx hpp hh "
    "hxx inl cs fs fsx fsi swift kt kts scala sbt groovy gradle rb rake gemspec lua pl pm "
    "r rmd jl dart ex exs eex heex erl hrl hs lhs ml mli elm clj cljs cljc zig nim cr sol "
    "m mm cu cuh d f90 asm css scss sass less styl html htm ejs hbs md markdown mdx rst "
    "tex bib proto graphql gql cmake mk vim el lisp scm rkt purs re res ipynb".split()
)
#: ripgrep's types (`rg --type-list`) made only of such names.
_SOURCE_TYPES = frozenset(
    "py js ts rust go c cpp h cs csharp fsharp swift kotlin scala groovy gradle ruby lua "
    "perl r julia jl dart elixir erlang haskell hs ocaml ml elm clojure zig nim crystal "
    "solidity objc objcpp cuda d css sass less stylus html md markdown rst tex protobuf "
    "cmake make cython purs reasonml racket lisp elisp vim".split()
)
#: ag's type options (`ag --list-file-types`) made only of such names.
_AG_TYPES = frozenset(
    "--python --js --ts --go --rust --cc --cpp --csharp --swift --kotlin --scala --ruby "
    "--lua --perl --haskell --ocaml --elixir --erlang --clojure --dart --css --sass --less "
    "--html --markdown --rst --tex --elm --julia --nim --zig --proto --cmake --make".split()
)
_SOURCE_NAME = LazyPattern(r"(?i)[\w*?.-]*\.(\w+)")
_BRACES = LazyPattern(r"\{([^{}]*)\}")


def search_filters(name: str, args: Sequence[str]) -> tuple[bool, list[str], list[str]]:
    """How a searcher (`grep`, `egrep`, `fgrep`, `rg`, `ag`) given `args` walks the
    tree: (whether it recurses, the globs its include filters keep — a file searched
    matches one of them, `[]` when none restricts it —, the ones that cannot be told as
    globs, by type or regular expression, named as given). rg and ag recurse unless
    they list names only (`--files`, `-g`)."""
    shorts, longs = _SEARCH_VALUES["grep" if name in _GREPS else name]
    recursive = name not in _GREPS
    kept: list[str] = []
    untold: list[str] = []
    # (rg reads every --type-add and --type-clear before it picks types)
    added: dict[str, list[str]] = {}
    for option, value in _options(args, shorts, longs) if name == "rg" else ():
        if option == "--type-add" and value and ":" in value:
            kind, _, globs = value.partition(":")
            if globs.startswith("include:"):
                more = [f"type:{t}" for t in globs[len("include:") :].split(",")]
            else:
                more = globs.split(",")
            added[kind] = added.get(kind, [f"type:{kind}"]) + more
        elif option == "--type-clear" and value:
            added[value] = []
    for option, value in _options(args, shorts, longs):
        if name in _GREPS:
            if option in ("-r", "-R", "--recursive", "--dereference-recursive") or (
                option in ("-d", "--directories") and value == "recurse"
            ):
                recursive = True
            elif option == "--include" and value is not None:
                kept.append(value)
            elif option == "--exclude" and not kept:
                # the first filter an exclude: files no filter names are searched too
                kept.append("*")
            continue
        if name == "rg" and option in ("-g", "--glob", "--iglob") and value is not None:
            if not value.startswith("!"):
                kept.append(value)
        elif name == "rg" and option in ("-t", "--type") and value is not None:
            kept += added.get(value, [f"type:{value}"]) or ["type:"]
        elif option == "--files" or (name == "ag" and option == "-g"):
            recursive = False  # names only
        elif name == "ag" and option in ("-G", "--file-search-regex") and value is not None:
            glob = regex_glob(value)
            (kept if glob else untold).append(glob or value)
        elif name == "ag" and option.startswith("--") and option[2:].isalpha() and (
            option in _AG_TYPES
        ):
            kept.append(f"type:{option}")
    for item in kept:
        if item.startswith("type:"):
            untold.append(item)
    return recursive, [k for k in kept if not k.startswith("type:")], untold


def _options(
    args: Sequence[str], shorts: str, longs: frozenset[str]
) -> Iterator[tuple[str, str | None]]:
    """(option, its value or None) for each option of `args`, short clusters split,
    values taken as getopt takes them; stops at `--`."""
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg == "--":
            return
        if arg.startswith("--"):
            option, eq, value = arg.partition("=")
            if eq:
                yield option, value
            elif option in longs:
                yield option, args[index] if index < len(args) else None
                index += 1
            else:
                yield option, None
            continue
        if not arg.startswith("-") or arg == "-":
            continue
        for position, letter in enumerate(arg[1:], 1):
            if letter in shorts:
                rest = arg[position + 1 :]
                if rest:
                    yield "-" + letter, rest
                else:
                    yield "-" + letter, args[index] if index < len(args) else None
                    index += 1
                break
            yield "-" + letter, None


def regex_glob(regex: str) -> str:
    """A glob for the file names a simple regular expression matches anywhere in a
    path (`\\.env$` -> `*.env`, `^id_rsa` -> `id_rsa*`), or "" when it is not that
    simple."""
    text = regex
    start = "" if text.startswith("^") else "*"
    end = "" if text.endswith("$") and not text.endswith("\\$") else "*"
    text = text.removeprefix("^").removesuffix("$") if end == "" else text.removeprefix("^")
    out: list[str] = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and index + 1 < len(text) and not text[index + 1].isalnum():
            out.append(text[index + 1])
            index += 2
            continue
        if text.startswith(".*", index):
            out.append("*")
            index += 2
            continue
        if char == ".":
            out.append("?")
        elif re.fullmatch(r"[\w-]", char):
            out.append(char)
        else:
            return ""
        index += 1
    return (start + "".join(out) + end).replace("**", "*")


def _source_glob(glob: str) -> bool:
    """The include glob `glob` keeps only source and documentation files
    (`*.py`, `src/**/*.{ts,tsx}`): no name it admits is a credential's."""
    last = glob.rstrip("/").rsplit("/", 1)[-1]
    braces = _BRACES.search(last)
    if braces:
        head, tail = last[: braces.start()], last[braces.end() :]
        return all(_source_glob(head + one + tail) for one in braces[1].split(","))
    found = _SOURCE_NAME.fullmatch(last)
    return found is not None and found[1].lower() in _SOURCE_EXTENSIONS


def _narrowed(name: str, args: Sequence[str]) -> bool:
    """A searcher prints nothing but source: it does not recurse, or its include
    filters keep only source files (`_source_glob`, `_SOURCE_TYPES`). A recursive
    search with no such filter may print any file in the tree, `.env` and keys with
    them (rg and ag skip hidden and ignored files, but `id_rsa`, `secrets.yml` or a
    `.env` nobody ignored are neither)."""
    recursive, kept, untold = search_filters(name, args)
    if not recursive:
        return True
    if not kept and not untold:
        return False
    types = [u.removeprefix("type:") for u in untold if u.startswith("type:")]
    if len(types) != len(untold):
        return False
    known = _SOURCE_TYPES if name == "rg" else _AG_TYPES
    return all(_source_glob(k) for k in kept) and all(t in known for t in types)


def knows(name: str) -> bool:
    """True when the table says which of `name`'s options act."""
    return name in _READERS or name in ("find", "git")


def reads_only(name: str, args: Sequence[str]) -> bool:
    """True when `name ARGS` is in the table and none of its options acts."""
    if name == "find":
        return not any(a in _FIND_ACTS for a in args)
    if name == "git":
        return _git_reads_only(args)
    if name == "jq":
        return _jq_reads_only(args)
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
    if reader.operands is not None and operands > reader.operands:
        return False
    if name in _GREPS or name in ("rg", "ag"):
        if name == "rg" and os.environ.get("RIPGREP_CONFIG_PATH") and "--no-config" not in args:
            return False  # options from a file (`--pre` among them)
        return _narrowed(name, args)
    return True


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
