"""git: what each subcommand reads, writes, deletes and sends, and the options and
config keys that make git run a program (`-c core.pager=...`, `config
core.fsmonitor`, `!` aliases, `--ext-diff`, `--upload-pack`, `ext::` URLs).

`repo_code` reads the config of the repository a command runs in: a value planted
there (`core.fsmonitor`, `diff.external`, a filter) runs on `git status`, so a
read-only git command in such a repository is not read-only.
"""

from __future__ import annotations

import glob
import os
import posixpath
import re
import shlex
from collections.abc import Callable, Sequence

from policy.analysis import readonly
from policy.analysis.operands import (
    Facts,
    has_option,
    host_of,
    locate,
    option_values,
    remote_host,
    split_options,
    words,
)
from policy.analysis.viewer import may_read, may_search

__all__ = ["HANDLERS", "config_setting", "repo_code"]


def _git(f: Facts) -> None:
    args = list(f.cmd.args)
    base: str | None = f.cwd
    index = 0
    aliases: dict[str, str] = {}
    settings: dict[str, str] = {}  # what `-c key=value` set for this run
    while index < len(args):
        arg = args[index]
        value = args[index + 1] if index + 1 < len(args) else ""
        if arg.startswith("-C"):
            # Git itself wants `-C DIR`; `-CDIR` is judged as if some git took it.
            where = value if arg == "-C" else arg[2:]
            base = locate(where, base, f.home) if where else base
            index += 2 if arg == "-C" else 1
            continue
        if arg == "--config-env" or arg.startswith("--config-env="):
            # `--config-env=alias.x=VAR`: the value is VAR's, from the environment
            pair = value if arg == "--config-env" else arg.split("=", 1)[1]
            _git_config_pair(f, pair)
            if pair.lower().startswith(("alias.", "core.", "include.", "includeif.")):
                f.hide("git --config-env takes a setting's value from the environment")
            index += 2 if arg == "--config-env" else 1
            continue
        if arg == "-c" or (arg.startswith("-c") and len(arg) > 2):
            pair = value if arg == "-c" else arg[2:]
            _git_config_pair(f, pair)
            key, _, alias = pair.partition("=")
            settings[key.strip().lower()] = alias
            if key.lower().startswith("alias.") and not alias.startswith("!"):
                aliases[key[len("alias.") :]] = alias
            index += 2 if arg == "-c" else 1
            continue
        if arg.startswith("--exec-path="):
            f.hide("git --exec-path runs git commands from another directory")
            index += 1
            continue
        if arg in (
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--super-prefix",
            "--list-cmds",
            "--attr-source",
        ):
            if arg in ("--git-dir", "--work-tree"):
                f.read(value, base=base)
            index += 2
            continue
        if arg.startswith(("--git-dir=", "--work-tree=")):
            f.read(arg.split("=", 1)[1], base=base)
            index += 1
            continue
        if arg.startswith("-"):
            index += 1
            continue
        break
    rest = args[index:]
    if rest[:1] == ["--"]:
        rest = rest[1:]
    bang = settings.get(f"alias.{rest[0]}".lower(), "") if rest else ""
    if bang.startswith("!"):
        # `git -c alias.x='!cmd' x ARGS` runs `cmd ARGS` in a shell
        f.scripts.append(" ".join([bang[1:], *(shlex.quote(a) for a in rest[1:])]))
    for _ in range(4):  # `git -c alias.nuke='reset --hard' nuke`
        if not rest or rest[0] not in aliases:
            break
        try:
            rest = shlex.split(aliases.pop(rest[0])) + rest[1:]
        except ValueError:
            f.hide("a git alias that cannot be read")
            break
    sub = rest[0] if rest else ""
    f.flags = _expanded_flags(rest[1:], _GIT_VALUE_OPTIONS.get(sub, frozenset()))
    f.subcommand = sub
    sub_args = rest[1:]
    operands, options = split_options(sub_args, _GIT_VALUE_OPTIONS.get(sub, frozenset()))
    f.cwd = base
    if sub in _TALKS_TO_REMOTES and (
        sub != "remote" or operands[:1] in (["add"], ["update"], ["set-url"], ["show"], ["prune"])
    ):
        f.network = True
    for option in ("--upload-pack", "-u", "--receive-pack", "--exec"):
        if sub in ("clone", "fetch", "pull", "push", "ls-remote", "archive") and option in options:
            if option == "-u" and sub != "clone":
                continue
            f.hide(f"git {sub} {option} runs a program")
    if sub == "clone":
        urls = list(operands)
        if urls:
            f.hosts.append(host_of(urls[0]) if "://" in urls[0] else remote_host(urls[0]))
            if urls[0].startswith("ext::"):
                f.hide("git's ext:: transport runs a program")
            target = (
                urls[1]
                if len(urls) > 1
                else posixpath.basename(urls[0].rstrip("/")).removesuffix(".git")
            )
            f.write(target, base=base)
            f.downloads.append(f.at(target, base))
        for pair in option_values(options, "-c", "--config"):
            _git_config_pair(f, pair)
        if has_option(options, "--template"):
            f.hide("git clone --template copies hooks that run later")
    elif sub == "config":
        _git_config_command(f, operands, options)
    elif sub in (
        "diff",
        "log",
        "show",
        "whatchanged",
        "format-patch",
        "blame",
        "range-diff",
        "reflog",
    ):
        f.write(*option_values(options, "--output", "-o", "--output-directory"), base=base)
        if has_option(options, "--ext-diff", "--textconv"):
            used = "--ext-diff" if has_option(options, "--ext-diff") else "--textconv"
            f.hide(f"git {sub} {used} runs the configured diff program")
        f.read(*(o for o in operands if o.startswith(("/", "~", "."))), base=base)
        if sub == "blame":
            f.read(*option_values(options, "-S", "--contents", "--ignore-revs-file"), base=base)
    elif sub == "grep":
        if has_option(options, "-O", "--open-files-in-pager") or any(
            a.startswith("--open") and "--open-files-in-pager".startswith(a.split("=", 1)[0])
            for a in sub_args
        ):
            f.hide("git grep -O runs a pager")
    elif sub in ("difftool", "mergetool"):
        if has_option(options, "-x", "--extcmd", "-t", "--tool"):
            f.hide(f"git {sub} runs the tool it is given")
    elif sub == "rebase":
        for command in option_values(options, "-x", "--exec"):
            f.scripts.append(command)
    elif sub == "submodule" and operands[:1] == ["foreach"]:
        script = " ".join(operands[1:])
        if script:
            f.scripts.append(script)
    elif sub == "bisect" and operands[:1] == ["run"]:
        after = sub_args[sub_args.index("run") + 1 :] if "run" in sub_args else []
        if after:
            f.argvs.append(list(after))  # the command and its own options, as written
    elif sub == "clean":
        unguarded = settings.get("clean.requireforce", "").lower() in ("false", "no", "off", "0")
        if unguarded and not has_option(options, "-f", "--force"):
            f.flags = [*(f.flags or []), "force"]  # clean.requireForce=false: no -f needed
        if (has_option(options, "-f", "--force") or unguarded) and not has_option(
            options, "-n", "--dry-run"
        ):
            targets = operands or ["."]
            f.delete(*targets, base=base)
            f.recursive = has_option(options, "-d")
    elif sub in ("rm",) and has_option(options, "--cached"):
        f.write(".git", base=base)  # only the index: the files stay
    elif sub in ("rm",):
        f.delete(*operands, base=base)
        f.recursive = has_option(options, "-r")
    elif sub in ("branch", "tag") and readonly.reads_only("git", [sub, *sub_args]):
        pass  # a listing
    elif sub in _CHANGES_REPOSITORY:
        f.write(".git", base=base)
        paths = _pathspecs(sub, sub_args, operands)
        f.write(*paths, base=base)
        if sub == "mv":
            f.delete(*operands[:-1], base=base)
        if sub == "init" and operands:
            f.write(operands[0], base=base)
        if sub == "worktree" and operands[:1] == ["add"] and len(operands) > 1:
            f.write(operands[1], base=base)
        if sub in ("apply", "am") and not has_option(
            options, "--stat", "--numstat", "--summary", "--check", "--cached"
        ):
            # the patch names the files: any of the work tree's, as far as this line says
            f.write(".", base=base)
    elif sub == "credential" and operands[:1] == ["fill"]:
        f.reads.append(locate("~/.git-credentials", base, f.home))
    elif sub == "hook" and operands[:1] == ["run"]:
        pass
    if sub == "push":
        _push_settings(f, settings)
    elif sub in ("read-tree", "checkout-index") and has_option(options, "-u", "-f", "--force"):
        f.write(".", base=base)  # the work tree is overwritten from the index
    f.subcommand = sub
    if sub:
        f.reads.append(locate(".", base, f.home))


#: Subcommands that talk to another repository.
_TALKS_TO_REMOTES = words(
    "push fetch pull clone ls-remote remote submodule send-email archive request-pull daemon"
)

#: Long options whose abbreviations git accepts (`--forc`, `--ha`) and that decide what
#: a subcommand destroys.
_LONG_OPTIONS = (
    "force",
    "force-with-lease",
    "force-if-includes",
    "hard",
    "merge",
    "keep",
    "abort",
    "quit",
    "continue",
    "pathspec-from-file",
    "soft",
    "mixed",
    "mirror",
    "delete",
    "prune",
    "discard-changes",
    "dry-run",
    "staged",
    "worktree",
    "source",
    "interactive",
    "all",
    "create",
    "force-create",
    "orphan",
    "detach",
)


def _expanded_flags(words: list[str], takes_value: frozenset[str]) -> list[str]:
    """The subcommand's options as git reads them: clusters split (`-fdx` -> f, d,
    x) up to an option that takes the rest as its value (`-bfeature` -> b), and
    each abbreviated long option (`--forc`) also read as every one it abbreviates."""
    _, options = split_options(words, takes_value)
    flags: list[str] = []
    for option in options:
        name = option.lstrip("-")
        flags.append(name)
        if option.startswith("--") and name not in _LONG_OPTIONS:
            flags += [o for o in _LONG_OPTIONS if o.startswith(name)]
    return flags


#: Subcommands that change the repository (`.git`) and perhaps files of the work tree.
_CHANGES_REPOSITORY = frozenset(
    "checkout restore reset stash apply am mv merge pull cherry-pick revert switch worktree "
    "init add commit tag branch update-ref notes gc prune filter-branch replace rebase".split()
)


def _pathspecs(sub: str, words: list[str], operands: list[str]) -> list[str]:
    """The work-tree files a subcommand rewrites, as named: what follows `--`, the
    operands of `restore` and `mv`, `checkout REF PATH...`. A branch switch or a merge
    rewrites files nobody names here; they are the repository's own."""
    if "--" in words:
        return [w for w in words[words.index("--") + 1 :] if w]
    if sub in ("restore", "mv"):
        return operands
    if sub == "checkout" and len(operands) > 1:
        return operands[1:]
    return []


#: git config keys whose value is a program git runs, or that point git at one.
_GIT_CODE_KEYS = re.compile(
    r"""(?ix)^(?:core\.(?:fsmonitor|pager|editor|sshcommand|hookspath|askpass|gitproxy
        |attributesfile|excludesfile|worktree)
        |pager\..+|alias\..+|diff\..*\.(?:command|textconv)|diff\.external|merge\..*\.driver
        |filter\..*\.(?:clean|smudge|process)|sequence\.editor|gpg\..*program|gpg\.program
        |gpg\.ssh\.defaultkeycommand|core\.sshcommand|ssh\.variant|protocol\..*\.allow
        |url\..*\.(?:insteadof|pushinsteadof)
        |credential\..*helper|credential\.helper|uploadpack\.packobjectshook
        |include\.path|includeif\..+\.path|interactive\.difffilter|ssh\.variant
        |init\.templatedir|remote\..*\.(?:uploadpack|receivepack)|protocol\..*\.allow
        |http\..*\.proxy|http\.proxy|sendemail\..*cmd|sendemail\.smtpserver
        |web\.browser|browser\..*\.cmd|man\..*\.cmd|instaweb\..+|mergetool\..+|difftool\..+
        |diff\.tool|merge\.tool|trailer\..*\.command|trailer\..*\.cmd|submodule\..*\.update
        |core\.alternaterefscommand|receive\.procreceiverefs|safe\.directory|tag\.gpgsign
        |commit\.gpgsign|fetch\.fsckobjects|core\.symlinks|core\.createobject)$"""
)


_GIT_HARMLESS_VALUES = frozenset(
    {"", "cat", "less", "less -R", "false", "true", "vim", "vi", "nano"}
)


def config_setting(args: Sequence[str]) -> str | None:
    """`KEY=VALUE` when `git ARGS` is `git config [--local|--global] KEY VALUE` (a
    setting later git commands of the same line run with); None otherwise."""
    words_ = list(args)
    while words_ and words_[0].startswith("-"):
        words_ = words_[2:] if words_[0] in ("-C", "-c") else words_[1:]
    if words_[:1] != ["config"]:
        return None
    rest = [a for a in words_[1:] if not a.startswith("-")]
    if any(
        a.startswith("--")
        and a not in ("--local", "--global", "--worktree", "--add", "--replace-all")
        for a in words_[1:]
    ):
        return None
    if rest[:1] == ["set"]:
        rest = rest[1:]
    if len(rest) < 2:
        return None
    return f"{rest[0]}={' '.join(rest[1:])}"


def _push_settings(f: Facts, settings: dict[str, str]) -> None:
    """Settings that change what a push does: `remote.X.push=+REF` forces it,
    `remote.X.mirror` mirrors, `remote.X.url`/`pushurl` sends it somewhere new."""
    flags = list(f.flags or [])
    for key, value in settings.items():
        if not key.startswith("remote."):
            continue
        if key.endswith(".push") and (value.startswith("+") or ":+" in value):
            flags.append("force")
        elif key.endswith(".mirror") and value.lower() in ("true", "yes", "on", "1", ""):
            flags.append("mirror")
        elif key.endswith((".url", ".pushurl")) and value:
            f.network = True
            f.hosts.append(host_of(value) if "://" in value else remote_host(value))
    f.flags = flags


#: git config keys whose value is a file git reads (and may print).
_GIT_FILE_KEYS = re.compile(
    r"(?i)^(?:blame\.ignorerevsfile|commit\.template|include\.path|includeif\..*\.path"
    r"|core\.attributesfile|core\.excludesfile|mailmap\.file|gpg\.ssh\.allowedsignersfile"
    r"|http\.sslkey|http\.sslcert|http\.cookiefile|user\.signingkey)$"
)


def _git_config_pair(f: Facts, pair: str) -> None:
    key, _, value = pair.partition("=")
    if _GIT_FILE_KEYS.match(key.strip()) and value.startswith(("/", "~", ".")):
        f.read(value)
    if _GIT_CODE_KEYS.match(key.strip()):
        if key.lower().startswith("alias.") and not value.startswith("!"):
            return
        if (
            key.lower() in ("core.pager", "core.editor", "sequence.editor")
            and value in _GIT_HARMLESS_VALUES
        ):
            return
        f.hide(f"git -c {key}={value} runs code the policy cannot see")


def _git_config_command(f: Facts, operands: list[str], options: dict[str, list[str]]) -> None:
    reading = has_option(
        options,
        "--get",
        "--get-all",
        "--get-regexp",
        "-l",
        "--list",
        "--get-urlmatch",
        "--show-origin",
        "--name-only",
    ) or (operands[:1] in (["get"], ["list"]))
    if operands[:1] in (
        ["set"],
        ["unset"],
        ["get"],
        ["list"],
        ["edit"],
        ["rename-section"],
        ["remove-section"],
    ):
        operands = operands[1:]
    if has_option(options, "--global"):
        target = "~/.gitconfig"
    elif has_option(options, "--system"):
        target = "/etc/gitconfig"
    elif has_option(options, "-f", "--file"):
        target = option_values(options, "-f", "--file")[-1]
    else:
        target = ".git/config"
    if reading or (
        len(operands) < 2
        and not has_option(
            options,
            "--unset",
            "--unset-all",
            "--remove-section",
            "-e",
            "--edit",
            "--add",
            "--replace-all",
        )
    ):
        f.read(target)
        return
    f.write(target)
    if has_option(options, "-e", "--edit"):
        return
    key = operands[0] if operands else ""
    value = " ".join(operands[1:])
    _git_config_pair(f, f"{key}={value}")
    if f.hidden.startswith("git -c"):
        f.hidden = f"git config {key} {value!r} makes git run code the policy cannot see"


_GIT_VALUE_OPTIONS: dict[str, frozenset[str]] = {
    "config": words("-f --file --blob --type --default --comment"),
    "blame": words("-S --contents -L --ignore-rev --ignore-revs-file --abbrev"),
    "clone": words(
        "-o --origin -b --branch -u --upload-pack --reference --separate-git-dir "
        "--depth --shallow-since --shallow-exclude -c --config -j --jobs --template "
        "--filter --bundle-uri"
    ),
    "push": words("--receive-pack --exec -o --push-option --repo"),
    "fetch": words(
        "--upload-pack --depth --deepen --shallow-since --shallow-exclude -j --jobs "
        "--negotiation-tip --refmap -o --server-option"
    ),
    "pull": words("--upload-pack --depth -s --strategy -X --strategy-option"),
    "ls-remote": words("--upload-pack -o --server-option --sort"),
    "diff": words(
        "--output -U --unified --inter-hunk-context -O --relative --src-prefix "
        "--dst-prefix --line-prefix -S -G --word-diff-regex --color-words "
        "--diff-algorithm --anchored"
    ),
    "log": words(
        "--output -n --max-count --skip --since --after --until --before --author "
        "--committer --grep -S -G --format --pretty -L --date --encoding"
    ),
    "show": words("--output --format --pretty -U"),
    "format-patch": words(
        "-o --output-directory --subject-prefix --suffix -v --reroll-count --to --cc "
        "--from --in-reply-to"
    ),
    "grep": words("-O --open-files-in-pager -e -f -A -B -C --max-depth -m --max-count --threads"),
    "difftool": words("-x --extcmd -t --tool"),
    "mergetool": words("-t --tool"),
    "rebase": words("-x --exec --onto -s --strategy -X --strategy-option -C --whitespace"),
    "commit": words(
        "-m --message -F --file -C --reuse-message -c --reedit-message --fixup --squash "
        "--author --date -t --template --cleanup -S --gpg-sign --trailer"
    ),
    "tag": words("-m --message -F --file -u --local-user --cleanup --sort --format"),
    "checkout": words(
        "-b -B --orphan --conflict --pathspec-from-file --unified -U --inter-hunk-context "
        "--track --recurse-submodules"
    ),
    "switch": words("-c --create -C --force-create --orphan --conflict"),
    "branch": words(
        "-u --set-upstream-to --contains --no-contains --merged --no-merged --points-at "
        "--sort --format"
    ),
    "stash": words("-m --message --pathspec-from-file"),
    "reset": words("--pathspec-from-file"),
    "archive": words("-o --output --format --prefix --remote --exec --add-file --add-virtual-file"),
    "clean": words("-e --exclude"),
    "worktree": words("-b -B --reason"),
    "remote": words("-t -m"),
    "submodule": words("-b --branch --name --reference --depth -j --jobs"),
    "add": words("--chmod --pathspec-from-file"),
    "rm": words("--pathspec-from-file"),
}


def repo_code(cwd: str, git_dir: str = "") -> str:
    """A reason when the repository `cwd` is in (or the one `--git-dir` names) has
    config that makes git run a program (planted `core.fsmonitor`, `diff.external`,
    ...); "" otherwise."""
    if git_dir.startswith("/"):
        return _scan_repository(git_dir.rstrip("/") + "/config")
    if not cwd.startswith("/"):
        return ""
    directory = cwd
    for _ in range(64):
        config = _git_config_file(directory)
        if config is not None:
            return _scan_repository(config)
        parent = posixpath.dirname(directory)
        if parent == directory:
            return ""
        directory = parent
    return ""


def _scan_repository(config: str) -> str:
    """The first code-running key in a repository's config or its submodules' (which
    have configs of their own, and `git status` recurses into them)."""
    root = glob.escape(posixpath.dirname(config)) + "/modules/"
    modules = [
        path
        for pattern in ("*/config", "*/*/config", "*/modules/*/config")
        for path in glob.glob(root + pattern)
        if may_read(path)  # what the agent's git could read (viewer.py)
    ]
    if len(modules) > _MAX_MODULES:
        # the config of every one is not read: one of those not read may run a program
        return f"the repository has more than {_MAX_MODULES} submodules, whose config is not read"
    for path in [config, *sorted(modules)]:
        found = _scan_git_config(path)
        if found:
            return found
    return ""


_MAX_MODULES = 64  # submodule configs read per repository


def _git_config_file(directory: str) -> str | None:
    dot_git = directory.rstrip("/") + "/.git"
    if not may_search(directory.rstrip("/") or "/"):
        return None  # the agent's git could not look here either (viewer.py)
    try:
        if os.path.isdir(dot_git):
            return dot_git + "/config"
        if os.path.isfile(dot_git) and may_read(dot_git):
            with open(dot_git, encoding="utf-8", errors="replace") as handle:
                head = handle.read(4096)
            if head.startswith("gitdir:"):
                target = head[len("gitdir:") :].strip()
                if not target.startswith("/"):
                    target = directory.rstrip("/") + "/" + target
                return target.rstrip("/") + "/config"
    except OSError:
        return None
    return None


_REPO_CODE_KEYS = re.compile(
    r"""(?ix)^\s*(?:fsmonitor|pager|sshcommand|hookspath|askpass|gitproxy|external|textconv
        |command|clean|smudge|process|driver|difffilter|alternaterefscommand|path)\s*="""
)


def _scan_git_config(path: str) -> str:
    if os.path.exists(path) and not may_read(path):
        return ""  # git, run by the agent, could not read it either (viewer.py)
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read((1 << 20) + 1)
    except FileNotFoundError:
        return ""
    except OSError:
        # git, as the agent, may read what this process cannot: it is not known
        # what the config makes git run
        return "the repository's git config cannot be read"
    if len(text) > 1 << 20:
        return "the repository's git config is larger than 1 MiB, and is not read"
    section = ""
    for raw in text.lstrip("\ufeff").splitlines():
        line = raw.strip()
        if line.startswith("["):
            # `[core] fsmonitor = x` holds a key on the section's own line
            head, _, line = line.partition("]")
            section = head.strip("[ ").split()[0].lower() if head.strip("[ ") else ""
            line = line.strip()
            if not line:
                continue
        if _REPO_CODE_KEYS.match(line):
            key = line.split("=", 1)[0].strip().lower()
            if section in (
                "core",
                "diff",
                "filter",
                "merge",
                "interactive",
                "include",
                "includeif",
                "pager",
            ) or section.startswith(("diff", "filter", "merge", "includeif")):
                if section == "core" and key not in (
                    "fsmonitor",
                    "pager",
                    "sshcommand",
                    "hookspath",
                    "askpass",
                    "gitproxy",
                    "alternaterefscommand",
                ):
                    continue
                if section == "core" and key == "hookspath":
                    continue  # project hooks, as husky sets them: project code
                return f"the repository's git config sets {section}.{key}, which runs a program"
        if (
            section == "alias"
            and "=" in line
            and line.split("=", 1)[1].strip().startswith(("!", '"!'))
        ):
            return "the repository's git config defines a shell alias"
    return ""


#: git, by name.
HANDLERS: dict[str, Callable[[Facts], None]] = {"git": _git}
