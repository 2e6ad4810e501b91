"""What every match of a pack's pattern holds (policy.packs.cel.native.literals): a
string the pattern finds a match in always starts with (or holds) one of the texts, so
a guard that finds none of them in a command line rules the condition out soundly."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest

from policy.packs.cel.native.literals import required_texts, required_texts_re2


@pytest.mark.parametrize(
    ("pattern", "texts"),
    [
        ("^(pip[0-9.]*|uv|conda)$", ("prefix", ("conda", "pip", "uv"))),
        ("^(python|pypy)[0-9.]*$", ("prefix", ("pypy", "python"))),
        (r"\Agit (push|fetch)", ("prefix", ("git fetch", "git push"))),
        ("^op (read|item get)", ("prefix", ("op item get", "op read"))),
        ("^gpg2? --export", ("prefix", ("gpg",))),
        ("^(|x)y", ("prefix", ("xy", "y"))),
        (r"^\*\.py[co]$", ("prefix", ("*.pyc", "*.pyo"))),
        (r"\bpolicy([.]cli|[.]approvals)", ("contains", ("policy",))),
        ("approve|grant|revoke", ("contains", ("approve", "grant", "revoke"))),
        ("(^|[ /])(sh|curl)( |$)", ("contains", ("curl", "sh"))),
        # `^` under MULTILINE starts any line: what follows is held, not a prefix
        ("(?m)^secret", ("contains", ("secret",))),
        # a start that may be left out: the rest's start, or what the start holds
        ("^(?:[^ ]*/)?(gh|kubectl) ", ("prefix or contains", ("gh ", "kubectl "), ("/",))),
        ("^(sudo )*rm ", ("prefix or contains", ("rm ",), ("sudo ",))),
        ("(ab)+c", ("contains", ("ab",))),
    ],
)
def test_the_texts_of_a_pattern(pattern: str, texts: tuple[Any, ...]) -> None:
    assert required_texts(pattern) == texts


@pytest.mark.parametrize(
    "pattern",
    [
        "(?i)^kubectl",  # case-insensitive: the long s and the Kelvin sign match s and k
        "^(?i:kubectl)",
        "x*",  # matches the empty text anywhere
        "^(a|b*)",
        "^.",
        "^[a-z]+",
        r"(?<=a+)b",  # parses, does not compile: the condition errs
        "(",
        "^(a)?b|c*",
        # more texts held than asking each would be worth (one search does it)
        "|".join(f"w{n}x" for n in range(17)),
    ],
)
def test_a_pattern_that_tells_nothing_for_certain(pattern: str) -> None:
    assert required_texts(pattern) is None


_PIECES = ["a", "b", "c", "ab", "ba", "[ab]", "[^a]", ".", r"\b", "$", "^", r"\d", "A"]


def _random_pattern(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 4)):
        roll = rng.random()
        if roll < 0.45 or depth > 2:
            part = rng.choice(_PIECES)
        elif roll < 0.6:
            part = (
                "("
                + "|".join(_random_pattern(rng, depth + 1) for _ in range(rng.randint(1, 3)))
                + ")"
            )
        elif roll < 0.7:
            part = "(?:" + _random_pattern(rng, depth + 1) + ")"
        elif roll < 0.75:
            part = "(?i:" + _random_pattern(rng, depth + 1) + ")"
        elif roll < 0.8:
            part = "(?=" + _random_pattern(rng, depth + 1) + ")"
        elif roll < 0.85:
            part = "(?>" + _random_pattern(rng, depth + 1) + ")"
        else:
            part = "(" + _random_pattern(rng, depth + 1) + ")"
        suffix = rng.choice(["", "", "", "*", "+", "?", "{2}", "{1,3}", "{0,2}", "++", "*?"])
        parts.append(part + suffix)
    flags = rng.choice(["", "", "", "", "(?m)", "(?i)", "(?s)", "^", "^", r"\A"])
    if flags == "^" and rng.random() < 0.3:  # (a start that may be left out)
        flags += "(?:" + _random_pattern(rng, depth + 1) + ")" + rng.choice(["?", "*", "{0,2}"])
    return flags + "".join(parts)


def _searched_strings_hold(
    rng: random.Random,
    alphabet: str,
    search: Callable[[str], Any],
    pattern: str,
    texts: tuple[Any, ...],
) -> int:
    """40 random strings (half of them made to hold one of the texts): wherever `search`
    finds a match, the string starts with, or holds, one of `texts`. How many matched."""
    kind, found = texts[0], texts[1]
    others = texts[2] if kind == "prefix or contains" else ()
    assert found and all(found) and all(others), pattern
    checked = 0
    for _ in range(40):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 9)))
        if rng.random() < 0.5:  # (a text that holds one of them, now and then)
            text = rng.choice(found) + text if kind != "contains" else text + rng.choice(found)
        if search(text) is None:
            continue
        checked += 1
        if kind == "prefix":
            assert text.startswith(found), (pattern, text, found)
        elif kind == "contains":
            assert any(t in text for t in found), (pattern, text, found)
        else:
            assert text.startswith(found) or any(t in text for t in others), (pattern, text)
    return checked


def test_every_match_holds_the_texts_on_random_patterns() -> None:
    """20,000 random patterns, 40 random strings each: wherever `re.search` finds a
    match, the string starts with (or holds) one of the pattern's texts."""
    rng = random.Random(24)
    alphabet = "abcAB1 \n"
    checked = told = 0
    for _ in range(20_000):
        pattern = _random_pattern(rng)
        try:
            compiled = re.compile(pattern)
        except re.error:
            assert required_texts(pattern) is None
            continue
        texts = required_texts(pattern)
        if texts is None:
            continue
        told += 1
        checked += _searched_strings_hold(rng, alphabet, compiled.search, pattern, texts)
    assert told > 1_500 and checked > 15_000, (told, checked)


@pytest.mark.parametrize(
    ("pattern", "texts"),
    [
        ("^(kubectl|gcloud) auth", ("prefix", ("gcloud auth", "kubectl auth"))),
        (
            r"^(?:[^ ]*/)?(?:gh|kubectl)[\s\S]* --raw",
            ("prefix or contains", ("gh", "kubectl"), ("/",)),
        ),
        # what RE2 reads otherwise, or Python not at all: a POSIX class (Python: a class
        # and literal text), `{,3}` (RE2: literal text), RE2's own escapes, what RE2
        # does not take (a lookahead)
        ("[[:alpha:]]x", None),
        ("ab{,3}c", None),
        (r"\pLfoo", None),
        (r"\Qa.b\E", None),
        (r"foo\z", None),
        ("(?=x)abc", None),
    ],
)
def test_the_texts_of_a_pattern_re2_searches_with(pattern: str, texts: Any) -> None:
    assert required_texts_re2(pattern) == texts


def test_every_match_re2_finds_holds_the_texts_on_random_patterns() -> None:
    """The random patterns above (with RE2's own syntax among them), searched with RE2:
    wherever RE2 finds a match, the string starts with (or holds) one of the texts."""
    import re2

    options = re2.Options()
    options.log_errors = False
    rng = random.Random(2026_12_07)
    alphabet = "abcAB1 \n:[]{},"
    checked = told = 0
    for _ in range(10_000):
        pattern = _random_pattern(rng)
        if rng.random() < 0.2:  # (RE2's own syntax, which Python reads otherwise)
            pattern += rng.choice(["[[:alpha:]]", "a{,2}", r"\pL", r"\z", r"\Qa\E"])
        texts = required_texts_re2(pattern)
        if texts is None:
            continue
        compiled = re2.compile(pattern, options)
        told += 1
        checked += _searched_strings_hold(rng, alphabet, compiled.search, pattern, texts)
    assert told > 400 and checked > 5_000, (told, checked)
