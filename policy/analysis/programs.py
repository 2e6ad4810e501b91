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
import dataclasses
import posixpath
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from policy.analysis import git, network
from policy.analysis import shell as _shell
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
    from policy.analysis.code import CodeFacts

__all__ = [
    "HANDLERS",
    "INTERPRETERS",
    "MAX_CODE_BYTES",
    "PASSIVE",
    "PRIVILEGED",
    "SHELLS",
    "SUBCOMMANDS",
    "CodeLimit",
    "facts_of",
    "handler_for",
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


_REDIRECT = re.compile(r"^(\d*)(&>>|&>|>>|>\||>&|<&|<<<|<<-|<<|<>|>|<)(.*)$", re.DOTALL)


_WRITING = words("> >> >| &> &>> <> >&")


_NET_DEVICE = re.compile(r"^/dev/(tcp|udp)/([^/]+)/(\S+)$")


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


_OUTPUT_OPTION = re.compile(
    r"^--?(?:o|out|output|outfile|output-file|output-document|log|log-?file|logfile|dump)$",
    re.IGNORECASE,
)
_MENTIONED = re.compile(r"(?:^|[=@:,\s'\"])((?:~|/)[^\s'\",;]*)")


def _mentioned_paths(value: str) -> list[str]:
    """Absolute and home paths inside an option's value (`Include /x`, `@/x`,
    `file:///x`), as a program that parses the value would find them."""
    if not value or _shell._UNKNOWN in value:
        return []
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
    else:
        if move:
            f.delete(*sources)
            f.recursive = True
        if move or has_option(options, "-r", "-R", "-a", "--recursive", "--archive"):
            f.read_tree(*sources)
        else:
            f.read(*sources)
        f.write(dest)
    mode = " ".join(option_values(options, "-m", "--mode"))
    if mode and _grants_setuid(mode):
        f.privileged = True


_SETUID_OCTAL = re.compile(r"^[=+]?0*[2-7][0-7]{3}$")


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


_SED_WRITE = re.compile(r"(?:^|[;\n{}]|\d|\$|/)\s*[wW]\s+(\S[^;\n}]*)")


_SED_READ = re.compile(r"(?:^|[;\n{}]|\d|\$|/)\s*[rR]\s+(\S[^;\n}]*)")


_SED_EXEC = re.compile(r"(?:^|[;\n{}]|\d|\$|/)\s*e(?:\s|$|;)|s(.).*?\1.*?\1[gpiImM0-9]*e")


_SED_SUBST_W = re.compile(r"s(.)(?:\\.|(?!\1).)*\1(?:\\.|(?!\1).)*\1[gpiImMe0-9]*w\s+(\S+)")


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
    takes = (
        _VALUE_OPTIONS["grep"]
        if name in ("grep", "egrep", "fgrep", "zgrep")
        else _VALUE_OPTIONS["rg"]
    )
    operands, options = split_options(f.cmd.args, takes)
    patterns = option_values(options, "-e", "--regexp")
    pattern_files = option_values(options, "-f", "--file")
    if not patterns and not pattern_files and operands:
        operands = operands[1:]  # the pattern
    f.read(*pattern_files)
    if has_option(options, "--pre"):
        f.hide(f"{name} --pre runs a program on every file")
    if has_option(options, "--hostname-bin"):
        f.hide(f"{name} --hostname-bin runs a program")
    if name in ("grep", "egrep", "fgrep", "zgrep"):
        recursive = has_option(options, "-r", "-R", "--recursive", "--dereference-recursive")
        if recursive:
            f.read_tree(*(operands or ["."]))
        else:
            f.read(*operands)
    else:  # rg, ag, ack search the directory by default
        f.read_tree(*(operands or ["."]))
        f.write(*option_values(options, "--ignore-file-case-insensitive"))


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


def _tar(f: Facts) -> None:
    args = list(f.cmd.args)
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
    if name == "unzip":
        operands, options = split_options(f.cmd.args, words("-d -x -P"))
        f.read(*operands[:1])
        if not has_option(options, "-l", "-t", "-v", "-Z", "-z", "-p", "-c"):
            f.write(*(option_values(options, "-d") or ["."]))  # not a listing or a test
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
    operands, options = split_options(f.cmd.args, words("-o -O -C -d"))
    f.read(*operands)
    f.write(*option_values(options, "-o", "-O", "-d"))
    if "-sdel" in f.cmd.args:
        f.delete(*operands[2:])  # 7z a -sdel ARCHIVE FILES: the files go once archived
        f.recursive = True


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
        if name in _GDB_VALUES:
            if not equals and index < len(args):
                value = args[index]
                index += 1
            options.setdefault(_GDB_VALUES[name], []).append(value)
    for command in options.get("-ex", []) + options.get("-o", []):
        text = command.strip()
        if text.startswith("!") or re.match(r"(?:shell|platform shell|pipe|\|)\s", text):
            f.scripts.append(re.sub(r"^(?:!|shell\s|platform shell\s|pipe\s|\|\s)", "", text))
        elif re.match(r"(?:python|py|pi|python-interactive|guile|script)\b", text):
            f.hide(f"{f.cmd.name} runs code it is given ({text.split()[0]})")
    for script in options.get("-x", []):
        if script in ("-", "/dev/stdin", "/proc/self/fd/0"):
            if f.cmd.stdin is not None:
                take_manifest(f, f.cmd.stdin)
            else:
                f.runs_stdin = True
        else:
            f.read(script)
            f.hide(f"{f.cmd.name} runs the commands in {script}")
    f.read(*operands[:1])


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
}


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


#: An interpreter named with its version (`python3.12`, `lua5.4`, `php8.2`, `ruby3.1`).
_VERSIONED = re.compile(
    r"^(python|pypy|perl|ruby|php|lua|luajit|node|nodejs|tclsh|wish|pwsh)-?\d+(?:\.\d+)*$"
)


def language_of(name: str) -> str:
    """The language interpreter `name` runs ("" when it is none we know)."""
    found = INTERPRETERS.get(name)
    if found:
        return found
    versioned = _VERSIONED.match(name)
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


def _interpreter(f: Facts) -> None:
    name = f.cmd.name
    language = language_of(name)
    args = list(f.cmd.args)
    inline = _INLINE.get(language, ())
    code: str | None = None
    index = 0
    module = ""
    while index < len(args):
        arg = args[index]
        if arg == "--":
            index += 1
            break
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
        if arg in _INTERPRETER_VALUE_OPTIONS.get(language, ()):
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
        elif _shell._UNKNOWN in code:
            f.hide(f"{name} runs code that comes from a variable or substitution")
        else:
            _take_code(f, language, code)
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
    if script is None and any(a in _NO_PROGRAM for a in args):
        return  # `perl -v`, `node --version`: it says what it is and runs nothing
    if script is None or script == "-" or script in ("/dev/stdin", "/proc/self/fd/0"):
        # the program comes from standard input
        if f.cmd.stdin is not None:
            _take_code(f, language, f.cmd.stdin)
        else:
            f.runs_stdin = True
        return
    f.runs_files.append(f.at(script))
    f.read(script)
    others = rest[rest.index(script) + 1 :]
    f.read(*(o for o in others if "/" in o or o.startswith(".")))


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
    if module in ("http.server", "SimpleHTTPServer"):
        # serves a directory (the cwd by default) to whoever connects
        f.network = True
        _, options = split_options(rest, words("-d --directory -b --bind -p --protocol"))
        f.read_tree(*(option_values(options, "-d", "--directory") or ["."]))
        return
    if module in ("venv", "virtualenv"):
        _venv(f, rest)
        return
    if module in ("base64",):
        return
    f.read(*(r for r in rest if not r.startswith("-") and ("/" in r or r.startswith("."))))


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


def _names_from_input(f: Facts) -> None:
    """cpio -o, `zip -@`, `tar -T -`: the names of the files to archive come down the
    pipe; with literal input (`echo ~/.kube/config | cpio -o`) they are known."""
    f.reads_from_input = True


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
    for script in option_values(options, "--script"):
        if "/" in script or script.endswith(".nse"):
            f.runs_files.append(f.at(script))


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


def _make(f: Facts) -> None:
    """make, ninja, cmake --build: run the project's own recipes (not judged here);
    `-C DIR` says where."""
    _, options = split_options(
        f.cmd.args,
        words(
            "-C --directory -f --file --makefile -I --include-dir -j --jobs -l "
            "--load-average -o --old-file -W --what-if --eval -E"
        ),
    )
    directory = option_values(options, "-C", "--directory")
    if directory:
        f.read(directory[-1])
    makefiles = option_values(options, "-f", "--file", "--makefile")
    f.read(*makefiles)
    if has_option(options, "--eval", "-E"):
        f.hide("make --eval runs make code it is given")
    if any(m in ("-", "/dev/stdin") for m in makefiles):
        if f.cmd.stdin is not None:
            take_manifest(f, f.cmd.stdin)  # recipes are command lines
        else:
            f.runs_stdin = True


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
    "--arg": 2, "--argjson": 2, "--slurpfile": 2, "--rawfile": 2, "-f": 1,
    "--from-file": 1, "-L": 1, "--library-path": 1, "--indent": 1,
}  # fmt: skip
#: A jq or yq filter that prints the environment (`env`, `$ENV`, yq's `env()`).
_JQ_ENV = re.compile(r"\$ENV\b(?!\s*[.\[])|(?<![\w$.])env\b(?!\s*[.\[])|\bstrenv\s*\(")


def _jq(f: Facts) -> None:
    """jq/yq FILTER FILES: the files read (and `--rawfile NAME FILE`, `--slurpfile`,
    `-f FILE`); a filter that prints the environment reads it; yq `-i` writes."""
    args = list(f.cmd.args)
    operands: list[str] = []
    program_given = False
    index = 0
    while index < len(args):
        arg = args[index]
        count = _JQ_VALUES.get(arg.split("=", 1)[0], 0) if "=" not in arg else 0
        if arg in ("--slurpfile", "--rawfile") and index + 2 < len(args):
            f.read(args[index + 2])
        elif arg in ("-f", "--from-file") and index + 1 < len(args):
            f.read(args[index + 1])
            program_given = True
        elif arg in ("--args", "--jsonargs"):
            operands += [a for a in args[index + 1 :] if a][:1]  # the filter, if not yet
            break
        elif not arg.startswith("-") or arg == "-":
            operands.append(arg)
        index += 1 + count
    files = operands if program_given else operands[1:]
    if f.cmd.name == "yq" and any(a in ("-i", "--inplace") or a.startswith("-i") for a in args):
        f.write(*files)
    else:
        f.read(*files)
    if not program_given and operands and _JQ_ENV.search(operands[0]):
        f.reads.append("/proc/self/environ")


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
    "setpriv unshare machinectl"
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
    (_ln_handler, "ln"),
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
    (_grep, "grep egrep fgrep zgrep rg ag ack"),
    (_find, "find"),
    (_tar, "tar"),
    (_zip, "zip unzip"),
    (_archive_other, "7z"),
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
    (_ls_like, "ls dir tree exa eza fd"),
    (_du, "du"),
    (_sort, "sort"),
    (_uniq, "uniq"),
    (_split, "split"),
    (_file, "file"),
    (_iconv, "iconv"),
    (_jq, "jq yq"),
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
    (_script, "script"),
    (_dos2unix, "dos2unix unix2dos mac2unix unix2mac"),
    (_names_from_input, "cpio"),
    (_getent, "getent"),
    (_crontab, "crontab"),
    (_make, "make gmake ninja"),
)


HANDLERS: dict[str, Callable[[Facts], None]] = {
    **network.HANDLERS,
    **git.HANDLERS,
    **{name: handler for handler, names in _PROGRAMS for name in names.split()},
}


for _shell_name in SHELLS:
    HANDLERS[_shell_name] = _shell_program


for _interpreter_name in INTERPRETERS:
    HANDLERS[_interpreter_name] = _interpreter


_FAMILIES: tuple[tuple[re.Pattern[str], Callable[[Facts], None]], ...] = (
    (_VERSIONED, _interpreter),
    (re.compile(r"^pip\d+(?:\.\d+)?$"), network.HANDLERS["pip"]),
    (re.compile(r"^mkfs(?:\..+)?$|^mke2fs$|^mkswap$"), _reads_all),
)


def handler_for(name: str) -> Callable[[Facts], None] | None:
    """The function that knows program `name`, or None."""
    found = HANDLERS.get(name)
    if found is None:
        for pattern, family in _FAMILIES:
            if pattern.match(name):
                return family
    return found


def take_input(f: Facts, text: str, path: str = "") -> None:
    """`f` runs `text` (its standard input, or the file `path`, known): a shell's
    commands, an interpreter's code."""
    f.runs_stdin = False
    if f.cmd.name in HANDLERS and HANDLERS[f.cmd.name] is _editor:
        _editor_commands(f, text.splitlines())
        return
    if f.cmd.name in ("sqlite3", "sqlite"):
        _sqlite_text(f, text)
        return
    language = language_of(f.cmd.name)
    if not language and path:
        language = _BY_EXTENSION.get(posixpath.splitext(path)[1], "")
    if f.cmd.name in SHELLS or language == "shell" or (not language and path):
        f.scripts.append(text)
    elif language:
        _take_code(f, language, text)


def take_file(f: Facts, text: str, path: str) -> None:
    """`f` is handed the file `path`, written in the same line with `text`, and may run
    it: code in the language its name says, else the command strings and code calls
    it holds, and lines that start with a command."""
    language = _BY_EXTENSION.get(posixpath.splitext(path)[1], "")
    if language:
        take_input(f, text, path)
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
    if not any(_shell.REMOTE_SPEC.search(w.split("=", 1)[-1]) for w in words_[1:]):
        return _shell.REMOTE_SPEC.search(cmd.argv[0]) is not None if cmd.argv else False
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
_COMMAND_OPTION = re.compile(
    r"^--?(?:[\w-]*-)?(?:exec|execute|command|cmd|hook|shell|script|run|program|pager|editor"
    r"|rsh|proxy-?command|wrapper|sh-exec|conf-script|password-command|askpass|helper"
    r"|on-[\w-]+|shell-escape)$",
    re.IGNORECASE,
)
#: Code calls in an argument: `system("...")`, `os.execute(...)`, `execute(...)`.
_CODE_CALL = re.compile(
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
_LIBRARY = re.compile(r"\.(?:so(?:\.\d+)*|dylib|dll)$")
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
        if not equals and _COMMAND_OPTION.match(arg) and position + 1 < len(args):
            option, value = arg, args[position + 1]
        if value and _COMMAND_OPTION.match(option) and (" " in value or value.startswith("/")):
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
        cmd = dataclasses.replace(cmd, name=name.lower())
    if cmd.unknown and len(cmd.unknown) == sum(1 for a in cmd.argv if a == _shell._UNKNOWN):
        # a word partly unknown keeps what is known of it: `"$(cmd)"/x.pth`
        templates = iter(cmd.unknown)
        argv = tuple(next(templates) if a == _shell._UNKNOWN else a for a in cmd.argv)
        cmd = dataclasses.replace(cmd, argv=argv, args=argv[1:])
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
    if cmd.name not in _LIBRARY_HANDLERS:
        library = _native_library(cmd.args)
        if library:
            facts.hide(f"{cmd.name} may load native code from {library}")
    for arg in cmd.args:
        if "file://" in arg and _shell._UNKNOWN not in arg:
            facts.read(arg[arg.index("file://") :])
    if cmd.name in _PACKAGE_RUNNERS:
        # `npx rimraf ~`: the package's program runs with the rest (its bin is mostly
        # the package's own name)
        operands = [a for a in cmd.args if not a.startswith("-")]
        if operands and _shell._UNKNOWN not in operands[0]:
            package = operands[0].rsplit("@", 1)[0] if not operands[0].startswith("@") else ""
            if package and "/" not in package and ":" not in package:
                at = list(cmd.args).index(operands[0])
                facts.argvs.append([package, *cmd.args[at + 1 :]])
    if _fetches_code(cmd, facts.subcommand):
        facts.network = True
        facts.downloaded = True  # a package from a URL or a repository: its code runs
    if cmd.dynamic and not cmd.name:
        facts.hide("the program is named by a variable or a substitution")
    if re.search(r"[*?\[]", cmd.name):
        facts.hide(f"the program is named by a pattern ({cmd.name}) the shell expands")
    if len(cmd.wrappers) >= 16:
        facts.hide("wrapped in more programs than the policy follows")
    return facts
