"""`sqlite:///PATH`: the embedded default store, shared by the processes of one machine.

The call that waits for a person and the `policy approvals approve` that answers it
are usually different processes, so the store lives in a file. SQLite gives us that
without a server:

* WAL journal mode, so the waiting process can poll while another one writes;
* a `busy_timeout`, so concurrent writers queue instead of failing at once;
* a connection per operation: approvals are rare and a person is in the loop, so
  opening a connection costs nothing that matters, and it keeps the store safe to
  share between threads and across `fork` without any locking of our own;
* the decision is one `UPDATE ... WHERE state = 'pending'`: SQLite serialises
  writers, so exactly one of several racing approvers changes the row, and the
  others see a rowcount of 0 and report the winner's answer.

`sqlite:////abs/path.db` names an absolute path and `sqlite:///rel/path.db` one
relative to the working directory (the SQLAlchemy convention). The file holds
arguments verbatim, so it is created 0600 in a 0700 directory (`policy._owner_only`)
before SQLite opens it; SQLite gives the `-wal` and `-shm` files the same mode.
"""

from __future__ import annotations

import builtins
import contextlib
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

from policy._owner_only import private_dir, private_file
from policy.approvals.store import (
    AlreadyClaimed,
    AlreadyDecided,
    ApprovalRequest,
    ApprovalStore,
    Grant,
    RequestNotFound,
    State,
    StoreError,
    StoreMissing,
    is_twin,
)
from policy.digest import json_safe

__all__ = ["SqliteStore"]

# Bump when the tables change (and add the steps to `_MIGRATIONS`); `_open_schema`
# refuses files written by a newer version rather than misreading them.
SCHEMA_VERSION = 5

# How long a writer waits for another one before SQLite reports "database is locked".
BUSY_TIMEOUT_MS = 5000

# How often `wait` looks at the row. A decision from another process reaches the
# waiting call at most this late (plus the read itself), well inside the 100 ms promise.
POLL_SECONDS = 0.05

_REQUEST_COLUMNS = (
    "id",
    "tool",
    "digest",
    "args",
    "requester",
    "session",
    "pack",
    "created",
    "deadline",
    "approvers",
    "self_approval",
    "grants",
    "state",
    "decided_by",
    "decided_at",
    "reason",
    "grant",
    "agent_uid",
    "claimed_at",
    "cwd",
    "principal",
    "rules",
    "message",
)
_JSON_COLUMNS = frozenset({"args", "approvers", "grants", "rules"})

_GRANT_COLUMNS = (
    "digest",
    "pack",
    "scope",
    "requester",
    "session",
    "approver",
    "request_id",
    "expires",
    "created",
    "group",
)


def _quoted(columns: Sequence[str]) -> str:
    # `grant` is an SQL keyword; quoting every name keeps the field names as they are.
    return ", ".join(f'"{name}"' for name in columns)


_SELECT_REQUEST = f"SELECT {_quoted(_REQUEST_COLUMNS)} FROM requests"
_INSERT_REQUEST = (
    f"INSERT INTO requests ({_quoted(_REQUEST_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _REQUEST_COLUMNS)})"
)
_SELECT_GRANT = f"SELECT {_quoted(_GRANT_COLUMNS)} FROM grants"
_INSERT_GRANT = (
    f"INSERT INTO grants ({_quoted(_GRANT_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in _GRANT_COLUMNS)})"
)

# Version 1, as first written; later versions are reached through `_MIGRATIONS`, so a
# new file and an old one end up with the same tables.
_SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS requests (
    "id" TEXT PRIMARY KEY,
    "tool" TEXT NOT NULL,
    "digest" TEXT NOT NULL,
    "args" TEXT NOT NULL,
    "requester" TEXT NOT NULL,
    "session" TEXT NOT NULL,
    "pack" TEXT NOT NULL,
    "created" REAL NOT NULL,
    "deadline" REAL NOT NULL,
    "approvers" TEXT NOT NULL,
    "self_approval" INTEGER NOT NULL,
    "grants" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "decided_by" TEXT NOT NULL,
    "decided_at" REAL,
    "reason" TEXT NOT NULL,
    "grant" TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS requests_by_state ON requests ("state", "created");
CREATE TABLE IF NOT EXISTS grants (
    "digest" TEXT NOT NULL,
    "pack" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "requester" TEXT NOT NULL,
    "session" TEXT NOT NULL,
    "approver" TEXT NOT NULL,
    "request_id" TEXT NOT NULL,
    "expires" REAL,
    "created" REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS grants_by_digest ON grants ("digest");
"""

# The statements that take a file from version N-1 to N.
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: (
        'ALTER TABLE requests ADD COLUMN "agent_uid" INTEGER',
        'ALTER TABLE requests ADD COLUMN "claimed_at" REAL',
        """ALTER TABLE requests ADD COLUMN "cwd" TEXT NOT NULL DEFAULT ''""",
        'CREATE INDEX IF NOT EXISTS requests_by_digest ON requests ("digest")',
    ),
    3: ("""ALTER TABLE grants ADD COLUMN "group" TEXT NOT NULL DEFAULT ''""",),
    4: (
        """ALTER TABLE requests ADD COLUMN "principal" TEXT NOT NULL DEFAULT ''""",
        'CREATE INDEX IF NOT EXISTS requests_by_principal ON requests ("principal", "state")',
    ),
    # The rules that asked, and their message: rows filed before have neither.
    5: (
        """ALTER TABLE requests ADD COLUMN "rules" TEXT NOT NULL DEFAULT '[]'""",
        """ALTER TABLE requests ADD COLUMN "message" TEXT NOT NULL DEFAULT ''""",
    ),
}


def _path_from_uri(uri: str) -> Path:
    """The file `uri` names: `sqlite:///` followed by the path, absolute or relative."""
    prefix = "sqlite:///"
    if not uri.startswith(prefix) or len(uri) == len(prefix):
        raise StoreError(
            f"approval store {uri!r}: expected sqlite:///PATH "
            "(sqlite:////abs/path.db or sqlite:///relative/path.db)"
        )
    raw = uri[len(prefix) :]
    if raw == ":memory:" or raw.startswith("file:"):
        # Every operation opens its own connection, so an in-memory database would
        # be empty each time; memory:// is the store for that.
        raise StoreError(f"approval store {uri!r}: use memory:// for a store in memory")
    return Path(raw)


def _dumps(value: Any) -> str:
    """JSON for a column; what orjson refuses (huge ints, odd keys) is made representable,
    since the stored arguments are for a person to read and the digest binds the real ones."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return orjson.dumps(json_safe(value)).decode()


def _request_row(request: ApprovalRequest) -> tuple[Any, ...]:
    data = request.to_dict()
    return tuple(
        _dumps(data[name])
        if name in _JSON_COLUMNS
        else int(data[name])
        if name == "self_approval"
        else data[name]
        for name in _REQUEST_COLUMNS
    )


def _request_from_row(row: Sequence[Any], path: Path) -> ApprovalRequest:
    """The request a row holds; a row this code cannot read is a StoreError (deny),
    never a half-built request."""
    data: dict[str, Any] = dict(zip(_REQUEST_COLUMNS, row, strict=True))
    try:
        for name in _JSON_COLUMNS:
            data[name] = orjson.loads(data[name])
        data["self_approval"] = bool(data["self_approval"])
        return ApprovalRequest.from_dict(data)
    except (orjson.JSONDecodeError, TypeError) as exc:
        raise StoreError(
            f"approval store {path}: request {data['id']!r} is unreadable: {exc}"
        ) from exc


def _grant_from_row(row: Sequence[Any]) -> Grant:
    data: Mapping[str, Any] = dict(zip(_GRANT_COLUMNS, row, strict=True))
    return Grant(**data)


class SqliteStore(ApprovalStore):
    """Requests and grants in one SQLite file, safe for several processes at once."""

    def __init__(self, uri: str, *, create: bool = True) -> None:
        self.uri = uri
        self.path = _path_from_uri(uri)
        if not create and not self.path.exists():
            raise StoreMissing(f"no approval store at {self.path} yet: no call has asked there")
        try:
            # Before SQLite sees the path: it would create the file with the umask's mode.
            private_dir(self.path.parent)
            private_file(self.path)
        except OSError as exc:
            raise StoreError(
                f"approval store {self.path}: cannot create it privately: {exc}"
            ) from exc
        self._open_schema()

    # ------------------------------------------------------------ connections

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A fresh connection in autocommit mode (transactions are explicit), closed after.

        Any SQLite failure becomes a StoreError naming the file, so a caller that
        cannot reach the store denies with a message a person can act on.
        """
        conn: sqlite3.Connection | None = None
        try:
            conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            yield conn
        except sqlite3.Error as exc:
            raise StoreError(f"approval store {self.path}: {exc}") from exc
        finally:
            if conn is not None:
                conn.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """A connection inside `BEGIN IMMEDIATE`: the write lock is taken up front, so a
        read-then-write cannot deadlock with another writer (SQLite would fail it
        with "database is locked" without waiting)."""
        with self._connect() as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
            except BaseException:
                conn.rollback()
                raise
            conn.commit()

    def _open_schema(self) -> None:
        """WAL mode and the tables, created the first time any process opens the file."""
        with self._connect() as conn:
            # Persistent in the file; a no-op after the first time. Outside a
            # transaction because SQLite refuses to switch journal modes inside one.
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                raise StoreError(
                    f"approval store {self.path}: cannot use WAL journal mode (got {mode!r}); "
                    "is it on a network file system?"
                )
        with self._write() as conn:
            version = int(conn.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"approval store {self.path}: schema version {version} is newer than "
                    f"this hookpolicy understands ({SCHEMA_VERSION}); upgrade hookpolicy"
                )
            if version < SCHEMA_VERSION:
                # One statement at a time: executescript would commit the open transaction.
                # All in this one transaction, so a file is never left half migrated.
                if version == 0:
                    for statement in _SCHEMA_V1.split(";"):
                        if statement.strip():
                            conn.execute(statement)
                    version = 1
                for step in range(version + 1, SCHEMA_VERSION + 1):
                    for statement in _MIGRATIONS[step]:
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # ------------------------------------------------------------ requests

    @contextlib.contextmanager
    def _inserting(self, request: ApprovalRequest) -> Iterator[sqlite3.Connection]:
        """A write transaction that inserts `request`; an id already taken is refused
        rather than overwritten, so a decided request never turns pending again."""
        try:
            with self._write() as conn:
                yield conn
        except StoreError as exc:
            if isinstance(exc.__cause__, sqlite3.IntegrityError):
                raise StoreError(
                    f"approval store {self.path}: request {request.id!r} already exists"
                ) from exc
            raise

    def _insert(self, request: ApprovalRequest) -> None:
        with self._inserting(request) as conn:
            conn.execute(_INSERT_REQUEST, _request_row(request))

    def _insert_or_join(self, request: ApprovalRequest) -> ApprovalRequest:
        """One `BEGIN IMMEDIATE` transaction: SQLite serialises writers, so of several
        identical retries the first inserts and the others find its row."""
        with self._inserting(request) as conn:
            rows = conn.execute(
                f"{_SELECT_REQUEST} WHERE digest = ? AND pack = ? AND session = ? "
                "AND state = 'pending' ORDER BY created, rowid",
                (request.digest, request.pack, request.session),
            ).fetchall()
            now = time.time()
            for row in rows:
                other = _request_from_row(row, self.path)
                if is_twin(request, other, now):
                    return other
            conn.execute(_INSERT_REQUEST, _request_row(request))
        return request

    def get(self, request_id: str) -> ApprovalRequest:
        with self._connect() as conn:
            return self._read(conn, request_id)


    def _read(self, conn: sqlite3.Connection, request_id: str) -> ApprovalRequest:
        # fetchall, not fetchone: stepping the statement to its end closes the read
        # transaction at once, so the next poll in `wait` sees a fresh snapshot.
        rows = conn.execute(f"{_SELECT_REQUEST} WHERE id = ?", (request_id,)).fetchall()
        if not rows:
            raise RequestNotFound(f"no approval request {request_id!r}")
        return _request_from_row(rows[0], self.path)

    def list(self, state: State | None = "pending") -> list[ApprovalRequest]:
        with self._connect() as conn:
            if state is None:
                rows = conn.execute(f"{_SELECT_REQUEST} ORDER BY created, rowid").fetchall()
            else:
                rows = conn.execute(
                    f"{_SELECT_REQUEST} WHERE state = ? ORDER BY created, rowid", (state,)
                ).fetchall()
        return [_request_from_row(row, self.path) for row in rows]

    def find(self, pack: str, digest: str, session: str) -> builtins.list[ApprovalRequest]:
        with self._connect() as conn:
            rows = conn.execute(
                f"{_SELECT_REQUEST} WHERE digest = ? AND pack = ? AND session = ? "
                "ORDER BY created DESC, rowid DESC",
                (digest, pack, session),
            ).fetchall()
        return [_request_from_row(row, self.path) for row in rows]

    def count_pending(self, principal: str, now: float | None = None) -> int:
        now = time.time() if now is None else now
        with self._connect() as conn:
            row = conn.execute(
                "SELECT COUNT(*) FROM requests WHERE principal = ? AND state = 'pending' "
                "AND deadline > ?",
                (principal, now),
            ).fetchone()
        return int(row[0])

    def _claim(self, request_id: str, now: float) -> ApprovalRequest:
        """Compare-and-set in one UPDATE guarded by `state = 'approved' AND claimed_at
        IS NULL`: SQLite serialises writers, so exactly one claimer changes the row."""
        with self._write() as conn:
            changed = conn.execute(
                "UPDATE requests SET claimed_at = ? "
                "WHERE id = ? AND state = 'approved' AND claimed_at IS NULL",
                (now, request_id),
            ).rowcount
            current = self._read(conn, request_id)
        if changed != 1:
            raise AlreadyClaimed(current)
        return current

    def purge(self, before: float) -> int:
        with self._write() as conn:
            requests = conn.execute(
                "DELETE FROM requests WHERE CASE "
                "WHEN state = 'pending' OR decided_at IS NULL THEN deadline < ? "
                "ELSE decided_at < ? END",
                (before, before),
            ).rowcount
            grants = conn.execute(
                "DELETE FROM grants WHERE COALESCE(expires, created) < ?", (before,)
            ).rowcount
        return int(requests) + int(grants)

    def _transition(
        self, request_id: str, state: State, by: str, reason: str, grant: str, now: float
    ) -> ApprovalRequest:
        """Compare-and-set in one UPDATE guarded by `state = 'pending'`: the row changes
        for exactly one caller; everybody else reads the row the winner wrote."""
        with self._write() as conn:
            # The deadline is judged inside the write lock: an answer that commits after
            # it loses to the expiry, however long it waited for the lock.
            guard = "" if state == "expired" else " AND deadline > ?"
            params: tuple[float, ...] = () if state == "expired" else (time.time(),)
            changed = conn.execute(
                "UPDATE requests SET state = ?, decided_by = ?, decided_at = ?, reason = ?, "
                "\"grant\" = ? WHERE id = ? AND state = 'pending'" + guard,
                (state, by, now, reason, grant, request_id, *params),
            ).rowcount
            if changed != 1 and state != "expired":
                conn.execute(
                    "UPDATE requests SET state = 'expired', decided_by = '', decided_at = ?, "
                    "reason = 'no answer before the deadline', \"grant\" = '' "
                    "WHERE id = ? AND state = 'pending'",
                    (now, request_id),
                )
            current = self._read(conn, request_id)
        if changed != 1:
            raise AlreadyDecided(current)
        return current

    def wait(self, request_id: str, until: float) -> ApprovalRequest:
        """Poll the row every POLL_SECONDS on one connection until it leaves pending or
        `until` passes. Polling, because SQLite has no notifications across processes;
        in WAL mode each read sees the latest committed decision without blocking writers."""
        with self._connect() as conn:
            while True:
                current = self._read(conn, request_id)
                left = until - time.time()
                if current.state != "pending" or left <= 0:
                    return current
                time.sleep(min(POLL_SECONDS, left))

    # ------------------------------------------------------------ grants

    def add_grant(self, grant: Grant) -> None:
        with self._write() as conn:
            conn.execute(_INSERT_GRANT, tuple(getattr(grant, name) for name in _GRANT_COLUMNS))

    def grants_for(self, digest: str) -> builtins.list[Grant]:
        with self._connect() as conn:
            rows = conn.execute(
                f"{_SELECT_GRANT} WHERE digest = ? ORDER BY rowid", (digest,)
            ).fetchall()
        return [_grant_from_row(row) for row in rows]
