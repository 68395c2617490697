"""Opening the SQLite index file: one place for the pragmas and the migrations."""

from __future__ import annotations

import sqlite3
import time
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
