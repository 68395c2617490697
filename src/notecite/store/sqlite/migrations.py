"""Numbered schema migrations of the SQLite store, recorded in ``schema_migrations``."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from datetime import UTC, datetime

from notecite.store.sqlite.frontmatter import fill_note_fields

MIGRATIONS: tuple[tuple[int, str], ...] = (
    (
        1,
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE tenants (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE
        );
        INSERT INTO tenants (id, name) VALUES (1, 'default');
        CREATE TABLE vaults (
            id INTEGER PRIMARY KEY,
            tenant_id INTEGER NOT NULL DEFAULT 1 REFERENCES tenants(id),
            name TEXT NOT NULL,
            path TEXT NOT NULL,
            created_at TEXT NOT NULL,
            UNIQUE (tenant_id, name)
        );
        CREATE TABLE notes (
            id INTEGER PRIMARY KEY,
            vault_id INTEGER NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            rel_path TEXT NOT NULL,
            folder TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            doc_type TEXT NOT NULL DEFAULT '',
            note_type TEXT,
            description TEXT NOT NULL DEFAULT '',
            keywords TEXT NOT NULL DEFAULT '[]',
            frontmatter TEXT NOT NULL DEFAULT '{}',
            created TEXT,
            modified TEXT,
            note_ts REAL,
            content_hash TEXT NOT NULL DEFAULT '',
            size INTEGER NOT NULL DEFAULT 0,
            mtime_ns INTEGER NOT NULL DEFAULT 0,
            error TEXT,
            indexed_at TEXT NOT NULL,
            UNIQUE (vault_id, rel_path)
        );
        CREATE INDEX notes_folder ON notes (vault_id, folder);
        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            chunk_id TEXT NOT NULL UNIQUE,
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            vault_id INTEGER NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            chunk_index INTEGER NOT NULL,
            heading_path TEXT NOT NULL,
            text TEXT NOT NULL,
            line_start INTEGER NOT NULL,
            line_end INTEGER NOT NULL,
            token_count INTEGER NOT NULL,
            content_hash TEXT NOT NULL
        );
        CREATE INDEX chunks_note ON chunks (note_id);
        CREATE INDEX chunks_hash ON chunks (content_hash);
        CREATE VIRTUAL TABLE chunks_fts USING fts5 (
            title, heading_path, text, tokenize = 'porter unicode61'
        );
        CREATE TABLE embeddings (
            model_id TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            dimensions INTEGER NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model_id, content_hash)
        ) WITHOUT ROWID;
        """,
    ),
    (
        2,
        """
        CREATE TABLE chat_sessions (
            id TEXT PRIMARY KEY,
            tenant_id INTEGER NOT NULL DEFAULT 1 REFERENCES tenants(id),
            title TEXT NOT NULL,
            settings TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE INDEX chat_sessions_tenant ON chat_sessions (tenant_id, updated_at);
        CREATE TABLE chat_messages (
            id INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            content TEXT NOT NULL,
            citations TEXT NOT NULL DEFAULT '[]',
            meta TEXT NOT NULL DEFAULT '{}',
            created_at TEXT NOT NULL
        );
        CREATE INDEX chat_messages_session ON chat_messages (session_id, id);
        """,
    ),
    (
        3,
        """
        CREATE TABLE templates (
            id TEXT PRIMARY KEY,
            model_id TEXT NOT NULL,
            name TEXT NOT NULL,
            domain TEXT NOT NULL,
            complexity TEXT NOT NULL,
            methodology TEXT NOT NULL,
            keywords TEXT NOT NULL DEFAULT '[]',
            description TEXT NOT NULL DEFAULT '',
            content TEXT NOT NULL DEFAULT '',
            file_path TEXT NOT NULL DEFAULT '',
            fingerprint TEXT NOT NULL,
            dimensions INTEGER NOT NULL,
            vector BLOB NOT NULL,
            indexed_at TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX templates_model ON templates (model_id);
        """,
    ),
    (
        4,
        # Chunk ids name the vault, and vault names are unique per tenant only: two tenants
        # may index the same files under the same vault name. Rows keep their ids, which
        # the full-text table's rowids point to.
        """
        CREATE TABLE chunks_v4 (
            id INTEGER PRIMARY KEY,
            chunk_id TEXT NOT NULL,
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            vault_id INTEGER NOT NULL REFERENCES vaults(id) ON DELETE CASCADE,
            chunk_index INTEGER NOT NULL,
            heading_path TEXT NOT NULL,
            text TEXT NOT NULL,
            line_start INTEGER NOT NULL,
            line_end INTEGER NOT NULL,
            token_count INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            UNIQUE (vault_id, chunk_id)
        );
        INSERT INTO chunks_v4 SELECT id, chunk_id, note_id, vault_id, chunk_index, heading_path,
            text, line_start, line_end, token_count, content_hash FROM chunks;
        DROP TABLE chunks;
        ALTER TABLE chunks_v4 RENAME TO chunks;
        CREATE INDEX chunks_note ON chunks (note_id);
        CREATE INDEX chunks_hash ON chunks (content_hash);
        CREATE INDEX chunks_chunk_id ON chunks (chunk_id);
        """,
    ),
    (
        5,
        # Questions and answers of `ask`, as data (never log lines); ask.log_queries turns
        # it off, `notecite log purge` empties it.
        """
        CREATE TABLE query_log (
            id INTEGER PRIMARY KEY,
            tenant_id INTEGER NOT NULL DEFAULT 1 REFERENCES tenants(id),
            asked_at TEXT NOT NULL,
            question TEXT NOT NULL,
            answer TEXT NOT NULL,
            abstained INTEGER NOT NULL DEFAULT 0,
            refs TEXT NOT NULL DEFAULT '[]',
            llm TEXT NOT NULL DEFAULT '',
            total_ms REAL
        );
        CREATE INDEX query_log_tenant ON query_log (tenant_id, id);
        """,
    ),
    (
        6,
        # Sentence-window vectors for max-sim scoring: each chunk lists the content hashes of
        # its windows (a JSON array), whose vectors have their own table (kept apart from
        # the chunk vectors that `store migrate` copies to a server). Notes indexed before
        # lose their size/mtime/hash, so the next run re-chunks them: chunk vectors come
        # from the cache, only the sentence windows are embedded.
        """
        ALTER TABLE chunks ADD COLUMN sentence_hashes TEXT NOT NULL DEFAULT '[]';
        CREATE TABLE sentence_embeddings (
            model_id TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            dimensions INTEGER NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (model_id, content_hash)
        ) WITHOUT ROWID;
        UPDATE notes SET size = -1, mtime_ns = -1, content_hash = '' WHERE error IS NULL;
        """,
    ),
    (
        7,
        # Frontmatter flat for filters (tags=atlas, created>=2024-01-01): one row per key and
        # value, filled from the notes' frontmatter column by the step in _FILLS.
        """
        CREATE TABLE note_fields (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            text TEXT,
            number REAL,
            ts REAL
        );
        CREATE INDEX note_fields_text ON note_fields (key, text, note_id);
        CREATE INDEX note_fields_ts ON note_fields (key, ts, note_id);
        CREATE INDEX note_fields_number ON note_fields (key, number, note_id);
        CREATE INDEX note_fields_note ON note_fields (note_id);
        """,
    ),
    (
        8,
        # A journal of what the in-memory vector matrix must follow: chunks written (kind 1)
        # and removed (kind 0), and chunk vectors stored (kind 2, by content hash), so that
        # a reader after a write loads only the changed rows (see SQLiteStore._vector_matrix).
        # Old entries are pruned; a reader that needed them reloads the whole matrix.
        """
        CREATE TABLE vector_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            kind INTEGER NOT NULL,
            chunk_id INTEGER,
            content_hash TEXT
        );
        CREATE TRIGGER vector_log_chunk_added AFTER INSERT ON chunks BEGIN
            INSERT INTO vector_log (kind, chunk_id) VALUES (1, new.id);
        END;
        CREATE TRIGGER vector_log_chunk_removed AFTER DELETE ON chunks BEGIN
            INSERT INTO vector_log (kind, chunk_id) VALUES (0, old.id);
        END;
        CREATE TRIGGER vector_log_embedded AFTER INSERT ON embeddings BEGIN
            INSERT INTO vector_log (kind, content_hash) VALUES (2, new.content_hash);
        END;
        """,
    ),
    (
        9,
        # The links each note makes (targets as notecite.ingest.links reads them, with the
        # line of the file each is on), written and removed with the note. Notes indexed
        # before have none: PARSE_VERSION 5 has the next run read them again.
        """
        CREATE TABLE note_links (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            target TEXT NOT NULL,
            line INTEGER NOT NULL,
            line_text TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX note_links_target ON note_links (target, note_id);
        CREATE INDEX note_links_note ON note_links (note_id);
        """,
    ),
)

# Python steps run after a migration's script, in its transaction (data SQL cannot shape).
_FILLS: dict[int, Callable[[sqlite3.Connection], None]] = {7: fill_note_fields}


def migrate(conn: sqlite3.Connection) -> list[int]:
    """Apply pending migrations, each in its own transaction; return the versions applied."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    done = {row[0] for row in conn.execute("SELECT version FROM schema_migrations")}
    applied = []
    for version, script in MIGRATIONS:
        if version in done:
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # another connection may have applied it since we looked (two first opens)
            if conn.execute(
                "SELECT 1 FROM schema_migrations WHERE version = ?", (version,)
            ).fetchone():
                conn.execute("COMMIT")
                continue
            for statement in _statements(script):
                conn.execute(statement)
            if version in _FILLS:
                _FILLS[version](conn)
            conn.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                (version, datetime.now(UTC).isoformat()),
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        applied.append(version)
    return applied


def _statements(script: str) -> list[str]:
    """The statements of ``script``: split at semicolons that end one (not those inside a
    trigger's body)."""
    statements: list[str] = []
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n;"):
                statements.append(pending.strip())
            pending = ""
    if pending.strip(" \n;"):
        statements.append(pending.strip())
    return statements
