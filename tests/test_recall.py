"""A pack's program asked again on equal inputs answers from memory — and only then.

An agent repeats itself (`git status`, `ls`, the tests); what CEL made of a call's
facts is recalled for the next equal call (`policy.packs.recall`). Recall must never
change an answer: what differs — the arguments, the user's home, the file system a
`path.resolve` reads, a NaN against a null — is evaluated again.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from policy import Action, Engine, ToolCall
from policy.packs import recall
from policy.packs.cel import functions
from policy.packs.cel.interface import CelProgram
from policy.packs.recall import AnswerStore, Recall, recallable
from policy.settings import Settings

HEADER = "apiVersion: hookpolicy/v1\nkind: RulePack\n"
ROOT = Path(__file__).resolve().parent.parent


class Evaluations:
    """How many times the packs' programs were evaluated (a recalled answer is none)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        # (every engine's program class, whether or not a program was made yet: a class
        # imported after this would count nothing)
        from policy.packs.cel import celpython, expr  # noqa: F401
        from policy.packs.cel.native import program  # noqa: F401

        self.count = 0
        patched: set[type] = set()
        for kind in (CelProgram, *_subclasses(CelProgram)):
            if "run_mask" in vars(kind) and kind not in patched:
                patched.add(kind)
                monkeypatch.setattr(kind, "run_mask", self._counting(vars(kind)["run_mask"]))

    def _counting(self, run_mask: Any) -> Any:
        def counted(program: Any, *args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return run_mask(program, *args, **kwargs)

        return counted


def _subclasses(kind: type) -> list[type]:
    found = []
    for sub in kind.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def _corpus_calls(every: int) -> list[ToolCall]:
    """Every `every`-th call of the everyday and dangerous corpus (tests/corpus)."""
    calls = []
    for name in ("everyday.jsonl", "dangerous.jsonl"):
        with open(ROOT / "tests" / "corpus" / name, encoding="utf-8") as corpus:
            for row in list(corpus)[::every]:
                entry = json.loads(row)
                tool, args = entry.get("tool", "Bash"), entry.get("args")
                args = args if args is not None else {"command": entry["cmd"]}
                calls.append(ToolCall(tool=tool, args=args, cwd="/home/dev/project"))
    return calls


def corpus_engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Engine:
    """An engine on the shipped packs in the corpus's deployment (tests/corpus/README.md):
    HOME /home/dev, workspace /home/dev/project, its pack and settings protected."""
    monkeypatch.setenv("HOME", "/home/dev")
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    return Engine(
        Settings(
            packs=[ROOT / "rules"],
            data_dir=tmp_path,
            audit_path=tmp_path / "decisions.log",
            pack_cache=False,
            workspace="/home/dev/project",
            protected_paths=["/home/dev/project/rules", "/home/dev/.config/hookpolicy"],
        )
    )


def bash(command: str, **fields: Any) -> ToolCall:
    return ToolCall(tool="bash", args={"command": command, **fields}, cwd="/work")


#: A pack whose one rule reads the call's facts (its program's answers are recalled).
NO_FORCE_PUSH = """
name: git
rules:
  - id: no-force-push
    tools: [bash]
    when: commands.exists(c, c.name == "git" && "force" in c.flags)
    action: deny
"""


#: A pack whose one rule reads the call's arguments (none of its facts).
ARGS_READER = """
name: args-reader
rules:
  - id: has-secret
    tools: [bash]
    when: has(args.secret)
    action: deny
"""


def counted(monkeypatch: pytest.MonkeyPatch, method: str, argument: int) -> list[object]:
    """The calls of `CompiledPack.<method>` from now on, each as its `argument`-th
    positional argument (the call it makes a key for)."""
    from policy.packs.runtime import CompiledPack

    seen: list[object] = []
    inner = getattr(CompiledPack, method)

    def counting(*args: Any) -> Any:
        seen.append(args[argument])
        return inner(*args)

    monkeypatch.setattr(CompiledPack, method, counting)
    return seen


@pytest.fixture(autouse=True)
def keyed_from_the_first_call(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call keyed from its first decision, as a one-event hook keys them (its
    answers are kept on disk for the next process): what a key must hold is tested on
    every call, the first one's included. A process that keeps its answers in memory
    only keys a call from its second time (`recall.first_time`): the tests asking for
    `long_lived` decide as it does. Each test starts with no answer remembered."""
    recall.forget()
    if "long_lived" not in request.fixturenames:
        from policy.packs import runtime

        monkeypatch.setattr(runtime, "first_time", lambda point, subject, payload: False)


@pytest.fixture
def long_lived() -> None:
    """Calls decided as a process that keeps its answers in memory decides them."""


def test_a_repeated_call_is_decided_without_evaluating_again(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = pack_engine(NO_FORCE_PUSH)
    evaluations = Evaluations(monkeypatch)
    first = engine.before_tool(bash("git push --force"))
    again = engine.before_tool(bash("git push --force"))
    assert first.action is again.action is Action.DENY_TOOL
    assert evaluations.count == 1
    # another command is other facts: evaluated, and answered on its own
    assert engine.before_tool(bash("git push")).action is Action.CONTINUE
    assert evaluations.count == 2
    # `policy bench` forgets before each decision: a one-event hook recalls nothing
    recall.forget()
    assert engine.before_tool(bash("git push --force")).action is Action.DENY_TOOL
    assert evaluations.count == 3


def test_a_long_lived_process_keys_a_call_from_its_second_time(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch, long_lived: None
) -> None:
    """A new line's key costs ≈ 9 % of its decision and no answer in memory can match
    it: its first time, a call is evaluated without a key; its second is keyed (by the
    whole call's key and by the program's own) and its answer kept; from its third,
    recalled by the call's key, without the program's own. The answers are the same
    each time."""
    engine = pack_engine(NO_FORCE_PUSH)
    evaluations = Evaluations(monkeypatch)
    keys = counted(monkeypatch, "_recall_key", 2)
    call_keys = counted(monkeypatch, "_call_key", 4)
    answers = [engine.before_tool(bash("git push --force")).action for _ in range(3)]
    assert answers == [Action.DENY_TOOL] * 3
    # keyed from the second, recalled at the third by the call's key alone
    assert (len(call_keys), len(keys), evaluations.count) == (2, 1, 2)
    # another command, another directory or another point is a call not seen yet
    assert engine.before_tool(bash("git push")).action is Action.CONTINUE
    elsewhere = ToolCall(tool="bash", args={"command": "git push --force"}, cwd="/srv")
    assert engine.before_tool(elsewhere).action is Action.DENY_TOOL
    assert (len(call_keys), len(keys), evaluations.count) == (2, 1, 4)
    # `policy bench` forgets every call before each decision: each is new again
    recall.forget()
    assert engine.before_tool(bash("git push --force")).action is Action.DENY_TOOL
    assert (len(call_keys), len(keys), evaluations.count) == (2, 1, 5)
    # one call object decided again (a library's caller keeping it) is a call seen before
    kept = bash("git push --force origin main")
    assert [engine.before_tool(kept).action for _ in range(3)] == [Action.DENY_TOOL] * 3
    assert (len(call_keys), len(keys), evaluations.count) == (4, 2, 7)


def test_a_call_recalled_by_its_whole_key_is_told_apart_by_every_input_read(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The whole call's key is made of what every pack deciding it reads: a pack that
    reads only the command is recalled for a call that another pack tells apart by
    its sender or session, and each is answered as evaluated."""
    engine = pack_engine(
        NO_FORCE_PUSH,
        """
        name: people
        rules:
          - id: no-mallory
            tools: [bash]
            when: sender == "mallory" || session == "quarantine"
            action: deny
        """,
    )
    evaluations = Evaluations(monkeypatch)

    def asked(sender: str, session: str = "s1") -> Action:
        call = ToolCall(
            tool="bash", args={"command": "ls"}, cwd="/work", sender=sender, session=session
        )
        return engine.before_tool(call).action

    assert [asked("alice") for _ in range(3)] == [Action.CONTINUE] * 3
    recalled = evaluations.count
    assert asked("mallory") is Action.DENY_TOOL
    assert asked("alice", "quarantine") is Action.DENY_TOOL
    assert asked("alice") is Action.CONTINUE
    assert evaluations.count > recalled  # (the new inputs were evaluated, not recalled)
    assert [asked("mallory"), asked("alice", "quarantine"), asked("alice")] == [
        Action.DENY_TOOL,
        Action.DENY_TOOL,
        Action.CONTINUE,
    ]


def test_the_names_read_together_only_grow_and_each_set_has_its_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A program counted among the readers of a point and tool gets a numbered set of
    names that holds its own, and every later set of the same epoch for them holds it
    too: a key made of a later set holds every input of the earlier program. Past the
    bound, every set is forgotten and a new epoch begins (numbers are never given
    again): a program counts itself again before its next lookup."""
    together = recall.ReadTogether()
    first = together.add("before_tool", "bash", ["args", "tool"])
    assert together.add("before_tool", "bash", ["args"]) == first  # (held already)
    second = together.add("before_tool", "bash", ["sender"])
    assert second[0] == first[0] and second[1] > first[1]
    assert together.get("before_tool", "bash") == second
    assert second[2] == ("args", "sender", "tool")
    other = together.add("before_tool", "write_file", ["args"])
    assert other[1] not in (first[1], second[1])
    monkeypatch.setattr(recall, "_READ_TOGETHER_LIMIT", 2)
    flooded = together.add("before_tool", "web_fetch", ["args"])
    assert together.epoch == flooded[0] == first[0] + 1
    assert together.get("before_tool", "bash") is None  # (counted again when next asked)
    again = together.add("before_tool", "bash", ["session"])
    assert again[0] == together.epoch and again[1] > flooded[1] and again[2] == ("session",)


def test_a_flood_of_tools_starts_a_new_epoch_and_calls_are_still_recalled(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thousands of tool names (an agent naming MCP tools) fill the names' table; the
    packs counted before count themselves again, and a repeated call is still answered
    by the call's key, as evaluated."""
    from policy.packs import runtime

    monkeypatch.setattr(recall, "_READ_TOGETHER_LIMIT", 4)
    engine = pack_engine(
        NO_FORCE_PUSH,
        """
        name: everything
        rules:
          - id: no-secret
            when: has(args.secret) && size(commands) >= 0
            action: deny
        """,
    )
    evaluations = Evaluations(monkeypatch)
    for round_ in range(3):
        for n in range(6):  # (more new tools than the table holds: a new epoch)
            call = ToolCall(tool=f"mcp__r{round_}_t{n}", args={"secret": "x"} if n % 2 else {})
            assert engine.before_tool(call).action is (
                Action.DENY_TOOL if n % 2 else Action.CONTINUE
            ), (round_, n)
        assert engine.before_tool(bash("git push --force")).action is Action.DENY_TOOL
    for n in range(6):  # (the bash call's packs were counted in an earlier epoch)
        engine.before_tool(ToolCall(tool=f"mcp__last_t{n}"))
    looked_up = evaluations.count
    own_keys = counted(monkeypatch, "_recall_key", 2)
    assert engine.before_tool(bash("git push --force")).action is Action.DENY_TOOL
    own_keys.clear()
    assert [engine.before_tool(bash("git push --force")).action for _ in range(2)] == [
        Action.DENY_TOOL
    ] * 2
    assert evaluations.count == looked_up  # (recalled: no evaluation)
    assert own_keys == []  # (by the call's key, in the new epoch)
    (table,) = {h.read_together for h in engine.hooks if isinstance(h, runtime.CompiledPack)}
    assert table.epoch > 0  # (the engine's packs share a table of their own)


def test_the_call_s_key_never_fails_a_pack_over_an_input_it_does_not_read(
    pack_engine: Any, tmp_path: Path
) -> None:
    """An input that cannot be worked out or compared (a duration that is no finite
    number, arguments nested past what a digest walks) fails only the packs that read
    it: a pack that does not is answered as it would be alone, the call's key or not."""
    from policy.model import ToolResult

    engine = pack_engine(
        """
        name: res
        priority: 10
        rules:
          - id: redact
            on: after_tool
            tools: [bash]
            when: result.for_llm.contains('SECRET')
            action: modify
            set: {result.for_llm: "'[x]'"}
        """,
        """
        name: slow
        priority: 20
        rules:
          - id: slow-ci
            on: after_tool
            tools: [bash]
            senders: [ci]
            when: duration > duration('600s')
            action: log
        """,
    )
    call = ToolCall(tool="bash", args={"command": "make"}, cwd="/tmp", sender="a")
    for duration in (1.0, float("nan"), float("inf"), 1e300) * 2:
        decision = engine.after_tool(call, ToolResult(for_llm="ok", duration=duration))
        assert (decision.action, decision.failure) == (Action.CONTINUE, None), duration
    reader = pack_engine(
        """
        name: reads
        rules:
          - id: has-x
            tools: [write]
            when: has(args.x)
            action: log
        """
    )
    sender = pack_engine(
        """
        name: who
        rules:
          - id: no-mallory
            tools: [write]
            when: sender == 'mallory'
            action: deny
        """
    )
    reader.before_tool(ToolCall(tool="write", args={"file_path": "/w/x"}, sender="a"))
    nested: Any = "leaf"
    for _ in range(400):
        nested = [nested]
    for _ in range(3):
        deep = ToolCall(tool="write", args={"file_path": "/w/x", "x": nested}, sender="a")
        decision = sender.before_tool(deep)
        assert (decision.action, decision.failure) == (Action.CONTINUE, None)


def test_a_pack_that_reads_no_facts_never_analyses_the_line_for_the_call_s_key(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The call's key holds the facts when a pack of the call reads them; a pack that
    does not (the sender's) and decides first never runs the analysis to make it."""
    import policy.facts

    engine = pack_engine(
        """
        name: git
        priority: 50
        rules:
          - id: no-force
            tools: [bash]
            when: commands.exists(c, c.name == 'git' && 'force' in c.flags)
            action: deny
        """,
        """
        name: who
        priority: 1
        rules:
          - id: no-mallory
            tools: [bash]
            when: sender == 'mallory'
            action: deny
        """,
    )
    line = "git log --oneline | head"
    assert engine.before_tool(bash(line)).action is Action.CONTINUE
    analysed: list[object] = []
    facts = policy.facts._facts
    monkeypatch.setattr(
        policy.facts, "_facts", lambda *a: analysed.append(a[0]) or facts(*a)
    )
    mallory = ToolCall(tool="bash", args={"command": line}, cwd="/work", sender="mallory")
    assert [engine.before_tool(mallory).action for _ in range(4)] == [Action.DENY_TOOL] * 4
    assert analysed == []
    # (a call the sender's pack lets through is analysed by the next pack, keyed whole)
    assert [engine.before_tool(bash(line)).action for _ in range(3)] == [Action.CONTINUE] * 3
    assert len(analysed) == 3


def test_an_agent_s_last_message_is_digested_only_by_the_packs_that_read_it(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At `stop`, a pack that reads only the sender never works out the agent's last
    message for the call's key, though another pack of the process reads it."""
    from policy import Stop
    from policy.packs import runtime

    reader = pack_engine(
        """
        name: msg
        rules:
          - id: key-in-message
            on: stop
            when: stop.message.contains('PRIVATE KEY')
            action: abort_turn
        """
    )
    sender = pack_engine(
        """
        name: who
        rules:
          - id: no-mallory
            on: stop
            when: sender == 'mallory'
            action: abort_turn
        """
    )
    assert reader.decide_at("stop", Stop(message="x", sender="a")).action is Action.CONTINUE
    worked_out: list[object] = []
    value_of = runtime._VALUE_OF["stop"]
    monkeypatch.setitem(
        runtime._VALUE_OF, "stop", lambda s, p, pack: worked_out.append(p) or value_of(s, p, pack)
    )
    message = "hello " * 10_000
    for who, action in [("a", Action.CONTINUE), ("mallory", Action.ABORT_TURN)] * 2:
        assert sender.decide_at("stop", Stop(message=message, sender=who)).action is action
    assert worked_out == []
    assert reader.decide_at("stop", Stop(message="PRIVATE KEY", sender="a")).blocked


def test_packs_loaded_elsewhere_or_before_a_reload_are_no_part_of_a_call_s_key(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Each engine's packs, and each reload's, share a table of what they read: a pack
    that reads the arguments in another engine (or in the packs a reload replaced)
    never keeps this engine's packs from being answered by the call's key."""
    from policy.packs import runtime

    other = pack_engine(ARGS_READER)
    assert other.before_tool(bash("ls")).action is Action.CONTINUE
    engine = pack_engine(NO_FORCE_PUSH)
    own_keys = counted(monkeypatch, "_recall_key", 2)
    assert [engine.before_tool(bash("git push --force")).action for _ in range(4)] == [
        Action.DENY_TOOL
    ] * 4
    assert len(own_keys) == 1  # (the first decision's: then by the call's key alone)
    tables = {h.read_together for e in (engine, other) for h in e.hooks if hasattr(h, "read_together")}
    assert len(tables) == 2
    # a reload that drops the pack reading the arguments: its packs' table is new
    reader, force = tmp_path / "pack0.yaml", tmp_path / "pack1.yaml"
    both = pack_engine(ARGS_READER, NO_FORCE_PUSH)
    assert both.before_tool(bash("ls")).action is Action.CONTINUE
    reader.write_text(force.read_text().replace("name: git", "name: git-again"))
    both.reload_packs()
    own_keys.clear()
    assert [both.before_tool(bash("git push --force")).action for _ in range(4)] == [
        Action.DENY_TOOL
    ] * 4
    assert len(own_keys) == 1  # (the first decision's: then by the call's key alone)
    (table,) = {h.read_together for h in both.hooks if isinstance(h, runtime.CompiledPack)}
    assert table.get("before_tool", "bash")[2] == ("commands",)  # type: ignore[index]


def test_a_pack_built_later_is_recalled_only_by_keys_holding_its_inputs(
    pack_engine: Any,
) -> None:
    """A second engine's pack reads an input the first engine's packs did not: the set
    of names grows while a call is decided (the first pack's key made, the second's
    program built after it), and the second pack's answers are never taken from a key
    made without that input."""
    first = pack_engine(NO_FORCE_PUSH)
    for _ in range(3):
        assert first.before_tool(bash("ls", who="alice")).action is Action.CONTINUE
    second = pack_engine(
        NO_FORCE_PUSH,
        """
        name: who
        rules:
          - id: no-bob
            tools: [bash]
            when: args.who == "bob"
            action: deny
        """,
    )
    for who, expected in [("alice", Action.CONTINUE), ("bob", Action.DENY_TOOL)] * 3:
        assert second.before_tool(bash("ls", who=who)).action is expected, who
    for _ in range(2):
        assert first.before_tool(bash("ls", who="bob")).action is Action.CONTINUE


def test_a_call_is_new_once_for_all_the_packs_deciding_it(long_lived: None) -> None:
    call, other = bash("ls"), bash("ls")
    assert recall.first_time("before_tool", call, call)
    assert recall.first_time("before_tool", call, call)  # (the next pack of that call)
    assert not recall.first_time("before_tool", other, other)  # an equal call, decided again
    longer = bash("ls -l")
    assert recall.first_time("before_tool", longer, longer)
    assert not recall.first_time("after_tool", call, object())  # (a result: keyed, as before)
    unhashable = ToolCall(tool="bash", args={"command": "ls"}, cwd="/work")
    object.__setattr__(unhashable, "args", {"command": "ls", "n": [1]})  # (not frozen)
    assert not recall.first_time("before_tool", unhashable, unhashable)  # (keyed, as before)


def test_the_calls_seen_are_bounded(monkeypatch: pytest.MonkeyPatch, long_lived: None) -> None:
    monkeypatch.setattr(recall, "SEEN_LIMIT", 3)
    calls = [bash(f"echo {n}") for n in range(4)]
    assert all(recall.first_time("before_tool", c, c) for c in calls)
    again = [bash(f"echo {n}") for n in (3, 0)]
    # the fourth made room by forgetting the first three: only it is still known
    assert [recall.first_time("before_tool", c, c) for c in again] == [False, True]


def test_a_repeated_line_keeps_its_facts_until_the_disk_changes_them(
    pack_engine: Any, tmp_path: Path
) -> None:
    """A line nothing on disk changed is handed the facts it had (the same objects: its
    access and their CEL form are not worked out again); a link made between two calls
    is a new line on disk, judged as such."""
    from policy.facts import FactsContext, facts_of

    work, secrets = tmp_path / "work", tmp_path / "secrets"
    work.mkdir()
    secrets.mkdir()
    engine = pack_engine(
        f"""
        name: secrets
        rules:
          - id: no-secrets
            tools: [bash]
            when: access.reads.exists(p, path.matches(p, ["{secrets}/**"]))
            action: deny
        """
    )
    line = "cat data/key"
    context = FactsContext()
    call = ToolCall(tool="bash", args={"command": line}, cwd=str(work))
    first = facts_of(call, context)
    again = facts_of(ToolCall(tool="bash", args={"command": line}, cwd=str(work)), context)
    assert again.access is first.access and again.commands_cel is first.commands_cel
    assert engine.before_tool(call).action is Action.CONTINUE
    (work / "data").symlink_to(secrets)
    linked = facts_of(ToolCall(tool="bash", args={"command": line}, cwd=str(work)), context)
    assert linked.access is not first.access
    assert f"{secrets}/key" in linked.access.reads
    asked = ToolCall(tool="bash", args={"command": line}, cwd=str(work))
    assert engine.before_tool(asked).action is Action.DENY_TOOL


def test_the_users_home_is_part_of_the_question(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = pack_engine(
        """
        name: home
        rules:
          - id: no-ssh
            tools: [bash]
            when: path.matches(args.target, ["~/.ssh/**"])
            action: deny
        """
    )
    call = bash("true", target="/home/a/.ssh/id_rsa")
    monkeypatch.setenv("HOME", "/home/a")
    assert engine.before_tool(call).action is Action.DENY_TOOL
    monkeypatch.setenv("HOME", "/home/b")
    assert engine.before_tool(call).action is Action.CONTINUE
    monkeypatch.setenv("HOME", "/home/a")
    assert engine.before_tool(call).action is Action.DENY_TOOL


def test_home_is_both_the_callers_and_the_environments(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deciding for a caller of `policy serve`, `~` in `path.matches` is the caller's
    home, and in the functions that normalise (`path.within`, `path.within_any_folded`)
    it is `$HOME`: a change of either is evaluated again, never recalled."""
    from policy.facts import Caller, deciding_for

    engine = pack_engine(
        """
        name: homes
        rules:
          - id: no-secret
            tools: [bash]
            when: >-
              path.within(args.target, "~/secret")
              || path.within_any_folded(args.target, ["~/vault"])
            action: deny
        """
    )
    alice = Caller(home="/home/alice", principal="uid:1001")
    for target in ("/home/bob/secret/x", "/home/bob/vault/y"):
        call = bash("true", target=target)
        with deciding_for(alice):
            monkeypatch.setenv("HOME", "/home/dev")
            assert engine.before_tool(call).action is Action.CONTINUE
            monkeypatch.setenv("HOME", "/home/bob")
            assert engine.before_tool(call).action is Action.DENY_TOOL, target
            monkeypatch.setenv("HOME", "/home/dev")
            assert engine.before_tool(call).action is Action.CONTINUE


def test_the_packs_deciding_one_call_work_out_each_input_once(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every pack's recall key is made of the call's inputs; the packs of one call share
    them, so an input is worked out (and digested) by the first pack that reads it —
    and a new call, even an equal one, is worked out again."""
    from policy.packs import runtime

    engine = pack_engine(
        """
        name: first
        rules:
          - id: no-force
            tools: [bash]
            when: commands.exists(c, "force" in c.flags) && args.command != ""
            action: deny
        """,
        """
        name: second
        rules:
          - id: no-rm
            tools: [bash]
            when: commands.exists(c, c.name == "rm") && args.command != ""
            action: deny
        """,
    )
    read: list[str] = []
    for name in ("args", "commands"):
        value_of = runtime._VALUE_OF[name]
        monkeypatch.setitem(
            runtime._VALUE_OF,
            name,
            lambda s, p, pack, name=name, value_of=value_of: read.append(name) or value_of(s, p, pack),
        )
    assert engine.before_tool(bash("git push --force")).action is Action.DENY_TOOL
    read.clear()
    assert engine.before_tool(bash("git push --force")).action is Action.DENY_TOOL  # recalled
    assert sorted(read) == ["args", "commands"]
    read.clear()
    assert engine.before_tool(bash("git push --force")).action is Action.DENY_TOOL
    assert sorted(read) == ["args", "commands"]  # an equal call is another call


def test_a_shared_key_is_the_one_a_program_makes_of_its_inputs(pack_engine: Any) -> None:
    """The key made of shared parts is `Recall.key` of the same inputs: what a one-event
    hook keeps on disk for the next process is found whichever way it was made."""
    from policy.facts import home_dir
    from policy.packs.runtime import CompiledPack

    engine = pack_engine(
        """
        name: keyed
        rules:
          - id: no-secret
            tools: [bash]
            when: >-
              access.reads.exists(p, path.matches(p, ["/etc/shadow"]))
              || path.within(cwd, workspace) && args.command.startsWith("scp ")
            action: deny
        """
    )
    call = bash("cat /etc/shadow")
    assert engine.before_tool(call).action is Action.DENY_TOOL
    (pack,) = [h for h in engine.hooks if isinstance(h, CompiledPack)]
    candidates = pack._index["before_tool"].memo["bash"]
    kept = candidates.recall
    assert kept is not None and "access" in kept.names and "cwd" in kept.names
    data = pack.values_for("before_tool", kept.names, call, call)
    shared = pack._recall_key(kept.names, call, call)
    assert shared is not None and shared == kept.key(data, home_dir())


def test_a_call_asked_for_another_caller_is_keyed_for_that_caller(pack_engine: Any) -> None:
    """The same call object decided for two callers of `policy serve`: the protected
    paths the second one adds are its own inputs, never the first one's parts."""
    from policy.facts import Caller, deciding_for

    engine = pack_engine(
        """
        name: guard
        rules:
          - id: no-protected
            tools: [bash]
            when: access.writes.exists(p, protected.exists(r, path.within(p, r)))
            action: deny
        """
    )
    call = bash("touch /srv/hook/settings.yaml")
    plain = Caller(home="/home/a", principal="uid:1001")
    guarded = Caller(home="/home/a", principal="uid:1001", protected=("/srv/hook",))
    with deciding_for(plain):
        assert engine.before_tool(call).action is Action.CONTINUE
    with deciding_for(guarded):
        assert engine.before_tool(call).action is Action.DENY_TOOL
    with deciding_for(plain):
        assert engine.before_tool(call).action is Action.CONTINUE


@pytest.mark.parametrize("between", ["nothing", "another call's facts"])
def test_the_same_call_object_asked_again_reads_the_disk_again(
    pack_engine: Any, tmp_path: Path, between: str
) -> None:
    """A call object judged again (before_tool, then approve_tool once a person
    answered; a library caller keeping its call) is a new decision on the disk as it
    is: a file made a link to a key meanwhile is read as the key — whatever was worked
    out for other calls in between."""
    from policy.facts import facts_of

    work, keys = tmp_path / "work", tmp_path / ".ssh"
    work.mkdir()
    keys.mkdir()
    (keys / "id_rsa").write_text("KEY")
    (work / "notes.txt").write_text("hello")
    engine = pack_engine(
        """
        name: secrets
        rules:
          - id: no-ssh
            tools: [bash]
            when: access.reads.exists(p, path.matches(p, ["**/.ssh/**"]))
            action: deny
        """
    )
    call = ToolCall(tool="bash", args={"command": "cat notes.txt"}, cwd=str(work))
    assert engine.before_tool(call).action is Action.CONTINUE
    (work / "notes.txt").unlink()
    (work / "notes.txt").symlink_to(keys / "id_rsa")
    if between != "nothing":
        facts_of(ToolCall(tool="bash", args={"command": "ls"}, cwd=str(work)), engine.facts_context)
    assert engine.before_tool(call).action is Action.DENY_TOOL


def test_a_program_that_reads_the_file_system_is_never_recalled(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    (tmp_path / "other").mkdir()
    link = tmp_path / "link"
    engine = pack_engine(
        f"""
        name: links
        rules:
          - id: no-secrets-through-links
            tools: [bash]
            when: path.resolve(args.target).startsWith({json.dumps(str(secrets))})
            action: deny
        """
    )
    evaluations = Evaluations(monkeypatch)
    link.symlink_to(secrets)
    call = bash("true", target=str(link / "key"))
    assert engine.before_tool(call).action is Action.DENY_TOOL
    link.unlink()
    link.symlink_to(tmp_path / "other")
    assert engine.before_tool(call).action is Action.CONTINUE
    assert evaluations.count == 2


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        (['commands.exists(c, c.name == "rm")'], True),
        (['path.resolve(args.path) == "/"'], False),
        (['path.contained(args.path, workspace)'], False),
        (['shell.commands(args.script).size() > 0'], False),
        (["now.getHours() > 18"], False),
        # a word in a string reads nothing
        (['args.kind.matches("^(shell|resolve)$")'], True),
        # ... but a pack variable the program reads counts like the program itself
        (["vars.mine", "path.resolve(args.path)"], False),
    ],
)
def test_what_answers_from_its_inputs_alone(sources: list[str], expected: bool) -> None:
    assert recallable(sources) is expected
    assert (Recall.of("before_tool", sources) is not None) is expected


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        (['commands.exists(c, c.name == "rm")'], True),
        (['path.resolve(args.path) == "/"'], False),
        (["now.getHours() > 18"], False),
    ],
)
def test_the_names_a_program_reads_are_kept_for_the_next_process(
    sources: list[str], expected: bool, program_store: Any
) -> None:
    # (a one-event hook scanned every pack source for its strings at every start)
    store = program_store
    first = Recall.of("before_tool", sources, (), None, store)
    assert (first is not None) is expected
    assert len(store.entries) == 1
    again = Recall.of("before_tool", sources, (), None, store)
    assert (again is not None) is expected
    if first is not None and again is not None:
        assert again.names == first.names


@pytest.mark.parametrize("damage", [b"not json", b'{"now": 1}', b'["args", 7]', b""])
def test_a_kept_entry_that_does_not_read_back_is_worked_out_again(
    damage: bytes, program_store: Any
) -> None:
    store = program_store
    sources = ["now.getHours() > 18 && args.path == 'x'"]
    Recall.of("before_tool", sources, (), None, store)
    (entry,) = store.entries
    store.entries[entry] = damage
    assert Recall.of("before_tool", sources, (), None, store) is None  # `now`: never recalled
    assert json.loads(store.entries[entry]) == sorted({"now", "getHours", "args", "path"})


def test_different_sources_keep_different_names(program_store: Any) -> None:
    store = program_store
    Recall.of("before_tool", ["args.a == 'x'"], (), None, store)
    Recall.of("before_tool", ["args.a == 'x'", "now.getHours() > 1"], (), None, store)
    Recall.of("before_tool", ["args.a == 'x'"], [{"v": "now"}], None, store)
    assert len(store.entries) == 3
    assert Recall.of("before_tool", ["args.a == 'x'"], [{"v": "now"}], None, store) is None


def test_a_nan_is_not_taken_for_a_null(pack_engine: Any) -> None:
    # (JSON has no NaN: serialised, a NaN and a null would read alike)
    engine = pack_engine(
        """
        name: numbers
        rules:
          - id: no-double-limit
            tools: [bash]
            when: type(args.limit) == double
            action: deny
        """
    )
    assert engine.before_tool(bash("ls", limit=None)).action is Action.CONTINUE
    assert engine.before_tool(bash("ls", limit=math.nan)).action is Action.DENY_TOOL
    assert engine.before_tool(bash("ls", limit=None)).action is Action.CONTINUE


@pytest.mark.parametrize(
    "value",
    [math.nan, math.inf, 1 << 70, object(), {1: "int key"}, ["\ud800"], "\ud800"],
    ids=["nan", "inf", "big-int", "object", "int-key", "surrogate-in-list", "surrogate"],
)
def test_inputs_that_cannot_be_compared_exactly_have_no_key(value: Any) -> None:
    kept = Recall("before_tool", ["args.x"])
    assert kept.key({"args": {"x": value}}, "/home/a") is None


def test_equal_inputs_have_one_key_and_unequal_ones_two() -> None:
    kept = Recall("before_tool", ["args.x == tool"])
    assert kept.names == ("args", "tool")  # (handed `session` too, it reads none of it)
    key = kept.key({"args": {"x": 1}, "tool": "bash", "session": "a"}, "/home/a")
    assert key == kept.key({"args": {"x": 1}, "tool": "bash", "session": "b"}, "/home/a")
    for other in (
        ({"args": {"x": True}, "tool": "bash"}, "/home/a"),
        ({"args": {"x": 1.0}, "tool": "bash"}, "/home/a"),
        ({"args": {"x": "1"}, "tool": "bash"}, "/home/a"),
        ({"args": {"x": 1}, "tool": "bash"}, "/home/b"),
        ({"args": {"x": 1, "y": None}, "tool": "bash"}, "/home/a"),
    ):
        assert kept.key(*other) != key, other


def test_equal_small_arguments_are_one_key_whichever_mapping_holds_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A call's arguments are a new mapping at each call: small flat ones are digested
    once by their contents (`FrozenDict.content_key`), and ones that only look alike
    (`1`, `1.0`, `true`; `0.0` and `-0.0`; a `~name` path) never share a part."""
    from policy.model import FrozenDict

    serialised: list[object] = []
    dumps = recall.dumps
    monkeypatch.setattr(recall, "dumps", lambda value: serialised.append(value) or dumps(value))
    kept = Recall("before_tool", ["args.x == tool"])

    def key(args: dict[str, Any]) -> Any:
        return kept.key({"args": FrozenDict(args), "tool": "bash"}, "/home/a")

    assert len({key({"x": "ls"}) for _ in range(3)}) == 1
    assert len(serialised) == 1
    alike = [{"x": 1}, {"x": 1.0}, {"x": True}, {"x": 0.0}, {"x": -0.0}, {"x": None}]
    keys = [key(a) for a in alike]
    assert len(set(keys)) == len(alike)
    assert keys == [key(a) for a in alike]  # (the same again, from memory)
    assert key({"x": "~bob/notes"}) is None and key({"x": "~bob/notes"}) is None
    recall.forget()  # (`policy bench` forgets them too)
    serialised.clear()
    key({"x": "ls"})
    assert len(serialised) == 1


def test_a_failed_evaluation_is_not_remembered(
    pack_engine: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = pack_engine(
        """
        name: typed
        on_error: deny
        rules:
          - id: small
            tools: [bash]
            when: args.count > 3
            action: deny
        """
    )
    evaluations = Evaluations(monkeypatch)
    for _ in range(2):  # a string compared with an int: an error, denied each time
        assert engine.before_tool(bash("ls", count="many")).action is Action.DENY_TOOL
    assert evaluations.count == 2


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(recall, "LIMIT", 3)
    kept = Recall("before_tool", ["args.x"])
    keys = [kept.key({"args": {"x": n}}, "") for n in range(4)]
    for n, key in enumerate(keys):
        assert key is not None
        kept.keep(key, n)
    assert kept.get(keys[3]) == 3
    assert [kept.get(key) for key in keys[:3]] == [None, None, None]


def test_the_shipped_packs_answer_a_repeated_corpus_line_as_they_did_the_first_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every eleventh line of the everyday and dangerous corpus, decided twice by one
    engine on the shipped packs in the corpus's deployment: the second answer (recalled)
    is the first, and whole."""
    engine = corpus_engine(tmp_path, monkeypatch)
    calls = _corpus_calls(11)

    def decide(call: ToolCall) -> tuple[Any, ...]:
        decision = engine.before_tool(call)
        return decision.action, decision.reason, decision.rule_ids, decision.needs_approval

    first = [decide(call) for call in calls]
    assert [decide(call) for call in calls] == first
    assert len(calls) > 400
    assert {action for action, *_ in first} >= {Action.CONTINUE, Action.DENY_TOOL}
    engine.close()


def test_the_facts_are_plain_data_a_digest_tells_apart(tmp_path: Path) -> None:
    """Recall takes the facts' serialisation as exact without walking them: they hold
    only strings, ints, bools, None, lists and str-keyed maps (no float, whose NaN
    JSON would write as null). Checked on the facts of every fourth corpus call."""
    from policy.errors import AnalysisIncomplete
    from policy.facts import FactsContext, facts_of

    context = FactsContext(workspace="/home/dev/project")
    checked = 0
    for call in _corpus_calls(4):
        try:
            facts = facts_of(call, context)
        except AnalysisIncomplete:
            continue
        for value in (facts.commands_cel, facts.access_cel):
            assert recall._exact(value), call
        checked += 1
    assert checked > 1200


# ---------------------------------------------------------------- across processes


def _stored(tmp_path: Path, salt: bytes = b"code and libraries") -> tuple[Recall, Path]:
    path = tmp_path / "cache" / "answers"
    return Recall("before_tool", ["args.x == 1"], store=AnswerStore(path, salt)), path


def test_an_answer_kept_on_disk_is_the_next_process_s_answer(tmp_path: Path) -> None:
    first, path = _stored(tmp_path)
    key = first.key({"args": {"x": 1}}, "/home/a")
    assert key is not None and first.get(key) is None
    first.keep(key, 1)
    assert path.stat().st_mode & 0o777 == 0o600
    later, _ = _stored(tmp_path)  # (a new process: nothing in memory)
    assert later.get(key) == 1
    assert later.get(later.key({"args": {"x": 2}}, "/home/a")) is None  # type: ignore[arg-type]
    # other code or libraries (the salt), or another program: not their answer
    assert _stored(tmp_path, b"other code")[0].get(key) is None
    other = Recall("before_tool", ["args.x == 2"], store=AnswerStore(path, b"code and libraries"))
    assert other.get(key) is None


def test_a_damaged_or_foreign_answer_file_is_a_miss(tmp_path: Path) -> None:
    first, path = _stored(tmp_path)
    key = first.key({"args": {"x": 1}}, "/home/a")
    assert key is not None
    first.keep(key, 1)
    data = bytearray(path.read_bytes())
    data[16] ^= 1  # the mask of the only record
    path.write_bytes(bytes(data))
    assert _stored(tmp_path)[0].get(key) is None
    path.write_bytes(bytes(data[:-3]))  # a record cut short
    assert _stored(tmp_path)[0].get(key) is None
    first.keep(key, 1)  # ... and the file starts again, records in their places
    assert path.stat().st_size == 40 and _stored(tmp_path)[0].get(key) == 1
    path.chmod(0o620)  # writable by the group: not this user's alone
    assert _stored(tmp_path)[0].get(key) is None
    path.chmod(0o600)
    target = tmp_path / "elsewhere"
    target.write_bytes(path.read_bytes())
    path.unlink()
    path.symlink_to(target)  # a link: never followed
    assert _stored(tmp_path)[0].get(key) is None
    size = target.stat().st_size
    first.keep(key, 1)
    assert path.is_symlink() and target.stat().st_size == size  # nor written through


def test_a_full_answer_file_starts_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(AnswerStore, "RECORDS", 3)
    first, path = _stored(tmp_path)
    keys = [first.key({"args": {"x": n}}, "") for n in range(4)]
    for n, key in enumerate(keys):
        assert key is not None
        first.keep(key, n)
    assert path.stat().st_size == 40
    later, _ = _stored(tmp_path)
    assert [later.get(key) for key in keys] == [None, None, None, 3]  # type: ignore[arg-type]


def test_answers_are_kept_on_disk_only_where_compiled_programs_are(tmp_path: Path) -> None:
    """The answer store stands beside the pack cache's program store, under its rules:
    packs read without the cache (`pack_cache: false`, or packs the user does not
    control, `policy.packs.cache.user_controls_packs`) keep no answers across processes."""
    from policy.packs import answer_across_processes
    from policy.packs.runtime import CompiledPack

    pack = tmp_path / "pack.yaml"
    pack.write_text(HEADER + "name: p\nrules:\n  - {id: r, tools: [bash], when: 'args.x == 1', action: deny}\n")
    for cached in (False, True):
        settings = Settings(packs=[pack], audit_path=tmp_path / "log", pack_cache=cached)
        with Engine(settings) as engine:
            answer_across_processes(engine.hooks)
            packs = [hook for hook in engine.hooks if isinstance(hook, CompiledPack)]
            assert packs and all((p.answer_store is not None) is cached for p in packs)


_SAMPLES = {"string": "/home/a/src/../x.txt", "list_of_strings": ["~/.ssh/**", "/etc/*"]}


@pytest.mark.parametrize(
    "function",
    sorted(n for n, *_ in functions._FUNCTIONS if n not in functions.READ_BEYOND_ARGUMENTS),
)
def test_every_other_function_answers_from_its_arguments_alone(
    function: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What recall rests on: a function outside READ_BEYOND_ARGUMENTS never looks at
    the file system (here one that refuses every look), so its answer is fixed by its
    arguments and the user's home."""
    name, params, _ret, impl, _member = next(f for f in functions._FUNCTIONS if f[0] == function)
    args = [_SAMPLES[kind] for kind in params]
    if name.startswith("regex."):
        args = ["a.b", "[.]", "-"][: len(params)]
    _refuse_the_file_system(monkeypatch)
    impl(*args)  # answers, or raises its own error: never the file system's


def test_the_functions_that_read_the_file_system_are_named_so() -> None:
    assert {"resolve", "contained", "shell"} == functions.IMPURE_NAMES
    assert {"resolve", "contained", "shell", "now"} == recall.READS_BEYOND_ARGUMENTS


def test_a_path_resolve_looks_at_the_file_system(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the refusing file system of the test above does refuse)
    _refuse_the_file_system(monkeypatch)
    with pytest.raises(Exception, match="refused a look"):
        functions.fn_path_resolve("/home/a/x")


def _refuse_the_file_system(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise OSError("the file system refused a look")

    for name in ("stat", "lstat", "readlink", "scandir", "listdir", "open", "access"):
        monkeypatch.setattr(os, name, refuse)


def test_a_program_is_known_by_its_variables_names_too(tmp_path: Path) -> None:
    """Two packs whose variables hold the same sources under other names are two
    programs (a red team's case: `ls` allowed by one, denied by the other after an
    edit): an answer kept for one is not the other's."""
    store = AnswerStore(tmp_path / "answers", b"code and libraries")
    condition = ["vars.a || (vars.b && vars.c)"]
    is_ls, is_rm = 'args.command == "ls"', 'args.command.startsWith("rm")'
    before = Recall("before_tool", condition, [{"b": is_ls, "c": is_rm}, {"a": "vars.c"}], store)
    after = Recall("before_tool", condition, [{"a": is_ls, "c": is_rm}, {"b": "vars.c"}], store)
    key = before.key({"args": {"command": "ls"}}, "/home/a")
    assert key is not None and key == after.key({"args": {"command": "ls"}}, "/home/a")
    before.keep(key, 0)
    assert after.get(key) is None
    assert Recall("before_tool", condition, [{"b": is_ls, "c": is_rm}, {"a": "vars.c"}], store).get(
        key
    ) == 0


@pytest.mark.parametrize(
    "value",
    ["~bob/.bashrc", {"file_path": "~bob/.bashrc"}, {"paths": ["/tmp/x", "~root"]}],
)
def test_a_path_of_another_account_is_not_recalled(value: Any) -> None:
    """`~name` is where the account database says: no key holds that."""
    in_args = Recall("before_tool", ["args.x == 1"])
    assert in_args.key({"args": {"x": value}}, "/home/a") is None
    assert in_args.key({"args": {"x": "~/.bashrc"}}, "/home/a") is not None
    as_string = Recall("before_tool", ['cwd == "/"'])  # (a short string: kept as it is)
    assert as_string.key({"cwd": "~bob"}, "/home/a") is None
    assert as_string.key({"cwd": "~/src"}, "/home/a") is not None


def test_a_fifo_at_the_answers_path_blocks_nobody(tmp_path: Path) -> None:
    import threading

    kept, path = _stored(tmp_path)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    key = kept.key({"args": {"x": 1}}, "/home/a")
    assert key is not None
    done: list[int | None] = []
    worker = threading.Thread(target=lambda: (done.append(kept.get(key)), kept.keep(key, 1)))
    worker.daemon = True
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive() and done == [None]


_PROTECTED_IN_A_NEW_PROCESS = """\
import sys
sys.prefix, sys.base_prefix = "/venvs/a", "/pythons/3.11"
sys.exec_prefix, sys.base_exec_prefix = "/venvs/b", "/pythons/3.11-exec"
from policy.facts import _interpreter_paths
print("\\n".join(_interpreter_paths()))
"""


def test_the_protected_paths_read_alike_in_every_process(tmp_path: Path) -> None:
    """`protected` is part of the key of every answer the self-protection pack keeps
    for the next process: a virtualenv's prefixes were listed in the order of a set,
    which each process's string hashes shuffle, so half the next processes missed the
    answer and built the pack's programs again."""
    import subprocess
    import sys

    seen = set()
    for seed in ("1", "2", "3", "4", "5", "6"):
        done = subprocess.run(
            [sys.executable, "-c", _PROTECTED_IN_A_NEW_PROCESS],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
            cwd=tmp_path,
            check=True,
        )
        seen.add(done.stdout)
    (listed,) = seen
    prefixes = [p for p in listed.splitlines() if p.startswith(("/venvs", "/pythons"))]
    assert prefixes == ["/venvs/a", "/pythons/3.11", "/venvs/b", "/pythons/3.11-exec"]
