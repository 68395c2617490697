"""Links on the SQLite store (the shared contract), and the migration that adds their table."""

from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest

from notecite.store.migrate import Location, migrate_index
from notecite.store.sqlite import SQLiteStore
from notecite.types import NoteLink, SearchFilter
from tests.store.contract import StoreFactory, make_chunk, make_record
from tests.store.links_contract import LinksContract


class TestSQLiteLinks(LinksContract):
    @pytest.fixture
    def store_factory(self, tmp_path: Path) -> StoreFactory:
        return lambda: SQLiteStore(tmp_path / "index" / "notecite.db")


def test_an_index_from_before_links_gains_their_table(tmp_path: Path) -> None:
    db = tmp_path / "n.db"
    store = SQLiteStore(db)
    vault = store.add_vault("main", tmp_path)
    store.replace_note(make_record(vault, "a.md"), [make_chunk("a.md", 0, "text")])
    store.close()
    conn = sqlite3.connect(db)
    conn.execute("DROP TABLE note_links")
    conn.execute("DELETE FROM schema_migrations WHERE version = 9")
    conn.commit()
    conn.close()

    store = SQLiteStore(db)
    try:
        flt = SearchFilter(vault_ids=(vault.id,))
        assert store.linking_notes(["b"], flt, 5) == []  # the old note has none recorded
        linked = dataclasses.replace(make_record(vault, "a.md"), links=(NoteLink("b", 1, "see b"),))
        store.replace_note(linked, [make_chunk("a.md", 0, "text")])
        assert [line.line for line in store.linking_notes(["b"], flt, 5)] == [1]
    finally:
        store.close()


def test_store_migrate_copies_the_links(tmp_path: Path) -> None:
    source = SQLiteStore(tmp_path / "a.db")
    vault = source.add_vault("main", tmp_path)
    linked = dataclasses.replace(
        make_record(vault, "a.md"), links=(NoteLink("b", 1, "see b"), NoteLink("c", 1, "c"))
    )
    source.replace_note(linked, [make_chunk("a.md", 0, "see b")])
    source.close()
    (report,) = migrate_index(Location(path=tmp_path / "a.db"), Location(path=tmp_path / "b.db"))
    assert report.mismatches() == []
    copy = SQLiteStore(tmp_path / "b.db")
    try:
        lines = copy.linking_notes(["b", "c"], SearchFilter(), 5)
        assert [(line.target, line.line, line.line_text) for line in lines] == [
            ("b", 1, "see b"),
            ("c", 1, "c"),
        ]
    finally:
        copy.close()
