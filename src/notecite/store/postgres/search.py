"""SQL of the PostgreSQL store's searches, with every filter pushed into the query.

Each builder returns a query and its parameters. Queries name chunks ``c``, notes ``n``,
embeddings ``e`` and sentence embeddings ``s``, and repeat the tenant condition that
row-level security also enforces (it lets the planner use the ``(tenant_id, ...)`` indexes).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime

import numpy as np
from psycopg import sql

from notecite.embed.base import Vectors
from notecite.store.fulltext import query_words
from notecite.store.postgres.frontmatter import conditions_sql
from notecite.types import SearchFilter

Query = tuple[sql.Composed, list[object]]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
# BM25 as SQLite's FTS5 computes it (``bm25(chunks_fts, 2.0, 1.5, 1.0)``): k1 1.2, b 0.75; a
# term's frequency in a chunk counts title words 2, heading-path words 1.5 and text words 1
# (the tsvector's weights A, B and C); a chunk's length is its number of words in all
# fields, set against the tenant's average; IDF is ln((N - n + 0.5) / (n + 0.5)), at least
# 1e-6, from the tenant's counts that ``bm25_terms`` and ``bm25_totals`` keep.
_K1 = 1.2
_B = 0.75
# A lexeme's weighted frequency in a chunk: ts_rank_cd of the lexeme alone, without
# normalisation, is the sum of its occurrences' weights (each occurrence is a cover of
# length one); weights may not exceed 1, so they are halved ({D, C, B, A}) and the sum
# doubled. One C call per query lexeme costs less than unnesting the whole tsvector, once
# the matched chunk's tsvector is read (detoasted) once rather than at every call.
_TERM_FREQUENCY = "2 * ts_rank_cd(ARRAY[0.5, 0.5, 0.75, 1.0]::float4[], m.tsv, terms.q, 0)"


def tsquery_text(text: str) -> str:
    """The distinct words of ``text`` (runs of letters and digits), lower-cased, without the
    stop words SQLite's query drops, joined by spaces ('' when it has none);
    :func:`lexical_query` turns them into lexemes."""
    return " ".join(query_words([w.lower() for w in _WORD.findall(text)]))


def vector_literal(vector: Vectors) -> str:
    """pgvector's text form of a float32 vector (every float32 survives the round trip)."""
    return "[" + ",".join(map(repr, np.asarray(vector, dtype=np.float32).tolist())) + "]"


def hnsw_index_name(model_id: str, dimensions: int) -> str:
    """The name of the HNSW index over the vectors of one model and dimension."""
    digest = hashlib.sha256(f"{model_id}\0{dimensions}".encode()).hexdigest()[:16]
    return f"embeddings_hnsw_{digest}"


def hnsw_index_sql(model_id: str, dimensions: int) -> sql.Composed:
    """``CREATE INDEX`` of the partial HNSW (cosine) index of one model and dimension."""
    return sql.SQL(
        "CREATE INDEX IF NOT EXISTS {name} ON embeddings USING hnsw "
        "((vector::vector({dims})) vector_cosine_ops) "
        "WHERE model_id = {model} AND dimensions = {dims}"
    ).format(
        name=sql.Identifier(hnsw_index_name(model_id, dimensions)),
        dims=sql.Literal(dimensions),
        model=sql.Literal(model_id),
    )


def restricts(flt: SearchFilter) -> bool:
    """Whether the filter hides any chunk of the tenant (a folder prefix '' hides none)."""
    return bool(
        flt.vault_ids
        or (flt.folders and all(f.rstrip("/") for f in flt.folders))
        or flt.since is not None
        or flt.until is not None
        or flt.frontmatter
    )


def _utc(value: datetime) -> datetime:
    """An aware datetime; a naive one is local time, as ``datetime.timestamp`` reads it."""
    return datetime.fromtimestamp(value.timestamp(), UTC)


def needs_notes(flt: SearchFilter) -> bool:
    """Whether the filter reads columns of ``notes`` (folders, dates, frontmatter); vaults
    are on chunks."""
    return bool(
        (flt.folders and all(f.rstrip("/") for f in flt.folders))
        or flt.since is not None
        or flt.until is not None
        or flt.frontmatter
    )


def filter_sql(flt: SearchFilter) -> tuple[sql.SQL, list[object]]:
    """Conditions (each starting with AND) on ``c`` and ``n`` for the vault, folder, date
    and frontmatter filter."""
    parts: list[str] = []
    params: list[object] = []
    if flt.vault_ids:
        parts.append("AND c.vault_id = ANY(%s)")
        params.append(list(flt.vault_ids))
    if flt.folders and all(f.rstrip("/") for f in flt.folders):
        clauses = []
        for folder in flt.folders:
            prefix = folder.rstrip("/")
            clauses.append("n.folder = %s OR starts_with(n.folder, %s)")
            params.extend([prefix, prefix + "/"])
        parts.append("AND (" + " OR ".join(clauses) + ")")
    if flt.since is not None:
        parts.append("AND n.note_ts >= %s")
        params.append(_utc(flt.since))
    if flt.until is not None:
        parts.append("AND n.note_ts <= %s")
        params.append(_utc(flt.until))
    if flt.frontmatter:
        fm_parts, fm_params = conditions_sql(flt.frontmatter)
        parts.extend(fm_parts)
        params.extend(fm_params)
    return sql.SQL(" ".join(parts)), params


# The query's lexemes (a word that stems like another counts twice, as in FTS5) with their
# IDF, from the tenant's totals.
_TERMS = (
    "WITH totals AS MATERIALIZED ("
    "SELECT chunks, (title_tokens + heading_tokens + body_tokens)::float8 "
    "/ greatest(chunks, 1) AS avgdl FROM bm25_totals WHERE tenant_id = %s), "
    "terms AS MATERIALIZED ("
    "SELECT t.lexeme, quote_literal(t.lexeme)::tsquery AS q, "
    "cardinality(t.positions) * greatest(ln((s.chunks - coalesce(d.chunks, 0) + 0.5) "
    "/ (coalesce(d.chunks, 0) + 0.5)), 1e-6) AS idf "
    "FROM totals s, unnest(notecite_fts_words(%s)) t "
    "LEFT JOIN bm25_terms d ON d.tenant_id = %s AND d.lexeme = t.lexeme) "
)


def _bm25_term(tf: str, dl: str) -> str:
    return (
        f"terms.idf * {tf} * {_K1 + 1!r} / ({tf} + {_K1!r} * (1 - {_B!r} + {_B!r} "
        f"* {dl} / totals.avgdl))"
    )


def lexical_query(tenant_id: int, words: str, flt: SearchFilter, limit: int) -> Query:
    """Chunks holding any lexeme of ``words`` (see :func:`tsquery_text`), by BM25 (positive,
    higher is better).

    The postings of the query's lexemes are read by key from ``bm25_postings`` (each with
    the lexeme's weighted frequency in its chunk and the chunk's length), and each chunk's
    score is the sum of their BM25 terms. Chunks (and notes) are joined only when the filter
    reads them: every match is ranked, and at 100k chunks an OR-query matches a large share
    of them.
    """
    where, params = filter_sql(flt)
    allowed: sql.Composable = sql.SQL("")
    if restricts(flt):
        # the chunks the filter lets through, found once (OFFSET 0) and hashed, rather
        # than one chunk lookup per posting
        notes = (
            "JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id "
            if needs_notes(flt)
            else ""
        )
        allowed = sql.SQL(
            "JOIN (SELECT c.id FROM chunks c " + notes + "WHERE c.tenant_id = %s {where} "
            "OFFSET 0) f ON f.id = p.chunk_id "
        ).format(where=where)
        params = [tenant_id, *params]
    query = sql.SQL(
        _TERMS + "SELECT p.chunk_id, sum(" + _bm25_term("p.tf", "p.dl") + ") AS score "
        "FROM terms JOIN bm25_postings p ON p.tenant_id = %s AND p.lexeme = terms.lexeme "
        "{allowed}, totals GROUP BY p.chunk_id ORDER BY score DESC, p.chunk_id LIMIT %s"
    ).format(allowed=allowed)
    return query, [tenant_id, words, tenant_id, tenant_id, *params, limit]


def tsvector_lexical_query(tenant_id: int, words: str, flt: SearchFilter, limit: int) -> Query:
    """The ranking of :func:`lexical_query` computed from the matched chunks' tsvectors
    (one ``ts_rank_cd`` call per chunk and query lexeme, no postings): the form it replaced,
    kept as the reference its scores are checked against and for ``bench/``."""
    where, params = filter_sql(flt)
    join = (
        "JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id" if needs_notes(flt) else ""
    )
    query = sql.SQL(
        _TERMS + ", q AS MATERIALIZED (SELECT string_agg(quote_literal(lexeme), ' | ')::tsquery "
        "AS q FROM terms) "
        # OFFSET 0 keeps each subquery whole: the matches' tsvectors are detoasted once (the
        # concatenation), and each term frequency is computed once, not once per use.
        "SELECT m.id, s.score FROM ("
        "SELECT c.id, c.tsv || ''::tsvector AS tsv, "
        "l.title_tokens + l.heading_tokens + l.body_tokens AS dl "
        "FROM q, chunks c JOIN bm25_lengths l ON l.tenant_id = c.tenant_id AND l.chunk_id = c.id "
        + join
        + " WHERE c.tenant_id = %s AND c.tsv @@ q.q {where} OFFSET 0) m, totals, "
        "LATERAL (SELECT sum(" + _bm25_term("f.tf", "m.dl") + ") AS score FROM terms, "
        "LATERAL (SELECT " + _TERM_FREQUENCY + " AS tf OFFSET 0) f WHERE f.tf > 0) s "
        "ORDER BY s.score DESC, m.id LIMIT %s"
    ).format(where=where)
    return query, [tenant_id, words, tenant_id, tenant_id, *params, limit]


def phrase_query_sql() -> str:
    """A tsquery of the words of ``%s`` one after the other (``<->``), as the tsvector
    holds them ('' when they have no lexeme)."""
    return (
        "(SELECT coalesce(string_agg(quote_literal(t.lexeme), ' <-> ' ORDER BY p), '')::tsquery "
        "FROM unnest(notecite_fts_words(%s)) t, unnest(t.positions) p)"
    )


def _model_condition(model_id: str, dimensions: int, alias: str = "e") -> sql.Composed:
    # Literals, not parameters: the planner must see that the partial index applies.
    return sql.SQL("{alias}.model_id = {model} AND {alias}.dimensions = {dims}").format(
        alias=sql.Identifier(alias), model=sql.Literal(model_id), dims=sql.Literal(dimensions)
    )


def approximate_query(
    tenant_id: int, model_id: str, query: Vectors, flt: SearchFilter, limit: int
) -> Query:
    """The nearest chunks by the HNSW index (cosine), filtered after the index scan."""
    dims = len(query)
    where, params = filter_sql(flt)
    text = sql.SQL(
        "SELECT c.id, 1 - (e.vector::vector({dims}) <=> %s::vector({dims})) AS score "
        "FROM embeddings e "
        "JOIN chunks c ON c.tenant_id = e.tenant_id AND c.content_hash = e.content_hash "
        "JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id "
        "WHERE e.tenant_id = %s AND {model} {where} "
        "ORDER BY e.vector::vector({dims}) <=> %s::vector({dims}) LIMIT %s"
    ).format(dims=sql.Literal(dims), model=_model_condition(model_id, dims), where=where)
    vector = vector_literal(query)
    return text, [vector, tenant_id, *params, vector, limit]


def exact_query(
    tenant_id: int, model_id: str, query: Vectors, flt: SearchFilter, limit: int
) -> Query:
    """The nearest chunks by cosine over every chunk the filter lets through (no index)."""
    dims = len(query)
    where, params = filter_sql(flt)
    text = sql.SQL(
        "WITH scored AS MATERIALIZED ("
        "SELECT c.id, e.vector <=> %s::vector AS distance "
        "FROM chunks c JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id "
        "JOIN embeddings e ON e.tenant_id = c.tenant_id AND e.content_hash = c.content_hash "
        "WHERE c.tenant_id = %s AND {model} {where}) "
        "SELECT id, 1 - distance FROM scored ORDER BY distance, id LIMIT %s"
    ).format(model=_model_condition(model_id, dims), where=where)
    return text, [vector_literal(query), tenant_id, *params, limit]


def scores_query(tenant_id: int, model_id: str, query: Vectors, rowids: Sequence[int]) -> Query:
    """Cosine similarity of the given chunks (those without a vector give no row)."""
    text = sql.SQL(
        "SELECT c.id, 1 - (e.vector <=> %s::vector) FROM chunks c "
        "JOIN embeddings e ON e.tenant_id = c.tenant_id AND e.content_hash = c.content_hash "
        "WHERE c.tenant_id = %s AND c.id = ANY(%s) AND {model}"
    ).format(model=_model_condition(model_id, len(query)))
    return text, [vector_literal(query), tenant_id, list(rowids)]


def sentence_scores_query(
    tenant_id: int, model_id: str, query: Vectors, rowids: Sequence[int]
) -> Query:
    """Best sentence cosine of each of the given chunks (one without sentence vectors of
    ``model_id`` gives no row).

    Sentence vectors have no HNSW index: they are looked up by key for the few chunks a
    search has already found by their own vectors.
    """
    text = sql.SQL(
        "SELECT c.id, max(1 - (s.vector <=> %s::vector)) FROM chunks c "
        "CROSS JOIN LATERAL unnest(c.sentence_hashes) AS h(content_hash) "
        "JOIN sentence_embeddings s ON s.tenant_id = c.tenant_id "
        "AND s.content_hash = h.content_hash AND {model} "
        "WHERE c.tenant_id = %s AND c.id = ANY(%s) GROUP BY c.id"
    ).format(model=_model_condition(model_id, len(query), "s"))
    return text, [vector_literal(query), tenant_id, list(rowids)]
