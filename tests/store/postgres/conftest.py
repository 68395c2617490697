"""The PostgreSQL fixtures (pg_cluster, pg_database, pg_url) live in tests/postgres_server.py,
registered once for the whole session by tests/conftest.py; ``store`` is the default
tenant's store of a fresh database."""

from collections.abc import Iterator

import pytest

from notecite.store.postgres.store import PostgresStore
from tests.postgres_server import APP_ROLE, PgCluster

__all__ = ["APP_ROLE", "PgCluster"]


@pytest.fixture
def store(pg_url: str) -> Iterator[PostgresStore]:
    """The default tenant's store of a fresh database."""
    opened = PostgresStore(pg_url)
    yield opened
    opened.close()
