"""The state file: one SQLite database every process of the machine opens.

* Created 0600 in a 0700 directory (`policy._owner_only`) before SQLite opens it; the
  `-wal` and `-shm` files take the database file's mode.
* WAL journal mode (readers never wait for the writer), `synchronous = NORMAL` (a
  commit is in the WAL, which other processes see at once; a power cut may lose the
  last few counts, never the file), and a busy timeout so writers queue.
* Every change is one `BEGIN IMMEDIATE` transaction: the write lock is taken before
  the read, so a read-check-write is atomic across processes, and two of them never
  both see the last free call of a budget.
* One connection per file per process, opened at first use and kept (a hook process
  makes one or two transactions; a long-lived engine makes many, and reconnecting
  would cost more than the transaction). A lock serialises the threads of a process;
  after a `fork` the child opens its own connection (SQLite forbids carrying one over).
* Expired counters and window entries are deleted at the first write of a connection
  and then once a minute, so the file does not grow with keys nobody uses again.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

from policy._owner_only import private_dir, private_file
from policy.state import StateError

__all__ = ["BUSY_TIMEOUT_MS", "SCHEMA_VERSION", "SQLiteState", "shared_state"]

#: Bump when the tables change; a file written by a newer version is refused.
SCHEMA_VERSION = 1

#: How long a writer waits for another one before "database is locked". A write holds
#: the lock for tens of microseconds, so this is only reached when something is wrong.
BUSY_TIMEOUT_MS = 5000

#: Seconds between two sweeps of expired rows by one connection.
PURGE_EVERY = 60.0

_SCHEMA = (
    # Fixed-window and sliding-window-counter counters (limits' incr/get/get_expiry).
    "CREATE TABLE IF NOT EXISTS counters ("
    " key TEXT PRIMARY KEY, value INTEGER NOT NULL, expires REAL NOT NULL) WITHOUT ROWID",
    "CREATE INDEX IF NOT EXISTS counters_by_expiry ON counters (expires)",
    # Moving-window entries, one row per admitted hit.
    "CREATE TABLE IF NOT EXISTS entries ("
    " key TEXT NOT NULL, at REAL NOT NULL, expires REAL NOT NULL)",
    "CREATE INDEX IF NOT EXISTS entries_by_key ON entries (key, at)",
    "CREATE INDEX IF NOT EXISTS entries_by_expiry ON entries (expires)",
    # Contract usage: calls admitted, and the first call (epoch seconds).
    "CREATE TABLE IF NOT EXISTS contract_usage ("
    " session TEXT NOT NULL, contract TEXT NOT NULL, calls INTEGER NOT NULL,"
    " started REAL NOT NULL, PRIMARY KEY (session, contract)) WITHOUT ROWID",
)


class SQLiteState:
    """One state file, opened at the first transaction."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self._pid = os.getpid()
        self._purged = 0.0

    def __repr__(self) -> str:
        return f"SQLiteState({str(self.path)!r})"

    # ------------------------------------------------------------ transactions

    @contextlib.contextmanager
    def write(self, now: float | None = None) -> Iterator[sqlite3.Connection]:
        """The connection inside `BEGIN IMMEDIATE`, committed when the block ends
        (rolled back if it raises). `now` (epoch seconds) lets the sweep of expired
        rows use the caller's clock."""
        with self._locked() as conn:
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    self._sweep(conn, time.time() if now is None else now)
                    yield conn
                except BaseException:
                    conn.execute("ROLLBACK")
                    raise
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StateError(f"state store {self.path}: {exc}") from exc

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection, for one statement in autocommit (a consistent snapshot)."""
        with self._locked() as conn:
            try:
                yield conn
            except sqlite3.Error as exc:
                raise StateError(f"state store {self.path}: {exc}") from exc

    @contextlib.contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        if self._pid != os.getpid():  # forked: the parent's connection and lock are not ours
            self._lock = threading.Lock()
            self._conn = None
            self._pid = os.getpid()
        with self._lock:
            if self._conn is None:
                self._conn = self._open()
            yield self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None and self._pid == os.getpid():
                self._conn.close()
            self._conn = None

    # ------------------------------------------------------------ opening

    def _open(self) -> sqlite3.Connection:
        try:
            private_dir(self.path.parent)
            private_file(self.path)
        except OSError as exc:
            raise StateError(f"state store {self.path}: cannot create it: {exc}") from exc
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise StateError(f"state store {self.path}: {exc}") from exc
        try:
            conn.execute("PRAGMA synchronous = NORMAL")
            if _version(conn) != SCHEMA_VERSION:
                self._create(conn)
        except BaseException as exc:
            conn.close()
            if isinstance(exc, sqlite3.Error):
                raise StateError(f"state store {self.path}: {exc}") from exc
            raise
        return conn

    def _create(self, conn: sqlite3.Connection) -> None:
        """WAL mode and the tables, the first time any process opens the file."""
        # Persistent in the file; outside a transaction (SQLite refuses to switch inside one).
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()
        if mode is None or str(mode[0]).lower() != "wal":
            raise StateError(
                f"state store {self.path}: cannot use WAL journal mode (got {mode!r}); "
                "is it on a network file system?"
            )
        conn.execute("BEGIN IMMEDIATE")
        try:
            self._create_tables(conn)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _create_tables(self, conn: sqlite3.Connection) -> None:
        version = _version(conn)  # again, under the lock: another process may have won
        if version > SCHEMA_VERSION:
            raise StateError(
                f"state store {self.path}: schema version {version} is newer than this "
                f"hookpolicy understands ({SCHEMA_VERSION}); upgrade hookpolicy"
            )
        if version < SCHEMA_VERSION:
            for statement in _SCHEMA:
                conn.execute(statement)
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _sweep(self, conn: sqlite3.Connection, now: float) -> None:
        if now - self._purged < PURGE_EVERY and self._purged <= now:
            return
        conn.execute("DELETE FROM counters WHERE expires < ?", (now,))
        conn.execute("DELETE FROM entries WHERE expires < ?", (now,))
        self._purged = now


def _version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


_OPEN: weakref.WeakValueDictionary[tuple[int, str], SQLiteState] = weakref.WeakValueDictionary()
_OPEN_LOCK = threading.Lock()


def shared_state(path: Path) -> SQLiteState:
    """The state file at `path`, one object (and connection) per file per process while
    anything uses it: the rate limiters of every strategy and the contract registry of
    an engine, and the engines of one process, share it."""
    key = (os.getpid(), os.path.abspath(path))
    with _OPEN_LOCK:
        found = _OPEN.get(key)
        if found is None:
            found = _OPEN[key] = SQLiteState(Path(key[1]))
        return found
