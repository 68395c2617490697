"""The query log contract, run against the SQLite store's query log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from notecite.store.sqlite import SQLiteStore
from notecite.store.sqlite.query_log import SQLiteQueryLog
from tests.store.query_log_contract import Logs, QueryLogContract


class TestSQLiteQueryLog(QueryLogContract):
    @pytest.fixture
    def logs(self, tmp_path: Path) -> Iterator[Logs]:
        path = tmp_path / "notecite.db"
        store = SQLiteStore(path)
        other = store.tenant_id_of("other")
        store.close()
        mine, theirs = SQLiteQueryLog(path), SQLiteQueryLog(path, tenant_id=other)
        yield mine, theirs
        mine.close()
        theirs.close()
