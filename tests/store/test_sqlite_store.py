"""The SQLite store: the shared contract, plus migrations, WAL and file handling."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from notecite.errors import StoreError
from notecite.store.sqlite import SQLiteStore
from notecite.store.sqlite.migrations import MIGRATIONS, migrate
from notecite.store.sqlite.vectors import folder_matches
from tests.store.contract import StoreContract, StoreFactory
from tests.store.ranking_contract import RankingContract
from tests.store.status_contract import IndexRunsContract, VectorGapsContract


class TestSQLiteStore(StoreContract, RankingContract, VectorGapsContract, IndexRunsContract):
    @pytest.fixture
    def store_factory(self, tmp_path: Path) -> StoreFactory:
        return lambda: SQLiteStore(tmp_path / "index" / "notecite.db")


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(db)
    try:
        return [tuple(r) for r in conn.execute(sql)]
    finally:
        conn.close()


def test_migrations_recorded_and_idempotent(tmp_path: Path) -> None:
    db = tmp_path / "deep" / "dir" / "n.db"
    store = SQLiteStore(db)
    store.list_vaults()
    store.close()
    versions = [v for v, _ in MIGRATIONS]
    assert versions == sorted(versions)
    assert [r[0] for r in _rows(db, "SELECT version FROM schema_migrations ORDER BY 1")] == versions
    applied = _rows(db, "SELECT applied_at FROM schema_migrations")
    reopened = SQLiteStore(db)
    reopened.list_vaults()
    reopened.close()
    assert _rows(db, "SELECT applied_at FROM schema_migrations") == applied
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        assert migrate(conn) == []
    finally:
        conn.close()


def test_fresh_database_gets_every_migration(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    try:
        assert migrate(conn) == [v for v, _ in MIGRATIONS]
    finally:
        conn.close()


def test_wal_mode_and_foreign_keys(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "n.db")
    try:
        assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    finally:
        store.close()
    assert _rows(tmp_path / "n.db", "PRAGMA journal_mode") == [("wal",)]


def test_constructor_does_no_io(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "never" / "n.db")
    assert not (tmp_path / "never").exists()


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    db = tmp_path / "n.db"
    db.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="Move the file away"):
        SQLiteStore(db).list_vaults()


def test_two_stores_on_one_file_see_each_others_writes(tmp_path: Path) -> None:
    a, b = SQLiteStore(tmp_path / "n.db"), SQLiteStore(tmp_path / "n.db")
    try:
        a.add_vault("v", tmp_path)
        assert [v.name for v in b.list_vaults()] == ["v"]
    finally:
        a.close()
        b.close()


@pytest.mark.parametrize(
    ("folder", "prefixes", "expected"),
    [
        ("projects", ("projects",), True),
        ("projects/work", ("projects",), True),
        ("projects/work", ("projects/",), True),
        ("projects", ("projects/",), True),
        ("projects-old", ("projects",), False),
        ("projectsx/work", ("projects",), False),
        ("", ("projects",), False),
        ("anything", ("",), True),
        ("a/b", ("x", "a"), True),
    ],
)
def test_folder_matches(folder: str, prefixes: tuple[str, ...], expected: bool) -> None:
    assert folder_matches(folder, prefixes) is expected
