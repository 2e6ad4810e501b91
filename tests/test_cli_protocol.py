"""Answers to hosts always go out as JSON, even when orjson refuses the value."""

from __future__ import annotations

import json

from policy.hosts._hook_process import encode_line


def test_a_lone_surrogate_is_escaped_not_dropped() -> None:
    line = encode_line({"reason": "blocked \ud800"})
    assert line.endswith(b"\n")
    assert json.loads(line) == {"reason": "blocked \ud800"}


def test_integers_past_64_bits_still_encode() -> None:
    assert json.loads(encode_line({"n": 2**70})) == {"n": 2**70}


def test_plain_answers_are_compact_orjson() -> None:
    assert encode_line({"allow": True}) == b'{"allow":true}\n'
