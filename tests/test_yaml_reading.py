"""policy._yaml reads a document's positions and its value in one walk: the value is
the one PyYAML's safe constructor builds (with YAML 1.2 booleans), whatever the file
holds, and a problem is reported where it was before."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import yaml

from policy._yaml import Mark, _Loader, load_yaml, load_yaml_documents

ROOT = Path(__file__).resolve().parent.parent

#: Every YAML file of the repository: packs, their tests, examples, fixtures.
FILES = sorted(
    path
    for pattern in ("*.yaml", "*.yml")
    for path in ROOT.glob(f"**/{pattern}")
    if not any(
        part.startswith(".") or part in ("node_modules", "site-packages") for part in path.parts
    )
)

#: What packs seldom hold, and the constructor still decides.
EDGES = [
    "a: !!str 1\nb: !!int '7'\nc: !!float 1\nd: !!binary aGVsbG8=\n",
    "s: !!set {a, b}\no: !!omap [a: 1, b: 2]\np: !!pairs [a: 1, a: 2]\n",
    "hex: 0x1f\noct: 0o17\nold: 017\nsep: 1_000\ninf: .inf\nneg: -.Inf\nexp: 1e3\n",
    "n1: ~\nn2: null\nn3:\nt: true\nT: True\nyes: yes\nno: no\non: on\n",
    "day: 2026-12-07\nwhen: 2026-12-07T17:37:48Z\nspaced: 2001-12-14 21:59:43.10 -5\n",
    "3: three\ntrue: yes\n~: none\n2.5: half\n'quoted': q\n\"dq\": d\n",
    "nested: {a: [1, {b: [x, y]}], c: {}}\nempty: []\nlit: |\n  one\n  two\nfold: >\n  a\n  b\n",
    "unicode: \"caf\\u00e9 \\U0001F600\"\nraw: 'it''s'\nplain: a b\n",
    "- 1\n- [a, b]\n- {c: d}\n- !!str yes\n",
    "just a scalar\n",
]


def _same(got: Any, want: Any) -> bool:
    """Equal, NaN included, and of the same types all the way down."""
    if type(got) is not type(want):
        return False
    if isinstance(want, float) and math.isnan(want):
        return math.isnan(got)
    if isinstance(want, dict):
        return list(got) == list(want) and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, list | tuple):
        return len(got) == len(want) and all(_same(g, w) for g, w in zip(got, want, strict=True))
    return bool(got == want)


def test_the_repository_holds_yaml_to_read() -> None:
    assert len(FILES) > 20
    assert ROOT / "rules" / "credentials.yaml" in FILES


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_reads_to_what_the_constructor_builds(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        wanted = list(yaml.load_all(text, Loader=_Loader))
    except yaml.YAMLError:
        pytest.skip("not YAML PyYAML reads (a fixture of a broken file)")
    documents = load_yaml_documents(text, path)
    # (a document read with a duplicate key keeps its data, the later value winning)
    read = [doc.data for doc, _ in documents if doc is not None]
    if len(read) != len(documents):
        pytest.skip("a fixture that cannot be read (tests below)")
    assert _same(read, [w for w in wanted if w is not None] or read)


@pytest.mark.parametrize("text", EDGES)
def test_what_packs_seldom_hold_reads_as_the_constructor_builds_it(text: str) -> None:
    assert _same(load_yaml(text, "edge.yaml").data, yaml.load(text, Loader=_Loader))
    assert _same(load_yaml(".nan\n", "nan.yaml").data, float("nan"))


def test_a_duplicate_key_is_reported_where_it_is_and_the_later_value_wins() -> None:
    text = "rules:\n  a: 1\n  a: !!int '2'\n  b: [x]\n"
    ((doc, problems),) = load_yaml_documents(text, "dup.yaml")
    assert doc is not None
    assert doc.data == {"rules": {"a": 2, "b": ["x"]}}
    assert [(p.mark, p.message) for p in problems] == [
        (Mark(3, 3), "duplicate key 'a' (first at line 2, column 3)")
    ]
    assert doc.key_mark(("rules", "a")) == Mark(2, 3)  # (the first, as written)
    assert doc.mark(("rules", "b", 0)) == Mark(4, 7)


def test_an_unknown_tag_is_an_error_at_its_place_after_the_structures_problems() -> None:
    ((doc, problems),) = load_yaml_documents("a: 1\nb: !custom x\na: 2\n", "tag.yaml")
    assert doc is None
    assert [p.message.split(" (first")[0] for p in problems][:1] == ["duplicate key 'a'"]
    assert problems[-1].mark == Mark(2, 4)
    assert "could not determine a constructor for the tag '!custom'" in problems[-1].message


def test_an_alias_leaves_no_document_and_no_constructor_error() -> None:
    ((doc, problems),) = load_yaml_documents("a: &x !custom 1\nb: *x\n", "alias.yaml")
    assert doc is None
    assert [p.message[:7] for p in problems] == ["anchors"]


def _read(text: str) -> list[tuple[Any, list[tuple[Mark | None, str]]]]:
    return [
        (None if doc is None else doc.data, [(p.mark, p.message) for p in problems])
        for doc, problems in load_yaml_documents(text, "f.yaml")
    ]


@pytest.mark.parametrize(
    ("text", "mark", "message"),
    [
        ('a: !!int ""\n', Mark(1, 4), "not a valid !!int value"),
        ("a: !!bool maybe\n", Mark(1, 4), "not a valid !!bool value"),
        ("day: 2026-02-30\n", Mark(1, 6), "not a valid !!timestamp value"),
        ("a: !foo 1\n", Mark(1, 4), "could not determine a constructor for the tag '!foo'"),
    ],
)
def test_a_value_the_constructor_refuses_is_an_error_at_its_place(
    text: str, mark: Mark, message: str
) -> None:
    """PyYAML's constructor fails on some values with Python's own errors (`int("")`):
    they are the file's errors, never a traceback out of `policy check`."""
    ((data, problems),) = _read(text)
    assert data is None
    assert [(where, what[: len(message)]) for where, what in problems] == [(mark, message)]


def test_a_documents_error_leaves_the_others_read() -> None:
    assert _read('x: 1\n---\na: !foo 1\nb: !!int ""\n---\ny: 2\n') == [
        ({"x": 1}, []),
        (None, [(Mark(3, 4), "could not determine a constructor for the tag '!foo'")]),
        ({"y": 2}, []),
    ]


def test_the_structures_problems_come_before_a_values() -> None:
    """An alias or a merge key is what is reported of a document that also holds a
    value the constructor refuses; a key it refuses ends the walk there, as before."""
    assert _read('a: &x 1\nb: *x\nc: !!int ""\n')[0][1] == [
        (
            Mark(1, 4),  # (the alias is the anchored node: PyYAML marks it where it is)
            "anchors and aliases (&name / *name) are not allowed: "
            "write each value where it is used",
        )
    ]
    assert _read(" <<:\n !foo :\n")[0][1] == [
        (Mark(1, 2), "merge keys (<<) are not allowed"),
        (Mark(2, 2), "could not determine a constructor for the tag '!foo'"),
    ]


def test_a_collection_with_a_tag_of_its_own_is_built_whole_by_pyyaml() -> None:
    ((data, problems),) = _read("!!omap\n- !x\n")
    assert data is None
    assert [(mark, message.split(" expected")[0]) for mark, message in problems] == [
        (Mark(2, 3), "while constructing an ordered map")
    ]


def test_a_document_nested_deeper_than_the_stack_is_an_error_not_a_crash() -> None:
    """Past what the interpreter's stack holds (here made short: how deep that is
    depends on who calls), the file's error, never a RecursionError out of it."""
    import sys

    frames, frame = 0, sys._getframe()
    while frame is not None:
        frames, frame = frames + 1, frame.f_back
    text = "".join(" " * i + "k:\n" for i in range(400)) + " " * 400 + "v\n"
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(frames + 150)
    try:
        ((data, problems),) = _read(text)
    finally:
        sys.setrecursionlimit(limit)
    assert data is None
    assert problems == [(None, "nested deeper than can be read")]


def test_a_document_nested_past_pyyamls_limit_is_its_error() -> None:
    text = "".join(" " * i + "k:\n" for i in range(5000)) + " " * 5000 + "v\n"
    ((data, problems),) = _read(text)
    assert data is None
    assert [message for _, message in problems] == [
        "while increasing block level exceeded maximum nesting depth"
    ]
