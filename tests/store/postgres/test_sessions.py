"""The session store contract on PostgreSQL; chat through the engine; RLS on chat tables."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from notecite import Engine
from notecite.chat import ChatRequest
from notecite.records import NewMessageRecord
from notecite.store.postgres.sessions import PostgresSessionStore
from notecite.testing import hash_settings
from tests.chat.notes import index_notes
from tests.chat.session_contract import IndexedSessions, OpenSessions, SessionStoreContract

pytestmark = pytest.mark.postgres


class TestPostgresSessionStore(SessionStoreContract):
    @pytest.fixture
    def open_sessions(self, pg_url: str) -> Iterator[OpenSessions]:
        opened: list[PostgresSessionStore] = []

        def open_store(tenant_id: int = 1) -> PostgresSessionStore:
            store = PostgresSessionStore(pg_url, tenant_id=tenant_id)
            opened.append(store)
            return store

        yield open_store
        for store in opened:
            store.close()

    @pytest.fixture
    def indexed_sessions(self, pg_url: str, tmp_path: Path) -> Iterator[IndexedSessions]:
        settings = hash_settings(tmp_path / "home", store={"backend": "postgres", "url": pg_url})
        with Engine(settings) as engine:
            index_notes(engine, tmp_path / "notes")
            (hit,) = engine.search("Apollo budget", k=1)
            sessions = engine.open_sessions()
            assert isinstance(sessions, PostgresSessionStore)
            try:
                yield IndexedSessions(sessions, hit.chunk_id)
            finally:
                sessions.close()


def test_the_engine_chats_with_sessions_kept_in_postgres(pg_url: str, tmp_path: Path) -> None:
    settings = hash_settings(tmp_path / "home", store={"backend": "postgres", "url": pg_url})
    with Engine(settings) as engine:
        index_notes(engine, tmp_path / "notes")
        first = engine.chat(ChatRequest(message="What is the Apollo budget?"))
        engine.chat(ChatRequest(message="And who approved it?", session_id=first.session_id))
        sessions = engine.open_sessions()
        try:
            assert isinstance(sessions, PostgresSessionStore)
            (session,) = sessions.list_sessions()
            assert session.id == first.session_id
            assert session.message_count == 4
            roles = [m.role for m in sessions.messages(session.id)]
            assert roles == ["user", "assistant", "user", "assistant"]
            assert any(c.note_id == "notes/projects/apollo.md" for c in first.citations)
        finally:
            sessions.close()
    assert not (tmp_path / "home" / "notecite.db").exists()


def test_raw_sql_sees_only_the_chat_rows_of_the_tenant_it_sets(pg_url: str) -> None:
    stores = [PostgresSessionStore(pg_url, tenant_id=t) for t in (1, 2)]
    try:
        for store in stores:
            session = store.create_session(f"tenant {store.tenant_id}", {})
            message = NewMessageRecord(role="user", content=f"t{store.tenant_id}")
            store.add_messages(session.id, [message])
    finally:
        for store in stores:
            store.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM chat_messages").fetchone() == (0,)
        with conn.transaction():
            conn.execute("SELECT set_config('notecite.tenant_id', '2', true)")
            assert conn.execute("SELECT title FROM chat_sessions").fetchall() == [("tenant 2",)]
            assert conn.execute("SELECT content FROM chat_messages").fetchall() == [("t2",)]
        conn.execute("SET notecite.tenant_id = '2'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute(
                "INSERT INTO chat_sessions (tenant_id, id, title, created_at, updated_at) "
                "VALUES (1, 'x', 'x', now(), now())"
            )
