"""The SQLite index file: one place for the pragmas and the migrations, and the one holder
of a connection to it (:class:`SQLiteConnection`) that every SQLite store uses."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from notecite.errors import StoreError
from notecite.store.sqlite.migrations import migrate

# While a new file is still in rollback-journal mode, two connections that open it at once
# can deadlock on its locks; SQLite then answers "database is locked" at once, without
# waiting on the busy timeout. The open is retried for up to this long.
_LOCKED_RETRY_S = 30.0


def _connect(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=30000")
        migrate(conn)
    except BaseException:
        conn.close()
        raise
    return conn


def open_index(path: Path, what: str) -> sqlite3.Connection:
    """A migrated connection to ``path`` in WAL mode, shareable across threads.

    ``what`` names what is being opened, for the error message.

    Raises:
        StoreError: the file cannot be created, is not a SQLite database, or is corrupt.
    """
    deadline = time.monotonic() + _LOCKED_RETRY_S
    delay = 0.01
    while True:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return _connect(path)
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise StoreError(
                    f"cannot open {what} at {path}: {exc}. Move the file away to start a "
                    "fresh index."
                ) from exc
        except (sqlite3.DatabaseError, OSError) as exc:
            raise StoreError(
                f"cannot open {what} at {path}: {exc}. Move the file away to start a fresh index."
            ) from exc
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


class SQLiteConnection:
    """One connection to an index file, opened (and migrated) on first use, shared by threads
    under a lock; every SQLite store (index, chat sessions, query log, templates) holds one.

    Each holder has its own connection: WAL lets one write while another (an index run)
    reads or waits for its turn. Errors of ``sqlite3`` raised inside :meth:`read` and
    :meth:`write` come out as :class:`~notecite.errors.StoreError`, chained.

    Args:
        path: the SQLite file (created with its folders when missing).
        what: what the connection serves, for error messages ("the chat sessions").
    """

    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        self.what = what
        self.lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection, opened on first use (callers that share it hold :attr:`lock`)."""
        if self._conn is None:
            with self.lock:
                if self._conn is None:
                    self._conn = open_index(self.path, self.what)
        return self._conn

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """The connection under the lock, outside any transaction (each statement commits
        on its own).

        Raises:
            StoreError: a statement failed.
        """
        with self.lock:
            conn = self.conn
            try:
                yield conn
            except sqlite3.Error as exc:
                raise StoreError(f"cannot read {self.what} in {self.path}: {exc}") from exc

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """The connection under the lock, in one ``BEGIN IMMEDIATE`` transaction: committed
        when the block ends, rolled back when it raises.

        Raises:
            StoreError: the transaction could not start, a statement failed, or the commit
                failed.
        """
        with self.lock:
            conn = self.conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                    conn.execute("COMMIT")
                except BaseException:
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise StoreError(f"cannot write {self.what} in {self.path}: {exc}") from exc

    def close(self) -> None:
        """Close the connection (it reopens on next use)."""
        with self.lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
