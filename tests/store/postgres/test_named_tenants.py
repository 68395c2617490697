"""Named tenants on PostgreSQL: ``notecite_tenant_id(name)`` (migration 3) maps a name to
its id, creating the tenant once, although row-level security hides other tenants' rows."""

from __future__ import annotations

import threading
from pathlib import Path

import psycopg
import pytest
from click.testing import CliRunner

from notecite import Engine, load_settings
from notecite.cli.main import cli
from notecite.errors import StoreError
from notecite.store.postgres.store import PostgresStore
from notecite.types import SearchFilter
from tests.store.contract import make_chunk, make_record, unit
from tests.store.postgres.conftest import PgCluster

pytestmark = pytest.mark.postgres

TABLES = {"tenants": "id", "vaults": "tenant_id", "notes": "tenant_id", "chunks": "tenant_id"}


def _tenant_ids(conn: psycopg.Connection[tuple[object, ...]]) -> dict[str, set[object]]:
    return {
        table: {r[0] for r in conn.execute(f"SELECT DISTINCT {column} FROM {table}".encode())}
        for table, column in TABLES.items()
    }


def test_a_name_gets_one_id_for_every_store_of_the_database(
    store: PostgresStore, pg_url: str
) -> None:
    assert store.tenant_id_of("default") == 1
    assert [store.tenant_id_of(name) for name in ("beta", "gamma", "beta")] == [2, 3, 2]
    other = PostgresStore(pg_url, tenant_id=3)
    try:
        assert other.tenant_id_of("beta") == 2
        assert other.tenant_id_of("delta") == 4
    finally:
        other.close()
    with pytest.raises(StoreError, match="a tenant needs a name"):
        store.tenant_id_of(" ")


def test_concurrent_first_uses_of_a_name_create_one_tenant(pg_url: str) -> None:
    stores = [PostgresStore(pg_url) for _ in range(4)]
    ids: list[int] = []
    barrier = threading.Barrier(len(stores))

    def first_use(opened: PostgresStore) -> None:
        opened.list_vaults()  # opens the pool (and migrates) before the race
        barrier.wait()
        ids.append(opened.tenant_id_of("beta"))

    threads = [threading.Thread(target=first_use, args=(s,)) for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert ids == [2, 2, 2, 2]
        assert stores[0].tenant_id_of("gamma") == 3
    finally:
        for opened in stores:
            opened.close()


def test_a_named_tenant_is_isolated_by_row_level_security(
    store: PostgresStore, pg_cluster: PgCluster, pg_database: str, pg_url: str, tmp_path: Path
) -> None:
    beta = store.for_tenant("beta")
    try:
        assert beta.tenant_id == 2
        for tenant, text in ((store, "alpha secret"), (beta, "beta plan")):
            vault = tenant.add_vault("notes", tmp_path)
            chunk = make_chunk("n.md", 0, text)
            tenant.replace_note(make_record(vault, "n.md"), [chunk])
            tenant.put_embeddings("m", {chunk.content_hash: unit(1, 0)})
        assert beta.lexical_search("secret", SearchFilter(), 5) == []
        assert [v.tenant_id for v in beta.list_vaults()] == [2]
    finally:
        beta.close()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert _tenant_ids(conn) == {table: set() for table in TABLES}  # no tenant set
        # the setting the function turns on lets only the tables' owner through
        conn.execute("SET notecite.tenant_registry = 'on'")
        assert _tenant_ids(conn)["tenants"] == {1, 2}
        assert _tenant_ids(conn)["chunks"] == set()
        conn.execute("RESET notecite.tenant_registry")
        with conn.transaction():
            conn.execute("SELECT set_config('notecite.tenant_id', '2', true)")
            assert _tenant_ids(conn) == {table: {2} for table in TABLES}
            assert conn.execute("SELECT name FROM tenants").fetchall() == [("beta",)]
            assert [r[0] for r in conn.execute("SELECT text FROM chunks")] == ["beta plan"]
            # the function leaves the setting as it found it
            conn.execute("SELECT notecite_tenant_id('gamma')")
            assert conn.execute("SELECT id FROM tenants").fetchall() == [(2,)]
    # a role bound to beta: the setting does not open the registry to it, nor may it call
    # the function (EXECUTE is the owner's)
    pg_cluster.admin(
        "DROP ROLE IF EXISTS beta_reader",
        "CREATE ROLE beta_reader LOGIN NOSUPERUSER NOBYPASSRLS",
    )
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("INSERT INTO tenant_roles (role_name, tenant_id) VALUES ('beta_reader', 2)")
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO beta_reader")
    url = pg_cluster.url(pg_database, user="beta_reader")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET notecite.tenant_registry = 'on'")
        conn.execute("SET notecite.tenant_id = '1'")
        assert _tenant_ids(conn) == {table: {2} for table in TABLES}
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT notecite_tenant_id('default')")


def test_engine_for_tenant_on_postgres(pg_url: str, tmp_path: Path) -> None:
    settings = load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        store={"backend": "postgres", "url": pg_url},
    )
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "zephyr.md").write_text("# Zephyr\n\nThe Zephyr budget is 12000 dollars.\n")
    with Engine(settings) as root:
        beta = root.for_tenant("beta")
        try:
            beta.add_vault("notes", notes)
            (report,) = beta.index("notes")
            assert report.added == 1
            assert [r.rel_path for r in beta.search("Zephyr budget")] == ["zephyr.md"]
            assert root.vaults() == []
            assert root.search("Zephyr budget") == []
        finally:
            beta.close()
        again = root.for_tenant("beta")
        try:
            assert [v.name for v in again.vaults()] == ["notes"]
        finally:
            again.close()


def test_the_tenant_option_of_the_cli_on_postgres(pg_url: str, tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"NOTECITE_STORE__BACKEND": "postgres", "NOTECITE_STORE__URL": pg_url}

    def run(*args: str, input: str | None = None) -> str:
        home = ["--home", str(tmp_path / "home"), "--embedder", "hash", "--llm", "extractive"]
        result = runner.invoke(cli, [*home, *args], input=input, env=env)
        assert result.exit_code == 0, (result.output, result.exception)
        return result.output

    mine, theirs = tmp_path / "mine", tmp_path / "acme"
    for folder, text in ((mine, "The Apollo budget is 40000 euros."), (theirs, "Zephyr: 12000.")):
        folder.mkdir()
        (folder / "budget.md").write_text(f"# Budget\n\n{text}\n")
    run("index", str(mine), "--vault", "notes")
    run("--tenant", "acme", "index", str(theirs), "--vault", "notes")
    assert str(theirs.resolve()) in run("--tenant", "acme", "vault", "list")
    assert str(theirs.resolve()) not in run("vault", "list")
    answer = run("--tenant", "acme", "chat", input="What is the Apollo budget?\n")
    assert "40000" not in answer
    assert "No chat sessions yet" in run("sessions", "list")
    with psycopg.connect(pg_url) as conn:  # the app role, the registry opened as its owner
        conn.execute("SET notecite.tenant_registry = 'on'")
        assert conn.execute("SELECT id, name FROM tenants ORDER BY id").fetchall() == [
            (1, "default"),
            (2, "acme"),
        ]
