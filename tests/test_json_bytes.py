"""policy._json_bytes gives orjson's bytes and values, whether orjson is loaded or not.

A one-event hook writes the decision log, digests and cache entries without importing
orjson; a service writes them with orjson. Both must give the same bytes (an audit
chain, an approval's digest, a kept answer's key) and read the same values. Here the
plain path is forced (`_loaded` answers None) and every answer is compared with
orjson's own, on every code point, on random numbers and on random documents and
their mutations.
"""

from __future__ import annotations

import enum
import math
import random
import struct
import subprocess
import sys
from typing import Any

import orjson
import pytest

from policy import _json_bytes
from policy.model import CelList, CelMap, FrozenDict


@pytest.fixture
def plain(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The plain path, as in a process without orjson; the list names each call that
    had to ask orjson after all."""
    asked: list[str] = []
    monkeypatch.setattr(_json_bytes, "_loaded", lambda: None)

    def ask() -> Any:
        asked.append("orjson")
        return orjson

    monkeypatch.setattr(_json_bytes, "_orjson", ask)
    return asked


def _same_dumps(value: Any, **options: Any) -> bytes | type[BaseException]:
    """What `_json_bytes.dumps` gives, which must be what orjson gives."""
    option = (orjson.OPT_SORT_KEYS if options.get("sort_keys") else 0) | (
        orjson.OPT_NON_STR_KEYS if options.get("non_str_keys") else 0
    )
    try:
        expected: bytes | type[BaseException] = orjson.dumps(
            value, default=options.get("default"), option=option
        )
    except orjson.JSONEncodeError:
        with pytest.raises(orjson.JSONEncodeError):
            _json_bytes.dumps(value, **options)
        return orjson.JSONEncodeError
    assert _json_bytes.dumps(value, **options) == expected, value
    return expected


def _same_loads(data: bytes | str) -> None:
    """`_json_bytes.loads(data)` reads what orjson reads, with the same types, or
    raises orjson's own error."""
    try:
        expected = orjson.loads(data)
    except orjson.JSONDecodeError as refused:
        refusal = str(refused)
    else:
        assert _typed(_json_bytes.loads(data)) == _typed(expected), data
        return
    with pytest.raises(orjson.JSONDecodeError) as raised:
        _json_bytes.loads(data)
    assert str(raised.value) == refusal


def _typed(value: Any) -> Any:
    """`value` with each scalar's type beside it (1 and 1.0 and True differ), and a
    float's sign (-0.0)."""
    if isinstance(value, dict):
        return ("dict", [(k, _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


def test_every_code_point_is_written_as_orjson_writes_it(plain: list[str]) -> None:
    points = [p for p in range(0x110000) if not 0xD800 <= p < 0xE000]
    for at in range(0, len(points), 4096):
        text = "".join(map(chr, points[at : at + 4096]))
        _same_dumps(text)
        _same_dumps({text: [text]}, sort_keys=True)
    assert plain == []  # all of it on the plain path


def test_a_lone_surrogate_gets_orjsons_error(plain: list[str]) -> None:
    assert _same_dumps("a\ud800b") is orjson.JSONEncodeError
    assert plain == ["orjson"]


def test_integers_at_and_past_64_bits(plain: list[str]) -> None:
    for value in (0, -1, 2**63 - 1, -(2**63), 2**64 - 1, 2**53 + 1):
        _same_dumps([value])
    assert plain == []
    for value in (2**64, -(2**63) - 1, 10**30):
        assert _same_dumps([value]) is orjson.JSONEncodeError
    assert len(plain) == 3


def test_random_floats_are_written_as_orjson_writes_them(plain: list[str]) -> None:
    rng = random.Random(24)
    everyday = [rng.uniform(-1e15, 1e15) for _ in range(10000)]
    everyday += [rng.uniform(1, 10) * 10.0 ** rng.randint(-4, 14) for _ in range(10000)]
    everyday += [1.0, -0.0, 0.0, 1733561234.123456, 0.1 + 0.2, 1e15, 1e-4]
    for value in everyday:
        _same_dumps(value)
        _same_dumps({"x": [value]})
    assert plain == []  # written without an exponent: all of them on the plain path
    any_bits = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(20000)]
    exotic = any_bits + [m * 10.0**k for k in range(-20, 20) for m in (1.0, 1.5, 3.0000000000000004)]
    for value in [*exotic, math.inf, -math.inf, math.nan, 1e16, 1e-5]:
        _same_dumps(value)  # an exponent (orjson writes 1e-5 as 0.00001), NaN: orjson's


class _Colour(enum.Enum):
    RED = "red"


class _Items(dict[str, Any]):
    def items(self) -> Any:  # type: ignore[override]
        return [("changed", 1)]


def _document(rng: random.Random, depth: int = 0) -> Any:
    """A random value of the kinds a hook writes, and now and then one it does not."""
    roll = rng.random()
    if depth > 4 or roll < 0.35:
        return rng.choice(
            [
                "",
                "plain",
                "ünïcødé ✓ 😀",
                'quote " back \\ slash',
                "\x00\x1f\x7f\n\t",
                rng.randint(-(2**64), 2**64),
                rng.randint(-1000, 1000),
                rng.uniform(-1e6, 1e6),
                rng.random() * 1e-6,
                True,
                False,
                None,
            ]
        )
    size = rng.randint(0, 5)
    if roll < 0.6:
        items = [_document(rng, depth + 1) for _ in range(size)]
        return rng.choice([list, tuple, CelList])(items)
    if roll < 0.97:
        keys = [rng.choice(["a", "b", "B", "é", "z" * rng.randint(1, 3), "10", "9"]) for _ in range(size)]
        mapping = {k: _document(rng, depth + 1) for k in keys}
        return rng.choice([dict, CelMap, FrozenDict])(mapping)
    return rng.choice(
        [{1: "int key"}, {None: 1, "a": 2}, _Colour.RED, {1, 2}, b"bytes", _Items(a=1), object()]
    )


def test_random_documents_are_written_as_orjson_writes_them(plain: list[str]) -> None:
    rng = random.Random(7)
    written = 0
    for _ in range(3000):
        value = _document(rng)
        for options in (
            {},
            {"sort_keys": True},
            {"sort_keys": True, "non_str_keys": True, "default": repr},
            {"default": str},
        ):
            before = len(plain)
            if _same_dumps(value, **options) is not orjson.JSONEncodeError:
                written += len(plain) == before
    assert written > 3000  # most documents took the plain path


def test_a_value_nested_past_orjsons_limit_gets_its_error(plain: list[str]) -> None:
    for depth in (100, 200, 253, 254, 300, 2000):
        value: Any = []
        for _ in range(depth):
            value = [value]
        _same_dumps(value)


def test_documents_and_their_mutations_are_read_as_orjson_reads_them(plain: list[str]) -> None:
    rng = random.Random(11)
    specials = [
        b"NaN", b"-Infinity", b"18446744073709551616", b"-9223372036854775809", b"1e400",
        b'"\\ud800"', b'"\\ud83d\\ude00"', b'"\\\\ud800"', b"\xef\xbb\xbf", b"\xed\xa0\x80",
        b"\x0c", b" ", b"\t", b"\x00", b"01", b"-", b"1.", b".5", b"1e", b"\xff", b"\\u0041",
        b"tru", b"nul", b"1.5e-400", b"-0", b"-0.0", b"[", b"]", b"{", b"}", b",", b":", b'"',
    ]
    for _ in range(6000):
        data = orjson.dumps(_plain_value(_document(rng)))
        asked = len(plain)
        _same_loads(data)
        assert len(plain) == asked  # orjson's own output: read on the plain path
        for _ in range(rng.randint(1, 3)):
            at = rng.randint(0, len(data))
            roll = rng.random()
            if roll < 0.5:
                data = data[:at] + rng.choice(specials) + data[at:]
            elif roll < 0.8:
                data = data[:at] + data[at + 1 :]
            else:
                data = data[:at] + bytes([rng.randrange(256)]) + data[at + 1 :]
        _same_loads(data)
        _same_loads(b" \n" + data + b"\r\t ")
    for text in ['{"a":1,"a":2}', '"\ud800"', "[1]", "", "   ", "\ufeff[]", '"é"']:
        _same_loads(text)
    for depth, data in [
        (depth, opened * depth + b"1" + closed * depth)
        for depth in (900, 1023, 1024, 1025, 5000)
        for opened, closed in ((b"[", b"]"), (b'{"a":', b"}"))
    ]:
        try:
            expected = _depth(orjson.loads(data))
        except orjson.JSONDecodeError:
            with pytest.raises(orjson.JSONDecodeError):
                _json_bytes.loads(data)
        else:  # (deeper than the interpreter's recursion: orjson reads what it reads)
            assert _depth(_json_bytes.loads(data)) == expected == depth


def _depth(value: Any) -> int:
    """How many lists or maps are nested in `value`, each holding the next."""
    depth = 0
    while isinstance(value, list | dict):
        depth += 1
        value = (value[0] if value else None) if isinstance(value, list) else value["a"]
    return depth


def test_a_raised_recursion_limit_reads_no_deeper_than_orjson(plain: list[str]) -> None:
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20000)
    try:
        for depth in (1024, 1025, 3000):
            data = b"[" * depth + b"]" * depth
            if depth > 1024:
                with pytest.raises(orjson.JSONDecodeError, match="depth limit exceeded"):
                    _json_bytes.loads(data)
            else:
                assert _depth(_json_bytes.loads(data)) == depth
    finally:
        sys.setrecursionlimit(limit)


def test_a_wide_text_is_walked_for_its_depth_only_where_the_scanner_may_go_deeper(
    plain: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pack cache's entry holds thousands of brackets, none nested deep: at the
    interpreter's default limit the scanner cannot read past orjson's depth, so the
    value is not walked (≈ 0.4 ms a hook start); with a raised limit it is."""
    walked: list[int] = []
    real = _json_bytes._deeper_than_orjson_reads
    monkeypatch.setattr(
        _json_bytes, "_deeper_than_orjson_reads", lambda v: walked.append(1) or real(v)
    )
    wide = b"[" + b",".join(b"[1]" for _ in range(3000)) + b"]"
    limit = sys.getrecursionlimit()  # (cel-python raises it to 2,500 for its process)
    try:
        sys.setrecursionlimit(1000)  # (the interpreter's default)
        assert len(_json_bytes.loads(wide)) == 3000
        assert walked == ([1] if sys.version_info >= (3, 12) else [])
        sys.setrecursionlimit(20000)
        assert len(_json_bytes.loads(wide)) == 3000
    finally:
        sys.setrecursionlimit(limit)
    assert walked[-1:] == [1]


def _plain_value(value: Any) -> Any:
    """`value` with what orjson does not write replaced."""
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return ["replaced"]
    return value


def test_bytearray_memoryview_and_str_read_alike(plain: list[str]) -> None:
    data = b'{"a":[1,2.5,"\xc3\xa9",null,true]}'
    for form in (data, bytearray(data), memoryview(data), data.decode()):
        assert _json_bytes.loads(form) == {"a": [1, 2.5, "é", None, True]}
    assert plain == []


class _Bytes(bytes):
    pass


class _Text(str):
    pass


def test_what_orjson_refuses_to_read_is_refused_as_orjson_refuses_it(plain: list[str]) -> None:
    """orjson reads bytes, bytearray, memoryview and str, and no subclass of them."""
    import array

    for data in (
        _Bytes(b"[1]"),
        _Text("[1]"),
        array.array("b", b"[1]"),
        memoryview(b"[1, 2]")[::2],
        None,
        1,
        ["[1]"],
    ):
        with pytest.raises(orjson.JSONDecodeError) as raised:
            _json_bytes.loads(data)  # type: ignore[arg-type]
        with pytest.raises(orjson.JSONDecodeError) as refused:
            orjson.loads(data)  # type: ignore[arg-type]
        assert str(raised.value) == str(refused.value)


class _OwnIteration(list[int]):
    def __iter__(self) -> Any:
        return iter([5])


class _Shown(dict[str, Any]):
    pass


def test_a_subclass_that_iterates_its_own_way_is_written_as_orjson_writes_it(
    plain: list[str],
) -> None:
    own = _Shown(a=1)
    own.items = lambda: [("changed", 2)]  # type: ignore[method-assign]
    for value in (_OwnIteration([1, 2]), own, {"in": [_OwnIteration([3])]}):
        _same_dumps(value)
        _same_dumps(value, sort_keys=True)
    assert len(plain) == 6  # each of them left to orjson


def test_threads_first_using_it_together_wait_for_orjson_and_hashlib() -> None:
    """A module is in `sys.modules` from the moment its import starts: threads that
    make their first call at once must wait for orjson (and hashlib) to be imported,
    not use them half made (a spurious error, and a denial: the decision log failed)."""
    code = (
        "import sys, threading\n"
        "from policy import _hashes, _json_bytes\n"
        "assert 'orjson' not in sys.modules and 'hashlib' not in sys.modules\n"
        "start, failed = threading.Barrier(8), []\n"
        "def first(i):\n"
        "    start.wait()\n"
        "    try:\n"
        "        if i % 3 == 0: _json_bytes.dumps({'a': 1}, sort_keys=True)\n"
        "        elif i % 3 == 1: _json_bytes.loads(b'{\"a\":1}')\n"
        "        else: _hashes.sha256(b'x').hexdigest()\n"
        "    except Exception as exc:\n"
        "        failed.append(repr(exc))\n"
        "threads = [threading.Thread(target=first, args=(i,)) for i in range(8)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(failed or 'ok')\n"
    )
    for _ in range(5):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=False
        )
        assert done.stdout.strip() == "ok", done.stdout + done.stderr


def test_a_one_event_process_does_not_import_orjson_and_any_other_does() -> None:
    code = (
        "import sys\n"
        "from policy import _json_bytes, _one_event\n"
        "_one_event.declare()\n"
        "line = _json_bytes.dumps({'ts': 1.5, 'event': 'decision', 'args': ['ls', -1]})\n"
        "assert _json_bytes.loads(line)['args'] == ['ls', -1]\n"
        "assert _json_bytes.dumps({'b': 1, 'a': 2}, sort_keys=True) == b'{\"a\":2,\"b\":1}'\n"
        "print('orjson' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
    # a service, a bridge, an application embedding the engine: orjson, fastest per call
    every_call = code.replace("_one_event.declare()\n", "")
    done = subprocess.run([sys.executable, "-c", every_call], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"
