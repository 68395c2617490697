"""The query log on PostgreSQL: the shared contract, row-level security, and the CLI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from notecite import Engine
from notecite.cli.main import cli
from notecite.schemas.ask import AskRequest
from notecite.store.postgres.query_log import PostgresQueryLog
from notecite.store.postgres.store import PostgresStore
from notecite.testing import hash_settings, write_files
from tests.postgres_server import PgCluster
from tests.store.query_log_contract import Logs, QueryLogContract, entry

pytestmark = pytest.mark.postgres


class TestPostgresQueryLog(QueryLogContract):
    @pytest.fixture
    def logs(self, pg_url: str) -> Iterator[Logs]:
        store = PostgresStore(pg_url)
        other = store.tenant_id_of("other")
        store.close()
        mine, theirs = PostgresQueryLog(pg_url), PostgresQueryLog(pg_url, tenant_id=other)
        yield mine, theirs
        mine.close()
        theirs.close()


def test_row_level_security_hides_other_tenants_entries(pg_url: str) -> None:
    log = PostgresQueryLog(pg_url)
    try:
        log.record(entry("secret?"))
    finally:
        log.close()
    with psycopg.connect(pg_url) as conn:  # the app role, without a tenant: nothing
        assert conn.execute("SELECT count(*) FROM query_log").fetchone() == (0,)
        conn.execute("SELECT set_config('notecite.tenant_id', '2', true)")
        assert conn.execute("SELECT count(*) FROM query_log").fetchone() == (0,)
        conn.execute("SELECT set_config('notecite.tenant_id', '1', true)")
        assert conn.execute("SELECT count(*) FROM query_log").fetchone() == (1,)


def test_ask_is_logged_and_the_cli_lists_and_purges_it(
    pg_cluster: PgCluster, pg_database: str, tmp_path: Path
) -> None:
    url = pg_cluster.url(pg_database)
    home = tmp_path / "home"
    notes = write_files(tmp_path / "notes", {"a.md": "# Tomatoes\n\nThe tomatoes go north.\n"})
    settings = hash_settings(home, store={"backend": "postgres", "url": url})
    with Engine(settings) as engine:
        engine.add_vault("notes", notes)
        engine.index("notes")
        engine.ask(AskRequest(question="Where do the tomatoes go?"))
    base = ["--home", str(home), "--embedder", "hash"]
    env = {"NOTECITE_STORE__BACKEND": "postgres", "NOTECITE_STORE__URL": url}
    listed = CliRunner().invoke(cli, [*base, "log", "list"], env=env)
    assert listed.exit_code == 0, listed.output
    assert "Where do the tomatoes go?" in listed.output
    purged = CliRunner().invoke(cli, [*base, "log", "purge", "--yes"], env=env)
    assert purged.exit_code == 0, purged.output
    assert "deleted 1 entry" in purged.output
    # the row is gone from the table, for every role (the superuser bypasses RLS)
    with psycopg.connect(pg_cluster.url(pg_database, "postgres")) as conn:
        assert conn.execute("SELECT count(*) FROM query_log").fetchone() == (0,)
