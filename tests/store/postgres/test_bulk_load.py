"""Bulk loads build the HNSW index once, at the end, and stay correct when writers race."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import psycopg
import pytest

from notecite import Engine
from notecite.ingest.progress import IndexProgress
from notecite.store.base import bulk_load
from notecite.store.postgres.search import approximate_query, hnsw_index_name
from notecite.store.postgres.store import PostgresStore
from notecite.testing import hash_settings
from notecite.types import SearchFilter, Vault
from tests.helpers import FOAM_VAULT
from tests.store.contract import make_chunk, make_record

pytestmark = pytest.mark.postgres

MODEL = "bulk-model"
DIMS = 16
INDEX = hnsw_index_name(MODEL, DIMS)


def _matrix(seed: int, count: int) -> np.ndarray:
    matrix = np.random.default_rng(seed).standard_normal((count, DIMS)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def _load(store: PostgresStore, vault: Vault, seed: int, count: int) -> dict[str, np.ndarray]:
    """Note ``n{seed}.md`` with ``count`` chunks and their random vectors, as the indexer
    writes them (vectors first); returns text hash -> vector."""
    rel_path = f"n{seed}.md"
    chunks = [make_chunk(rel_path, i, f"seed {seed} chunk {i}") for i in range(count)]
    vectors = dict(zip((c.content_hash for c in chunks), _matrix(seed, count), strict=True))
    store.put_embeddings(MODEL, vectors)
    store.replace_note(make_record(vault, rel_path), chunks)
    return vectors


def _hnsw_indexes(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT indexname FROM pg_indexes WHERE indexdef LIKE '%USING hnsw%'"
        ).fetchall()
    return [r[0] for r in rows]


def _uses_hnsw(url: str) -> bool:
    """Whether the store's nearest-neighbour query plans a scan of the HNSW index."""
    sql, params = approximate_query(1, MODEL, _matrix(0, 1)[0], SearchFilter(), 10)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("ANALYZE")
        with conn.transaction():
            conn.execute("SELECT set_config('notecite.tenant_id', '1', true)")
            plan = "\n".join(r[0] for r in conn.execute(b"EXPLAIN " + sql.as_bytes(conn), params))
    return INDEX in plan


def _finds_itself(store: PostgresStore, vectors: dict[str, np.ndarray]) -> bool:
    """Each of a few loaded vectors is its own nearest neighbour (score 1)."""
    for vector in list(vectors.values())[:5]:
        (best,) = store.vector_search(MODEL, vector, SearchFilter(), 1)
        if best.score < 0.9999:
            return False
    return True


def test_a_bulk_load_into_an_empty_table_builds_the_index_at_the_end(
    pg_url: str, tmp_path: Path
) -> None:
    store = PostgresStore(pg_url)
    try:
        vault = store.add_vault("v", tmp_path)
        with bulk_load(store):
            first = _load(store, vault, 1, 300)
            _load(store, vault, 2, 300)
            assert _hnsw_indexes(pg_url) == []
            assert _finds_itself(store, first)  # searches stay correct without the index
        assert _hnsw_indexes(pg_url) == [INDEX]
        assert _uses_hnsw(pg_url)
        assert _finds_itself(store, first)  # rows loaded before the build are in the index
        later = _load(store, vault, 3, 20)  # and rows written after it, as ever
        assert _finds_itself(store, later)
    finally:
        store.close()


def test_an_existing_index_is_kept_and_a_missing_one_is_built_at_once(
    pg_url: str, tmp_path: Path
) -> None:
    store = PostgresStore(pg_url)
    try:
        vault = store.add_vault("v", tmp_path)
        _load(store, vault, 1, 50)  # outside a bulk load: the index comes with the first rows
        assert _hnsw_indexes(pg_url) == [INDEX]
        other = PostgresStore(pg_url)
        try:
            with bulk_load(other):
                _load(other, vault, 2, 50)
                assert _hnsw_indexes(pg_url) == [INDEX]  # never dropped
        finally:
            other.close()
        # rows without an index (a bulk load that crashed): the next load builds it first
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"DROP INDEX {INDEX}")
        again = PostgresStore(pg_url)
        try:
            with bulk_load(again):
                _load(again, vault, 3, 10)
                assert _hnsw_indexes(pg_url) == [INDEX]
        finally:
            again.close()
    finally:
        store.close()


def test_an_error_inside_a_bulk_load_still_builds_the_index(pg_url: str, tmp_path: Path) -> None:
    store = PostgresStore(pg_url)
    try:
        vault = store.add_vault("v", tmp_path)

        def fail_midway() -> None:
            with bulk_load(store):
                _load(store, vault, 1, 30)
                raise RuntimeError("disk on fire")

        with pytest.raises(RuntimeError, match="disk on fire"):
            fail_midway()
        assert _hnsw_indexes(pg_url) == [INDEX]
    finally:
        store.close()


def test_concurrent_bulk_loads_and_a_plain_writer_build_one_index(
    pg_url: str, tmp_path: Path
) -> None:
    """Two bulk loaders (separate pools) and one plain writer start together on an empty
    database while a reader searches; nothing is lost and one index serves them all."""
    stores = [PostgresStore(pg_url, pool_size=3) for _ in range(4)]
    vault = stores[0].add_vault("v", tmp_path)
    loaded: dict[int, dict[str, np.ndarray]] = {}
    errors: list[BaseException] = []
    wrong: list[int] = []
    start = threading.Barrier(4)
    done = threading.Event()

    def write(writer: int) -> None:
        store = stores[writer]
        try:
            start.wait()
            if writer == 2:  # outside any bulk load: creates the index at once
                for batch in range(4):
                    loaded[100 + batch] = _load(store, vault, 100 + batch, 40)
                return
            with bulk_load(store):
                for batch in range(4):
                    loaded[10 * writer + batch] = _load(store, vault, 10 * writer + batch, 40)
        except BaseException as exc:
            errors.append(exc)

    def read() -> None:
        try:
            start.wait()
            while not done.is_set():
                for seed, vectors in list(loaded.items()):
                    if not _finds_itself(stores[3], vectors):
                        wrong.append(seed)
        except BaseException as exc:
            errors.append(exc)

    writers = [threading.Thread(target=write, args=(w,)) for w in range(3)]
    reader = threading.Thread(target=read)
    try:
        for thread in [*writers, reader]:
            thread.start()
        for thread in writers:
            thread.join()
        done.set()
        reader.join()
        assert errors == []
        assert wrong == []
        assert _hnsw_indexes(pg_url) == [INDEX]
        assert _uses_hnsw(pg_url)
        assert len(loaded) == 12
        everything = {h: v for vectors in loaded.values() for h, v in vectors.items()}
        assert stores[1].missing_embeddings(MODEL, everything) == set()
        for vectors in loaded.values():
            assert _finds_itself(stores[0], vectors)
        (status,) = stores[0].vault_status()
        assert status.chunks == 12 * 40
    finally:
        done.set()
        for store in stores:
            store.close()


def test_indexing_a_vault_into_an_empty_database_builds_the_index_once(
    pg_url: str, tmp_path: Path
) -> None:
    settings = hash_settings(tmp_path, store={"backend": "postgres", "url": pg_url})
    before_the_end: list[list[str]] = []

    def progress(report: IndexProgress) -> None:
        done = report.phase == "vectors" and report.done == report.total  # all 584 stored
        if done and not before_the_end:
            before_the_end.append(_hnsw_indexes(pg_url))

    with Engine(settings) as engine:
        engine.add_vault("foam", FOAM_VAULT)
        (report,) = engine.index(progress=progress)
        assert report.added == 86
        assert before_the_end == [[]]
        model, dims = engine.embedder.model_id, engine.embedder.dimensions
        assert _hnsw_indexes(pg_url) == [hnsw_index_name(model, dims)]
        hits = engine.store.vector_search(
            model, engine.embedder.embed_query("templates"), SearchFilter(), 5
        )
        assert len(hits) == 5
