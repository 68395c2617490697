"""The one SQLite connection holder: lazy open, write transactions, errors as StoreError."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from notecite.errors import StoreError, VaultError
from notecite.store.sqlite.connection import SQLiteConnection
from notecite.store.sqlite.query_log import SQLiteQueryLog
from notecite.store.sqlite.sessions import SQLiteSessionStore
from notecite.templates.sqlite_store import SQLiteTemplateStore
from tests.helpers import read_rows


def test_nothing_opens_until_first_use_and_close_reopens(tmp_path: Path) -> None:
    db = SQLiteConnection(tmp_path / "deep" / "index.db", "the index")
    assert not (tmp_path / "deep").exists()
    with db.read() as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()
    db.close()  # idempotent
    with db.write() as conn:
        conn.execute("INSERT INTO tenants (name) VALUES ('acme')")
    assert ("acme",) in read_rows(tmp_path / "deep" / "index.db", "SELECT name FROM tenants")
    db.close()


def _insert(db: SQLiteConnection, *names: str, then: Exception | None = None) -> None:
    """Insert tenants called ``names`` in one write, then raise ``then`` if given."""
    with db.write() as conn:
        assert conn.in_transaction
        for name in names:
            conn.execute("INSERT INTO tenants (name) VALUES (?)", (name,))
        if then is not None:
            raise then


def test_a_write_commits_at_the_end_and_rolls_back_on_any_error(tmp_path: Path) -> None:
    db = SQLiteConnection(tmp_path / "index.db", "the index")
    try:
        _insert(db, "kept")
        with pytest.raises(VaultError, match="not ours"):  # not a database error: as it is
            _insert(db, "dropped", then=VaultError("not ours"))
        with pytest.raises(StoreError, match=r"cannot write the index in .*UNIQUE") as caught:
            _insert(db, "also dropped", "kept")
        assert isinstance(caught.value.__cause__, sqlite3.IntegrityError)
        with db.read() as conn:
            assert not conn.in_transaction
            names = {r[0] for r in conn.execute("SELECT name FROM tenants")}
        assert "kept" in names
        assert not names & {"dropped", "also dropped"}
    finally:
        db.close()


def _read_missing_table(db: SQLiteConnection) -> None:
    with db.read() as conn:
        conn.execute("SELECT * FROM no_such_table")


def test_a_failed_read_is_a_store_error_naming_what_was_read(tmp_path: Path) -> None:
    db = SQLiteConnection(tmp_path / "index.db", "the chat sessions")
    try:
        with pytest.raises(StoreError, match="cannot read the chat sessions in") as caught:
            _read_missing_table(db)
        assert isinstance(caught.value.__cause__, sqlite3.OperationalError)
    finally:
        db.close()


def test_threads_take_turns_on_one_connection(tmp_path: Path) -> None:
    db = SQLiteConnection(tmp_path / "index.db", "the index")
    errors: list[BaseException] = []

    def write(number: int) -> None:
        try:
            for turn in range(20):
                with db.write() as conn:
                    conn.execute("INSERT INTO tenants (name) VALUES (?)", (f"t{number}-{turn}",))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert not errors, errors
        with db.read() as conn:
            count = conn.execute("SELECT count(*) FROM tenants WHERE name LIKE 't%-%'").fetchone()
        assert count == (80,)
    finally:
        db.close()


def test_every_sqlite_store_reports_a_broken_table_as_a_store_error(tmp_path: Path) -> None:
    """The chat sessions, the query log and the templates all go through the one holder."""
    path = tmp_path / "index.db"
    sessions, log, templates = (
        SQLiteSessionStore(path),
        SQLiteQueryLog(path),
        SQLiteTemplateStore(path),
    )
    try:
        sessions.create_session("first", {})
        raw = sqlite3.connect(path, isolation_level=None)
        try:
            for table in ("chat_messages", "query_log", "templates"):
                raw.execute(f"DROP TABLE {table}")
        finally:
            raw.close()
        with pytest.raises(StoreError, match="the chat sessions"):
            sessions.messages("any")
        with pytest.raises(StoreError, match="the query log"):
            log.entries()
        with pytest.raises(StoreError, match="the templates"):
            templates.count()
    finally:
        for store in (sessions, log, templates):
            store.close()
