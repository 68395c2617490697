"""The query log: questions and answers of ``ask`` kept as rows (never as log lines).

Turned off with ``ask.log_queries = false``; emptied with ``notecite log purge``. Each tenant
sees and purges only its own entries.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from notecite.schemas.ask import AskResponse
from notecite.store.sqlite.connection import open_index


@dataclass(frozen=True)
class QueryLogEntry:
    """One logged question and its answer."""

    id: int
    asked_at: datetime
    question: str
    answer: str
    abstained: bool
    references: tuple[str, ...]
    llm: str
    total_ms: float | None


class SQLiteQueryLog:
    """The ``query_log`` table of the index file, limited to one tenant."""

    def __init__(self, path: Path, *, tenant_id: int = 1) -> None:
        self.path = path
        self.tenant_id = tenant_id
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None

    @property
    def _db(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = open_index(self.path, "the query log")
        return self._conn

    def record(
        self, question: str, response: AskResponse, llm: str, total_ms: float | None = None
    ) -> None:
        """Append one question and its answer."""
        refs = [f"{r.vault}/{r.rel_path}" for r in response.references]
        with self._lock:
            self._db.execute(
                "INSERT INTO query_log (tenant_id, asked_at, question, answer, abstained, refs, "
                "llm, total_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    self.tenant_id,
                    datetime.now(UTC).isoformat(),
                    question,
                    response.answer,
                    int(response.abstained),
                    json.dumps(refs),
                    llm,
                    total_ms,
                ),
            )

    def entries(self, limit: int = 50) -> list[QueryLogEntry]:
        """The newest ``limit`` entries, newest first."""
        with self._lock:
            rows = self._db.execute(
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
        with self._lock:
            db = self._db
            db.execute("PRAGMA secure_delete = ON")
            if before is None:
                cur = db.execute("DELETE FROM query_log WHERE tenant_id = ?", (self.tenant_id,))
            else:
                cur = db.execute(
                    "DELETE FROM query_log WHERE tenant_id = ? AND asked_at < ?",
                    (self.tenant_id, before.astimezone(UTC).isoformat()),
                )
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            return cur.rowcount

    def close(self) -> None:
        """Close the connection (it reopens on next use)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
