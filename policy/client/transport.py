"""One request to `policy serve` and its JSON answer, over a Unix socket or TCP.

Standard library only, and no `http.client` (≈ 20 ms of imports, paid by every
hook event): the service speaks HTTP/1.1 and answers with a Content-Length, and
this module sends one request per connection and reads exactly that. What comes back
is checked before it is believed: the status line, the length, the JSON.

A Unix socket is trusted only when the process behind it runs as the configured
owner (`SO_PEERCRED`, checked on the connected socket, so a socket file swapped after
the check changes nothing): a service the agent started itself, under the agent's
uid, on a path the agent could write, must not decide the agent's calls.

The thin client of `policy serve` (started per tool call) sends its events through
here, so the module imports nothing its start cannot afford: the socket is the
interpreter's own `_socket` (`socket` adds `enum`, `selectors` and more; it is
imported for TCP only), JSON goes through `policy._plain_json`, and the few
characters a header may not hold are %-escaped here. `_socket` and `struct` are
imported when a request is made: a standalone hook imports this module to learn
that no service is configured, and connects to nothing.
"""

from __future__ import annotations

import os
import time

from policy._plain_json import dumps, loads

TYPE_CHECKING = False
if TYPE_CHECKING:
    from _socket import socket
    from typing import Any

__all__ = [
    "ServiceClient",
    "ServiceError",
    "ServiceRefused",
    "ServiceUnreachable",
    "query",
    "server_from_settings",
]

#: Seconds a client waits for a service that is restarting (`service.max_requests`, a
#: supervisor's restart) before it refuses: the socket is back within about one.
RESTART_GRACE = 3.0
#: Largest answer read (a decision is a few KB; an approvals list can be longer).
_MAX_ANSWER = 16 << 20


class ServiceError(Exception):
    """The service could not give an answer; the caller refuses the call."""


class ServiceUnreachable(ServiceError):
    """Nobody answered at the configured address (not started, wrong path, timeout)."""


class ServiceRefused(ServiceError):
    """The service (or whoever answers there) cannot be trusted, or said no."""

    def __init__(self, message: str, status: int = 0, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class ServiceClient:
    """Where the service is, and whom it must run as (Unix sockets).

    `address` is `unix:/path` or `http://HOST:PORT`; `owner_uid` the uid the process
    behind a Unix socket must have (default: our own). `token`, when given, goes as a
    bearer token with every request (`policy approvals` with an approver's token)."""

    def __init__(
        self,
        address: str,
        *,
        owner_uid: int | None = None,
        token: str | None = None,
        headers: dict[str, str] | None = None,
        restart_grace: float = RESTART_GRACE,
    ) -> None:
        if address.startswith("unix:") and address[5:].startswith("/"):
            self.kind, self.target = "unix", address[5:]
        elif address.startswith("http://"):
            host, sep, port = address[7:].rstrip("/").rpartition(":")
            if not sep or not port.isdigit():
                raise ValueError(f"{address!r}: the server is written http://HOST:PORT")
            self.kind, self.target = "http", f"{host.strip('[]')}:{port}"
        else:
            raise ValueError(
                f"{address!r}: the server is written unix:/absolute/path or http://HOST:PORT"
            )
        self.address = address
        self.owner_uid = os.getuid() if owner_uid is None else owner_uid
        self.token = token
        self.restart_grace = restart_grace
        #: Sent with every request (the hook's project and settings file).
        self.headers = {name: _quote(value) for name, value in (headers or {}).items()}

    def _connect(self, timeout: float) -> socket:
        if self.kind == "unix":
            sock = self._connect_unix(timeout)
            try:
                self._check_peer(sock)
            except BaseException:
                sock.close()
                raise
            return sock
        host, _, port = self.target.rpartition(":")
        import socket as sockets  # TCP only: a hook's Unix socket needs none of it

        try:
            return sockets.create_connection((host, int(port)), timeout=timeout)
        except OSError as exc:
            raise ServiceUnreachable(
                f"policy serve is not reachable at {self.address}: {exc.strerror or exc}"
            ) from None

    def _connect_unix(self, timeout: float) -> socket:
        """Connected to the socket; a service restarting (no socket file yet, or nobody
        accepting) is given `restart_grace` seconds, within `timeout`, to come back."""
        import _socket

        ends = time.monotonic() + min(self.restart_grace, timeout)
        delay = 0.02
        while True:
            sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
            sock.settimeout(timeout)
            try:
                sock.connect(self.target)
            except (FileNotFoundError, ConnectionRefusedError) as exc:
                sock.close()
                remaining = ends - time.monotonic()
                if remaining <= 0:
                    raise ServiceUnreachable(
                        f"policy serve is not reachable at {self.address}: {exc.strerror or exc}"
                    ) from None
                time.sleep(min(delay, remaining))
                delay = min(delay * 2, 0.25)
            except OSError as exc:
                sock.close()
                raise ServiceUnreachable(
                    f"policy serve is not reachable at {self.address}: {exc.strerror or exc}"
                ) from None
            else:
                return sock

    def _check_peer(self, sock: socket) -> None:
        """The process that accepted us runs as `owner_uid` (SO_PEERCRED)."""
        import _socket
        import struct

        if not hasattr(_socket, "SO_PEERCRED"):
            raise ServiceRefused(
                f"cannot check who serves {self.address}: this platform has no SO_PEERCRED "
                "(policy serve runs on Linux; docs/service.md)"
            )
        raw = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, struct.calcsize("3i"))
        pid, uid, _gid = struct.unpack("3i", raw)
        if uid != self.owner_uid:
            raise ServiceRefused(
                f"the service at {self.address} runs as uid {uid} (pid {pid}), not as the "
                f"configured owner uid {self.owner_uid} (server_owner): not trusted"
            )

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        timeout: float = 10.0,
        raw_body: bytes | None = None,
        track: set[socket] | None = None,
        lock: Any = None,
    ) -> tuple[int, dict[str, str], Any]:
        """Send one request; (status, headers, parsed JSON body). A status ≥ 400 is
        returned, not raised: callers say what it means for them. `track` holds the
        connection while the request is in flight (under `lock`), for a caller that
        may hang up on it from another thread."""
        payload = raw_body if raw_body is not None else b""
        if raw_body is None and body is not None:
            payload = dumps(body).encode()
        host = "localhost" if self.kind == "unix" else self.target
        head = [
            f"{method} {path} HTTP/1.1",
            f"Host: {host}",
            "Connection: close",
            "Accept: application/json",
        ]
        if payload or method in ("POST", "PUT"):
            head += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
        if self.token:
            head.append(f"Authorization: Bearer {self.token}")
        head += [f"{name}: {value}" for name, value in self.headers.items()]
        message = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload
        sock = self._connect(timeout)
        if track is not None:
            with lock:
                track.add(sock)
        try:
            _send(sock, message)
            return _read_response(sock, self.address)
        except TimeoutError:
            raise ServiceUnreachable(
                f"policy serve at {self.address} gave no answer within {timeout:g} s"
            ) from None
        except OSError as exc:
            raise ServiceUnreachable(
                f"policy serve at {self.address} failed: {exc.strerror or exc}"
            ) from None
        finally:
            if track is not None:
                with lock:
                    track.discard(sock)
            sock.close()

    def call(self, method: str, path: str, body: Any = None, *, timeout: float = 10.0) -> Any:
        """`request`, with any status but 2xx raised as ServiceRefused naming the error."""
        status, _headers, answer = self.request(method, path, body, timeout=timeout)
        if status >= 300:
            raise ServiceRefused(
                f"policy serve answered {status}: {_error_text(answer)}", status, answer
            )
        return answer


def _error_text(answer: Any) -> str:
    if isinstance(answer, dict):
        detail = answer.get("error", answer.get("detail"))
        if detail is not None:
            return str(detail)
    return str(answer)[:500]


def _send(sock: socket, message: bytes) -> None:
    """All of `message`, unless the service stops reading: it may answer before reading
    all of a body over its limit, and its answer is what to report."""
    try:
        sock.sendall(message)
    except (BrokenPipeError, ConnectionResetError):
        return


def query(parameters: dict[str, str]) -> str:
    """A URL's query holding `parameters`, as `urllib.parse.urlencode` writes it (but
    for a space, %20 rather than `+`: both read back as a space)."""
    return "&".join(f"{_quote(name, '')}={_quote(value, '')}" for name, value in parameters.items())


def _quote(value: str, safe: str = "/") -> str:
    """`urllib.parse.quote(value, safe)`: UTF-8, every byte but letters, digits, `_.-~`
    and those of `safe` as %XX."""
    kept = _UNRESERVED.union(safe.encode("ascii"))
    return "".join(chr(byte) if byte in kept else f"%{byte:02X}" for byte in value.encode())


_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~")


def _read_response(sock: socket, address: str) -> tuple[int, dict[str, str], Any]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ServiceRefused(f"policy serve at {address} closed the connection mid-answer")
        data += chunk
        if len(data) > 65536 and b"\r\n\r\n" not in data:
            raise ServiceRefused(f"policy serve at {address} sent a header block too long")
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise ServiceRefused(f"policy serve at {address} answered something that is not HTTP")
    status = int(parts[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = _dechunk(sock, rest, address)
    else:
        length_text = headers.get("content-length")
        if length_text is None or not length_text.isdigit():
            raise ServiceRefused(f"policy serve at {address} sent no Content-Length")
        length = int(length_text)
        if length > _MAX_ANSWER:
            raise ServiceRefused(f"policy serve at {address} sent {length} bytes: too long")
        body = rest
        while len(body) < length:
            chunk = sock.recv(min(65536, length - len(body)))
            if not chunk:
                raise ServiceRefused(f"policy serve at {address} cut its answer short")
            body += chunk
        body = body[:length]
    if not body:
        return status, headers, None
    try:
        return status, headers, loads(body)
    except ValueError:
        raise ServiceRefused(
            f"policy serve at {address} answered {status} with a body that is not JSON"
        ) from None


def _dechunk(sock: socket, data: bytes, address: str) -> bytes:
    """A chunked body (the service sends Content-Length; a proxy may re-chunk)."""
    body = b""
    while True:
        while b"\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                raise ServiceRefused(f"policy serve at {address} cut its answer short")
            data += chunk
        size_line, _, data = data.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            raise ServiceRefused(f"policy serve at {address} sent a bad chunk size") from None
        if size == 0:
            return body
        while len(data) < size + 2:
            chunk = sock.recv(65536)
            if not chunk:
                raise ServiceRefused(f"policy serve at {address} cut its answer short")
            data += chunk
        body += data[:size]
        data = data[size + 2 :]
        if len(body) > _MAX_ANSWER:
            raise ServiceRefused(f"policy serve at {address} sent too long an answer")


def server_from_settings(
    settings: Any,
    override: str | None = None,
    *,
    token: str | None = None,
    config: str | None = None,
) -> ServiceClient | None:
    """The service these settings (or `--server`) name, or None: decide in process.

    `server_owner` (a user name or uid) is whom a Unix socket's server must run as;
    unset, the hook's own user. The service is told the project the hook runs in
    (`CLAUDE_PROJECT_DIR`, the workspace when the service sets none) and the hook's
    settings file `config` (a path the agent must not change, as in process)."""
    address = override or getattr(settings, "server", None)
    if not address:
        return None
    owner = getattr(settings, "server_owner", None)
    owner_uid: int | None = None
    if owner is not None:
        if str(owner).isdigit():
            owner_uid = int(owner)
        else:
            import pwd

            try:
                owner_uid = pwd.getpwnam(str(owner)).pw_uid
            except KeyError:
                raise ServiceRefused(
                    f"server_owner {owner!r} is not a user of this system"
                ) from None
    headers = {}
    project = os.environ.get("CLAUDE_PROJECT_DIR", "")
    if project.startswith("/"):
        headers["X-Hookpolicy-Project"] = project
    if config:
        headers["X-Hookpolicy-Protect"] = os.path.abspath(config)
    return ServiceClient(address, owner_uid=owner_uid, token=token, headers=headers)
