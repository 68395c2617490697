"""Frontmatter filters on the SQLite store, and the migration that indexes old notes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from notecite.filters import parse_filters
from notecite.store.sqlite import SQLiteStore
from notecite.types import SearchFilter
from tests.store.contract import StoreFactory
from tests.store.filter_contract import FrontmatterFilterContract


class TestSQLiteFilters(FrontmatterFilterContract):
    @pytest.fixture
    def store_factory(self, tmp_path: Path) -> StoreFactory:
        return lambda: SQLiteStore(tmp_path / "index" / "notecite.db")


def test_the_migration_indexes_notes_written_before_it(tmp_path: Path) -> None:
    db = tmp_path / "n.db"
    store = SQLiteStore(db)
    vault = store.add_vault("main", tmp_path)
    store.close()
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE note_fields")
    conn.execute("DELETE FROM schema_migrations WHERE version = 7")
    conn.execute(
        "INSERT INTO notes (vault_id, rel_path, folder, frontmatter, indexed_at) "
        "VALUES (?, 'a.md', '', ?, 'now')",
        (vault.id, json.dumps({"tags": ["atlas"], "status": "draft"})),
    )
    conn.execute(
        "INSERT INTO chunks (chunk_id, note_id, vault_id, chunk_index, heading_path, text, "
        "line_start, line_end, token_count, content_hash) "
        "VALUES ('c1', (SELECT id FROM notes), ?, 0, '', 'budget', 1, 1, 1, 'h')",
        (vault.id,),
    )
    conn.execute(
        "INSERT INTO chunks_fts (rowid, title, heading_path, text) VALUES (1, '', '', 'budget')"
    )
    conn.commit()
    conn.close()
    reopened = SQLiteStore(db)
    try:
        flt = SearchFilter(frontmatter=parse_filters(["tags=atlas status=draft"]))
        assert [h.chunk_rowid for h in reopened.lexical_search("budget", flt, 5)] == [1]
        none = SearchFilter(frontmatter=parse_filters(["tags=launch"]))
        assert reopened.lexical_search("budget", none, 5) == []
    finally:
        reopened.close()
