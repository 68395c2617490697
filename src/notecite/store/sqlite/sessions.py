"""Chat sessions and messages in the index's SQLite file (tables of migration 2)."""

from __future__ import annotations

import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from pydantic import TypeAdapter

from notecite.chat.base import ChunkOrigin
from notecite.errors import StoreError
from notecite.schemas.ask import ErrorInfo
from notecite.schemas.chat import (
    ChatCitation,
    ChatMeta,
    ChatSession,
    NewMessage,
    SessionSettings,
    StoredMessage,
)
from notecite.store.sqlite.connection import open_index

_CITATIONS = TypeAdapter(list[ChatCitation])
_SESSION_COLUMNS = (
    "s.id, s.title, s.settings, s.created_at, s.updated_at, "
    "(SELECT COUNT(*) FROM chat_messages m WHERE m.session_id = s.id)"
)


def _now() -> str:
    return datetime.now(UTC).isoformat()


class SQLiteSessionStore:
    """The :class:`~notecite.chat.base.SessionStore` of the embedded SQLite index.

    It keeps its own connection to the index file (WAL lets it write while an index run
    holds the other one) and serialises its own use of it with a lock.
    """

    def __init__(self, path: Path, *, tenant_id: int = 1) -> None:
        self.path = path
        self.tenant_id = tenant_id
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection, opened (and the schema migrated) on first use."""
        with self._lock:
            if self._conn is None:
                self._conn = self._open()
            return self._conn

    def _open(self) -> sqlite3.Connection:
        return open_index(self.path, "the chat sessions")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self.conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def close(self) -> None:
        """Close the connection (it reopens on next use)."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- sessions ---------------------------------------------------------------------------

    def _row_to_session(self, row: Sequence[object]) -> ChatSession:
        return ChatSession(
            id=str(row[0]),
            title=str(row[1]),
            settings=SessionSettings.model_validate_json(str(row[2])),
            created_at=datetime.fromisoformat(str(row[3])),
            updated_at=datetime.fromisoformat(str(row[4])),
            message_count=int(str(row[5])),
        )

    def create_session(self, title: str, settings: SessionSettings) -> ChatSession:
        session_id, now = str(uuid.uuid4()), _now()
        with self._write() as conn:
            conn.execute(
                "INSERT INTO chat_sessions (id, tenant_id, title, settings, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                (session_id, self.tenant_id, title, settings.model_dump_json(), now, now),
            )
        created = self.get_session(session_id)
        assert created is not None
        return created

    def put_session(self, session: ChatSession) -> bool:
        """Insert ``session`` with its id and times unless it exists; True if inserted.

        This is how ``notecite store migrate`` copies sessions between stores.
        """
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO chat_sessions (id, tenant_id, title, settings, created_at, "
                "updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING",
                (
                    session.id,
                    self.tenant_id,
                    session.title,
                    session.settings.model_dump_json(),
                    session.created_at.isoformat(),
                    session.updated_at.isoformat(),
                ),
            )
        return cur.rowcount > 0

    def get_session(self, session_id: str) -> ChatSession | None:
        with self._lock:
            row = self.conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM chat_sessions s "
                "WHERE s.id = ? AND s.tenant_id = ?",
                (session_id, self.tenant_id),
            ).fetchone()
        return self._row_to_session(row) if row else None

    def list_sessions(self, limit: int = 100, offset: int = 0) -> list[ChatSession]:
        with self._lock:
            rows = self.conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM chat_sessions s WHERE s.tenant_id = ? "
                "ORDER BY s.updated_at DESC, s.id LIMIT ? OFFSET ?",
                (self.tenant_id, limit, offset),
            ).fetchall()
        return [self._row_to_session(r) for r in rows]

    def _update(self, session_id: str, column: str, value: str) -> ChatSession | None:
        with self._write() as conn:
            cur = conn.execute(
                f"UPDATE chat_sessions SET {column} = ?, updated_at = ? "
                "WHERE id = ? AND tenant_id = ?",
                (value, _now(), session_id, self.tenant_id),
            )
        return self.get_session(session_id) if cur.rowcount else None

    def rename_session(self, session_id: str, title: str) -> ChatSession | None:
        return self._update(session_id, "title", title)

    def update_settings(self, session_id: str, settings: SessionSettings) -> ChatSession | None:
        return self._update(session_id, "settings", settings.model_dump_json())

    def delete_session(self, session_id: str) -> bool:
        with self._write() as conn:
            cur = conn.execute(
                "DELETE FROM chat_sessions WHERE id = ? AND tenant_id = ?",
                (session_id, self.tenant_id),
            )
        return cur.rowcount > 0

    # -- messages ---------------------------------------------------------------------------

    def add_messages(self, session_id: str, messages: Sequence[NewMessage]) -> list[StoredMessage]:
        now = _now()
        with self._write() as conn:
            cur = conn.execute(
                "UPDATE chat_sessions SET updated_at = ? WHERE id = ? AND tenant_id = ?",
                (now, session_id, self.tenant_id),
            )
            if not cur.rowcount:
                raise StoreError(f"chat session {session_id} vanished while answering")
            ids = [self._insert(conn, session_id, m, now) for m in messages]
        return [
            StoredMessage(id=i, created_at=datetime.fromisoformat(now), **m.model_dump())
            for i, m in zip(ids, messages, strict=True)
        ]

    def put_messages(self, session_id: str, messages: Sequence[StoredMessage]) -> None:
        """Append ``messages`` with their own times (new ids); for ``store migrate``."""
        with self._write() as conn:
            owned = conn.execute(
                "SELECT 1 FROM chat_sessions WHERE id = ? AND tenant_id = ?",
                (session_id, self.tenant_id),
            ).fetchone()
            if owned is None:
                raise StoreError(f"no chat session {session_id} for this tenant")
            for message in messages:
                self._insert(conn, session_id, message, message.created_at.isoformat())

    def _insert(
        self,
        conn: sqlite3.Connection,
        session_id: str,
        message: NewMessage | StoredMessage,
        when: str,
    ) -> int:
        meta: dict[str, object] = {}
        if message.meta is not None:
            meta["meta"] = message.meta.model_dump(mode="json")
        if message.error is not None:
            meta["error"] = message.error.model_dump(mode="json")
        row = conn.execute(
            "INSERT INTO chat_messages (session_id, role, content, citations, meta, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
            (
                session_id,
                message.role,
                message.content,
                _CITATIONS.dump_json(message.citations).decode(),
                json.dumps(meta),
                when,
            ),
        ).fetchone()
        return int(row[0])

    def messages(self, session_id: str, last: int | None = None) -> list[StoredMessage]:
        sql = (
            "SELECT m.id, m.role, m.content, m.citations, m.meta, m.created_at "
            "FROM chat_messages m JOIN chat_sessions s ON s.id = m.session_id "
            "WHERE m.session_id = ? AND s.tenant_id = ? ORDER BY m.id DESC"
        )
        params: tuple[object, ...] = (session_id, self.tenant_id)
        if last is not None:
            sql += " LIMIT ?"
            params = (*params, max(0, last))
        with self._lock:
            rows = self.conn.execute(sql, params).fetchall()
        found = []
        for row in reversed(rows):
            extra = json.loads(row[4])
            found.append(
                StoredMessage(
                    id=row[0],
                    role=row[1],
                    content=row[2],
                    citations=_CITATIONS.validate_json(row[3]),
                    meta=ChatMeta.model_validate(extra["meta"]) if "meta" in extra else None,
                    error=ErrorInfo.model_validate(extra["error"]) if "error" in extra else None,
                    created_at=datetime.fromisoformat(row[5]),
                )
            )
        return found

    # -- citations --------------------------------------------------------------------------

    def chunk_origins(self, chunk_ids: Sequence[str]) -> dict[str, ChunkOrigin]:
        if not chunk_ids:
            return {}
        marks = ",".join("?" * len(chunk_ids))
        with self._lock:
            rows = self.conn.execute(
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
