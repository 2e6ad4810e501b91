"""Who is calling the service: nobody in particular, or an identity its settings name.

Anybody who reaches the socket or the decision endpoints may ask for decisions; that
is all an anonymous caller — the agent's hook — can do. An identity comes from one of
two channels, never from a field of the request body:

* `Authorization: Bearer <token>`, looked up by the token's SHA-256 (the settings keep
  digests, not tokens);
* the trusted reverse proxy's user header, only on requests whose peer address is one
  of the proxy's (over the Unix socket there is no proxy: the header is refused).

A token that matches nobody, or an identity header from anybody but the proxy, is an
error (401), not an anonymous request: a caller who meant to be somebody learns it
was not.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from policy._lazy_dataclass import dataclass
from policy.service_settings import Identity, ServiceSettings, resolve_uid

__all__ = ["ANONYMOUS", "Authenticator", "Caller", "NotAuthenticated"]


class NotAuthenticated(Exception):
    """The request claimed an identity the service cannot confirm."""


@dataclass(frozen=True, slots=True)
class Caller:
    """The identity behind one request (`name` None: anonymous)."""

    name: str | None
    roles: frozenset[str]
    approver_names: tuple[str, ...]
    via: str  # "token", "proxy" or "anonymous"
    #: The OS account the person runs agents as (`os_user`), for self-approval.
    uid: int | None = None
    #: Globs of the senders this identity may decide for (default: its name).
    senders: tuple[str, ...] = ()

    def has(self, role: str) -> bool:
        return role in self.roles

    def may_send_as(self, sender: str) -> bool:
        """Whether a call naming `sender` is this identity's to ask about."""
        from wcmatch import fnmatch as wfnmatch

        return wfnmatch.fnmatch(sender, list(self.senders), flags=wfnmatch.BRACE)

    def __str__(self) -> str:
        return f"{self.name} ({self.via})" if self.name else "anonymous"


ANONYMOUS = Caller(None, frozenset(), (), "anonymous")


def _one(headers: Any, name: str) -> str | None:
    """The header's one value; NotAuthenticated when it comes more than once (which
    copy a proxy or a server would read is not for the caller to choose)."""
    getlist = getattr(headers, "getlist", None)
    values = getlist(name) if getlist is not None else ([headers[name]] if name in headers else [])
    if len(values) > 1:
        raise NotAuthenticated(f"{name} is sent {len(values)} times")
    return values[0] if values else None


def _caller(identity: Identity, via: str) -> Caller:
    names = tuple(identity.approver_names) or (identity.name,)
    uid = None
    if identity.os_user is not None:
        try:
            uid = resolve_uid(identity.os_user)
        except ValueError:
            uid = -1  # an account this machine lacks files nothing here
    if identity.senders:
        senders = tuple(identity.senders)
    else:
        from wcmatch import fnmatch as wfnmatch

        senders = (wfnmatch.escape(identity.name),)
    return Caller(identity.name, frozenset(identity.roles), names, via, uid, senders)



class Authenticator:
    """Settings' identities, indexed for one lookup per request."""

    def __init__(self, service: ServiceSettings | None) -> None:
        identities = service.identities if service is not None else []
        self._by_digest = {i.token_sha256: i for i in identities if i.token_sha256}
        self._by_name = {i.name: i for i in identities}
        proxy = service.trusted_proxy if service is not None else None
        self._proxy_header = proxy.header.lower() if proxy is not None else None
        self._proxy_addresses = frozenset(proxy.addresses) if proxy is not None else frozenset()
        self._proxy_digest = proxy.token_sha256 if proxy is not None else ""

    def caller(self, headers: Any, peer: str | None) -> Caller:
        """The caller of a request with these headers (a Starlette `Headers`, or a
        plain mapping) from `peer` (an IP address; None or `unix-uid:N` over the Unix
        socket). A header that names an identity must come once: two are refused."""
        authorization = _one(headers, "authorization")
        if authorization is not None:
            scheme, _, token = authorization.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise NotAuthenticated("Authorization must be `Bearer <token>`")
            return self._by_token(token.strip())
        if self._proxy_header is not None:
            user = _one(headers, self._proxy_header)
            if user is not None:
                if peer is None or peer not in self._proxy_addresses:
                    raise NotAuthenticated(
                        f"{self._proxy_header} is honoured from the trusted proxy only"
                    )
                secret = _one(headers, "x-hookpolicy-proxy-token") or ""
                digest = hashlib.sha256(secret.encode()).hexdigest()
                if not secret or not hmac.compare_digest(digest, self._proxy_digest):
                    raise NotAuthenticated(
                        f"{self._proxy_header} is honoured from the trusted proxy only: "
                        "X-Hookpolicy-Proxy-Token is missing or wrong"
                    )
                identity = self._by_name.get(user)
                if identity is None:
                    raise NotAuthenticated(
                        f"the proxy names {user!r}, whom the service does not know"
                    )
                return _caller(identity, "proxy")
        return ANONYMOUS

    def by_token(self, token: str) -> tuple[Caller, str]:
        """The caller a bearer token stands for, and its digest (what a session made
        from it is bound to); NotAuthenticated when it stands for nobody."""
        return self._by_token(token), hashlib.sha256(token.encode()).hexdigest()

    def session_caller(self, name: str, digest: str) -> Caller | None:
        """The caller a signed-in session names, while `name` still has the token the
        session was made from (a token rotated or removed ends its sessions)."""
        identity = self._by_name.get(name)
        if identity is None or not identity.token_sha256:
            return None
        if not hmac.compare_digest(identity.token_sha256, digest):
            return None
        return _caller(identity, "session")

    def _by_token(self, token: str) -> Caller:
        digest = hashlib.sha256(token.encode()).hexdigest()
        identity = self._by_digest.get(digest)
        # The dict lookup is on a digest the caller cannot steer; compare anyway.
        if identity is None or not hmac.compare_digest(identity.token_sha256 or "", digest):
            raise NotAuthenticated("the bearer token matches no identity of this service")
        return _caller(identity, "token")
