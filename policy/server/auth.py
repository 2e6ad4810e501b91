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
from collections.abc import Mapping
from dataclasses import dataclass

from policy.service_settings import Identity, ServiceSettings

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

    def has(self, role: str) -> bool:
        return role in self.roles

    def __str__(self) -> str:
        return f"{self.name} ({self.via})" if self.name else "anonymous"


ANONYMOUS = Caller(None, frozenset(), (), "anonymous")


def _caller(identity: Identity, via: str) -> Caller:
    names = tuple(identity.approver_names) or (identity.name,)
    return Caller(identity.name, frozenset(identity.roles), names, via)


class Authenticator:
    """Settings' identities, indexed for one lookup per request."""

    def __init__(self, service: ServiceSettings | None) -> None:
        identities = service.identities if service is not None else []
        self._by_digest = {i.token_sha256: i for i in identities if i.token_sha256}
        self._by_name = {i.name: i for i in identities}
        proxy = service.trusted_proxy if service is not None else None
        self._proxy_header = proxy.header.lower() if proxy is not None else None
        self._proxy_addresses = frozenset(proxy.addresses) if proxy is not None else frozenset()

    def caller(self, headers: Mapping[str, str], peer: str | None) -> Caller:
        """The caller of a request with these headers from `peer` (an IP address, or
        None over the Unix socket)."""
        authorization = headers.get("authorization")
        if authorization is not None:
            scheme, _, token = authorization.partition(" ")
            if scheme.lower() != "bearer" or not token.strip():
                raise NotAuthenticated("Authorization must be `Bearer <token>`")
            return self._by_token(token.strip())
        if self._proxy_header is not None:
            user = headers.get(self._proxy_header)
            if user is not None:
                if peer is None or peer not in self._proxy_addresses:
                    raise NotAuthenticated(
                        f"{self._proxy_header} is honoured from the trusted proxy only"
                    )
                identity = self._by_name.get(user)
                if identity is None:
                    raise NotAuthenticated(
                        f"the proxy names {user!r}, whom the service does not know"
                    )
                return _caller(identity, "proxy")
        return ANONYMOUS

    def _by_token(self, token: str) -> Caller:
        digest = hashlib.sha256(token.encode()).hexdigest()
        identity = self._by_digest.get(digest)
        # The dict lookup is on a digest the caller cannot steer; compare anyway.
        if identity is None or not hmac.compare_digest(identity.token_sha256 or "", digest):
            raise NotAuthenticated("the bearer token matches no identity of this service")
        return _caller(identity, "token")
