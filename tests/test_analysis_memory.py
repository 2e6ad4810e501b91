"""What deciding a call leaves behind in memory: nothing of a long call's text.

A service decides for hours, and a caller chooses what it sends: a 1 MiB command line,
a 64 MiB file to write, a 4 KiB working directory. Every memo keyed by what a call
sent keeps only short keys (`policy.analysis._memo.remember_short`, the line memos'
`KEEP_LINE_CHARS`, the decision log's masked arguments), and parsing a line keeps
nothing of it once the parse is done (policy/analysis/shell/parse.py).
"""

from __future__ import annotations

import gc
import tracemalloc
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from policy import Engine, ToolCall
from policy.analysis import effects, network, paths, shell
from policy.analysis._memo import remember_short
from policy.audit import _masked, _masked_args
from policy.model import FrozenDict
from policy.settings import Settings

RULES = Path(__file__).resolve().parent.parent / "rules"


def python_bytes_left_by(work: Callable[[], object]) -> int:
    """Bytes Python allocated in `work` that are still held once it is done."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        work()
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()


def test_parsing_a_line_keeps_nothing_of_its_text() -> None:
    # py-tree-sitter keeps every object a read callback returns: returning a fresh
    # slice a read leaked 1.1 times each line parsed
    def parse(lines: range) -> None:
        for n in lines:
            effects.forget_lines()
            assert not shell.analyze(f"ls notes/{n}.txt # {'A' * 50_000}", "/w").limit

    parse(range(1))  # (the parser and its buffer are made once a thread)
    left = python_bytes_left_by(lambda: parse(range(1, 21)))
    assert left < 100_000, f"{left} bytes left after parsing 1 MB of lines"


def test_a_long_line_is_analysed_afresh_not_kept() -> None:
    effects.forget_lines()
    long_line = f"echo {'x' * shell.KEEP_LINE_CHARS}"
    effects.analyze(long_line, "/work", "/home/dev", disk=False)
    assert shell.analyze.cache_info().currsize == 0  # type: ignore[attr-defined]
    assert effects._memoised.cache_info().currsize == 0

    effects.analyze("echo short", "/work", "/home/dev", disk=False)
    assert shell.analyze.cache_info().currsize == 1  # type: ignore[attr-defined]
    assert effects._memoised.cache_info().currsize == 1
    # the same answer either way
    assert shell.analyze(long_line, "/work").commands[0].argv[0] == "echo"


def test_a_short_key_is_remembered_and_a_long_one_asked_again() -> None:
    asked: list[object] = []

    @remember_short(16, longest=8)
    def length(value: str | tuple[str, ...]) -> int:
        asked.append(value)
        return len(value)

    assert (length("short"), length("short")) == (5, 5)
    assert (length("a long value"), length("a long value")) == (12, 12)
    assert (length(("ab", "cd")), length(("ab", "cd"))) == (2, 2)
    assert (length(("abcde", "fghij")), length(("abcde", "fghij"))) == (2, 2)
    assert asked == ["short", "a long value", "a long value", ("ab", "cd")] + [
        ("abcde", "fghij")
    ] * 2


@pytest.mark.parametrize(
    ("memo", "ask"),
    [
        (paths.fold, lambda text: paths.fold("/" + text)),
        (network.canonical_host, lambda text: network.canonical_host(text + ".example")),
    ],
    ids=["a path", "a host"],
)
def test_memos_keyed_by_what_a_call_names_keep_no_long_key(
    memo: object, ask: Callable[[str], object]
) -> None:
    info = memo.cache_info  # type: ignore[attr-defined]
    kept = info().currsize
    ask("x" * 100_000)
    assert info().currsize == kept
    ask(uuid.uuid4().hex)  # (short, and asked by nothing before)
    assert info().currsize == kept + 1


def test_the_decision_log_keeps_no_long_arguments_as_a_key() -> None:
    _masked.clear()
    content = "secret-free text\n" * 1_000
    masked = _masked_args(FrozenDict({"file_path": "/w/a.txt", "content": content}))
    assert masked["file_path"] == "/w/a.txt"
    _masked_args(FrozenDict({"x" * 65_536: 1}))  # a long name
    _masked_args(FrozenDict({f"n{i}": i for i in range(60_000)}))  # many names
    _masked_args(FrozenDict({"n": 10**5000}))  # a wide integer
    assert not _masked
    _masked_args(FrozenDict({"file_path": "/w/a.txt", "content": "short"}))
    assert len(_masked) == 1


@pytest.fixture
def shipped(tmp_path: Path) -> Iterator[Engine]:
    with Engine(Settings(packs=[RULES], audit_path=tmp_path / "decisions.log")) as engine:
        yield engine


def test_deciding_long_calls_leaves_no_trace_of_them(shipped: Engine) -> None:
    calls = [
        ToolCall(tool="Bash", args={"command": f"ls notes/{n} # {'A' * 40_000}"}, cwd="/w")
        for n in range(10)
    ] + [
        ToolCall(tool="Write", args={"file_path": f"/w/{n}.txt", "content": "z" * 200_000})
        for n in range(10)
    ]
    # (the programs of each tool's rules are built at its first call, and their
    # conditions' fast forms at the second: policy.packs.cel.native.program)
    for n in range(2):
        shipped.before_tool(ToolCall(tool="Bash", args={"command": f"ls {n}"}, cwd="/w"))
        shipped.before_tool(ToolCall(tool="Write", args={"file_path": f"/w/{n}", "content": "z"}))

    def decide_all() -> None:
        for call in calls:
            assert not shipped.before_tool(call).blocked

    left = python_bytes_left_by(decide_all)
    # 2.4 MB of calls; what is left is what any ten calls leave (a few KB each)
    assert left < 200_000, f"{left} bytes left after deciding 2.4 MB of calls"
