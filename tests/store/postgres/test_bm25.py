"""BM25 on PostgreSQL: FTS5's scores, and statistics that follow every write."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

from notecite.store.postgres import migrations
from notecite.store.postgres.search import tsquery_text, tsvector_lexical_query
from notecite.store.postgres.store import PostgresStore
from notecite.store.sqlite import SQLiteStore
from notecite.types import SearchFilter
from tests.store.contract import CORPUS, make_chunk, make_record

pytestmark = pytest.mark.postgres

# Per tenant: the lexeme counts and the totals, as kept and as counted from the chunks.
KEPT_TERMS = "SELECT lexeme, chunks FROM bm25_terms WHERE tenant_id = {t} ORDER BY 1"
COUNTED_TERMS = (
    "SELECT t.lexeme, count(*) FROM chunks c, unnest(c.tsv) t WHERE c.tenant_id = {t} "
    "GROUP BY 1 ORDER BY 1"
)
KEPT_TOTALS = (
    "SELECT chunks, title_tokens, heading_tokens, body_tokens FROM bm25_totals "
    "WHERE tenant_id = {t} AND chunks > 0"
)
COUNTED_TOTALS = (
    "SELECT count(DISTINCT c.id), count(*) FILTER (WHERE w = 'A'), "
    "count(*) FILTER (WHERE w = 'B'), count(*) FILTER (WHERE w NOT IN ('A', 'B')) "
    "FROM chunks c LEFT JOIN LATERAL unnest(c.tsv) t ON true "
    "LEFT JOIN LATERAL unnest(t.weights) w ON true WHERE c.tenant_id = {t} HAVING count(*) > 0"
)


def _rows(url: str, query: str, tenant_id: int) -> list[tuple[object, ...]]:
    """Rows of ``query`` as the app role with ``notecite.tenant_id`` set to ``tenant_id``."""
    with psycopg.connect(url) as conn:
        conn.execute("SELECT set_config('notecite.tenant_id', %s, true)", (str(tenant_id),))
        return conn.execute(query.format(t=tenant_id).encode()).fetchall()


KEPT_LENGTHS = (
    "SELECT chunk_id, title_tokens, heading_tokens, body_tokens FROM bm25_lengths "
    "WHERE tenant_id = {t} ORDER BY 1"
)
COUNTED_LENGTHS = (
    "SELECT c.id, count(*) FILTER (WHERE w = 'A'), count(*) FILTER (WHERE w = 'B'), "
    "count(*) FILTER (WHERE w NOT IN ('A', 'B')) FROM chunks c "
    "LEFT JOIN LATERAL unnest(c.tsv) t ON true LEFT JOIN LATERAL unnest(t.weights) w ON true "
    "WHERE c.tenant_id = {t} GROUP BY 1 ORDER BY 1"
)


KEPT_POSTINGS = (
    "SELECT lexeme, chunk_id, tf, dl FROM bm25_postings WHERE tenant_id = {t} ORDER BY 1, 2"
)
# Title words count 2, heading words 1.5, text words 1; the chunk's length is all its words.
COUNTED_POSTINGS = (
    "SELECT t.lexeme, c.id, sum(CASE w WHEN 'A' THEN 2 WHEN 'B' THEN 1.5 ELSE 1 END)::real, "
    "(SELECT count(*) FROM unnest(c.tsv) u, unnest(u.weights))::integer "
    "FROM chunks c, unnest(c.tsv) t, unnest(t.weights) w WHERE c.tenant_id = {t} "
    "GROUP BY 1, 2, c.tsv ORDER BY 1, 2"
)


def _assert_counts_hold(url: str, tenant_id: int) -> None:
    assert _rows(url, KEPT_TERMS, tenant_id) == _rows(url, COUNTED_TERMS, tenant_id)
    assert _rows(url, KEPT_LENGTHS, tenant_id) == _rows(url, COUNTED_LENGTHS, tenant_id)
    assert _rows(url, KEPT_TOTALS, tenant_id) == _rows(url, COUNTED_TOTALS, tenant_id)
    assert _rows(url, KEPT_POSTINGS, tenant_id) == _rows(url, COUNTED_POSTINGS, tenant_id)


# Stop words (indexed by both), two-letter words (not stemmed by either), and words that
# Porter stems but Snowball's English stemmer stems otherwise (generic, this, dying, skies):
# the lengths and lexemes match, so the scores must too.
PARITY = {
    "atlas.md": ["atlas rocket launch budget", "this is the atlas crew mission orbit orbit"],
    "fuel.md": ["rocket fuel budget for us", "fuel tank pressure is dying"],
    "crew.md": ["crew training mission", "generic crew budget", "skies orbit mission launch"],
}


def _fill_parity(store: PostgresStore | SQLiteStore, tmp_path: Path) -> None:
    vault = store.add_vault("v", tmp_path / "v")
    for rel_path, texts in PARITY.items():
        chunks = [
            make_chunk(rel_path, i, t, heading_path=f"# {t.split()[0]}")
            for i, t in enumerate(texts)
        ]
        store.replace_note(make_record(vault, rel_path), chunks)


def _fill(store: PostgresStore | SQLiteStore, tmp_path: Path) -> None:
    vaults = {name: store.add_vault(name, tmp_path / name) for name in ("main", "other")}
    for rel_path, (vault, text, _, when) in CORPUS.items():
        record = make_record(vaults[vault], rel_path, when=when.replace(tzinfo=UTC))
        store.replace_note(record, [make_chunk(rel_path, 0, text)])


@pytest.mark.parametrize(
    "query",
    [
        "budget",
        "atlas launch",
        "crew mission budget",
        "orbit",
        "Fuel, crew & planet?",
        "What is this generalization about the skies?",
        "us",
        "the",
    ],
)
def test_scores_are_sqlite_fts5_scores(pg_url: str, tmp_path: Path, query: str) -> None:
    """Stop words, short words and Porter's stems as FTS5 has them: the scores are FTS5's."""
    sqlite, postgres = SQLiteStore(tmp_path / "index.db"), PostgresStore(pg_url)
    try:
        _fill_parity(sqlite, tmp_path)
        _fill_parity(postgres, tmp_path)
        expected = sqlite.lexical_search(query, SearchFilter(), 10)
        got = postgres.lexical_search(query, SearchFilter(), 10)
        assert expected
        assert [h.score for h in got] == pytest.approx([h.score for h in expected], rel=1e-9)
        expected_chunks = sqlite.fetch_chunks([h.chunk_rowid for h in expected])
        got_chunks = postgres.fetch_chunks([h.chunk_rowid for h in got])
        assert [got_chunks[h.chunk_rowid].chunk_id for h in got] == [
            expected_chunks[h.chunk_rowid].chunk_id for h in expected
        ]
    finally:
        sqlite.close()
        postgres.close()


def test_statistics_follow_every_write_of_every_tenant(pg_url: str, tmp_path: Path) -> None:
    stores = [PostgresStore(pg_url), PostgresStore(pg_url).for_tenant("second")]
    try:
        for store in stores:
            _fill(store, tmp_path)
        first, second = stores
        _assert_counts_hold(pg_url, first.tenant_id)
        main = first.get_vault("main")
        assert main is not None
        first.replace_note(
            make_record(main, "root.md", title="Root Title"),
            [make_chunk("root.md", 0, "new words"), make_chunk("root.md", 1, "budget words")],
        )
        first.delete_notes(main.id, ["projects/atlas.md"])
        _assert_counts_hold(pg_url, first.tenant_id)
        first.remove_vault("other")
        _assert_counts_hold(pg_url, first.tenant_id)
        first.clear_index()
        assert _rows(pg_url, KEPT_TERMS, first.tenant_id) == []
        assert _rows(pg_url, KEPT_TOTALS, first.tenant_id) == []
        # the other tenant's counts are its own, untouched
        _assert_counts_hold(pg_url, second.tenant_id)
        assert len(_rows(pg_url, KEPT_TERMS, second.tenant_id)) > 5
    finally:
        for store in stores:
            store.close()


def test_migration_5_counts_the_chunks_already_there(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the schema before migration 5, plus the frontmatter columns (migration 7) and the
    # links table (10) that today's store writes; they do not touch what migration 5 changes
    before = tuple(m for m in migrations.MIGRATIONS if m[0] <= 4 or m[0] in (7, 10))
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    old = PostgresStore(pg_url)
    try:
        _fill(old, tmp_path)
        old.for_tenant("second").list_vaults()
    finally:
        old.close()
    monkeypatch.undo()
    store = PostgresStore(pg_url)
    try:
        hits = store.lexical_search("atlas launch", SearchFilter(), 10)
        assert [store.fetch_chunks([h.chunk_rowid])[h.chunk_rowid].rel_path for h in hits] == [
            "projects/atlas.md"
        ]
    finally:
        store.close()
    _assert_counts_hold(pg_url, 1)
    forced = _rows(
        pg_url,
        "SELECT bool_and(relforcerowsecurity) FROM pg_class "
        "WHERE relname IN ('chunks', 'bm25_terms', 'bm25_lengths', 'bm25_totals')",
        1,
    )
    assert forced == [(True,)]


@pytest.mark.parametrize(
    "flt",
    [
        SearchFilter(),
        SearchFilter(folders=("projects",)),
        SearchFilter(since=datetime(2025, 3, 1, tzinfo=UTC)),
    ],
)
@pytest.mark.parametrize(
    "query", ["budget", "atlas launch plan legacy", "the review of the budget"]
)
def test_postings_rank_as_the_tsvectors_do(
    pg_url: str, tmp_path: Path, flt: SearchFilter, query: str
) -> None:
    """BM25 from ``bm25_postings`` gives the scores that ts_rank_cd over the matched chunks'
    tsvectors gives (the form the postings replaced)."""
    store = PostgresStore(pg_url)
    try:
        _fill(store, tmp_path)
        other = store.get_vault("other")
        assert other is not None
        store.replace_note(
            make_record(other, "titled.md", title="Budget review"),
            [make_chunk("titled.md", 0, "budget budget launch", heading_path="# Atlas budget")],
        )
        got = store.lexical_search(query, flt, 20)
        with psycopg.connect(pg_url) as conn:
            conn.execute("SELECT set_config('notecite.tenant_id', '1', true)")
            reference = conn.execute(
                *tsvector_lexical_query(1, tsquery_text(query), flt, 20)
            ).fetchall()
        assert got
        assert [h.chunk_rowid for h in got] == [r[0] for r in reference]
        assert [h.score for h in got] == pytest.approx([r[1] for r in reference], rel=1e-12)
    finally:
        store.close()


def test_migration_8_rebuilds_the_words_and_counts_the_postings(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # and the links table (migration 10), which today's store writes
    before = tuple(m for m in migrations.MIGRATIONS if m[0] <= 7 or m[0] == 10)
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    old = PostgresStore(pg_url)
    try:
        _fill(old, tmp_path)
        vault = old.get_vault("main")
        assert vault is not None
        old.replace_note(
            make_record(vault, "gen.md"), [make_chunk("gen.md", 0, "this generic plan is us")]
        )
        old.for_tenant("second").list_vaults()
        # English stems, no stop words: "this" and "is" are gone, "generic" is "generic"
        assert _rows(pg_url, "SELECT count(*) FROM bm25_terms WHERE lexeme = 'this'", 1) == [(0,)]
    finally:
        old.close()
    monkeypatch.undo()
    store = PostgresStore(pg_url)
    try:
        hits = store.lexical_search("generalization", SearchFilter(), 10)
        assert [store.fetch_chunks([h.chunk_rowid])[h.chunk_rowid].rel_path for h in hits] == [
            "gen.md"
        ]
    finally:
        store.close()
    lexemes = _rows(
        pg_url,
        "SELECT t.lexeme FROM chunks c, unnest(c.tsv) t "
        "WHERE c.text = 'this generic plan is us' AND 'C' = ANY(t.weights) ORDER BY 1",
        1,
    )
    assert lexemes == [("gener",), ("is",), ("plan",), ("thi",), ("us",)]
    _assert_counts_hold(pg_url, 1)
    forced = _rows(
        pg_url,
        "SELECT bool_and(relforcerowsecurity) FROM pg_class WHERE relname IN "
        "('chunks', 'bm25_terms', 'bm25_lengths', 'bm25_totals', 'bm25_postings')",
        1,
    )
    assert forced == [(True,)]


def test_migration_9_reads_words_without_accents_and_counts_again(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notes = {
        "khans.md": "Ögedei Khan married Töregene, and Güyük was their son",
        "menu.md": "the café menu lists crêpes and a naïve tart",
        "plain.md": "Ogedei is spelled here without accents",
    }

    def fill(store: PostgresStore | SQLiteStore) -> None:
        vault = store.add_vault("v", tmp_path / "v")
        for rel_path, text in notes.items():
            store.replace_note(make_record(vault, rel_path), [make_chunk(rel_path, 0, text)])

    def found(store: PostgresStore | SQLiteStore, query: str) -> dict[str, float]:
        hits = store.lexical_search(query, SearchFilter(), 10)
        chunks = store.fetch_chunks([h.chunk_rowid for h in hits])
        return {chunks[h.chunk_rowid].rel_path: h.score for h in hits}

    # and the links table (migration 10), which today's store writes
    before = tuple(m for m in migrations.MIGRATIONS if m[0] <= 8 or m[0] == 10)
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    old = PostgresStore(pg_url)
    try:
        fill(old)
        assert list(found(old, "Ogedei")) == ["plain.md"]  # the accented spelling missed
    finally:
        old.close()
    monkeypatch.undo()
    sqlite = SQLiteStore(tmp_path / "fts5.db")
    store = PostgresStore(pg_url)
    try:
        fill(sqlite)
        for query in ("Ogedei", "Ögedei's son", "toregene guyuk", "cafe crepes naive"):
            expected = found(sqlite, query)
            assert expected, query
            assert found(store, query) == pytest.approx(expected, rel=1e-4), query
        assert store.mentions(["Ogedei Khan", "Guyuk", "Töregene"], SearchFilter()) == {
            "Ogedei Khan",
            "Guyuk",
            "Töregene",
        }
    finally:
        store.close()
        sqlite.close()
    _assert_counts_hold(pg_url, 1)
    # letters of other scripts keep their marks, as terms.fold leaves them
    assert _rows(pg_url, "SELECT notecite_fold('Ögedei й ñ')", 1) == [("Ogedei й n",)]
