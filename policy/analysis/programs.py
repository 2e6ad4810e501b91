"""Local programs: which operands each reads, writes or deletes, and what makes it
run code the policy cannot see.

One function per family of programs (deleting, copying and linking, changing
modes, text tools, archives, editors and pagers, shells and interpreters); the
`HANDLERS` table maps every program name the analysis knows to one, including
those of `network` and `git`. A name the table does not know is read by
`default`: its operands may be files it reads.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import posixpath
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from policy import _lazy_dataclass
from policy.analysis import readonly
from policy.analysis import shell as _shell
from policy.analysis._lazy_re import LazyPattern, may_hold
from policy.analysis.operands import (
    UNKNOWN,
    Facts,
    first_operand,
    has_option,
    host_of,
    option_values,
    split_options,
    stdin_is_data,
    words,
)

if TYPE_CHECKING:
    from policy.analysis import git, network
    from policy.analysis.code import CodeFacts
else:
    from policy.analysis._lazy_module import lazy_submodules

    # (imported at the first read: a command this module knows itself, as most are,
    # needs neither, and a one-event hook would pay ≈ 2.5 ms to import them)
    lazy_submodules(globals(), "policy.analysis", "git", "network")

__all__ = [
    "HANDLERS",  # noqa: F822 - made at its first read (`__getattr__`)
    "INTERPRETERS",
    "MAX_CODE_BYTES",
    "PASSIVE",
    "PRIVILEGED",
    "SHELLS",
    "SUBCOMMANDS",
    "CodeLimit",
    "env_filtered",
    "facts_of",
    "handler_for",
    "jq_home_code",
    "language_of",
    "reading_code",
    "take_file",
    "take_input",
    "take_manifest",
    "xargs_note",
]


_SYSTEM_BIN = ("/usr/", "/bin", "/sbin", "/opt/", "/snap/", "/nix/")


def _assignments(f: Facts) -> None:
    """Assignments that make the command run code the policy cannot see."""
    for assignment in f.cmd.assignments:
        name, _, value = assignment.partition("=")
        if not _shell.acting_variable(name):
            continue
        reason = _acting_reason(name, value, f)
        if reason:
            f.hide(reason)


def _acting_reason(name: str, value: str, f: Facts) -> str:
    """Why `name=value` makes the command run unseen code; "" when it does not."""
    if name == "PATH":
        bad = [entry for entry in value.split(":") if not _trusted_path_entry(entry, f.home)]
        return f"PATH={value} makes the shell run programs from {bad[0] or '.'!r}" if bad else ""
    if name in ("HOME", "XDG_CONFIG_HOME") and value in ("", f.home):
        return ""
    if name == "CDPATH":
        return ""  # followed by the cwd tracking
    if name.startswith("GIT_") and not (
        name in _GIT_CODE_VARIABLES or name.startswith("GIT_CONFIG_")
    ):
        return ""  # where git looks and who it says you are, not what it runs
    if name in ("PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER") and value in _PLAIN_PAGERS:
        return ""
    if name in _LOAD_PATHS or name.startswith(("PYTHON", "npm_config_", "NPM_CONFIG_", "PIP_")):
        # where an interpreter finds modules, or how a package tool behaves: the
        # program already runs project code; only options that load code say more
        if name in _LOADING_OPTIONS and re.search(_LOADING_OPTIONS[name], value):
            return f"{name}={value} makes {f.cmd.name or 'the program'} load code first"
        if name.lower() in ("npm_config_script_shell", "pip_index_url", "pip_extra_index_url"):
            return f"{name}={value} changes where {f.cmd.name or 'the program'} gets code"
        return ""
    return f"{name}={value} changes what {f.cmd.name or 'the command'} runs"


#: Load paths and option variables of interpreters and build tools.
_LOAD_PATHS = words(
    "NODE_OPTIONS NODE_PATH PERL5LIB PERLLIB PERL5OPT RUBYLIB RUBYOPT CLASSPATH "
    "JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS LUA_PATH LUA_CPATH GEM_HOME GEM_PATH"
)
#: Options in them that run code before the program.
_LOADING_OPTIONS = {
    "NODE_OPTIONS": (
        r"(?:^|\s)(?:-r|--require|--import|--loader|--experimental-loader|-e|--eval|-p)\b"
    ),
    "PERL5OPT": r"-[MmdeE]",
    "RUBYOPT": r"-r",
    "JAVA_TOOL_OPTIONS": r"-(?:javaagent|agentpath|agentlib)",
    "_JAVA_OPTIONS": r"-(?:javaagent|agentpath|agentlib)",
    "JDK_JAVA_OPTIONS": r"-(?:javaagent|agentpath|agentlib)",
    "PYTHONSTARTUP": r".",
    "PYTHONINSPECT": r"^(?!$)",
}
_GIT_CODE_VARIABLES = words(
    "GIT_SSH GIT_SSH_COMMAND GIT_PAGER GIT_EDITOR GIT_SEQUENCE_EDITOR GIT_EXTERNAL_DIFF "
    "GIT_ASKPASS GIT_EXEC_PATH GIT_TEMPLATE_DIR GIT_PROXY_COMMAND GIT_CONFIG_GLOBAL "
    "GIT_CONFIG_SYSTEM GIT_CONFIG_COUNT GIT_CONFIG_PARAMETERS GIT_CONFIG_KEY_0 "
    "GIT_CONFIG_VALUE_0 GIT_DIFF_OPTS GIT_TRACE_REDACT GIT_ALLOW_PROTOCOL"
)


_PLAIN_PAGERS = frozenset({"", "cat", "less", "less -R", "less -FRX", "more", "most"})


def _trusted_path_entry(entry: str, home: str) -> bool:
    """A PATH entry that names where installed programs live, or the inherited PATH."""
    if entry in ("$?", "$PATH", "${PATH}"):
        return True
    if _shell._UNKNOWN in entry:
        # `$HOME/.local/bin`, `$PATH`: the inherited value or a user's install dirs
        return entry.endswith(("/bin", "/sbin")) or entry == _shell._UNKNOWN
    if not entry.startswith(("/", "~")):
        return False  # "", ".", "bin": the working directory
    if entry.startswith(("/tmp", "/var/tmp", "/dev/shm")):
        return False
    return (
        entry.startswith(_SYSTEM_BIN)
        or entry.startswith("~")
        or ((bool(home) and entry.startswith(home + "/")) and entry.endswith(("/bin", "/sbin")))
    )


_REDIRECT = LazyPattern(r"^(\d*)(&>>|&>|>>|>\||>&|<&|<<<|<<-|<<|<>|>|<)(.*)$", re.DOTALL)


_WRITING = words("> >> >| &> &>> <> >&")


_NET_DEVICE = LazyPattern(r"^/dev/(tcp|udp)/([^/]+)/(\S+)$")


def _redirects(f: Facts) -> None:
    for redirect in f.cmd.redirects:
        match = _REDIRECT.match(redirect)
        if match is None:
            continue
        operator, target = match[2], match[3]
        if operator.startswith("<<") or not target:
            continue
        if operator in (">&", "<&") and (target.isdigit() or target == "-"):
            continue
        device = _NET_DEVICE.match(target)
        if device:
            f.network = True
            f.hosts.append(device[2])
            f.sends.append("-")
            continue
        if operator in _WRITING:
            f.write(target)
        if operator in ("<", "<>"):
            f.read(target)


def _default(f: Facts) -> None:
    """A program the table does not know: every operand, and every path an option
    names (`--opt=/p`, `-F ~/p`, `--x=@/p`, `file:///p`), may be a file it reads; an
    output option's value (`-o`, `--output`, `--log-file`, `-Logfile`) a file it
    writes."""
    operands, _ = split_options(f.cmd.args)
    f.read(*operands)
    args = list(f.cmd.args)
    for position, arg in enumerate(args):
        following = args[position + 1] if position + 1 < len(args) else ""
        name, equals, value = arg.partition("=")
        if not arg.startswith("-"):
            continue
        if not equals:
            name, value = arg, following
        if _OUTPUT_OPTION.match(name) and value and not value.startswith("-"):
            f.write(value)
        f.read(*_mentioned_paths(value))


_OUTPUT_OPTION = LazyPattern(
    r"^--?(?:o|out|output|outfile|output-file|output-document|log|log-?file|logfile|dump)$",
    re.IGNORECASE,
)
_MENTIONED = LazyPattern(r"(?:^|[=@:,\s'\"])((?:~|/)[^\s'\",;]*)")


def _mentioned_paths(value: str) -> list[str]:
    """Absolute and home paths inside an option's value (`Include /x`, `@/x`,
    `file:///x`), as a program that parses the value would find them."""
    if not value or _shell._UNKNOWN in value or ("/" not in value and "~" not in value):
        return []  # (every path `_MENTIONED` finds begins with one of them)
    found = [m[1] for m in _MENTIONED.finditer(value)]
    return [p.removeprefix("//") if p.startswith("///") else p for p in found if len(p) > 1]


def _reads_all(f: Facts) -> None:
    operands, options = split_options(f.cmd.args, _VALUE_OPTIONS.get(f.cmd.name, frozenset()))
    f.read(*operands)
    for values in options.values():  # `wc --files0-from F`, `date -f F`
        f.read(*(v for v in values if v.startswith(("/", "~", "./", "../"))))


def _files0_from(f: Facts) -> None:
    """`--files0-from F` (sort, wc, du, find): the files read are named inside F."""
    for arg in f.cmd.args:
        name = arg.split("=", 1)[0].lstrip("-")
        if arg.startswith("-") and name.startswith("files0") and "files0-from".startswith(name):
            f.hide(f"{f.cmd.name} reads the files named in a list the policy cannot see")
            return


def _diff(f: Facts) -> None:
    """diff: its operands, whole trees with -r (following the links inside them)."""
    operands, options = split_options(f.cmd.args, _VALUE_OPTIONS.get("diff", frozenset()))
    if has_option(options, "-r", "--recursive") or any(
        re.fullmatch(r"-[A-Za-z]*r[A-Za-z]*", a) for a in f.cmd.args
    ):
        f.read_tree(*operands)
    else:
        f.read(*operands)
    for values in options.values():
        f.read(*(v for v in values if v.startswith(("/", "~", "./", "../"))))


def _lists_all(f: Facts) -> None:
    """`stat`, `readlink`: the operands' names and metadata, no contents."""
    operands, _ = split_options(f.cmd.args, _VALUE_OPTIONS.get(f.cmd.name, frozenset()))
    f.listing(*operands)


def _reads_or_cwd(f: Facts) -> None:
    """`ls`, `du`, `tree`: the operands, or the directory it runs in, listed."""
    operands, _ = split_options(f.cmd.args, _VALUE_OPTIONS.get(f.cmd.name, frozenset()))
    f.listing(*(operands or ["."]))


def _nothing(f: Facts) -> None:
    """Programs whose operands are not files (`echo`, `printf`, `basename`, `true`)."""


def _rm(f: Facts) -> None:
    operands, options = split_options(f.cmd.args)
    f.delete(*operands)
    f.recursive = has_option(options, "-r", "-R", "--recursive")


def _delete_all(f: Facts) -> None:
    operands, options = split_options(f.cmd.args, words("-n --iterations -s --size"))
    f.delete(*operands)
    f.recursive = f.cmd.name in ("srm", "wipe") and has_option(options, "-r", "-R", "--recursive")


def _rmdir(f: Facts) -> None:
    operands, _ = split_options(f.cmd.args)
    f.delete(*operands)


def _targeted(
    f: Facts, takes_value: frozenset[str], *, move: bool = False, link: bool = False
) -> None:
    """cp, mv, ln, install: SOURCE... DEST, or -t DIR SOURCE..."""
    operands, options = split_options(f.cmd.args, takes_value)
    target = option_values(options, "-t", "--target-directory")
    if f.cmd.name == "install" and has_option(options, "-d", "--directory"):
        f.write(*operands)
        return
    if target:
        sources, dest = operands, target[-1]
    elif len(operands) >= 2:
        sources, dest = operands[:-1], operands[-1]
    elif link and operands:
        sources, dest = operands, posixpath.basename(operands[0].rstrip("/")) or "."
    else:
        sources, dest = operands, ""
    if link:
        f.write(dest)
        if has_option(options, "-s", "--symbolic") and len(sources) == 1 and not target:
            pointed = sources[0]
            here = f.at(dest)
            if not pointed.startswith(("/", "~")):
                pointed = posixpath.join(posixpath.dirname(here), pointed)
            f.links[here] = f.at(pointed)
        f.read(*sources)  # a link to a secret is a way to read it
        if not has_option(options, "-s", "--symbolic"):
            # a hard link is the file under a second name: writing through it changes
            # the file, so making one is a change to it
            f.write(*sources)
    else:
        if move:
            f.delete(*sources)
            f.recursive = True
        if move or has_option(options, "-r", "-R", "-a", "--recursive", "--archive"):
            f.read_tree(*sources)
        else:
            f.read(*sources)
        f.write(dest)
        if f.cmd.name == "cp" and has_option(options, "-l", "--link"):
            # `cp -l`: hard links, not copies (see `link` above)
            if has_option(options, "-r", "-R", "-a", "--recursive", "--archive"):
                f.write_tree(*sources)
            else:
                f.write(*sources)
    mode = " ".join(option_values(options, "-m", "--mode"))
    if mode and _grants_setuid(mode):
        f.privileged = True


_SETUID_OCTAL = LazyPattern(r"^[=+]?0*[2-7][0-7]{3}$")


def _grants_setuid(mode: str) -> bool:
    if _SETUID_OCTAL.match(mode):
        return int(mode[-4], 8) & 0o6 != 0
    return bool(re.search(r"[+=][rwxXt]*s", mode))


def _chmod(f: Facts) -> None:
    operands, options = split_options(f.cmd.args, words("--reference"))
    if f.cmd.name == "chmod":
        # `chmod -x f`, `chmod -w,u+s f`: a mode that starts with "-" reads as an option
        dashed = [a for a in f.cmd.args if re.fullmatch(r"-[rwxXst][-+=rwxXstugo,]*", a)]
        if dashed or has_option(options, "--reference"):
            mode, files = (dashed[0] if dashed else ""), operands
        else:
            mode, files = (operands[0] if operands else ""), operands[1:]
        if _grants_setuid(mode):
            f.privileged = True
        elif has_option(options, "--reference") and not dashed:
            # the mode is copied from another file: setuid if that file has it
            reference = option_values(options, "--reference")
            if not reference or not all(f.at(r).startswith(f.cwd or "\0") for r in reference):
                f.hide("chmod --reference copies a mode the policy cannot see")
    elif f.cmd.name in ("chown", "chgrp", "chcon"):
        files = operands[1:] if not has_option(options, "--reference") else operands
    elif f.cmd.name == "setfacl":
        operands, options = split_options(f.cmd.args, words("-m -M -x -X --set"))
        files = operands
    elif f.cmd.name == "setcap":
        f.privileged = True
        files = operands[1:]
    else:  # chattr +i x
        files = [o for o in operands if not o.startswith(("+", "="))]
    f.recursive = has_option(options, "-R", "--recursive")
    if f.recursive:
        f.write_tree(*files)
    else:
        f.write(*files)


def _touch_like(f: Facts) -> None:
    operands, _ = split_options(f.cmd.args, _VALUE_OPTIONS.get(f.cmd.name, frozenset()))
    f.write(*operands)


def _mknod(f: Facts) -> None:
    operands, _ = split_options(f.cmd.args, words("-m --mode -Z"))
    f.write(*operands[:1])
    f.privileged = f.cmd.name == "mknod"


def _truncate(f: Facts) -> None:
    operands, options = split_options(f.cmd.args, words("-s --size -r --reference"))
    f.write(*operands)
    f.read(*option_values(options, "-r", "--reference"))
    sizes = option_values(options, "-s", "--size")
    if any(re.fullmatch(r"[<]?0+[KMGTPEZY]?(?:i?B)?", size) for size in sizes):
        f.delete(*operands)  # emptied: what they held is gone


def _tee(f: Facts) -> None:
    operands, _ = split_options(f.cmd.args, words("--output-error"))
    f.write(*operands)


def _ddrescue(f: Facts) -> None:
    """ddrescue [options] INFILE OUTFILE [MAPFILE]: OUTFILE is overwritten."""
    operands, _ = split_options(f.cmd.args, words("-b -c -e -i -o -s -m -l -x -Z -K"))
    f.read(*operands[:1])
    f.write(*operands[1:3])


def _dd(f: Facts) -> None:
    for arg in f.cmd.args:
        key, eq, value = arg.partition("=")
        if not eq:
            continue
        if key == "if":
            f.read(value)
        elif key in ("of", "vf"):
            f.write(value)


def _sed(f: Facts) -> None:
    operands, options = split_options(
        f.cmd.args, words("-e --expression -f --file -l --line-length")
    )
    scripts = option_values(options, "-e", "--expression")
    files_of_script = option_values(options, "-f", "--file")
    if not scripts and not files_of_script and operands:
        scripts, operands = [operands[0]], operands[1:]
    in_place = any(o in ("-i", "-I") or o.startswith("--in-place") for o in options) or any(
        a.startswith("-i") or (a.startswith("-") and "i" in a[1:] and not a.startswith("--"))
        for a in f.cmd.args
        if a.startswith("-") and not a.startswith("--") and "e" not in a[1:2]
    )
    f.read(*files_of_script)
    if files_of_script:
        f.hide("sed runs a script from a file the policy cannot see")
    for script in scripts:
        _sed_script(f, script)
    if in_place:
        f.write(*operands)
    f.read(*operands)


_SED_WRITE = LazyPattern(r"(?:^|[;\n{}]|\d|\$|/)\s*[wW]\s+(\S[^;\n}]*)")


_SED_READ = LazyPattern(r"(?:^|[;\n{}]|\d|\$|/)\s*[rR]\s+(\S[^;\n}]*)")


_SED_EXEC = LazyPattern(r"(?:^|[;\n{}]|\d|\$|/)\s*e(?:\s|$|;)|s(.).*?\1.*?\1[gpiImM0-9]*e")


_SED_SUBST_W = LazyPattern(r"s(.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gpiImMe0-9]*w\s+(\S+)")


def _sed_script(f: Facts, script: str) -> None:
    if _shell._UNKNOWN in script:
        f.hide("the sed script comes from a variable or substitution")
        return
    if _SED_EXEC.search(script):
        f.hide("the sed script runs a command (e)")
    for match in _SED_SUBST_W.finditer(script):
        f.write(match[2])
    stripped = re.sub(r"s(.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gpiImMe0-9]*", "", script)
    for match in _SED_WRITE.finditer(stripped):
        f.write(match[1].strip())
    for match in _SED_READ.finditer(stripped):
        f.read(match[1].strip())
    f.write(*_sed_files(script, "wW"))
    f.read(*_sed_files(script, "rR"))


#: sed commands whose argument is text, a label or a file name to the end of the line.
_SED_TO_EOL = frozenset("aicwWrR:btTe")


def _sed_files(script: str, commands: str) -> list[str]:
    """The file names sed's `commands` (`w`, `W`; `r`, `R`) and the `s` flag `w` take
    in `script`, read command by command as sed reads it: the name runs to the end of
    the line and needs no space before it (`w.claude/settings.json`, `1wout`,
    `s/a/b/gw out`). Addresses (`/re/`, `\\%re%`, `3,$`) are skipped, not read as
    commands."""
    found: list[str] = []
    i, n = 0, len(script)
    while i < n:
        while i < n and script[i] in " \t\n;{}!":
            i += 1
        # addresses: numbers, $, /re/ or \cREc, `first~step`, `addr,+N`, `0,/re/`
        while i < n:
            char = script[i]
            if char.isdigit() or char in "$,~+":
                i += 1
            elif char == "/" or (char == "\\" and i + 1 < n):
                delimiter = "/" if char == "/" else script[i + 1]
                i += 1 if char == "/" else 2
                while i < n and script[i] != delimiter:
                    i += 2 if script[i] == "\\" else 1
                i += 1
                while i < n and script[i] in "IM":
                    i += 1
            elif char in " \t!":
                i += 1
            else:
                break
        if i >= n:
            break
        command = script[i]
        i += 1
        if command in ("s", "y") and i < n:
            delimiter = script[i]
            parts = 0
            i += 1
            while i < n and parts < 2:
                if script[i] == "\\":
                    i += 2
                    continue
                if script[i] == delimiter:
                    parts += 1
                i += 1
            if command == "s":
                while i < n and script[i] not in "w;\n}" and not script[i].isspace():
                    i += 1
                if i < n and script[i] == "w" and "w" in commands:
                    end = script.find("\n", i)
                    end = n if end < 0 else end
                    name = script[i + 1 : end].strip()
                    if name:
                        found.append(name)
                    i = end
        elif command in _SED_TO_EOL:
            end = script.find("\n", i)
            end = n if end < 0 else end
            if command in commands:
                name = script[i:end].strip()
                if name:
                    found.append(name)
            i = end
        elif command == "#":
            end = script.find("\n", i)
            i = n if end < 0 else end
    return found


def _awk(f: Facts) -> None:
    operands, options = split_options(
        f.cmd.args,
        words("-f --file -v --assign -F --field-separator -i --include -l --load -E --exec"),
    )
    programs = option_values(options, "-f", "--file", "-E", "--exec", "-i", "--include")
    if programs:
        f.read(*programs)
        f.hide("awk runs a program from a file the policy cannot see")
    elif operands:
        program, operands = operands[0], operands[1:]
        if _shell._UNKNOWN in program:
            f.hide("the awk program comes from a variable or substitution")
        else:
            _take_code(f, "awk", program)
    f.read(*(o for o in operands if "=" not in o))


def _grep(f: Facts) -> None:
    name = f.cmd.name
    takes = _VALUE_OPTIONS["grep"] if name in _GREP_NAMES else _SEARCH_TAKES.get(name)
    if takes is None:
        takes = _VALUE_OPTIONS["rg"]
    operands, options = split_options(f.cmd.args, takes)
    patterns = option_values(options, "-e", "--regexp")
    pattern_files = option_values(options, "-f", "--file")
    if not patterns and not pattern_files and operands:
        patterns, operands = operands[:1], operands[1:]  # the pattern
    f.read(*pattern_files)
    if has_option(options, "--pre"):
        f.hide(f"{name} --pre runs a program on every file")
    if has_option(options, "--hostname-bin"):
        f.hide(f"{name} --hostname-bin runs a program")
    if has_option(options, "--pager"):
        f.hide(f"{name} --pager runs a program on its output")
    if name in ("rg", "ag", "ack") and not operands and f.cmd.pipe[1] > 0:
        return  # (given no path, they search what the pipe gives them)
    if name == "ack":
        recursive, kept, untold = True, *_ack_filters(list(f.cmd.args))
    elif name in ("rgrep", "zgrep"):
        recursive, kept, untold = name == "rgrep", [], []
    else:
        recursive, kept, untold = readonly.search_filters(name, f.cmd.args)
    if not recursive and name in ("rg", "ag"):
        # names only (`rg --files`, `ag -g`): what its filters keep is listed
        for start in operands or ["."]:
            if start != "-":
                f.listing(start, *_search_trees(start, kept, untold))
        return
    if not recursive:
        f.read(*operands)
        return
    # what a recursive search reads is what its include filters keep: `DIR/**/.env`
    # is a read of every `.env` below DIR (the credentials pack judges the name)
    # a search of a whole tree for what keys look like (`AKIA`, `ghp_`, `sk_live`) is a
    # hunt for the files that hold them: read as those (names in code, `API_KEY`, and
    # searches kept to source files by their filters are everyday work)
    hunting = (untold or not kept or "*" in kept) and any(
        KEY_VALUES.search(p) for p in patterns
    )
    for start in operands or ["."]:
        if start != "-":
            f.read(start, *_search_trees(start, kept, untold))
            if hunting:
                f.read(start.rstrip("/") + "/**/.env")


def _search_trees(start: str, kept: list[str], untold: list[str]) -> list[str]:
    """The files below `start` a recursive search keeps, as patterns: `start/**/GLOB`
    per include glob (a glob with a `/` is rooted at `start`), and `start/**` when a
    filter cannot be told as a glob or none restricts the search."""
    base = start.rstrip("/") or "/"
    found = [
        base + "/" + (glob.lstrip("/") if "/" in glob.rstrip("/") else "**/" + glob)
        for glob in kept
        if glob and glob != "*"
    ]
    if untold or not kept or "*" in kept:
        found.append(base + "/**")
    return found


_GREP_NAMES = frozenset({"grep", "egrep", "fgrep", "zgrep", "rgrep"})
#: How keys and tokens begin (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, Google).
KEY_VALUES = LazyPattern(
    r"AKIA|ASIA[A-Z0-9]|ghp_|gho_|ghs_|ghu_|github_pat_|glpat-|xox[abpsr]-|sk_live|rk_live"
    r"|sk-(?:proj-|ant-)?[A-Za-z0-9]|AIza"
)
#: Options of ag and ack whose value is the next word.
_SEARCH_TAKES = {
    "ag": words(
        "-A -B -C -G -g -m -p --file-search-regex --depth --context --after --before --ignore "
        "--ignore-dir --path-to-ignore --max-count --pager --workers"
    ),
    "ack": words(
        "-A -B -C -m -t -g --type --type-set --type-add --type-del --ignore-dir "
        "--ignore-file --max-count --files-from --pager --output --context --after-context "
        "--before-context"
    ),
}
_ACK_TYPE = LazyPattern(r"([\w-]+):(ext|is|match|firstlinematch):(.*)")


def _ack_filters(args: list[str]) -> tuple[list[str], list[str]]:
    """The globs ack's own file types keep (`--type-set=x:ext:env --x`,
    `--type-add=k:is:id_rsa -t k`), and the types it cannot tell as globs."""
    defined: dict[str, list[str]] = {}
    chosen: list[str] = []
    for index, arg in enumerate(args):
        value = args[index + 1] if index + 1 < len(args) else ""
        option, eq, given = arg.partition("=")
        if option in ("--type-set", "--type-add"):
            found = _ACK_TYPE.fullmatch(given if eq else value)
            if found is None:
                continue
            kind, how, what = found.groups()
            if how == "ext":
                globs = ["*." + e for e in what.split(",") if e]
            elif how == "is":
                globs = [what]
            elif how == "match":
                globs = [readonly.regex_glob(what.strip("/")) or "*"]
            else:
                globs = ["*"]
            defined[kind] = (defined.get(kind, []) if option == "--type-add" else []) + globs
        elif option in ("-t", "--type"):
            chosen.append(given if eq else value)
        elif arg.startswith("--") and not eq and arg[2:] in defined:
            chosen.append(arg[2:])
    kept = [g for kind in chosen for g in defined.get(kind, [])]
    return kept, [f"type:{kind}" for kind in chosen if kind not in defined]


def _find(f: Facts) -> None:
    args = list(f.cmd.args)
    starts = _shell.find_starts(args)
    f.listing(*starts)  # find prints names and metadata, never contents
    f.listing(*(s.rstrip("/") + "/**" for s in starts))
    for position, arg in enumerate(args):
        following = args[position + 1] if position + 1 < len(args) else ""
        if arg == "-delete":
            f.delete(*_shell.find_found(args))
            f.recursive = True
        elif arg in ("-fprint", "-fprint0", "-fls", "-fprintf") and following:
            f.write(following)


def _tar_long(arg: str) -> str:
    """A long option of tar's as GNU getopt reads an unambiguous prefix of it
    (`--dir=~` is `--directory=~`); bsdtar's `--cd` is `--directory` too."""
    name, equals, value = arg.partition("=")
    if not name.startswith("--") or len(name) < 4 or name in _TAR_LONG:
        return arg
    if name == "--cd":
        return "--directory" + equals + value
    found = [full for full in _TAR_LONG if full.startswith(name)]
    return found[0] + equals + value if len(found) == 1 else arg


_TAR_LONG = (
    "--directory", "--file", "--extract", "--get", "--create", "--append", "--update",
    "--absolute-names", "--to-command", "--use-compress-program", "--checkpoint-action",
    "--info-script", "--new-volume-script", "--rsh-command", "--files-from", "--exclude-from",
    "--transform", "--xform", "--remove-files", "--list",
)  # fmt: skip


def _tar(f: Facts) -> None:
    args = [_tar_long(a) for a in f.cmd.args]
    if args and not args[0].startswith("-") and re.fullmatch(r"[A-Za-z]+", args[0]):
        args[0] = "-" + args[0]  # `tar xzf a.tgz`: the first word is the options
    operands, options = split_options(args, _VALUE_OPTIONS["tar"])
    directory = option_values(options, "-C", "--directory")
    base = f.at(directory[-1]) if directory else None
    archives = option_values(options, "-f", "--file")
    extract = has_option(options, "-x", "--extract", "--get")
    create = has_option(options, "-c", "--create", "-r", "--append", "-u", "--update")
    for code_option in (
        "--to-command",
        "--checkpoint-action",
        "--use-compress-program",
        "-I",
        "--info-script",
        "--new-volume-script",
        "-F",
        "--rsh-command",
    ):
        if code_option in options:
            value = " ".join(options[code_option])
            if code_option == "--checkpoint-action" and "exec" not in value:
                continue
            f.hide(f"tar {code_option} runs a program")
    remote = [a for a in archives if re.match(r"^[^/:]+:", a)]
    if remote or has_option(options, "--rsh-command"):
        f.network = True
    if extract:
        f.read(*archives)
        f.write(*(operands or ["."]), base=base)
        if not operands:
            f.recursive = True
        if has_option(options, "-P", "--absolute-names"):
            _unpacks_anywhere(f)  # members keep their absolute and `..` paths
        if f.cmd.name in ("bsdtar", "star"):
            _substituted_into(f, [b for a, b in itertools.pairwise(args) if a == "-s"])
    elif create:
        f.write(*(a for a in archives if a != "-"))
        f.read_tree(*operands, base=base)
        if has_option(options, "--remove-files"):
            f.delete(*operands, base=base)  # the sources go once archived
            f.recursive = True
        if "-" in archives or not archives:
            f.sends.append("-") if f.cmd.pipe[0] else None
    else:
        f.read(*archives)


def _zip(f: Facts) -> None:
    name = f.cmd.name
    if name in ("unzip", "bsdunzip"):
        operands, options = split_options(f.cmd.args, words("-d -x -P"))
        f.read(*operands[:1])
        if not has_option(options, "-l", "-t", "-v", "-Z", "-z", "-p", "-c"):
            f.write(*(option_values(options, "-d") or ["."]))  # not a listing or a test
            if "-:" in f.cmd.args or has_option(options, "-:"):
                _unpacks_anywhere(f)  # `-:` keeps the members' `../` paths
        return
    operands, options = split_options(
        f.cmd.args,
        words("-TT --unzip-command -b -n -t -tt -x -i -P -O"),
    )
    if has_option(options, "-TT", "--unzip-command") or any(
        a.startswith("-TT") for a in f.cmd.args
    ):
        f.hide("zip -TT runs a program")
    f.write(*operands[:1])
    if has_option(options, "-r", "--recurse-paths", "-R"):
        f.read_tree(*operands[1:])
    else:
        f.read(*operands[1:])
    if has_option(options, "-m", "--move") or any(
        re.fullmatch(r"-[A-Za-z]*m[A-Za-z]*", a) for a in f.cmd.args
    ):
        f.delete(*operands[1:])  # zip -m moves the files into the archive
        f.recursive = has_option(options, "-r", "--recurse-paths", "-R")


def _archive_other(f: Facts) -> None:
    """7z COMMAND [switches] ARCHIVE [FILES]: `x`/`e` unpack into `-oDIR` (the cwd by
    default; `-spf` keeps the absolute paths the archive names), `a`/`u`/`d` change
    the archive, `-sdel` deletes the files once archived. Switches are whole words
    (`-so` is standard output, not `-s -o`)."""
    args = list(f.cmd.args)
    switches = [a for a in args if a.startswith("-") and len(a) > 1]
    operands = [a for a in args if not (a.startswith("-") and len(a) > 1)]
    command, operands = (operands[0].lower(), operands[1:]) if operands else ("", [])
    dest = [s[2:] for s in switches if s.startswith(("-o", "-O")) and len(s) > 2]
    f.read(*operands)
    if command in ("x", "e") and "-so" not in switches:
        _unpacks_into(f, dest[-1] if dest else ".")
        if any(s.startswith("-spf") for s in switches):
            _unpacks_anywhere(f)
    elif command in ("a", "u", "d", "rn"):
        f.write(*operands[:1])
    if "-sdel" in switches:
        f.delete(*operands[1:])  # 7z a -sdel ARCHIVE FILES: the files go once archived
        f.recursive = True


def _unpacks_into(f: Facts, dest: str, base: str | None = None) -> None:
    """An archive unpacked into `dest`: files nobody names here land below it."""
    f.write(dest, base=base)


def _unpacks_anywhere(f: Facts) -> None:
    """An archive whose members keep their absolute or `..` paths: they may land
    anywhere."""
    f.writes.append(UNKNOWN + "/(a path the archive names)")


def _substituted_into(f: Facts, expressions: Sequence[str]) -> None:
    """pax's and bsdtar's `-s /old/new/`: members renamed into `new`, which may be
    anywhere (`-s ',^,/home/dev/,'`)."""
    for expression in expressions:
        parts = expression.split(expression[0]) if expression else []
        target = parts[2] if len(parts) > 2 else ""
        if target.startswith(("/", "~")):
            f.write(target)
        elif _shell._UNKNOWN in expression or "/" in target:
            _unpacks_anywhere(f)


def _cpio(f: Facts) -> None:
    """cpio: `-o` archives the files named on its input; `-i` unpacks into `-D DIR`
    (the cwd by default), keeping absolute names unless `--no-absolute-filenames`;
    `-p DIR` copies the files named on its input into DIR; `-t` lists."""
    operands, options = split_options(
        f.cmd.args,
        words(
            "-D --directory -E --pattern-file -F -I -O --file -H --format -M --message -R "
            "--owner -C --io-size --block-size --rsh-command -e"
        ),
    )
    archives = option_values(options, "-F", "-I", "--file")
    if has_option(options, "--rsh-command"):
        f.hide("cpio --rsh-command runs a program")
    if has_option(options, "-o", "--create"):
        f.reads_from_input = True
        f.write(*option_values(options, "-O", "-F", "--file"))
    elif has_option(options, "-p", "--pass-through"):
        f.reads_from_input = True
        _unpacks_into(f, operands[0] if operands else ".")
    elif has_option(options, "-i", "--extract") and not has_option(
        options, "-t", "--list", "--to-stdout", "--only-verify-crc"
    ):
        f.read(*archives, *option_values(options, "-E", "--pattern-file"))
        directory = option_values(options, "-D", "--directory")
        _unpacks_into(f, directory[-1] if directory else ".")
        if not has_option(options, "--no-absolute-filenames"):
            _unpacks_anywhere(f)
    else:
        f.read(*archives)


def _pax(f: Facts) -> None:
    """pax: `-r` unpacks an archive into the cwd (absolute member names kept), `-w`
    writes one, `-rw SRC... DIR` copies trees into DIR; `-s` renames members."""
    operands, options = split_options(
        f.cmd.args, words("-f -s -o -x -b -p -B -G -T -U --format")
    )
    reading, writing = has_option(options, "-r"), has_option(options, "-w")
    archives = option_values(options, "-f")
    if reading and writing:
        f.read_tree(*operands[:-1])
        _unpacks_into(f, operands[-1] if operands else ".")
    elif reading:
        f.read(*archives)
        _unpacks_into(f, ".")
        _unpacks_anywhere(f)
    elif writing:
        f.write(*archives)
        f.read_tree(*operands)
        if not operands:
            f.reads_from_input = True
    else:
        f.read(*archives)
    if reading:
        _substituted_into(f, option_values(options, "-s"))


def _dpkg(f: Facts) -> None:
    """dpkg/dpkg-deb: `-x`/`-X`/`-R DEB DIR` unpack into DIR; installing or removing
    a package changes the system (`--root`/`--instdir` elsewhere); `-b DIR DEB`
    builds one."""
    operands, options = split_options(
        f.cmd.args,
        words(
            "--root --instdir --admindir -D --debug --force --refuse --no-force --status-fd "
            "--log -Z -z -S --path-include --path-exclude --ignore-depends"
        ),
        long_values=False,
    )
    if has_option(options, "-x", "--extract", "-X", "--vextract", "-R", "--raw-extract"):
        f.read(*operands[:1])
        _unpacks_into(f, operands[1] if len(operands) > 1 else ".")
    elif has_option(options, "-b", "--build"):
        f.read_tree(*operands[:1])
        f.write(*operands[1:2])
    elif has_option(
        options, "-i", "--install", "--unpack", "-r", "--remove", "-P", "--purge",
        "--configure", "-a", "--pending", "--set-selections", "--triggers-only",
    ):  # fmt: skip
        root = [v for o in ("--root", "--instdir") for v in options.get(o, [])]
        f.read(*operands)
        f.write(*(root or ["/"]))
    else:
        f.read(*operands)


def _unrar(f: Facts) -> None:
    """unrar/rar `x`/`e ARCHIVE [FILES] [DIR/]`: the destination ends with a slash
    (`-opDIR` in newer versions); `l`, `v`, `t`, `p` list, test or print."""
    switches = [a for a in f.cmd.args if a.startswith("-") and len(a) > 1]
    operands = [a for a in f.cmd.args if not (a.startswith("-") and len(a) > 1)]
    command, operands = (operands[0].lower(), operands[1:]) if operands else ("", [])
    f.read(*operands[:1])
    if command in ("x", "e"):
        given = [s[3:] for s in switches if s.startswith("-op") and len(s) > 3]
        dest = given + [o for o in operands[1:] if o.endswith("/") or o.startswith(("/", "~"))]
        for place in dest or ["."]:
            _unpacks_into(f, place)
    elif command in ("a", "u", "m", "f", "d"):
        f.write(*operands[:1])


def _ar(f: Facts) -> None:
    """ar KEY ARCHIVE [MEMBERS]: `x` unpacks the members into the cwd (or
    `--output DIR`); `r`, `q`, `d`, `m` change the archive; `t`, `p` list, print."""
    operands, options = split_options(f.cmd.args, words("--output --plugin --target"))
    key = next((a.lstrip("-") for a in f.cmd.args if not a.startswith("--")), "")
    if key == (operands[0] if operands else None):
        operands = operands[1:]
    f.read(*operands[:1])
    if "x" in key:
        _unpacks_into(f, (option_values(options, "--output") or ["."])[-1])
    elif set(key) & set("rqdms"):
        f.write(*operands[:1])


#: Unpackers named by an option and the cwd by default: (options naming where,
#: options that take a value, options that only list, test or print).
_UNPACKERS: dict[str, tuple[str, str, str]] = {
    "cabextract": ("-d --directory", "-d --directory -F --filter -e --encoding",
                   "-l --list -t --test -p --pipe"),
    "unsquashfs": ("-d -dest", "-d -dest -p -processors -ef -e -exclude-file -extract-file "
                   "-mem -da -data-queue -fr -frag-queue -o -offset",
                   "-l -ls -ll -lls -lc -llc -s -stat -i -info -cat"),
    "unar": ("-o -output-directory", "-o -output-directory -p -password -e -encoding",
             ""),
    "xar": ("-C", "-C -f -s -n --compression", "-t"),
    "jar": ("--dir -C", "--dir -C -f --file -e --main-class -m --manifest", "-t --list"),
    "lha": ("", "", "l v t p"),
    "lhasa": ("", "", "l v t p"),
    "pkgutil": ("", "", ""),
    "ditto": ("", "--rsrc --extattr --keepParent -V", ""),
    "innoextract": ("-d --output-dir", "-d --output-dir -I --include -p --password", "-l -t"),
    "uudecode": ("-o --output-file", "-o --output-file", ""),
    "msiextract": ("-C --directory", "-C --directory", "-l --list"),
    "aunpack": ("-X --extract-to", "-X --extract-to -F --format -O --format-option", ""),
    "atool": (
        "-X --extract-to",
        "-X --extract-to -F --format -O --format-option",
        "-l --list -a --add -c --cat -p --cat-pager -d --diff -r --repack -e --each",
    ),
    "dtrx": ("", "", "-l -t --list --table"),
    "patool": ("--outdir", "--outdir", "list test diff search create formats repack"),
}  # fmt: skip


def _unpacker(f: Facts) -> None:
    """Programs that unpack an archive into a directory an option names, else the cwd
    (`cabextract -d DIR`, `unsquashfs -d DIR`, `unar -o DIR`, `jar xf`, `lha x`);
    ditto and pkgutil copy or expand into their last operand."""
    name = f.cmd.name
    where, values, listing = (words(t) for t in _UNPACKERS[name])
    args = list(f.cmd.args)
    dest: list[str] = []
    operands: list[str] = []
    index, lists = 0, False
    while index < len(args):
        arg = args[index]
        option, equals, value = arg.partition("=")
        if arg in values or (equals and option in values):
            value = value if equals else (args[index + 1] if index + 1 < len(args) else "")
            if option in where:
                dest.append(value)
            index += 1 if equals else 2
            continue
        if arg in listing or (index == 0 and (arg.lstrip("-")[:1] in ("t", "l", "v", "p"))):
            lists = True
        if not arg.startswith("-"):
            operands.append(arg)
        index += 1
    if name == "xar" and not any(re.fullmatch(r"-[a-zA-Z]*x[a-zA-Z]*", a) for a in args):
        lists = True  # creating or listing, not unpacking
    if name in ("jar", "lha", "lhasa") and operands and index and re.fullmatch(
        r"-?[a-zA-Z]+(?:w=\S+)?", args[0]
    ):
        key = args[0].lstrip("-")
        lists = lists or not re.match(r"[ex]", key)
        if "w=" in key:
            dest.append(key.split("w=", 1)[1])  # `lha xw=DIR`
        operands = [o for o in operands if o != args[0]]
    if name == "uudecode":
        f.read(*operands)
        if dest:
            f.write(*dest)
        else:
            _unpacks_anywhere(f)  # it writes the file its input names
        return
    if name in ("ditto", "pkgutil"):
        if name == "pkgutil" and not any(a.startswith("--expand") for a in args):
            f.read(*operands)
            return
        f.read_tree(*operands[:-1])
        _unpacks_into(f, operands[-1] if len(operands) > 1 else ".")
        return
    f.read(*operands)
    if not lists:
        for place in dest or ["."]:
            _unpacks_into(f, place)


def _gem(f: Facts) -> None:
    """`gem unpack GEM --target DIR` unpacks into DIR (the cwd by default); the rest
    is the package tool's."""
    operands, options = split_options(f.cmd.args, words("--target -v --version"))
    if operands[:1] == ["unpack"]:
        f.subcommand = "unpack"
        f.read(*(o for o in operands[1:] if o.endswith(".gem")))
        _unpacks_into(f, (option_values(options, "--target") or ["."])[-1])
        return
    network.HANDLERS["gem"](f)


def _editor(f: Facts) -> None:
    """vim/vi/nvim/ex/nano/emacs: edits its operands; `-c`/`+cmd`/`--cmd` run editor
    commands, whose `!cmd` runs a shell command."""
    operands, options = split_options(
        f.cmd.args,
        words("-c --cmd -S -u -U -i -W -T --eval -l --load -f --funcall"),
    )
    commands = option_values(options, "-c", "--cmd") + [
        o[1:] for o in operands if o.startswith("+")
    ]
    files = [o for o in operands if not o.startswith("+")]
    _editor_commands(f, commands)
    if option_values(
        options, "-S", "-u", "--eval", "-l", "--load", "-f", "--funcall", "-x"
    ) or has_option(options, "--batch", "-batch"):
        f.hide(f"{f.cmd.name} runs a script or expression it is given")
    f.write(*files)
    if f.cmd.name in _LINE_EDITORS or any(
        re.fullmatch(r"-[A-Za-z]*[eE][A-Za-z]*", a) for a in f.cmd.args if a not in ("-c",)
    ):
        # ed, ex and vim -e/-es take their commands from standard input
        if f.cmd.stdin is not None:
            _editor_commands(f, f.cmd.stdin.splitlines())
        elif stdin_is_data(f):
            f.runs_stdin = True


#: Editors that read their commands from standard input.
_LINE_EDITORS = words("ed red ex")


def _editor_commands(f: Facts, commands: Sequence[str]) -> None:
    """Editor commands (vim's `-c`, ed's and ex's input): `!cmd` runs a shell command,
    `w FILE` writes one, `:py`, `:so` and the like run code."""
    for command in commands:
        text = command.lstrip(":")
        for part in re.split(r"\|", text):
            part = part.strip().lstrip(":")
            if part.startswith("!"):
                f.scripts.append(part[1:])
            elif re.match(r"(?:r|read|e|E|edit|W)\s*!", part):
                f.scripts.append(part.split("!", 1)[1])
            elif re.match(
                r"(?:sh|shell|te|ter|terminal|py|python|py3|python3|pyx|lua|perl|ruby|rub|mz|tcl|call|exe|execute|so|source|norm|normal)\b",
                part,
            ):
                f.hide(f"the editor command {part.split()[0]!r} runs code")
            elif m := re.match(r"(?:w|W|write|wq|x|sav|saveas|up|update)!?\s+(\S+)", part):
                f.write(m[1])
            elif m := re.match(r"redi(?:r)?!?\s*>>?\s*(\S+)", part):
                f.write(m[1])  # `:redir! >>~/.bashrc`
            elif m := re.match(r"(?:r|read|e|E|edit)\s+([^!\s]\S*)", part):
                f.read(m[1])


_SQLITE_VALUE = words("-cmd -separator -newline -nullvalue -init -vfs -pagecache -lookaside")


def _sqlite(f: Facts) -> None:
    """sqlite3 DB [SQL...]: its dot commands (in `-cmd`, the SQL operands and its
    input) and SQL functions write, read and run: `.output F`, `.read F`, `.shell`,
    `.load LIB`, `writefile()`, `ATTACH 'F'`, `VACUUM INTO 'F'`."""
    operands, options = split_options(f.cmd.args, _SQLITE_VALUE)
    f.read(*operands[:1])
    f.read(*option_values(options, "-init"))
    texts = [*option_values(options, "-cmd"), *operands[1:]]
    if f.cmd.stdin is not None:
        texts.append(f.cmd.stdin)
    elif stdin_is_data(f) and not operands[1:]:
        f.runs_stdin = True
    for text in texts:
        _sqlite_text(f, text)


def _sqlite_text(f: Facts, text: str) -> None:
    for line in text.splitlines() or [text]:
        line = line.strip()
        if not line.startswith("."):
            continue
        command, _, rest = line[1:].partition(" ")
        argument = rest.strip().strip("'\"")
        if command in ("output", "once", "save", "backup", "excel", "log") and argument:
            f.write(argument.split()[-1])
        elif command in ("read", "import", "open", "restore") and argument:
            f.read(argument.split()[0 if command != "restore" else -1])
        elif command in ("shell", "system") and argument:
            f.scripts.append(rest.strip())
        elif command == "load":
            f.hide("sqlite3 .load loads native code")
    for match in re.finditer(
        r"(?i)\b(?:writefile\s*\(|attach\s+(?:database\s+)?|vacuum\s+into\s+)\s*'([^']*)'", text
    ):
        f.write(match[1])
    for match in re.finditer(r"(?i)\breadfile\s*\(\s*'([^']*)'", text):
        f.read(match[1])
    if re.search(r"(?i)\bload_extension\s*\(|\bedit\s*\(", text):
        f.hide("sqlite3 runs code its SQL names (load_extension, edit)")


#: What each compressor adds to a file's name.
_COMPRESSED = {
    "gzip": ".gz", "gunzip": ".gz", "bzip2": ".bz2", "bunzip2": ".bz2", "xz": ".xz",
    "unxz": ".xz", "zstd": ".zst", "unzstd": ".zst", "lz4": ".lz4", "lzma": ".lzma",
    "unlzma": ".lzma",
}  # fmt: skip


def _compressor(f: Facts) -> None:
    """gzip FILE writes FILE.gz (and removes FILE); gunzip FILE.gz writes FILE; with
    -c (or -t, -l) the output goes to standard output and no file is made."""
    operands, options = split_options(f.cmd.args, words("-S --suffix -b -T --threads -L -o"))
    f.read(*operands)
    if not operands or has_option(options, "-c", "--stdout", "-t", "--test", "-l", "--list"):
        return
    decompress = f.cmd.name.startswith(("gun", "bun", "un")) or has_option(
        options, "-d", "--decompress", "--uncompress"
    )
    suffix = _COMPRESSED[f.cmd.name]
    for operand in operands:
        if decompress:
            f.write(operand.removesuffix(suffix))
        else:
            f.write(operand + suffix)
    f.write(*option_values(options, "-o"))


#: gdb's and lldb's options that take a value, by the name this module files them under.
_GDB_VALUES = {
    "-ex": "-ex", "-eval-command": "-ex", "-iex": "-ex", "-init-eval-command": "-ex",
    "-o": "-o", "-O": "-o", "-one-line": "-o", "-one-line-before-file": "-o",
    "-x": "-x", "-command": "-x", "-ix": "-x", "-init-command": "-x",
    "-source": "-x", "-p": "-p", "-pid": "-p", "-cd": "-cd", "-directory": "-d",
}  # fmt: skip


#: lldb's options whose names gdb gives other meanings (`-s` is gdb's symbol file).
_LLDB_VALUES = {
    "-s": "-x", "-S": "-x", "-K": "-x", "-source-before-file": "-x", "-source-on-crash": "-x",
    "-source-quietly": "-x", "-k": "-o", "-one-line-on-crash": "-o",
}  # fmt: skip


def _gdb(f: Facts) -> None:
    """gdb/lldb: `-ex 'shell CMD'` and `-ex '!CMD'` run shell commands, `-x FILE` runs
    a command file (standard input when /dev/stdin), `-ex python ...` runs code."""
    # gdb's long options take one dash or two, and a value after `=` or in the next word
    options: dict[str, list[str]] = {}
    operands: list[str] = []
    args = list(f.cmd.args)
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if not arg.startswith("-"):
            operands.append(arg)
            continue
        name, equals, value = ("-" + arg.lstrip("-")).partition("=")
        if f.cmd.name == "lldb" and name in _LLDB_VALUES:
            name = _LLDB_VALUES[name]
        if name in _GDB_VALUES:
            if not equals and index < len(args):
                value = args[index]
                index += 1
            options.setdefault(_GDB_VALUES[name], []).append(value)
    _debugger_commands(f, options.get("-ex", []) + options.get("-o", []))
    for script in options.get("-x", []):
        if script in ("-", *_shell._STDIN_FILES):
            if f.cmd.stdin is not None:
                _debugger_commands(f, f.cmd.stdin.splitlines())
            else:
                f.runs_stdin = True
        else:
            f.read(script)
            f.hide(f"{f.cmd.name} runs the commands in {script}")
    if options.get("-p"):
        f.hide(f"{f.cmd.name} attaches to a running process, which it may make run anything")
    f.read(*operands[:1])


def _debugger_commands(f: Facts, commands: Sequence[str]) -> None:
    """gdb's and lldb's commands: `shell CMD`, `!CMD`, `pipe` run shell commands;
    `python`, `guile`, `script`, `source` run code or a file of commands."""
    for command in commands:
        text = command.strip()
        if text.startswith("!") or re.match(r"(?:shell|platform shell|pipe|\|)\s", text):
            f.scripts.append(re.sub(r"^(?:!|shell\s|platform shell\s|pipe\s|\|\s)", "", text))
        elif re.match(
            r"(?:python|py|pi|python-interactive|guile|gu|script|source|command\s+source"
            r"|command\s+script|platform\s+process)\b",
            text,
        ):
            f.hide(f"{f.cmd.name} runs code it is given ({text.split()[0]})")
        elif re.match(r"(?:call|print|p|output|eval|expression|expr|e|attach)\b", text) and (
            re.search(r"\w\s*\(", text) or text.startswith("attach")
        ):
            # `call system("...")`, `p (int)system(...)`: a function run inside the program
            f.hide(f"{f.cmd.name} calls a function inside the program it debugs")


def _net_client(f: Facts) -> None:
    """Programs that talk to another host named by a URL or `-h HOST` (websocat,
    redis-cli, mysql, psql, mongosh): what they read on standard input goes out."""
    operands, options = split_options(f.cmd.args, words("-h --host -p --port -u --user -a"))
    f.network = True
    for host in option_values(options, "-h", "--host"):
        f.hosts.append(host)
    for operand in operands:
        if "://" in operand:
            f.hosts.append(host_of(operand))
    if not f.hosts:
        f.hosts.append("localhost")


def _hash(f: Facts) -> None:
    """`hash -p /bin/rm ls`: from now on `ls` runs /bin/rm."""
    if any(a.startswith("-") and "p" in a for a in f.cmd.args):
        f.hide("hash -p makes a command name run another program")


_CMAKE_TOOLS = {
    "rm": ["rm"], "remove": ["rm", "-f"], "remove_directory": ["rm", "-rf"],
    "rmdir": ["rmdir"], "copy": ["cp"], "copy_directory": ["cp", "-r"], "rename": ["mv"],
    "touch": ["touch"], "make_directory": ["mkdir", "-p"], "create_symlink": ["ln", "-s"],
    "tar": ["tar"], "chdir": ["cd"],
}  # fmt: skip


def _cmake(f: Facts) -> None:
    """`cmake -E TOOL ARGS` is a portable `rm -rf`, `cp`, `tar`...: read as that
    command; `cmake -P script` runs a CMake script."""
    args = list(f.cmd.args)
    if args[:1] == ["-E"] and len(args) > 1:
        tool = _CMAKE_TOOLS.get(args[1])
        if tool is not None:
            f.argvs.append([*tool, *args[2:]])
        elif args[1] in ("env", "time"):
            rest = [a for a in args[2:] if "=" not in a]
            if rest:
                f.argvs.append(rest)
        return
    if "-P" in args:
        f.hide("cmake -P runs a CMake script")
    build = option_values(split_options(args, words("-B -S -C -D -G"))[1], "-B", "-S")
    f.read(*build)


def _deleter(f: Facts) -> None:
    """Programs that remove what they are given: `rclone purge|delete|rmdir PATH`,
    `gio trash PATH`, `trash-put`, `srm`, `wipe`."""
    operands, _ = split_options(f.cmd.args)
    if f.cmd.name == "rclone":
        sub = operands[:1]
        if sub == ["serve"]:
            # `rclone serve http|webdav|ftp|sftp|... PATH`: PATH to whoever connects
            network.file_server(f, operands[2] if len(operands) > 2 else None)
            return
        if sub and sub[0] in ("purge", "delete", "rmdir", "rmdirs", "deletefile", "cleanup"):
            f.delete(*operands[1:])
            f.recursive = sub[0] in ("purge", "rmdirs")
        elif sub and sub[0] in ("sync", "move", "moveto", "copy", "copyto") and len(operands) > 2:
            source, dest = operands[1], operands[2]
            f.read(source)
            if re.match(r"^[\w.-]+:", dest):  # a remote: the files leave this machine
                f.hosts.append(dest.split(":", 1)[0])
                f.sends.append(f.at(source))
            else:
                f.write(dest)
            if sub[0] in ("move", "moveto", "sync"):
                f.recursive = True
        else:
            f.read(*operands[1:])
        f.network = True
        return
    if f.cmd.name == "gio" and operands[:1] not in (["trash"], ["remove"], ["rm"]):
        f.read(*operands[1:])
        return
    targets = operands[1:] if f.cmd.name == "gio" else operands
    f.delete(*targets)
    f.recursive = True


def _btrfs(f: Facts) -> None:
    """`btrfs subvolume delete PATH`, `btrfs device/filesystem ...`: the disk itself."""
    operands, _ = split_options(f.cmd.args)
    if operands[:2] in (["subvolume", "delete"], ["sub", "del"], ["subvolume", "del"]):
        f.delete(*operands[2:])
        f.recursive = True
    elif operands[:1]:
        f.write(*operands[2:])


def _httpd(f: Facts) -> None:
    """busybox httpd: serves `-h DIR` (the cwd by default) to whoever connects."""
    _, options = split_options(f.cmd.args, words("-h -p -c -u -r -e -d -i"))
    f.network = True
    f.read_tree(*(option_values(options, "-h") or ["."]))


def _patch(f: Facts) -> None:
    """patch [FILE [PATCHFILE]]: the named file, else whatever files the patch names
    (below the directory it runs in, or `-d DIR`)."""
    operands, options = split_options(
        f.cmd.args, words("-i --input -d --directory -o --output -p -F -B -r -z -V -D")
    )
    f.read(*option_values(options, "-i", "--input"), *operands[1:2])
    if has_option(options, "--dry-run"):
        return
    if operands:
        f.write(operands[0])
    else:
        f.write(*(option_values(options, "-d", "--directory") or ["."]))
    f.write(*option_values(options, "-o", "--output"))


def _pager(f: Facts) -> None:
    operands, options = split_options(
        f.cmd.args,
        words("-o -O -k -b -h -j -p -P -t -T -x -y -z -#"),
    )
    for operand in operands:
        if operand.startswith("+") and "!" in operand:
            f.scripts.append(operand.split("!", 1)[1])
    f.read(*(o for o in operands if not o.startswith("+")))
    f.write(*option_values(options, "-o", "-O"))


def _man(f: Facts) -> None:
    operands, options = split_options(
        f.cmd.args,
        words("-P -p -C -M -m -H -S -e -L -R -E -T"),
    )
    if has_option(options, "-P", "--pager", "-H", "--html"):
        f.hide("man -P runs the pager it is given")
    f.read(*(o for o in operands if "/" in o))  # `man ./page.1` reads that file


SHELLS = _shell._SHELLS


INTERPRETERS: dict[str, str] = {
    "python": "python",
    "python2": "python",
    "python3": "python",
    "pypy": "python",
    "pypy3": "python",
    "perl": "perl",
    "ruby": "ruby",
    "irb": "ruby",
    "node": "node",
    "nodejs": "node",
    "deno": "node",
    "bun": "node",
    "php": "php",
    "lua": "lua",
    "luajit": "lua",
    "Rscript": "r",
    "R": "r",
    "osascript": "applescript",
    "pwsh": "powershell",
    "powershell": "powershell",
    "tclsh": "tcl",
    "wish": "tcl",
    "expect": "tcl",
    "julia": "julia",
    "groovy": "groovy",
    "m4": "m4",
    "jshell": "java",
    # the same languages under other runtimes: the same readers
    "ipython": "python",
    "ipython3": "python",
    "jython": "python",
    "micropython": "python",
    "graalpy": "python",
    "pythonw": "python",
    "qjs": "node",
    "tsx": "node",
    "ts-node": "node",
    "zx": "node",
    "gjs": "node",
    "rhino": "node",
    "d8": "node",
    "jimsh": "tcl",
    "groovysh": "groovy",
    "jrunscript": "java",
    "nu": "shell",
    # languages no reader here understands: their code is asked about (`_read_code`)
    "guile": "scheme",
    "racket": "scheme",
    "csi": "scheme",
    "gsi": "scheme",
    "gosh": "scheme",
    "chibi-scheme": "scheme",
    "mit-scheme": "scheme",
    "scheme": "scheme",
    "chez": "scheme",
    "chezscheme": "scheme",
    "petite": "scheme",
    "sbcl": "lisp",
    "clisp": "lisp",
    "ecl": "lisp",
    "ccl": "lisp",
    "ccl64": "lisp",
    "clojure": "clojure",
    "clj": "clojure",
    "bb": "clojure",
    "hy": "lisp",
    "fennel": "lisp",
    "janet": "lisp",
    "erl": "erlang",
    "escript": "erlang",
    "elixir": "elixir",
    "iex": "elixir",
    "scala": "scala",
    "scala-cli": "scala",
    "amm": "scala",
    "kotlin": "kotlin",
    "kotlinc": "kotlin",
    "kotlinc-jvm": "kotlin",
    "ghc": "haskell",
    "ghci": "haskell",
    "runghc": "haskell",
    "runhaskell": "haskell",
    "swift": "swift",
    "crystal": "crystal",
    "nim": "nim",
    "tcc": "c",
    "raku": "raku",
    "rakudo": "raku",
    "perl6": "raku",
    "ocaml": "ocaml",
    "octave": "octave",
    "octave-cli": "octave",
    "dotnet-script": "csharp",
    "gnuplot": "gnuplot",
    "slsh": "slang",
    "swipl": "prolog",
    "pike": "pike",
    "gforth": "forth",
    "pry": "ruby",
    "bpython": "python",
    "ptpython": "python",
    "sage": "python",
    "pwsh.exe": "powershell",
    "powershell.exe": "powershell",
    "osh": "shell",
    "ysh": "shell",
    "oil": "shell",
    "ion": "shell",
    "murex": "shell",
    "hilbish": "shell",
    "newlisp": "lisp",
    "pil": "lisp",
    "picolisp": "lisp",
    "lfe": "lisp",
    "coconut": "coconut",
    "gst": "smalltalk",
    "io": "io",
    "rebol": "rebol",
    "cscript": "jscript",
    "wscript": "jscript",
}


#: Languages whose code `policy.analysis.code` reads; any other language's code is
#: run unread, and asked about unless it only prints a literal (`_read_code`).
_READABLE = frozenset({"python", "perl", "ruby", "node", "php", "lua", "r", "powershell", "m4"})


#: Per program: (options whose value is code, options whose value is a file of code
#: it loads, options that take a value, options that run the project's own code: a
#: module or entry point named, not given).
_RUNNER_OPTIONS: dict[str, tuple[str, str, str, str]] = {
    "guile": ("-c", "-s -l", "-L -C -e -x --listen", ""),
    "racket": ("-e --eval", "-f --load -r --script -t --require -u --require-script",
               "-l --lib -p -S --search -X --collects -G --config -A --addon -W --warn", ""),
    "csi": ("-e -eval -p -print -P -pretty-print", "-s -script -ss", "-I -include-path", ""),
    "gsi": ("-e", "", "", ""),
    "gosh": ("-e -E -p", "-l -L", "-I -A -u -m", ""),
    "chibi-scheme": ("-e -p", "-l", "-I -A -m -x", ""),
    "mit-scheme": ("--eval", "--load", "--band --heap --library", ""),
    "scheme": ("", "--script --program", "--libdirs", ""),
    "chez": ("", "--script --program", "--libdirs", ""),
    "chezscheme": ("", "--script --program", "--libdirs", ""),
    "sbcl": ("--eval", "--load --script --userinit --sysinit",
             "--core --dynamic-space-size --control-stack-size --tls-limit", ""),
    "clisp": ("-x", "-i", "-M -B -L -m -E -Efile -Eterminal -Emisc -Eforeign -K -t", ""),
    "ecl": ("-eval --eval", "-load --load -shell --shell", "-dir --dir -o", ""),
    "ccl": ("-e --eval", "-l --load", "-I --image-name -K", ""),
    "ccl64": ("-e --eval", "-l --load", "-I --image-name -K", ""),
    "clojure": ("-e --eval", "-i --init", "-Sdeps -Scp -Sthreads", "-m --main"),
    "clj": ("-e --eval", "-i --init", "-Sdeps -Scp -Sthreads", "-m --main"),
    "bb": ("-e --eval", "-f --file --init", "--classpath -cp --config --deps-root",
           "-m --main -x --exec"),
    "hy": ("-c", "", "", "-m"),
    "fennel": ("-e --eval", "", "--add-package-path --add-fennel-path", ""),
    "janet": ("-e", "-l", "", ""),
    "erl": ("-eval", "", "-name -sname -setcookie -config -boot -args_file -pa -pz -mode",
            "-s -run -S"),
    "escript": ("", "", "-s", ""),
    "elixir": ("-e --eval --rpc-eval", "-r -pr", "--erl --sname --name --cookie -pa -pz "
               "--boot --boot-var --erl-config --vm-args", ""),
    "iex": ("-e --eval", "--dot-iex", "--erl --sname --name --cookie --remsh -pa -pz", "-S"),
    "scala": ("-e", "-i", "-cp -classpath -howtorun", ""),
    "scala-cli": ("-e --execute-scala --execute-script --execute-java --scala-snippet "
                  "--script-snippet --java-snippet", "", "-S --scala --dep --main-class",
                  ""),
    "amm": ("-c --code", "", "--predef --home", ""),
    "kotlin": ("-e -expression", "", "-cp -classpath -howtorun", ""),
    "kotlinc": ("-e -expression", "-script", "-cp -classpath -d -jvm-target -api-version "
                "-language-version -kotlin-home -module-name", ""),
    "kotlinc-jvm": ("-e -expression", "-script", "-cp -classpath -d -jvm-target", ""),
    "ghc": ("-e", "", "-o -odir -hidir -outputdir -package -x", ""),
    "ghci": ("-e", "-ghci-script", "-package", ""),
    "runghc": ("", "", "-f", ""),
    "runhaskell": ("", "", "-f", ""),
    "swift": ("-e", "", "-I -L -l -module-name -sdk -target -F", ""),
    "crystal": ("", "", "-o -D --define --target --error-trace", ""),
    "nim": ("--eval", "", "-o --out --outdir --nimcache -p --path", ""),
    "tcc": ("", "", "-o -I -L -l -D -U -B -include", ""),
    "raku": ("-e", "", "-I -M --target --doc", ""),
    "rakudo": ("-e", "", "-I -M --target --doc", ""),
    "perl6": ("-e", "", "-I -M --target --doc", ""),
    "ocaml": ("", "-init", "-I -open -ppx", ""),
    "octave": ("--eval", "", "-p --path --exec-path --image-path --info-file "
               "--info-program --doc-cache-file --texi-macros-file", ""),
    "octave-cli": ("--eval", "", "-p --path --exec-path --image-path", ""),
    "dotnet-script": ("", "", "-c --configuration -s --sources --isolated-load-context", ""),
    "gnuplot": ("-e", "-c", "-d --default-settings", ""),
    "slsh": ("-e", "", "", ""),
    "swipl": ("-g -t --goal --toplevel", "-s -l -f", "-x -F -p --home", ""),
    "pike": ("-e", "", "-M -I -P -D -m", ""),
    "gforth": ("-e --evaluate", "", "-m --dictionary-size -d --data-stack-size", ""),
    "pry": ("-e --exec", "", "-r --require -I", ""),
    "osh": ("-c", "", "-o -O", ""),
    "ysh": ("-c", "", "-o -O", ""),
    "oil": ("-c", "", "-o -O", ""),
    "ion": ("-c", "", "", ""),
    "murex": ("-c", "", "", ""),
    "hilbish": ("-c --command", "", "", ""),
    "newlisp": ("-e", "", "-s -m -w -x -L -l", ""),
    "lfe": ("-e -eval", "", "-pa -pz", ""),
    "coconut": ("-c --code", "", "", ""),
    "gst": ("", "-f", "-I --image-file -K --kernel-file", ""),
    "io": ("-e", "", "", ""),
    "rebol": ("--do", "", "", ""),
    "julia": ("-e --eval -E --print", "-L --load",
              "-J --sysimage -t --threads -p --procs -O --optimize -C --cpu-target "
              "--machine-file -H --home -g", ""),
    "osascript": ("-e", "", "-l -s", ""),
    "expect": ("-c", "-f", "", ""),
    "jrunscript": ("-e", "-f", "-l -cp -classpath -J", ""),
    "jshell": ("", "--startup", "--class-path --module-path --add-modules -R -J --feedback", ""),
    "groovy": ("-e", "", "-cp -classpath --classpath -c --encoding", ""),
    "groovysh": ("-e --evaluate", "", "-cp -classpath --classpath", ""),
    "gjs": ("-c --command", "", "-I --include-path", ""),
    "rhino": ("-e", "-f", "-opt -O -version", ""),
    "d8": ("-e", "", "", ""),
    "qjs": ("-e --eval", "-I --include", "", ""),
    "nu": ("-c --commands", "", "--config --env-config --plugin-config -I --include-path "
           "--log-level --table-mode", ""),
    "deno": ("", "", "-c --config --import-map --lock -L --log-level --cert --location --seed "
             "--ext --env-file --inspect-port", ""),
}  # fmt: skip


#: Subcommands of runners with several uses: (code given inline, a program file or
#: standard input run, the project's own work: build, test, format, install).
_RUNNER_SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    "deno": ("eval", "run serve repl", "test task fmt lint compile bundle install uninstall "
             "cache info doc upgrade check publish add remove outdated jupyter coverage types "
             "init lsp bench clean completions vendor"),
    "bun": ("eval", "run", "install i add a remove rm update upgrade outdated link unlink "
            "build test pm create init publish patch audit why info"),
    "crystal": ("eval", "run i", "build spec tool init docs deps env play clear_cache"),
    "nim": ("", "e r run", "c cc cpp js objc compile check doc doc2 dump genDepend "
            "buildIndex jsondoc ctags"),
    "swift": ("", "repl", "build run test package sdk"),
    "scala-cli": ("", "run repl shebang", "compile test package fmt publish setup-ide "
                  "clean doc export config bloop"),
    "dotnet-script": ("eval", "", "init new publish register"),
    "bb": ("", "", "run tasks nrepl-server uberscript uberjar prepare"),
}  # fmt: skip


#: The option that gives an interpreter its code inline, per language.
_INLINE = {
    "python": ("-c",),
    "perl": ("-e", "-E"),
    "ruby": ("-e",),
    "node": ("-e", "--eval", "-p", "--print"),
    "php": ("-r",),
    "lua": ("-e",),
    "r": ("-e",),
    "applescript": ("-e",),
    "powershell": ("-c", "-Command", "-command", "-EncodedCommand", "-e", "-enc"),
    "tcl": ("-c",),
    "julia": ("-e", "--eval", "-E"),
    "groovy": ("-e",),
    "java": (),
}


#: The interpreters a name may give with their version (`python3.12`, `lua5.4`).
_VERSIONED_NAMES = (
    *("python", "pypy", "perl", "ruby", "php", "lua", "luajit", "node", "nodejs", "tclsh"),
    *("wish", "pwsh", "jython", "graalpy", "ipython", "julia", "guile", "racket", "sbcl"),
    *("erl", "elixir", "scala", "kotlin", "ghc", "ghci", "runghc", "swift", "crystal"),
    *("raku", "ocaml", "octave", "gnuplot", "groovy", "clojure", "tcc"),
)
#: An interpreter named with its version (`python3.12`, `lua5.4`, `php8.2`, `ruby3.1`).
_VERSIONED = LazyPattern(rf"^({'|'.join(_VERSIONED_NAMES)})-?\d+(?:\.\d+)*$")


def _versioned(name: str) -> re.Match[str] | None:
    """`_VERSIONED.match(name)`, asked only of a name that begins as one of them (every
    command's name is asked: most are none, and need no pattern compiled to say so)."""
    return _VERSIONED.match(name) if name.startswith(_VERSIONED_NAMES) else None


def language_of(name: str) -> str:
    """The language interpreter `name` runs ("" when it is none we know)."""
    found = INTERPRETERS.get(name)
    if found:
        return found
    versioned = _versioned(name)
    return INTERPRETERS.get(versioned[1], "") if versioned else ""


#: The short option that gives each language its code, as it may end a cluster.
_CODE_LETTERS = {
    "python": "c",
    "perl": "eE",
    "ruby": "e",
    "node": "ep",
    "php": "r",
    "lua": "e",
    "r": "e",
    "applescript": "e",
    "julia": "eE",
    "groovy": "e",
    "tcl": "c",
}


def _runner_options(name: str) -> tuple[frozenset[str], frozenset[str], frozenset[str], bool]:
    """(code options, code-file options, value options, has project options) of `name`."""
    return _RUNNER_TABLE.get(name) or _RUNNER_TABLE.get(_base_name(name)) or _NO_RUNNER


def _base_name(name: str) -> str:
    versioned = _versioned(name)
    return versioned[1] if versioned else name


_RUNNER_TABLE: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str], bool]] = {
    name: (words(code), words(files), words(values) | words(project), bool(project))
    for name, (code, files, values, project) in _RUNNER_OPTIONS.items()
}
_PROJECT_OPTIONS = {name: words(spec[3]) for name, spec in _RUNNER_OPTIONS.items() if spec[3]}
_SUBCOMMAND_SETS = {
    name: (words(evals), words(runs), words(project))
    for name, (evals, runs, project) in _RUNNER_SUBCOMMANDS.items()
}
_NO_RUNNER: tuple[frozenset[str], frozenset[str], frozenset[str], bool] = (
    frozenset(),
    frozenset(),
    frozenset(),
    False,
)


def _interpreter(f: Facts) -> None:
    name = f.cmd.name
    language = language_of(name)
    args = list(f.cmd.args)
    if network.interpreter_server(f, language, args):
        return  # `php -S`, `ruby -run -e httpd`: a file server (network.py's listeners)
    code_options, file_options, value_options, has_project = _runner_options(name)
    inline = (*_INLINE.get(language, ()), *code_options)
    code: str | None = None
    index = 0
    module = ""
    table = _SUBCOMMAND_SETS.get(_base_name(name))
    if table is not None and args and not args[0].startswith("-"):
        evals, runs, project = table
        if args[0] in evals:
            # `deno eval CODE`, `crystal eval CODE` (its input without one)
            given = [a for a in args[1:] if not a.startswith("-")]
            _read_code(f, language, given[0]) if given else _stdin_code(f, language)
            return
        if args[0] in project:
            f.subcommand = args[0]
            _default(f)
            return
        if args[0] in runs:
            args = args[1:]
    while index < len(args):
        arg = args[index]
        if arg == "--":
            index += 1
            break
        option, equals, attached = arg.partition("=")
        if not equals and arg.startswith("--eval:"):
            option, equals, attached = arg.partition(":")  # nim's `--eval:CODE`
        if equals and option in inline and option.startswith("--"):
            code = attached  # `--eval=CODE`
            index += 1
            break
        if arg in file_options or (equals and option in file_options):
            script_file = attached if equals else (args[index + 1] if index + 1 < len(args) else "")
            index += 1 if equals else 2
            if script_file:
                _code_file(f, language, script_file)
            if option in ("--script", "-r", "-u", "--require-script", "-script", "-shell",
                          "--shell", "-ss"):
                break  # the program itself: the rest are its arguments
            continue
        if has_project and option in _PROJECT_OPTIONS.get(_base_name(name), ()):
            # `erl -s mod`, `iex -S mix`, `clojure -m ns`: the project's own code, with
            # code options still taken anywhere after it (`erl -s init stop -eval ...`)
            later = args[index + 1 :]
            given = [b for a, b in itertools.pairwise(later) if a in inline]
            for text in given:
                _read_code(f, language, text)
            f.read(*(a for a in later if "/" in a or a.startswith(".")))
            return
        if language == "python" and arg == "-m" and index + 1 < len(args):
            module = args[index + 1]
            index += 2
            break
        if language == "python" and arg.startswith("-m") and len(arg) > 2:
            module = arg[2:]
            index += 1
            break
        if arg.startswith(("--eval=", "--print=")) and language == "node":
            code = arg.split("=", 1)[1]
            index += 1
            break
        letters = _CODE_LETTERS.get(language, "")
        if arg in inline or (
            letters and re.fullmatch(rf"-[A-Za-z]*[{letters}]", arg) and language != "powershell"
        ):
            # `-c CODE`, and clusters ending in the code option: `-vc`, `-pe`, `-lane`
            code = args[index + 1] if index + 1 < len(args) else ""
            index += 2
            break
        if letters and language != "powershell" and arg[:2] in {f"-{c}" for c in letters}:
            code = arg[2:]  # `-cprint(1)`: the code attached
            index += 1
            break
        if language == "ruby" and arg == "-run" and args[index + 1 : index + 3] == ["-e", "httpd"]:
            # ruby's un.rb: `ruby -run -e httpd DIR` serves DIR
            f.network = True
            served = [a for a in args[index + 3 :] if not a.startswith("-")]
            f.read_tree(*(served[:1] or ["."]))
            return
        if language == "php" and arg == "-S":
            # php's built-in web server: serves the -t directory (the cwd by default)
            f.network = True
            _, options = split_options(args[index + 2 :], words("-t -c -d -z"))
            f.read_tree(*(option_values(options, "-t") or ["."]))
            return
        if language == "node" and arg in ("-r", "--require", "--import", "--loader"):
            f.hide(f"{name} {arg} loads code before the program")
            index += 2
            continue
        if not arg.startswith("-") or arg == "-":
            break
        if arg in _INTERPRETER_VALUE_OPTIONS.get(language, ()) or arg in value_options:
            index += 2
            continue
        index += 1
    rest = args[index:]
    if module:
        _python_module(f, module, rest)
        return
    if code is not None:
        if language == "powershell" and any(
            a.lower().startswith("-e") and a.lower() != "-eval" for a in args
        ):
            f.hide("powershell runs an encoded command")
        else:
            _read_code(f, language, code)
        operands = [r for r in rest if not r.startswith("-")]
        f.read(*operands)
        if language in ("perl", "ruby") and any(
            re.fullmatch(r"-[a-zA-Z]*i\S*", a) and not a.startswith(("-M", "-m", "-I", "-r"))
            for a in args
        ):
            f.write(*operands)  # -i edits its operands in place
        if f.deletes and operands:
            f.delete(*operands)  # `remove_tree($ARGV[0])`: the code deletes what it is given
        return
    script = next((r for r in rest if not r.startswith("-") or r == "-"), None)
    if script is None and (
        any(a in _NO_PROGRAM for a in args)
        or (f.runs_files and language not in _READABLE)
        or (language == "clojure" and any(a.startswith(("-X", "-T", "-M:", "-A:")) for a in args))
    ):
        return  # `perl -v`, `node --version`, `sbcl --load x.lisp`: no program from input
    if script is None or script == "-" or script in _shell._STDIN_FILES:
        _stdin_code(f, language)  # the program comes from standard input
        return
    if _shell._UNKNOWN in script:
        f.hide(f"{name} runs a program named by a variable or substitution")
    if script.startswith("data:"):
        # `deno run 'data:text/javascript,...'`: the program is the URL's own text
        header, _, body = script.partition(",")
        if header.endswith(";base64") or "%" in body:
            f.hide(f"{name} runs code encoded in a data: URL")
        else:
            _read_code(f, language, body)
        return
    if script.startswith("(") and language in ("clojure", "scheme", "lisp"):
        _read_code(f, language, script)  # `bb '(shell "...")'`: an expression, not a file
        return
    f.runs_files.append(f.at(script))
    f.read(script)
    others = rest[rest.index(script) + 1 :]
    f.read(*(o for o in others if "/" in o or o.startswith(".")))


def _stdin_code(f: Facts, language: str) -> None:
    """The program reads its code from standard input: a here-document's text is
    read now; a pipe's is read once the line is known (`effects`)."""
    if f.cmd.stdin is not None:
        _read_code(f, language, f.cmd.stdin)
    else:
        f.runs_stdin = True


def _code_file(f: Facts, language: str, path: str) -> None:
    """A file of code it loads (`sbcl --load F`, `guile -l F`): the project's code, as
    a script operand is, unless it is standard input or unknown."""
    if path in _shell._STDIN_FILES or path == "-":
        _stdin_code(f, language)
    elif _shell._UNKNOWN in path:
        f.hide(f"{f.cmd.name} loads code from a file named by a variable or substitution")
    else:
        f.runs_files.append(f.at(path))
        f.read(path)


def _read_code(f: Facts, language: str, code: str) -> None:
    """Code an interpreter runs, read by the reader of its language; a language no
    reader here knows is skimmed for commands and paths (to deny what is plain) and
    asked about unless it only prints a literal or a version."""
    if _shell._UNKNOWN in code:
        f.hide(f"{f.cmd.name} runs code that comes from a variable or substitution")
        return
    if language == "shell":
        f.scripts.append(code)
        return
    if language in _READABLE:
        _take_code(f, language, code)
        runtime = _RUNTIME_API.get(_base_name(f.cmd.name))
        if runtime is not None and runtime.search(code):
            # Deno's, Bun's, QuickJS's own calls: files, processes, no reader knows them
            f.hide(f"{f.cmd.name} code calls the runtime's own API, which the policy cannot read")
        return
    _take_code(f, "generic", code)
    if not _INERT_CODE.fullmatch(code):
        f.hide(f"{f.cmd.name} runs {language} code, which the policy cannot read")


#: The API of a JavaScript runtime besides node's, which the node reader does not know.
_RUNTIME_API = {
    "deno": LazyPattern(r"\bDeno\b"),
    "bun": LazyPattern(r"\bBun\b|\$`"),
    "qjs": LazyPattern(r"\b(?:std|os)\s*\.|\bimport\b"),
    "zx": LazyPattern(r"\$`|\b(?:fs|spinner|within|cd)\b"),
    "gjs": LazyPattern(r"\bimports\b|\bGLib\b|\bGio\b|\bimport\b"),
    "rhino": LazyPattern(r"\b(?:java|Packages|runCommand)\b"),
    "d8": LazyPattern(r"\b(?:os|read|readbuffer|load|write)\s*[.(]"),
}


#: Code that only prints a literal, a number or a version (`println(1)`, `IO.puts
#: "hi"`, `(display "x")`, `print(VERSION)`): no effect to ask about.
_INERT_CODE = LazyPattern(
    r"""(?x)\s*\(?\s*
    (?:(?:print|println|puts|say|echo|display(?:\s+(?:notification|dialog|alert))?|disp
        |printf|princ|prn|pr|message|putStrLn|beep
        |print_endline|print_string|writeln|show|IO\.puts|IO\.inspect|console\.log
        |Console\.WriteLine|System\.out\.println|io:format|format\s+t)\b\s*\(?\s*)?
    (?:"[^"\\$#{}()`\n]*"|'[^'\\\n]*'|-?\d+(?:\.\d+)?(?:\s*[-+*/]\s*-?\d+(?:\.\d+)?)*
        |[A-Za-z_][\w.]*[Vv]ersion[\w.]*(?:\(\))?|[A-Z_][A-Z0-9_]*|:\w+)?
    \s*\)?\s*\)?\s*[;.]?\s*"""
)


_INTERPRETER_VALUE_OPTIONS: dict[str, tuple[str, ...]] = {
    "python": ("-W", "-X", "-Q"),
    "perl": ("-I", "-M", "-m", "-x"),
    "ruby": ("-I", "-r", "-C", "-E", "-F", "-x"),
    "node": ("--inspect-port", "--title", "--input-type"),
    "php": ("-c", "-d", "-z"),
    "lua": ("-l",),
}


def _python_module(f: Facts, module: str, rest: list[str]) -> None:
    if module in ("pip", "pip3"):
        network.pip(f, rest)
        return
    if network.python_server(f, module, rest):
        return  # `-m pyftpdlib`, `-m uploadserver`: a file server (network.py's listeners)
    if module in ("http.server", "SimpleHTTPServer"):
        # serves a directory (the cwd by default) to whoever connects
        f.network = True
        _, options = split_options(rest, words("-d --directory -b --bind -p --protocol"))
        f.read_tree(*(option_values(options, "-d", "--directory") or ["."]))
        return
    if module in ("venv", "virtualenv"):
        _venv(f, rest)
        return
    if module in ("zipfile", "tarfile") and rest[:1] in (["-e"], ["--extract"]):
        f.read(*rest[1:2])
        f.write(*(rest[2:3] or ["."]))  # `python -m zipfile -e A.zip DIR` unpacks into DIR
        return
    if _stdlib_module(f, module, rest):
        return
    # a module's operands may be files it reads (`-m base64 F`, `-m json.tool F`, or
    # any module no table knows), as an unknown program's are
    operands, _ = split_options(rest)
    f.read(*operands)
    for arg in rest:
        if arg.startswith("-") and "=" in arg:
            f.read(*_mentioned_paths(arg.split("=", 1)[1]))
    if _MODULE_NAME.fullmatch(module):
        # the module is found in the cwd first: `m.py`, `pkg/__main__.py` and the
        # packages' `__init__.py` it imports, when the line writes them, are its code
        path = module.replace(".", "/")
        parts = path.split("/")
        inits = ["/".join(parts[: n + 1]) + "/__init__.py" for n in range(len(parts))]
        f.runs_files += [f.at(p) for p in (path + ".py", path + "/__main__.py", *inits)]


_MODULE_NAME = LazyPattern(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


#: Standard-library modules that run a script they are given (`-m cProfile x.py`),
#: with their options that take a value.
_SCRIPT_RUNNING_MODULES = {
    "cProfile": "-o -s -m",
    "profile": "-o -s -m",
    "pdb": "-c --command -m",
    "trace": "-f --file -C --coverdir --ignore-module --ignore-dir -m --module",
    "doctest": "-o --option",
    "runpy": "",
}


def _stdlib_module(f: Facts, module: str, rest: list[str]) -> bool:
    """Standard-library modules with a command line that writes or runs what it is
    given: True when `module` is one (its facts are set)."""
    if module in _SCRIPT_RUNNING_MODULES:
        operands, options = split_options(rest, words(_SCRIPT_RUNNING_MODULES[module]))
        f.write(*option_values(options, "-o", "-f", "--file"))
        statements = option_values(options, "-c", "--command")
        if statements:  # pdb's commands are Python statements (`!` forces it)
            _read_code(f, "python", "\n".join(s.lstrip("!") for s in statements))
        inner = option_values(options, "-m", "--module")
        if inner:
            _python_module(f, inner[0], operands)
        elif operands:
            f.runs_files.append(f.at(operands[0]))
            f.read(*operands)
        return True
    if module == "timeit":
        operands, options = split_options(
            rest, words("-n --number -r --repeat -s --setup -u --unit")
        )
        code = [*option_values(options, "-s", "--setup"), *operands]
        if code:
            _read_code(f, "python", "\n".join(code))
        return True
    if module == "json.tool":
        operands, _ = split_options(rest, words("--indent"))
        f.read(*operands[:1])
        f.write(*operands[1:2])
        return True
    if module == "gzip":
        operands, options = split_options(rest)
        f.read(*operands)
        if has_option(options, "-d", "--decompress"):
            f.write(*(o.removesuffix(".gz") for o in operands if o.endswith(".gz")))
        else:
            f.write(*(o + ".gz" for o in operands))
        return True
    if module in ("zipfile", "tarfile") and rest[:1] in (["-c"], ["--create"]):
        f.write(*rest[1:2])
        f.read_tree(*rest[2:])
        return True
    return False


#: Interpreter options that print and exit before any program is read.
_NO_PROGRAM = words("-v -V --version -h --help -help -? --print-config")


def _venv(f: Facts, args: Sequence[str]) -> None:
    """`python -m venv [--clear] DIR`, `uv venv [--clear] [DIR]`, `virtualenv DIR`:
    DIR is made, and with --clear (or `--allow-existing` not given to uv) emptied first."""
    operands, options = split_options(args, words("-p --python --prompt --seed --index-url"))
    targets = operands or ([".venv"] if f.cmd.name == "uv" else [])
    f.write_tree(*targets)
    if has_option(options, "--clear"):
        f.delete(*targets)
        f.recursive = True


def _uv(f: Facts) -> None:
    """uv: `uv venv` makes an environment, `uv pip` is pip, the rest installs or runs
    the project's own code."""
    operands, _ = split_options(f.cmd.args, words("-p --python --directory --project"))
    f.subcommand = operands[0] if operands else ""
    if f.subcommand == "venv":
        _venv(f, list(f.cmd.args)[list(f.cmd.args).index("venv") + 1 :])
    elif f.subcommand == "pip":
        network.pip(f, list(f.cmd.args)[list(f.cmd.args).index("pip") + 1 :])
        f.subcommand = "pip"
    else:
        _default(f)


#: Bytes of code one line may have read (`reading_code`): reading is a few µs a byte.
MAX_CODE_BYTES = _shell.MAX_CODE_BYTES
_code_budget = threading.local()


class CodeLimit(Exception):
    """A line holds more code than `MAX_CODE_BYTES` to read: its analysis gives up."""


@contextlib.contextmanager
def reading_code(limit: int = MAX_CODE_BYTES) -> Iterator[list[int]]:
    """Within the block, the code read for commands (interpreter one-liners, code in
    arguments, files written then run) adds up to at most `limit` bytes; past it,
    `CodeLimit` is raised. Yields the bytes left (a one-item list). Blocks nest:
    each line has a budget of its own."""
    outer = getattr(_code_budget, "left", None)
    left = [limit]
    _code_budget.left = left
    try:
        yield left
    finally:
        _code_budget.left = outer


def _inspect(language: str, text: str) -> CodeFacts:
    from policy.analysis import code as _code  # only lines with interpreter code need it

    left: list[int] | None = getattr(_code_budget, "left", None)
    if left is not None:
        if len(text) > left[0]:
            raise CodeLimit(
                f"the line has more than {MAX_CODE_BYTES} bytes of code to read "
                "(cap: analysis.max_code_bytes)"
            )
        left[0] -= len(text)
    return _code.inspect(language, text)


def _take_code(f: Facts, language: str, text: str, facts: CodeFacts | None = None) -> None:
    if facts is None:
        facts = _inspect(language, text)
    f.scripts += facts.scripts
    f.argvs += facts.argvs
    if facts.hidden:
        f.hide(facts.hidden)
    if facts.network:
        f.network = True
        f.hosts += facts.hosts
        if facts.paths:
            f.sends.extend(f.at(p) for p in facts.paths)
    f.read(*facts.paths)
    f.read(*facts.reads_from)
    f.write(*facts.writes_to)
    if facts.writes:
        f.write(*facts.paths)
        if not facts.paths:
            f.writes.append(UNKNOWN + "/" + f"(a file {language} code names at run time)")
    if facts.deletes:
        if facts.paths:
            f.delete(*facts.paths)
        else:
            f.deletes.append(UNKNOWN + "/" + f"(a file {language} code names at run time)")
            f.writes.append(f.deletes[-1])
        f.recursive = f.recursive or facts.recursive
    if facts.forks:
        f.forks = True
    if facts.privileged:
        f.privileged = True
    if facts.env_dump:
        f.reads.append("/proc/self/environ")
    f.variables += facts.variables


def _shell_program(f: Facts) -> None:
    """A shell with a script file (`bash x.sh`) or reading standard input; scripts
    given with -c are parsed by the shell analysis itself."""
    mode, script = _shell._shell_script(list(f.cmd.args))
    if "xargs" in f.cmd.wrappers and mode == "stdin" and f.cmd.dynamic:
        mode, script = "file", _shell._UNKNOWN  # xargs hands it the files to run
    if mode == "file" and script is not None:
        if "xargs" in f.cmd.wrappers and script == _shell._UNKNOWN:
            pass  # the files it is handed are project scripts, as `./x.sh` is
        elif _shell._UNKNOWN in script:
            f.hide("the shell runs a script named by a variable or substitution")
        elif script in ("/dev/stdin", "/proc/self/fd/0"):
            f.runs_stdin = f.cmd.stdin is None
        else:
            f.runs_files.append(f.at(script))
            f.read(script)
    elif mode == "stdin" and f.cmd.stdin is None:
        f.runs_stdin = True
    elif mode == "c" and script is None:
        f.hide("the shell runs a script from a variable or substitution")
    elif mode == "c" and isinstance(script, str) and _shell._UNKNOWN in script:
        f.hide("part of the shell's script comes from a variable or substitution")
    for option in ("--rcfile", "--init-file"):
        if option in f.cmd.args:
            f.hide(f"{f.cmd.name} {option} runs a file first")
    flags = "".join(a[1:] for a in f.cmd.args if re.fullmatch(r"-[A-Za-z]+", a) and a != "-c")
    if "p" in flags and f.cmd.name in ("sh", "bash", "dash", "ash", "ksh", "mksh", "zsh"):
        f.privileged = True  # `bash -p`: keeps a setuid owner's privileges
    if mode == "stdin" and f.cmd.stdin is None and (f.cmd.pipe[1] == 0 or "i" in flags):
        f.hide(f"{f.cmd.name} starts an interactive shell")


def _source(f: Facts) -> None:
    operands = [a for a in f.cmd.args if not a.startswith("-")]
    if not operands:
        return
    script = operands[0]
    if _shell._UNKNOWN in script:
        f.hide("source runs a file named by a variable or substitution")
        return
    if script in ("/dev/stdin", "/proc/self/fd/0"):
        f.runs_stdin = f.cmd.stdin is None
        return
    f.runs_files.append(f.at(script))
    f.read(script)


def _eval(f: Facts) -> None:
    if any(_shell._UNKNOWN in a for a in f.cmd.args):
        f.hide("eval runs code built at run time")


def xargs_note(f: Facts, upstream: Sequence[str] | None) -> None:
    """A program under xargs gets more operands from standard input: the files the
    commands before it in the pipeline read or list (`find . -name x | xargs rm`
    deletes below `.`), else files nobody can name here (`cat list | xargs rm -rf`)."""
    if "xargs" not in f.cmd.wrappers or f.cmd.fed:
        return
    if upstream:
        named = [p for r in upstream for p in (r, r.removesuffix("/**") + "/**")]
    else:
        named = [UNKNOWN + "/(operands from standard input)"]
    if f.deletes or f.cmd.name in ("rm", "shred", "unlink", "rmdir", "srm"):
        f.deletes += named
        f.writes += named
    elif f.cmd.name in _WRITERS:
        f.writes += named
    else:
        f.reads += named


def _script(f: Facts) -> None:
    """`script -c CMD` is parsed by the shell analysis; without -c it starts a shell."""
    operands, options = split_options(f.cmd.args, words("-c --command -t --timing -T -I -O -B -E"))
    if not has_option(options, "-c", "--command"):
        f.hide("script starts an interactive shell")
    f.write(*operands[:1])  # the typescript file


def _dos2unix(f: Facts) -> None:
    """dos2unix/unix2dos rewrite their files in place, or IN OUT pairs with -n."""
    operands, options = split_options(f.cmd.args, words("-c --convmode"))
    if has_option(options, "-n", "--newfile"):
        f.read(*operands[0::2])
        f.write(*operands[1::2])
    else:
        f.write(*operands)


def _pipx(f: Facts) -> None:
    """`pipx run SCRIPT.py` runs that file (a package name otherwise)."""
    operands, _ = split_options(f.cmd.args, words("--spec --python --pip-args --index-url"))
    f.subcommand = operands[0] if operands else ""
    if f.subcommand == "run" and len(operands) > 1:
        target = operands[1]
        if target.endswith(".py") or "/" in target:
            f.runs_files.append(f.at(target))
            f.read(target)
    if f.subcommand in ("install", "run", "inject", "upgrade"):
        f.network = True


def _nmap(f: Facts) -> None:
    f.network = True
    operands, options = split_options(
        f.cmd.args, words("-iL -iR -p -oN -oX -oG -oA -oS --script --script-args -e -S -D")
    )
    f.hosts += [o for o in operands if not o.isdigit()][:1]
    f.read(*option_values(options, "-iL"))
    f.write(*option_values(options, "-oN", "-oX", "-oG", "-oS"))
    for value in option_values(options, "--script"):
        for script in value.split(","):
            if "/" in script or script.endswith((".nse", ".lua")):
                # a Lua file of the project: read when the line writes it, else it
                # runs code nobody sees (nmap is no project runner)
                f.runs_files.append(f.at(script))
                f.read(script)
                f.hide(f"nmap runs the NSE script {script}, which the policy does not read")


def _tcpdump(f: Facts) -> None:
    """tcpdump: `-r F` and `-F F` read, `-w F` writes; `-z CMD` runs CMD on each file
    it saves (a program path: code nobody sees unless the line writes it)."""
    _, options = split_options(
        f.cmd.args,
        words("-r -w -F -V -z -Z -i -c -C -G -W -s -B -E -M -T -y -j --time-stamp-type"),
    )
    f.read(*option_values(options, "-r", "-F", "-V"))
    saved = option_values(options, "-w")
    f.write(*saved)
    for program in option_values(options, "-z"):
        if "/" in program:
            f.runs_files.append(f.at(program))
            f.read(program)
            f.hide(f"tcpdump -z runs {program} on every file it saves")
        else:
            f.argvs.append([program, *(saved[:1] or ["capture"])])


_TWISTD_VALUES = words(
    "-l --logfile --pidfile -d --rundir -u --uid -g --gid --umask --logger -r --reactor "
    "-y --python -s --source -f --file -p --profile --profiler --chroot"
)


def _twistd(f: Facts) -> None:
    """twistd: `web --path DIR` and `ftp --root DIR` serve DIR to whoever connects (a
    file server, network.file_server); `-y F` / `--python F` runs a Python file; a
    plugin it does not know runs code nobody sees."""
    args = list(f.cmd.args)
    operands, options = split_options(args, _TWISTD_VALUES)
    for script in option_values(options, "-y", "--python", "-s", "--source", "-f", "--file"):
        f.runs_files.append(f.at(script))
        f.read(script)
    f.write(*option_values(options, "-l", "--logfile", "--pidfile"))
    plugin = operands[0] if operands else ""
    rest = args[args.index(plugin) + 1 :] if plugin else []
    _, plugin_options = split_options(rest, words("--path -p --port -r --root --listen --wsgi"))
    if plugin == "web":
        roots = option_values(plugin_options, "--path")
        if roots or not has_option(plugin_options, "--wsgi", "--resource-script", "--class"):
            network.file_server(f, roots[-1] if roots else None)
        else:
            f.network = True
            f.hide("twistd web runs an application it is given")
    elif plugin == "ftp":
        roots = option_values(plugin_options, "-r", "--root")
        network.file_server(f, roots[-1] if roots else "/usr/local/ftp", writable=True)
    elif plugin in ("conch", "telnet", "manhole", "procmon", "portforward", "socks", "inetd"):
        f.network = True
        f.hide(f"twistd {plugin} runs programs for whoever connects")
    elif plugin:
        f.network = True


_MOUNT_TYPES = ("bind", "volume", "")


def _container(f: Facts) -> None:
    """docker, podman, nerdctl: a bind mount (`-v SRC:DST`, `--mount
    type=bind,source=SRC`) hands the container SRC and everything below it, to read
    and (unless `:ro` / `readonly`) to write: judged as access to `SRC/**`, so a
    mount of a directory that holds the home's keys or the policy is judged as
    reading and writing them."""
    network.HANDLERS["docker"](f)
    if f.subcommand not in ("run", "create", "container", "compose"):
        return
    _, options = split_options(list(f.cmd.args), _CONTAINER_VALUES)
    for mount in option_values(options, "-v", "--volume", "--mount"):
        if "type=" in mount or "source=" in mount or "src=" in mount:
            parts = dict(p.partition("=")[::2] for p in mount.split(","))
            if parts.get("type", "") not in _MOUNT_TYPES:
                continue
            source = parts.get("source") or parts.get("src") or ""
            readonly_ = "readonly" in parts or "ro" in parts or parts.get("readonly") == "true"
        else:
            source, _, rest = mount.partition(":")
            readonly_ = rest.rsplit(":", 1)[-1].split(",").count("ro") > 0 and ":" in rest
        if not source or not source.startswith(("/", "~", ".", "$")):
            continue  # a named volume
        if _shell._UNKNOWN in source:
            f.hide(f"{f.cmd.name} mounts a host directory named at run time")
            continue
        f.read_tree(source)
        if not readonly_:
            f.write_tree(source)


_CONTAINER_VALUES = words(
    "-v --volume --mount -e --env -p --publish -w --workdir --name -u --user --network --net "
    "--entrypoint -l --label --env-file --platform --pid --ipc --uts --userns --cap-add "
    "--cap-drop --device --security-opt -h --hostname --add-host --dns -m --memory --cpus "
    "--restart --log-driver --log-opt --tmpfs --volumes-from --ulimit --gpus --runtime "
    "--shm-size --stop-signal --health-cmd --mount-propagation -a --attach --cidfile"
)


def _ps(f: Facts) -> None:
    """`ps e`, `ps auxe`, `ps eww`: BSD-style `e` prints every process's environment."""
    for arg in f.cmd.args:
        if not arg.startswith("-") and re.fullmatch(r"[A-Za-z]+", arg) and "e" in arg:
            f.reads.append("/proc/*/environ")


def _getent(f: Facts) -> None:
    database = next((a for a in f.cmd.args if not a.startswith("-")), "")
    if database in ("shadow", "gshadow"):
        f.reads.append("/etc/" + database)


def _systemctl(f: Facts) -> None:
    operands, _ = split_options(
        f.cmd.args,
        words("-H --host -M --machine -p --property -t --type -s --signal"),
    )
    f.subcommand = operands[0] if operands else ""


def _crontab(f: Facts) -> None:
    operands, options = split_options(f.cmd.args, words("-u"))
    if has_option(options, "-l"):
        f.reads.append("/var/spool/cron")
        return
    f.writes.append("/var/spool/cron")
    f.read(*operands)
    if has_option(options, "-r"):
        f.deletes.append("/var/spool/cron")


#: Build and task runners whose build file holds command lines (`_make`).
_BUILD_TOOLS = words("make gmake bmake pmake ninja just task go-task")
#: Their options that take a value, and those that name the build file.
_BUILD_VALUES = words(
    "-C --directory -f --file --makefile -I --include-dir -j --jobs -l --load-average -o "
    "--old-file -W --what-if --eval -E --justfile -d --working-directory -c --command "
    "--shell --shell-arg --dotenv-path --dotenv-filename -t --taskfile --dir --output"
)
_BUILD_FILE_OPTIONS = {
    "just": ("-f", "--justfile"),
    "task": ("-t", "--taskfile"),
    "go-task": ("-t", "--taskfile"),
}


def _make(f: Facts) -> None:
    """make, ninja, just, task: run the project's own recipes (not judged here);
    `-C DIR` says where. A build file from standard input or a substitution
    (`make -f -`, `just --justfile /dev/stdin`, `make -f <(...)`) is code from
    elsewhere: its recipes are read when its text is known, else asked about."""
    name = f.cmd.name
    _, options = split_options(f.cmd.args, _BUILD_VALUES)
    directory = option_values(options, "-C", "--directory", "-d", "--working-directory", "--dir")
    if directory:
        f.read(directory[-1])
    named = _BUILD_FILE_OPTIONS.get(name, ("-f", "--file", "--makefile"))
    makefiles = option_values(options, *named)
    f.read(*(m for m in makefiles if _shell._UNKNOWN not in m))
    if name not in ("task", "go-task", "just") and has_option(options, "--eval", "-E"):
        f.hide(f"{name} --eval runs make code it is given")
    if name == "just":
        f.scripts += option_values(options, "-c", "--command")  # run in the recipes' env
        if has_option(options, "--shell"):
            f.hide("just --shell runs the recipes with a program it is given")
    for makefile in makefiles:
        if makefile == "-" or makefile in _shell._STDIN_FILES:
            if f.cmd.stdin is not None:
                _recipes(f, f.cmd.stdin)
            else:
                f.runs_stdin = True
        elif _shell._UNKNOWN in makefile or makefile.startswith("/dev/fd/"):
            f.hide(f"{name} runs recipes from a build file made at run time")


def _recipes(f: Facts, text: str) -> None:
    """A build file's recipes: make's tab-indented lines, just's indented ones, a
    Taskfile's `cmds:` items (also as a flow list, `cmds: [a, b]`) and quoted command
    strings; a ninja file's `command =` lines."""
    if f.cmd.name in ("ninja", "samu"):
        _ninja(f, text)
        return
    take_manifest(f, text)
    for line in text.splitlines():
        if not line[:1].isspace():
            continue
        command = re.sub(r"^\s*(?:-\s+)?(?:cmd:\s*)?[@-]*", "", line).strip().strip("'\"")
        listed = _FLOW_LIST.match(command)
        if listed:
            f.scripts += [c.strip().strip("'\"") for c in listed[1].split(",") if c.strip()]
        elif command and not _NOT_A_RECIPE.match(command):
            f.scripts.append(command)


_FLOW_LIST = LazyPattern(r"^(?:cmds|cmd|run|deps):\s*\[(.*)\]\s*$")


_NOT_A_RECIPE = LazyPattern(r"^(?:[\w-]+:\s*$|#|cmds:|deps:|desc:|vars:|env:|dir:)")


#: Programs that pass the lines they are given on, whole, adding none of their own.
_PASS_LINES = frozenset({"sort", "uniq", "cat"})
#: Name words that say a variable holds a secret, and the beginnings of names known
#: to hold one (a cloud's, a forge's, a registry's): a filter whose prefix is, holds,
#: or may grow into one of them keeps secrets. (rules/credentials.yaml's `secret_name`
#: judges one name; a prefix is judged on every name it may begin.)
_SECRET_WORDS = (
    "SECRET PASSWORD PASSWD PASSPHRASE PASS PWD TOKEN CREDENTIAL CRED COOKIE BEARER DSN "
    "PAT APIKEY API KEY PRIVATE ACCESS SIGNING CLIENT SESSION AUTH AUTHORIZATION "
    "DATABASE CONN CONNECTION HISTFILE"
).split()
_SECRET_INSIDE = LazyPattern(r"SECRET|PASSW|TOKEN|APIKEY|API_KEY|PRIVATE|CREDENTIAL|AUTH")
_SECRET_NAMESPACES = (
    "AWS AZURE ARM_ GCP GOOGLE GCLOUD CLOUDSDK GITHUB GH_ GITLAB GL_ BITBUCKET OPENAI "
    "ANTHROPIC CLAUDE HF_ HUGGING COHERE MISTRAL GROQ REPLICATE GEMINI STRIPE SLACK "
    "TWILIO SENDGRID MAILGUN DATADOG DD_ SENTRY NPM_ YARN PYPI TWINE DOCKER REGISTRY "
    "VAULT CONSUL NOMAD TF_ TERRAFORM HEROKU VERCEL NETLIFY CLOUDFLARE CF_ DIGITALOCEAN "
    "DO_ LINODE FLY_ SUPABASE FIREBASE MONGO PG POSTGRES MYSQL REDIS DB_ SMTP MAIL JWT "
    "OAUTH SSH GPG GNUPG KUBE K8S CI_ ACTIONS_ RUNNER CODECOV COVERALLS SONAR SNYK JIRA "
    "ATLASSIAN NGROK PULUMI DOPPLER INFISICAL OP_ BW_ ALGOLIA MAPBOX SHOPIFY PAYPAL "
    "BRAINTREE SQUARE AUTH0 OKTA CLERK NEXTAUTH"
).split()
#: A filter's pattern that keeps lines by the name they begin with: `^NODE_`,
#: `^(NODE|PYTHON)_`, `^HOME=`; group 1 or 2 the names, 3 what follows them, 4 `=`.
_NAME_FILTER = LazyPattern(
    r"\^(?:\\?\(((?:\w+\\?\|)*\w+)\\?\)|(\w+))(\w*)(=)?(?:\.\*|\.\+)?"
)
_GREP_KEEPS = frozenset(
    "-i -y -E -G -P -o -w -x -c -q -s -h -H -n -m -e --ignore-case --extended-regexp "
    "--basic-regexp --perl-regexp --only-matching --word-regexp --line-regexp --count "
    "--quiet --silent --no-messages --line-number --no-filename --with-filename "
    "--max-count --regexp --color --colour -S --smart-case -N --no-line-number "
    "--case-sensitive -s".split()
)
_SED_QUIET = frozenset({"n", "nE", "En", "nr", "rn"})
_SED_PRINT = LazyPattern(r"/([^/]*)/p")
_AWK_PRINT = LazyPattern(r"/([^/]*)/\s*(?:\{\s*print(?:\s+\$\d+(?:\s*,\s*\$\d+)*)?\s*;?\s*\})?")


def env_filtered(dump: Facts, after: Sequence[Facts]) -> bool:
    """The environment `dump` prints (`env`, `printenv`, `set`) reaches only a filter
    that keeps variables by a name prefix no secret's name may begin with
    (`env | grep -i ^node_`, `printenv | sort | grep '^PYTHON'`): what is printed holds
    no secret, so it is not a read of the environment. Anything else (`grep -v`,
    `grep key`, `head`, `tee`, a redirect) keeps the dump."""
    if dump.cmd.name not in ("env", "printenv", "set"):
        return False
    if any(not r.startswith("2>") for r in dump.cmd.redirects):
        return False
    for stage in after:
        if stage.cmd.name in _PASS_LINES:
            if stage.reads or stage.writes or stage.hidden or any(
                not r.startswith("2>") for r in stage.cmd.redirects
            ):
                return False
            continue
        return _keeps_names(stage)
    return False


def _keeps_names(stage: Facts) -> bool:
    """`stage` (grep, rg, sed -n, awk) prints only lines of `NAME=...` whose NAME
    begins with a prefix `_safe_prefix` accepts."""
    name, args = stage.cmd.name, list(stage.cmd.args)
    if stage.hidden:
        return False
    if name in ("grep", "egrep", "rg"):
        if stage.reads:
            return False
        patterns: list[str] = []
        operands: list[str] = []
        index = 0
        while index < len(args):
            arg = args[index]
            option, eq, value = arg.partition("=")
            if arg == "--":
                operands += args[index + 1 :]
                break
            if not arg.startswith("-") or arg == "-":
                operands.append(arg)
            elif arg.startswith("--"):
                if option not in _GREP_KEEPS:
                    return False
                if option in ("--regexp", "--max-count") and not eq:
                    value = args[index + 1] if index + 1 < len(args) else ""
                    index += 1
                if option == "--regexp":
                    patterns.append(value)
            else:
                for position, letter in enumerate(arg[1:], 1):
                    if "-" + letter not in _GREP_KEEPS:
                        return False
                    if letter in "em":
                        value = arg[position + 1 :]
                        if not value:
                            value = args[index + 1] if index + 1 < len(args) else ""
                            index += 1
                        if letter == "e":
                            patterns.append(value)
                        break
            index += 1
        if not patterns:
            patterns, operands = operands[:1], operands[1:]
        return bool(patterns) and all(o == "-" for o in operands) and all(
            _safe_filter(p) for p in patterns
        )
    if name == "sed":
        flags = {a.lstrip("-") for a in args if a.startswith("-")}
        scripts = [a for a in args if not a.startswith("-")]
        # `-n` (print only what `p` picks), with at most `-E`/`-r` beside it
        if not flags & _SED_QUIET or flags - _SED_QUIET - {"E", "r"}:
            return False
        found = _SED_PRINT.fullmatch(scripts[0]) if len(scripts) == 1 else None
        return found is not None and _safe_filter(found[1])
    if name in ("awk", "gawk", "mawk"):
        rest = [a for a in args if not (a.startswith("-F") or a == "--")]
        if len(rest) != 1 and not (len(rest) == 2 and args[args.index(rest[0]) - 1] == "-F"):
            return False
        found = _AWK_PRINT.fullmatch(rest[-1].strip())
        return found is not None and _safe_filter(found[1])
    return False


def _safe_filter(pattern: str) -> bool:
    found = _NAME_FILTER.fullmatch(pattern)
    if found is None:
        return False
    names = re.split(r"\\?\|", found[1]) if found[1] else [found[2]]
    return all(_safe_prefix((n + found[3]).upper(), complete=bool(found[4])) for n in names)


def _safe_prefix(prefix: str, *, complete: bool) -> bool:
    """No variable whose name is `prefix` (`complete`) or begins with it holds a
    secret, by its name (`_SECRET_WORDS`, `_SECRET_INSIDE`, `_SECRET_NAMESPACES`)."""
    if _SECRET_INSIDE.search(prefix):
        return False
    words = prefix.split("_")
    ending = "" if complete else words.pop()
    if any(w in _SECRET_WORDS or w.rstrip("S") in _SECRET_WORDS for w in words):
        return False
    if complete:
        return True
    if len(prefix) < 3:
        return False
    # `^TOK`, `^GITHUB_TOK`, `^MYSEC`: the start of a secret word (three letters of it
    # at least, or the whole last part)
    tails = {ending, *(ending[start:] for start in range(1, len(ending) - 2))}
    if ending and any(word.startswith(t) for t in tails for word in _SECRET_WORDS):
        return False
    return not any(prefix.startswith(n) or n.startswith(prefix) for n in _SECRET_NAMESPACES)


def _env_dump(f: Facts) -> None:
    """`env`, `printenv`, `set`, `export -p`, `declare -p`: the whole environment,
    secrets and all, printed; read as /proc/self/environ is."""
    name = f.cmd.name
    args = [a for a in f.cmd.args if a not in ("-0", "--null")]
    if name == "env":
        # `env -u NAME` and `env -C DIR` with no command still print everything
        operands, _ = split_options(args, words("-u --unset -C --chdir -S --split-string"))
        args = operands
    if name == "printenv":
        if not args:
            f.reads.append("/proc/self/environ")
        else:
            f.variables += [a for a in args if not a.startswith("-")]
    elif name == "env":
        if not [a for a in args if not a.startswith("-")]:
            f.reads.append("/proc/self/environ")
    elif name == "set":
        if not args:
            f.reads.append("/proc/self/environ")
    elif name in ("export", "declare", "typeset", "readonly"):
        operands = [a for a in args if not a.startswith("-")]
        flags = "".join(a[1:] for a in args if a.startswith("-"))
        if not operands and (not flags or set(flags) <= set("pxr")):
            f.reads.append("/proc/self/environ")
        elif "p" in flags:
            f.variables += operands  # `declare -p SECRET` prints it


def _ln_handler(f: Facts) -> None:
    _targeted(f, words("-t --target-directory -S --suffix"), link=True)


def _rename(f: Facts) -> None:
    """rename(1), both spellings: perl's `rename [-e] EXPR FILE...` (EXPR is perl code)
    and util-linux's `rename FROM TO FILE...`. Each FILE is moved to a name the
    expression makes; TO is taken as one of them too (which spelling is installed is
    not known here). A moved directory is a deleted one where it was."""
    operands, options = split_options(
        f.cmd.args, words("-e -E --expression --path --filename")
    )
    if has_option(options, "-n", "--no-act", "--dry-run", "--just-print", "-h", "--help"):
        return
    expressions = option_values(options, "-e", "-E", "--expression")
    if not expressions and operands:
        expressions, operands = [operands[0]], operands[1:]
    for expression in expressions:
        if _shell._UNKNOWN in expression:
            f.hide("rename's expression comes from a variable or substitution")
        elif not _PLAIN_RENAME.fullmatch(expression.strip()):
            # perl's rename runs the expression as perl code for each name
            _take_code(f, "perl", expression)
    f.delete(*operands)
    f.write_tree(*operands)
    f.recursive = True
    if not operands and not has_option(options, "-0", "--null"):
        f.reads_from_input = True


#: A rename expression that only edits the name: `s/x/y/g`, `y/a-z/A-Z/`, `tr/ /_/`,
#: or a plain word (util-linux's FROM).
_PLAIN_RENAME = LazyPattern(
    r"(?:s|y|tr)([^\w\s])(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gimsxr]*|[^\s;(){}`$@%&|<>]*"
)


def _mmv(f: Facts) -> None:
    """mmv/mcp/mad/mln FROM TO: every file matching the FROM pattern is moved (mmv,
    `-m`, `-x`, `-r`), copied (mcp, `-c`, `-o`), appended (mad, `-a`) or hard-linked
    (mln, `-l`) to TO, whose `#1`… are the parts FROM's wildcards matched. Pairs come
    from standard input when none is given."""
    operands, options = split_options(f.cmd.args)
    if has_option(options, "-n", "-h"):
        return
    name = f.cmd.name
    mode = {"mcp": "c", "mad": "a", "mln": "l"}.get(name, "m")
    for letter in "mxrcoals":
        if has_option(options, "-" + letter):
            mode = letter
    if len(operands) < 2:
        f.reads_from_input = True
        f.writes.append(UNKNOWN + "/(files mmv is given on standard input)")
        f.deletes.append(f.writes[-1])
        return
    sources = operands[0::2]
    targets = [re.sub(r"#[0-9lu]*[0-9]", "*", t) for t in operands[1::2]]
    if mode in "mxr":
        f.delete(*sources)
        f.recursive = True
    if mode == "l":
        f.write(*sources)  # a hard link (see `_targeted`)
    f.read(*sources)
    f.write(*targets)


def _cp_handler(f: Facts) -> None:
    _targeted(
        f,
        words(
            "-t --target-directory -S --suffix --backup --sparse --reflink --preserve --no-preserve"
        ),
    )


def _mv_handler(f: Facts) -> None:
    _targeted(f, words("-t --target-directory -S --suffix"), move=True)


def _install_handler(f: Facts) -> None:
    _targeted(
        f,
        words("-t --target-directory -m --mode -o --owner -g --group -S --suffix --strip-program"),
    )
    if "--strip-program" in " ".join(f.cmd.args):
        f.hide("install --strip-program runs a program")


def _sort(f: Facts) -> None:
    operands, options = split_options(
        f.cmd.args,
        words(
            "-o --output -k --key -t --field-separator -S --buffer-size -T "
            "--temporary-directory --parallel --files0-from --compress-program --batch-size "
            "--random-source"
        ),
    )
    f.read(*operands)
    f.write(*option_values(options, "-o", "--output"))
    f.read(*option_values(options, "--files0-from"))
    if has_option(options, "--compress-program"):
        f.hide("sort --compress-program runs a program")


def _uniq(f: Facts) -> None:
    operands, _ = split_options(
        f.cmd.args, words("-f --skip-fields -s --skip-chars -w --check-chars")
    )
    f.read(*operands[:1])
    f.write(*operands[1:2])


def _split(f: Facts) -> None:
    operands, _ = split_options(
        f.cmd.args,
        words("-a -b -C -l -n -t --filter --additional-suffix"),
    )
    f.read(*operands[:1])
    if len(operands) > 1:
        f.write(operands[1] + "*")
    if "--filter" in " ".join(f.cmd.args):
        f.hide("split --filter runs a program")


def _file(f: Facts) -> None:
    operands, options = split_options(
        f.cmd.args,
        words("-m --magic-file -f --files-from -F --separator -P --parameter -e --exclude"),
    )
    if has_option(options, "-C", "--compile"):
        f.write(
            *(m + ".mgc" for m in option_values(options, "-m", "--magic-file")),
            *(o + ".mgc" for o in operands),
        )
    f.listing(*operands)  # a file's type, not its contents
    f.read(*option_values(options, "-m", "--magic-file", "-f", "--files-from"))


def _du(f: Facts) -> None:
    operands, options = split_options(
        f.cmd.args,
        words(
            "-d --max-depth -B --block-size -t --threshold --exclude -X --exclude-from "
            "--files0-from --time-style"
        ),
    )
    f.listing(*(operands or ["."]))
    # the names in these files are echoed back in du's errors: their contents are read
    f.read(*option_values(options, "--files0-from", "-X", "--exclude-from"))


def _iconv(f: Facts) -> None:
    operands, options = split_options(f.cmd.args, words("-f --from-code -t --to-code -o --output"))
    f.read(*operands)
    f.write(*option_values(options, "-o", "--output"))


#: jq's options and how many words follow each (`--rawfile NAME FILE`).
_JQ_VALUES = {
    "--arg": 2, "--argjson": 2, "--slurpfile": 2, "--rawfile": 2, "-L": 1,
    "--library-path": 1, "--indent": 1, "--from-file": 0,
}  # fmt: skip
#: Where jq's program reaches the environment (`$ENV`, `$ ENV`, `env`; yq's `env(X)`,
#: `strenv(X)`), in its code (`readonly.jq_code`); group 1..4: the one variable named
#: after it (`env.HOME`, `$ENV["HOME"]`, `env(HOME)`), if any.
_JQ_ENV = LazyPattern(
    r"(?:\$\s*ENV\b|(?<![\w.$\"])(?:str)?env\b)"
    r'(?:\s*\.\s*(\w+)|\s*\.\s*"(\w+)"|\s*\[\s*"(\w+)"\s*\]|\s*\(\s*"?(\w+)"?\s*\))?'
)
#: Code jq loads from a search path (`-L`, `~/.jq`, `$ORIGIN/../lib/jq`).
_JQ_MODULES = LazyPattern(r"\b(?:import|include)\b")
#: yq (Go) reads files and evaluates expressions it builds.
_YQ_LOADS = LazyPattern(r"\bload\w*\s*\(")
_YQ_LOAD_LITERAL = LazyPattern(r'\bload\w*\s*\(\s*"([^"\\]*)"\s*\)')
#: The most of `~/.jq` read to judge it: a larger one is code not judged.
_JQ_HOME_BYTES = 65536


def _jq(f: Facts) -> None:
    """jq/yq/gojq/jaq [options] PROGRAM FILES: the files read (and `--rawfile NAME
    FILE`, `--slurpfile`); with `-f` the program is the first operand's file; modules
    (`import`, `include`) are code the policy does not see; a program that
    prints the environment reads it, one variable of it names that variable; yq `-i`
    writes."""
    args = list(f.cmd.args)
    operands: list[str] = []
    from_file = False
    index = 0
    while index < len(args):
        arg = args[index]
        option, eq, _ = arg.partition("=")
        if arg == "--":
            operands += args[index + 1 :]
            break
        if arg in ("--args", "--jsonargs"):
            operands += [] if operands else args[index + 1 :][:1]  # the program, if not yet
            break
        if arg.startswith("--"):
            if option in ("--slurpfile", "--rawfile") and not eq and index + 2 < len(args):
                f.read(args[index + 2])
            from_file = from_file or option == "--from-file"
            index += 1 + (0 if eq else _JQ_VALUES.get(option, 0))
            continue
        if arg.startswith("-") and arg != "-":
            letters = arg[1:]
            from_file = from_file or "f" in letters.split("L", 1)[0]
            index += 2 if letters.endswith("L") else 1  # `-L DIR`
            continue
        operands.append(arg)
        index += 1
    program = operands[0] if operands else ""
    files = operands[1:]
    if from_file:
        # jq code can print the environment but not run programs: a program file is
        # read, and never read-only (`readonly`), so the host's own prompt decides
        f.read(*operands[:1])
    name = f.cmd.name
    if name == "yq" and any(a in ("-i", "--inplace") or a.startswith("-i") for a in args):
        f.write(*files)
    else:
        f.read(*files)
    if from_file or not program:
        return
    code = readonly.jq_code(program)
    for found in _JQ_ENV.finditer(code):
        variable = next((g for g in found.groups() if g), None)
        if variable is None:
            f.reads.append("/proc/self/environ")
        else:
            f.variables.append(variable)
    if _JQ_MODULES.search(code):
        f.hide(f"{name} loads modules the policy cannot see")
    if name == "yq":
        loads = _YQ_LOAD_LITERAL.findall(program)
        f.read(*loads)
        if len(_YQ_LOADS.findall(code)) > len(loads) or re.search(r"\beval\s*\(", code):
            f.hide("yq loads a file or evaluates an expression it builds")


def jq_home_code(home: str, assignments: Sequence[str] = ()) -> str:
    """Why a jq run by a user whose home is `home` runs code the policy has not seen
    ("" if it does not): jq sources `$HOME/.jq` when it is a file, before the program
    it is given (`def length: $ENV;` makes `jq length f.json` dump the environment).
    Read (as the caller could, `viewer.may_read`) and judged like a program; a HOME
    set for the command is a home nobody looked at."""
    import os

    from policy.analysis.viewer import may_read

    if any(a.startswith("HOME=") for a in assignments):
        return "jq runs the .jq file of a HOME set for it, which the policy has not read"
    if not home.startswith("/"):
        return ""
    path = posixpath.join(home, ".jq")
    try:
        if not os.path.isfile(path) or not may_read(path):
            return ""
        with open(path, "rb") as stream:
            text = stream.read(_JQ_HOME_BYTES + 1)
    except OSError:
        return ""
    code = readonly.jq_code(text.decode("utf-8", "replace"))
    if len(text) > _JQ_HOME_BYTES or _JQ_ENV.search(code) or _JQ_MODULES.search(code):
        return "jq runs ~/.jq, whose code reaches past its input"
    return ""


_FD_TAKES = words(
    "-e --extension -t --type -d --max-depth --min-depth --exact-depth -E --exclude -c "
    "--color -j --threads -S --size --changed-within --changed-before --owner "
    "--base-directory --path-separator --max-results --search-path --ignore-file "
    "--batch-size --format"
)


def _fd(f: Facts) -> None:
    """fd lists what it finds; with `-x`/`-X` the command it runs reads each: fd's own
    facts then hold those files as `PLACE/**/GLOB`, its pattern (a regular expression
    searched in the name, or with `-g` a glob) and `-e` extensions told as a glob, so
    `fd -H .env -x cat` reads every `.env` below."""
    _reads_or_cwd(f)
    args = list(f.cmd.args)
    at = next(
        (
            i
            for i, a in enumerate(args)
            if a in ("-x", "--exec", "-X", "--exec-batch")
            or a.startswith(("--exec=", "--exec-batch="))
        ),
        None,
    )
    if at is None:
        return
    operands, options = split_options(args[:at], _FD_TAKES)
    pattern = operands[0] if operands else ""
    places = operands[1:] + option_values(options, "--search-path") or ["."]
    if has_option(options, "-p", "--full-path"):
        name = "*"
    elif has_option(options, "-g", "--glob"):
        name = pattern or "*"
    elif has_option(options, "-F", "--fixed-strings"):
        name = f"*{pattern}*" if pattern else "*"
    else:
        name = (readonly.regex_glob(pattern) if pattern else "*") or "*"
    globs = [name]
    extensions = option_values(options, "-e", "--extension")
    if extensions:
        globs = [_with_extension(name, e.lstrip(".")) for e in extensions]
    for place in places:
        base = place.rstrip("/") or "/"
        f.read(*(base + "/**/" + g for g in globs if g))


def _with_extension(name: str, extension: str) -> str:
    """The names `name` (a glob) admits that end `.extension`, as a glob ("" if none
    is told): `*env*` -> `*env*.py`."""
    if name.endswith("*"):
        return name + "." + extension
    return name if name.lower().endswith("." + extension.lower()) else ""


def _ls_like(f: Facts) -> None:
    _reads_or_cwd(f)
    if f.cmd.name == "tree":
        _, options = split_options(f.cmd.args, words("-o -L -P -I -H -T --charset --fromfile"))
        f.write(*option_values(options, "-o"))  # tree -o FILE writes the listing there
        if has_option(options, "-R") and has_option(options, "-H"):
            f.write_tree(*([o for o in f.cmd.args if not o.startswith("-")][:1] or ["."]))


def _xxd(f: Facts) -> None:
    """xxd [options] [INFILE [OUTFILE]]: OUTFILE is written (`xxd -r -p IN OUT`)."""
    operands, _ = split_options(f.cmd.args, words("-c -g -l -s -o -n -C -cols -len -seek"))
    f.read(*operands[:1])
    f.write(*operands[1:2])


SUBCOMMANDS = words(
    "npm pnpm yarn bun pip pip3 docker podman kubectl systemctl cargo go apt "
    "apt-get brew gh aws gcloud az terraform helm launchctl service conda poetry uv "
    "pipx gem bundle composer dotnet rustup nvm sqlite3 redis-cli policy journalctl "
    "crontab hookpolicy dnf yum snap flatpak mise asdf deno code claude codex cursor nix"
)


PRIVILEGED = words(
    "sudo doas su pkexec run0 runuser sudoedit visudo newgrp sg chroot nsenter "
    "setpriv unshare machinectl setuidgid envuidgid"
) | {"systemd-run --uid"}


_WRITERS = words("rm mv cp ln chmod chown chgrp touch tee truncate shred mkdir install dd sed perl")


_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "grep": words(
        "-e --regexp -f --file -A -B -C -m --max-count --label --include --exclude "
        "--exclude-dir --exclude-from -d --directories -D --devices --color --colour "
        "--binary-files --context --after-context --before-context --group-separator"
    ),
    "rg": frozenset(
        {
            "-e",
            "--regexp",
            "-f",
            "--file",
            "-A",
            "-B",
            "-C",
            "-m",
            "--max-count",
            "-g",
            "--glob",
            "--iglob",
            "-t",
            "--type",
            "-T",
            "--type-not",
            "--type-add",
            "--pre",
            "--pre-glob",
            "-j",
            "--threads",
            "-M",
            "--max-columns",
            "--max-depth",
            "--max-filesize",
            "-r",
            "--replace",
            "--sort",
            "--sortr",
            "--color",
            "--colors",
            "-E",
            "--encoding",
            "--engine",
            "--ignore-file",
            "--path-separator",
            "--context-separator",
            "--field-match-separator",
            "--field-context-separator",
            "-d",
            "--dfa-size-limit",
            "--regex-size-limit",
            "--hostname-bin",
            "--hyperlink-format",
            "--generate",
            "-l",
        }
        - {"-l"}
    ),
    "tar": words(
        "-f --file -C --directory -T --files-from -X --exclude-from -I "
        "--use-compress-program -F --info-script --new-volume-script --to-command "
        "--rsh-command -b --blocking-factor -H --format -K --starting-file -N --newer "
        "-L --tape-length --exclude --transform --xform --owner --group --mode --mtime "
        "-V --label"
    ),
    "ls": words(
        "-I --ignore -w --width -T --tabsize --block-size --color --format --hide "
        "--hyperlink --indicator-style --quoting-style --sort --time --time-style"
    ),
    "head": words("-n --lines -c --bytes"),
    "tail": words("-n --lines -c --bytes -s --sleep-interval --pid --max-unchanged-stats"),
    "cut": words("-d --delimiter -f --fields -b --bytes -c --characters --output-delimiter"),
    "wc": words("--files0-from"),
    "diff": words(
        "-U --unified -C --context -x --exclude -X --exclude-from -I "
        "--ignore-matching-lines --label -W --width --to-file --from-file -S "
        "--starting-file -F --show-function-line --line-format --palette --color"
    ),
    "tree": words("-L -P -I -o --filelimit --charset --timefmt --sort"),
    "xxd": words("-c -g -l -o -s -n"),
    "od": words("-A -j -N -t -w -S"),
    "touch": words("-d --date -r --reference -t"),
    "date": words("-f --file -d --date -r --reference -I -R --iso-8601 --rfc-3339"),
    "mkdir": words("-m --mode -Z --context"),
    "column": words(
        "-s -o -c -t -N -E -H -R -T -W -d -l --separator --output-separator --table-columns"
    ),
    "nl": words("-b -d -f -h -i -l -n -s -v -w"),
    "base64": words("-w --wrap"),
    "stat": words("-c --format --printf"),
}


#: Which function knows each program's operands.
_PROGRAMS: tuple[tuple[Callable[[Facts], None], str], ...] = (
    (_rm, "rm"),
    (_rmdir, "unlink rmdir"),
    (_delete_all, "shred srm wipe"),
    (_mv_handler, "mv"),
    (_cp_handler, "cp"),
    (_ln_handler, "ln link"),
    (_rename, "rename prename file-rename perl-rename rename.ul renamexm"),
    (_mmv, "mmv mcp mad mln"),
    (_install_handler, "install"),
    (_chmod, "chmod chown chgrp chattr chcon setfacl setcap"),
    (_touch_like, "touch mkdir mkfifo sponge"),
    (_mknod, "mknod"),
    (_truncate, "truncate"),
    (_tee, "tee"),
    (_dd, "dd"),
    (_sed, "sed gsed"),
    (_awk, "awk gawk mawk nawk"),
    (_default, "busybox"),
    (_grep, "grep egrep fgrep zgrep rgrep rg ag ack"),
    (_find, "find"),
    (_tar, "tar bsdtar gtar star"),
    (_zip, "zip unzip bsdunzip"),
    (_archive_other, "7z 7za 7zr 7zz"),
    (_cpio, "cpio bsdcpio"),
    (_pax, "pax"),
    (_dpkg, "dpkg dpkg-deb"),
    (_unrar, "unrar rar"),
    (_ar, "ar"),
    (_unpacker, " ".join(_UNPACKERS)),
    (_gem, "gem"),
    (
        _reads_all,
        "cat tac head tail nl od hexdump strings base64 base32 wc "
        "cut paste join comm cmp md5sum sha1sum sha256sum sha512sum cksum fold fmt "
        "expand column rev bat batcat xclip",
    ),
    (_lists_all, "stat readlink realpath getfacl lsattr"),
    (_editor, "vim vi nvim ex view vimdiff nano emacs ed red"),
    (_sqlite, "sqlite3 sqlite"),
    (_patch, "patch"),
    (_diff, "diff"),
    (_hash, "hash"),
    (_gdb, "gdb lldb"),
    (_net_client, "websocat wscat redis-cli valkey-cli keydb-cli mongosh mongo"),
    (_uv, "uv"),
    (lambda f: _venv(f, list(f.cmd.args)), "virtualenv"),
    (_compressor, "gzip gunzip bzip2 bunzip2 xz unxz zstd unzstd lz4 lzma unlzma"),
    (_xxd, "xxd"),
    (_ddrescue, "ddrescue"),
    (_dd, "dcfldd dc3dd"),
    (_deleter, "rclone gio trash-put trash gvfs-trash kioclient5 srm wipe rimraf del-cli"),
    (_cmake, "cmake"),
    (_btrfs, "btrfs"),
    (_httpd, "httpd"),
    (_pager, "less more most"),
    (_man, "man"),
    (_ls_like, "ls dir tree exa eza"),
    (_fd, "fd fdfind"),
    (_du, "du"),
    (_sort, "sort"),
    (_uniq, "uniq"),
    (_split, "split"),
    (_file, "file"),
    (_iconv, "iconv"),
    (_jq, "jq yq gojq jaq"),
    (
        _nothing,
        "echo printf true false : basename dirname sleep seq yes expr test [ [[ read exit "
        "return shift wait unset local let alias trap cd pushd popd history whoami id uname "
        "hostname which type command pwd nproc uptime tput clear kill pkill killall top "
        "htop jobs bg fg disown shutdown reboot halt poweroff tr watch getopts shopt ulimit "
        "umask bc dc factor numfmt cal stty logname users who arch lscpu free vmstat locale",
    ),
    (_env_dump, "set env printenv export declare typeset readonly"),
    (_source, "source ."),
    (_eval, "eval"),
    (_systemctl, "systemctl"),
    (_ps, "ps"),
    (_pipx, "pipx"),
    (_nmap, "nmap"),
    (_tcpdump, "tcpdump"),
    (_twistd, "twistd twistd3"),
    (_container, "docker podman nerdctl"),
    (_script, "script"),
    (_dos2unix, "dos2unix unix2dos mac2unix unix2mac"),
    (_getent, "getent"),
    (_crontab, "crontab"),
    (_make, "make gmake bmake pmake ninja just task go-task"),
)


#: The programs this module knows itself: its families, the shells, the interpreters.
#: They come before `network`'s and `git`'s of the same name (`docker`, `gem`, ...),
#: whose handlers they call themselves.
_OWN_HANDLERS: dict[str, Callable[[Facts], None]] = {
    name: handler for handler, names in _PROGRAMS for name in names.split()
}


for _shell_name in SHELLS:
    _OWN_HANDLERS[_shell_name] = _shell_program


for _interpreter_name in INTERPRETERS:
    _OWN_HANDLERS[_interpreter_name] = _interpreter


#: Every program name the analysis knows, with its handler (`HANDLERS`): made at the
#: first name this module does not know itself, which imports `network` and `git`.
_all_handlers: dict[str, Callable[[Facts], None]] | None = None


def _handlers() -> dict[str, Callable[[Facts], None]]:
    global _all_handlers
    found = _all_handlers
    if found is None:
        # (two threads may both make it: the tables are the same)
        found = _all_handlers = {**network.HANDLERS, **git.HANDLERS, **_OWN_HANDLERS}
    return found


def __getattr__(name: str) -> Any:
    """`HANDLERS`: every program name the analysis knows, `network`'s and `git`'s
    included, mapped to its handler (PEP 562: made at its first read)."""
    if name == "HANDLERS":
        return _handlers()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _pip(f: Facts) -> None:
    network.HANDLERS["pip"](f)


#: Programs known by the shape of their name: what every such name begins with, the
#: pattern it matches, and the function that knows them.
_FAMILIES: tuple[tuple[tuple[str, ...], LazyPattern, Callable[[Facts], None]], ...] = (
    (_VERSIONED_NAMES, _VERSIONED, _interpreter),
    (("pip",), LazyPattern(r"^pip\d+(?:\.\d+)?$"), _pip),
    (("mkfs", "mke2fs", "mkswap"), LazyPattern(r"^mkfs(?:\..+)?$|^mke2fs$|^mkswap$"), _reads_all),
)


def handler_for(name: str) -> Callable[[Facts], None] | None:
    """The function that knows program `name`, or None."""
    found = _OWN_HANDLERS.get(name)
    if found is None:
        found = _handlers().get(name)
    if found is None:
        for starts, pattern, family in _FAMILIES:
            if name.startswith(starts) and pattern.match(name):
                return family
    return found


def take_input(f: Facts, text: str, path: str = "") -> None:
    """`f` runs `text` (its standard input, or the file `path`, known): a shell's
    commands, an interpreter's code."""
    f.runs_stdin = False
    if _OWN_HANDLERS.get(f.cmd.name) is _editor:
        _editor_commands(f, text.splitlines())
        return
    if f.cmd.name in ("sqlite3", "sqlite"):
        _sqlite_text(f, text)
        return
    if f.cmd.name in _BUILD_TOOLS:
        _recipes(f, text)
        return
    if f.cmd.name in ("gdb", "lldb"):
        _debugger_commands(f, text.splitlines())
        return
    language = language_of(f.cmd.name)
    if not language and path:
        language = _BY_EXTENSION.get(posixpath.splitext(path)[1], "") or _shebang(text)
    if f.cmd.name in SHELLS or language == "shell" or (not language and path):
        f.scripts.append(text)
    elif language:
        _read_code(f, language, text)


def _shebang(text: str) -> str:
    """The language a script's `#!` line names (`#!/usr/bin/env python3`), or ""."""
    if not text.startswith("#!"):
        return ""
    words_ = text[2:].split("\n", 1)[0].split()
    if words_ and posixpath.basename(words_[0]) == "env":
        words_ = [w for w in words_[1:] if not w.startswith("-") and "=" not in w]
    if not words_:
        return ""
    name = posixpath.basename(words_[0])
    return "shell" if name in SHELLS else language_of(name) or "unknown"


def take_file(f: Facts, text: str, path: str) -> None:
    """`f` is handed the file `path`, written in the same line with `text`, and may run
    it: code in the language its name says, else the command strings and code calls
    it holds, and lines that start with a command."""
    language = _BY_EXTENSION.get(posixpath.splitext(path)[1], "")
    if language or f.cmd.name in _BUILD_TOOLS or text.startswith("#!"):
        take_input(f, text, path)  # (a build tool's `-f FILE` is its build file)
        return
    take_manifest(f, text)
    for line in text.splitlines():
        first = line.strip().lstrip("!").split(" ", 1)[0]
        if posixpath.basename(first) in _COMMAND_WORDS or line.lstrip().startswith("!"):
            f.scripts.append(line.strip().lstrip("!"))


#: Programs that only read, copy, compare or list a file they are given: none runs it.
PASSIVE = words(
    "cat tac less more head tail wc diff cmp cp mv rm ln ls stat file chmod chown chgrp "
    "touch sha1sum sha256sum sha512sum md5sum b2sum cksum shasum base64 xxd od hexdump "
    "strings sort uniq cut tr column nl fold fmt tee readlink realpath basename dirname "
    "du df find test [ [[ echo printf git grep egrep fgrep rg ag ack jq yq sed awk gawk "
    "tar zip unzip gzip gunzip xz bzip2 zstd rsync scp install mkdir rmdir shred unlink "
    "truncate dd iconv dos2unix unix2dos diff3 patch vim vi nano emacs code bat"
)


_BY_EXTENSION = {
    ".sh": "shell",
    ".bash": "shell",
    ".py": "python",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
    ".rb": "ruby",
    ".pl": "perl",
    ".php": "php",
    ".lua": "lua",
    ".nse": "lua",
    ".zsh": "shell",
    ".ps1": "powershell",
    ".tcl": "tcl",
}


def take_manifest(f: Facts, text: str) -> None:
    """`f` runs what a manifest written in the same line says: its code (`setup.py`,
    a Vagrantfile's `system("...")`) and its command strings (`package.json` scripts,
    Makefile recipes)."""
    _take_code(f, "generic", text)
    for match in re.finditer(r'"((?:\\.|[^"\\])*)"|\n\t([^\n]+)', text):
        command = match.group(1) or match.group(2) or ""
        if " " in command.strip() and re.match(r"\s*[A-Za-z./~$]", command):
            f.scripts.append(command.replace('\\"', '"'))


# -------------------------------------------------------------- project runners
#
# A project runner loads files of the project and runs them: pytest imports every
# conftest.py and test module, nox its noxfile.py, just its justfile, cargo build.rs,
# jest its jest.config.js, make its Makefile. One runner also runs the others (`make
# test` runs pytest, `npm test` runs jest), so a runner is taken to load any file a
# runner loads, below or above the directory it runs in. A file the same line writes
# with literal text is read as the code it is; one it writes from text the policy
# cannot see runs code nobody sees (`effects._dataflow`). Files written in earlier
# calls are the project's own, out of scope (docs/security.md).

#: Programs that load and run project files (besides interpreters, see `runs_project`).
PROJECT_RUNNERS = words(
    "make gmake bmake pmake ninja samu just task go-task cmake ctest meson muon scons waf "
    "bazel bazelisk buck buck2 pants pytest py.test nox tox unittest nose2 nosetests ward "
    "behave trial green invoke inv fab poe poethepoet pdm hatch rye uv pipenv poetry pip pip3 "
    "pipx django-admin npm npx pnpm pnpx yarn bun bunx deno jest vitest mocha ava tap karma "
    "webpack webpack-cli vite rollup parcel next nuxt nuxi tsc eslint prettier babel gulp "
    "grunt playwright cypress nyc c8 ts-node tsx stylelint postcss tailwindcss astro remix "
    "turbo nx lerna wireit rake bundle gem rails rspec vagrant pod fastlane gradle gradlew "
    "mvn mvnw sbt ant lein cargo go composer phpunit artisan mix dotnet msbuild pre-commit "
    "cross maturin setup.py manage.py"
)
#: `python -m X` modules that are runners.
_RUNNER_MODULES = words(
    "pytest unittest nox tox nose2 invoke fabric poethepoet pdm hatch build pip setuptools "
    "doctest behave trial twisted.trial django"
)
#: What runners load, by file name (lower case: case-insensitive file systems load
#: `JUSTFILE` as `justfile`), and how its text runs.
_RUNNER_FILE_NAMES: dict[str, str] = {
    **dict.fromkeys(
        "makefile gnumakefile justfile .justfile taskfile.yml taskfile.yaml taskfile.dist.yml "
        "taskfile.dist.yaml".split(),
        "recipes",
    ),
    **dict.fromkeys(
        "package.json composer.json deno.json deno.jsonc pyproject.toml setup.cfg tox.ini "
        "pytest.ini cargo.toml .pre-commit-config.yaml pom.xml build.xml turbo.json nx.json "
        "lerna.json project.json bunfig.toml .npmrc .yarnrc .yarnrc.yml build.bazel build "
        "workspace module.bazel .bazelrc".split(),
        "config",
    ),
    **dict.fromkeys(
        "rakefile gemfile vagrantfile podfile fastfile guardfile brewfile capfile".split(), "ruby"
    ),
    **dict.fromkeys("sconstruct sconscript wscript".split(), "python"),
    "cmakelists.txt": "cmake",
    "meson.build": "meson",
    "build.zig": "zig",
    ".envrc": "shell",
}
#: ... and by extension.
_RUNNER_FILE_EXTENSIONS: dict[str, str] = {
    **dict.fromkeys(".py .pyw".split(), "python"),
    **dict.fromkeys(".js .cjs .mjs .ts .cts .mts .jsx .tsx".split(), "node"),
    **dict.fromkeys(".rb .rake .gemspec".split(), "ruby"),
    ".php": "php",
    **dict.fromkeys(".pl .pm".split(), "perl"),
    **dict.fromkeys(".sh .bash .zsh".split(), "shell"),
    **dict.fromkeys(".mk .make".split(), "recipes"),
    ".ninja": "ninja",
    ".rs": "rust",
    ".go": "go",
    ".gradle": "groovy",
    ".kts": "kotlin",
    ".kt": "kotlin",
    ".java": "java",
    ".scala": "scala",
    ".sbt": "scala",
    ".cmake": "cmake",
    ".ex": "elixir",
    ".exs": "elixir",
    ".bzl": "config",
    ".csproj": "config",
    ".targets": "config",
    ".props": "config",
}
#: Config files found by their directory (`.cargo/config.toml`: cargo's aliases,
#: runners and rustc wrappers).
_RUNNER_FILE_PLACES = {".cargo/config": "config", ".cargo/config.toml": "config"}


def runner_file(path: str) -> str:
    """How a project runner runs the file `path` ("" when no runner loads it): a
    language, "recipes" (a build file's command lines), "ninja" or "config" (command
    strings in a manifest or a configuration)."""
    base = posixpath.basename(path).lower()
    found = _RUNNER_FILE_NAMES.get(base)
    if found is None:
        found = _RUNNER_FILE_PLACES.get("/".join(path.lower().rsplit("/", 2)[-2:]), "")
    if not found and "." in base:
        found = _RUNNER_FILE_EXTENSIONS.get(base[base.rindex(".") :], "")
        if base.endswith(".gradle.kts"):
            found = "kotlin"
    return found


def runs_project(f: Facts) -> bool:
    """`f` runs a project runner (or an interpreter, which imports the project's
    modules), directly, as `python -m RUNNER`, or through a package runner (`npx
    jest`, `pnpm exec vitest`, `poetry run pytest`)."""
    name = f.cmd.name
    if name in PROJECT_RUNNERS or name in _PROJECT_LANGUAGES or language_of(name) in (
        "python", "node", "ruby", "php", "perl",
    ):  # fmt: skip
        return True
    if any(w.split(" ", 1)[0] in PROJECT_RUNNERS for w in f.cmd.wrappers):
        return True  # `poetry run x`, `pdm run x`, `npm exec x`: in the project's setting
    operands = [a for a in f.cmd.args if not a.startswith("-")]
    return any(o in PROJECT_RUNNERS or o in _RUNNER_MODULES for o in operands[:2])


_PROJECT_LANGUAGES = words("python python3 node ruby php perl")


def take_runner_file(f: Facts, text: str, path: str) -> None:
    """`f` runs the project file `path`, written in this line with `text`: read as
    the code, build file or configuration it is (`runner_file`)."""
    mode = runner_file(path)
    if mode == "shell":
        f.scripts.append(text)
    elif mode == "recipes":
        _recipes(f, text)
    elif mode == "ninja":
        _ninja(f, text)
    elif mode == "config":
        _config_commands(f, text)
    elif mode == "go":
        # `//go:generate CMD`: `go generate` runs CMD
        f.scripts += [m[1] for m in re.finditer(r"(?m)^//go:generate\s+(.+)$", text)]
        _read_code(f, "go", text)
    elif mode:
        _read_code(f, mode, text)


def _config_commands(f: Facts, text: str) -> None:
    """Command lines in a manifest or configuration (`package.json` scripts, poe
    tasks, tox `commands =`, `.pre-commit-config.yaml` entries, `.cargo/config.toml`
    runners): its quoted strings and the values and continuation lines that start
    with a command."""
    take_manifest(f, text)
    for match in re.finditer(r"'([^'\\\n]*)'", text):
        command = match.group(1)
        if " " in command.strip() and re.match(r"\s*[A-Za-z./~$]", command):
            f.scripts.append(command)
    for line in text.splitlines():
        value = re.sub(r"^\s*(?:-\s+)?(?:[\w.-]+\s*[=:]\s*)?", "", line)
        value = value.strip().strip("'\"[]").lstrip("!")
        first = value.split(" ", 1)[0]
        if first and (posixpath.basename(first) in _COMMAND_WORDS or first.startswith(("/", "./"))):
            f.scripts.append(value)


def _ninja(f: Facts, text: str) -> None:
    """A ninja build file: each rule's `command =` is a shell line (`$in`/`$out` the
    build statement's files, `$$` a dollar, `$ ` a space, `$` at a line's end joins
    the next); a file it includes or loads (`include`, `subninja`) is read."""
    text = re.sub(r"\$\n\s*", "", text)
    bindings: dict[str, str] = {}
    rules: dict[str, str] = {}
    current = ""
    builds: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indented = line[:1].isspace()
        key, equals, value = line.strip().partition("=")
        key, value = key.strip(), value.strip()
        if not indented:
            current = ""
            head = line.split(None, 1)
            if head[0] == "rule" and len(head) > 1:
                current = head[1].strip()
                rules.setdefault(current, "")
            elif head[0] == "build" and len(head) > 1:
                outs, _, rest = head[1].partition(":")
                parts = rest.split()
                rule = parts[0] if parts else ""
                ins = " ".join(p for p in parts[1:] if p not in ("|", "||", "|@"))
                builds.append((rule, outs.strip(), ins))
            elif head[0] in ("include", "subninja") and len(head) > 1:
                f.read(head[1].strip())
            elif equals:
                bindings[key] = value
        elif current and equals and key == "command":
            rules[current] = value
    used = {rule for rule, _, _ in builds}
    runs = [(rules[r], outs, ins) for r, outs, ins in builds if r in rules]
    runs += [(command, "", "") for name, command in rules.items() if name not in used]
    for command, outs, ins in runs:
        command = _NINJA_VARIABLE.sub(
            functools.partial(_ninja_value, {**bindings, "in": ins, "out": outs}), command
        )
        if command.strip():
            f.scripts.append(command)


_NINJA_VARIABLE = LazyPattern(r"\$(\$|\s|:|\{(\w+)\}|(\w+))")


def _ninja_value(known: dict[str, str], match: re.Match[str]) -> str:
    """What ninja puts for `$x` (`$in`, `$out`, a binding), `$$`, `$ ` and `$:`; a
    variable it cannot tell stays a shell variable (unknown)."""
    if match[1] in ("$", " ", ":"):
        return match[1]
    return known.get(match[2] or match[3] or "", "$" + match[1])


#: Subcommands that install packages.
_INSTALLS = words("install localinstall reinstall add i upgrade update")
#: Programs (and subcommands) that fetch a package and run it.
_PACKAGE_RUNNERS = words("uvx npx bunx pnpx")
_PACKAGE_RUN_SUBCOMMANDS = {
    ("pipx", "run"), ("npm", "exec"), ("pnpm", "dlx"), ("yarn", "dlx"), ("deno", "run"),
    ("deno", "install"), ("uv", "tool"), ("bun", "x"), ("pip", "download"), ("nix", "run"),
    ("nix", "shell"), ("nix", "develop"), ("nix", "profile"), ("nix-shell", ""),
}  # fmt: skip


def _fetches_code(cmd: _shell.SimpleCommand, subcommand: str) -> bool:
    """An install or a run of a package named by a URL or a repository (`pip install
    git+https://...`, `uv pip install URL`, `uvx --from git+...`, `npm exec github:x/y`,
    `deno run https://...`): code from the network that runs here."""
    words_ = [a for a in cmd.argv if _shell._UNKNOWN not in a]
    if not any(_shell.remote_spec(w.split("=", 1)[-1]) for w in words_[1:]):
        return _shell.remote_spec(cmd.argv[0]) if cmd.argv else False
    if cmd.name in ("git", "hg", "svn"):
        return False  # a remote is named, nothing is installed
    operands = [a for a in cmd.args if not a.startswith("-")]
    return (
        subcommand in _INSTALLS
        or (
            operands[:1] in (["pip"], ["tool"], ["global"])
            and operands[1:2] != []
            and operands[1] in {*_INSTALLS, "run"}
        )
        or cmd.name in _PACKAGE_RUNNERS
        or (cmd.name, subcommand) in _PACKAGE_RUN_SUBCOMMANDS
    )


#: Options whose value is a command line (or a program) the program runs.
_COMMAND_OPTION = LazyPattern(
    r"^--?(?:[\w-]*-)?(?:exec|execute|command|cmd|hook|shell|script|run|program|pager|editor"
    r"|rsh|proxy-?command|wrapper|sh-exec|conf-script|password-command|askpass|helper"
    r"|on-[\w-]+|shell-escape)$",
    re.IGNORECASE,
)
#: What every match of `_COMMAND_OPTION` holds, lower-cased (`may_hold`).
_COMMAND_OPTION_WORDS = (
    *("exec", "command", "cmd", "hook", "shell", "script", "run", "program", "pager"),
    *("editor", "rsh", "wrapper", "askpass", "helper", "on-"),
)


def _command_option(option: str) -> bool:
    """`_COMMAND_OPTION.match(option)`, its pattern compiled only for an option that
    may match: every option of every command is asked, and most (`-la`) cannot."""
    return (
        option.startswith("-")
        and may_hold(option, _COMMAND_OPTION_WORDS)
        and _COMMAND_OPTION.match(option) is not None
    )


#: Code calls in an argument: `system("...")`, `os.execute(...)`, `execute(...)`.
_CODE_CALL = LazyPattern(
    r"\b(?:system|exec|execute|popen|spawn|os\.execute|io\.popen|execSync|esyscmd|syscmd"
    r"|write18|execute_process|shell_exec|run|fopen|writeFile|readFile)\s*[({]"
    r"|\bnew\s+(?:java\.io\.)?File(?:Writer|OutputStream|Reader|InputStream)\b|ProcessBuilder"
)
#: Programs that, first in an argument of an unknown program, make it a command line.
_COMMAND_WORDS = words(
    "rm rmdir shred dd mkfs mv cp chmod chown cat curl wget nc ncat socat bash sh zsh dash "
    "python python3 perl ruby node php kill pkill killall shutdown reboot halt poweroff "
    "sudo su doas tee crontab ssh scp rsync git find xargs eval exec base64 openssl"
)
#: Programs whose arguments are text, never commands.
_TEXT_ARGUMENTS = words(
    "echo printf git grep egrep fgrep rg ag ack sed awk gawk jq yq cat tee logger notify-send "
    "wall test [ [[ expr"
)


#: A shared library named in an argument (`enable -f x.so`, `curl --engine x.so`,
#: `ssh-keygen -D x.so`, `php -d extension=x.so`): whatever loads it runs its code.
_LIBRARY = LazyPattern(r"\.(?:so(?:\.\d+)*|dylib|dll)$")
#: Programs that handle a library as a file: copy, list, inspect, build, package it.
_LIBRARY_HANDLERS = frozenset(
    "cp mv rm ln ls file nm objdump readelf ldd strip chmod chown chgrp install tar zip "
    "unzip gzip gunzip xz bzip2 zstd sha1sum sha256sum sha512sum md5sum b2sum cksum stat "
    "du cat strings patchelf gcc g++ cc c++ clang clang++ ld ld.lld ld.gold mold ar "
    "ranlib make cmake ninja find rsync scp sftp touch head tail hexdump xxd od diff cmp "
    "git echo printf grep rg egrep fgrep wc test [ otool install_name_tool codesign lipo "
    "upx ldconfig dpkg rpm apt apt-get dnf yum brew pip pip3 cargo go rustc javac jar "
    "docker podman kubectl shasum realpath readlink basename dirname mkdir rmdir shred "
    "unlink truncate dd base64 sort uniq tee less more vim vi nano emacs code".split()
)


def _native_library(args: Sequence[str]) -> str:
    for arg in args:
        if _shell._UNKNOWN in arg:
            continue
        for piece in re.split(r"[=:,]", arg):
            if _LIBRARY.search(piece):
                return piece
    return ""


#: Long options that write a file or run a program, as GNU getopt lets any
#: unambiguous prefix stand for them (`sort --ou=F`, `sort --compress=sh`).
_WRITING_LONG = ("--output", "--output-file", "--log-file", "--outfile")
_RUNNING_LONG = ("--compress-program", "--use-compress-program", "--exec", "--pre")


def _abbreviated_options(f: Facts) -> None:
    """A known program's long option abbreviated past its handler's table."""
    args = f.cmd.args
    for position, arg in enumerate(args):
        if not arg.startswith("--") or _shell._UNKNOWN in arg:
            continue
        name, equals, value = arg.partition("=")
        if len(name) < 4 or name in _WRITING_LONG or name in _RUNNING_LONG:
            continue  # exact names are the handlers' business
        if not equals:
            value = args[position + 1] if position + 1 < len(args) else ""
        if any(full.startswith(name) for full in _WRITING_LONG) and value:
            f.write(value)
        elif any(full.startswith(name) for full in _RUNNING_LONG):
            f.hide(f"{f.cmd.name} {name} (an abbreviation) runs a program")


def _option_paths(f: Facts) -> None:
    """Absolute and home paths in option values a program's handler did not take
    (`dig -f /proc/self/environ`, `nmap -iL ~/.vault-token`): the program may read
    them. A handler knows a program's operands; no table knows every option."""
    taken = {*f.reads, *f.writes, *f.deletes}
    args = f.cmd.args
    for position, arg in enumerate(args):
        if not arg.startswith("-") or len(arg) < 2 or _shell._UNKNOWN in arg:
            continue
        _, equals, value = arg.partition("=")
        if not equals:
            value = args[position + 1] if position + 1 < len(args) else ""
            if value.startswith("-"):
                continue
        for path in _mentioned_paths(value):
            if f.at(path) not in taken:
                f.read(path)


def _command_arguments(f: Facts) -> None:
    """Commands hidden in arguments: an option that takes a command line
    (`--pre-hook 'cp ...'`, `--exec='rm ...'`, `--on-download-complete=/bin/sh`), a
    `!command` (gdb, dc, mail, hg aliases, ...), sqlite's `.shell`, and code calls
    (`system("...")`) handed to a program that evaluates them."""
    name = f.cmd.name
    if name in _TEXT_ARGUMENTS or language_of(name) or name in SHELLS:
        return
    args = [a for a in f.cmd.args if _shell._UNKNOWN not in a]
    for position, arg in enumerate(args):
        option, equals, value = arg.partition("=")
        if not equals and _command_option(arg) and position + 1 < len(args):
            option, value = arg, args[position + 1]
        if value and _command_option(option) and (" " in value or value.startswith("/")):
            f.scripts.append(value.lstrip("!"))
        text = value.strip() if equals else arg.strip()
        if text.startswith(("!", "\\!")) and len(text) > 2 and not text.startswith("!="):
            # `!cmd` (gdb, dc, mail, mysql, an hg or git alias `x=!cmd`)
            f.scripts.append(text.lstrip("\\!"))
        elif text.startswith((".shell ", ".system ")):
            f.scripts.append(text.split(" ", 1)[1])
        elif handler_for(name) is None and _CODE_CALL.search(arg):
            found = _inspect("generic", arg)
            _take_code(f, "generic", arg, found)
            if not (found.scripts or found.argvs):
                f.hide(found.hidden or f"{name} runs code given in its arguments")
        elif handler_for(name) is None:
            # a program we do not know, handed a command line (`tmux -c 'rm -rf ~'`,
            # `pidstat -e /bin/sh -c '...'`, `--pdflatex='rm ...'`): read it as one
            for piece in re.split(r"(?<=[=,])", text):
                piece = piece.strip(" '\"")
                words_in = piece.split()
                if len(words_in) >= 2 and posixpath.basename(words_in[0]) in _COMMAND_WORDS:
                    f.scripts.append(piece)


#: Package managers whose `dlx`/`x`/`exec` fetches a package and runs it.
_DLX = words("pnpm yarn bun npm")
#: Their options that take a value (`-p PKG`, `--package=PKG`).
_DLX_VALUES = words("-p --package -w --workspace --prefix --registry --cache --userconfig")


def _package_operands(args: Sequence[str]) -> list[str]:
    operands: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
        elif arg in _DLX_VALUES:
            skip = True
        elif arg == "--":
            continue
        elif not arg.startswith("-"):
            operands.append(arg)
    return operands


def _package_call(f: Facts, args: Sequence[str]) -> bool:
    """`npx -c CMD`, `npm exec --call CMD`, `pnpm dlx -c CMD`: CMD is a shell line it
    runs (with the packages' programs on PATH). True when one was given."""
    for position, arg in enumerate(args):
        if arg == "--":
            return False
        name, equals, value = arg.partition("=")
        if name in ("-c", "--call", "--shell-mode") or (
            re.fullmatch(r"-[a-zA-Z]*c", arg) and name == arg
        ):
            if not equals:
                rest = [a for a in args[position + 1 :] if not a.startswith("-")]
                value = rest[0] if rest else ""
            if value:
                if _shell._UNKNOWN in value:
                    f.hide(f"{f.cmd.name} runs a shell line built at run time")
                f.scripts.append(value)
                return True
    return False


#: Options through which programs commonly take code or a script to run.
_CODE_OPTION = LazyPattern(
    r"^--?(?:e|E|c|x|r|eval|evaluate|exec|execute|expr|expression|command|commands|code"
    r"|script|cmd|run|program|statement)$"
)
#: Subcommands that run the code that follows them (`X eval CODE`).
_CODE_SUBCOMMANDS = words("eval e exec execute run script evaluate repl")
#: What code looks like, as opposed to a name, a number, a regex or a path: a call
#: with arguments (`system("...")`, `rm(homedir(); ...)`), a Lisp form (`(run-program
#: "/bin/rm" ...)`), backquotes, `$(...)`, a word that runs something (`exec rm`).
_CODE_SHAPE = LazyPattern(
    r"""(?x)
    [A-Za-z_][\w.:!/>-]*\s*\((?=\s*["'`~/$(\[{]|[^\n]*;)
    |\(\s*[A-Za-z_][\w.:/!*+<>=-]*\s+["'`(\[:~/$]
    |`|\$\(
    |\b(?:system|exec|spawn|shell|popen|eval|require|subprocess|child_process|Runtime
        |ProcessBuilder|os:cmd|do\s+shell\s+script|file\s+(?:delete|rename|copy|link|mkdir))
     \b(?:\s*[\s(\[{"'`:.!]|$)
    """
)
#: C-family compilers (`gcc-13`, `x86_64-linux-gnu-gcc`, `clang++-17`).
_COMPILER = LazyPattern(
    r"^(?:[\w.-]+-)?(?:gcc|g\+\+|cc|c\+\+|clang|clang\+\+|gfortran)(?:-[\d.]+)?$"
)
#: SQL handed to a database client (`psql -c`, `mysql -e`, `cqlsh -e`): not code here.
_SQL = LazyPattern(
    r"(?i)^\s*(?:select|insert|update|delete|create|drop|alter|with|show|describe|desc"
    r"|explain|truncate|grant|revoke|begin|commit|set|use|call|vacuum|analyze|\\)\b"
)


#: Programs whose commands the shell analysis itself reads (shells, wrappers,
#: `parallel`, `watch`, `ssh`, ...): their arguments are judged as commands there.
_WALKED = _shell._CASE_FOLDED | _shell._STRING_RUNNERS | {"xargs", "sem", "nohup"}


def _unknown_code(f: Facts) -> None:
    """A program no table knows, handed code (`-e '(system "...")'`, `--eval`, `X eval
    CODE`) or a script on its standard input (`X -f /dev/stdin <<EOF`): it runs what
    the policy cannot read. Names, numbers, paths, regexes and SQL are not code."""
    args = [a for a in f.cmd.args if _shell._UNKNOWN not in a]
    for position, arg in enumerate(args):
        if position and not arg.startswith("-") and (
            handler_for(arg) is not None or language_of(arg) or arg in SHELLS
        ):
            args = args[:position]  # `compose exec web python -c ...`: its own options
            break
    values: list[str] = []
    for position, arg in enumerate(args):
        following = args[position + 1] if position + 1 < len(args) else ""
        option, equals, value = arg.partition("=")
        if _CODE_OPTION.match(option):
            values.append(value if equals else following)
    operands = [a for a in args if not a.startswith("-")]
    if operands[:1] and operands[0] in _CODE_SUBCOMMANDS:
        values += operands[1:2]
    for value in values:
        if (
            value
            and not value.startswith(("-", "/", "./", "~/"))
            and _CODE_SHAPE.search(value)
            and not _SQL.match(value)
        ):
            f.hide(f"{f.cmd.name} runs code it is given, which the policy cannot read")
            return
    fed = f.cmd.stdin is not None or f.cmd.pipe[1] > 0 or any(
        r.startswith("<") and not r.startswith(("<&", "<>")) for r in f.cmd.redirects
    )
    if fed and any(a.split("=", 1)[-1] in _shell._STDIN_FILES for a in args):
        f.hide(f"{f.cmd.name} reads a script or configuration from its input")
    elif fed and _COMPILER.match(f.cmd.name) and ("-" in args or "/dev/stdin" in args):
        # `gcc -x c - <<< '...' && ./a.out`: a program built from text the policy
        # does not read as code, then run
        f.hide(f"{f.cmd.name} builds a program from code on its input")


def facts_of(cmd: _shell.SimpleCommand, home: str) -> Facts:
    """What one simple command does, as far as its own words tell."""
    name = cmd.name
    if (
        name
        and name != name.lower()
        and handler_for(name) is None
        and (handler_for(name.lower()) is not None or name.isupper())
    ):
        # case-insensitive file systems (macOS, Windows) run `RM` as `rm`
        cmd = _lazy_dataclass.replace(cmd, name=name.lower())
    if cmd.unknown and len(cmd.unknown) == sum(1 for a in cmd.argv if a == _shell._UNKNOWN):
        # a word partly unknown keeps what is known of it: `"$(cmd)"/x.pth`
        templates = iter(cmd.unknown)
        argv = tuple(next(templates) if a == _shell._UNKNOWN else a for a in cmd.argv)
        cmd = _lazy_dataclass.replace(cmd, argv=argv, args=argv[1:])
    facts = Facts(cmd=cmd, cwd=cmd.cwd, home=home)
    _assignments(facts)
    _redirects(facts)
    handler = handler_for(cmd.name)
    if handler is not None:
        handler(facts)
    elif cmd.name:
        _default(facts)
    if cmd.name in PRIVILEGED or any(w in PRIVILEGED for w in cmd.wrappers):
        facts.privileged = True
    if cmd.function and cmd.name == cmd.function:
        facts.forks = True
    if cmd.name in SUBCOMMANDS and not facts.subcommand:
        facts.subcommand = first_operand(cmd.args)
    facts.variables += cmd.variables
    if _shell._ANY_VARIABLE in cmd.variables:
        facts.reads.append("/proc/self/environ")  # `${!v}` over names nobody can tell
    if handler is not None:
        _option_paths(facts)
        _abbreviated_options(facts)
    _files0_from(facts)
    if facts.network:
        # what a networked program reads on its standard input may go out with it
        # (`nc host < f`, `python -c '...urlopen(u, stdin)' < f`, `websocat URL < f`)
        for redirect in cmd.redirects:
            match = _REDIRECT.match(redirect)
            if match and match[2] in ("<", "<>") and match[3] not in ("/dev/null", ""):
                facts.sends.append(facts.at(match[3]))
    _command_arguments(facts)
    if handler is None and cmd.name and not language_of(cmd.name) and cmd.name not in _WALKED:
        _unknown_code(facts)
    if cmd.name not in _LIBRARY_HANDLERS:
        library = _native_library(cmd.args)
        if library:
            facts.hide(f"{cmd.name} may load native code from {library}")
    for arg in cmd.args:
        if "file://" in arg and _shell._UNKNOWN not in arg:
            facts.read(arg[arg.index("file://") :])
    dlx = cmd.name in _DLX and cmd.args[:1] in (("dlx",), ("x",), ("exec",))
    if cmd.name in _PACKAGE_RUNNERS or dlx:
        # `npx rimraf ~`, `pnpm dlx rimraf ~`: the package's program runs with the rest
        # (its bin is mostly the package's own name); `-c CMD` runs a shell line
        args = list(cmd.args[1:] if dlx else cmd.args)
        if _package_call(facts, args):
            pass
        elif (operands := _package_operands(args)) and _shell._UNKNOWN not in operands[0]:
            package = operands[0].rsplit("@", 1)[0] if not operands[0].startswith("@") else ""
            if package and "/" not in package and ":" not in package:
                at = args.index(operands[0])
                facts.argvs.append([package, *args[at + 1 :]])
    if cmd.wrappers and handler is None and re.search(r"\s", cmd.name.strip()):
        # `pnpm exec -c 'rm -rf ~'`, `npm exec -- 'a b'`: a shell line left as a name
        facts.scripts.append(" ".join(cmd.argv))
    if _fetches_code(cmd, facts.subcommand):
        facts.network = True
        facts.downloaded = True  # a package from a URL or a repository: its code runs
    if cmd.dynamic and not cmd.name:
        facts.hide("the program is named by a variable or a substitution")
    if "*" in cmd.name or "?" in cmd.name or "[" in cmd.name:
        facts.hide(f"the program is named by a pattern ({cmd.name}) the shell expands")
    if len(cmd.wrappers) >= 16:
        facts.hide("wrapped in more programs than the policy follows")
    return facts
