"""Who is at the other end of a Unix-socket connection, as the kernel says.

uvicorn reports no client for a Unix socket. This protocol (uvicorn's h11 one, plus
one `getsockopt`) reads the peer's credentials (`SO_PEERCRED`) when the connection is
made and reports the client as `unix-uid:<uid>`, so the service knows the uid of the
hook it decides for: what `~` means for that agent, and whose approval requests are
whose. Nothing the client sends can change it.
"""

from __future__ import annotations

import socket
import struct
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

__all__ = ["FIRST_REQUEST_TIMEOUT", "PeerCredentials", "peer_uid"]

_PREFIX = "unix-uid:"


#: Seconds a new connection has to send its first request's headers; one that trickles
#: them (or sends nothing) is closed, so idle connections cannot use up the service's
#: file descriptors. Between requests uvicorn's keep-alive timeout applies.
FIRST_REQUEST_TIMEOUT = 10.0


class PeerCredentials(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with the Unix-socket peer's uid as its client and a
    deadline for the first request."""

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family == socket.AF_UNIX:
            raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            pid, uid, _gid = struct.unpack("3i", raw)
            self.client = (f"{_PREFIX}{uid}", pid)
        self._first_deadline = self.loop.call_later(FIRST_REQUEST_TIMEOUT, self._no_request)

    def _no_request(self) -> None:
        cycle: Any = self.cycle  # None until a request's headers came whole
        if cycle is None and not self.transport.is_closing():
            self.transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        cycle: Any = self.cycle
        if cycle is not None:  # a request came whole: the deadline has done its job
            self._first_deadline.cancel()

    def connection_lost(self, exc: Exception | None) -> None:
        self._first_deadline.cancel()
        super().connection_lost(exc)


def peer_uid(client: Any) -> int | None:
    """The uid of a Unix-socket client (`request.client`), None for TCP."""
    host = getattr(client, "host", None) if client is not None else None
    if isinstance(host, str) and host.startswith(_PREFIX):
        return int(host[len(_PREFIX) :])
    return None
