"""git: what each subcommand reads, writes, deletes and sends, and the options and
config keys that make git run a program (`-c core.pager=...`, `config
core.fsmonitor`, `!` aliases, `--ext-diff`, `--upload-pack`, `ext::` URLs).

`repo_code` reads the config of the repository a command runs in: a value planted
there (`core.fsmonitor`, `diff.external`, a filter) runs on `git status`, so a
read-only git command in such a repository is not read-only.
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
import time
from collections.abc import Callable, Iterator, Sequence

from policy._lazy_dataclass import dataclass, field
from policy._named_tuple import NamedTuple
from policy.analysis import readonly
from policy.analysis._lazy_re import LazyPattern
from policy.analysis.operands import (
    UNKNOWN,
    Facts,
    has_option,
    host_of,
    locate,
    option_values,
    remote_host,
    split_options,
    words,
)
from policy.analysis.viewer import _viewer, may_read, may_search

__all__ = [
    "HANDLERS",
    "Inspection",
    "LineReads",
    "Repository",
    "config_setting",
    "inspect",
    "repo_code",
]


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
        import shlex  # (here and below: only a git line that uses an alias needs it)

        # `git -c alias.x='!cmd' x ARGS` runs `cmd ARGS` in a shell
        f.scripts.append(" ".join([bang[1:], *(shlex.quote(a) for a in rest[1:])]))
    for _ in range(4):  # `git -c alias.nuke='reset --hard' nuke`
        if not rest or rest[0] not in aliases:
            break
        import shlex

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
    handler = _SUBCOMMANDS.get(sub)
    if handler is not None:
        handler(f, _Call(sub, sub_args, operands, options, base, settings))
    if sub in _PRINTS_FILES:
        _read_objects(f, sub, sub_args, base)
    dump = _dumps_repository(sub, sub_args, operands, options, f.cmd.stdin)
    if not dump and sub == "archive" and _archive_printed(f, sub_args):
        dump = "every-file"
    if dump:
        f.reads.append(REPOSITORY_DUMP + dump)
    if sub == "cat-file" and f.cmd.stdin is not None and _batch_reads(sub_args) is not None:
        batch_input(f, f.cmd.stdin)  # `git cat-file --batch <<< 'HEAD:.env'`
    elif (
        sub == "remote"
        and (has_option(options, "-v", "--verbose") or operands[:1] in (["get-url"], ["show"]))
    ) or (sub == "ls-remote" and has_option(options, "--get-url")):
        # remote URLs may hold a token (`https://x:TOKEN@host/...`): what they print
        # is the config's, not a file of the work tree
        f.reads.append(UNKNOWN + "/git-config/remote-urls")
    if sub == "push":
        _push_settings(f, settings)
    elif sub in ("read-tree", "checkout-index") and has_option(options, "-u", "-f", "--force"):
        f.write(".", base=base)  # the work tree is overwritten from the index
    f.subcommand = sub
    if sub:
        f.reads.append(locate(".", base, f.home))


class _Call(NamedTuple):
    """`git SUB ARGS` as `_git` read it, handed to SUB's handler (`_SUBCOMMANDS`): the
    subcommand, its words, split into operands and options, the directory it runs in,
    and what `-c key=value` set for this run."""

    sub: str
    sub_args: list[str]
    operands: list[str]
    options: dict[str, list[str]]
    base: str | None
    settings: dict[str, str]


def _git_clone(f: Facts, call: _Call) -> None:
    operands, options, base = call.operands, call.options, call.base
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


def _git_config(f: Facts, call: _Call) -> None:
    _git_config_command(f, call.operands, call.options)


def _git_history(f: Facts, call: _Call) -> None:
    """diff, log, show, whatchanged, format-patch, blame, range-diff, reflog."""
    sub, options, base = call.sub, call.options, call.base
    f.write(*option_values(options, "--output", "-o", "--output-directory"), base=base)
    if has_option(options, "--ext-diff", "--textconv"):
        used = "--ext-diff" if has_option(options, "--ext-diff") else "--textconv"
        f.hide(f"git {sub} {used} runs the configured diff program")
    if sub == "blame":
        f.read(*option_values(options, "-S", "--contents", "--ignore-revs-file"), base=base)


def _git_grep(f: Facts, call: _Call) -> None:
    sub_args, options = call.sub_args, call.options
    if has_option(options, "-O", "--open-files-in-pager") or any(
        a.startswith("--open") and "--open-files-in-pager".startswith(a.split("=", 1)[0])
        for a in sub_args
    ):
        f.hide("git grep -O runs a pager")


def _git_tool(f: Facts, call: _Call) -> None:
    """difftool, mergetool."""
    sub, options = call.sub, call.options
    if has_option(options, "-x", "--extcmd", "-t", "--tool"):
        f.hide(f"git {sub} runs the tool it is given")


def _git_rebase(f: Facts, call: _Call) -> None:
    for command in option_values(call.options, "-x", "--exec"):
        f.scripts.append(command)


def _git_submodule(f: Facts, call: _Call) -> None:
    operands = call.operands
    if operands[:1] == ["foreach"]:
        script = " ".join(operands[1:])
        if script:
            f.scripts.append(script)


def _git_bisect(f: Facts, call: _Call) -> None:
    operands, sub_args = call.operands, call.sub_args
    if operands[:1] == ["run"]:
        after = sub_args[sub_args.index("run") + 1 :] if "run" in sub_args else []
        if after:
            f.argvs.append(list(after))  # the command and its own options, as written


def _git_clean(f: Facts, call: _Call) -> None:
    operands, options, base, settings = call.operands, call.options, call.base, call.settings
    unguarded = settings.get("clean.requireforce", "").lower() in ("false", "no", "off", "0")
    # `-i` needs no -f, and takes its answers from the input (`echo c | git clean -i`)
    unguarded = unguarded or has_option(options, "-i", "--interactive")
    if unguarded and not has_option(options, "-f", "--force"):
        f.flags = [*(f.flags or []), "force"]  # clean.requireForce=false: no -f needed
    if (has_option(options, "-f", "--force") or unguarded) and not has_option(
        options, "-n", "--dry-run"
    ):
        targets = operands or ["."]
        f.delete(*targets, base=base)
        f.recursive = has_option(options, "-d")


def _git_rm(f: Facts, call: _Call) -> None:
    operands, options, base = call.operands, call.options, call.base
    if has_option(options, "--cached"):
        f.write(".git", base=base)  # only the index: the files stay
    else:
        f.delete(*operands, base=base)
        f.recursive = has_option(options, "-r")


#: Subcommands that change the repository (`.git`) and perhaps files of the work tree.
_CHANGES_REPOSITORY = frozenset(
    "checkout restore reset stash apply am mv merge pull cherry-pick revert switch worktree "
    "init add commit tag branch update-ref notes gc prune filter-branch replace rebase".split()
)


def _git_changes_repository(f: Facts, call: _Call) -> None:
    """The subcommands of `_CHANGES_REPOSITORY`."""
    sub, sub_args, operands, options, base = (
        call.sub, call.sub_args, call.operands, call.options, call.base
    )
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


def _git_branch_or_tag(f: Facts, call: _Call) -> None:
    if readonly.reads_only("git", [call.sub, *call.sub_args]):
        return  # a listing
    _git_changes_repository(f, call)


def _git_credential(f: Facts, call: _Call) -> None:
    if call.operands[:1] == ["fill"]:
        f.reads.append(locate("~/.git-credentials", call.base, f.home))


def _git_merge_file(f: Facts, call: _Call) -> None:
    _merge_file(f, call.sub_args, call.base)


def _git_unpack_file(f: Facts, call: _Call) -> None:
    f.write(".merge_file_??????", base=call.base)  # the blob's contents, in a file here


#: What `git SUB` does by its subcommand, besides what `_git` reads for every one
#: (global options, `-c` settings, aliases before; objects printed, the repository
#: handed out, remote URLs after). `rebase`, `branch` and `tag` change the repository
#: too: their own entries replace `_git_changes_repository` (`rebase`: its `--exec`
#: is what is looked at; `branch` and `tag`: a listing changes nothing).
_SUBCOMMANDS: dict[str, Callable[[Facts, _Call], None]] = {
    **dict.fromkeys(_CHANGES_REPOSITORY, _git_changes_repository),
    "clone": _git_clone,
    "config": _git_config,
    **dict.fromkeys(
        "diff log show whatchanged format-patch blame range-diff reflog".split(), _git_history
    ),
    "grep": _git_grep,
    "difftool": _git_tool,
    "mergetool": _git_tool,
    "rebase": _git_rebase,
    "submodule": _git_submodule,
    "bisect": _git_bisect,
    "clean": _git_clean,
    "rm": _git_rm,
    "branch": _git_branch_or_tag,
    "tag": _git_branch_or_tag,
    "credential": _git_credential,
    "merge-file": _git_merge_file,
    "unpack-file": _git_unpack_file,
}

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
_GIT_CODE_KEYS = LazyPattern(
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
_GIT_FILE_KEYS = LazyPattern(
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
        for blob in option_values(options, "--blob"):
            found = _object_path(blob)  # `--blob HEAD:.env`: a file the commit holds
            f.read(found[0] if found is not None else UNKNOWN + "/git-object/" + blob)
        if has_option(options, "-f", "--file", "--global", "--system"):
            f.read(target)  # (`-f ~/.aws/credentials -l`: git reads any INI file)
        else:
            # the repository's config as git finds it: its remote URLs and
            # http.extraheader may hold tokens, and no explicit allow is given for
            # what it prints (the place is not `.git/config` in every repository)
            f.reads.append(UNKNOWN + "/git-config/" + (operands[0] if operands else "list"))
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
    "show": words("--output --format --pretty -U -S -G"),
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


# ------------------------------------------------------------------ config discovery
#
# git reads its config from files nobody names on the command line: the repository
# found by walking up from the directory it runs in (a `.git` directory, a `.git`
# file saying `gitdir: PATH`, or a bare repository: a directory holding HEAD,
# objects/ and refs/), that repository's common directory (`commondir`), its
# `config.worktree`, every file an `include.path` or `includeIf.*.path` names, and
# the user's and the system's config. A program named in any of them runs on
# `git status`. They are found here as git finds them, within caps: a cap met is a
# reason, never a pass.

_MAX_CONFIG_FILES = 64  # config files read for one repository, includes counted
_MAX_CONFIG_BYTES = 4 << 20  # bytes read from them together
_MAX_FILE_BYTES = 1 << 20  # one file
_MAX_INCLUDE_DEPTH = 10  # git's own limit
_MAX_WALK_UP = 64  # directories looked at above the one git runs in
_MAX_MODULES = 64  # submodule configs read per repository
_MAX_MODULE_ENTRIES = 4096  # directory entries looked at under `modules/` to find them
#: What git keeps in a git directory, where no submodule's git directory is (a
#: submodule's own submodules are in its `modules/`; a name that goes on from
#: another's, `a` then `a/b`, is below it but never one of these).
_GIT_OWN = frozenset(
    "objects refs logs hooks info lfs worktrees branches rr-cache svn remotes".split()
)


@dataclass(frozen=True, slots=True)
class _Setting:
    section: str  # lower case
    subsection: str  # as written ("" when none)
    key: str  # lower case
    value: str


@dataclass(frozen=True, slots=True)
class Repository:
    """Where git finds a repository: its git directory, the common directory that
    holds its config, and its work tree ("" for a bare repository)."""

    git_dir: str
    common_dir: str
    top: str


@dataclass(slots=True)
class Inspection:
    """What the config git would read says about one git command."""

    #: Why git may run a program the command does not name ("" when it runs none).
    reason: str = ""
    repository: Repository | None = None
    #: Every config file git would read (includes followed), and the directories
    #: `core.hooksPath` names: writing one of them changes what git runs.
    files: list[str] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)


def repo_code(
    cwd: str,
    git_dir: str = "",
    *,
    home: str = "",
    env: Sequence[str] = (),
    subcommand: str = "",
) -> str:
    """A reason when the config git would read, run in `cwd` (or on the repository
    `--git-dir` names), makes it run a program (a planted `core.fsmonitor`,
    `diff.external`, a filter, ...); "" otherwise."""
    return inspect(cwd, git_dir, home=home, env=env, subcommand=subcommand).reason


def inspect(
    cwd: str,
    git_dir: str = "",
    *,
    home: str = "",
    env: Sequence[str] = (),
    subcommand: str = "",
    reads: LineReads | None = None,
) -> Inspection:
    """The repository git would use run in `cwd` and what its config makes it run.
    `reads`: what the inspections of the same line read already (`LineReads`)."""
    variables = _variables(env)
    found = Inspection()
    if not git_dir and "GIT_DIR" in variables:
        git_dir = variables["GIT_DIR"]
    if git_dir and not git_dir.startswith("/"):
        if not cwd.startswith("/"):
            found.reason = "git is pointed at a repository whose place is not known"
            return found
        git_dir = posixpath.normpath(posixpath.join(cwd, git_dir))
    if not git_dir and not cwd.startswith("/"):
        return found
    try:
        repository = _discover(cwd, git_dir, variables)
    except _Unjudged as exc:
        found.reason = str(exc)
        return found
    found.repository = repository
    reader = _Reader(home, subcommand, reads)
    for path, strict in _config_files(repository, home, variables, reads):
        reader.scan(path, strict, 0)
        if reader.stopped():
            break
    own_hooks = list(reader.hooks)  # (a submodule's hooksPath is its own: below)
    if not reader.stopped() and repository is not None:
        reader.submodules(repository.common_dir)
    if not reader.stopped() and repository is not None and subcommand in _INTO_SUBMODULES:
        reader.checked_out(repository)
    found.reason = reader.reason
    found.files = reader.files
    if repository is not None:
        # a relative core.hooksPath is taken from where hooks run: the work tree's top
        where = repository.top or repository.git_dir
        found.hooks = [_at(where, h, home) for h in reader.hooks]
        if not found.reason:
            own = [_at(where, h, home) for h in own_hooks]
            found.reason = _index_hook(own, repository)
        if not found.reason and subcommand in _INTO_SUBMODULES:
            for git_dir, top in reader.module_dirs:
                found.reason = _module_hook(git_dir, top, home, subcommand)
                if found.reason:
                    break
    return found


def _module_hook(git_dir: str, top: str, home: str, subcommand: str) -> str:
    """`_index_hook` of a submodule, for a command that runs git in it (`git status`
    there refreshes its index): its own last `core.hooksPath` — its configs read as
    git reads them (the common directory's too, `config.worktree`, includes
    followed) — from its work tree: where its `core.worktree` says, else where it was
    found checked out (`top`); a relative one from a work tree not known is a reason.
    Without one, the common directory's `hooks`."""
    try:
        repository = Repository(git_dir, _common_dir(git_dir, {}, git_dir), top)
    except _Unjudged as exc:
        return str(exc)
    reader = _Reader(home, subcommand)
    for path in _repository_configs(repository):
        reader.scan(path, True, 0)
        if reader.stopped():
            return reader.reason
    settings, _ = _settings_of(repository.common_dir + "/config")
    named = [s.value for s in settings if (s.section, s.key) == ("core", "worktree")]
    if named and named[-1]:  # (git takes it over where the `.git` it came by is)
        top = _real(posixpath.join(git_dir, named[-1]))
    paths = [h for h in reader.hooks if h]
    if paths and not paths[-1].startswith(("/", "~")) and not top:
        return (
            f"a submodule's config ({git_dir}/config) sets core.hooksPath relative to a "
            "work tree the policy does not know: the hooks git runs there are not known"
        )
    directory = _at(top, paths[-1], home) if paths else repository.common_dir + "/hooks"
    return _index_hook([directory], repository)


def _index_hook(hooks: list[str], repository: Repository) -> str:
    """Why git runs a program of the repository's when it only refreshes the index —
    as `git status` and `git diff` do when a file's times changed (any tree unpacked
    from an archive): an executable `post-index-change` in the hooks directory git
    uses (the last `core.hooksPath`, else the common directory's `hooks`); ""
    otherwise. The other hooks run on commands that write, which are not read-only."""
    directory = hooks[-1] if hooks else repository.common_dir + "/hooks"
    hook = directory.rstrip("/") + "/post-index-change"
    if not _git_may_enter(hook) or os.path.isdir(hook):
        return ""
    return f"git runs {hook} (a post-index-change hook) whenever it refreshes the index"


def _at(base: str, value: str, home: str) -> str:
    """A path a config names, as git's `interpolate_path` and the kernel take it:
    `~/` the home, `~user/` that user's, `..` after a link the link's parent."""
    if (value.startswith("~/") or value == "~") and home:
        value = home.rstrip("/") + value[1:]
    elif value.startswith("~") and value[1:2] not in ("", "/"):
        user, _, rest = value[1:].partition("/")
        try:
            import pwd

            value = pwd.getpwnam(user).pw_dir.rstrip("/") + "/" + rest
        except (KeyError, ValueError):
            return "/?/unknown-user-home"  # (git cannot expand it either: nothing runs)
    return _real(posixpath.join(base, value))


def _real(path: str) -> str:
    """`path` resolved as the kernel resolves it (`..` after a link), cut at a NUL as
    git, reading it as a C string, cuts it."""
    return os.path.realpath(path.split("\0", 1)[0])


def _variables(env: Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for assignment in env:
        name, equals, value = assignment.partition("=")
        if equals:
            found[name] = value
    return found


class _Unjudged(Exception):
    """Where git finds its repository cannot be told within the caps: a reason."""


def _discover(cwd: str, git_dir: str, variables: dict[str, str]) -> Repository | None:
    """The repository git would use: the one named, else the first found walking up
    from `cwd` — `DIR/.git` (a directory, or a file saying `gitdir: PATH`), else DIR
    itself when it is a bare repository. _Unjudged past the caps."""
    if git_dir:
        target = _gitfile_target(git_dir) if os.path.isfile(git_dir) else None
        named = target or git_dir
        work_tree = variables.get("GIT_WORK_TREE", "")
        top = posixpath.normpath(posixpath.join(cwd, work_tree)) if work_tree else cwd
        return Repository(named, _common_dir(named, variables, cwd), top)
    # (git walks up from `getcwd()`: the directory's real path, links resolved)
    real = _real(cwd).rstrip("/") or "/"
    directory = real
    for _ in range(_MAX_WALK_UP):
        if may_search(directory):  # the agent's git could not look here either (viewer.py)
            dot_git = directory.rstrip("/") + "/.git"
            try:
                kind = _kind_of(dot_git)  # (one look: most directories have no `.git`)
                common = _git_directory(dot_git, variables, cwd) if kind == "dir" else ""
                if common:
                    return Repository(dot_git, common, _as_spelt(directory, real, cwd))
                if kind == "file":
                    target = _gitfile_target(dot_git)
                    if target:
                        common = _common_dir(target, variables, cwd)
                        return Repository(target, common, _as_spelt(directory, real, cwd))
                common = _git_directory(directory, variables, cwd)
                if common:
                    return Repository(directory, common, "")
            except OSError:
                pass
        parent = posixpath.dirname(directory)
        if parent == directory:
            return None
        directory = parent
    raise _Unjudged(
        f"git runs more than {_MAX_WALK_UP} directories below where it may find its "
        "repository, which the policy does not look for"
    )


def _kind_of(path: str) -> str:
    """"dir", "file" (a regular one) or "" for what `path` leads to, links followed:
    `os.path.isdir` and `os.path.isfile` in one `stat`."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return ""
    if stat.S_ISDIR(mode):
        return "dir"
    return "file" if stat.S_ISREG(mode) else ""


def _as_spelt(top: str, real: str, cwd: str) -> str:
    """The work tree's top `top` (found walking up `real`, the real path of `cwd`) as
    `cwd` spells it, when `cwd` goes down to it the same way (a workspace reached
    through a linked home); else as found."""
    if real != top and not real.startswith(top.rstrip("/") + "/"):
        return top
    below = real[len(top) :].lstrip("/")
    spelt = cwd.rstrip("/") or "/"
    if below and not spelt.endswith("/" + below):
        return top  # (cwd does not go down to it the same way)
    candidate = (spelt[: -len(below) - 1] or "/") if below else spelt
    if candidate == top:
        return top  # (spelt as found: no link on the way, most of the time)
    return candidate if _real(candidate) == top else top


def _git_directory(directory: str, variables: dict[str, str], cwd: str) -> str:
    """The common directory of `directory` when it passes git's own test of a git
    directory (`is_git_directory`): a HEAD that is a ref or an object name, and objects
    and refs in the common directory it may `access(X_OK)`; "" otherwise — a
    directory with an invalid HEAD is walked past, as git walks past it."""
    if not _valid_head(directory + "/HEAD"):
        return ""
    common = _common_dir(directory, variables, cwd)
    objects = variables.get("GIT_OBJECT_DIRECTORY") or common + "/objects"
    if _git_may_enter(objects) and _git_may_enter(common + "/refs"):
        return common
    return ""


_OBJECT_NAME = LazyPattern(r"[0-9a-fA-F]{40}")


def _valid_head(path: str) -> bool:
    """git's `validate_headref`: a link to `refs/...`, or a file (its first 255
    bytes) saying `ref:` then `refs/...`, or starting with an object name."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return os.readlink(path)[:5] == "refs/"
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            head = os.read(fd, 255)  # (git reads no more)
        finally:
            os.close(fd)
    except OSError:
        return False
    if head.startswith(b"ref:"):
        return head[4:].lstrip(b" \t\r\n").startswith(b"refs/")
    return _OBJECT_NAME.match(head.decode("ascii", "replace")) is not None


def _git_may_enter(path: str) -> bool:
    """git's `access(path, X_OK)`, as the uid the analysis looks as: a directory it
    may search, or a file with an execute bit it may use."""
    looking = _viewer.get()
    if looking is None:
        return os.access(path, os.X_OK)
    real = _real(path)  # (where the kernel goes: the viewer's rights on every step)
    try:
        info = os.stat(real)
    except OSError:
        return False
    if not looking.reaches(real):
        return False
    if looking.uid == 0:
        return stat.S_ISDIR(info.st_mode) or bool(info.st_mode & 0o111)
    return looking.allows(real, 1)


def _gitfile_target(path: str) -> str | None:
    """Where a `.git` file (`gitdir: PATH`, relative to the file) points; None if it
    does not say."""
    head = _small_file(path)
    # (git's own reading: "gitdir: " and the rest of the file, less the line ends at
    # its end; a space after the colon or before the end is part of the path, and
    # `..` in it is the kernel's: after a link, not before)
    if head is None or not head.startswith("gitdir: "):
        return None
    target = head[len("gitdir: ") :].split("\0", 1)[0].rstrip("\r\n")
    if not target:
        return None
    return _real(posixpath.join(posixpath.dirname(path), target))


def _common_dir(git_dir: str, variables: dict[str, str], cwd: str) -> str:
    """`GIT_COMMON_DIR`, else what `GIT_DIR/commondir` says (relative to GIT_DIR),
    else the git directory itself: where the repository's config lives."""
    named = variables.get("GIT_COMMON_DIR", "")
    if named:
        return posixpath.normpath(posixpath.join(cwd, named))
    text = _small_file(git_dir + "/commondir")
    if not text:
        return git_dir
    # (git's own reading: the file less the line ends at its end, spaces and all, its
    # links resolved)
    return _real(posixpath.join(git_dir, text.split("\0", 1)[0].rstrip("\r\n")))


#: A `.git` file or `commondir` larger than this is not read: where git finds the
#: repository is then not known (a reason).
_MAX_POINTER_BYTES = 64 * 1024


def _small_file(path: str, *, whole: bool = True) -> str | None:
    """A regular file the agent may read; None otherwise. Its bytes as they are: no
    line end translated (git reads `\\r` as a character of a path), and bytes that
    are not UTF-8 kept as the file system's names keep them (`surrogateescape`), so
    a path read from it names what git's names. `whole`: all of it, _Unjudged past
    `_MAX_POINTER_BYTES`; else its first 4 KiB (an ignore file: rules left unread only
    make fewer files ignored)."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or not may_read(path):
            return None
        data = _read_at_most(path, _MAX_POINTER_BYTES + 1 if whole else 4096)
    except OSError:
        return None
    if whole and len(data) > _MAX_POINTER_BYTES:
        raise _Unjudged(f"{path} is larger than the policy reads: where git looks is not known")
    return data.decode("utf-8", "surrogateescape")


#: Where git looks for the system config (`$(prefix)/etc/gitconfig`), on the common
#: installs: Linux packages, Homebrew, Xcode's command-line tools.
_SYSTEM_CONFIGS = (
    "/etc/gitconfig",
    "/usr/local/etc/gitconfig",
    "/opt/homebrew/etc/gitconfig",
    "/Library/Developer/CommandLineTools/usr/share/git-core/gitconfig",
)


def _config_files(
    repository: Repository | None,
    home: str,
    variables: dict[str, str],
    reads: LineReads | None = None,
) -> list[tuple[str, bool]]:
    """The config files git reads, in its order, each with whether it is the
    repository's own (judged strictly: anything in it may have been planted) or the
    user's and the system's (judged on what runs on a plain `git status`)."""
    files: list[tuple[str, bool]] = []
    if not variables.get("GIT_CONFIG_NOSYSTEM"):
        named = variables.get("GIT_CONFIG_SYSTEM", "")
        for path in (named,) if named else _SYSTEM_CONFIGS:
            # (a system file only the administrator writes is theirs)
            writable = None if reads is None else reads.writable.get(path)
            if writable is None:
                writable = _agent_may_write(path)
                if reads is not None:
                    reads.writable[path] = writable
            if writable:
                files.append((path, False))
    named = variables.get("GIT_CONFIG_GLOBAL", "")
    if named:
        files.append((named, False))
    elif home:
        xdg = variables.get("XDG_CONFIG_HOME", "") or home.rstrip("/") + "/.config"
        files += [(xdg + "/git/config", False), (home.rstrip("/") + "/.gitconfig", False)]
    if repository is not None:
        files += [(path, True) for path in _repository_configs(repository)]
    return files


def _repository_configs(repository: Repository) -> list[str]:
    """The config files of the repository itself, in git's order."""
    files = [repository.common_dir + "/config"]
    if repository.git_dir != repository.common_dir:
        files.append(repository.git_dir + "/config")
    files.append(repository.git_dir + "/config.worktree")
    if repository.git_dir != repository.common_dir:
        files.append(repository.common_dir + "/config.worktree")
    return files


def _agent_may_write(path: str) -> bool:
    """Whether the uid the analysis looks as may write `path` (by its mode bits)."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    looking = _viewer.get()
    uid = looking.uid if looking is not None else os.geteuid()
    return uid == 0 or info.st_uid == uid or bool(info.st_mode & 0o002)


class LineReads:
    """What the config files of one command line said, read once for the line (and
    whether the agent may write each system config): a line that writes in two
    directories inspects where git would find a repository for each, and both read
    the same user's and system's configs. One line's reads are one look at the disk,
    as one inspection's are."""

    __slots__ = ("settings", "writable")

    def __init__(self) -> None:
        self.settings: dict[str, tuple[tuple[_Setting, ...], str]] = {}
        self.writable: dict[str, bool] = {}


class _Reader:
    """Reads config files and the files they include, within the caps, and keeps the
    first reason git would run a program."""

    def __init__(self, home: str, subcommand: str, reads: LineReads | None = None) -> None:
        self.home = home
        self.reads = reads
        self.subcommand = subcommand.lower()
        self.reason = ""
        self.files: list[str] = []
        self.hooks: list[str] = []
        self.bytes = 0
        self.submodule_count = 0
        #: The submodules found: (git directory, work tree's top or ""); their hooks
        #: run too.
        self.module_dirs: list[tuple[str, str]] = []

    def scan(self, path: str, strict: bool, depth: int) -> None:
        if self.reason:
            return
        if depth > _MAX_INCLUDE_DEPTH:
            self.reason = f"git config includes are nested more than {_MAX_INCLUDE_DEPTH} deep"
            return
        if len(self.files) >= _MAX_CONFIG_FILES:
            self.reason = f"git would read more than {_MAX_CONFIG_FILES} config files"
            return
        self.files.append(path)
        reads = self.reads
        found = None if reads is None else reads.settings.get(path)
        if found is None:
            found = _settings_of(path)
            if reads is not None:
                reads.settings[path] = found
        settings, why = found
        if why:
            self.reason = why
            return
        self.bytes += sum(len(s.value) + len(s.key) for s in settings)
        if self.bytes > _MAX_CONFIG_BYTES:
            self.reason = "git's config files are larger than the policy reads"
            return
        where = _origin(path, strict)
        for setting in settings:
            if setting.section in ("include", "includeif") and setting.key == "path":
                target = self._included(path, setting.value)
                if target is None:
                    self.reason = f"{where} includes a file whose place is not known"
                    return
                self.scan(target, strict, depth + 1)
                if self.stopped():
                    return
                continue
            if setting.section == "core" and setting.key == "hookspath" and setting.value:
                self.hooks.append(setting.value)  # (relative to where hooks run)
            if _runs_program(setting, strict, self.subcommand):
                name = ".".join(p for p in (setting.section, setting.subsection, setting.key) if p)
                self.reason = f"{where} sets {name}, which runs a program"
                return

    def submodules(self, common_dir: str) -> None:
        """Submodules have configs of their own, and `git status` recurses into them:
        every `config` below `modules/` (a submodule's name may hold slashes, one
        name may be the start of another's, and a submodule's own submodules sit in its
        `modules/`), links followed, within caps; a directory there the policy cannot
        list is a reason (git reaches a config in it by name). Each submodule's
        `post-index-change` hook counts as the repository's own (`_index_hook`)."""
        top = common_dir + "/modules"
        if not os.path.isdir(top):
            return  # (most repositories: one stat instead of a directory walk)
        modules: list[str] = []
        pending = [top]
        visited: set[tuple[int, int]] = set()
        seen = 0
        while pending:
            directory = pending.pop()
            seen += 1
            if seen > _MAX_MODULE_ENTRIES or len(modules) > _MAX_MODULES:
                self.reason = (
                    f"the repository has more submodules than the policy reads "
                    f"({_MAX_MODULES} configs, {_MAX_MODULE_ENTRIES} entries under modules/)"
                )
                return
            try:
                info = os.stat(directory)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) in visited:
                continue  # (a link back to where the walk has been)
            visited.add((info.st_dev, info.st_ino))
            if not may_search(directory):
                continue  # (the agent's git could not look here either: viewer.py)
            config = directory + "/config"
            module = directory != top and os.path.isfile(config)
            if module:
                # a submodule's git directory: its config; its hook; below it, its own
                # submodules and the submodules whose names go on from its
                if may_read(config):
                    modules.append(config)
                self.module_dirs.append((directory, ""))
            try:
                with os.scandir(directory) as entries:
                    for entry in entries:
                        seen += 1
                        if module and entry.name in _GIT_OWN:
                            continue  # (a git directory's own: no submodule below)
                        if entry.is_dir():
                            pending.append(entry.path)
            except OSError:
                self.reason = (
                    f"{directory} cannot be listed: the submodules git may find in it are "
                    "not known"
                )
                return
        for path in sorted(modules):
            self.scan(path, True, 0)
            if self.stopped():
                return

    def checked_out(self, repository: Repository, depth: int = 0) -> None:
        """Submodules checked out in the work tree: `git status` runs in each, which
        reads the config of whatever repository its `.git` names — a directory of its
        own, or a `gitdir:` anywhere, not only below `.git/modules` — and recurses into
        its submodules in turn (within `_MAX_INCLUDE_DEPTH` and `_MAX_MODULES`)."""
        if not repository.top:
            return
        links = _gitlinks(repository)
        if links is None:
            self.reason = "the repository's index cannot be read: its submodules are not known"
            return
        for relative in links:
            here = repository.top.rstrip("/") + "/" + relative
            if not os.path.lexists(here + "/.git"):
                continue  # (not checked out: nothing runs there)
            self.submodule_count += 1
            if self.submodule_count > _MAX_MODULES or depth >= _MAX_INCLUDE_DEPTH:
                self.reason = (
                    f"the repository has more checked-out submodules than the policy reads "
                    f"({_MAX_MODULES}, {_MAX_INCLUDE_DEPTH} deep)"
                )
                return
            try:
                child = _discover(here, "", {})
            except _Unjudged as exc:
                self.reason = str(exc)
                return
            if child is None or child.top.rstrip("/") != here.rstrip("/"):
                continue  # (no repository of its own there: git runs nothing in it)
            self.module_dirs.append((child.git_dir, child.top))
            read = set(self.files)
            for path in _repository_configs(child):
                if not os.path.lexists(path) or path in read:
                    continue  # (not there; or read already, by the modules walk)
                self.scan(path, True, 0)
                if self.stopped():
                    return
            self.checked_out(child, depth + 1)
            if self.stopped():
                return

    def stopped(self) -> bool:
        return bool(self.reason)

    def _included(self, including: str, value: str) -> str | None:
        if value.startswith("%(prefix)/"):
            return None
        return self._located(including, value)

    def _located(self, including: str, value: str) -> str | None:
        """A path a config file names: `~/` is the home, relative is to the file."""
        if value.startswith("~/") or value == "~":
            if not self.home:
                return None
            value = self.home.rstrip("/") + value[1:]
        elif value.startswith("~"):
            return None
        # (`..` after a link is the kernel's, as git opens the path it joined)
        return _real(posixpath.join(posixpath.dirname(including), value))


def _origin(path: str, strict: bool) -> str:
    if path.endswith("/config.worktree"):
        return "the repository's worktree config"
    if path.endswith("/config") and strict:
        return "the repository's git config"
    return f"the git config {path}"


_PARSED: dict[bytes, tuple[_Setting, ...]] = {}
_MAX_PARSED = 256  # parsed files remembered, by their bytes
_MAX_PARSED_BYTES = 16 * 1024  # a larger file is parsed at each reading


def _settings_of(path: str) -> tuple[tuple[_Setting, ...], str]:
    """The settings of a config file, and why it cannot be judged ("" if it can). A
    file that is not there, or that the agent could not read, holds none for git.
    Only a regular file is opened (a device a config names is never), and what was
    opened is looked at again (a file swapped after the `stat` is not the one read)."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return (), ""
    except OSError:
        return (), f"the git config {path} cannot be looked at"
    if stat.S_ISDIR(info.st_mode):
        return (), ""  # git cannot read a directory as config either
    if not may_read(path):
        return (), ""  # git, run by the agent, could not read it either (viewer.py)
    if not stat.S_ISREG(info.st_mode):
        return (), f"the git config {path} is not a regular file"
    if info.st_size > _MAX_FILE_BYTES:
        return (), f"the git config {path} is larger than 1 MiB, and is not read"
    try:
        data = _read_at_most(path, _MAX_FILE_BYTES + 1)
    except OSError:
        # git, as the agent, may read what this process cannot: it is not known
        # what the config makes git run
        return (), f"the git config {path} cannot be read"
    if len(data) > _MAX_FILE_BYTES:
        return (), f"the git config {path} is larger than 1 MiB, and is not read"
    # Read at every call and recalled by what it says: a file's times and size say
    # nothing sure of its contents (whoever writes it may set its mtime back, and
    # two writes in one clock tick leave the same times), so a parse kept by them
    # could judge a config planted since as the one read before.
    settings = _PARSED.get(data)
    if settings is None:
        settings = tuple(_parse_config(data.decode("utf-8", "surrogateescape")))
        if len(data) <= _MAX_PARSED_BYTES:
            if len(_PARSED) >= _MAX_PARSED:
                _PARSED.clear()
            _PARSED[data] = settings
    return settings, ""


def _read_at_most(path: str, size: int) -> bytes:
    """The first `size` bytes of the regular file at `path`; OSError for anything
    else (a FIFO never blocks it)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # (swapped since it was looked at)
            raise OSError(f"{path} is not a regular file")
        return _read_open(fd, size, info.st_size)
    finally:
        os.close(fd)


def _read_open(fd: int, size: int, length: int) -> bytes:
    """The first `size` bytes of open file `fd`, which held `length` bytes when looked
    at (-1: not known): read until that many came, or the end; bytes appended since
    are what a later read would have missed too."""
    chunks: list[bytes] = []
    got = 0
    while got < size:
        chunk = os.read(fd, min(size - got, 1 << 16))
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
        if got == length:
            break
    return b"".join(chunks)


_SECTION = LazyPattern(r'\[\s*([A-Za-z0-9.-]*)\s*(?:"((?:[^"\\]|\\.)*)")?\s*\]')
_KEY = LazyPattern(r"([A-Za-z][A-Za-z0-9-]*)\s*(=?)")


#: What git's config parser takes for space (its `isspace`): nothing else.
_GIT_SPACE = " \t\r\n"


def _git_lines(text: str) -> list[str]:
    """`text` in lines as git reads a config or ignore file: ended by `\\n` alone (a
    `\\r` just before it is dropped); the other characters Python's `splitlines`
    breaks at (`\\r`, form feeds, U+2028...) are characters of the line to git."""
    lines = text.split("\n")
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def _parse_config(text: str) -> Iterator[_Setting]:
    """git's config syntax: `[section "sub"]` or `[section.sub]` headers (a key may
    follow on the same line), `key = value` with quotes, escapes, comments and
    backslash continuations; a key with no `=` is true. Lines and space as git's
    parser knows them (`_git_lines`, `_GIT_SPACE`): a value Python would split or trim
    otherwise could open a section or read as a boolean git does not see."""
    lines = _git_lines(text.removeprefix("\ufeff"))
    section = subsection = ""
    index = 0
    while index < len(lines):
        line = lines[index].strip(_GIT_SPACE)
        index += 1
        bad = False
        while line.startswith("["):  # (`[x][core] fsmonitor = ...`: git reads them all)
            match = _SECTION.match(line)
            if match is None:
                bad = True  # git stops at a bad header: what follows never runs
                break
            name = match[1]
            if match[2] is not None:
                section, subsection = name.lower(), re.sub(r"\\(.)", r"\1", match[2])
            else:
                section, _, rest = name.partition(".")
                section, subsection = section.lower(), rest.lower()
            line = line[match.end() :].strip(_GIT_SPACE)
        if bad or not line or line[0] in "#;":
            continue
        match = _KEY.match(line)
        if match is None:
            continue
        raw = line[match.end() :] if match[2] else ""
        value, more = _value(raw)
        while more and index < len(lines):
            raw = raw[:-1] + lines[index]
            index += 1
            value, more = _value(raw)
        yield _Setting(section, subsection, match[1].lower(), value)


def _value(raw: str) -> tuple[str, bool]:
    """A value as git's `parse_value` makes it: space before it skipped, space after
    it trimmed unless quoted (`"false "` is no boolean to git), nothing else; and
    whether it goes on on the next line (a backslash at its end — not in a comment,
    where git skips it with the rest)."""
    out: list[str] = []
    quoted = False
    trim: int | None = None  # where unquoted space at the end begins
    index = 0
    while index < len(raw):
        char = raw[index]
        index += 1
        if char in _GIT_SPACE and not quoted:
            if trim is None:
                trim = len(out)
            if out:
                out.append(char)
            continue
        if char in "#;" and not quoted:
            break
        trim = None
        if char == "\\":
            if index == len(raw):
                return "".join(out), True
            escaped = raw[index]
            index += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(escaped, escaped))
        elif char == '"':
            quoted = not quoted
        else:
            out.append(char)
    if trim is not None:
        del out[trim:]
    return "".join(out), False


_BOOLEANS = frozenset({"", "true", "false", "yes", "no", "on", "off", "1", "0"})
_PLAIN_PAGER = LazyPattern(r"^(?:less|more|most|cat|delta|bat|diff-so-fancy)(?:\s+-[-\w=]*)*$")
_LFS = LazyPattern(r"^git-lfs (?:clean|smudge|filter-process)(?: --skip)?(?: -- %f)?$")


def _runs_program(setting: _Setting, strict: bool, subcommand: str) -> bool:
    """Whether git runs a program `setting` names. `strict`: the repository's own
    config, where anything that runs a program may have been planted; otherwise the
    user's or the system's, judged on what runs on an everyday local command (a
    pager, an ssh command or a signing program set up there is the user's own)."""
    section, key, value = setting.section, setting.key, setting.value
    if section == "core":
        if key == "fsmonitor":
            return value.lower() not in _BOOLEANS
        if key == "pager":
            return strict and value not in _GIT_HARMLESS_VALUES and not _PLAIN_PAGER.match(value)
        return strict and key in ("sshcommand", "askpass", "gitproxy", "alternaterefscommand")
    if section == "pager":
        return (
            strict
            and value.lower() not in _BOOLEANS
            and value not in _GIT_HARMLESS_VALUES
            and not _PLAIN_PAGER.match(value)
        )
    if section == "diff":
        if key == "external":
            return bool(value)
        return (
            bool(setting.subsection)
            and key in ("command", "textconv")
            and value not in _GIT_HARMLESS_VALUES
        )
    if section == "filter":
        return key in ("clean", "smudge", "process") and bool(value) and not _LFS.match(value)
    if section == "alias":
        name = setting.subsection.lower() or key
        shell = value.lstrip().startswith("!")
        return shell and (strict or name == subcommand)
    if not strict:
        return False
    if section == "merge":
        return bool(setting.subsection) and key == "driver"
    if section == "interactive":
        return key == "difffilter"
    if section == "gpg":
        return key == "program"
    if section == "uploadpack":
        return key == "packobjectshook"
    if section == "remote":
        return key in ("uploadpack", "receivepack")
    return False


# ------------------------------------------------------------------ object reads
#
# `git show HEAD:.env` prints `.env` as the commit holds it: a read of that file,
# judged like `cat .env`. An object is named by the path it has in a tree
# (`REV:path`, relative to the work tree's top; `REV:./path`, to the directory git
# runs in), in the index (`:path`, `:2:path`), or by pathspecs (`-- '*.pem'`,
# `:(glob)**/id_*`, `:/x`). An object named only by its hash (`git cat-file blob
# SHA`, `--batch`) may be any file: its read is of an unknown place, which no
# explicit allow covers.

#: Subcommands that print the contents of the files their operands name.
_PRINTS_FILES = frozenset(
    "show log whatchanged diff diff-tree diff-index diff-files format-patch range-diff "
    "reflog blame annotate archive grep cat-file difftool unpack-file".split()
)
#: A revision that is certainly a commit (`HEAD`, `HEAD~3`, `@{u}`): what it prints
#: is a commit's message and diff, not a file named elsewhere.
_COMMITTISH = LazyPattern(
    r"^(?:HEAD|@|ORIG_HEAD|FETCH_HEAD|MERGE_HEAD|CHERRY_PICK_HEAD|stash)?"
    r"(?:[~^][0-9]*|@\{[^}]*\})*(?:\.\.\.?(?:HEAD|@)?(?:[~^][0-9]*|@\{[^}]*\})*)?$"
)
_GLOB = LazyPattern(r"[*?\[]")
_HASH = LazyPattern(r"^[0-9a-fA-F]{4,64}$")
#: Patterns that find secrets by their content (`git grep -e AKIA`, `BEGIN .*PRIVATE`).
SECRET_SEARCH = LazyPattern(
    r"(?i)AKIA|ASIA[A-Z0-9]|PRIVATE[ _.-]*KEY|BEGIN[ .*\\]+(?:RSA|DSA|EC|OPENSSH|PGP|ENCRYPTED)"
    r"|ghp_|gho_|ghs_|github_pat|xox[abpsr]-|sk-[a-z0-9]|sk_live|AIza|glpat-|api[_-]?key"
    r"|secret[_-]?(?:key|access)|access[_-]?key|aws_secret|passw(?:or)?d|client[_-]?secret"
    r"|auth[_-]?token|bearer"
)


def _object_path(word: str) -> tuple[str, str] | None:
    """(`path`, `anchor`) for a word naming a blob by its path: `REV:path` and `:path`
    (`top`: relative to the work tree's top, `cwd` when it starts `./` or `../`)."""
    if word.startswith(":"):
        rest = word[1:]
        if rest[:2] in ("0:", "1:", "2:", "3:"):
            rest = rest[2:]
        elif rest[:1] in ("/", "!", "^", "("):
            return None  # pathspec magic, or `:/text` (a commit by its message)
    else:
        rev, colon, rest = word.partition(":")
        if not colon or not rev or "://" in word:
            return None
    if not rest:
        return None  # `HEAD:`: the top tree, a listing of names
    anchor = "cwd" if rest in (".", "..") or rest.startswith(("./", "../")) else "top"
    return rest, anchor


def _pathspec(word: str) -> tuple[str, str] | None:
    """(`path`, `anchor`) a pathspec limits to, magic read (`:(top)`, `:/`, `:(glob)`);
    None for an exclusion (`:!x`, `:^x`, `:(exclude)x`)."""
    if not word.startswith(":"):
        return word, "cwd"
    rest = word[1:]
    anchor = "cwd"
    if rest.startswith("("):
        magic, _, rest = rest[1:].partition(")")
        names = {m.split(":", 1)[0].strip().lower() for m in magic.split(",")}
        if "exclude" in names:
            return None
        if "top" in names:
            anchor = "top"
        return rest or ".", anchor
    while rest[:1] in ("/", "!", "^"):
        if rest[0] in "!^":
            return None
        anchor = "top"
        rest = rest[1:]
    rest = rest.removeprefix(":")
    return rest or ".", anchor


def _pathspec_reads(path: str) -> list[str]:
    """What a pathspec may name: itself, and for a wildcard (which crosses `/` in a
    pathspec) the same name anywhere below."""
    if not _GLOB.search(path):
        return [path]
    last = path.rstrip("/").rsplit("/", 1)[-1]
    head = path.rsplit("/", 1)[0] if "/" in path.rstrip("/") else ""
    below = (head + "/**/" if head and not _GLOB.search(head) else "**/") + last
    return [path, below]


def _object_reads(
    sub: str, sub_args: list[str], operands: list[str], options: dict[str, list[str]]
) -> tuple[list[tuple[str, str]], list[str]]:
    """What a reading subcommand prints: ([(path, anchor)], [objects named by hash
    or a name that may not be a commit, whose path is not known])."""
    named: list[tuple[str, str]] = []
    unknown: list[str] = []
    if sub not in _PRINTS_FILES:
        return named, unknown
    after = sub_args[sub_args.index("--") + 1 :] if "--" in sub_args else []
    before = [o for o in operands if o not in after] if after else operands
    if sub == "grep":
        if not option_values(options, "-e", "--regexp", "-f", "--file") and before:
            before = before[1:]  # the pattern
    elif sub in ("cat-file", "unpack-file"):
        if before and before[0] in ("blob", "tree", "commit", "tag"):
            before = before[1:]
        if has_option(options, "-t", "-s", "-e", "--batch-check"):
            before = []  # a type, a size, an exit status
        elif any(a.startswith(("--batch", "--filters", "--textconv")) for a in sub_args):
            unknown.append("--batch")
    for word in before:
        found = _object_path(word)
        if found is not None:
            named.append(found)
            continue
        spec = _pathspec(word)
        if spec is not None:
            named.append(spec)  # (or a revision: a path of that name is read if not)
        if (sub in ("show", "cat-file", "unpack-file") and not _COMMITTISH.match(word)) or (
            sub in ("diff", "diff-tree") and _HASH.match(word)
        ):
            unknown.append(word)  # a hash or a name: a blob, as far as this line says
    for word in after:
        spec = _pathspec(word)
        if spec is not None:
            named.append(spec)
    return named, unknown


def _read_objects(f: Facts, sub: str, sub_args: list[str], base: str | None) -> None:
    """The reads of what a subcommand prints from the repository's objects, located as
    if the work tree's top were where it runs (`on_disk` adds the real top)."""
    operands, options = split_options(sub_args, _GIT_VALUE_OPTIONS.get(sub, frozenset()))
    named, unknown = _object_reads(sub, sub_args, operands, options)
    for path, _anchor in named:
        f.read(*_pathspec_reads(path), base=base)
    f.reads += [UNKNOWN + "/git-object/" + word for word in unknown]
    searched = option_values(options, "-S", "-G")
    if sub != "grep" and any(SECRET_SEARCH.search(p) for p in searched):
        f.read("**/.env", base=base)  # `git log -p -S AKIA`: the diffs that hold one
    if sub == "grep":
        f.read_tree(".", base=base)  # the work tree (or a tree) below where it runs
        patterns = option_values(options, "-e", "--regexp")
        if not patterns and not option_values(options, "-f", "--file") and operands:
            patterns = operands[:1]
        if any(SECRET_SEARCH.search(p) for p in patterns):
            # a search for what secrets look like prints them, from any file
            f.read("**/.env", base=base)
        f.read(*option_values(options, "-f", "--file"), base=base)


# ------------------------------------------------------------------ history and dumps
#
# `git log -p`, `git show`, `git diff` print the contents of whichever files the
# commits changed: a `.env` committed once is printed with the rest. Unless its
# pathspecs keep it to source files (`-- '*.py'`, `src/app.py`), such a command may
# print a secret file, like a recursive `grep` with no include filter, and gets no
# explicit allow (`prints_contents`). Some commands go further and hand out every
# object or all of the history (`cat-file --batch-all-objects`, `fast-export`,
# `bundle create`, a diff from the empty tree): a read of the whole repository,
# `REPOSITORY_DUMP`, that rules/git.yaml asks a person about.

#: How a read of the whole repository's objects or history is spelt (`?/...`: no
#: place in the workspace, so nothing that reads it is allowed by `allow-readonly`).
REPOSITORY_DUMP = UNKNOWN + "/git-repository/"

#: The empty tree (SHA-1 and SHA-256): a diff from it prints every file of the other side.
_EMPTY_TREES = (
    "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321",
)
#: Options after which `git diff`/`show` print names, counts or nothing, not patches.
_NO_PATCH = frozenset(
    "--stat --numstat --shortstat --name-only --name-status --summary --dirstat "
    "--dirstat-by-file --cumulative --raw -s --no-patch --quiet --compact-summary".split()
)
#: Options that make `git log`/`whatchanged` print patches.
_PATCH = frozenset(
    "-p -u --patch --patch-with-stat --patch-with-raw --cc -c --dd -m --remerge-diff "
    "--word-diff --color-words --binary -W --function-context --diff-merges".split()
)
#: `git grep` options after which it prints names or counts, not lines.
_GREP_NAMES = frozenset(
    "-l --files-with-matches --name-only -L --files-without-match -c --count -q --quiet".split()
)
#: Commands that print file contents when no pathspec narrows them.
_CONTENT_PRINTERS = frozenset("log whatchanged show diff grep status".split())


def prints_contents(args: Sequence[str]) -> bool:
    """`git ARGS` may print the contents of files nobody named (a commit's patch, the
    work tree's changes, lines `git grep` found): it is not proven read-only in the
    sense of `allow-readonly`, which promises nothing that may be a secret is printed."""
    sub, sub_args = _subcommand(args)
    if sub not in _CONTENT_PRINTERS:
        return False
    operands, options = split_options(sub_args, _GIT_VALUE_OPTIONS.get(sub, frozenset()))
    if not _prints_patches(sub, sub_args, operands, options):
        return False
    return not _narrowed(sub, sub_args, operands, options)


def _option_names(sub_args: Sequence[str]) -> set[str]:
    names: set[str] = set()
    for arg in sub_args:
        if arg == "--":
            break
        if arg.startswith("-"):
            names.add(arg.split("=", 1)[0])
    return names


def _prints_patches(
    sub: str, sub_args: Sequence[str], operands: list[str], options: dict[str, list[str]]
) -> bool:
    names = _option_names(sub_args)
    asked_patch = bool(names & _PATCH) or any(
        re.fullmatch(r"-U\d*|--unified|-L.*|--word-diff-regex", n) for n in names
    )
    if sub == "status":
        return bool(names & {"-v", "-vv", "--verbose"})
    if sub == "grep":
        return not names & _GREP_NAMES
    if sub in ("log", "whatchanged"):
        return asked_patch
    if sub == "show":
        before = operands[: operands.index("--")] if "--" in operands else operands
        if before and all(_object_path(w) is not None for w in before):
            return False  # blobs and trees named by path: judged by those paths
    # diff, and show of a commit: a patch unless another format replaced it
    return asked_patch or not names & _NO_PATCH


def _narrowed(
    sub: str, sub_args: Sequence[str], operands: list[str], options: dict[str, list[str]]
) -> bool:
    """Every pathspec keeps it to source and documentation files (`src/app.py`,
    `-- '*.py'`, `:(glob)src/**/*.ts`), so no secret file's name can be among those it
    prints; with no pathspec, or one naming a directory or any other file, it is not."""
    if "--" in sub_args:
        specs = sub_args[sub_args.index("--") + 1 :]
    else:
        if sub == "grep" and not option_values(options, "-e", "--regexp", "-f", "--file"):
            operands = operands[1:]  # the pattern
        # a word that is not plainly a revision may be a path (`docs/`, `main`)
        specs = [w for w in operands if not _revision_shaped(w)]
    if not specs:
        return False
    for spec in specs:
        found = _pathspec(spec)
        if found is None:
            continue  # an exclusion narrows further
        if not readonly._source_glob(found[0]):
            return False
    return True


def _revision_shaped(word: str) -> bool:
    """A word that names a revision and not a path: `HEAD~2`, `main..feature`,
    `@{u}`, a hash. (A branch may still be named like a file, `app.py`: such a word
    is read as the path it looks like, a residual risk docs/security.md names.)"""
    return (
        bool(_COMMITTISH.match(word))
        or ".." in word
        or bool(_HASH.match(word))
        or bool(re.search(r"[~^]|@\{", word))
    )


def _dumps_repository(
    sub: str,
    sub_args: Sequence[str],
    operands: list[str],
    options: dict[str, list[str]],
    stdin: str | None,
) -> str:
    """What of the whole repository a command hands out ("" when nothing): every
    object (`cat-file --batch-all-objects`, `fast-export`, `bundle create`), the objects
    its input names when that input is not known (`... | git cat-file --batch`), or
    every file of a tree (a diff from the empty tree, `format-patch --root`, an
    uncompressed `git archive` to the terminal)."""
    names = _option_names(sub_args)
    if sub == "cat-file":
        batch = _batch_reads(sub_args)
        if batch is None:
            return ""
        if "--batch-all-objects" in names:
            return "every-object"
        return "" if stdin is not None else "objects-named-on-input"
    if sub == "fast-export" and "--no-data" not in names and "--" not in sub_args:
        return "every-object"
    if sub == "bundle" and operands[:1] == ["create"]:
        return "every-object"
    if sub == "format-patch" and "--root" in names and "--" not in sub_args:
        return "all-history"
    if sub in ("diff", "diff-tree", "log", "show", "whatchanged", "format-patch"):
        parts = [p.lower() for w in operands for p in re.split(r"\.\.\.?", w) if len(p) >= 7]
        empty = any(t.startswith(p) for p in parts for t in _EMPTY_TREES)
        if empty and "--" not in sub_args:
            return "every-file"
    return ""


def _archive_printed(f: Facts, sub_args: Sequence[str]) -> bool:
    """`git archive HEAD` on its own prints a tar stream, every file of the tree in
    plain text (a zip or a tar.gz is compressed; `-o`, a redirect or a pathspec keep it
    from the terminal or narrow it; what a pipe does with it is `pipeline`'s)."""
    operands, options = split_options(sub_args, _GIT_VALUE_OPTIONS["archive"])
    if option_values(options, "-o", "--output") or len(operands) > 1 or "--" in sub_args:
        return False
    if f.cmd.pipe[0] or any(r.startswith((">", "1>", "&>")) for r in f.cmd.redirects):
        return False
    formats = option_values(options, "--format")
    return (not formats or formats[-1] == "tar") and not has_option(options, "--remote")


def _batch_reads(sub_args: Sequence[str]) -> bool | None:
    """For `git cat-file`: None when it prints no contents from its input; True for
    `--batch` / `--batch-command` (which print each object named on the input)."""
    names = _option_names(sub_args)
    if any(n in ("--batch", "--batch-command") for n in names):
        return True
    return None


def batch_input(f: Facts, text: str | None) -> None:
    """`git cat-file --batch` fed `text` (None: not known): each line names an object,
    read like `git show LINE` — `HEAD:.env` is a read of `.env`; an unknown input is
    the objects anyone may name, asked about (`REPOSITORY_DUMP`)."""
    if _batch_reads(_subcommand(f.cmd.args)[1]) is None:
        return
    marker = REPOSITORY_DUMP + "objects-named-on-input"
    if text is None:
        if marker not in f.reads and (REPOSITORY_DUMP + "every-object") not in f.reads:
            f.reads.append(marker)
        return
    f.reads = [r for r in f.reads if r != marker]
    for line in text.splitlines()[:_MAX_BATCH_LINES]:
        words_ = line.split()
        if words_[:1] in (["contents"], ["info"], ["flush"]):
            if words_[0] != "contents":
                continue
            words_ = words_[1:]
        if not words_:
            continue
        name = words_[0]
        found = _object_path(name)
        if found is not None:
            f.read(*_pathspec_reads(found[0]), base=f.cwd)
        elif not _COMMITTISH.match(name):
            f.reads.append(UNKNOWN + "/git-object/" + name)
    if len(text.splitlines()) > _MAX_BATCH_LINES:
        f.reads.append(marker)


_MAX_BATCH_LINES = 256  # object names read from a literal input


#: Programs an archive stream may be piped to without its files being printed: they
#: extract to disk (judged as writes), compress or checksum it.
_ARCHIVE_SINKS = frozenset(
    "tar bsdtar gzip pigz bzip2 xz zstd lz4 wc sha256sum sha1sum sha512sum md5sum "
    "shasum b2sum cksum".split()
)


def pipeline(stages: Sequence[Facts]) -> None:
    """What a pipeline makes of a git stage's output: `git archive HEAD | funzip`
    prints every file of the tree, `git archive HEAD | tar -x -C build` writes them."""
    for at, stage in enumerate(stages[:-1]):
        if stage.cmd.name != "git" or any(
            r.startswith((">", "1>", "&>")) for r in stage.cmd.redirects
        ):
            continue
        sub, sub_args = _subcommand(stage.cmd.args)
        if sub != "archive":
            continue
        operands, options = split_options(sub_args, _GIT_VALUE_OPTIONS["archive"])
        if option_values(options, "-o", "--output") or len(operands) > 1 or "--" in sub_args:
            continue
        consumer = stages[at + 1].cmd
        if consumer.name in _ARCHIVE_SINKS and not _to_stdout(consumer.args):
            continue
        marker = REPOSITORY_DUMP + "every-file"
        if marker not in stage.reads:
            stage.reads.append(marker)


def _to_stdout(args: Sequence[str]) -> bool:
    """tar's `-O` / `--to-stdout` / `--to-command` (also in a cluster, `-xOf`, or
    the old style's first word, `xOf`): what it extracts is printed or run."""
    for position, arg in enumerate(args):
        if arg in ("--to-stdout",) or arg.startswith("--to-command"):
            return True
        if arg.startswith("-") and not arg.startswith("--") and "O" in arg:
            return True
        if position == 0 and arg.isalpha() and "O" in arg:
            return True
    return False


def _merge_file(f: Facts, sub_args: list[str], base: str | None) -> None:
    """`git merge-file [-p] CURRENT BASE OTHER` reads all three files (and prints the
    merge with `-p`, else writes it into CURRENT): `-p .env /dev/null /dev/null`
    prints `.env`."""
    operands, options = split_options(sub_args, words("-L --marker-size --diff-algorithm"))
    f.read(*operands, base=base)
    if operands and not has_option(options, "-p", "--stdout"):
        f.write(operands[0], base=base)


def on_disk(
    args: Sequence[str], cwd: str, found: Inspection, home: str
) -> tuple[list[str], list[str]]:
    """(reads, deletes) of a git command that only the repository on disk tells:
    objects named relative to the work tree's top (when it is not where git runs),
    and the untracked files `git stash -u` takes out of the work tree."""
    repository = found.repository
    if repository is None or not cwd.startswith("/"):
        return [], []
    sub, sub_args = _subcommand(args)
    reads: list[str] = []
    deletes: list[str] = []
    if sub in _PRINTS_FILES:
        operands, options = split_options(sub_args, _GIT_VALUE_OPTIONS.get(sub, frozenset()))
        named, _ = _object_reads(sub, sub_args, operands, options)
        for path, anchor in named:
            if anchor != "top" or repository.top == cwd:
                continue
            for spec in _pathspec_reads(path):
                if repository.top:
                    reads.append(locate(spec, repository.top, home))
                else:  # a bare repository: a tree with no place on disk
                    reads.append(UNKNOWN + "/" + spec)
    if sub == "stash" and repository.top:
        operands, options = split_options(sub_args, _GIT_VALUE_OPTIONS["stash"])
        everything = has_option(options, "-a", "--all")
        untracked = everything or has_option(
            options, "-u", "--include-untracked", "--only-untracked"
        )
        if untracked and operands[:1] in ([], ["push"], ["save"]):
            deletes += _untracked(repository, ignored_too=everything)
    return reads, deletes


def init_reason(args: Sequence[str], cwd: str) -> str:
    """A reason when `git init` would make a repository of a directory that already
    holds a config running a program: git keeps a config it finds (a Write of
    `evilgd/config` first, then `git init --bare evilgd`), so the new repository runs
    what was planted on every later `git status`. "" otherwise."""
    sub, sub_args = _subcommand(args)
    if sub != "init" or not cwd.startswith("/"):
        return ""
    operands, options = split_options(sub_args, words("--template --separate-git-dir -b "
                                                      "--initial-branch --object-format "
                                                      "--ref-format --shared"))
    target = posixpath.normpath(posixpath.join(cwd, operands[0])) if operands else cwd
    config = target + ("/config" if has_option(options, "--bare") else "/.git/config")
    settings, why = _settings_of(config)
    if why:
        return why
    for setting in settings:
        if _runs_program(setting, True, "") or (
            setting.section in ("include", "includeif") and setting.key == "path"
        ):
            return f"git init keeps the config already in {config}, which runs a program"
    return ""


def _subcommand(args: Sequence[str]) -> tuple[str, list[str]]:
    """git's subcommand and its words, past git's own options."""
    index = 0
    words_ = list(args)
    while index < len(words_) and words_[index].startswith("-"):
        takes = words_[index] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace")
        index += 2 if takes else 1
    rest = words_[index:]
    return (rest[0], rest[1:]) if rest else ("", [])


# ------------------------------------------------------------------ untracked files

_MAX_INDEX_BYTES = 64 << 20
_MAX_UNTRACKED_LOOKS = 4096  # directory entries looked at for one `git stash -u`


def _untracked(repository: Repository, *, ignored_too: bool) -> list[str]:
    """The untracked files and directories of the work tree (those `.gitignore`
    ignores left out unless `ignored_too`), as git would take them away; the whole
    work tree (`TOP/**`) when that cannot be worked out within the caps."""
    top = repository.top
    everything = [top.rstrip("/") + "/**"]
    tracked = _index_paths(repository.git_dir + "/index")
    if tracked is None:
        return everything
    directories = {p.rsplit("/", i)[0] for p in tracked for i in range(1, p.count("/") + 1)}
    ignore = [] if ignored_too else _ignore_rules(repository, top)
    found: list[str] = []
    budget = [_MAX_UNTRACKED_LOOKS]
    stack = [""]
    while stack:
        relative = stack.pop()
        here = top.rstrip("/") + ("/" + relative if relative else "")
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            budget[0] -= 1
            if budget[0] < 0:
                return everything
            path = (relative + "/" if relative else "") + entry.name
            if not relative and entry.name == ".git":
                continue
            if path in tracked:
                continue
            is_dir = entry.is_dir(follow_symlinks=False)
            if _ignored(path, is_dir, ignore):
                continue
            if is_dir and path in directories:
                stack.append(path)
                continue
            found.append(top.rstrip("/") + "/" + path)
    return found


def _index_paths(index: str) -> set[str] | None:
    """The paths the index holds (versions 2 to 4); None when it cannot be read. No
    index: nothing is tracked."""
    entries = _index_entries(index, _MAX_INDEX_BYTES)
    return None if entries is None else {path for path, _mode in entries}


def _index_entries(
    index: str, cap: int, holding: bytes = b"", info: os.stat_result | None = None
) -> list[tuple[str, int]] | None:
    """(path, mode) of each entry of the index (versions 2 to 4); None when it cannot
    be read, or is larger than `cap`. No index: no entries. `holding`: bytes an entry
    asked about must hold — an index without them anywhere is not parsed (no entry
    is asked about). `info`: what `stat` said of it already."""
    if info is None:
        try:
            info = os.stat(index)
        except FileNotFoundError:
            return []
        except OSError:
            return None
    if info.st_size > cap or not may_read(index):
        return None
    try:
        data = _read_at_most(index, cap + 1)
    except OSError:
        return None
    if len(data) < 12 or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return None
    if holding and holding not in data:
        return []
    entries: list[tuple[str, int]] = []
    offset = 12
    previous = b""
    try:
        for _ in range(count):
            start = offset
            mode = int.from_bytes(data[offset + 24 : offset + 28], "big")
            flags = int.from_bytes(data[offset + 60 : offset + 62], "big")
            offset += 62
            if version >= 3 and flags & 0x4000:
                offset += 2
            if version == 4:
                strip, used = _varint(data, offset)
                offset += used
                end = data.index(b"\0", offset)
                name = previous[: len(previous) - strip] + data[offset:end]
                offset = end + 1
            else:
                end = data.index(b"\0", offset)
                name = data[offset:end]
                offset = start + ((end - start + 8) // 8) * 8
            previous = name
            entries.append((name.decode("utf-8", "surrogateescape"), mode))
    except (ValueError, IndexError):
        return None
    return entries


#: The git commands that run git in checked-out submodules as they are (to tell
#: whether one holds changes, or to carry the command on into it).
_INTO_SUBMODULES = frozenset(
    "status diff commit stash describe diff-index diff-files submodule fetch pull add stage rm "
    "checkout switch reset restore merge rebase cherry-pick revert am grep push "
    "ls-files clone".split()
)

#: An index larger than this is not read for its submodules at every git command:
#: `.gitmodules` names them instead.
_MAX_LINKS_INDEX_BYTES = 16 << 20
_GITLINK = 0o160000


def _gitlinks(repository: Repository) -> list[str] | None:
    """The work-tree paths of the repository's submodules (its index's gitlinks; past
    `_MAX_LINKS_INDEX_BYTES`, the paths `.gitmodules` names); None when they cannot
    be known."""
    index = repository.git_dir + "/index"
    try:
        info = os.stat(index)
    except FileNotFoundError:
        return []
    except OSError:
        return None
    # Kept by the index's identity and times when its change time is older than the
    # clock's coarsest tick: a change made to it since would have a later one (no user
    # sets a change time back), so an equal stat is the same index. Parsing one at
    # every git command is ≈ 1 µs an entry.
    stamp = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    kept = _GITLINKS.get(index)
    if kept is not None and kept[0] == stamp:
        return list(kept[1])
    if info.st_size > _MAX_LINKS_INDEX_BYTES:
        settings, why = _settings_of(repository.top.rstrip("/") + "/.gitmodules")
        if why:
            return None
        return [s.value for s in settings if s.section == "submodule" and s.key == "path"]
    # (a gitlink's mode, as its entry holds it: an index without it has none, and most
    # have none — parsing every entry of a large index at every git command would not do)
    entries = _index_entries(index, _MAX_LINKS_INDEX_BYTES, _GITLINK.to_bytes(4, "big"), info)
    if entries is None:
        return None
    links = tuple(path for path, mode in entries if mode & 0o170000 == _GITLINK)
    if info.st_ctime_ns < time.time_ns() - _SETTLED_NS:
        if len(_GITLINKS) >= _MAX_KEPT_INDEXES:
            _GITLINKS.clear()
        _GITLINKS[index] = (stamp, links)
    return list(links)


_GITLINKS: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {}
_MAX_KEPT_INDEXES = 64
#: How long ago an index must have changed for what it holds to be kept by its stat.
_SETTLED_NS = 2_000_000_000


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    """git's offset varint (index v4): the value and the bytes it took."""
    byte = data[offset]
    value = byte & 0x7F
    used = 1
    while byte & 0x80:
        byte = data[offset + used]
        used += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, used


def _ignore_rules(repository: Repository, top: str) -> list[tuple[re.Pattern[str], bool]]:
    """The top `.gitignore` and `info/exclude` as (pattern, directories only). A rule
    git would read that is not here (a nested `.gitignore`, a `!` exception) only
    makes fewer files count as ignored, that is more as taken away."""
    rules: list[tuple[re.Pattern[str], bool]] = []
    for path in (top.rstrip("/") + "/.gitignore", repository.common_dir + "/info/exclude"):
        text = _small_file(path, whole=False)
        if text is None:
            continue
        for raw in _git_lines(text):
            line = raw.rstrip(" ")  # (git trims trailing spaces, and no other character)
            if not line or line.startswith(("#", "!")):
                continue
            if line.startswith("!"):
                continue
            only_dirs = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            line = line.lstrip("/")
            expression = _gitignore_regex(line)
            if not anchored:
                expression = r"(?:.*/)?" + expression
            rules.append((re.compile(expression + r"\Z"), only_dirs))
    return rules


def _gitignore_regex(glob_: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(glob_):
        char = glob_[index]
        if glob_.startswith("**/", index):
            out.append(r"(?:.*/)?")
            index += 3
            continue
        if glob_.startswith("**", index):
            out.append(r".*")
            index += 2
            continue
        if char == "*":
            out.append(r"[^/]*")
        elif char == "?":
            out.append(r"[^/]")
        elif char == "\\" and index + 1 < len(glob_):
            index += 1
            out.append(re.escape(glob_[index]))
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _ignored(path: str, is_dir: bool, rules: list[tuple[re.Pattern[str], bool]]) -> bool:
    return any(pattern.match(path) and (is_dir or not only_dirs) for pattern, only_dirs in rules)


# ------------------------------------------------------------------ config written

_MAX_WRITTEN_REPOSITORIES = 8  # repositories looked up for the files one call writes

#: Files of a git directory that git reads as config or as what makes a directory a
#: repository (and where its config is).
_GIT_DIR_FILES = frozenset({"config", "config.worktree", "commondir", "HEAD", "gitdir"})


def written_as(
    writes: Sequence[str],
    found: Inspection,
    home: str,
    made: Sequence[str] = (),
    lookup: Callable[[str], Inspection] | None = None,
    removed: Sequence[str] = (),
) -> list[str]:
    """Other spellings of written files that git reads as config: a file of a git
    directory not named `.git` (a bare repository, a linked worktree's) spelt as
    `DIR/.git/NAME`; a file a config includes spelt as the config that includes it;
    a hook under `core.hooksPath` as `.git/hooks/NAME`; a new file of a git directory
    that git itself never makes (`.git/inc`: a config include's target in waiting) as
    that directory's config. Writing them is writing the config git reads
    (rules/persistence.yaml). `removed`: the writes that delete (never a plant)."""
    out: list[str] = []
    # the config of the repository the call runs in, and of each one a file written
    # lies in (a config may include a file anywhere: `../extra.inc`, `~/work.inc`)
    inspections = [found]
    for directory in dict.fromkeys(posixpath.dirname(p) for p in writes if p.startswith("/")):
        if len(inspections) > _MAX_WRITTEN_REPOSITORIES:
            break
        inspections.append(lookup(directory) if lookup else inspect(directory, home=home))
    owners = {posixpath.normpath(f): i for i in inspections for f in i.files}
    hooks = [h for i in inspections for h in i.hooks]
    git_dirs = {
        d
        for i in inspections
        if i.repository is not None
        for d in (i.repository.git_dir, i.repository.common_dir)
    }
    siblings: dict[str, set[str]] = {}  # what this call writes in each directory
    for path in (*writes, *made):
        directory, name = posixpath.split(path)
        siblings.setdefault(directory, set()).add(name)
    for path in writes:
        if not path.startswith("/"):
            continue
        directory, name = posixpath.split(path)
        if path in owners:
            repository = owners[path].repository
            if (
                repository is not None
                and name in ("config", "config.worktree")
                and directory in (repository.common_dir, repository.git_dir)
            ):
                pass  # the repository's own config: judged by its name
            elif repository is not None:
                out.append(repository.common_dir.rstrip("/") + "/config")
            else:
                out.append((home.rstrip("/") or "~") + "/.gitconfig")
        for place in hooks:
            if directory == place.rstrip("/"):
                out.append(place.rstrip("/") + "/.git/hooks/" + name)
        if (
            name in _GIT_DIR_FILES
            and posixpath.basename(directory) != ".git"
            and _looks_like_git_directory(directory, name, siblings.get(directory, set()))
        ):
            out.append(directory.rstrip("/") + "/.git/" + name)
        parent, child = posixpath.split(directory)
        if (
            child in ("hooks", "info")
            and posixpath.basename(parent) != ".git"
            and _looks_like_git_directory(parent, "", siblings.get(parent, set()))
        ):
            out.append(parent.rstrip("/") + "/.git/" + child + "/" + name)
        planted = "" if path in removed else _unmanaged(directory, name, git_dirs)
        if planted:
            out.append(planted)
    return out


#: What git itself makes at the top of a git directory (and `*_HEAD`, `*_MSG`,
#: `*_EDITMSG`, `*.lock`, `BISECT_*`, `sharedindex.*`, `gc.*`), and in its `info/`.
_GIT_MAKES = frozenset(
    "HEAD config config.worktree commondir gitdir description index packed-refs shallow "
    "MERGE_MODE MERGE_RR AUTO_MERGE gitk.cache objects refs logs hooks info modules "
    "worktrees branches remotes lfs rebase-merge rebase-apply sequencer rr-cache svn annex "
    "fsmonitor--daemon fsmonitor--daemon.ipc filter-repo ORIG_HEAD FETCH_HEAD".split()
)
_GIT_MAKES_PATTERN = LazyPattern(
    r"^(?:[A-Z_]+_(?:HEAD|MSG|EDITMSG)|.*\.lock|BISECT_[A-Z_]+|sharedindex\.[0-9a-f]+"
    r"|next-index-.*|gc\.(?:log|pid)|\.DS_Store)$"
)
_GIT_INFO_MAKES = frozenset("exclude attributes refs grafts sparse-checkout".split())


def _unmanaged(directory: str, name: str, git_dirs: set[str]) -> str:
    """The config spelling (`GITDIR/config`, as rules/persistence.yaml names it) of a
    file written at the top of a git directory, or in its `info/`, that git never makes
    there: nothing reads it but a config that includes it (`[include] path = inc`), so
    it is a plant waiting for that include. "" for git's own files (`COMMIT_EDITMSG`,
    `info/exclude`, `index.lock`) and for anything elsewhere."""
    parent, child = posixpath.split(directory)
    if child == "info" and (posixpath.basename(parent) == ".git" or parent in git_dirs):
        if name in _GIT_INFO_MAKES:
            return ""
        directory = parent
    elif not (posixpath.basename(directory) == ".git" or directory in git_dirs) or (
        name in _GIT_MAKES or _GIT_MAKES_PATTERN.match(name)
    ):
        return ""
    if posixpath.basename(directory) == ".git":
        return directory.rstrip("/") + "/config"
    return directory.rstrip("/") + "/.git/config"


def _looks_like_git_directory(directory: str, writing: str, made: set[str]) -> bool:
    """A directory git takes for a repository's, or that this write makes one (on
    disk, or made by the same call): HEAD or a commondir and something else of a git
    directory, or config, objects/ and refs/ for a HEAD to come."""
    names = ("HEAD", "commondir", "config", "objects", "refs")
    try:
        present = {
            n for n in names if n != writing and (n in made or os.path.lexists(directory + "/" + n))
        }
    except OSError:
        return False
    if writing == "HEAD":
        return bool(present)
    if "HEAD" in present or "commondir" in present:
        return True
    return len(present & {"config", "objects", "refs"}) >= 2


#: git, by name.
HANDLERS: dict[str, Callable[[Facts], None]] = {"git": _git}
