"""Chat sessions and messages in PostgreSQL (tables of migration 2, row-level security)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from psycopg.types.json import Jsonb

from notecite.errors import StoreError
from notecite.records import MessageRecord, NewMessageRecord, SessionRecord
from notecite.store.postgres.connection import Connection, TenantConnections, describe_url
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

_SESSION_COLUMNS = (
    "s.id, s.title, s.settings, s.created_at, s.updated_at, "
    "(SELECT count(*) FROM chat_messages m "
    "WHERE m.tenant_id = s.tenant_id AND m.session_id = s.id)"
)
_MESSAGE_COLUMNS = "m.id, m.role, m.content, m.citations, m.meta, m.error, m.created_at"


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


def _session(row: Sequence[Any]) -> SessionRecord:
    return SessionRecord(
        id=row[0],
        title=row[1],
        settings=row[2],
        created_at=_utc(row[3]),
        updated_at=_utc(row[4]),
        message_count=int(row[5]),
    )


def _message(row: Sequence[Any]) -> MessageRecord:
    return MessageRecord(
        id=int(row[0]),
        role=message_role(row[1]),
        content=row[2],
        citations=citations_from(row[3]),
        meta=meta_from(row[4]) if row[4] is not None else None,
        error=error_from(row[5]) if row[5] is not None else None,
        created_at=_utc(row[6]),
    )


def _clean(text: str) -> str:
    # PostgreSQL text cannot hold NUL characters
    return text.replace("\x00", "\ufffd")


class PostgresSessionStore:
    """The :class:`~notecite.store.sessions.SessionStore` of the PostgreSQL store.

    It has its own small connection pool; every transaction sets the tenant that row-level
    security checks, and every query names it too.

    Args:
        url: a libpq connection string or ``postgresql://`` URL.
        tenant_id: the tenant whose sessions this store reads and writes.
        pool_size: the most connections the pool opens.
    """

    def __init__(self, url: str, *, tenant_id: int = 1, pool_size: int = 4) -> None:
        self.tenant_id = tenant_id
        self._connections = TenantConnections(url, tenant_id, pool_size)
        self._tx = self._connections.transaction

    def __repr__(self) -> str:
        url = describe_url(self._connections.url)
        return f"PostgresSessionStore({url!r}, tenant_id={self.tenant_id})"

    def close(self) -> None:
        """Close the pool (it reopens on next use)."""
        self._connections.close()

    # -- sessions ---------------------------------------------------------------------------

    def _get(self, conn: Connection, session_id: str) -> SessionRecord | None:
        row = conn.execute(
            f"SELECT {_SESSION_COLUMNS} FROM chat_sessions s WHERE s.tenant_id = %s AND s.id = %s",
            (self.tenant_id, session_id),
        ).fetchone()
        return _session(row) if row else None

    def create_session(self, title: str, settings: dict[str, object]) -> SessionRecord:
        now = datetime.now(UTC)
        session = SessionRecord(
            id=str(uuid.uuid4()), title=title, settings=settings, created_at=now, updated_at=now
        )
        self.put_session(session)
        return session

    def put_session(self, session: SessionRecord) -> bool:
        """Insert ``session`` with its id and times unless it exists; True if inserted.

        This is how ``notecite store migrate`` copies sessions between stores.
        """
        with self._tx() as conn:
            row = conn.execute(
                "INSERT INTO chat_sessions (tenant_id, id, title, settings, created_at, "
                "updated_at) VALUES (%s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (tenant_id, id) DO NOTHING RETURNING id",
                (
                    self.tenant_id,
                    session.id,
                    _clean(session.title),
                    Jsonb(session.settings),
                    session.created_at,
                    session.updated_at,
                ),
            ).fetchone()
        return row is not None

    def get_session(self, session_id: str) -> SessionRecord | None:
        with self._tx() as conn:
            return self._get(conn, session_id)

    def list_sessions(self, limit: int = 100, offset: int = 0) -> list[SessionRecord]:
        with self._tx() as conn:
            rows = conn.execute(
                f"SELECT {_SESSION_COLUMNS} FROM chat_sessions s WHERE s.tenant_id = %s "
                "ORDER BY s.updated_at DESC, s.id LIMIT %s OFFSET %s",
                (self.tenant_id, max(0, limit), max(0, offset)),
            ).fetchall()
        return [_session(r) for r in rows]

    def rename_session(self, session_id: str, title: str) -> SessionRecord | None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE chat_sessions SET title = %s, updated_at = %s "
                "WHERE tenant_id = %s AND id = %s",
                (_clean(title), datetime.now(UTC), self.tenant_id, session_id),
            )
            return self._get(conn, session_id)

    def update_settings(self, session_id: str, settings: dict[str, object]) -> SessionRecord | None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE chat_sessions SET settings = %s, updated_at = %s "
                "WHERE tenant_id = %s AND id = %s",
                (Jsonb(settings), datetime.now(UTC), self.tenant_id, session_id),
            )
            return self._get(conn, session_id)

    def delete_session(self, session_id: str) -> bool:
        with self._tx() as conn:
            row = conn.execute(
                "DELETE FROM chat_sessions WHERE tenant_id = %s AND id = %s RETURNING id",
                (self.tenant_id, session_id),
            ).fetchone()
        return row is not None

    # -- messages ---------------------------------------------------------------------------

    def add_messages(
        self, session_id: str, messages: Sequence[NewMessageRecord]
    ) -> list[MessageRecord]:
        now = datetime.now(UTC)
        with self._tx() as conn:
            # the row lock also keeps two writers of one session from interleaving messages
            touched = conn.execute(
                "UPDATE chat_sessions SET updated_at = %s WHERE tenant_id = %s AND id = %s "
                "RETURNING id",
                (now, self.tenant_id, session_id),
            ).fetchone()
            if touched is None:
                raise StoreError(f"chat session {session_id} vanished while answering")
            return [self._insert(conn, session_id, m, now) for m in messages]

    def put_messages(self, session_id: str, messages: Sequence[MessageRecord]) -> None:
        """Append ``messages`` with their own times (new ids); for ``store migrate``."""
        with self._tx() as conn:
            for message in messages:
                self._insert(conn, session_id, message, message.created_at)

    def _insert(
        self, conn: Connection, session_id: str, message: NewMessageRecord, when: datetime
    ) -> MessageRecord:
        row = conn.execute(
            "INSERT INTO chat_messages (tenant_id, session_id, role, content, citations, meta, "
            "error, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (
                self.tenant_id,
                session_id,
                message.role,
                _clean(message.content),
                Jsonb(citations_json(message.citations)),
                Jsonb(meta_json(message.meta)) if message.meta else None,
                Jsonb(error_json(message.error)) if message.error else None,
                when,
            ),
        ).fetchone()
        assert row is not None  # INSERT ... RETURNING always returns the row
        return message.stored(int(row[0]), when)

    def truncate_messages(self, session_id: str, message_id: int) -> bool:
        with self._tx() as conn:
            # the session's row lock keeps an answer being stored from interleaving
            touched = conn.execute(
                "UPDATE chat_sessions SET updated_at = %s WHERE tenant_id = %s AND id = %s "
                "AND EXISTS (SELECT 1 FROM chat_messages m WHERE m.tenant_id = %s "
                "AND m.session_id = %s AND m.id = %s) RETURNING id",
                (
                    datetime.now(UTC),
                    self.tenant_id,
                    session_id,
                    self.tenant_id,
                    session_id,
                    message_id,
                ),
            ).fetchone()
            if touched is None:
                return False
            conn.execute(
                "DELETE FROM chat_messages WHERE tenant_id = %s AND session_id = %s AND id >= %s",
                (self.tenant_id, session_id, message_id),
            )
        return True

    def messages(self, session_id: str, last: int | None = None) -> list[MessageRecord]:
        sql = (
            f"SELECT {_MESSAGE_COLUMNS} FROM chat_messages m "
            "WHERE m.tenant_id = %s AND m.session_id = %s ORDER BY m.id DESC"
        )
        params: tuple[object, ...] = (self.tenant_id, session_id)
        if last is not None:
            sql += " LIMIT %s"
            params = (*params, max(0, last))
        with self._tx() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [_message(r) for r in reversed(rows)]

    # -- citations --------------------------------------------------------------------------

    def chunk_origins(self, chunk_ids: Sequence[str]) -> dict[str, ChunkOrigin]:
        if not chunk_ids:
            return {}
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT c.chunk_id, v.name, n.rel_path, coalesce(n.created, n.modified) "
                "FROM chunks c "
                "JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id "
                "JOIN vaults v ON v.tenant_id = c.tenant_id AND v.id = c.vault_id "
                "WHERE c.tenant_id = %s AND c.chunk_id = ANY(%s)",
                (self.tenant_id, list(chunk_ids)),
            ).fetchall()
        return {
            r[0]: ChunkOrigin(note_id=f"{r[1]}/{r[2]}", created_at=_utc(r[3]) if r[3] else None)
            for r in rows
        }


__all__ = ["PostgresSessionStore"]
