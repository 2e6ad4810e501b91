"""Bounded analysis (docs/security.md, "Bounded analysis"): every cap of the shell
analysis is counted while it works, is named when it is met, and a call whose
analysis met one is refused whatever the packs say.

No test here times anything: outcomes and memory (in a fresh process) are asserted,
never speed. The lines run in this process are cheap even for an analysis without
caps (16 doublings build 512 KiB there); the ones that took the service down (22 and
40 doublings) run in a child process under an address-space limit, so that code
without the caps fails the test instead of exhausting the machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from policy import Action, Engine, ToolCall
from policy.analysis import effects, shell
from policy.analysis.shell import MAX_DEPTH, analyze, walk
from policy.facts import FactsContext, facts_of
from policy.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\n"
#: More than the analysis ever needs here; code without caps meets it instead of
#: taking the machine's memory (and fails the test with a MemoryError).
CHILD_ADDRESS_SPACE = 1536 << 20
#: What one decision on a hostile line may add to a process's peak RSS.
RSS_BUDGET_MB = 200


def doubling(count: int, tail: str = "") -> str:
    """`a=xxxxxxxx; v0=$a$a; v1=$v0$v0; ...`: 8 * 2**count bytes in `$v{count-1}`."""
    last = f"v{count - 1}"
    steps = "".join(f"v{i}=$v{i - 1}$v{i - 1}; " for i in range(1, count))
    return f"a=xxxxxxxx; v0=$a$a; {steps}" + (tail or f"rm -rf ${last}")


def cap(analysis: shell.Analysis | effects.Line) -> str:
    """The cap a result names ("" when none)."""
    marker = "(cap: "
    if marker not in analysis.limit:
        return ""
    return analysis.limit.rsplit(marker, 1)[1].rstrip(")")


# ------------------------------------------------------------------ each cap

#: (cap, a small line that meets it): each one refused, and named.
CAPS: list[tuple[str, str]] = [
    ("analysis.max_word_bytes", doubling(16)),
    ("analysis.max_word_bytes", "a=xxxxxxxx; " + "a+=$a; " * 20 + "rm $a"),
    ("analysis.max_total_bytes", doubling(12, "echo " + " ".join(['"$v11"'] * 40))),
    ("analysis.max_words", "echo " + "{a,b}" * 14),  # 2**14 words from a brace bomb
    ("analysis.max_words", "touch f{1..999999999}"),
    ("analysis.max_commands", "true; " * 300),
    (
        "analysis.max_steps",
        "v=" + "a" * 256 + "; echo" + " ${v%*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?b}" * 60,
    ),
    # tree-sitter-bash lexes `x=(x=(...` in quadratic time: its reads are counted
    (
        "analysis.max_parse_steps",
        "a='x=(x=(x=(x=('; v0=$a$a; "
        + "".join(f"v{i}=$v{i - 1}$v{i - 1}; " for i in range(1, 9))
        + "; ".join(['eval "$v8"'] * 6),
    ),
    ("analysis.max_parse_steps", "x=(" * 5_000),
    # ... and reduces a word of many backquoted substitutions in quadratic time
    ("analysis.max_parse_steps", ">a`" * 1_400),
    ("analysis.max_depth", "echo " + "$(" * (MAX_DEPTH + 4) + "ls" + ")" * (MAX_DEPTH + 4)),
    ("analysis.max_depth", "eval " * 50 + "rm x"),
    ("analysis.max_nesting", "echo " + "${a:-" * 70 + "x" + "}" * 70),
    ("analysis.max_nesting", "for a in 1; do " * 70 + "ls" + "; done" * 70),
    ("analysis.max_pipes", "a|" * 2_001),
    # rules match a path that is a pattern against each of their globs, component by
    # component: how many there are, and how deep, is bounded
    ("analysis.max_paths", "cat f{1..300}"),
    ("analysis.max_patterns", "grep -r x /tmp/d{1..65}"),
    ("analysis.max_patterns", "cat /x*/{1..100}"),
    ("analysis.max_pattern_components", "v=" + "/a" * 1000 + "; cat $v/x*/{1..2}"),
    ("analysis.max_input_bytes", "a" * (shell.MAX_INPUT + 1)),
]


#: Caps met by what the line's commands do (their paths), not by the shell analysis.
OF_THE_FACTS = ("analysis.max_paths", "analysis.max_patterns", "analysis.max_pattern_components")


@pytest.mark.parametrize(
    ("name", "command"), CAPS, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CAPS)]
)
def test_each_cap_is_met_and_named(name: str, command: str) -> None:
    assert name in shell.CAPS
    if name not in OF_THE_FACTS:
        analyze.cache_clear()
        analysis = analyze(command)
        assert cap(analysis) == name, analysis.limit
        # what the line does is not known: existing rules on parse_error deny it too
        assert analysis.parse_error and analysis.dynamic
    line = effects.analyze(command, "/srv/work", "/home/dev")
    assert cap(line) == name and line.commands == () and line.parse_error


def test_the_word_cap_is_met_before_the_word_is_built() -> None:
    analysis = analyze(doubling(16))  # (40 doublings: in a child process, below)
    assert analysis.limit == (
        f"expanded word larger than {shell.MAX_WORD_BYTES} bytes (cap: analysis.max_word_bytes)"
    )
    assert analysis.built < 4 * shell.MAX_WORD_BYTES  # nothing near 2**43 bytes was made


def test_every_cap_is_documented() -> None:
    documented = (ROOT / "docs" / "security.md").read_text()
    assert all(f"`{name}`" in documented for name in shell.CAPS)


def test_code_a_line_runs_counts_towards_its_caps() -> None:
    # three one-liners of 36 KiB: each is read, together they are too much to read
    code = "c='print(1);'; c1=$c$c; " + "".join(f"c{i}=$c{i - 1}$c{i - 1}; " for i in range(2, 13))
    line = effects.analyze(code + "; ".join(['python3 -c "$c12"'] * 3), "/srv", "/home/dev")
    assert cap(line) == "analysis.max_code_bytes"
    # code that hands thousands of commands to a shell: the line's cap holds for them
    spawns = "c='import os; os.system(\"ls\");'; " + "".join(
        f"c{i}=$c{i - 1 if i > 1 else ''}$c{i - 1 if i > 1 else ''}; " for i in range(1, 10)
    )
    line = effects.analyze(spawns + 'python3 -c "$c9"', "/srv", "/home/dev")
    assert cap(line) == "analysis.max_commands"


def test_a_command_within_the_caps_is_analysed_as_before() -> None:
    line = analyze(doubling(10, 'echo "$v9" | wc -c'))  # 8 KiB: well within
    assert line.limit == "" and [c.name for c in line.commands] == ["echo", "wc"]
    assert len(line.commands[0].args[0]) == 8 << 10


# ------------------------------------------------------------ determinism


DETERMINISTIC = [
    doubling(16),
    "x=(" * 5_000,
    "echo " + "{a,b}" * 14,
    "true; " * 300,
    "git status && rm -rf /tmp/build | tee out.txt",
]


@pytest.mark.parametrize("command", DETERMINISTIC, ids=range(len(DETERMINISTIC)))
def test_the_same_line_gets_the_same_analysis(command: str) -> None:
    analyze.cache_clear()
    first = analyze(command)
    analyze.cache_clear()
    again = analyze(command)
    assert first == again
    assert (first.limit, first.cost) == (again.limit, again.cost)


class _SlowClock:
    """A machine far busier than this one: every look at the clock finds 20 ms gone."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.02
        return self.now


@pytest.mark.parametrize("command", DETERMINISTIC[1:], ids=range(len(DETERMINISTIC) - 1))
def test_a_busy_machine_gets_the_same_answer(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    analyze.cache_clear()
    quiet = analyze(command)
    analyze.cache_clear()
    monkeypatch.setattr(walk.time, "monotonic", _SlowClock())
    busy = analyze(command)
    assert busy == quiet and busy.limit == quiet.limit


def test_the_wall_clock_backstop_refuses_and_is_not_memoised(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A guard against bugs only: past it the line is refused, and the answer (which
    depends on the clock) is kept by no cache."""
    monkeypatch.setattr(walk, "BACKSTOP_S", -1.0)
    analyze.cache_clear()
    effects._memoised.cache_clear()
    command = "x=(" * 100
    first = analyze(command)
    assert cap(first) == "analysis.max_seconds" and first.clocked
    assert analyze.cache_info().currsize == 0  # type: ignore[attr-defined]
    line = effects.analyze(command, "/srv", "/home/dev")
    assert cap(line) == "analysis.max_seconds" and effects._memoised.cache_info().currsize == 0
    monkeypatch.setattr(walk, "BACKSTOP_S", 3.0)
    assert analyze(command).limit == ""  # tried again, not read from a memo


# ------------------------------------------------------------------ memory

_CHILD = textwrap.dedent(
    """
    import json, resource, sys

    def peak_mb():
        try:
            with open("/proc/self/status") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1]) / 1024
        except OSError:
            pass
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    mode, command = sys.argv[1], sys.stdin.read()
    out = {}
    if mode == "analysis":
        from policy.analysis import shell
        shell.analyze("ls -la | grep x")
        before = peak_mb()
        analysis = shell.analyze(command)
        out = {"limit": getattr(analysis, "limit", None), "error": analysis.parse_error}
    else:
        from pathlib import Path
        from policy import Engine, ToolCall
        from policy.settings import Settings
        packs = json.loads(mode)
        engines = {
            name: Engine(Settings(packs=[Path(p) for p in paths], audit_path=Path(log)))
            for name, (paths, log) in packs.items()
        }
        for engine in engines.values():
            engine.before_tool(ToolCall(tool="Bash", args={"command": "ls -la"}, cwd="/srv"))
        before = peak_mb()
        for name, engine in engines.items():
            decision = engine.before_tool(
                ToolCall(tool="Bash", args={"command": command}, cwd="/srv")
            )
            out[name] = [decision.action.value, decision.reason, decision.needs_approval]
    out["grown_mb"] = peak_mb() - before
    print(json.dumps(out))
    """
)


def _limit_address_space() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_ADDRESS_SPACE, CHILD_ADDRESS_SPACE))


def run_child(mode: str, command: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, mode],
        input=command,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_limit_address_space,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


@pytest.mark.parametrize("count", [22, 40])
def test_doubling_is_refused_in_bounded_memory(count: int) -> None:
    result = run_child("analysis", doubling(count))
    assert result["limit"] is not None and result["limit"].endswith(
        "(cap: analysis.max_word_bytes)"
    )
    assert result["grown_mb"] < RSS_BUDGET_MB


# ------------------------------------------------------------ through the engine


def _pack(directory: Path, name: str, body: str) -> Path:
    path = directory / f"{name}.yaml"
    path.write_text(HEADER + f"name: {name}\n" + textwrap.dedent(body))
    return path


#: A pack with one rule that reads the commands, unrelated to this line, and
#: `on_error: skip`: a failing rule is skipped, so a give-up must refuse elsewhere.
SKIPPING = """
on_error: skip
rules:
  - id: no-curl
    tools: [bash]
    when: commands.exists(c, c.name == "curl")
    action: deny
"""
#: Only an allow rule: a line whose commands are not known must not be allowed.
ALLOWING = """
rules:
  - id: rm-is-fine
    tools: [bash]
    when: commands.all(c, c.name in ["rm", "echo", "true"])
    action: allow
"""
#: The autonomy builtin alone (it reads the same facts).
AUTONOMY = """
builtins:
  autonomy:
    mode: full
    shell: {allowed_commands: [rm, echo, "true", eval]}
"""


def _packs(tmp_path: Path) -> dict[str, list[Path]]:
    return {
        "shipped": [ROOT / "rules"],
        "skipping": [_pack(tmp_path, "skipping", SKIPPING)],
        "allowing": [_pack(tmp_path, "allowing", ALLOWING)],
        "autonomy": [_pack(tmp_path, "autonomy", AUTONOMY)],
    }


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[dict[str, Engine]]:
    built = {
        name: Engine(Settings(packs=paths, audit_path=tmp_path / f"{name}.log"))
        for name, paths in _packs(tmp_path).items()
    }
    yield built
    for engine in built.values():
        engine.close()


def bash(command: str) -> ToolCall:
    return ToolCall(tool="Bash", args={"command": command}, cwd="/srv/work")


#: Lines that meet a cap but are cheap even for an analysis without caps.
REFUSED = [
    (doubling(14), "analysis.max_word_bytes"),
    ("true; " * 300, "analysis.max_commands"),
    ("eval " * 50 + "rm x", "analysis.max_depth"),
]


@pytest.mark.parametrize("name", ["shipped", "skipping", "allowing", "autonomy"])
@pytest.mark.parametrize(("command", "name_of_cap"), REFUSED, ids=[r[1] for r in REFUSED])
def test_a_give_up_is_a_denial_whatever_the_packs_say(
    engines: dict[str, Engine], name: str, command: str, name_of_cap: str
) -> None:
    decision = engines[name].before_tool(bash(command))
    assert decision.action is Action.DENY_TOOL, (name, decision)
    assert f"(cap: {name_of_cap})" in decision.reason
    assert decision.failure == "limit"


def test_the_doubling_command_is_refused_by_every_engine_in_bounded_memory(
    tmp_path: Path,
) -> None:
    packs = {
        name: ([str(p) for p in paths], str(tmp_path / f"{name}.log"))
        for name, paths in _packs(tmp_path).items()
    }
    result = run_child(json.dumps(packs), doubling(40))
    for name in packs:
        action, reason, needs_approval = result[name]
        assert action == "deny_tool" and not needs_approval, (name, reason)
        assert "(cap: analysis.max_word_bytes)" in reason, (name, reason)
    assert result["grown_mb"] < RSS_BUDGET_MB


def test_a_call_no_rule_asks_about_is_not_analysed(tmp_path: Path) -> None:
    """Facts stay lazy: a policy that reads no shell facts never analyses the line;
    one that does refuses it."""
    blind = _pack(
        tmp_path,
        "blind",
        """
        rules:
          - id: bash-is-fine
            tools: [bash]
            when: tool == "bash"
            action: allow
        """,
    )
    command = doubling(15)
    analyze.cache_clear()
    with Engine(Settings(packs=[blind], audit_path=tmp_path / "blind.log")) as engine:
        decision = engine.before_tool(bash(command))
    assert decision.action is Action.CONTINUE and decision.allowed
    assert analyze.cache_info().misses == 0  # type: ignore[attr-defined]
    reading = _pack(tmp_path, "reading", SKIPPING)
    with Engine(Settings(packs=[blind, reading], audit_path=tmp_path / "both.log")) as engine:
        decision = engine.before_tool(bash(command))
    assert decision.action is Action.DENY_TOOL
    assert decision.reason.endswith("(cap: analysis.max_word_bytes)")


@pytest.mark.parametrize("cel_engine", ["cel-expr-python", "cel-python"])
@pytest.mark.parametrize(
    "condition",
    [
        'shell.parse_error(vars.script) == ""',
        "!shell.has_substitution(vars.script) || true",
        "size(shell.commands(vars.script)) >= 0 || true",
    ],
)
def test_shell_functions_on_a_line_past_a_cap_refuse(
    tmp_path: Path, cel_engine: str, condition: str
) -> None:
    """`shell.*` in CEL on a line whose analysis gave up: no answer to skip or to
    absorb (`|| true`), whatever `on_error` says."""
    pack = _pack(
        tmp_path,
        "functions",
        f"""
        on_error: skip
        variables:
          script: 'has(args.script) ? string(args.script) : ""'
        rules:
          - id: looks-fine
            tools: [bash]
            when: '{condition}'
            action: allow
        """,
    )
    call = ToolCall(tool="Bash", args={"command": "ls", "script": doubling(15)}, cwd="/srv")
    settings = Settings(packs=[pack], audit_path=tmp_path / "log", cel_engine=cel_engine)
    with Engine(settings) as engine:
        decision = engine.before_tool(call)
    assert decision.action is Action.DENY_TOOL, decision
    assert "the command cannot be analysed" in decision.reason
    assert decision.reason.endswith("(cap: analysis.max_word_bytes)")


def test_a_hook_that_reads_capped_facts_refuses_whatever_its_failure_policy(
    tmp_path: Path,
) -> None:
    class Reader:
        name = "reader"

        def before_tool(self, call: ToolCall) -> None:
            facts_of(call, FactsContext())  # a code hook reading the call's facts

    with Engine(Settings(audit_path=tmp_path / "log")) as engine:
        engine.register(Reader(), failure_policy="ignore")
        refused = engine.before_tool(bash(doubling(15)))
        fine = engine.before_tool(bash("ls -la"))
    assert refused.action is Action.DENY_TOOL and refused.failure == "limit"
    assert refused.reason.endswith("(cap: analysis.max_word_bytes)")
    assert fine.action is Action.CONTINUE


def test_cel_running_out_of_its_iteration_budget_refuses_despite_on_error_skip(
    tmp_path: Path,
) -> None:
    """cel-expr-python stops an evaluation after 10,000 comprehension steps: that is
    a bound hit on the call's facts, refused like the analysis's caps."""
    pack = _pack(
        tmp_path,
        "quadratic",
        """
        on_error: skip
        rules:
          - id: no-duplicate-args
            tools: [bash]
            when: commands.exists(c, c.args.exists(a, c.args.filter(b, b == a).size() > 1))
            action: deny
        """,
    )
    settings = Settings(packs=[pack], audit_path=tmp_path / "log", cel_engine="cel-expr-python")
    with Engine(settings) as engine:
        decision = engine.before_tool(bash("echo " + " ".join(f"a{i}" for i in range(300))))
        small = engine.before_tool(bash("echo a b a"))
    assert decision.action is Action.DENY_TOOL and decision.failure == "limit"
    assert small.action is Action.DENY_TOOL and small.rule_ids == ("quadratic/no-duplicate-args",)


# ------------------------------------------------ what used to be dropped silently


@pytest.mark.parametrize(
    "command",
    [
        # a ninth item down the pipe, a ninth argument after `:::`, a ninth substitution
        # in a subscript bash evaluates: each was cut off, unseen and unreported
        "printf '%s\\n' 1 2 3 4 5 6 7 8 / | xargs -I{} rm -rf {}",
        "echo 1 2 3 4 5 6 7 8 / | parallel rm -rf {}",
        "parallel rm -rf {} ::: 1 2 3 4 5 6 7 8 /",
        "declare -i 'a[" + "$(true)" * 8 + "$(rm -rf /)]'",
    ],
)
def test_nothing_past_a_count_goes_unseen(command: str) -> None:
    analysis = analyze(command)
    assert analysis.limit == ""
    assert any(c.name == "rm" and "/" in c.args for c in analysis.commands), analysis.commands


def test_a_brace_expansion_is_made_whole_or_refused() -> None:
    words = analyze("rm -rf /tmp/x" + "{1,2}" * 9 + "/../../../../../../../../../../etc")
    assert len(words.commands[0].args) == 1 + 2**9  # no word is left half expanded
    assert cap(analyze("rm -rf /tmp/x" + "{1,2}" * 14)) == "analysis.max_words"


def test_a_script_an_interpreter_hands_over_as_argv_that_cannot_be_parsed_is_hidden() -> None:
    line = effects.analyze(
        """python3 -c 'import subprocess; subprocess.run(["sh", "-c", "ls ("])'""", "/srv", ""
    )
    assert "cannot be parsed" in line.commands[0].hidden


def test_a_tool_naming_too_many_patterns_is_refused() -> None:
    from policy.analysis import access

    many = {"paths": [f"/srv/x*/{n}" for n in range(100)]}
    assert cap(access.of_call("mcp_read", many, "/srv", "/home/dev")) == "analysis.max_patterns"
    few = {"paths": [f"/srv/x*/{n}" for n in range(3)]}
    assert access.of_call("mcp_read", few, "/srv", "/home/dev").limit == ""


def test_every_value_of_a_tools_arguments_is_looked_at() -> None:
    from policy.analysis import access

    late = {"path": "/etc/passwd", "junk": list(range(3_000))}  # walked after the junk
    assert access.of_call("mcp_write", late, "/srv", "/home/dev").writes == ("/etc/passwd",)
    huge = {"path": "/etc/passwd", "junk": list(range(shell.MAX_ARGUMENT_VALUES))}
    refused = access.of_call("mcp_write", huge, "/srv", "/home/dev")
    assert refused.limit.endswith("(cap: analysis.max_argument_values)")
    assert "analysis.max_argument_values" in shell.CAPS


def test_disk_lookups_are_bounded_and_what_is_past_them_is_unknown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from policy.analysis import paths

    for name in "abcdef":
        (tmp_path / name).mkdir()
    pattern = f"{tmp_path}/*/x"
    assert effects.resolve_all((pattern,), "", budget=[100]) == (pattern,)  # nothing there
    assert effects.resolve_all((pattern,), "", budget=[3]) == (pattern, f"?{pattern}")
    with pytest.raises(paths.UnsafePathError):
        paths.resolve(f"{tmp_path}/a/b/c", budget=[2])
    # below a missing directory nothing can exist: it is not looked up on disk
    looked: list[str] = []
    real_lstat = os.lstat
    monkeypatch.setattr(paths.os, "lstat", lambda p: looked.append(p) or real_lstat(p))
    deep = f"{tmp_path}/missing" + "/x" * 1_000
    assert paths.resolve(deep) == deep
    assert len(looked) == len(tmp_path.parts)  # the existing directories and `missing`


def test_a_globs_matches_are_looked_up_once_and_a_link_among_them_is_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `cat /proc/*/environ` expands to a path per process: their shared directories
    # are looked up once for the decision, not once per path
    from policy.analysis import paths

    for n in range(20):
        (tmp_path / f"p{n}").mkdir()
        (tmp_path / f"p{n}" / "environ").write_text("")
    (tmp_path / "p20").mkdir()
    (tmp_path / "p20" / "environ").symlink_to("/etc/passwd")
    looked: list[str] = []
    real_lstat = os.lstat
    monkeypatch.setattr(paths.os, "lstat", lambda p: looked.append(p) or real_lstat(p))
    found = effects.resolve_all((f"{tmp_path}/p*/environ",), "")
    matches = {f"{tmp_path}/p{n}/environ" for n in range(21)}
    assert set(found) == matches | {"/etc/passwd"}  # the link's target is read too
    twice = [path for path, times in Counter(looked).items() if times > 1]
    assert twice == [f"{tmp_path}/p20/environ"]  # (a link is read where it is followed)


def test_a_glob_match_lstat_refuses_stays_unknown(tmp_path: Path) -> None:
    # (red team) what a directory listing says of an entry is not what lstat says of its
    # path: a match of exactly 4,096 bytes is refused by the kernel, so where it leads
    # is not known — and a rule that cannot judge a path refuses the call
    deep = str(tmp_path)
    while len(deep.encode()) < 4085 - 202:  # (the last part: 1 to 201 bytes)
        deep += "/" + "d" * 200
    deep += "/" + "e" * (4085 - len(deep.encode()) - 1)
    assert len(deep.encode()) == 4085
    os.makedirs(deep)
    folder = os.open(deep, os.O_RDONLY)  # (the file's own path is too long to open by)
    try:
        os.close(os.open("a" * 10, os.O_CREAT | os.O_WRONLY, dir_fd=folder))
    finally:
        os.close(folder)
    match = deep + "/" + "a" * 10
    assert effects.resolve_all((deep + "/*",), "") == (match, "?" + match)


def _repository(root: Path, config: str) -> Path:
    """A directory git takes for a repository (HEAD, objects/, refs/) with `config`."""
    for name in ("objects", "refs"):
        (root / ".git" / name).mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".git" / "config").write_text(config)
    return root


def test_a_repository_config_that_is_not_read_whole_is_not_taken_as_harmless(
    tmp_path: Path,
) -> None:
    from policy.analysis import git

    planted = "[core]\n\tfsmonitor = ./x\n"
    padded = _repository(tmp_path / "padded", "# " + "x" * (1 << 20) + "\n" + planted)
    assert "git config" in git.repo_code(str(padded))
    many = _repository(tmp_path / "many", "[core]\n\tbare = false\n")
    for number in range(70):  # the 70th submodule's config, past the first 64 read
        module = many / ".git" / "modules" / f"m{number:02d}"
        module.mkdir(parents=True)
        (module / "config").write_text(planted if number == 69 else "[core]\n")
    assert "submodules" in git.repo_code(str(many))


def test_a_submodule_config_is_read_and_a_repository_without_modules_is_not_walked(
    tmp_path: Path,
) -> None:
    """`git status` recurses into submodules, whose configs are their own: one planted
    there is found, whether `modules/` is a directory or a link to one. Without
    `modules/` there is nothing to read (and nothing is walked: most repositories)."""
    from policy.analysis import git

    planted = "[core]\n\tfsmonitor = ./x\n"
    plain = _repository(tmp_path / "plain", "[core]\n\tbare = false\n")
    assert git.repo_code(str(plain), subcommand="status") == ""
    nested = _repository(tmp_path / "nested", "[core]\n\tbare = false\n")
    (nested / ".git" / "modules" / "lib").mkdir(parents=True)
    (nested / ".git" / "modules" / "lib" / "config").write_text(planted)
    assert "fsmonitor" in git.repo_code(str(nested), subcommand="status")
    linked = _repository(tmp_path / "linked", "[core]\n\tbare = false\n")
    (linked / ".git" / "modules").symlink_to(nested / ".git" / "modules")
    assert "fsmonitor" in git.repo_code(str(linked), subcommand="status")


def test_a_command_longer_than_the_analysis_takes_is_refused_before_cel_sees_it(
    tmp_path: Path,
) -> None:
    """cel-expr-python keeps what it is handed: a pack reading `args.command` would
    have kept megabytes a call. The command is refused before it is handed over."""
    from policy import Engine, ToolCall
    from policy.settings import Settings

    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\non_error: skip\nrules:\n"
        "  - id: fine\n    tools: [bash]\n    when: args.command.startsWith('ls')\n"
        "    action: allow\n"
    )
    with Engine(Settings(packs=[pack], audit_path=tmp_path / "log")) as engine:
        decision = engine.before_tool(
            ToolCall(tool="Bash", args={"command": "ls " + "x" * (2 << 20)})
        )
    assert decision.action.value == "deny_tool"
    assert decision.reason.endswith("(cap: analysis.max_input_bytes)")
    from policy.analysis.shell import MAX_INPUT
    from policy.packs import runtime

    assert runtime._SHORT_COMMAND * 4 == MAX_INPUT  # the runtime's shortcut is the cap's
