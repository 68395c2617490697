"""The PostgreSQL fixtures (pg_cluster, pg_database, pg_url) live in tests/postgres_server.py,
registered once for the whole session by tests/conftest.py."""

from tests.postgres_server import APP_ROLE, PgCluster

__all__ = ["APP_ROLE", "PgCluster"]
