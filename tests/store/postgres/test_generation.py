"""The PostgreSQL store's index generation: bumped by every write of a tenant, from any
process, and what the search-results cache of an Engine on PostgreSQL keys on."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import psycopg
import pytest

from notecite import Engine
from notecite.errors import StoreError
from notecite.retrieve.cache import Generational
from notecite.schemas.ask import AskRequest
from notecite.store.postgres.search import hnsw_index_name
from notecite.store.postgres.store import PostgresStore
from notecite.testing import hash_settings, write_files
from notecite.types import SearchFilter
from tests.ask.notes import build_vaults
from tests.store.contract import make_chunk, make_record, text_hash, unit

pytestmark = pytest.mark.postgres

MODEL = "m"


def _changes(store: PostgresStore, write: Callable[[], object]) -> bool:
    before = store.index_generation()
    write()
    return store.index_generation() != before


def test_the_store_reports_a_generation(store: PostgresStore) -> None:
    assert isinstance(store, Generational)
    assert store.index_generation() == store.index_generation()


def test_every_write_changes_the_generation(store: PostgresStore, tmp_path: Path) -> None:
    chunks = [make_chunk("n.md", 0, "alpha words"), make_chunk("n.md", 1, "beta words")]
    hashes = [c.content_hash for c in chunks]
    vault = store.add_vault("v", tmp_path)  # a write of its own, checked below
    other = tmp_path / "other"
    writes: dict[str, Callable[[], object]] = {
        "add_vault": lambda: store.add_vault("w", other),
        "set_embedder_info": lambda: store.set_embedder_info(MODEL, 3),
        "put_embeddings": lambda: store.put_embeddings(
            MODEL, {h: unit(1, i, 0) for i, h in enumerate(hashes)}
        ),
        "put_sentence_vectors": lambda: store.put_sentence_vectors(
            MODEL, {text_hash("alpha"): unit(0, 1, 0)}
        ),
        "replace_note": lambda: store.replace_note(make_record(vault, "n.md"), chunks),
        "replace_note without chunks": lambda: store.replace_note(
            make_record(vault, "empty.md"), []
        ),
        "touch_note": lambda: store.touch_note(vault.id, "n.md", 11, 2),
        "record_failure": lambda: store.record_failure(vault.id, "bad.md", "no", 1, 1),
        "delete_notes": lambda: store.delete_notes(vault.id, ["bad.md"]),
        "remove_vault": lambda: store.remove_vault("w"),
        "clear_index": store.clear_index,
    }
    seen = {store.index_generation()}
    for name, write in writes.items():
        assert _changes(store, write), name
        seen.add(store.index_generation())
    assert len(seen) == len(writes) + 1  # never back to an earlier value


def test_reads_leave_the_generation_alone(store: PostgresStore, tmp_path: Path) -> None:
    vault = store.add_vault("v", tmp_path)
    chunk = make_chunk("n.md", 0, "alpha words")
    store.set_embedder_info(MODEL, 3)
    store.put_embeddings(MODEL, {chunk.content_hash: unit(1, 0, 0)})
    store.put_sentence_vectors(MODEL, {chunk.content_hash: unit(1, 0, 0)})
    store.replace_note(make_record(vault, "n.md", title="Alpha"), [chunk])
    (hit,) = store.lexical_search("alpha", SearchFilter(), 5)
    before = store.index_generation()

    store.list_vaults()
    store.get_vault("v")
    store.embedder_info()
    store.note_states(vault.id)
    store.missing_embeddings(MODEL, [chunk.content_hash, "x"])
    store.missing_sentence_vectors(MODEL, [chunk.content_hash, "x"])
    store.vector_search(MODEL, unit(1, 0, 0), SearchFilter(), 5)
    store.vector_search(MODEL, unit(1, 0, 0), SearchFilter(), 5, sentence_weight=0.5)
    store.vector_scores(MODEL, unit(1, 0, 0), [hit.chunk_rowid], sentence_weight=0.5)
    store.lexical_search("alpha", SearchFilter(), 5)
    store.fetch_chunks([hit.chunk_rowid])
    store.vault_status()
    store.folders(vault.id)
    store.delete_notes(vault.id, [])  # nothing to delete: no write
    store.put_embeddings(MODEL, {})
    assert store.index_generation() == before


def test_a_failed_write_leaves_the_generation_alone(store: PostgresStore, tmp_path: Path) -> None:
    vault = store.add_vault("v", tmp_path)
    before = store.index_generation()
    with pytest.raises(StoreError):  # no such vault: the foreign key rejects it
        store.replace_note(
            replace(make_record(vault, "n.md"), vault_id=vault.id + 1000),
            [make_chunk("n.md", 0, "words")],
        )
    assert store.index_generation() == before


def test_the_end_of_a_bulk_load_changes_the_generation(
    store: PostgresStore, pg_url: str, tmp_path: Path
) -> None:
    """The HNSW index built when a bulk load ends turns exact searches approximate."""
    model = "bulk-model"
    with store.bulk_load():
        store.put_embeddings(model, {text_hash("a"): unit(1, 0, 0), text_hash("b"): unit(0, 1, 0)})
        loaded = store.index_generation()
    assert store.index_generation() != loaded
    with psycopg.connect(pg_url, autocommit=True) as conn:
        index = conn.execute(
            "SELECT 1 FROM pg_indexes WHERE indexname = %s", (hnsw_index_name(model, 3),)
        ).fetchone()
    assert index is not None


def test_another_store_sees_the_change(store: PostgresStore, pg_url: str, tmp_path: Path) -> None:
    other = PostgresStore(pg_url, pool_size=2)  # as another process would: its own pool
    try:
        vault = store.add_vault("v", tmp_path)
        assert other.index_generation() == store.index_generation()
        before = other.index_generation()
        store.replace_note(make_record(vault, "n.md"), [make_chunk("n.md", 0, "words")])
        assert other.index_generation() != before
        assert other.index_generation() == store.index_generation()
        # and the other way round
        before = store.index_generation()
        other.delete_notes(vault.id, ["n.md"])
        assert store.index_generation() != before
    finally:
        other.close()


def test_tenants_have_their_own_generation(store: PostgresStore, tmp_path: Path) -> None:
    second = store.for_tenant("second")
    try:
        assert second.tenant_id != store.tenant_id
        mine = store.index_generation()
        theirs = second.index_generation()
        assert mine != theirs  # opaque values of different tenants never match

        vault = second.add_vault("v", tmp_path)
        second.replace_note(make_record(vault, "n.md"), [make_chunk("n.md", 0, "words")])
        second.clear_index()
        assert second.index_generation() != theirs
        assert store.index_generation() == mine

        store.add_vault("v", tmp_path)
        theirs = second.index_generation()
        assert store.index_generation() != mine
        assert second.index_generation() == theirs
    finally:
        second.close()


def test_concurrent_writers_lose_no_bump(pg_url: str, tmp_path: Path) -> None:
    stores = [PostgresStore(pg_url, pool_size=3), PostgresStore(pg_url, pool_size=3)]
    writers, writes = 6, 15
    try:
        vault = stores[0].add_vault("v", tmp_path)
        for w in range(writers):
            stores[0].replace_note(make_record(vault, f"n{w}.md"), [])
        start = int(stores[0].index_generation().split(":")[1])
        errors: list[BaseException] = []

        def write(w: int) -> None:
            try:
                for i in range(writes):
                    stores[w % 2].touch_note(vault.id, f"n{w}.md", i, i)
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors
        assert int(stores[1].index_generation().split(":")[1]) == start + writers * writes
    finally:
        for s in stores:
            s.close()


# -- the search-results cache of an Engine on PostgreSQL -------------------------------------


def _ask(engine: Engine, question: str) -> str:
    debug = engine.ask(AskRequest(question=question, debug=True)).debug
    assert debug is not None
    return debug.cache.search_results


def test_the_results_cache_works_on_postgres(pg_url: str, tmp_path: Path) -> None:
    settings = hash_settings(
        tmp_path / "home", store={"backend": "postgres", "url": pg_url}, ask={"auto_rag": "off"}
    )
    question = "What does the Apollo gift shop sell?"
    with Engine(settings) as engine:
        assert isinstance(engine.store, PostgresStore)
        build_vaults(engine, tmp_path / "notes")
        assert _ask(engine, question) == "miss"
        assert _ask(engine, question) == "hit"
        by_name = {c.name: c for c in engine.status().caches}
        assert by_name["search_results"].hits == 1

        # a re-index that changes the vault: the cached results are not used
        write_files(
            tmp_path / "notes" / "work",
            {"projects/work/giftshop.md": "# Gift shop\n\nThe Apollo gift shop sells mugs.\n"},
        )
        engine.index("v1")
        debug = engine.ask(AskRequest(question=question, debug=True)).debug
        assert debug is not None
        assert debug.cache.search_results == "miss"
        assert any("giftshop" in c.rel_path for c in debug.retrieved_chunks)
        assert _ask(engine, question) == "hit"

        # another tenant's writes leave this tenant's cache alone
        with engine.for_tenant("other") as tenant:
            tenant.add_vault("t", write_files(tmp_path / "t", {"a.md": "# A\n\nApollo mugs.\n"}))
            tenant.index()
            assert _ask(tenant, question) == "miss"
        assert _ask(engine, question) == "hit"

        # another process (its own Engine and pool) writing this tenant's index
        with Engine(settings) as other:
            other.remove_vault("v2")
        assert _ask(engine, question) == "miss"
