"""Tenants in one SQLite file: engines bound to a tenant see and change only its rows."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from notecite import Engine
from notecite.errors import VaultError
from notecite.store.sqlite import SQLiteStore
from notecite.store.sqlite.migrations import MIGRATIONS, migrate
from notecite.testing import hash_settings, write_files
from notecite.types import SearchFilter
from tests.chat.notes import write_notes


def test_tenants_share_a_file_but_not_vaults_notes_or_chunks(tmp_path: Path) -> None:
    notes = write_notes(tmp_path / "notes")
    other = write_files(tmp_path / "other", {"zephyr.md": "# Zephyr\n\nThe Zephyr budget is 12.\n"})
    with Engine(hash_settings(tmp_path / "home")) as default:
        acme = default.for_tenant("acme")
        try:
            assert acme.embedder is default.embedder
            assert acme.llm() is default.llm()
            default.add_vault("notes", notes)
            acme.add_vault("notes", other)  # vault names are unique per tenant only
            default.index()
            acme.index()
            # the same files under the same vault name in a third tenant: same chunk ids
            copy = default.for_tenant("copy")
            copy.add_vault("notes", notes)
            copy.index()
            copy.close()

            assert [s.notes for s in default.status().vaults] == [3]
            assert [s.notes for s in acme.status().vaults] == [1]
            assert {r.rel_path for r in acme.search("Apollo budget euros")} == {"zephyr.md"}
            assert "zephyr.md" not in {r.rel_path for r in default.search("Zephyr budget")}

            mine = default.vault("notes")
            with pytest.raises(VaultError):
                acme.store.delete_notes(mine.id, ["projects/apollo.md"])
            assert acme.store.note_states(mine.id) == {}
            assert acme.store.folders(mine.id) == []
            theirs = [
                h.chunk_rowid for h in default.store.lexical_search("Apollo", SearchFilter(), 5)
            ]
            assert theirs
            assert acme.store.fetch_chunks(theirs) == {}
            assert acme.store.lexical_search("Apollo", SearchFilter(), 5) == []

            acme.index(rebuild=True)  # clears only acme's notes
            assert [s.notes for s in default.status().vaults] == [3]
            assert default.status().embedder_model == default.embedder.model_id
        finally:
            acme.close()
        assert default.search("Apollo budget")  # closing a tenant keeps the shared models


def test_tenant_ids_are_stable_by_name(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "index.db")
    try:
        acme = store.tenant_id_of("acme")
        assert store.tenant_id_of("default") == 1
        assert acme != 1
        assert store.tenant_id_of("acme") == acme
    finally:
        store.close()


def test_migration_4_keeps_chunks_of_an_older_index(tmp_path: Path) -> None:
    path = tmp_path / "index.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT)")
    for version, script in MIGRATIONS[:3]:
        conn.executescript(script)
        conn.execute("INSERT INTO schema_migrations VALUES (?, 'then')", (version,))
    conn.execute("INSERT INTO vaults (id, name, path, created_at) VALUES (1, 'v', '/v', 'then')")
    conn.execute(
        "INSERT INTO notes (id, vault_id, rel_path, folder, indexed_at) "
        "VALUES (1, 1, 'a.md', '', 'then')"
    )
    conn.execute("INSERT INTO chunks VALUES (7, 'c7', 1, 1, 0, 'A', 'alpha text', 1, 2, 2, 'h7')")
    conn.execute(
        "INSERT INTO chunks_fts (rowid, title, heading_path, text) "
        "VALUES (7, '', 'A', 'alpha text')"
    )
    assert migrate(conn) == [4, *[v for v, _ in MIGRATIONS[4:]]]
    conn.close()

    store = SQLiteStore(path)
    try:
        chunk = store.fetch_chunks([7])[7]
        assert (chunk.chunk_id, chunk.text, chunk.rel_path) == ("c7", "alpha text", "a.md")
        hits = store.lexical_search("alpha", SearchFilter(), 5)
        assert [h.chunk_rowid for h in hits] == [7]
    finally:
        store.close()
