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
from collections.abc import Callable

from policy.analysis import effects, shell


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
