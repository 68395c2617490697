"""The PostgreSQL fixtures of tests/store/postgres, for the PostgreSQL reliability tests."""

from tests.store.postgres.conftest import pg_cluster, pg_database, pg_url

__all__ = ["pg_cluster", "pg_database", "pg_url"]
