"""`redis://` and `rediss://`: approvals shared by engines on several machines.

The call waiting for a person and the person answering are often on different hosts,
so the request has to live where both can reach it, and must outlive either process.
Layout under the key prefix (the `prefix` query parameter, default
`hookpolicy:approvals`, stripped before the URI goes to redis-py):

* `{prefix}:req:{id}` — the request, one JSON string (the fields of ApprovalRequest);
* `{prefix}:index` and `{prefix}:index:{state}` — sorted sets of ids scored by
  `created`, so `list` reads requests oldest first without scanning the keyspace;
* `{prefix}:digest:{digest}` — a sorted set of the ids of one call's requests, by
  `created`, for `find`;
* `{prefix}:grants:{digest}` — a list of grants for one call, as JSON, and
  `{prefix}:grant-digests` — the set of digests that have such a list, for `purge`;
* `{prefix}:decided:{id}` — the pub/sub channel a decision is announced on;
* `{prefix}:changes` — the pub/sub channel every request filed, decided or expired
  through a process is announced on (`{"event", "id", "from"}`), which the others'
  `follow` listeners hear (the replicas' inbox pages);
* `{prefix}:twin:{sha256}` — the id of the pending request for one call (pack, digest,
  session, approver group, agent uid), living until its deadline, so identical retries
  racing each other file one request (`file`).


A decision is a Lua script, so it is atomic in Redis: it replaces the request only if
the stored bytes are still exactly the pending request the caller read (a
compare-and-set; a pending request never changes in place), moves the id between
the state indexes and publishes on the request's channel, all in one step. Of two
approvers answering at once, exactly one script sees the pending bytes. A claim
(`claimed_at` set on an approved request) and a purge are compare-and-sets on the
stored bytes in the same way.

Floats go through orjson, which writes the shortest repr that reads back to the
same value, so `created`, `deadline` and the arguments round-trip exactly; the Lua
side never decodes JSON (cjson would round numbers to 14 digits).
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import os
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Protocol, cast
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import orjson

from policy.approvals.store import (
    AlreadyClaimed,
    AlreadyDecided,
    ApprovalRequest,
    ApprovalStore,
    Grant,
    RequestNotFound,
    State,
    StoreError,
    ended_before,
    grant_ended_before,
    is_twin,
)
from policy.digest import json_safe

if TYPE_CHECKING:
    from redis import Redis
    from redis.commands.core import Script

__all__ = ["RedisStore"]

DEFAULT_PREFIX = "hookpolicy:approvals"

# Connect and command timeouts unless the URI sets its own (`?socket_timeout=...`):
# a store that does not answer must turn into a StoreError (and a denial), not a hang.
SOCKET_TIMEOUT = 5.0

# `wait` re-reads the request at least this often even without a message, in case a
# notification was lost (pub/sub is fire-and-forget: a reconnect drops messages).
RECHECK_SECONDS = 1.0

# How many times `_transition` retries when the stored bytes changed but the request
# is still pending — only possible if something outside this store rewrote it.
_CAS_ATTEMPTS = 5
_EXPIRED_REASON = "no answer before the deadline"

# KEYS: request, index of all, index of the request's state, index of its digest.
# ARGV: request JSON, created (score), id.
_CREATE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX') then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
  redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
  redis.call('ZADD', KEYS[4], ARGV[2], ARGV[3])
  return 1
end
return 0
"""

# KEYS: request. ARGV: the JSON the caller read, the JSON to store instead.
# Returns nil when the request is gone, {1} when this call replaced it, and
# {0, current} when the stored bytes are no longer what the caller read.
_SWAP = """
local current = redis.call('GET', KEYS[1])
if not current then
  return false
end
if current ~= ARGV[1] then
  return {0, current}
end
redis.call('SET', KEYS[1], ARGV[2])
return {1}
"""

# KEYS: request, index of all, index of its state, index of its digest.
# ARGV: the JSON the caller read (and judged ended), id.
# Deletes the request only if it is still exactly what the caller judged; 1 if it did.
_DELETE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('ZREM', KEYS[3], ARGV[2])
redis.call('ZREM', KEYS[4], ARGV[2])
return 1
"""

# KEYS: the grants list of a digest, the set of digests with grants.
# ARGV: digest, then the grants (exact JSON) to remove.
# Returns how many went; forgets the digest when its list is left empty.
_DROP_GRANTS = """
local gone = 0
for i = 2, #ARGV do
  gone = gone + redis.call('LREM', KEYS[1], 1, ARGV[i])
end
if redis.call('LLEN', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[2], ARGV[1])
end
return gone
"""

# KEYS: the call's twin key, request, index of all, index of its state, index of its digest.
# ARGV: the request's id, the twin key's lifetime (ms: until the deadline), request JSON,
# created (score). The twin key names the pending request for one call (`file`): the
# first caller sets it and files; the others get the id it names.
# Returns {1} when this call filed its request, {0, id} when a twin's id is there.
_FILE = """
if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
  if not redis.call('SET', KEYS[2], ARGV[3], 'NX') then
    redis.call('DEL', KEYS[1])
    return {2}
  end
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
  redis.call('ZADD', KEYS[4], ARGV[4], ARGV[1])
  redis.call('ZADD', KEYS[5], ARGV[4], ARGV[1])
  return {1}
end
return {0, redis.call('GET', KEYS[1])}
"""

# KEYS: a twin key. ARGV: the id it must still name. Deletes it only then.
_FORGET_TWIN = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

# KEYS: request, index of pending, index of the new state, index of expired.
# ARGV: the pending JSON the caller read, the decided JSON, id, created (score), channel,
# the deadline ('' for an expiry), the expired JSON.
# Returns nil when the request is gone, {1, decided} when this call decided it,
# {0, current} when the stored request is no longer the pending one the caller read, and
# {2, expired} when the deadline had passed by the server's clock: it expires instead,
# inside the same atomic step, so no answer lands after the deadline.
_TRANSITION = """
local current = redis.call('GET', KEYS[1])
if not current then
  return false
end
if current ~= ARGV[1] then
  return {0, current}
end
local stored, target, outcome = ARGV[2], KEYS[3], 1
if ARGV[6] ~= '' then
  local t = redis.call('TIME')
  if tonumber(t[1]) + tonumber(t[2]) / 1000000 >= tonumber(ARGV[6]) then
    stored, target, outcome = ARGV[7], KEYS[4], 2
  end
end
redis.call('SET', KEYS[1], stored)
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('ZADD', target, ARGV[4], ARGV[3])
redis.call('PUBLISH', ARGV[5], stored)
return {outcome, stored}
"""


class _PubSub(Protocol):
    """The part of redis-py's PubSub that `wait` uses (redis-py leaves it untyped)."""

    def subscribe(self, *channels: str) -> Any: ...

    def get_message(
        self, ignore_subscribe_messages: bool = False, timeout: float = 0.0
    ) -> dict[str, Any] | None: ...

    def close(self) -> None: ...


# MGET in slices, so listing a large history does not build one huge reply.
_MGET_CHUNK = 500


def _split_uri(uri: str) -> tuple[str, str]:
    """The URI for redis-py (without `prefix`) and the key prefix."""
    parts = urlsplit(uri)
    query = parse_qsl(parts.query, keep_blank_values=True)
    prefix = DEFAULT_PREFIX
    kept: list[tuple[str, str]] = []
    for name, value in query:
        if name == "prefix":
            prefix = value or DEFAULT_PREFIX
        else:
            kept.append((name, value))
    return urlunsplit(parts._replace(query=urlencode(kept))), prefix


def _display(uri: str) -> str:
    """`uri` for error messages: the password replaced, since messages reach logs."""
    parts = urlsplit(uri)
    if parts.password is None:
        return uri
    host = parts.netloc.rpartition("@")[2]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{host}"))


def _dumps(value: Any) -> bytes:
    """JSON bytes; what orjson refuses (huge ints, odd keys) is made representable,
    since stored arguments are for a person to read and the digest binds the real ones."""
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        return orjson.dumps(json_safe(value))


class RedisStore(ApprovalStore):
    """Requests, grants and decision notifications in Redis."""

    def __init__(self, uri: str) -> None:
        try:
            import redis
        except ImportError as exc:
            raise StoreError(
                "redis:// approval store needs the 'redis' package: pip install hookpolicy[redis]"
            ) from exc
        self.uri = uri
        self._where = _display(uri)
        self._redis_error: type[Exception] = redis.RedisError
        client_uri, self.prefix = _split_uri(uri)
        try:
            self._client: Redis = redis.Redis.from_url(
                client_uri,
                socket_connect_timeout=SOCKET_TIMEOUT,
                socket_timeout=SOCKET_TIMEOUT,
            )
        except (ValueError, redis.RedisError) as exc:
            raise StoreError(f"approval store {self._where}: {exc}") from exc
        # Scripts are loaded lazily (EVALSHA, falling back to EVAL), so no round trip here.
        self._create_script: Script = self._client.register_script(_CREATE)
        self._transition_script: Script = self._client.register_script(_TRANSITION)
        self._swap_script: Script = self._client.register_script(_SWAP)
        self._delete_script: Script = self._client.register_script(_DELETE)
        self._drop_grants_script: Script = self._client.register_script(_DROP_GRANTS)
        self._file_script: Script = self._client.register_script(_FILE)
        self._forget_twin_script: Script = self._client.register_script(_FORGET_TWIN)
        #: Who this store object is in the change announcements (its own are not
        #: told to its followers twice).
        self._origin = os.urandom(8).hex()
        self._followers: builtins.list[Any] = []
        self._following: threading.Thread | None = None
        self._closed = threading.Event()

    # ------------------------------------------------------------ helpers

    def _key(self, *parts: str) -> str:
        return ":".join((self.prefix, *parts))

    def _channel(self, request_id: str) -> str:
        return self._key("decided", request_id)

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Redis failures (connection refused, timeouts, wrong type...) as StoreError,
        so a caller that cannot reach the store denies with a message naming it."""
        try:
            yield
        except self._redis_error as exc:
            raise StoreError(f"approval store {self._where}: {exc}") from exc

    def _decode(self, raw: bytes | str, what: str) -> dict[str, Any]:
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise StoreError(f"approval store {self._where}: {what} is not JSON: {exc}") from exc
        if not isinstance(data, dict):
            raise StoreError(f"approval store {self._where}: {what} is not a JSON object")
        return data

    def _request(self, raw: bytes | str, request_id: str) -> ApprovalRequest:
        data = self._decode(raw, f"request {request_id!r}")
        try:
            return ApprovalRequest.from_dict(data)
        except TypeError as exc:
            raise StoreError(
                f"approval store {self._where}: request {request_id!r} is unreadable: {exc}"
            ) from exc

    def _read_raw(self, request_id: str) -> bytes | str:
        with self._errors():
            # redis-py's return types differ between releases (7 and 8): read through Any
            # and check the type at run time, which holds for both.
            raw: Any = cast(Any, self._client).get(self._key("req", request_id))
        if raw is not None and not isinstance(raw, bytes | str):
            raise StoreError(f"approval store {self._where}: unexpected reply {type(raw)}")
        if raw is None:
            raise RequestNotFound(f"no approval request {request_id!r}")
        return raw

    # ------------------------------------------------------------ requests

    def _insert(self, request: ApprovalRequest) -> None:
        """Store a new request and index it, atomically; an id already taken is refused
        rather than overwritten, so a decided request can never become pending again."""
        with self._errors():
            created = self._create_script(
                keys=[
                    self._key("req", request.id),
                    self._key("index"),
                    self._key("index", request.state),
                    self._key("digest", request.digest),
                ],
                args=[_dumps(request.to_dict()), repr(request.created), request.id],
            )
        if created != 1:
            raise StoreError(f"approval store {self._where}: request {request.id!r} already exists")

    def _insert_or_join(self, request: ApprovalRequest) -> ApprovalRequest:
        """A twin key per call (`{prefix}:twin:{sha256}`), set with NX for as long as
        the request may be answered: one of several racing retries sets it and files,
        the others read the request it names. A key naming a request that is no longer
        a pending twin (decided early) is dropped by compare-and-delete, then tried
        again."""
        import hashlib

        from policy.approvals.store import approver_group

        identity = "\n".join(
            (
                request.pack,
                request.digest,
                request.session,
                approver_group(request.approvers),
                str(request.agent_uid),
            )
        )
        twin_key = self._key("twin", hashlib.sha256(identity.encode()).hexdigest())
        lifetime = max(1, int((request.deadline - time.time()) * 1000))
        for _ in range(_CAS_ATTEMPTS):
            with self._errors():
                result: list[Any] = self._file_script(
                    keys=[
                        twin_key,
                        self._key("req", request.id),
                        self._key("index"),
                        self._key("index", request.state),
                        self._key("digest", request.digest),
                    ],
                    args=[
                        request.id,
                        lifetime,
                        _dumps(request.to_dict()),
                        repr(request.created),
                    ],
                )
            if result[0] == 1:
                return request
            if result[0] == 2:
                raise StoreError(
                    f"approval store {self._where}: request {request.id!r} already exists"
                )
            other_id = _text(result[1]) if result[1] is not None else ""
            try:
                other = self.get(other_id) if other_id else None
            except RequestNotFound:
                other = None
            if other is not None and is_twin(request, other, time.time()):
                return other
            with self._errors():
                self._forget_twin_script(keys=[twin_key], args=[other_id])
        raise StoreError(f"approval store {self._where}: the call's pending request keeps changing")

    def get(self, request_id: str) -> ApprovalRequest:
        return self._request(self._read_raw(request_id), request_id)

    def list(self, state: State | None = "pending") -> list[ApprovalRequest]:
        index = self._key("index") if state is None else self._key("index", state)
        with self._errors():
            ids: builtins.list[bytes | str] = list(cast(Any, self._client).zrange(index, 0, -1))
        return [
            request
            for _, request in self._read_many(ids)
            if state is None or request.state == state
        ]

    def _read_many(
        self, ids: builtins.list[bytes | str]
    ) -> builtins.list[tuple[bytes | str, ApprovalRequest]]:
        """The stored bytes and the request of each id still there, in the order given."""
        found: builtins.list[tuple[bytes | str, ApprovalRequest]] = []
        with self._errors():
            for start in range(0, len(ids), _MGET_CHUNK):
                chunk = [_text(i) for i in ids[start : start + _MGET_CHUNK]]
                values: builtins.list[bytes | str | None] = list(
                    cast(Any, self._client).mget([self._key("req", i) for i in chunk])
                )
                for request_id, raw in zip(chunk, values, strict=True):
                    if raw is None:  # deleted behind our back; the index entry is stale
                        continue
                    found.append((raw, self._request(raw, request_id)))
        return found

    def find(self, pack: str, digest: str, session: str) -> builtins.list[ApprovalRequest]:
        with self._errors():
            ids: builtins.list[bytes | str] = list(
                cast(Any, self._client).zrevrange(self._key("digest", digest), 0, -1)
            )
        found = [
            request
            for _, request in self._read_many(ids)
            if request.pack == pack and request.session == session
        ]
        return sorted(found, key=lambda r: r.created, reverse=True)

    def _claim(self, request_id: str, now: float) -> ApprovalRequest:
        """Compare-and-set on the stored bytes of the approved, unclaimed request."""
        for _ in range(_CAS_ATTEMPTS):
            raw = self._read_raw(request_id)
            current = self._request(raw, request_id)
            if current.state != "approved" or current.claimed_at is not None:
                raise AlreadyClaimed(current)
            claimed = dataclasses.replace(current, claimed_at=now)
            with self._errors():
                result: list[Any] | None = self._swap_script(
                    keys=[self._key("req", request_id)],
                    args=[raw, _dumps(claimed.to_dict())],
                )
            if result is None:
                raise RequestNotFound(f"no approval request {request_id!r}")
            if result[0] == 1:
                return claimed
            # Another claimer (or writer) got there first: judge what it left.
        raise StoreError(
            f"approval store {self._where}: request {request_id!r} keeps changing while approved"
        )

    def purge(self, before: float) -> int:
        """Delete what ended before `before`, each request by compare-and-set on the
        bytes judged ended, so a request decided meanwhile is judged again next time.

        Only ids created before `before` are read: whatever ended before then was
        created before then (a request is decided after it is created, and its
        deadline comes after its creation too)."""
        gone = 0
        with self._errors():
            ids: builtins.list[bytes | str] = list(
                cast(Any, self._client).zrangebyscore(self._key("index"), "-inf", f"({before!r}")
            )
        for raw, request in self._read_many(ids):
            if not ended_before(request, before):
                continue
            with self._errors():
                gone += int(
                    self._delete_script(
                        keys=[
                            self._key("req", request.id),
                            self._key("index"),
                            self._key("index", request.state),
                            self._key("digest", request.digest),
                        ],
                        args=[raw, request.id],
                    )
                )
        with self._errors():
            digests: builtins.list[bytes | str] = list(
                cast(Any, self._client).smembers(self._key("grant-digests"))
            )
        for raw_digest in digests:
            digest = _text(raw_digest)
            key = self._key("grants", digest)
            with self._errors():
                values: builtins.list[bytes | str] = list(
                    cast(Any, self._client).lrange(key, 0, -1)
                )
            ended = [raw for raw in values if grant_ended_before(self._grant(raw, digest), before)]
            if ended or not values:
                with self._errors():
                    gone += int(
                        self._drop_grants_script(
                            keys=[key, self._key("grant-digests")], args=[digest, *ended]
                        )
                    )
        return gone

    def _transition(
        self, request_id: str, state: State, by: str, reason: str, grant: str, now: float
    ) -> ApprovalRequest:
        """Compare-and-set on the stored bytes of the pending request, in one Lua script."""
        for _ in range(_CAS_ATTEMPTS):
            raw = self._read_raw(request_id)
            current = self._request(raw, request_id)
            if current.state != "pending":
                raise AlreadyDecided(current)
            decided = dataclasses.replace(
                current, state=state, decided_by=by, decided_at=now, reason=reason, grant=grant
            )
            expired = dataclasses.replace(
                current, state="expired", decided_at=now, reason=_EXPIRED_REASON, grant=""
            )
            with self._errors():
                result: list[Any] | None = self._transition_script(
                    keys=[
                        self._key("req", request_id),
                        self._key("index", "pending"),
                        self._key("index", state),
                        self._key("index", "expired"),
                    ],
                    args=[
                        raw,
                        _dumps(decided.to_dict()),
                        request_id,
                        repr(current.created),
                        self._channel(request_id),
                        "" if state == "expired" else repr(current.deadline),
                        _dumps(expired.to_dict()),
                    ],
                )
            if result is None:
                raise RequestNotFound(f"no approval request {request_id!r}")
            won, stored = result
            if won == 1:
                return decided
            if won == 2:
                raise AlreadyDecided(expired)
            current = self._request(stored, request_id)
            if current.state != "pending":
                raise AlreadyDecided(current)
        raise StoreError(
            f"approval store {self._where}: request {request_id!r} keeps changing while pending"
        )

    def wait(self, request_id: str, until: float) -> ApprovalRequest:
        """Subscribe to the request's channel, then read it, then sleep on the channel.

        Subscribing before reading means a decision made after the read is announced
        to us; one made before it is in what we read. So the call resumes as soon as
        the message arrives (a round trip, not a polling interval), and a lost
        message costs at most RECHECK_SECONDS.
        """
        current = self.get(request_id)
        if current.state != "pending" or until <= time.time():
            return current
        channel = self._channel(request_id)
        with self._errors():
            # redis-py's pubsub() is untyped; _PubSub names what we rely on.
            pubsub = cast(_PubSub, cast(Any, self._client).pubsub())
            try:
                pubsub.subscribe(channel)
                self._await_subscribed(pubsub, channel)
                current = self.get(request_id)
                while current.state == "pending":
                    left = until - time.time()
                    if left <= 0:
                        break
                    pubsub.get_message(timeout=min(left, RECHECK_SECONDS))
                    current = self.get(request_id)
                return current
            finally:
                pubsub.close()

    def _await_subscribed(self, pubsub: _PubSub, channel: str) -> None:
        """Block until Redis confirms the subscription: SUBSCRIBE and the GET that
        follows go over different connections, and only the confirmation proves the
        server registered us before it answers the GET."""
        give_up = time.time() + SOCKET_TIMEOUT
        while True:
            left = give_up - time.time()
            if left <= 0:
                raise StoreError(
                    f"approval store {self._where}: subscription to {channel!r} not confirmed"
                )
            message = pubsub.get_message(timeout=left)
            if message is not None and message.get("type") == "subscribe":
                return

    # ------------------------------------------------------------ changes

    def _announce(self, event: str, request: ApprovalRequest) -> None:
        """Publish the change for the followers in other processes; a store that
        cannot be reached just loses the announcement (pages load again anyway)."""
        message = orjson.dumps({"event": event, "id": request.id, "from": self._origin})
        with contextlib.suppress(Exception):
            cast(Any, self._client).publish(self._key("changes"), message)

    def follow(self, listener: Any) -> None:
        self._followers.append(listener)
        if self._following is None:
            self._following = threading.Thread(
                target=self._follow_changes, name="hookpolicy-approvals-changes", daemon=True
            )
            self._following.start()

    def _follow_changes(self) -> None:
        """Hear other processes' changes until closed; across a Redis outage, subscribe
        again once a second."""
        while not self._closed.is_set():
            try:
                pubsub = cast(_PubSub, cast(Any, self._client).pubsub())
                try:
                    pubsub.subscribe(self._key("changes"))
                    while not self._closed.is_set():
                        message = pubsub.get_message(
                            ignore_subscribe_messages=True, timeout=RECHECK_SECONDS
                        )
                        if message is not None and message.get("type") == "message":
                            self._heard(message.get("data"))
                finally:
                    pubsub.close()
            except Exception:  # noqa: BLE001 - an outage: subscribe again, later
                self._closed.wait(1.0)

    def _heard(self, data: Any) -> None:
        try:
            change = orjson.loads(data)
            if change.get("from") == self._origin:
                return
            request = self.get(str(change["id"]))
            event = str(change["event"])
        except Exception:  # noqa: BLE001 - an announcement we cannot read is skipped
            return
        for listener in list(self._followers):
            with contextlib.suppress(Exception):
                listener(event, request)

    # ------------------------------------------------------------ grants

    def add_grant(self, grant: Grant) -> None:
        with self._errors():
            pipe = self._client.pipeline(transaction=True)
            pipe.rpush(self._key("grants", grant.digest), _dumps(dataclasses.asdict(grant)))
            pipe.sadd(self._key("grant-digests"), grant.digest)
            pipe.execute()

    def grants_for(self, digest: str) -> builtins.list[Grant]:
        with self._errors():
            values: builtins.list[bytes | str] = list(
                cast(Any, self._client).lrange(self._key("grants", digest), 0, -1)
            )
        return [self._grant(raw, digest) for raw in values]

    def _grant(self, raw: bytes | str, digest: str) -> Grant:
        data = self._decode(raw, f"grant for {digest}")
        try:
            return Grant(**data)
        except TypeError as exc:
            raise StoreError(
                f"approval store {self._where}: grant for {digest} is unreadable: {exc}"
            ) from exc

    def close(self) -> None:
        """Close the connection pool; safe to call twice."""
        self._closed.set()
        with self._errors():
            self._client.close()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
