"""Reading a whole tenant out of the SQLite index, for ``notecite store migrate``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime

import numpy as np

from notecite.store.base import StoredVector, TableCounts, TenantInfo
from notecite.store.rows import ExportedChunk
from notecite.store.sqlite.store import SQLiteStore
from notecite.types import Chunk, NoteLink, NoteRecord

_BLOCK = 2000  # rows read at a time
# The content hashes of the tenant's chunks, and of their sentence windows (one parameter:
# the tenant id). Vectors are shared by every tenant of the file, keyed by content hash; a
# tenant exports (and counts) only those of its own chunks, never another tenant's.
_OWN_CHUNKS = "SELECT c.{} FROM chunks c JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ?"
_OWN_CHUNK_HASHES = _OWN_CHUNKS.format("content_hash")
_OWN_SENTENCE_HASHES = (
    "SELECT j.value FROM chunks c JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? "
    "CROSS JOIN json_each(c.sentence_hashes) j"
)


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


class SQLiteExport:
    """The rows of one tenant of a :class:`SQLiteStore`.

    Vectors belong to the whole file (the SQLite store shares them between tenants, keyed by
    content hash): a tenant exports those of its own chunks and their sentence windows only.
    """

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store

    def tenants(self) -> list[TenantInfo]:
        """Every tenant of the file that owns a vault or a chat session, and tenant 1."""
        with self.store.db.read() as conn:
            rows = conn.execute(
                "SELECT id, name FROM tenants t WHERE id = 1 "
                "OR EXISTS (SELECT 1 FROM vaults v WHERE v.tenant_id = t.id) "
                "OR EXISTS (SELECT 1 FROM chat_sessions s WHERE s.tenant_id = t.id) ORDER BY id"
            ).fetchall()
        return [TenantInfo(int(r[0]), str(r[1])) for r in rows]

    def ensure_tenant(self, tenant: TenantInfo) -> None:
        """Create the tenant's row unless its id exists."""
        with self.store.db.write() as conn:
            conn.execute(
                "INSERT INTO tenants (id, name) VALUES (?, ?) ON CONFLICT DO NOTHING",
                (tenant.id, tenant.name),
            )

    def notes(self, vault_id: int) -> Iterator[tuple[NoteRecord, list[Chunk]]]:
        """Every note of a vault (failed ones too, without chunks), with its chunks."""
        conn = self.store.conn
        notes = conn.execute(
            "SELECT id, rel_path, folder, title, doc_type, note_type, description, keywords, "
            "frontmatter, created, modified, content_hash, size, mtime_ns, error "
            "FROM notes WHERE vault_id = ? ORDER BY id",
            (vault_id,),
        ).fetchall()
        for row in notes:
            record = NoteRecord(
                vault_id=vault_id,
                rel_path=row[1],
                folder=row[2],
                title=row[3],
                doc_type=row[4],
                note_type=row[5],
                description=row[6],
                keywords=tuple(json.loads(row[7])),
                frontmatter=json.loads(row[8]),
                created=_dt(row[9]),
                modified=_dt(row[10]),
                content_hash=row[11],
                size=row[12],
                mtime_ns=row[13],
                error=row[14],
                links=tuple(
                    NoteLink(target, line, text)
                    for target, line, text in conn.execute(
                        "SELECT target, line, line_text FROM note_links WHERE note_id = ? "
                        "ORDER BY rowid",
                        (row[0],),
                    )
                ),
            )
            chunks: list[Chunk] = [
                ExportedChunk(
                    chunk_id=c[0],
                    chunk_index=c[1],
                    heading_path=c[2],
                    text=c[3],
                    embed_text=c[3],
                    line_start=c[4],
                    line_end=c[5],
                    token_count=c[6],
                    content_hash=c[7],
                    stored_sentence_hashes=tuple(json.loads(c[8])),
                )
                for c in conn.execute(
                    "SELECT chunk_id, chunk_index, heading_path, text, line_start, line_end, "
                    "token_count, content_hash, sentence_hashes FROM chunks WHERE note_id = ? "
                    "ORDER BY chunk_index",
                    (row[0],),
                )
            ]
            yield record, chunks

    def embeddings(self) -> Iterator[list[StoredVector]]:
        """The vectors of this tenant's chunks, in blocks."""
        return self._vectors("embeddings", _OWN_CHUNK_HASHES)

    def sentence_vectors(self) -> Iterator[list[StoredVector]]:
        """The vectors of the sentence windows of this tenant's chunks, in blocks."""
        return self._vectors("sentence_embeddings", _OWN_SENTENCE_HASHES)

    def _vectors(self, table: str, own: str) -> Iterator[list[StoredVector]]:
        cur = self.store.conn.execute(
            f"SELECT model_id, content_hash, vector FROM {table} "
            f"WHERE content_hash IN ({own}) ORDER BY model_id, content_hash",
            (self.store.tenant_id,),
        )
        while rows := cur.fetchmany(_BLOCK):
            yield [StoredVector(r[0], r[1], np.frombuffer(r[2], dtype=np.float32)) for r in rows]

    def counts(self) -> TableCounts:
        """Rows of this tenant per table (vectors: those of its chunks)."""
        tenant = self.store.tenant_id
        own = "SELECT id FROM vaults WHERE tenant_id = ?"
        conn = self.store.conn

        def count(sql: str, *params: object) -> int:
            return int(conn.execute(sql, params).fetchone()[0])

        return TableCounts(
            vaults=count("SELECT count(*) FROM vaults WHERE tenant_id = ?", tenant),
            notes=count(f"SELECT count(*) FROM notes WHERE vault_id IN ({own})", tenant),
            chunks=count(f"SELECT count(*) FROM chunks WHERE vault_id IN ({own})", tenant),
            embeddings=count(
                f"SELECT count(*) FROM embeddings WHERE content_hash IN ({_OWN_CHUNK_HASHES})",
                tenant,
            ),
            sentence_vectors=count(
                "SELECT count(*) FROM sentence_embeddings "
                f"WHERE content_hash IN ({_OWN_SENTENCE_HASHES})",
                tenant,
            ),
            sessions=count("SELECT count(*) FROM chat_sessions WHERE tenant_id = ?", tenant),
            messages=count(
                "SELECT count(*) FROM chat_messages WHERE session_id IN "
                "(SELECT id FROM chat_sessions WHERE tenant_id = ?)",
                tenant,
            ),
        )
