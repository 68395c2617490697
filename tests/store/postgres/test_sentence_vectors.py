"""Sentence vectors on PostgreSQL (migration 4): their own table, no HNSW index, one
tenant's rows hidden from another, and the upgrade that re-chunks notes indexed before."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from notecite import Engine
from notecite.store.postgres import migrations
from notecite.store.postgres.store import PostgresStore
from notecite.testing import hash_settings, write_files
from notecite.types import SearchFilter
from tests.store.contract import make_chunk, make_record, unit
from tests.store.postgres.conftest import PgCluster

pytestmark = pytest.mark.postgres

MODEL = "m"
NOTES = {
    "garden.md": "# Garden\n\nTomatoes need sun. Water them every morning. Prune in June.\n",
    "budget.md": "# Budget\n\nThe budget is due in May. Finance reviews it first. Then we ship.\n",
    "short.md": "# Short\n\nOne line.\n",
}


def _rows(url: str, query: str, tenant_id: int) -> list[tuple[object, ...]]:
    """Rows of ``query`` as the app role with ``notecite.tenant_id`` set to ``tenant_id``."""
    with psycopg.connect(url) as conn:
        conn.execute("SELECT set_config('notecite.tenant_id', %s, true)", (str(tenant_id),))
        return conn.execute(query.encode()).fetchall()


@pytest.fixture
def engine(pg_url: str, tmp_path: Path) -> Iterator[Engine]:
    """An Engine on PostgreSQL (hash embedder) that has indexed a small vault."""
    settings = hash_settings(tmp_path / "home", store={"backend": "postgres", "url": pg_url})
    with Engine(settings) as opened:
        opened.add_vault("v", write_files(tmp_path / "vault", NOTES))
        (report,) = opened.index()
        assert (report.added, report.failed) == (len(NOTES), 0)
        assert report.sentences_embedded > 0
        yield opened


def test_indexing_keeps_sentence_vectors_apart_from_chunk_vectors(
    engine: Engine, pg_url: str
) -> None:
    store = engine.store
    assert isinstance(store, PostgresStore)
    assert store.keeps_sentence_vectors
    chunks = _rows(pg_url, "SELECT content_hash, sentence_hashes FROM chunks", 1)
    sentence_hashes = {h for _, hashes in chunks for h in hashes}  # type: ignore[attr-defined]
    assert sentence_hashes, "multi-sentence chunks list their sentence windows"
    assert any(not hashes for _, hashes in chunks), "a one-sentence chunk lists none"
    stored = _rows(pg_url, "SELECT model_id, content_hash FROM sentence_embeddings", 1)
    assert {h for _, h in stored} == sentence_hashes
    assert {m for m, _ in stored} == {engine.embedder.model_id}
    # Chunk vectors (and the HNSW index over them) hold exactly the chunks' own texts.
    embedded = {h for (h,) in _rows(pg_url, "SELECT content_hash FROM embeddings", 1)}
    assert embedded == {h for h, _ in chunks}
    assert not embedded & sentence_hashes
    indexes = _rows(
        pg_url, "SELECT indexname FROM pg_indexes WHERE tablename = 'sentence_embeddings'", 1
    )
    assert [name for (name,) in indexes] == ["sentence_embeddings_pkey"]

    # Searches mix the best sentence in; an unchanged vault embeds nothing again.
    query = engine.embedder.embed_query("When is the budget due?")
    model = engine.embedder.model_id
    mixed = store.vector_search(model, query, SearchFilter(), 10, sentence_weight=0.5)
    plain = store.vector_search(model, query, SearchFilter(), 10)
    assert {h.chunk_rowid for h in mixed} == {h.chunk_rowid for h in plain}
    assert all(h.dense is not None for h in mixed)
    assert [h.dense for h in mixed] == sorted((h.dense or 0.0 for h in mixed), reverse=True)
    scores = store.vector_scores(model, query, [h.chunk_rowid for h in mixed], 0.5)
    assert scores == {h.chunk_rowid: pytest.approx(h.dense, abs=1e-6) for h in mixed}
    (again,) = engine.index()
    assert (again.unchanged, again.chunks_embedded, again.sentences_embedded) == (
        len(NOTES),
        0,
        0,
    )


def test_a_tenant_cannot_see_another_tenants_sentence_vectors(
    engine: Engine, pg_url: str, pg_cluster: PgCluster, pg_database: str
) -> None:
    model = engine.embedder.model_id
    one = _rows(pg_url, "SELECT content_hash FROM sentence_embeddings", 1)
    assert one
    secret = {str(h) for (h,) in one}
    two = PostgresStore(pg_url, tenant_id=2)
    try:
        assert two.missing_sentence_vectors(model, secret) == secret
        vault = two.add_vault("other", Path("/other"))
        chunk = dataclasses.replace(
            make_chunk("n.md", 0, "Plans. More plans."), sentence_texts=("Plans.", "More plans.")
        )
        two.replace_note(make_record(vault, "n.md"), [chunk])
        two.put_embeddings(model, {chunk.content_hash: unit(1, 0)})
        two.put_sentence_vectors(model, dict.fromkeys(chunk.sentence_hashes, unit(0, 1)))
        assert two.missing_sentence_vectors(model, secret) == secret
    finally:
        two.close()

    query = "SELECT DISTINCT tenant_id FROM sentence_embeddings"
    assert _rows(pg_url, query, 1) == [(1,)]
    assert _rows(pg_url, query, 2) == [(2,)]
    seen_by_two = {h for (h,) in _rows(pg_url, "SELECT content_hash FROM sentence_embeddings", 2)}
    assert seen_by_two == set(chunk.sentence_hashes)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute(query).fetchall() == []  # no tenant set: nothing
        conn.execute("SET notecite.tenant_id = '2'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            conn.execute(
                "INSERT INTO sentence_embeddings "
                "(tenant_id, model_id, content_hash, dimensions, vector) "
                "VALUES (1, 'm', 'x', 2, '[1,0]')"
            )
    # A role bound to tenant 2 by tenant_roles sees tenant 2's rows whatever it sets.
    pg_cluster.admin(
        "DROP ROLE IF EXISTS sentence_reader",
        "CREATE ROLE sentence_reader LOGIN NOSUPERUSER NOBYPASSRLS",
    )
    with psycopg.connect(pg_url, autocommit=True) as conn:  # the owner grants
        conn.execute(
            "INSERT INTO tenant_roles (role_name, tenant_id) VALUES ('sentence_reader', 2)"
        )
        conn.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO sentence_reader")
    reader = pg_cluster.url(pg_database, user="sentence_reader")
    with psycopg.connect(reader, autocommit=True) as conn:
        conn.execute("SET notecite.tenant_id = '1'")
        assert conn.execute(query).fetchall() == [(2,)]


def test_migration_4_makes_every_tenant_re_chunk_its_notes(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Notes indexed before sentence vectors lose size, mtime and hash, in every tenant;
    failed notes keep theirs; existing chunks list no sentences."""
    # Today's store writes the notes, and its writes need the frontmatter columns
    # (migration 7) and the links table (10), which do not touch what migration 4 changes.
    before = tuple(m for m in migrations.MIGRATIONS if m[0] < 4 or m[0] in (7, 10))
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    vaults = {}
    for tenant in (1, 2):
        old = PostgresStore(pg_url, tenant_id=tenant)
        try:
            vault = vaults[tenant] = old.add_vault("v", tmp_path)
            old.replace_note(make_record(vault, "n.md", content_hash="abc", size=5, mtime_ns=7), [])
            old.record_failure(vault.id, "bad.md", "unreadable", 3, 4)
            # a chunk as the old schema's store wrote it (no sentence_hashes column yet)
            with psycopg.connect(pg_url) as conn:
                conn.execute("SELECT set_config('notecite.tenant_id', %s, true)", (str(tenant),))
                conn.execute(
                    "INSERT INTO chunks (tenant_id, chunk_id, note_id, vault_id, chunk_index, "
                    "title, heading_path, text, line_start, line_end, token_count, "
                    "content_hash) SELECT tenant_id, 'c', id, vault_id, 0, '', '', 'old', "
                    "1, 1, 1, 'h' FROM notes WHERE rel_path = 'n.md'"
                )
        finally:
            old.close()
    monkeypatch.undo()
    for tenant in (1, 2):
        store = PostgresStore(pg_url, tenant_id=tenant)
        try:
            states = store.note_states(vaults[tenant].id)
        finally:
            store.close()
        assert (states["n.md"].content_hash, states["n.md"].size, states["n.md"].mtime_ns) == (
            "",
            -1,
            -1,
        )
        assert (states["bad.md"].size, states["bad.md"].mtime_ns, states["bad.md"].failed) == (
            3,
            4,
            True,
        )
        assert _rows(pg_url, "SELECT sentence_hashes FROM chunks", tenant) == [([],)]
    forced = _rows(pg_url, "SELECT relforcerowsecurity FROM pg_class WHERE relname = 'notes'", 1)
    assert forced == [(True,)]
