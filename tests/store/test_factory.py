"""store/factory.py on a real SQLite file: the store, session store and query log it opens."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite.errors import ConfigError
from notecite.records import NewMessageRecord, QueryLogRecord
from notecite.store.factory import open_query_log, open_session_store, open_store
from notecite.store.sqlite import SQLiteStore
from notecite.testing import hash_settings
from tests.helpers import read_rows

ENTRY = QueryLogRecord(
    question="Where is the launch?",
    answer="At the cape [1].",
    abstained=False,
    references=("notes/a.md",),
    llm="extractive",
    total_ms=12.5,
)


def test_the_sqlite_backend_opens_everything_in_one_file(tmp_path: Path) -> None:
    settings = hash_settings(tmp_path / "home", store={"path": tmp_path / "data" / "n.db"})
    store = open_store(settings)
    assert isinstance(store, SQLiteStore)
    assert (store.path, store.tenant_id) == (tmp_path / "data" / "n.db", 1)
    assert not store.path.exists()  # nothing opens before first use
    sessions = open_session_store(settings, store)
    log = open_query_log(settings, store)
    try:
        store.add_vault("notes", tmp_path / "notes")
        session = sessions.create_session("first", {"rag_top_k": 3})
        sessions.add_messages(session.id, [NewMessageRecord(role="user", content="hello")])
        log.record(ENTRY)
        (entry,) = log.entries()
        assert (entry.question, entry.references, entry.total_ms) == (
            ENTRY.question,
            ENTRY.references,
            ENTRY.total_ms,
        )
    finally:
        for opened in (log, sessions, store):
            opened.close()
    db = tmp_path / "data" / "n.db"
    assert read_rows(db, "SELECT name FROM vaults") == [("notes",)]
    assert read_rows(db, "SELECT tenant_id, title FROM chat_sessions") == [(1, "first")]
    assert read_rows(db, "SELECT tenant_id, question FROM query_log") == [(1, ENTRY.question)]


def test_a_named_tenant_gets_its_own_rows_of_the_same_file(tmp_path: Path) -> None:
    settings = hash_settings(tmp_path / "home")
    default = open_store(settings)
    acme = open_store(settings, tenant="acme")
    again = open_store(settings, tenant="acme")
    assert isinstance(acme, SQLiteStore)
    assert acme.path == default.path == settings.db_path
    assert acme.tenant_id == again.tenant_id != default.tenant_id == 1
    mine = open_session_store(settings, acme)
    log = open_query_log(settings, acme)
    theirs = open_session_store(settings, default)
    try:
        mine.create_session("acme's", {})
        log.record(ENTRY)
        assert [s.title for s in mine.list_sessions()] == ["acme's"]
        assert theirs.list_sessions() == []
        assert read_rows(settings.db_path, "SELECT tenant_id FROM query_log") == [(acme.tenant_id,)]
    finally:
        for opened in (mine, log, theirs, default, acme, again):
            opened.close()


def test_the_postgres_backend_needs_a_url_and_its_own_store(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"needs store\.url"):
        open_store(hash_settings(tmp_path / "home", store={"backend": "postgres"}))
    postgres = hash_settings(
        tmp_path / "home", store={"backend": "postgres", "url": "postgresql://u@127.0.0.1:9/x"}
    )
    sqlite = SQLiteStore(tmp_path / "n.db")
    try:
        with pytest.raises(ConfigError, match="index store is SQLiteStore"):
            open_query_log(postgres, sqlite)
    finally:
        sqlite.close()
