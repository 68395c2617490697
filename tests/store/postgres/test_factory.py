"""store/factory.py on a real PostgreSQL: the store and session store it opens, per tenant."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite.errors import ConfigError
from notecite.records import NewMessageRecord, QueryLogRecord
from notecite.store.factory import open_query_log, open_session_store, open_store
from notecite.store.postgres.query_log import PostgresQueryLog
from notecite.store.postgres.sessions import PostgresSessionStore
from notecite.store.postgres.store import PostgresStore
from notecite.testing import hash_settings

pytestmark = pytest.mark.postgres


def test_the_postgres_backend_opens_the_tenants_store_and_sessions(
    pg_url: str, tmp_path: Path
) -> None:
    settings = hash_settings(
        tmp_path / "home", store={"backend": "postgres", "url": pg_url, "hnsw_ef_search": 64}
    )
    default = open_store(settings)
    acme = open_store(settings, tenant="acme")
    assert isinstance(default, PostgresStore)
    assert isinstance(acme, PostgresStore)
    assert default.ef_search == acme.ef_search == 64
    assert default.tenant_id == 1 != acme.tenant_id
    mine, theirs = open_session_store(settings, acme), open_session_store(settings, default)
    try:
        assert isinstance(mine, PostgresSessionStore)
        assert mine.tenant_id == acme.tenant_id
        session = mine.create_session("acme's", {"rag_top_k": 2})
        mine.add_messages(session.id, [NewMessageRecord(role="user", content="hello")])
        assert [m.content for m in mine.messages(session.id)] == ["hello"]
        assert theirs.get_session(session.id) is None
        acme.add_vault("notes", tmp_path / "notes")
        assert default.list_vaults() == []
        log, default_log = open_query_log(settings, acme), open_query_log(settings, default)
        assert isinstance(log, PostgresQueryLog)
        log.record(
            QueryLogRecord(question="q?", answer="a", abstained=False, references=(), llm="x")
        )
        assert [e.question for e in log.entries()] == ["q?"]
        assert default_log.entries() == []
    finally:
        for opened in (mine, theirs, default, acme, log, default_log):
            opened.close()
    assert not (tmp_path / "home" / "notecite.db").exists()


def test_a_store_of_another_backend_is_refused(pg_url: str, tmp_path: Path) -> None:
    postgres = PostgresStore(pg_url)
    sqlite_settings = hash_settings(tmp_path / "home")
    try:
        with pytest.raises(ConfigError, match="index store is PostgresStore"):
            open_session_store(sqlite_settings, postgres)
        with pytest.raises(ConfigError, match="index store is PostgresStore"):
            open_query_log(sqlite_settings, postgres)
    finally:
        postgres.close()
