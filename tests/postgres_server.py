"""A real PostgreSQL 16 + pgvector server from ``pgserver``, one per test session.

The fixtures are registered once, by tests/conftest.py, so that every folder of tests
(store, API, reliability) shares the one server.

The server runs on a temporary data directory and is stopped (and the directory removed)
at the end. As root, pgserver runs ``initdb`` and ``postgres`` as a system user named
``pgserver``, which it creates with ``useradd``, and it makes the data directory's and the
bundled binaries' parent folders traversable by that user.

The stores connect as ``notecite_app``, an ordinary role (no superuser, no BYPASSRLS), so
row-level security applies to them; each test gets a fresh database that role owns. These
tests never skip: a server that does not start fails them.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
import warnings
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

APP_ROLE = "notecite_app"


@dataclass(frozen=True)
class PgCluster:
    """The running server: a superuser URL and URLs for the application role."""

    postmaster: Any  # pgserver's PostmasterInfo

    @property
    def admin_url(self) -> str:
        return str(self.postmaster.get_uri())

    def url(self, database: str, user: str = APP_ROLE) -> str:
        return str(self.postmaster.get_uri(user=user, database=database))

    def create_database(self) -> str:
        """A fresh, empty database owned by the application role; returns its name."""
        name = f"t_{uuid.uuid4().hex[:12]}"
        # FILE_COPY: with fsync off, copying the template's files beats writing them to the WAL
        self.admin(f"CREATE DATABASE {name} OWNER {APP_ROLE} STRATEGY FILE_COPY")
        return name

    def drop_database(self, name: str) -> None:
        self.admin(f"DROP DATABASE {name} WITH (FORCE)")

    def admin(self, *statements: str, database: str = "postgres") -> None:
        """Run statements as the superuser, outside any transaction."""
        import psycopg  # the postgres extra; imported here so that other tests need not it

        with psycopg.connect(self.url(database, "postgres"), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement.encode())


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PgCluster]:
    """A PostgreSQL server for the whole session, stopped and deleted at the end."""
    with warnings.catch_warnings():
        # platformdirs warns at import time when XDG_RUNTIME_DIR is unset (as in CI)
        warnings.simplefilter("ignore")
        import pgserver

    base = Path(tempfile.mkdtemp(prefix="notecite-pg-"))
    try:
        server = pgserver.get_server(base / "data", cleanup_mode="delete")
    except Exception as exc:
        shutil.rmtree(base, ignore_errors=True)
        raise RuntimeError(
            f"pgserver could not start PostgreSQL in {base}; the PostgreSQL tests need it "
            "(pip install 'notecite[postgres]'); see its log above"
        ) from exc
    cluster = PgCluster(server.get_postmaster_info())
    try:
        cluster.admin(
            f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS",
            # a throwaway server: durability only costs time (CREATE DATABASE syncs files)
            "ALTER SYSTEM SET fsync = off",
            "ALTER SYSTEM SET synchronous_commit = off",
            "ALTER SYSTEM SET full_page_writes = off",
            "SELECT pg_reload_conf()",
        )
        # every database created from template1 has pgvector (creating it needs a superuser)
        cluster.admin("CREATE EXTENSION IF NOT EXISTS vector", database="template1")
        yield cluster
    finally:
        server.cleanup()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pg_database(pg_cluster: PgCluster) -> Iterator[str]:
    """A fresh, empty database owned by the application role; yields its name."""
    name = pg_cluster.create_database()
    yield name
    pg_cluster.drop_database(name)


@pytest.fixture
def pg_url(pg_cluster: PgCluster, pg_database: str) -> str:
    """The application role's URL of a fresh database."""
    return pg_cluster.url(pg_database)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    """A PostgreSQL test that would be skipped fails instead: CI must run them all."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and item.get_closest_marker("postgres") and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        report.longrepr = f"PostgreSQL tests must run, not skip: {report.longrepr}"
