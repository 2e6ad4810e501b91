"""What keeps a web page in the approver's (or the agent's) browser from driving the API.

A page on any site can make the browser send requests to `http://127.0.0.1:PORT`: a
"simple" cross-origin POST (`Content-Type: text/plain`, no preflight) reaches the
server, and a DNS-rebinding page (a name of the attacker's that resolves to
127.0.0.1) can even read the answers. So, on `/v1/*`:

* a request with a body must say `Content-Type: application/json` (415 otherwise): a
  browser sends that type cross-origin only after a CORS preflight, which this service
  never answers with permission;
* over TCP, `Host` must name the listener itself — its own address and port (after
  port 0 was resolved, or the socket systemd passed) or a name the operator listed in
  `service.allowed_hosts` (421 otherwise): a rebinding page sends its own name, and
  `localhost` may reach another server (on ::1) than this one;
* a request carrying an `Origin` other than the service's own (or one listed in
  `service.allowed_origins`) is refused (403); there are no CORS headers at all.

The Unix socket is out of a browser's reach, and its callers are named by the kernel;
only the JSON rule applies there.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BrowserGuard"]

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class BrowserGuard:
    """The checks above, with the listener's own names worked out once per address."""

    def __init__(self, allowed_hosts: list[str], allowed_origins: list[str]) -> None:
        self._extra_hosts = [host.lower() for host in allowed_hosts]
        self._extra_origins = frozenset(origin.lower().rstrip("/") for origin in allowed_origins)
        self._names: dict[tuple[str, int], frozenset[str]] = {}

    def _hosts(self, server: tuple[str, int]) -> frozenset[str]:
        found = self._names.get(server)
        if found is None:
            host, port = server
            bracketed = f"[{host}]" if ":" in host else host
            # (not `localhost:PORT`: browsers try ::1 first, where another user's server
            # may listen on the same port as this service's 127.0.0.1 — and be, to the
            # browser, the same origin as this service's pages, their storage included)
            names = {f"{bracketed}:{port}"}
            for extra in self._extra_hosts:
                names.add(extra if ":" in extra.rsplit("]", 1)[-1] else f"{extra}:{port}")
                names.add(extra)
            found = self._names[server] = frozenset(names)
        return found

    def refusal(
        self,
        scope: Any,
        host: bytes | None,
        origin: bytes | None,
        content_type: bytes | None,
        over_tcp: bool,
    ) -> tuple[int, str] | None:
        """(status, message) when the request must be refused, else None."""
        path: str = scope.get("path", "")
        if not path.startswith("/v1/"):
            if over_tcp:
                return self._origin_refusal(scope, host, origin)
            return None
        if scope.get("method") in _BODY_METHODS:
            media = (content_type or b"").split(b";", 1)[0].strip().lower()
            if media != b"application/json":
                return 415, "send the body as JSON (Content-Type: application/json)"
        if over_tcp:
            return self._origin_refusal(scope, host, origin)
        return None

    def _origin_refusal(
        self, scope: Any, host: bytes | None, origin: bytes | None
    ) -> tuple[int, str] | None:
        server = scope.get("server")
        if not server or server[1] is None:
            # A TCP request whose listener is not known cannot be told from a rebinding
            # page: refused, never waved through.
            return 421, "this service cannot tell which address was asked for"
        names = self._hosts((str(server[0]), int(server[1])))
        given = (host or b"").decode("latin-1").strip().lower()
        if given not in names:
            return 421, f"this service does not answer for host {given or '(none)'!r}"
        if origin is not None:
            seen = origin.decode("latin-1").strip().lower().rstrip("/")
            own = {f"http://{name}" for name in names}
            if seen not in own and seen not in self._extra_origins:
                return 403, f"requests from origin {seen!r} are not accepted"
        return None
