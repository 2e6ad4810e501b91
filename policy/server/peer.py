"""Who is at the other end of a connection, as the kernel says, and how many each may hold.

uvicorn reports no client for a Unix socket. This protocol (uvicorn's h11 one, plus
one `getsockopt`) reads the peer's credentials (`SO_PEERCRED`, Linux) when the
connection is made and reports the client as `unix-uid:<uid>`, and the listener as
`unix:<path>`, so the service knows the uid of the hook it decides for — what `~`
means for that agent, whose approval requests are whose — and which socket it came
in on. Nothing the client sends can change either.

It also counts connections (`ConnectionLimits`), so that no caller can take the
connections everybody else needs: TCP connections are capped apart from the Unix
sockets (which keep the rest of the service's capacity to themselves), each TCP peer
address and each Unix-socket uid has its own cap, and a connection past any cap is
answered at once with a JSON 503 naming the cap — and logged — rather than queued or
dropped silently. A connection must send its first request within
`FIRST_REQUEST_TIMEOUT`, so idle connections are cheap to shed.
"""

from __future__ import annotations

import re
import socket
import struct
from typing import Any

import orjson
from uvicorn.protocols.http.h11_impl import H11Protocol

from policy import telemetry
from policy._lazy_dataclass import dataclass, field
from policy.server.holdings import Holdings

__all__ = [
    "FIRST_REQUEST_TIMEOUT",
    "UNIX_PREFIX",
    "ConnectionLimits",
    "PeerCredentials",
    "caller_key",
    "configure_limits",
    "over_unix_socket",
    "peer_uid",
]

UNIX_PREFIX = "unix-uid:"
_UNIX_PEER = re.compile(r"unix-uid:([0-9]{1,10})")

#: Seconds a new connection has to send its first request's headers; one that trickles
#: them (or sends nothing) is closed, so idle connections cannot use up the service's
#: file descriptors. Between requests uvicorn's keep-alive timeout applies.
FIRST_REQUEST_TIMEOUT = 10.0


@dataclass
class ConnectionLimits:
    """Connections held at once: in all, over TCP, per TCP peer address, per Unix uid.

    `total - tcp` is capacity only the Unix sockets (the agents' hooks, the approvers)
    can use, however many TCP connections a local user opens."""

    total: int = 2048
    tcp: int = 1024
    per_tcp_peer: int = 256
    per_uid: int = 256
    _holdings: Holdings = field(default_factory=Holdings)

    def take(self, keys: tuple[str, ...]) -> str | None:
        """Count a new connection under `keys` ("all", then "tcp" and "tcp:ADDR", or
        "uid:N"); the cap it would break, naming it, or None when it fits."""
        over = self._holdings.take([(key, self._cap(key)) for key in keys])
        if over is None:
            return None
        return f"{self._describe(over[0])} hold {over[1]} connections already"

    def give_back(self, keys: tuple[str, ...]) -> None:
        self._holdings.give_back(keys)

    def held(self, key: str) -> int:
        return self._holdings.held(key)

    def _cap(self, key: str) -> int:
        if key == "all":
            return self.total
        if key == "tcp":
            return self.tcp
        if key.startswith("tcp:"):
            return self.per_tcp_peer
        return self.per_uid

    @staticmethod
    def _describe(key: str) -> str:
        if key == "all":
            return "all callers together"
        if key == "tcp":
            return "TCP callers together"
        if key == "tcp:loopback":
            return "TCP peers on loopback"
        if key.startswith("tcp:"):
            return f"TCP peer {key[4:]}"
        return f"Unix-socket {key.replace(':', ' ')}"


#: The limits this process's service enforces (one service per process; `serve` sets
#: them from the open-files limit before it listens).
_LIMITS = ConnectionLimits()
#: Where refusals are logged (structlog's logger, set by `configure_limits`).
_LOG: Any = None


def configure_limits(limits: ConnectionLimits, log: Any) -> None:
    global _LIMITS, _LOG
    _LIMITS = limits
    _LOG = log


def _peer_key(address: str) -> str:
    """What a TCP peer's connections are counted under: its address, except that every
    loopback address (all of 127.0.0.0/8, ::1) is one — a local user can bind any of
    them."""
    import ipaddress

    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped  # `::ffff:127.0.0.2` on a dual-stack listener
    return "loopback" if ip.is_loopback else address


def _json_error(status: int, phrase: str, message: str) -> bytes:
    body = orjson.dumps({"error": message})
    return (
        f"HTTP/1.1 {status} {phrase}\r\ncontent-type: application/json\r\n".encode()
        + b"connection: close\r\ncontent-length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


def _unavailable(reason: str) -> bytes:
    body = orjson.dumps({"error": f"policy serve is at capacity: {reason}; try again"})
    return (
        b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        b"connection: close\r\nretry-after: 1\r\ncontent-length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


class PeerCredentials(H11Protocol):
    """uvicorn's HTTP/1.1 protocol, with the Unix-socket peer's uid as its client, the
    socket's path as its server, per-caller connection caps and a deadline for the
    first request."""

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._keys: tuple[str, ...] = ()
        sock = transport.get_extra_info("socket")
        if sock is not None and sock.family == socket.AF_UNIX:
            raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            pid, uid, _gid = struct.unpack("3i", raw)
            self.client = (f"{UNIX_PREFIX}{uid}", pid)
            self.server = (f"unix:{sock.getsockname()}", None)
            keys: tuple[str, ...] = ("all", f"uid:{uid}")
            telemetry.CONNECTIONS.inc("unix")
        else:
            address = self.client[0] if self.client else "?"
            keys = ("all", "tcp", f"tcp:{_peer_key(address)}")
            telemetry.CONNECTIONS.inc("tcp")
        refused = _LIMITS.take(keys)
        self._first_deadline = self.loop.call_later(FIRST_REQUEST_TIMEOUT, self._no_request)
        if refused is not None:
            telemetry.REFUSED.inc("503")
            if _LOG is not None:
                _LOG.warning("connection refused", status=503, reason=refused, client=self.client)
            transport.write(_unavailable(refused))
            transport.close()
            return
        self._keys = keys

    def send_400_response(self, msg: str) -> None:
        """A request h11 could not parse (a header sent twice where it must come once, a
        bad length, a NUL): refused in JSON, and logged, like every other refusal."""
        telemetry.REFUSED.inc("400")
        if _LOG is not None:
            _LOG.warning("request refused", status=400, reason=msg, client=self.client)
        self.transport.write(_json_error(400, "Bad Request", f"malformed request: {msg}"))
        self.transport.close()

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
        if self._keys:
            _LIMITS.give_back(self._keys)
            self._keys = ()
        super().connection_lost(exc)


def peer_uid(client: Any, server: Any) -> int | None:
    """The uid the kernel named for a Unix-socket client (`request.client`), None for
    TCP. Read only on the Unix-socket listener (`server`, the scope's, is `unix:PATH`,
    set by PeerCredentials from the socket itself): a TCP client's address is the
    caller's to shape wherever something rewrites it from headers; the listener is not.
    Anything but `unix-uid:<digits>` there is no uid."""
    if not server or not str(server[0]).startswith("unix:"):
        return None
    host = getattr(client, "host", None) if client is not None else None
    found = _UNIX_PEER.fullmatch(host) if isinstance(host, str) else None
    return int(found[1]) if found is not None else None


def caller_key(client: Any, server: Any) -> str:
    """What a request's caller is counted under (a scope's `client` and `server`), as
    its connections are: `uid:N` on a Unix-socket listener, `tcp:ADDRESS` otherwise
    (every loopback address one)."""
    host = client[0] if client else None
    if over_unix_socket(server):
        found = _UNIX_PEER.fullmatch(host) if isinstance(host, str) else None
        return f"uid:{found[1]}" if found is not None else "uid:?"
    return f"tcp:{_peer_key(str(host))}"


def over_unix_socket(server: Any) -> bool:
    """Whether a request came in on a Unix-socket listener (the scope's `server`)."""
    return bool(server) and str(server[0]).startswith("unix:")
