"""The SQLite session store on a real index file: CRUD, order, cascade, tenants, migration."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from notecite import Engine
from notecite.chat import ChatCitation, ChatMeta, SessionSettings, SessionStore
from notecite.chat.types import NewMessage
from notecite.store.sqlite.sessions import SQLiteSessionStore
from tests.chat.conftest import MakeEngine
from tests.helpers import read_rows

SessionsOf = Callable[[Engine], SessionStore]


def test_a_new_index_file_gets_the_chat_tables_by_migration(tmp_path: Path) -> None:
    store = SQLiteSessionStore(tmp_path / "index.db")
    try:
        store.create_session("first", SessionSettings())
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


def test_sessions_are_created_read_renamed_configured_and_deleted(tmp_path: Path) -> None:
    store = SQLiteSessionStore(tmp_path / "index.db")
    try:
        created = store.create_session("Apollo", SessionSettings(rag_top_k=3))
        assert len(created.id) == 36
        assert created.message_count == 0
        assert store.get_session(created.id) == created

        renamed = store.rename_session(created.id, "Apollo launch")
        assert renamed is not None
        assert renamed.title == "Apollo launch"
        assert renamed.updated_at >= created.updated_at

        changed = store.update_settings(created.id, SessionSettings(enable_rag=False))
        assert changed is not None
        assert changed.settings.enable_rag is False

        assert store.delete_session(created.id) is True
        assert store.get_session(created.id) is None
        assert store.delete_session(created.id) is False
        assert store.rename_session(created.id, "x") is None
        assert store.update_settings(created.id, SessionSettings()) is None
    finally:
        store.close()


def test_messages_keep_order_citations_meta_and_are_deleted_with_the_session(
    tmp_path: Path,
) -> None:
    db = tmp_path / "index.db"
    store = SQLiteSessionStore(db)
    try:
        session = store.create_session("s", SessionSettings())
        citation = ChatCitation(
            cid="N1", note_id="v/a.md", chunk_id="c1", snippet="text", score=0.5
        )
        store.add_messages(
            session.id,
            [
                NewMessage(role="user", content="q1"),
                NewMessage(
                    role="assistant",
                    content="a1 [N1]",
                    citations=[citation],
                    meta=ChatMeta(model="m"),
                ),
            ],
        )
        store.add_messages(session.id, [NewMessage(role="user", content="q2")])

        messages = store.messages(session.id)
        assert [m.content for m in messages] == ["q1", "a1 [N1]", "q2"]
        assert messages[1].citations == [citation]
        assert messages[1].meta == ChatMeta(model="m")
        assert [m.content for m in store.messages(session.id, last=2)] == ["a1 [N1]", "q2"]
        fetched = store.get_session(session.id)
        assert fetched is not None
        assert fetched.message_count == 3

        store.delete_session(session.id)
        assert read_rows(db, "SELECT COUNT(*) FROM chat_messages") == [(0,)]
    finally:
        store.close()


def test_sessions_are_listed_most_recently_active_first(tmp_path: Path) -> None:
    store = SQLiteSessionStore(tmp_path / "index.db")
    try:
        first = store.create_session("first", SessionSettings())
        second = store.create_session("second", SessionSettings())
        store.add_messages(first.id, [NewMessage(role="user", content="hello")])
        assert [s.title for s in store.list_sessions()] == ["first", "second"]
        assert [s.title for s in store.list_sessions(limit=1, offset=1)] == ["second"]
        assert second.id in {s.id for s in store.list_sessions()}
    finally:
        store.close()


def test_another_tenant_sees_no_session_of_the_first(tmp_path: Path) -> None:
    db = tmp_path / "index.db"
    mine = SQLiteSessionStore(db)
    try:
        session = mine.create_session("private", SessionSettings())
        mine.conn.execute("INSERT INTO tenants (id, name) VALUES (2, 'other')")
        theirs = SQLiteSessionStore(db, tenant_id=2)
        try:
            assert theirs.get_session(session.id) is None
            assert theirs.list_sessions() == []
            assert theirs.messages(session.id) == []
            assert theirs.rename_session(session.id, "mine now") is None
            assert theirs.delete_session(session.id) is False
        finally:
            theirs.close()
        assert mine.get_session(session.id) is not None
    finally:
        mine.close()


def test_chunk_origins_name_the_note_and_its_creation_date(
    make_engine: MakeEngine, sessions_of: SessionsOf
) -> None:
    engine = make_engine()
    hits = engine.search("Apollo budget", k=1)
    store = sessions_of(engine)
    origins = store.chunk_origins([hits[0].chunk_id, "no-such-chunk"])
    assert list(origins) == [hits[0].chunk_id]
    origin = origins[hits[0].chunk_id]
    assert origin.note_id == "notes/projects/apollo.md"
    assert origin.created_at is not None
    assert origin.created_at.date().isoformat() == "2025-01-10"
