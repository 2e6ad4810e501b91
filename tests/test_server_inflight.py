"""Request bodies in flight are capped in all and per caller (policy.server.inflight);
tests/test_service_holds.py shows a running service refusing past the cap."""

from __future__ import annotations

from policy.server.inflight import BodyBytes
from policy.server.peer import caller_key


def test_a_caller_past_its_share_is_refused_and_counted_again_once_it_lets_go() -> None:
    bodies = BodyBytes(total=100, per_caller=40)
    assert bodies.charge("uid:1000", 30) is None
    assert bodies.charge("uid:1000", 20) == "request bodies of uid:1000 hold 40 bytes"
    assert bodies.held("uid:1000") == 30  # (a refused charge counts nothing)
    assert bodies.charge("uid:1001", 40) is None  # another caller has its own share
    bodies.release("uid:1000", 30)
    assert bodies.charge("uid:1000", 40) is None
    assert (bodies.held(), bodies.held("uid:1000")) == (80, 40)


def test_all_callers_together_are_capped_too() -> None:
    bodies = BodyBytes(total=100, per_caller=40)
    for uid in (1, 2):
        assert bodies.charge(f"uid:{uid}", 40) is None
    assert bodies.charge("uid:3", 30) == "request bodies of all callers together hold 100 bytes"
    bodies.release("uid:1", 40)
    assert bodies.charge("uid:3", 30) is None


def test_the_caps_follow_the_largest_body_and_always_fit_one() -> None:
    one_mib = BodyBytes.for_bodies_of(1 << 20)
    assert (one_mib.total, one_mib.per_caller) == (16 << 20, 4 << 20)
    large = BodyBytes.for_bodies_of(64 << 20)
    assert (large.total, large.per_caller) == (256 << 20, 64 << 20)
    huge = BodyBytes.for_bodies_of(1 << 30)
    assert (huge.total, huge.per_caller) == (1 << 30, 1 << 30)


def test_a_caller_is_counted_as_its_connections_are() -> None:
    assert caller_key(("unix-uid:1000", 42), ("unix:/run/p.sock", None)) == "uid:1000"
    # a TCP client cannot name itself a uid, and every loopback address is one peer
    assert caller_key(("unix-uid:0", 1), ("127.0.0.1", 8080)) == "tcp:unix-uid:0"
    assert caller_key(("127.0.0.7", 5), ("127.0.0.1", 8080)) == "tcp:loopback"
    assert caller_key(("10.1.2.3", 5), ("0.0.0.0", 8080)) == "tcp:10.1.2.3"
