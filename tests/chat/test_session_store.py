"""The session store contract on a real SQLite index file, and its migration."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from notecite import Engine
from notecite.store.sessions import SessionStore
from notecite.store.sqlite.sessions import SQLiteSessionStore
from tests.chat.conftest import MakeEngine
from tests.chat.session_contract import IndexedSessions, OpenSessions, SessionStoreContract
from tests.helpers import read_rows

SessionsOf = Callable[[Engine], SessionStore]


class TestSQLiteSessionStore(SessionStoreContract):
    @pytest.fixture
    def open_sessions(self, tmp_path: Path) -> Iterator[OpenSessions]:
        opened: list[SQLiteSessionStore] = []

        def open_store(tenant_id: int = 1) -> SQLiteSessionStore:
            store = SQLiteSessionStore(tmp_path / "index.db", tenant_id=tenant_id)
            store.conn.execute(
                "INSERT OR IGNORE INTO tenants (id, name) VALUES (?, ?)",
                (tenant_id, f"tenant{tenant_id}"),
            )
            opened.append(store)
            return store

        yield open_store
        for store in opened:
            store.close()

    @pytest.fixture
    def indexed_sessions(self, make_engine: MakeEngine, sessions_of: SessionsOf) -> IndexedSessions:
        engine = make_engine()
        (hit,) = engine.search("Apollo budget", k=1)
        return IndexedSessions(sessions_of(engine), hit.chunk_id)


def test_a_new_index_file_gets_the_chat_tables_by_migration(tmp_path: Path) -> None:
    store = SQLiteSessionStore(tmp_path / "index.db")
    try:
        store.create_session("first", {})
    finally:
        store.close()
    versions = read_rows(tmp_path / "index.db", "SELECT version FROM schema_migrations")
    assert {1, 2} <= {v[0] for v in versions}
    tables = {
        r[0]
        for r in read_rows(
            tmp_path / "index.db", "SELECT name FROM sqlite_master WHERE type='table'"
        )
    }
    assert {"chat_sessions", "chat_messages"} <= tables
