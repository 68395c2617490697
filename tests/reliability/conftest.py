"""The PostgreSQL fixtures of tests/store/postgres, for the tenant-isolation property test."""

from tests.store.postgres.conftest import pg_cluster

__all__ = ["pg_cluster"]
