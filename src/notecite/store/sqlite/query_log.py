"""The query log in the index's SQLite file (table ``query_log``).

Turned off with ``ask.log_queries = false``; emptied with ``notecite log purge``. Each tenant
sees and purges only its own entries.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from notecite.records import QueryLogEntry, QueryLogRecord
from notecite.store.sqlite.connection import SQLiteConnection


class SQLiteQueryLog:
    """The :class:`~notecite.store.query_log.QueryLog` of the index file, for one tenant."""

    def __init__(self, path: Path, *, tenant_id: int = 1) -> None:
        self.path = path
        self.tenant_id = tenant_id
        self._db = SQLiteConnection(path, "the query log")

    def record(self, entry: QueryLogRecord) -> None:
        """Append one question and its answer."""
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO query_log (tenant_id, asked_at, question, answer, abstained, refs, "
                "llm, total_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    self.tenant_id,
                    datetime.now(UTC).isoformat(),
                    entry.question,
                    entry.answer,
                    int(entry.abstained),
                    json.dumps(list(entry.references)),
                    entry.llm,
                    entry.total_ms,
                ),
            )

    def entries(self, limit: int = 50) -> list[QueryLogEntry]:
        """The newest ``limit`` entries, newest first."""
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT id, asked_at, question, answer, abstained, refs, llm, total_ms "
                "FROM query_log WHERE tenant_id = ? ORDER BY id DESC LIMIT ?",
                (self.tenant_id, limit),
            ).fetchall()
        return [
            QueryLogEntry(
                id=r[0],
                asked_at=datetime.fromisoformat(r[1]),
                question=r[2],
                answer=r[3],
                abstained=bool(r[4]),
                references=tuple(json.loads(r[5])),
                llm=r[6],
                total_ms=r[7],
            )
            for r in rows
        ]

    def purge(self, before: datetime | None = None) -> int:
        """Delete every entry (or those asked before ``before``); return how many went.

        The freed pages are overwritten (``secure_delete``) and the WAL is checkpointed, so
        purged text does not linger in the file.
        """
        with self._db.lock:
            with self._db.read() as conn:
                conn.execute("PRAGMA secure_delete = ON")
            with self._db.write() as conn:
                if before is None:
                    cur = conn.execute(
                        "DELETE FROM query_log WHERE tenant_id = ?", (self.tenant_id,)
                    )
                else:
                    cur = conn.execute(
                        "DELETE FROM query_log WHERE tenant_id = ? AND asked_at < ?",
                        (self.tenant_id, before.astimezone(UTC).isoformat()),
                    )
            with self._db.read() as conn:  # a checkpoint runs outside a transaction
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return cur.rowcount

    def close(self) -> None:
        """Close the connection (it reopens on next use)."""
        self._db.close()
