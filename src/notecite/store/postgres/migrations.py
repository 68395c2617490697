"""Numbered schema migrations of the PostgreSQL store, recorded in ``schema_migrations``.

Every table holds ``tenant_id`` and has a row-level security policy (forced, so that the
owning role is bound by it too) that lets a session see only the rows of its tenant:
``notecite_tenant()``, which is the tenant a ``tenant_roles`` row binds the current role to,
else the ``notecite.tenant_id`` setting the store sets in each transaction. Superusers and
roles with BYPASSRLS see everything, so the application should connect as an ordinary role.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg

from notecite.errors import StoreError
from notecite.store.postgres.accents import MIGRATION as WORDS_WITHOUT_ACCENTS
from notecite.store.postgres.bm25 import MIGRATION as BM25_WORDS_AND_POSTINGS
from notecite.store.postgres.frontmatter import MIGRATION as FRONTMATTER_COLUMNS
from notecite.store.postgres.frontmatter import fill_columns
from notecite.store.postgres.links import MIGRATION as NOTE_LINKS

_TENANT_TABLES = ("tenants", "meta", "vaults", "notes", "chunks", "embeddings")
_CHAT_TABLES = ("chat_sessions", "chat_messages")
_TENANT_COLUMN = {"tenants": "id"}
# Held while migrating, so that two processes opening a fresh database take turns.
_MIGRATION_LOCK = 0x6E6F7465636974  # "notecit"


def _row_security(table: str) -> str:
    column = _TENANT_COLUMN.get(table, "tenant_id")
    check = f"{column} = (SELECT notecite_tenant())"
    return (
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;\n"
        f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY;\n"
        f"CREATE POLICY tenant_isolation ON {table} USING ({check}) WITH CHECK ({check});\n"
    )


_SCHEMA = """
CREATE TABLE tenants (
    id bigint PRIMARY KEY,
    name text NOT NULL
);
CREATE TABLE tenant_roles (
    role_name text PRIMARY KEY,
    tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE
);
GRANT SELECT ON tenant_roles TO PUBLIC;
CREATE FUNCTION notecite_tenant() RETURNS bigint
    LANGUAGE sql STABLE SET search_path FROM CURRENT
    AS $$
        SELECT coalesce(
            (SELECT r.tenant_id FROM tenant_roles r WHERE r.role_name = current_user),
            nullif(current_setting('notecite.tenant_id', true), '')::bigint
        )
    $$;
CREATE TABLE meta (
    tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    key text NOT NULL,
    value text NOT NULL,
    PRIMARY KEY (tenant_id, key)
);
CREATE TABLE vaults (
    tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id bigint GENERATED ALWAYS AS IDENTITY,
    name text NOT NULL,
    path text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, name)
);
CREATE TABLE notes (
    tenant_id bigint NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY,
    vault_id bigint NOT NULL,
    rel_path text NOT NULL,
    folder text NOT NULL,
    title text NOT NULL DEFAULT '',
    doc_type text NOT NULL DEFAULT '',
    note_type text,
    description text NOT NULL DEFAULT '',
    keywords text[] NOT NULL DEFAULT '{}',
    frontmatter jsonb NOT NULL DEFAULT '{}',
    created timestamptz,
    modified timestamptz,
    note_ts timestamptz,
    content_hash text NOT NULL DEFAULT '',
    size bigint NOT NULL DEFAULT 0,
    mtime_ns bigint NOT NULL DEFAULT 0,
    error text,
    indexed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, vault_id, rel_path),
    FOREIGN KEY (tenant_id, vault_id) REFERENCES vaults (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX notes_folder ON notes (tenant_id, vault_id, folder);
CREATE INDEX notes_ts ON notes (tenant_id, note_ts);
CREATE TABLE chunks (
    tenant_id bigint NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY,
    chunk_id text NOT NULL,
    note_id bigint NOT NULL,
    vault_id bigint NOT NULL,
    chunk_index integer NOT NULL,
    title text NOT NULL,
    heading_path text NOT NULL,
    text text NOT NULL,
    line_start integer NOT NULL,
    line_end integer NOT NULL,
    token_count integer NOT NULL,
    content_hash text NOT NULL,
    tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A')
        || setweight(to_tsvector('english', heading_path), 'B')
        || setweight(to_tsvector('english', text), 'C')
    ) STORED,
    PRIMARY KEY (tenant_id, id),
    UNIQUE (tenant_id, chunk_id),
    FOREIGN KEY (tenant_id, note_id) REFERENCES notes (tenant_id, id) ON DELETE CASCADE,
    FOREIGN KEY (tenant_id, vault_id) REFERENCES vaults (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX chunks_note ON chunks (tenant_id, note_id);
CREATE INDEX chunks_vault ON chunks (tenant_id, vault_id);
CREATE INDEX chunks_hash ON chunks (tenant_id, content_hash);
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
-- One row per (model, text); the HNSW index of each (model, dimension) pair is a partial
-- expression index the store creates with the first vectors of that pair.
CREATE TABLE embeddings (
    tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    model_id text NOT NULL,
    content_hash text NOT NULL,
    dimensions integer NOT NULL CHECK (dimensions > 0),
    vector vector NOT NULL CHECK (vector_dims(vector) = dimensions),
    PRIMARY KEY (tenant_id, model_id, content_hash)
);
""" + "".join(_row_security(t) for t in _TENANT_TABLES)

# Chat sessions and their messages, as in the SQLite store's migration 2.
_CHAT = """
CREATE TABLE chat_sessions (
    tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id text NOT NULL,
    title text NOT NULL,
    settings jsonb NOT NULL DEFAULT '{}',
    created_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id)
);
CREATE INDEX chat_sessions_updated ON chat_sessions (tenant_id, updated_at DESC, id);
CREATE TABLE chat_messages (
    tenant_id bigint NOT NULL,
    id bigint GENERATED ALWAYS AS IDENTITY,
    session_id text NOT NULL,
    role text NOT NULL CHECK (role IN ('user', 'assistant')),
    content text NOT NULL,
    citations jsonb NOT NULL DEFAULT '[]',
    meta jsonb,
    error jsonb,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant_id, id),
    FOREIGN KEY (tenant_id, session_id) REFERENCES chat_sessions (tenant_id, id)
        ON DELETE CASCADE
);
CREATE INDEX chat_messages_session ON chat_messages (tenant_id, session_id, id);
""" + "".join(_row_security(t) for t in _CHAT_TABLES)

# Named tenants. Mapping a name to its id must read every tenant's row, which row-level
# security (forced on the owner too) hides. ``notecite_tenant_id(name)`` runs as the tables'
# owner (SECURITY DEFINER, pinned search_path) with ``notecite.tenant_registry`` on while it
# reads and writes; the ``tenant_registry`` policies let a session through on that setting
# only when its current role is (a member of) the owner, so a role that merely sets the
# setting, or one bound by tenant_roles, still sees its own tenant's row alone. Tenants
# are created under a lock, with the next free id; EXECUTE is the owner's unless granted.
_NAMED_TENANTS = """
CREATE FUNCTION notecite_tenant_registry() RETURNS boolean
    LANGUAGE sql STABLE SET search_path FROM CURRENT
    AS $$
        SELECT coalesce(current_setting('notecite.tenant_registry', true), '') = 'on'
            AND pg_has_role(
                current_user,
                (SELECT relowner FROM pg_class WHERE oid = 'tenants'::regclass),
                'USAGE'
            )
    $$;
CREATE POLICY tenant_registry_read ON tenants FOR SELECT
    USING ((SELECT notecite_tenant_registry()));
CREATE POLICY tenant_registry_add ON tenants FOR INSERT
    WITH CHECK ((SELECT notecite_tenant_registry()));
CREATE INDEX tenants_name ON tenants (name);
DO $migration$
BEGIN
    EXECUTE format($create$
        CREATE FUNCTION notecite_tenant_id(tenant_name text) RETURNS bigint
            LANGUAGE plpgsql VOLATILE SECURITY DEFINER
            SET search_path = pg_catalog, %I, pg_temp
            AS $body$
            DECLARE
                tenant bigint;
                registry text := current_setting('notecite.tenant_registry', true);
            BEGIN
                IF tenant_name IS NULL OR btrim(tenant_name) = '' THEN
                    RAISE EXCEPTION 'a tenant needs a name' USING ERRCODE = '22023';
                END IF;
                -- "notecit_": two sessions creating tenants take turns
                PERFORM pg_advisory_xact_lock(7957707045395330143);
                -- on for these statements only (an error ends the transaction, and the
                -- setting with it)
                PERFORM set_config('notecite.tenant_registry', 'on', true);
                SELECT min(id) INTO tenant FROM tenants WHERE name = tenant_name;
                IF tenant IS NULL THEN
                    SELECT coalesce(max(id), 0) + 1 INTO tenant FROM tenants;
                    INSERT INTO tenants (id, name) VALUES (tenant, tenant_name);
                END IF;
                PERFORM set_config('notecite.tenant_registry', coalesce(registry, ''), true);
                RETURN tenant;
            END
            $body$
    $create$, current_schema());
END
$migration$;
REVOKE ALL ON FUNCTION notecite_tenant_id(text) FROM PUBLIC;
"""

# Sentence-window vectors, as in the SQLite store's migration 6: each chunk lists the
# content hashes of its windows, whose vectors have their own table (kept apart from the
# chunk vectors that `store migrate` copies, and with no HNSW index: a search re-scores only
# the chunks it found by their own vectors). Notes indexed before lose their size, mtime and
# hash, so the next run re-chunks them (chunk vectors come from the cache). Row-level
# security is forced on the owner too, so the update lifts it for this transaction (which
# holds the table's lock until it commits) to reach every tenant's notes.
_SENTENCE_VECTORS = (
    """
ALTER TABLE chunks ADD COLUMN sentence_hashes text[] NOT NULL DEFAULT '{}';
CREATE TABLE sentence_embeddings (
    tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    model_id text NOT NULL,
    content_hash text NOT NULL,
    dimensions integer NOT NULL CHECK (dimensions > 0),
    vector vector NOT NULL CHECK (vector_dims(vector) = dimensions),
    PRIMARY KEY (tenant_id, model_id, content_hash)
);
"""
    + _row_security("sentence_embeddings")
    + """
ALTER TABLE notes NO FORCE ROW LEVEL SECURITY;
UPDATE notes SET size = -1, mtime_ns = -1, content_hash = '' WHERE error IS NULL;
ALTER TABLE notes FORCE ROW LEVEL SECURITY;
"""
)

# The words of full text as SQLite's FTS5 (unicode61) sees them: ASCII punctuation
# separates words, so "foam.openDailyNote" is two words rather than one "host" token of
# PostgreSQL's parser; non-ASCII letters stay letters whatever the database's locale.
_FTS_WORDS = "regexp_replace({}, '[!-/:-@\\[-`{{-~]+', ' ', 'g')"


def _field(column: str, weight: str) -> str:
    return f"setweight(to_tsvector('english', {_FTS_WORDS.format(column)}), '{weight}')"


# BM25 as SQLite's FTS5 computes it needs each query lexeme's document frequency, each
# chunk's length and their average; per tenant, these live in ``bm25_terms``,
# ``bm25_lengths`` and ``bm25_totals`` (lengths per field: title A, heading path B, text C),
# which statement triggers on ``chunks`` keep up to date in the same transaction as every
# write (a chunk's length is read by key, not counted from its tsvector at each search). A
# per-tenant advisory lock makes two writers of one tenant take turns on them (no deadlock on
# the rows of common lexemes). The full-text column is rebuilt with the FTS5 word split
# above, and the statistics are counted for the chunks already there (row-level security
# lifted for this transaction, which holds the tables' locks until it commits).
_BM25 = (
    f"""
DROP INDEX chunks_tsv;
ALTER TABLE chunks DROP COLUMN tsv;
ALTER TABLE chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
    {_field("title", "A")}
    || {_field("heading_path", "B")}
    || {_field("text", "C")}
) STORED;
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
CREATE TABLE bm25_terms (
    tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    lexeme text NOT NULL,
    chunks bigint NOT NULL,
    PRIMARY KEY (tenant_id, lexeme)
);
CREATE TABLE bm25_lengths (
    tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    chunk_id bigint NOT NULL,
    title_tokens integer NOT NULL,
    heading_tokens integer NOT NULL,
    body_tokens integer NOT NULL,
    PRIMARY KEY (tenant_id, chunk_id)
);
CREATE TABLE bm25_totals (
    tenant_id bigint PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
    chunks bigint NOT NULL,
    title_tokens bigint NOT NULL,
    heading_tokens bigint NOT NULL,
    body_tokens bigint NOT NULL
);
"""
    + _row_security("bm25_terms")
    + _row_security("bm25_lengths")
    + _row_security("bm25_totals")
    + """
CREATE FUNCTION notecite_bm25_count() RETURNS trigger
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
        END IF;
        IF sign > 0 THEN
            INSERT INTO bm25_lengths (tenant_id, chunk_id, title_tokens, heading_tokens,
                body_tokens)
                SELECT c.tenant_id, c.id,
                    count(*) FILTER (WHERE w = 'A'),
                    count(*) FILTER (WHERE w = 'B'),
                    count(*) FILTER (WHERE w NOT IN ('A', 'B'))
                FROM changed c LEFT JOIN LATERAL unnest(c.tsv) t ON true
                    LEFT JOIN LATERAL unnest(t.weights) w ON true
                GROUP BY 1, 2;
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
CREATE TRIGGER chunks_bm25_added AFTER INSERT ON chunks
    REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notecite_bm25_count(1);
CREATE TRIGGER chunks_bm25_removed AFTER DELETE ON chunks
    REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION notecite_bm25_count('-1');
ALTER TABLE chunks NO FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_terms NO FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_lengths NO FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_totals NO FORCE ROW LEVEL SECURITY;
INSERT INTO bm25_terms (tenant_id, lexeme, chunks)
    SELECT c.tenant_id, t.lexeme, count(*) FROM chunks c, unnest(c.tsv) t GROUP BY 1, 2;
INSERT INTO bm25_lengths (tenant_id, chunk_id, title_tokens, heading_tokens, body_tokens)
    SELECT c.tenant_id, c.id,
        count(*) FILTER (WHERE w = 'A'),
        count(*) FILTER (WHERE w = 'B'),
        count(*) FILTER (WHERE w NOT IN ('A', 'B'))
    FROM chunks c LEFT JOIN LATERAL unnest(c.tsv) t ON true
        LEFT JOIN LATERAL unnest(t.weights) w ON true
    GROUP BY 1, 2;
INSERT INTO bm25_totals (tenant_id, chunks, title_tokens, heading_tokens, body_tokens)
    SELECT tenant_id, count(*), sum(title_tokens), sum(heading_tokens), sum(body_tokens)
    FROM bm25_lengths GROUP BY 1;
ALTER TABLE chunks FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_terms FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_lengths FORCE ROW LEVEL SECURITY;
ALTER TABLE bm25_totals FORCE ROW LEVEL SECURITY;
"""
)

# Questions and answers of `ask`, as in the SQLite store's migration 5 (data, never log
# lines); ask.log_queries turns it off, `notecite log purge` deletes a tenant's entries.
_QUERY_LOG = """
CREATE TABLE query_log (
    tenant_id bigint NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
    id bigint GENERATED ALWAYS AS IDENTITY,
    asked_at timestamptz NOT NULL DEFAULT now(),
    question text NOT NULL,
    answer text NOT NULL,
    abstained boolean NOT NULL DEFAULT false,
    refs text[] NOT NULL DEFAULT '{}',
    llm text NOT NULL DEFAULT '',
    total_ms double precision,
    PRIMARY KEY (tenant_id, id)
);
""" + _row_security("query_log")

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (1, _SCHEMA),
    (2, _CHAT),
    (3, _NAMED_TENANTS),
    (4, _SENTENCE_VECTORS),
    (5, _BM25),
    (6, _QUERY_LOG),
    (7, FRONTMATTER_COLUMNS),
    (8, BM25_WORDS_AND_POSTINGS),
    (9, WORDS_WITHOUT_ACCENTS),
    (10, NOTE_LINKS + _row_security("note_links")),
)

# Python steps run after a migration's script, in its transaction (data SQL cannot shape).
_FILLS: dict[int, Callable[[psycopg.Connection[Any]], None]] = {7: fill_columns}


def ensure_pgvector(conn: psycopg.Connection[Any]) -> None:
    """Create the ``vector`` extension unless it exists (creating it needs a superuser)."""
    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
        return
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.errors.InsufficientPrivilege as exc:
        raise StoreError(
            "the pgvector extension is not enabled in this database and this role may not "
            "enable it; as a superuser, run in the database: CREATE EXTENSION vector;"
        ) from exc


def pending(conn: psycopg.Connection[Any]) -> list[int]:
    """Versions not applied yet (read-only: works on a replica too)."""
    row = conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL").fetchone()
    done: set[int] = set()
    if row and row[0]:
        done = {r[0] for r in conn.execute("SELECT version FROM schema_migrations")}
    return [version for version, _ in MIGRATIONS if version not in done]


def migrate(conn: psycopg.Connection[Any]) -> list[int]:
    """Apply pending migrations, each in its own transaction; return the versions applied.

    ``conn`` must be in autocommit mode. Concurrent callers wait for each other on an
    advisory lock, so every migration is applied once. An up-to-date schema is only read,
    so a read-only connection (a replica) passes.
    """
    if not pending(conn):
        return []
    ensure_pgvector(conn)
    applied = []
    for version, script in MIGRATIONS:
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            done = conn.execute(
                "SELECT 1 FROM schema_migrations WHERE version = %s", (version,)
            ).fetchone()
            if done:
                continue
            conn.execute(script)
            if version in _FILLS:
                _FILLS[version](conn)
            conn.execute("INSERT INTO schema_migrations (version) VALUES (%s)", (version,))
        applied.append(version)
    return applied
