"""Whether this process decides one hook event and exits.

Claude Code and Agentao start `policy hook claude|agentao` once per event, so such a
process pays every library's import at every tool call, and the library fastest per
call is not the fastest way to make one call. `policy.cli` declares the process
one-event before anything else runs; `policy._json_bytes` and `policy._hashes` then
take the interpreter's own codec and digests rather than import orjson and OpenSSL
(decisions 0025 and 0029) — the same bytes either way. Every other process (a
service, the PicoClaw and OpenClaw bridges, an application embedding the engine)
keeps the libraries that are fastest per call.

Such a process also collects garbage rarely (`collect_rarely`): at the interpreter's
default threshold (a collection of the youngest generation every 700 net allocations)
the example's mount ran 45 to 50 collections for 549 objects freed, ≈ 5 ms of every
tool call. A collection every `_ALLOCATIONS` keeps them for a process that allocates
far more than a decision does (one waiting long for an approval), whose memory stays
bounded so. The one-shot commands (`policy check`, `policy test`, ...: policy.cli)
collect rarely too: what they build — a pack's YAML nodes, models and compiled rules
— lives until they exit, and the default threshold walked it again and again for
nothing (`policy check` on 1,000 rules ran ≈ 15 % faster, on 10,000 ≈ 30 %).
"""

from __future__ import annotations

import gc

__all__ = ["active", "collect_rarely", "declare"]

#: Net allocations between two collections of the youngest generation, once declared.
_ALLOCATIONS = 100_000

#: True once `declare` ran: read as `policy._one_event.active`, never imported by value.
active = False


def declare() -> None:
    """This process decides one event and exits."""
    global active
    active = True
    collect_rarely()


def collect_rarely() -> None:
    """Collect the youngest generation every `_ALLOCATIONS` net allocations, not 700."""
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(_ALLOCATIONS, older, oldest)
