"""The analysis's regular expressions: compiled when first used, and a long one searched
only in a text that holds one of the literals every match must hold
(policy.analysis._lazy_re). A guard may only spare work: every answer is the
pattern's own."""

from __future__ import annotations

import importlib
import json
import pkgutil
import random
import re
from pathlib import Path

import pytest

import policy.analysis
from policy.analysis._lazy_re import LazyPattern, _narrowed


def _required(pattern: str, flags: int) -> tuple[str, ...]:
    """The literals a guard of `pattern` checks for (() when it is not guarded)."""
    narrowed = _narrowed(re.compile(pattern, flags))
    return narrowed.literals if narrowed is not None else ()

CORPUS = Path(__file__).parent / "corpus"


def _analysis_patterns() -> list[tuple[str, LazyPattern]]:
    found = []
    for module in pkgutil.walk_packages(policy.analysis.__path__, "policy.analysis."):
        loaded = importlib.import_module(module.name)
        for name, value in vars(loaded).items():
            if isinstance(value, LazyPattern):
                found.append((f"{module.name}.{name}", value))
            elif isinstance(value, dict):
                found += [
                    (f"{module.name}.{name}[{key!r}]", one)
                    for key, one in value.items()
                    if isinstance(one, LazyPattern)
                ]
    return found


def _texts() -> list[str]:
    """The corpus's command lines, their pieces, and the same spelt otherwise: every
    text the analysis reads is some such line or a part of one."""
    lines = []
    for name in ("everyday.jsonl", "dangerous.jsonl"):
        for entry in map(json.loads, (CORPUS / name).read_text().splitlines()):
            if "cmd" in entry:
                lines.append(entry["cmd"])
    chosen = random.Random(24)
    lines = chosen.sample(lines, 600)  # (all 5,300 take the suite 14 s; any 600 hold the shapes)
    texts = list(lines)
    for line in lines:
        start = chosen.randrange(len(line) + 1)
        texts.append(line[start : start + chosen.randint(1, 60)])
        texts.append(line.upper())
        texts.append(line.replace(" ", "\n"))
    return texts


def test_a_guarded_pattern_answers_as_the_pattern_itself() -> None:
    patterns = [(n, p) for n, p in _analysis_patterns() if _required(p.pattern, p.flags)]
    assert len(patterns) >= 10  # (code.py's long alternations among them)
    texts = _texts()
    for name, guarded in patterns:
        plain = re.compile(guarded.pattern, guarded.flags)
        for text in texts:
            found, expected = guarded.search(text), plain.search(text)
            assert (found and found.span()) == (expected and expected.span()), (name, text)
            assert guarded.findall(text) == plain.findall(text), (name, text)
            spans = [m.span() for m in guarded.finditer(text)]
            assert spans == [m.span() for m in plain.finditer(text)], (name, text)


def test_a_guard_checks_for_literals_the_whole_text_must_hold() -> None:
    assert _required(r"\b(?:eval|compile)\s*\(|__import__", 0) == ("__import__", "compile", "eval")
    # what a match may skip is no literal of its: an optional group, a repeat of none
    assert _required(r"(?:foo)?barbaz", 0) == ("barbaz",)
    assert _required(r"a{0,2}|b*", 0) == ()
    # nor what only looks: an assertion consumes nothing
    assert _required(r"(?=abc)def|(?<!x)ghi", 0) == ("def", "ghi")
    # a case-blind pattern's literals match other spellings: never guarded
    assert _required(r"(?i)eval\(", 0) == ()
    assert _required(r"eval\(", re.IGNORECASE) == ()
    assert _required(r"(?i:eval)\(", 0) == ("(",)
    # an alternative with no literal at all leaves the whole pattern unguarded
    assert _required(r"eval|\w+", 0) == ()


@pytest.mark.parametrize("text", ["x = 1", "", "EVAL(", "ev al("])
def test_a_text_with_none_of_the_literals_finds_nothing(text: str) -> None:
    pattern = LazyPattern(r"(?x) \b(?:eval|exec)\s*\( | __import__ | \bimportlib\b " + " " * 80)
    assert pattern.search(text) is None
    assert pattern.findall(text) == [] and list(pattern.finditer(text)) == []
    assert pattern.search("y = eval (x)") is not None  # and one that holds one, found


def test_an_alternation_runs_only_the_alternatives_a_text_can_match() -> None:
    # (policy.analysis.code's `_EVAL` has 39 alternatives; a python one-liner that says
    # `os` and `[` can match one of them: that one runs, a tenth of the time)
    pattern = LazyPattern(
        r"(?x) \b(?:eval|compile)\s*\( | \bos\s*\[ | (?<![\w.])exec\b | \$\w+\s*\("
        r" | \bimportlib\b" + " " * 40
    )
    plain = re.compile(pattern.pattern, pattern.flags)
    texts = [
        "os.dup2(s.fileno(), 0); x = ['/bin/sh']",
        "x = os ['PATH']; eval (y)",
        "a.exec(1); exec x; $f ( 2 )",
        "importlib.import_module('x'); compile(s)",
        "nothing here",
        "",
    ]
    for text in texts * 2:  # (the second time from the narrowed patterns kept)
        found, expected = pattern.search(text), plain.search(text)
        assert (found and found.span()) == (expected and expected.span()), text
        assert pattern.findall(text) == plain.findall(text), text
        assert [m.span() for m in pattern.finditer(text)] == [
            m.span() for m in plain.finditer(text)
        ], text
    narrowed = _narrowed(plain)
    assert narrowed is not None
    assert narrowed.pick("nothing here") is None
    assert narrowed.pick("eval os [ exec $f( importlib") is plain  # every one may match
    only_os = narrowed.pick("os.dup2(s.fileno(), 0); x = ['/bin/sh']")
    assert only_os is not None and only_os is not plain
    assert only_os.search("x = os ['PATH']") and not only_os.search("eval (y)")


def test_a_pattern_keeps_a_bounded_number_of_narrowed_alternations() -> None:
    # (red team: past the bound, a new mix of alternatives was compiled for its one
    # search, 117 µs against 5 µs for the whole pattern: the whole pattern runs)
    from policy.analysis import _lazy_re

    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    words += ["india", "juliet", "kilo", "lima"]  # (no prefix shared: the parse keeps 12)
    plain = re.compile("|".join(rf"{word}\s*\(" for word in words))
    narrowed = _narrowed(plain)
    assert narrowed is not None
    chosen = random.Random(5)
    for _ in range(200):
        text = " ".join(chosen.sample(words, 3)) + " ("
        picked = narrowed.pick(text)
        assert picked is not None
        found, expected = picked.search(text), plain.search(text)
        assert (found and found.span()) == (expected and expected.span())
    assert len(narrowed.kept) == _lazy_re._MOST_NARROWED
    unseen = next(
        text
        for text in (" ".join(chosen.sample(words, 4)) for _ in range(1000))
        if tuple(sorted(words.index(w) for w in text.split())) not in narrowed.kept
    )
    assert narrowed.pick(unseen) is plain
