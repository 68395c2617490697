"""Migration 8 of the PostgreSQL store: FTS5's words, and postings for BM25.

**Words.** SQLite's FTS5 (``porter unicode61``) indexes every word, stop words included,
and stems words of 3 to 64 letters with Porter's stemmer. PostgreSQL's ``english``
configuration (migration 5) dropped its own, longer stop-word list (so they did not count
in a chunk's length) and stemmed with Snowball's English stemmer (Porter2), which stems many
words differently ("generate" gen/generat, "this" thi/this). ``notecite_fts_words(text)``
makes the tsvector FTS5's way: ASCII punctuation read as a space (as migration 5 did),
every word kept and lower-cased (the ``simple`` configuration), and words of 3 to 64
characters stemmed by Snowball's ``porter`` stemmer (the original Porter algorithm; a
dictionary of this schema, ``notecite_porter``, with no stop words). The chunks' ``tsv``
column and its GIN index are rebuilt with it, and the BM25 statistics counted again.
What still differed from FTS5: diacritics (FTS5 folds "café" to "cafe"; migration 9,
``accents``, folds them too), symbols FTS5 keeps as words (emoji), digit-letter runs
PostgreSQL's parser reads as numbers ("587e6d62"), and the two spots where Porter's own
implementation departs from Snowball's ``porter`` ("-logy", "-ibly": technolog/technologi).

**Postings.** ``bm25_postings`` holds, per tenant, each lexeme of each chunk with its
weighted frequency (title words count 2, heading words 1.5, text words 1) and the chunk's
length, written by the same statement triggers as the other counts. A full-text search then
reads the postings of the question's lexemes from the primary key alone (it includes the
frequency and length: an index-only scan, once autovacuum has marked the pages visible) and
sums their BM25 terms per chunk, instead of scoring every chunk the GIN index matches with
one ``ts_rank_cd`` call per lexeme (the same scores, several times faster).
"""

from __future__ import annotations


def _row_security(table: str) -> str:
    check = "tenant_id = (SELECT notecite_tenant())"
    return (
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;\n"
        f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY;\n"
        f"CREATE POLICY tenant_isolation ON {table} USING ({check}) WITH CHECK ({check});\n"
    )


# A lexeme's weighted frequency from the weights of its positions (A title, B heading).
_WEIGHTED = "sum(CASE w WHEN 'A' THEN 2.0 WHEN 'B' THEN 1.5 ELSE 1.0 END)::real"

# Counts of the chunks in ``changed`` (a transition table or, in the migration, every chunk).
_ADD_LENGTHS = """
INSERT INTO bm25_lengths (tenant_id, chunk_id, title_tokens, heading_tokens, body_tokens)
    SELECT c.tenant_id, c.id,
        count(*) FILTER (WHERE w = 'A'),
        count(*) FILTER (WHERE w = 'B'),
        count(*) FILTER (WHERE w NOT IN ('A', 'B'))
    FROM changed c LEFT JOIN LATERAL unnest(c.tsv) t ON true
        LEFT JOIN LATERAL unnest(t.weights) w ON true
    GROUP BY 1, 2;
"""
_ADD_POSTINGS = f"""
INSERT INTO bm25_postings (tenant_id, lexeme, chunk_id, tf, dl)
    SELECT c.tenant_id, t.lexeme, c.id, {_WEIGHTED},
        min(l.title_tokens + l.heading_tokens + l.body_tokens)
    FROM changed c JOIN bm25_lengths l ON l.tenant_id = c.tenant_id AND l.chunk_id = c.id,
        unnest(c.tsv) t, unnest(t.weights) w
    GROUP BY 1, 2, 3;
"""


def words_function(text: str) -> str:
    """The definition of ``notecite_fts_words(doc)``, which splits ``text`` (an expression of
    ``doc``) into FTS5's words."""
    return f"""
CREATE OR REPLACE FUNCTION notecite_fts_words(doc text) RETURNS tsvector
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT
    AS $$
        SELECT coalesce(string_agg(quote_literal(s.lexeme) || ':' || s.positions, ' ')::tsvector,
            ''::tsvector)
        FROM (
            SELECT w.lexeme, string_agg(w.position::text, ',') AS positions
            FROM (
                SELECT CASE WHEN length(t.lexeme) BETWEEN 3 AND 64
                    THEN coalesce((ts_lexize('notecite_porter', t.lexeme))[1], t.lexeme)
                    ELSE t.lexeme END AS lexeme, p AS position
                FROM unnest(to_tsvector('simple',
                    regexp_replace({text}, '[!-/:-@\\[-`{{-~]+', ' ', 'g'))) t,
                    unnest(t.positions) p
            ) w GROUP BY w.lexeme
        ) s
    $$;
"""


# The full-text column, rebuilt from the chunks by the word function (after it changed).
REBUILD_TSV = """
DROP INDEX chunks_tsv;
ALTER TABLE chunks DROP COLUMN tsv;
ALTER TABLE chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
    setweight(notecite_fts_words(title), 'A')
    || setweight(notecite_fts_words(heading_path), 'B')
    || setweight(notecite_fts_words(text), 'C')
) STORED;
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
"""

# Every BM25 count made again from the chunks' ``tsv`` (row-level security lifted for the
# migration's transaction, which holds the tables' locks until it commits).
RECOUNT = f"""
ALTER TABLE chunks NO FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_terms NO FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_lengths NO FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_totals NO FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_postings NO FORCE ROW LEVEL SECURITY;
DELETE FROM bm25_terms;
DELETE FROM bm25_lengths;
DELETE FROM bm25_totals;
DELETE FROM bm25_postings;
INSERT INTO bm25_terms (tenant_id, lexeme, chunks)
    SELECT c.tenant_id, t.lexeme, count(*) FROM chunks c, unnest(c.tsv) t GROUP BY 1, 2;
CREATE TEMPORARY VIEW changed AS SELECT tenant_id, id, tsv FROM chunks;
{_ADD_LENGTHS}
{_ADD_POSTINGS}
DROP VIEW changed;
INSERT INTO bm25_totals (tenant_id, chunks, title_tokens, heading_tokens, body_tokens)
    SELECT tenant_id, count(*), sum(title_tokens), sum(heading_tokens), sum(body_tokens)
    FROM bm25_lengths GROUP BY 1;
ALTER TABLE chunks FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_terms FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_lengths FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_totals FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_postings FORCE ROW LEVEL SECURITY;
"""

MIGRATION = (
    """
CREATE TEXT SEARCH DICTIONARY notecite_porter (TEMPLATE = snowball, LANGUAGE = porter);
"""
    + words_function("doc")
    + REBUILD_TSV
    + """
CREATE TABLE bm25_postings (
    tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    lexeme text NOT NULL,
    chunk_id bigint NOT NULL,
    tf real NOT NULL,
    dl integer NOT NULL,
    PRIMARY KEY (tenant_id, lexeme, chunk_id) INCLUDE (tf, dl)
);
"""
    + _row_security("bm25_postings")
    + f"""
CREATE OR REPLACE FUNCTION notecite_bm25_count() RETURNS trigger
    LANGUAGE plpgsql SET search_path FROM CURRENT
    AS $$
    DECLARE
        sign bigint := TG_ARGV[0]::bigint;
    BEGIN
        PERFORM pg_advisory_xact_lock(1852797797, t.tenant_id::integer)
            FROM (SELECT DISTINCT tenant_id FROM changed ORDER BY 1) t;
        INSERT INTO bm25_terms AS b (tenant_id, lexeme, chunks)
            SELECT c.tenant_id, t.lexeme, sign * count(*)
            FROM changed c, unnest(c.tsv) t GROUP BY 1, 2 ORDER BY 1, 2
            ON CONFLICT (tenant_id, lexeme) DO UPDATE SET chunks = b.chunks + excluded.chunks;
        IF sign < 0 THEN
            DELETE FROM bm25_terms b
                USING (SELECT DISTINCT c.tenant_id, t.lexeme FROM changed c, unnest(c.tsv) t) d
                WHERE b.tenant_id = d.tenant_id AND b.lexeme = d.lexeme AND b.chunks <= 0;
            DELETE FROM bm25_postings p USING changed c, unnest(c.tsv) t
                WHERE p.tenant_id = c.tenant_id AND p.lexeme = t.lexeme AND p.chunk_id = c.id;
        END IF;
        IF sign > 0 THEN
            {_ADD_LENGTHS}
            {_ADD_POSTINGS}
        END IF;
        INSERT INTO bm25_totals AS b
            (tenant_id, chunks, title_tokens, heading_tokens, body_tokens)
            SELECT l.tenant_id, sign * count(*), sign * sum(l.title_tokens),
                sign * sum(l.heading_tokens), sign * sum(l.body_tokens)
            FROM bm25_lengths l JOIN changed c ON c.tenant_id = l.tenant_id AND c.id = l.chunk_id
            GROUP BY 1 ORDER BY 1
            ON CONFLICT (tenant_id) DO UPDATE SET chunks = b.chunks + excluded.chunks,
                title_tokens = b.title_tokens + excluded.title_tokens,
                heading_tokens = b.heading_tokens + excluded.heading_tokens,
                body_tokens = b.body_tokens + excluded.body_tokens;
        IF sign < 0 THEN
            DELETE FROM bm25_lengths l USING changed c
                WHERE l.tenant_id = c.tenant_id AND l.chunk_id = c.id;
        END IF;
        RETURN NULL;
    END
    $$;
"""
    + RECOUNT
)
"""Migration 8: the word function, the rebuilt ``tsv``, ``bm25_postings`` and the counts."""
