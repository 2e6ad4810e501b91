"""Whether this process decides one hook event and exits.

Claude Code and Agentao start `policy hook claude|agentao` once per event, so such a
process pays every library's import at every tool call, and the library fastest per
call is not the fastest way to make one call. `policy.cli` declares the process
one-event before anything else runs; `policy._json_bytes` and `policy._hashes` then
take the interpreter's own codec and digests rather than import orjson and OpenSSL
(decisions 0025 and 0029) — the same bytes either way. Every other process (a
service, the PicoClaw and OpenClaw bridges, an application embedding the engine)
keeps the libraries that are fastest per call.
"""

from __future__ import annotations

__all__ = ["active", "declare"]

#: True once `declare` ran: read as `policy._one_event.active`, never imported by value.
active = False


def declare() -> None:
    """This process decides one event and exits."""
    global active
    active = True
