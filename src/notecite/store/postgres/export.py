"""Reading a whole tenant out of the PostgreSQL store, for ``notecite store migrate``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import numpy as np

from notecite.store.base import StoredVector, TableCounts, TenantInfo
from notecite.store.postgres.store import PostgresStore
from notecite.store.rows import ExportedChunk
from notecite.types import Chunk, NoteLink, NoteRecord

_BLOCK = 2000  # rows fetched at a time
# The content hashes of the tenant's chunks and of their sentence windows (one parameter,
# the tenant id): vectors kept for text no chunk holds any more are not exported.
_OWN_CHUNK_HASHES = "SELECT content_hash FROM chunks WHERE tenant_id = %(t)s"
_OWN_SENTENCE_HASHES = "SELECT unnest(sentence_hashes) FROM chunks WHERE tenant_id = %(t)s"


def _utc(value: datetime | None) -> datetime | None:
    return value.astimezone(UTC) if value is not None else None


class PostgresExport:
    """The rows of the tenant of a :class:`PostgresStore` (row-level security shows no
    other)."""

    def __init__(self, store: PostgresStore) -> None:
        self.store = store
        self._tx = store.connections.transaction

    def tenants(self) -> list[TenantInfo]:
        """The store's own tenant: the only one its connections can see."""
        with self._tx() as conn:
            row = conn.execute(
                "SELECT id, name FROM tenants WHERE id = %s", (self.store.tenant_id,)
            ).fetchone()
        name = str(row[1]) if row else "default"
        return [TenantInfo(self.store.tenant_id, name)]

    def ensure_tenant(self, tenant: TenantInfo) -> None:
        """Create the tenant's row, or give it ``tenant.name``."""
        if tenant.id != self.store.tenant_id:
            raise ValueError(f"this store serves tenant {self.store.tenant_id}, not {tenant.id}")
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO tenants (id, name) VALUES (%s, %s) "
                "ON CONFLICT (id) DO UPDATE SET name = excluded.name",
                (tenant.id, tenant.name),
            )

    def notes(self, vault_id: int) -> Iterator[tuple[NoteRecord, list[Chunk]]]:
        """Every note of a vault (failed ones too, without chunks), with its chunks."""
        tenant = self.store.tenant_id
        with self._tx() as conn:
            notes = conn.execute(
                "SELECT id, rel_path, folder, title, doc_type, note_type, description, keywords, "
                "frontmatter, created, modified, content_hash, size, mtime_ns, error "
                "FROM notes WHERE tenant_id = %s AND vault_id = %s ORDER BY id",
                (tenant, vault_id),
            ).fetchall()
            chunks: dict[int, list[Chunk]] = {}
            for c in conn.execute(
                "SELECT note_id, chunk_id, chunk_index, heading_path, text, line_start, line_end, "
                "token_count, content_hash, sentence_hashes FROM chunks "
                "WHERE tenant_id = %s AND vault_id = %s "
                "ORDER BY note_id, chunk_index",
                (tenant, vault_id),
            ):
                chunks.setdefault(c[0], []).append(
                    ExportedChunk(
                        chunk_id=c[1],
                        chunk_index=c[2],
                        heading_path=c[3],
                        text=c[4],
                        embed_text=c[4],
                        line_start=c[5],
                        line_end=c[6],
                        token_count=c[7],
                        content_hash=c[8],
                        stored_sentence_hashes=tuple(c[9]),
                    )
                )
            links: dict[int, list[NoteLink]] = {}
            for note_id, target, line, text in conn.execute(
                "SELECT l.note_id, l.target, l.line, l.line_text FROM note_links l "
                "JOIN notes n ON n.tenant_id = l.tenant_id AND n.id = l.note_id "
                "WHERE l.tenant_id = %s AND n.vault_id = %s ORDER BY l.note_id, l.line, l.target",
                (tenant, vault_id),
            ):
                links.setdefault(note_id, []).append(NoteLink(target, line, text))
        for row in notes:
            record = NoteRecord(
                vault_id=vault_id,
                rel_path=row[1],
                folder=row[2],
                title=row[3],
                doc_type=row[4],
                note_type=row[5],
                description=row[6],
                keywords=tuple(row[7]),
                frontmatter=row[8],
                created=_utc(row[9]),
                modified=_utc(row[10]),
                content_hash=row[11],
                size=row[12],
                mtime_ns=row[13],
                error=row[14],
                links=tuple(links.get(row[0], [])),
            )
            yield record, chunks.get(row[0], [])

    def embeddings(self) -> Iterator[list[StoredVector]]:
        """The vectors of the tenant's chunks, in blocks."""
        return self._vectors("embeddings", _OWN_CHUNK_HASHES)

    def sentence_vectors(self) -> Iterator[list[StoredVector]]:
        """The vectors of the sentence windows of the tenant's chunks, in blocks."""
        return self._vectors("sentence_embeddings", _OWN_SENTENCE_HASHES)

    def _vectors(self, table: str, own: str) -> Iterator[list[StoredVector]]:
        with self._tx() as conn, conn.cursor(name="notecite_export") as cur:
            cur.execute(
                f"SELECT model_id, content_hash, vector::real[] FROM {table} "
                f"WHERE tenant_id = %(t)s AND content_hash IN ({own}) "
                "ORDER BY model_id, content_hash",
                {"t": self.store.tenant_id},
            )
            while rows := cur.fetchmany(_BLOCK):
                yield [StoredVector(r[0], r[1], np.asarray(r[2], dtype=np.float32)) for r in rows]

    def counts(self) -> TableCounts:
        """Rows of the tenant per table."""
        with self._tx() as conn:
            row = conn.execute(
                "SELECT (SELECT count(*) FROM vaults WHERE tenant_id = %(t)s), "
                "(SELECT count(*) FROM notes WHERE tenant_id = %(t)s), "
                "(SELECT count(*) FROM chunks WHERE tenant_id = %(t)s), "
                "(SELECT count(*) FROM embeddings WHERE tenant_id = %(t)s "
                f"AND content_hash IN ({_OWN_CHUNK_HASHES})), "
                "(SELECT count(*) FROM sentence_embeddings WHERE tenant_id = %(t)s "
                f"AND content_hash IN ({_OWN_SENTENCE_HASHES})), "
                "(SELECT count(*) FROM chat_sessions WHERE tenant_id = %(t)s), "
                "(SELECT count(*) FROM chat_messages WHERE tenant_id = %(t)s)",
                {"t": self.store.tenant_id},
            ).fetchone()
        assert row is not None  # a SELECT without FROM returns one row
        return TableCounts(*(int(v) for v in row))
