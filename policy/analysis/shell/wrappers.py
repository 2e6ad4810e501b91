"""Programs that run another program or a script given in their arguments, and how to
find what they run: wrappers unwrapped from the front of a command (`sudo`, `env`,
`timeout`, `xargs`, the dynamic loader, `uv run`, ...), shells and `su` with their
`-c`, programs that run a string as a shell line (`ssh`, `watch`, `tmux`, `screen`,
`flock`, ...), `find -exec`, `parallel`, `fd -x`, and the variables that change what
a program runs (`PATH`, `LD_PRELOAD`, `GIT_PAGER`). Knowledge of programs, kept apart
from the walk (policy.analysis.shell.walk) that uses it.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from policy._named_tuple import NamedTuple
from policy.analysis._lazy_re import LazyPattern
from policy.analysis.shell.words import _UNKNOWN, _template, _Unknown

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
_COPROC_NAME = LazyPattern(r"^[A-Za-z_][A-Za-z0-9_]*$")
_LOADER = LazyPattern(r"^ld(?:-linux[\w.-]*|-musl-[\w.-]+)?\.so(?:\.\d+)*$")
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

_ASSIGNMENT = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*=")
_ENV_ASSIGNMENT = LazyPattern(r"[^=\s/-][^=\s/]*=")

#: A package named by where it is fetched from, not by a registry name.
REMOTE_SPEC = LazyPattern(r"://|^git\+|^(?:github|gitlab|bitbucket|gist):|@\s*https?:")


def remote_spec(text: str) -> bool:
    """`REMOTE_SPEC.search(text)`, asked only of a text that holds a `:` or begins
    `git+` (every match does): most words are neither, and need no pattern compiled."""
    return (":" in text or text.startswith("git+")) and REMOTE_SPEC.search(text) is not None
_WRAPPER_OUTPUT = LazyPattern(
    r"^--?(?:o|output|log-?file|logfile|xml-file|output-file|log-socket-file)(?:=|$)"
)


def _split_string(value: str) -> list[str]:
    """`env -S 'rm -rf /'`: env splits the string into words itself."""
    import shlex  # (here: few lines split a string this way)

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
        elif wrapper.startswith("ld") and _LOADER.match(wrapper):
            wrapper = "ld.so"
        runner = _RUNNERS.get((wrapper, words[1] if len(words) > 1 else ""))
        if runner is not None:
            rest = _after_runner(words[2:], *runner)
            own_options = words[2 : len(words) - len(rest)]
            fetches += [
                (wrapper, spec)
                for spec in (o.split("=", 1)[-1] for o in own_options)
                if not isinstance(spec, _Unknown) and remote_spec(spec)
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


def _leading(words: list[str], pattern: LazyPattern) -> int:
    """How many words at the start of `words` `pattern` (an assignment's, which holds
    `=`) matches (`A=1 B=2 cmd`: 2)."""
    count = 0
    for word in words:
        if "=" not in word or not pattern.match(word):
            break
        count += 1
    return count


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
_UNIT_COMMAND = LazyPattern(r"^Exec[A-Za-z]*=(.*)$", re.DOTALL)


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
_TMUX_KEYS = LazyPattern(r"^(?:Enter|KPEnter|C-[a-zA-Z]|M-.|Escape|Tab|BSpace|Space)$")
_SCREEN_VALUED = frozenset("-S -c -e -h -p -s -T -t -Logfile".split())

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


_PARALLEL_OPTION_ARGS = frozenset(
    "-j --jobs -S --sshlogin --sslogin --env -a --arg-file --colsep -C -d --delimiter -I "
    "--replace --tmpdir --joblog --results --res -N -n --max-args -L --max-lines --timeout "
    "--retries --delay --memfree --load --nice --workdir --wd --basefile --bf --return "
    "--transferfile --tf --tagstring --header -E --halt --sqlworker --sqlmaster -X --xargs "
    "--shebang-wrap --termseq -P --max-procs --plus --jobs-log".split()
) - {"-X", "--xargs", "--plus"}

_PARALLEL_TOKEN = LazyPattern(r"\{[0-9]*[./#%]*[0-9]*\}")

_FD_VALUE_OPTIONS = frozenset(
    "-e --extension -t --type -d --max-depth --min-depth --exact-depth -E --exclude -c "
    "--color -j --threads -S --size --changed-within --changed-before --owner -g --glob "
    "--base-directory --path-separator --max-results --search-path --ignore-file".split()
)
_FD_TOKEN = LazyPattern(r"\{(?:/|//|\.|/\.)?\}")

_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})

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
