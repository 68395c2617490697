"""What only the PostgreSQL store has: migrations, the HNSW index, connection errors."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psycopg
import pytest

from notecite.errors import StoreError
from notecite.store.base import StoredChunk
from notecite.store.postgres.migrations import MIGRATIONS, migrate
from notecite.store.postgres.search import approximate_query, hnsw_index_name
from notecite.store.postgres.store import PostgresStore
from notecite.types import SearchFilter
from tests.store.contract import make_chunk, make_record, text_hash
from tests.store.postgres.conftest import PgCluster

pytestmark = pytest.mark.postgres

MODEL = "random-32"


def _rows(url: str, sql: str, tenant: int | None = None) -> list[tuple[object, ...]]:
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        if tenant is not None:
            conn.execute("SELECT set_config('notecite.tenant_id', %s, true)", (str(tenant),))
        return list(conn.execute(sql.encode()).fetchall())


def test_migrations_recorded_and_idempotent(store: PostgresStore, pg_url: str) -> None:
    store.list_vaults()
    versions = [v for v, _ in MIGRATIONS]
    assert versions == sorted(versions)
    recorded = _rows(pg_url, "SELECT version, applied_at FROM schema_migrations ORDER BY 1")
    assert [r[0] for r in recorded] == versions
    PostgresStore(pg_url).close()
    reopened = PostgresStore(pg_url)
    reopened.list_vaults()
    reopened.close()
    assert _rows(pg_url, "SELECT version, applied_at FROM schema_migrations ORDER BY 1") == (
        recorded
    )
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert migrate(conn) == []


def test_a_read_only_connection_can_search(
    store: PostgresStore, pg_url: str, tmp_path: Path
) -> None:
    """As on a read replica: an up-to-date schema is only read when the store opens."""
    vault = store.add_vault("v", tmp_path)
    store.replace_note(make_record(vault, "n.md"), [make_chunk("n.md", 0, "replicated words")])
    read_only = PostgresStore(pg_url + "&options=-c%20default_transaction_read_only%3Don")
    try:
        assert len(read_only.lexical_search("replicated", SearchFilter(), 5)) == 1
        with pytest.raises(StoreError, match="read-only transaction"):
            read_only.add_vault("w", tmp_path)
    finally:
        read_only.close()


def test_every_table_has_forced_row_level_security(store: PostgresStore, pg_url: str) -> None:
    store.list_vaults()
    tables = _rows(
        pg_url,
        "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class "
        "WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY 1",
    )
    assert {name for name, _, _ in tables} == {
        "bm25_lengths",
        "bm25_postings",
        "bm25_terms",
        "bm25_totals",
        "chat_messages",
        "chat_sessions",
        "chunks",
        "embeddings",
        "meta",
        "note_links",
        "notes",
        "query_log",
        "schema_migrations",
        "sentence_embeddings",
        "tenant_roles",
        "tenants",
        "vaults",
    }
    unprotected = {"schema_migrations", "tenant_roles"}
    assert all(rls and forced for name, rls, forced in tables if name not in unprotected)


def test_constructor_does_no_io() -> None:
    PostgresStore("postgresql://nobody:secret@127.0.0.1:1/none").close()


def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    store = PostgresStore("postgresql://nobody:hunter2@127.0.0.1:1/notes")
    with pytest.raises(StoreError, match=r"nobody@127\.0\.0\.1:1/notes") as info:
        store.list_vaults()
    assert "hunter2" not in str(info.value)
    assert "Check store.url" in str(info.value)


def test_text_with_nul_characters_is_kept(store: PostgresStore, tmp_path: Path) -> None:
    vault = store.add_vault("v", tmp_path)
    store.replace_note(make_record(vault, "n.md"), [make_chunk("n.md", 0, "quartz\x00zebra")])
    (hit,) = store.lexical_search("zebra", SearchFilter(), 5)
    assert store.fetch_chunks([hit.chunk_rowid])[hit.chunk_rowid].text == "quartz\ufffdzebra"


# -- the HNSW index ---------------------------------------------------------------------------


@dataclass
class RandomIndex:
    store: PostgresStore
    url: str
    vectors: np.ndarray


@pytest.fixture(scope="module")
def random_index(
    pg_cluster: PgCluster, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RandomIndex]:
    """1,000 random unit vectors of 32 dimensions in 10 notes (``big/n{i}.md``, chunk ``i``
    of note ``n`` holds vector ``100 n + i``), and one note (``small/far.md``) whose 5 chunks
    hold the same vector (vectors 1000 to 1004)."""
    database = pg_cluster.create_database()
    url = pg_cluster.url(database)
    store = PostgresStore(url)
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(1000, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    vault = store.add_vault("v", tmp_path_factory.mktemp("vault"))
    for note in range(10):
        rel_path = f"big/n{note}.md"
        chunks = [make_chunk(rel_path, i, f"text {note} {i}") for i in range(100)]
        store.replace_note(make_record(vault, rel_path), chunks)
        store.put_embeddings(
            MODEL, {c.content_hash: vectors[note * 100 + i] for i, c in enumerate(chunks)}
        )
    far = [make_chunk("small/far.md", i, f"far {i}") for i in range(5)]
    store.replace_note(make_record(vault, "small/far.md"), far)
    far_vector = -np.ones(32, np.float32) / 32**0.5
    store.put_embeddings(MODEL, {c.content_hash: far_vector for c in far})
    yield RandomIndex(store, url, np.vstack([vectors, np.tile(far_vector, (5, 1))]))
    store.close()
    pg_cluster.drop_database(database)


def test_vector_search_uses_the_hnsw_index(random_index: RandomIndex) -> None:
    query = random_index.vectors[0]
    sql, params = approximate_query(1, MODEL, query, SearchFilter(), 10)
    with psycopg.connect(random_index.url, autocommit=True) as conn, conn.transaction():
        conn.execute("SELECT set_config('notecite.tenant_id', '1', true)")
        plan = "\n".join(r[0] for r in conn.execute(b"EXPLAIN " + sql.as_bytes(conn), params))
    assert hnsw_index_name(MODEL, 32) in plan


def _position(chunk: StoredChunk) -> int:
    """The row of ``RandomIndex.vectors`` a chunk holds (``small/far.md``'s: 1000 on)."""
    if chunk.rel_path == "small/far.md":
        return 1000 + chunk.chunk_index
    return int(Path(chunk.rel_path).stem[1:]) * 100 + chunk.chunk_index


def test_hnsw_recall_against_exact_search(random_index: RandomIndex) -> None:
    store, vectors = random_index.store, random_index.vectors
    queries = vectors[:1000:47][:20] + 0.3 * vectors[1:1000:47][:20]
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    found = 0
    for query in queries:
        hits = store.vector_search(MODEL, query, SearchFilter(), 10)
        chunks = store.fetch_chunks([h.chunk_rowid for h in hits])
        rows = [_position(chunks[h.chunk_rowid]) for h in hits]
        exact = np.argsort(-(vectors @ query))[:10]
        found += len(set(rows) & set(exact.tolist()))
        assert [h.score for h in hits] == pytest.approx(
            [float(vectors[r] @ query) for r in rows], abs=1e-5
        )
    assert found / (10 * len(queries)) >= 0.95


def test_a_narrow_filter_still_finds_its_chunks(random_index: RandomIndex) -> None:
    """The HNSW scan sees only ``ef_search`` candidates, none in ``small/``: the exact search
    behind it finds them."""
    query = random_index.vectors[3]
    hits = random_index.store.vector_search(MODEL, query, SearchFilter(folders=("small",)), 10)
    assert len(hits) == 5
    assert [h.score for h in hits] == pytest.approx([float(-query.sum() / 32**0.5)] * 5, abs=1e-5)


def test_a_limit_above_ef_search_gets_every_hit(random_index: RandomIndex) -> None:
    hits = random_index.store.vector_search(MODEL, random_index.vectors[5], SearchFilter(), 300)
    assert len(hits) == len({h.chunk_rowid for h in hits}) == 300
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)


def test_the_index_is_created_once_per_model_and_dimension(
    store: PostgresStore, pg_url: str
) -> None:
    store.put_embeddings("a", {text_hash("x"): np.ones(4, np.float32) / 2})
    store.put_embeddings("a", {text_hash("y"): np.ones(4, np.float32) / 2})
    store.put_embeddings("b", {text_hash("x"): np.ones(8, np.float32) / 8**0.5})
    other = PostgresStore(pg_url)
    other.put_embeddings("a", {text_hash("z"): np.ones(4, np.float32) / 2})
    other.close()
    names = {
        r[0]
        for r in _rows(pg_url, "SELECT indexname FROM pg_indexes WHERE tablename = 'embeddings'")
    }
    assert {hnsw_index_name("a", 4), hnsw_index_name("b", 8)} < names
    assert len([n for n in names if str(n).startswith("embeddings_hnsw_")]) == 2


def test_a_database_without_pgvector_says_how_to_enable_it(
    pg_cluster: PgCluster, pg_database: str
) -> None:
    pg_cluster.admin("DROP EXTENSION vector", database=pg_database)
    store = PostgresStore(pg_cluster.url(pg_database))
    with pytest.raises(StoreError, match="CREATE EXTENSION vector"):
        store.list_vaults()
    store.close()
