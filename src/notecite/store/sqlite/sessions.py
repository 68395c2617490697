"""Chat sessions and messages in the index's SQLite file (tables of migration 2)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from notecite.errors import StoreError
from notecite.records import MessageRecord, NewMessageRecord, SessionRecord
from notecite.store.rows import (
    citations_from,
    citations_json,
    error_from,
    error_json,
    message_role,
    meta_from,
    meta_json,
)
from notecite.store.sessions import ChunkOrigin
from notecite.store.sqlite.connection import SQLiteConnection

_SESSION_COLUMNS = (
    "s.id, s.title, s.settings, s.created_at, s.updated_at, "
    "(SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = s.id)"
)


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def _session(row: Sequence[object]) -> SessionRecord:
    return SessionRecord(
        id=str(row[0]),
        title=str(row[1]),
        settings=json.loads(str(row[2])),
        created_at=datetime.fromisoformat(str(row[3])),
        updated_at=datetime.fromisoformat(str(row[4])),
        message_count=int(str(row[5])),
    )


def _message(row: Sequence[object]) -> MessageRecord:
    # the meta column holds {"meta": ..., "error": ...}, each only when there is one
    extra = json.loads(str(row[4]))
    return MessageRecord(
        id=int(str(row[0])),
        role=message_role(row[1]),
        content=str(row[2]),
        citations=citations_from(json.loads(str(row[3]))),
        meta=meta_from(extra["meta"]) if "meta" in extra else None,
        error=error_from(extra["error"]) if "error" in extra else None,
        created_at=datetime.fromisoformat(str(row[5])),
    )


class SQLiteSessionStore:
    """The :class:`~notecite.store.sessions.SessionStore` of the embedded SQLite index.

    It keeps its own connection to the index file (WAL lets it write while an index run
    holds the other one).
    """

    def __init__(self, path: Path, *, tenant_id: int = 1) -> None:
        self.path = path
        self.tenant_id = tenant_id
        self._db = SQLiteConnection(path, "the chat sessions")

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection, opened (and the schema migrated) on first use."""
        return self._db.conn

    def close(self) -> None:
        """Close the connection (it reopens on next use)."""
        self._db.close()

    # -- sessions ---------------------------------------------------------------------------

    def create_session(self, title: str, settings: dict[str, object]) -> SessionRecord:
        session_id, now = str(uuid.uuid4()), _now()
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO chat_sessions (id, tenant_id, title, settings, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, self.tenant_id, title, _json(settings), now, now),
            )
        created = self.get_session(session_id)
        assert created is not None
        return created

    def put_session(self, session: SessionRecord) -> bool:
        """Insert ``session`` with its id and times unless it exists; True if inserted.

        This is how ``notecite store migrate`` copies sessions between stores.
        """
        with self._db.write() as conn:
            cur = conn.execute(
                "INSERT INTO chat_sessions (id, tenant_id, title, settings, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                (
                    session.id,
                    self.tenant_id,
                    session.title,
                    _json(session.settings),
                    session.created_at.isoformat(),
                    session.updated_at.isoformat(),
                ),
            )
        return cur.rowcount > 0

    def get_session(self, session_id: str) -> SessionRecord | None:
        with self._db.read() as conn:
            row = conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM chat_sessions s "
                "WHERE s.id = ? AND s.tenant_id = ?",
                (session_id, self.tenant_id),
            ).fetchone()
        return _session(row) if row else None

    def list_sessions(self, limit: int = 100, offset: int = 0) -> list[SessionRecord]:
        with self._db.read() as conn:
            rows = conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM chat_sessions s WHERE s.tenant_id = ? "
                "ORDER BY s.updated_at DESC, s.id LIMIT ? OFFSET ?",
                (self.tenant_id, limit, offset),
            ).fetchall()
        return [_session(r) for r in rows]

    def _update(self, session_id: str, column: str, value: str) -> SessionRecord | None:
        with self._db.write() as conn:
            cur = conn.execute(
                f"UPDATE chat_sessions SET {column} = ?, updated_at = ? "
                "WHERE id = ? AND tenant_id = ?",
                (value, _now(), session_id, self.tenant_id),
            )
        return self.get_session(session_id) if cur.rowcount else None

    def rename_session(self, session_id: str, title: str) -> SessionRecord | None:
        return self._update(session_id, "title", title)

    def update_settings(self, session_id: str, settings: dict[str, object]) -> SessionRecord | None:
        return self._update(session_id, "settings", _json(settings))

    def delete_session(self, session_id: str) -> bool:
        with self._db.write() as conn:
            cur = conn.execute(
                "DELETE FROM chat_sessions WHERE id = ? AND tenant_id = ?",
                (session_id, self.tenant_id),
            )
        return cur.rowcount > 0

    # -- messages ---------------------------------------------------------------------------

    def add_messages(
        self, session_id: str, messages: Sequence[NewMessageRecord]
    ) -> list[MessageRecord]:
        now = _now()
        with self._db.write() as conn:
            cur = conn.execute(
                "UPDATE chat_sessions SET updated_at = ? WHERE id = ? AND tenant_id = ?",
                (now, session_id, self.tenant_id),
            )
            if not cur.rowcount:
                raise StoreError(f"chat session {session_id} vanished while answering")
            ids = [self._insert(conn, session_id, m, now) for m in messages]
        when = datetime.fromisoformat(now)
        return [m.stored(i, when) for i, m in zip(ids, messages, strict=True)]

    def put_messages(self, session_id: str, messages: Sequence[MessageRecord]) -> None:
        """Append ``messages`` with their own times (new ids); for ``store migrate``."""
        with self._db.write() as conn:
            owned = conn.execute(
                "SELECT 1 FROM chat_sessions WHERE id = ? AND tenant_id = ?",
                (session_id, self.tenant_id),
            ).fetchone()
            if owned is None:
                raise StoreError(f"no chat session {session_id} for this tenant")
            for message in messages:
                self._insert(conn, session_id, message, message.created_at.isoformat())

    def _insert(
        self, conn: sqlite3.Connection, session_id: str, message: NewMessageRecord, when: str
    ) -> int:
        extra: dict[str, object] = {}
        if message.meta is not None:
            extra["meta"] = meta_json(message.meta)
        if message.error is not None:
            extra["error"] = error_json(message.error)
        row = conn.execute(
            "INSERT INTO chat_messages (session_id, role, content, citations, meta, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (
                session_id,
                message.role,
                message.content,
                _json(citations_json(message.citations)),
                json.dumps(extra),
                when,
            ),
        ).fetchone()
        return int(row[0])

    def truncate_messages(self, session_id: str, message_id: int) -> bool:
        with self._db.write() as conn:
            owned = conn.execute(
                "SELECT 1 FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id "
                "WHERE m.id = ? AND m.session_id = ? AND s.tenant_id = ?",
                (message_id, session_id, self.tenant_id),
            ).fetchone()
            if owned is None:
                return False
            conn.execute(
                "DELETE FROM chat_messages WHERE session_id = ? AND id >= ?",
                (session_id, message_id),
            )
            conn.execute(
                "UPDATE chat_sessions SET updated_at = ? WHERE id = ?", (_now(), session_id)
            )
        return True

    def messages(self, session_id: str, last: int | None = None) -> list[MessageRecord]:
        sql = (
            "SELECT m.id, m.role, m.content, m.citations, m.meta, m.created_at "
            "FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id "
            "WHERE m.session_id = ? AND s.tenant_id = ? ORDER BY m.id DESC"
        )
        params: tuple[object, ...] = (session_id, self.tenant_id)
        if last is not None:
            sql += " LIMIT ?"
            params = (*params, max(0, last))
        with self._db.read() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [_message(r) for r in reversed(rows)]

    # -- citations --------------------------------------------------------------------------

    def chunk_origins(self, chunk_ids: Sequence[str]) -> dict[str, ChunkOrigin]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT c.chunk_id, v.name, n.rel_path, COALESCE(n.created, n.modified) "
                "FROM chunks c JOIN notes n ON n.id = c.note_id JOIN vaults v ON v.id = c.vault_id "
                f"WHERE c.chunk_id IN ({marks}) AND v.tenant_id = ?",
                (*chunk_ids, self.tenant_id),
            ).fetchall()
        return {
            r[0]: ChunkOrigin(
                note_id=f"{r[1]}/{r[2]}",
                created_at=datetime.fromisoformat(r[3]) if r[3] else None,
            )
            for r in rows
        }


__all__ = ["SQLiteSessionStore"]
