"""Who asks for a decision, as the kernel or a token says — never as the request says.

Every request to `policy serve` comes from one of three kinds of caller, and each is
recorded and budgeted as what it provably is:

* **a bearer token** (any listener): the identity the settings name for it. The
  principal is `token:<name>`; the call's `sender` must match the identity's `senders`
  globs (default: its name), else 403 — a token names senders only within its own
  namespace.
* **the Unix socket without a token**: the peer's uid, from `SO_PEERCRED`. The
  principal is `uid:<uid>`; a hook event's sender is that uid's user name (as the
  in-process hook's is), and a `/v1/decide` caller (PicoClaw's and OpenClaw's thin
  clients, naming their chat users) keeps the sender it names — within its uid.
* **TCP without a token**: anonymous. It still gets decisions, but whatever `sender`
  it names is ignored: the call is recorded as sender `anonymous` with its peer
  address, spends the one anonymous budget, and may not file approval requests.

The principal keys everything kept per caller (`policy.facts.scoped`): rate-limit
budgets, contract usage, approval requests and grants; so nothing one agent spends or
is granted reaches another.
"""

from __future__ import annotations

import pwd
import threading
import time
from collections.abc import Callable
from typing import Any

from policy._lazy_dataclass import dataclass
from policy.facts import Caller as FactsCaller
from policy.server.auth import Caller
from policy.server.peer import peer_uid

__all__ = ["ANONYMOUS_SENDER", "Asker", "SenderRefused", "asker_of"]

#: The sender every anonymous (TCP, no token) call is recorded as.
ANONYMOUS_SENDER = "anonymous"


class SenderRefused(Exception):
    """The call names a sender its caller may not speak for (403)."""


@dataclass(frozen=True, slots=True)
class Asker:
    """One request's caller, as far as deciding goes."""

    #: What keeps its state apart: `uid:1001`, `token:ci`, `anonymous`.
    principal: str
    #: The sender of a call that names none (and of every host event).
    user: str
    #: The Unix-socket peer's uid (None over TCP).
    uid: int | None
    #: A TCP peer's `address:port` ("" over the Unix socket).
    peer: str
    #: The token identity, if the request carried one.
    identity: Caller | None

    @property
    def anonymous(self) -> bool:
        return self.principal == ANONYMOUS_SENDER

    def sender(self, given: str) -> str:
        """The sender a call from this caller is recorded, budgeted and granted as."""
        if self.anonymous:
            return ANONYMOUS_SENDER
        sender = given or self.user
        if self.identity is not None and not self.identity.may_send_as(sender):
            raise SenderRefused(
                f"{self.identity} may not decide for sender {sender!r} "
                f"(its senders: {', '.join(self.identity.senders)})"
            )
        return sender

    def facts(
        self,
        home: str | None,
        workspace: str | None,
        protected: tuple[str, ...],
    ) -> FactsCaller:
        """What the engine needs to decide for this caller (`policy.facts.deciding_for`)."""
        return FactsCaller(
            home=home,
            workspace=workspace,
            uid=self.uid,
            protected=protected,
            principal=self.principal,
            peer=self.peer,
            may_file=not self.anonymous,
        )


class _Accounts:
    """The account database, as the service reads it for each request's peer uid: a
    user's name (the default sender) and home (what `~` means in its calls).

    `getpwuid` goes through NSS (files, LDAP, sssd) on every call — 0.35 ms a request
    here, on the event loop, more than the decision — so answers are kept for `TTL`
    seconds (an account renamed or moved shows within that), at most `LIMIT` uids."""

    TTL = 60.0
    LIMIT = 4096

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._known: dict[int, tuple[float, str | None, str | None]] = {}
        self._lock = threading.Lock()
        self._clock = clock

    def lookup(self, uid: int) -> tuple[str | None, str | None]:
        """(name, home) of `uid`, or (None, None) when no account has it."""
        now = self._clock()
        with self._lock:
            found = self._known.get(uid)
        if found is not None and now - found[0] < self.TTL:
            return found[1], found[2]
        try:
            entry = pwd.getpwuid(uid)
            answer: tuple[str | None, str | None] = (entry.pw_name, entry.pw_dir)
        except KeyError:
            answer = (None, None)
        with self._lock:
            if len(self._known) >= self.LIMIT:
                self._known.clear()  # (uids are few; a flood of new ones only costs lookups)
            self._known[uid] = (now, *answer)
        return answer


ACCOUNTS = _Accounts()


def _user_name(uid: int) -> str:
    name = ACCOUNTS.lookup(uid)[0]
    return name if name is not None else f"uid-{uid}"


def asker_of(identity: Caller, client: Any, server: Any) -> Asker:
    """The caller of a request that authenticated as `identity` (anonymous when it sent
    no token) from `client` (Starlette's `request.client`) on the listener `server` (the
    scope's: a uid only on the Unix socket)."""
    uid = peer_uid(client, server)
    peer = ""
    if uid is None and client is not None and client.host:
        peer = f"{client.host}:{client.port}"
    if identity.name is not None:
        return Asker(f"token:{identity.name}", identity.name, uid, peer, identity)
    if uid is not None:
        return Asker(f"uid:{uid}", _user_name(uid), uid, peer, None)
    return Asker(ANONYMOUS_SENDER, ANONYMOUS_SENDER, None, peer, None)
