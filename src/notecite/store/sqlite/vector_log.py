"""Following the index's writes in the in-memory vector matrix, row by row.

Triggers (migration 8) append to ``vector_log`` every chunk written or removed and every chunk
vector stored. A reader whose matrix has seen the log up to ``seq`` reads what came after,
loads only the rows of the chunks it names, and patches its :class:`LiveMatrix`; a reload of
every vector (seconds at 100k chunks) is left for when the changes are many, or when the
entries it needed were pruned.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from notecite.store.sqlite.vectors import SentenceVectors, VectorMatrix

# Entries kept in the log; older ones are pruned by writers of vectors.
KEEP_ENTRIES = 200_000
# Past this share of the base matrix changed, a reader reloads the whole matrix.
RELOAD_SHARE = 0.2
_PART = 500


@dataclass(frozen=True)
class Changes:
    """Chunk rowids to drop and to (re)load, after the log up to ``seq``."""

    seq: int
    removed: set[int]
    touched: set[int]


def last_seq(conn: sqlite3.Connection) -> int:
    """The newest log entry's number (0 before any)."""
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'vector_log'").fetchone()
    return int(row[0]) if row else 0


def changes_since(conn: sqlite3.Connection, seq: int, tenant_id: int) -> Changes | None:
    """What changed after entry ``seq``; None when entries it needs were pruned."""
    oldest = conn.execute("SELECT MIN(seq) FROM vector_log").fetchone()[0]
    newest = last_seq(conn)
    if newest > seq and (oldest is None or oldest > seq + 1):
        return None
    removed: set[int] = set()
    touched: set[int] = set()
    hashes: set[str] = set()
    for kind, chunk_id, content_hash in conn.execute(
        "SELECT kind, chunk_id, content_hash FROM vector_log WHERE seq > ? AND seq <= ?",
        (seq, newest),
    ):
        if kind == 0:
            removed.add(chunk_id)
        elif kind == 1:
            touched.add(chunk_id)
        else:
            hashes.add(content_hash)
    items = sorted(hashes)
    for start in range(0, len(items), _PART):
        part = items[start : start + _PART]
        touched.update(
            r[0]
            for r in conn.execute(
                "SELECT c.id FROM chunks c JOIN vaults v ON v.id = c.vault_id "
                f"AND v.tenant_id = ? WHERE c.content_hash IN ({','.join('?' * len(part))})",
                (tenant_id, *part),
            )
        )
    return Changes(newest, removed, touched)


def prune(conn: sqlite3.Connection) -> None:
    """Drop all but the newest :data:`KEEP_ENTRIES` entries (inside a write)."""
    conn.execute("DELETE FROM vector_log WHERE seq <= ?", (last_seq(conn) - KEEP_ENTRIES,))


def load_rows(
    conn: sqlite3.Connection, tenant_id: int, model_id: str, chunk_ids: Iterable[int]
) -> VectorMatrix | None:
    """The matrix rows (and sentence vectors) of the given chunks that exist, belong to the
    tenant and have a vector; None when none does."""
    ids = sorted(set(chunk_ids))
    rows: list[tuple[int, int, str, float | None, bytes, int]] = []
    owners: dict[str, list[int]] = {}
    for start in range(0, len(ids), _PART):
        part = ids[start : start + _PART]
        marks = ",".join("?" * len(part))
        rows.extend(
            conn.execute(
                "SELECT c.id, c.vault_id, n.folder, n.note_ts, e.vector, e.dimensions "
                "FROM chunks c JOIN notes n ON n.id = c.note_id "
                "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? "
                "JOIN embeddings e ON e.model_id = ? AND e.content_hash = c.content_hash "
                f"WHERE c.id IN ({marks}) ORDER BY c.id",
                (tenant_id, model_id, *part),
            )
        )
        for chunk_id, content_hash in conn.execute(
            "SELECT c.id, j.value FROM chunks c CROSS JOIN json_each(c.sentence_hashes) j "
            f"WHERE c.id IN ({marks})",
            part,
        ):
            owners.setdefault(content_hash, []).append(chunk_id)
    rows.sort(key=lambda r: r[0])
    matrix = VectorMatrix.from_rows([rows] if rows else [], len(rows))
    if matrix is None or not owners:
        return matrix
    blocks = []
    wanted = sorted(owners)
    for start in range(0, len(wanted), _PART):
        hashes = wanted[start : start + _PART]
        found = conn.execute(
            "SELECT content_hash, vector FROM sentence_embeddings WHERE model_id = ? "
            f"AND content_hash IN ({','.join('?' * len(hashes))})",
            (model_id, *hashes),
        ).fetchall()
        blocks.append([(chunk_id, blob) for h, blob in found for chunk_id in owners[h]])
    matrix.sentences = SentenceVectors.from_rows(matrix.rowids, blocks)
    return matrix
