"""Opening the SQLite index file: one place for the pragmas and the migrations."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from notecite.errors import StoreError
from notecite.store.sqlite.migrations import migrate


def open_index(path: Path, what: str) -> sqlite3.Connection:
    """A migrated connection to ``path`` in WAL mode, shareable across threads.

    ``what`` names what is being opened, for the error message.

    Raises:
        StoreError: the file cannot be created, is not a SQLite database, or is corrupt.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30.0)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=30000")
        migrate(conn)
    except (sqlite3.DatabaseError, OSError) as exc:
        raise StoreError(
            f"cannot open {what} at {path}: {exc}. Move the file away to start a fresh index."
        ) from exc
    return conn
