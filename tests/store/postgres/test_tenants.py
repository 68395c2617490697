"""Tenant isolation by row-level security: through the store and in raw SQL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from notecite.store.postgres.store import PostgresStore
from notecite.types import SearchFilter, Vault
from tests.store.contract import make_chunk, make_record, unit
from tests.store.postgres.conftest import PgCluster

pytestmark = pytest.mark.postgres

MODEL = "m"
TABLES = {  # table: its tenant column
    "tenants": "id",
    "meta": "tenant_id",
    "vaults": "tenant_id",
    "notes": "tenant_id",
    "chunks": "tenant_id",
    "embeddings": "tenant_id",
}


@dataclass
class TwoTenants:
    database: str
    url: str
    one: PostgresStore
    two: PostgresStore
    vaults: dict[int, Vault]


@pytest.fixture
def tenants(pg_cluster: PgCluster, pg_database: str, tmp_path: Path) -> Iterator[TwoTenants]:
    """Tenants 1 and 2 in one database, each with a vault named "notes" holding one note."""
    url = pg_cluster.url(pg_database)
    one, two = PostgresStore(url, tenant_id=1), PostgresStore(url, tenant_id=2)
    vaults = {}
    for store, text, vector in ((one, "alpha secret", unit(1, 0)), (two, "beta plan", unit(0, 1))):
        vault = vaults[store.tenant_id] = store.add_vault("notes", tmp_path)
        chunk = make_chunk("n.md", 0, text)
        store.replace_note(make_record(vault, "n.md"), [chunk])
        store.put_embeddings(MODEL, {chunk.content_hash: vector})
        store.set_embedder_info(MODEL, 2)
    yield TwoTenants(pg_database, url, one, two, vaults)
    one.close()
    two.close()


def _tenant_ids(conn: psycopg.Connection[tuple[object, ...]]) -> dict[str, set[object]]:
    return {
        table: {r[0] for r in conn.execute(f"SELECT DISTINCT {column} FROM {table}".encode())}
        for table, column in TABLES.items()
    }


def test_a_store_sees_only_its_tenant(tenants: TwoTenants) -> None:
    one, two = tenants.one, tenants.two
    (secret,) = one.lexical_search("secret", SearchFilter(), 5)
    assert two.lexical_search("secret", SearchFilter(), 5) == []
    assert two.fetch_chunks([secret.chunk_rowid]) == {}
    assert two.vector_scores(MODEL, unit(1, 0), [secret.chunk_rowid]) == {}
    assert [h.score for h in two.vector_search(MODEL, unit(1, 0), SearchFilter(), 5)] == [
        pytest.approx(0.0, abs=1e-6)
    ]
    vault_one = tenants.vaults[1]
    assert two.note_states(vault_one.id) == {}
    two.delete_notes(vault_one.id, ["n.md"])
    two.clear_index()
    two.remove_vault("notes")
    secret_hash = make_chunk("n.md", 0, "alpha secret").content_hash
    assert two.missing_embeddings(MODEL, [secret_hash]) == {secret_hash}
    assert [v.name for v in one.list_vaults()] == ["notes"]
    assert one.note_states(vault_one.id).keys() == {"n.md"}
    assert one.embedder_info() == (MODEL, 2)
    assert len(one.lexical_search("secret", SearchFilter(), 5)) == 1


def test_raw_sql_of_the_app_role_sees_only_the_tenant_it_sets(tenants: TwoTenants) -> None:
    """The app role owns the tables; FORCE ROW LEVEL SECURITY binds it all the same."""
    with psycopg.connect(tenants.url, autocommit=True) as conn:
        role = conn.execute(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
        ).fetchone()
        assert role == (False, False)
        assert _tenant_ids(conn) == {table: set() for table in TABLES}  # no tenant set: nothing
        with conn.transaction():
            conn.execute("SELECT set_config('notecite.tenant_id', '2', true)")
            assert _tenant_ids(conn) == {table: {2} for table in TABLES}
            texts = [r[0] for r in conn.execute("SELECT text FROM chunks")]
            assert texts == ["beta plan"]
        conn.execute("SET notecite.tenant_id = '2'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute("INSERT INTO vaults (tenant_id, name, path) VALUES (1, 'x', '/x')")


def test_a_role_bound_to_a_tenant_cannot_read_another(
    tenants: TwoTenants, pg_cluster: PgCluster
) -> None:
    """A role listed in tenant_roles sees its tenant's rows whatever it sets."""
    pg_cluster.admin(
        "DROP ROLE IF EXISTS tenant_two_reader",
        "CREATE ROLE tenant_two_reader LOGIN NOSUPERUSER NOBYPASSRLS",
    )
    with psycopg.connect(tenants.url, autocommit=True) as conn:  # the owner grants
        conn.execute(
            "INSERT INTO tenant_roles (role_name, tenant_id) VALUES (%s, 2)", ("tenant_two_reader",)
        )
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO tenant_two_reader")
    url = pg_cluster.url(tenants.database, user="tenant_two_reader")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET notecite.tenant_id = '1'")
        assert _tenant_ids(conn) == {table: {2} for table in TABLES}
        assert conn.execute(
            "SELECT count(*) FROM chunks WHERE text LIKE '%secret%'"
        ).fetchone() == (0,)
        assert conn.execute("SELECT text FROM chunks").fetchall() == [("beta plan",)]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO tenant_roles VALUES ('tenant_two_reader', 1)")
    # superusers bypass row-level security: the reason the app must not connect as one
    with psycopg.connect(pg_cluster.url(tenants.database, user="postgres")) as conn:
        assert _tenant_ids(conn)["chunks"] == {1, 2}
