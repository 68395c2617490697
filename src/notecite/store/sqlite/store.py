"""SQLite store: one file in WAL mode, FTS5 for BM25, NumPy for exact vector search."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import numpy.typing as npt

from notecite.embed.base import Vectors
from notecite.errors import StoreError, VaultError
from notecite.filters import Condition
from notecite.filters.model import NEGATED, positive
from notecite.store.base import LinkingLine, NoteState, StoredChunk
from notecite.store.fulltext import QUERY_STOPWORDS, query_words
from notecite.store.rows import STORED_CHUNK_COLUMNS, failure_note, holds_phrase, stored_chunk
from notecite.store.sqlite import index_runs
from notecite.store.sqlite.connection import SQLiteConnection
from notecite.store.sqlite.frontmatter import (
    chunk_fields,
    chunks_meeting,
    conditions_sql,
    facet_counts,
    write_fields,
)
from notecite.store.sqlite.links import linking_lines, linking_sql, named_sql, write_links
from notecite.store.sqlite.lock import index_locks, lock_dir
from notecite.store.sqlite.vector_log import (
    RELOAD_SHARE,
    changes_since,
    last_seq,
    load_rows,
    prune,
)
from notecite.store.sqlite.vectors import (
    LiveMatrix,
    SentenceVectors,
    VectorMatrix,
    folder_matches,
)
from notecite.types import (
    Chunk,
    ChunkHit,
    FailedFile,
    NoteRecord,
    SearchFilter,
    Vault,
    VaultStatus,
)

logger = logging.getLogger(__name__)

_FTS_TOKEN = re.compile(r"\w+", re.UNICODE)
# Rows fetched at a time while the vector matrix is loaded.
_LOAD_BLOCK = 4096
_FTS_STOPWORDS = QUERY_STOPWORDS


def fts_query(text: str) -> str:
    """A safe FTS5 MATCH expression: the query's words, quoted, OR-ed."""
    unique = query_words([w.lower() for w in _FTS_TOKEN.findall(text)])
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in unique)


# Title, heading path and text weights; negated so that higher is better.
_BM25 = "-bm25(chunks_fts, 2.0, 1.5, 1.0)"


def _restricts(flt: SearchFilter) -> bool:
    """Whether the filter hides any chunk of the tenant (a folder prefix '' hides none)."""
    return bool(
        flt.vault_ids
        or (flt.folders and "" not in flt.folders)
        or flt.since is not None
        or flt.until is not None
        or flt.frontmatter
    )


def _filter_sql(flt: SearchFilter) -> tuple[list[str], list[object]]:
    """Conditions (each starting with AND) on ``c`` and ``n`` for the vault, folder and date
    filter, with their parameters."""
    sql: list[str] = []
    params: list[object] = []
    if flt.vault_ids:
        sql.append(f"AND c.vault_id IN ({','.join('?' * len(flt.vault_ids))})")
        params.extend(flt.vault_ids)
    if flt.folders and "" not in flt.folders:
        clauses = []
        for folder in flt.folders:
            prefix = folder.rstrip("/")
            clauses.append("(n.folder = ? OR substr(n.folder, 1, ?) = ?)")
            params.extend([prefix, len(prefix) + 1, prefix + "/"])
        sql.append("AND (" + " OR ".join(clauses) + ")")
    if flt.since is not None:
        sql.append("AND n.note_ts >= ?")
        params.append(flt.since.timestamp())
    if flt.until is not None:
        sql.append("AND n.note_ts <= ?")
        params.append(flt.until.timestamp())
    if flt.frontmatter:
        fm_sql, fm_params = conditions_sql(flt.frontmatter)
        sql.extend(fm_sql)
        params.extend(fm_params)
    return sql, params


def _lexical_sql(
    tenant_id: int, match: str, flt: SearchFilter, limit: int
) -> tuple[str, list[object]]:
    """The full-text query joined to chunks, notes and vaults, with every filter."""
    where, where_params = _filter_sql(flt)
    sql = [
        f"SELECT f.rowid, {_BM25} AS score FROM chunks_fts f "
        "JOIN chunks c ON c.id = f.rowid JOIN notes n ON n.id = c.note_id "
        "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? WHERE chunks_fts MATCH ?",
        *where,
        "ORDER BY score DESC, f.rowid LIMIT ?",
    ]
    return " ".join(sql), [tenant_id, match, *where_params, limit]


# Words of a chunk's text, as str.split() counts them (runs of spaces collapsed; a line
# break is not counted, so long texts are never over-counted): a chunk of more than 80 words
# always has two sentence windows or more (chunking.sentences cuts at 80).
_COLLAPSED = (
    "replace(replace(replace(replace(trim(c.text), '    ', ' '), '  ', ' '), '  ', ' '), '  ', ' ')"
)
_WORDS = f"length({_COLLAPSED}) - length(replace({_COLLAPSED}, ' ', '')) + 1"


def _vector_gaps(conn: sqlite3.Connection, vault_id: int) -> tuple[int, int, int]:
    """Chunks of the vault without a vector of the index's model, chunks of more than 80
    words that list no sentence window, and listed windows without a vector."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'embed_model'").fetchone()
    if row is None:
        return 0, 0, 0
    model = row[0]
    missing = conn.execute(
        "SELECT count(*) FROM chunks c WHERE c.vault_id = ? AND NOT EXISTS "
        "(SELECT 1 FROM embeddings e WHERE e.model_id = ? AND e.content_hash = c.content_hash)",
        (vault_id, model),
    ).fetchone()[0]
    unsplit = conn.execute(
        f"SELECT count(*) FROM chunks c WHERE c.vault_id = ? AND c.sentence_hashes = '[]' "
        f"AND {_WORDS} > 80",
        (vault_id,),
    ).fetchone()[0]
    missing_sentences = conn.execute(
        "SELECT count(*) FROM chunks c, json_each(c.sentence_hashes) j WHERE c.vault_id = ? "
        "AND NOT EXISTS (SELECT 1 FROM sentence_embeddings s WHERE s.model_id = ? "
        "AND s.content_hash = j.value)",
        (vault_id, model),
    ).fetchone()[0]
    return int(missing), int(unsplit), int(missing_sentences)


def _now() -> str:
    return datetime.now(UTC).isoformat()


def _ts(value: datetime | None) -> float | None:
    return value.timestamp() if value else None


class SQLiteStore:
    """The embedded default :class:`~notecite.store.Store`.

    Its connection (:attr:`db`) opens on first use; a ``sqlite3`` error of any call comes
    out as :class:`~notecite.errors.StoreError`.
    """

    keeps_sentence_vectors = True

    def __init__(self, path: Path, *, tenant_id: int = 1) -> None:
        self.path = path
        self.tenant_id = tenant_id
        self.db = SQLiteConnection(path, "the index")
        self._matrix: LiveMatrix | None = None
        self._matrix_key: tuple[str, str] | None = None
        self._log_seq = 0  # the vector_log entry the matrix has seen
        self._waiting: dict[tuple[int, str], tuple[str, frozenset[str]]] = {}
        self._fm_masks: dict[
            tuple[tuple[str, str], str, tuple[Condition, ...]], npt.NDArray[np.bool_]
        ] = {}

    # -- connection -------------------------------------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        """The connection, opened (and the file migrated) on first use."""
        return self.db.conn

    def tenant_id_of(self, name: str) -> int:
        """The id of the tenant called ``name`` in this file, created when it is new."""
        with self.db.write() as conn:
            conn.execute("INSERT OR IGNORE INTO tenants (name) VALUES (?)", (name,))
            row = conn.execute("SELECT id FROM tenants WHERE name = ?", (name,)).fetchone()
        return int(row[0])

    def for_tenant(self, name: str) -> SQLiteStore:
        """A store of the same file over the tenant called ``name`` (created when new)."""
        return SQLiteStore(self.path, tenant_id=self.tenant_id_of(name))

    def _own_vault(self, conn: sqlite3.Connection, vault_id: int) -> None:
        """Refuse to touch a vault of another tenant (ids come from callers)."""
        row = conn.execute(
            "SELECT 1 FROM vaults WHERE id = ? AND tenant_id = ?", (vault_id, self.tenant_id)
        ).fetchone()
        if row is None:
            raise VaultError(f"no vault with id {vault_id} for this tenant")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction that also bumps the index generation."""
        with self.db.write() as conn:
            yield conn
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('generation', '1') "
                "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
            )

    def index_lock(
        self, vaults: Sequence[tuple[int, str]], wait_s: float
    ) -> AbstractContextManager[None]:
        """An ``flock`` per vault beside the index file (see :mod:`.lock`)."""
        return index_locks(lock_dir(self.path), vaults, wait_s)

    def mark_indexed(self, vault_id: int, finished_at: datetime) -> None:
        """Record the end of a complete index run (see :mod:`.index_runs`)."""
        with self.db.write() as conn:
            index_runs.mark_indexed(conn, vault_id, finished_at)

    def last_indexed(self) -> dict[int, datetime]:
        """Vault id -> end of its last complete index run, for this tenant's vaults."""
        ids = [v.id for v in self.list_vaults()]
        with self.db.read() as conn:
            return index_runs.last_indexed(conn, ids)

    def index_holders(self) -> dict[int, str]:
        """Vault id -> holder of its index lock, for this tenant's vaults being indexed."""
        return index_runs.index_holders(lock_dir(self.path), [v.id for v in self.list_vaults()])

    def close(self) -> None:
        with self.db.lock:
            self.db.close()
            self._matrix = None

    # -- vaults -----------------------------------------------------------------------------

    def add_vault(self, name: str, path: Path) -> Vault:
        if self.get_vault(name) is not None:
            raise VaultError(f"a vault named {name!r} exists already; pick another name")
        with self._write() as conn:
            cur = conn.execute(
                "INSERT INTO vaults (tenant_id, name, path, created_at) VALUES (?, ?, ?, ?)",
                (self.tenant_id, name, str(path), _now()),
            )
        return Vault(int(cur.lastrowid or 0), name, path, self.tenant_id)

    def get_vault(self, name: str) -> Vault | None:
        with self.db.read() as conn:
            row = conn.execute(
                "SELECT id, name, path, tenant_id FROM vaults WHERE tenant_id = ? AND name = ?",
                (self.tenant_id, name),
            ).fetchone()
        return Vault(row[0], row[1], Path(row[2]), row[3]) if row else None

    def list_vaults(self) -> list[Vault]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT id, name, path, tenant_id FROM vaults WHERE tenant_id = ? ORDER BY name",
                (self.tenant_id,),
            ).fetchall()
        return [Vault(r[0], r[1], Path(r[2]), r[3]) for r in rows]

    def remove_vault(self, name: str) -> None:
        vault = self.get_vault(name)
        if vault is None:
            raise VaultError(f"no vault named {name!r}")
        with self._write() as conn:
            conn.execute(
                "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE vault_id = ?)",
                (vault.id,),
            )
            conn.execute("DELETE FROM chunks WHERE vault_id = ?", (vault.id,))
            conn.execute("DELETE FROM notes WHERE vault_id = ?", (vault.id,))
            conn.execute("DELETE FROM vaults WHERE id = ?", (vault.id,))
            index_runs.forget(conn, [vault.id])

    # -- index metadata ---------------------------------------------------------------------

    def _meta(self, key: str) -> str | None:
        with self.db.read() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return str(row[0]) if row else None

    def index_generation(self) -> str:
        """Changes with every write to the index, from any process (result caches key on it)."""
        return self._meta("generation") or "0"

    def embedder_info(self) -> tuple[str, int] | None:
        model, dims = self._meta("embed_model"), self._meta("embed_dimensions")
        return (model, int(dims)) if model and dims else None

    def set_embedder_info(self, model_id: str, dimensions: int) -> None:
        with self._write() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [("embed_model", model_id), ("embed_dimensions", str(dimensions))],
            )

    def clear_index(self) -> None:
        """Forget this tenant's notes and chunks; vaults stay registered.

        The embedding model is recorded per file, for every tenant: it is forgotten only
        when no tenant has chunks left.
        """
        own = "SELECT id FROM vaults WHERE tenant_id = ?"
        with self._write() as conn:
            conn.execute(
                f"DELETE FROM chunks_fts WHERE rowid IN "
                f"(SELECT id FROM chunks WHERE vault_id IN ({own}))",
                (self.tenant_id,),
            )
            conn.execute(f"DELETE FROM chunks WHERE vault_id IN ({own})", (self.tenant_id,))
            conn.execute(f"DELETE FROM notes WHERE vault_id IN ({own})", (self.tenant_id,))
            index_runs.forget(conn, [r[0] for r in conn.execute(own, (self.tenant_id,))])
            if conn.execute("SELECT 1 FROM chunks LIMIT 1").fetchone() is None:
                conn.execute("DELETE FROM meta WHERE key IN ('embed_model', 'embed_dimensions')")

    # -- notes ------------------------------------------------------------------------------

    def note_states(self, vault_id: int) -> dict[str, NoteState]:
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT n.rel_path, n.content_hash, n.size, n.mtime_ns, n.error FROM notes n "
                "JOIN vaults v ON v.id = n.vault_id AND v.tenant_id = ? WHERE n.vault_id = ?",
                (self.tenant_id, vault_id),
            ).fetchall()
        return {r[0]: NoteState(r[1], r[2], r[3], r[4] is not None) for r in rows}

    def touch_note(self, vault_id: int, rel_path: str, size: int, mtime_ns: int) -> None:
        with self.db.write() as conn:  # no new text: the generation stays
            self._own_vault(conn, vault_id)
            conn.execute(
                "UPDATE notes SET size = ?, mtime_ns = ? WHERE vault_id = ? AND rel_path = ?",
                (size, mtime_ns, vault_id, rel_path),
            )

    def _delete_chunks_of(self, conn: sqlite3.Connection, note_id: int) -> None:
        conn.execute(
            "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE note_id = ?)",
            (note_id,),
        )
        conn.execute("DELETE FROM chunks WHERE note_id = ?", (note_id,))

    def replace_note(self, note: NoteRecord, chunks: Sequence[Chunk]) -> None:
        with self._write() as conn:
            self._own_vault(conn, note.vault_id)
            note_id = self._upsert_note(conn, note)
            self._delete_chunks_of(conn, note_id)
            for chunk in chunks:
                cur = conn.execute(
                    "INSERT INTO chunks (chunk_id, note_id, vault_id, chunk_index, heading_path, "
                    "text, line_start, line_end, token_count, content_hash, sentence_hashes) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        chunk.chunk_id,
                        note_id,
                        note.vault_id,
                        chunk.chunk_index,
                        chunk.heading_path,
                        chunk.text,
                        chunk.line_start,
                        chunk.line_end,
                        chunk.token_count,
                        chunk.content_hash,
                        json.dumps(chunk.sentence_hashes),
                    ),
                )
                conn.execute(
                    "INSERT INTO chunks_fts (rowid, title, heading_path, text) VALUES (?, ?, ?, ?)",
                    (cur.lastrowid, note.title, chunk.heading_path, chunk.text),
                )

    def _upsert_note(self, conn: sqlite3.Connection, note: NoteRecord) -> int:
        row = conn.execute(
            "INSERT INTO notes (vault_id, rel_path, folder, title, doc_type, note_type, "
            "description, keywords, frontmatter, created, modified, note_ts, content_hash, size, "
            "mtime_ns, error, indexed_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (vault_id, rel_path) DO UPDATE SET folder = excluded.folder, "
            "title = excluded.title, doc_type = excluded.doc_type, "
            "note_type = excluded.note_type, description = excluded.description, "
            "keywords = excluded.keywords, frontmatter = excluded.frontmatter, "
            "created = excluded.created, modified = excluded.modified, "
            "note_ts = excluded.note_ts, content_hash = excluded.content_hash, "
            "size = excluded.size, mtime_ns = excluded.mtime_ns, error = excluded.error, "
            "indexed_at = excluded.indexed_at RETURNING id",
            (
                note.vault_id,
                note.rel_path,
                note.folder,
                note.title,
                note.doc_type,
                note.note_type,
                note.description,
                json.dumps(list(note.keywords)),
                json.dumps(note.frontmatter),
                note.created.isoformat() if note.created else None,
                note.modified.isoformat() if note.modified else None,
                _ts(note.modified or note.created),
                note.content_hash,
                note.size,
                note.mtime_ns,
                note.error,
                _now(),
            ),
        ).fetchone()
        write_fields(conn, int(row[0]), note.frontmatter)
        write_links(conn, int(row[0]), note.links)
        return int(row[0])

    def record_failure(
        self, vault_id: int, rel_path: str, reason: str, size: int, mtime_ns: int
    ) -> None:
        record = failure_note(vault_id, rel_path, reason, size, mtime_ns)
        with self._write() as conn:
            self._own_vault(conn, vault_id)
            note_id = self._upsert_note(conn, record)
            self._delete_chunks_of(conn, note_id)

    def delete_notes(self, vault_id: int, rel_paths: Iterable[str]) -> None:
        paths = list(rel_paths)
        if not paths:
            return
        with self._write() as conn:
            self._own_vault(conn, vault_id)
            for rel_path in paths:
                row = conn.execute(
                    "SELECT id FROM notes WHERE vault_id = ? AND rel_path = ?",
                    (vault_id, rel_path),
                ).fetchone()
                if row:
                    self._delete_chunks_of(conn, row[0])
                    conn.execute("DELETE FROM notes WHERE id = ?", (row[0],))

    # -- embeddings -------------------------------------------------------------------------

    def missing_embeddings(self, model_id: str, content_hashes: Iterable[str]) -> set[str]:
        return self._missing("embeddings", model_id, content_hashes)

    def put_embeddings(self, model_id: str, vectors: Mapping[str, Vectors]) -> None:
        self._put("embeddings", model_id, vectors)

    def missing_sentence_vectors(self, model_id: str, content_hashes: Iterable[str]) -> set[str]:
        return self._missing("sentence_embeddings", model_id, content_hashes)

    def put_sentence_vectors(self, model_id: str, vectors: Mapping[str, Vectors]) -> None:
        self._put("sentence_embeddings", model_id, vectors)

    def notes_waiting_for_vectors(self, vault_id: int, model_id: str) -> set[str]:
        # Asked by every retrieval: kept until the index generation moves.
        generation = self.index_generation()
        cached = self._waiting.get((vault_id, model_id))
        if cached is not None and cached[0] == generation:
            return set(cached[1])
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT n.rel_path FROM chunks c JOIN notes n ON n.id = c.note_id "
                "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? WHERE c.vault_id = ? "
                "AND NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model_id = ? "
                "AND e.content_hash = c.content_hash)",
                (self.tenant_id, vault_id, model_id),
            ).fetchall()
        waiting = frozenset(r[0] for r in rows)
        self._waiting[(vault_id, model_id)] = (generation, waiting)
        return set(waiting)

    def _missing(self, table: str, model_id: str, content_hashes: Iterable[str]) -> set[str]:
        wanted = set(content_hashes)
        if not wanted:
            return set()
        found: set[str] = set()
        items = list(wanted)
        with self.db.read() as conn:
            for start in range(0, len(items), 500):
                part = items[start : start + 500]
                marks = ",".join("?" * len(part))
                found.update(
                    r[0]
                    for r in conn.execute(
                        f"SELECT content_hash FROM {table} WHERE model_id = ? "
                        f"AND content_hash IN ({marks})",
                        (model_id, *part),
                    )
                )
        return wanted - found

    def _put(self, table: str, model_id: str, vectors: Mapping[str, Vectors]) -> None:
        if not vectors:
            return
        with self._write() as conn:
            prune(conn)
            conn.executemany(
                f"INSERT OR REPLACE INTO {table} (model_id, content_hash, dimensions, vector) "
                "VALUES (?, ?, ?, ?)",
                [
                    (model_id, h, int(v.shape[0]), np.asarray(v, dtype=np.float32).tobytes())
                    for h, v in vectors.items()
                ],
            )

    # -- search -----------------------------------------------------------------------------

    def _vector_matrix(self, model_id: str) -> LiveMatrix:
        """The in-memory matrix, kept in step with every writer (any process): patched with
        the rows a write changed (see :mod:`.vector_log`), reloaded when many changed."""
        with self.db.read() as conn:
            generation = self._meta("generation") or "0"
            key = (model_id, generation)
            if self._matrix is not None and self._matrix_key == key:
                return self._matrix
            same_model = self._matrix_key is not None and self._matrix_key[0] == model_id
            if self._matrix is not None and same_model:
                patched = self._patched(conn, model_id, self._matrix)
                if patched is not None:
                    self._matrix, self._matrix_key = patched, key
                    return patched
            self._matrix = None  # let a stale matrix go before its successor is built
            seq = last_seq(conn)
            cursor = conn.execute(
                "SELECT c.id, c.vault_id, n.folder, n.note_ts, e.vector, e.dimensions "
                "FROM chunks c JOIN notes n ON n.id = c.note_id "
                "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? "
                "JOIN embeddings e ON e.model_id = ? AND e.content_hash = c.content_hash "
                "ORDER BY c.id",
                (self.tenant_id, model_id),
            )
            capacity = int(
                conn.execute(
                    "SELECT COUNT(*) FROM chunks c JOIN vaults v ON v.id = c.vault_id "
                    "AND v.tenant_id = ?",
                    (self.tenant_id,),
                ).fetchone()[0]
            )
            blocks = iter(lambda: cursor.fetchmany(_LOAD_BLOCK), [])
            matrix = VectorMatrix.from_rows(blocks, capacity)
            if matrix is None:
                info = self.embedder_info()
                matrix = VectorMatrix.empty(info[1] if info else 0)
            else:
                matrix.sentences = self._sentence_vectors(conn, model_id, matrix.rowids)
            live = LiveMatrix(matrix)
            self._matrix, self._matrix_key, self._log_seq = live, key, seq
            return live

    def _patched(
        self, conn: sqlite3.Connection, model_id: str, current: LiveMatrix
    ) -> LiveMatrix | None:
        """``current`` with the rows changed since it was loaded; None when a reload is due
        (many changes, or the log entries it needed were pruned)."""
        changes = changes_since(conn, self._log_seq, self.tenant_id)
        if changes is None:
            return None
        changed = len(changes.removed | changes.touched) + current.changed
        if changed > RELOAD_SHARE * len(current.base):
            return None
        added = load_rows(conn, self.tenant_id, model_id, changes.touched)
        self._log_seq = changes.seq
        return current.updated(changes.removed | changes.touched, added)

    def _sentence_vectors(
        self, conn: sqlite3.Connection, model_id: str, chunk_rowids: npt.NDArray[np.int64]
    ) -> SentenceVectors | None:
        """The sentence vectors of this tenant's chunks, grouped by chunk.

        The (chunk, hash) pairs come from the chunks, then one sequential scan of the
        model's sentence vectors picks the wanted ones: a primary-key lookup per sentence
        (the obvious join) took 5x as long.
        """
        owners: dict[str, list[int]] = {}
        for chunk_id, content_hash in conn.execute(
            "SELECT c.id, j.value FROM chunks c "
            "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? "
            "CROSS JOIN json_each(c.sentence_hashes) j WHERE c.sentence_hashes != '[]'",
            (self.tenant_id,),
        ):
            owners.setdefault(content_hash, []).append(chunk_id)
        if not owners:
            return None
        cursor = conn.execute(
            "SELECT content_hash, vector FROM sentence_embeddings WHERE model_id = ?",
            (model_id,),
        )

        def blocks() -> Iterator[list[tuple[int, bytes]]]:
            for block in iter(lambda: cursor.fetchmany(_LOAD_BLOCK), []):
                yield [
                    (chunk_id, blob)
                    for content_hash, blob in block
                    for chunk_id in owners.get(content_hash, ())
                ]

        return SentenceVectors.from_rows(chunk_rowids, blocks())

    def vector_search(
        self,
        model_id: str,
        query: Vectors,
        flt: SearchFilter,
        limit: int,
        sentence_weight: float = 0.0,
    ) -> list[ChunkHit]:
        live = self._vector_matrix(model_id)
        allowed = self._frontmatter_mask(model_id, live.base, flt)
        delta = live.delta
        delta_allowed = (
            self._frontmatter_mask(model_id, delta, flt, "delta") if delta is not None else None
        )
        return live.search(query, flt, limit, sentence_weight, allowed, delta_allowed)

    def _frontmatter_mask(
        self, model_id: str, matrix: VectorMatrix, flt: SearchFilter, layer: str = "base"
    ) -> npt.NDArray[np.bool_] | None:
        """The rows of ``matrix`` whose note meets ``flt.frontmatter`` (None without
        conditions), kept per matrix. Each condition is looked up in its positive form
        (``status=draft`` for ``status!=draft``) and negated on the mask, so a broad
        negation costs what a selective lookup does."""
        if not flt.frontmatter:
            return None
        key = (self._matrix_key or (model_id, ""), layer, flt.frontmatter)
        cached = self._fm_masks.get(key)
        if cached is not None:
            return cached
        mask = np.ones(len(matrix), dtype=np.bool_)
        with self.db.read() as conn:
            for cond in flt.frontmatter:
                try:
                    rowids = chunks_meeting(conn, self.tenant_id, positive(cond))
                except sqlite3.Error as exc:
                    raise StoreError(f"frontmatter filter failed: {exc}") from exc
                rows = matrix.rows_of(np.asarray(rowids, dtype=np.int64))
                mask &= ~rows if cond.op in NEGATED else rows
        if len(self._fm_masks) >= 64:
            self._fm_masks.clear()
        self._fm_masks[key] = mask
        return mask

    def frontmatter_facets(
        self, vault_ids: Sequence[int], keys: Sequence[str]
    ) -> dict[str, dict[str, int]]:
        """For each key (lower case): value -> notes with it, in the vaults (all when empty)."""
        wanted = [k.strip().lower() for k in keys]
        with self.db.read() as conn:
            return facet_counts(conn, self.tenant_id, vault_ids, wanted)

    def chunk_fields(
        self, rowids: Sequence[int], keys: Sequence[str]
    ) -> dict[int, dict[str, list[str]]]:
        """Chunk rowid -> key -> the text values (lower case) its note holds."""
        with self.db.read() as conn:
            return chunk_fields(conn, self.tenant_id, rowids, [k.strip().lower() for k in keys])

    def vector_scores(
        self, model_id: str, query: Vectors, rowids: Sequence[int], sentence_weight: float = 0.0
    ) -> dict[int, float]:
        return self._vector_matrix(model_id).scores_for(query, rowids, sentence_weight)

    def recent_chunks(self, flt: SearchFilter, limit: int) -> list[int]:
        """The first chunk of each of the ``limit`` most recently dated notes in ``flt``."""
        if limit <= 0:
            return []
        where, params = _filter_sql(flt)
        query = (
            "SELECT MIN(c.id) FROM chunks c JOIN notes n ON n.id = c.note_id "
            "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? WHERE 1 = 1 "
            f"{' '.join(where)} GROUP BY n.id ORDER BY MAX(n.note_ts) DESC, n.id DESC LIMIT ?"
        )
        with self.db.read() as conn:
            try:
                rows = conn.execute(query, [self.tenant_id, *params, limit]).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"recent notes query failed: {exc}") from exc
        return [int(r[0]) for r in rows]

    def chunks_holding(self, marks: Sequence[str], flt: SearchFilter, limit: int) -> list[int]:
        """The chunks in ``flt`` whose text holds one of ``marks`` as written (case and all),
        newest notes first and in note order within each, at most ``limit``."""
        if limit <= 0 or not marks:
            return []
        where, params = _filter_sql(flt)
        held = " OR ".join("instr(c.text, ?) > 0" for _ in marks)
        query = (
            "SELECT c.id FROM chunks c JOIN notes n ON n.id = c.note_id "
            "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? "
            f"WHERE ({held}) {' '.join(where)} "
            "ORDER BY n.note_ts DESC, n.id DESC, c.chunk_index LIMIT ?"
        )
        with self.db.read() as conn:
            try:
                rows = conn.execute(query, [self.tenant_id, *marks, *params, limit]).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"chunk text query failed: {exc}") from exc
        return [int(r[0]) for r in rows]

    def chunks_mentioning(self, phrase: str, flt: SearchFilter, limit: int) -> list[int]:
        """The chunks in ``flt`` whose text holds the words of ``phrase`` in order, as the
        full-text index reads words, newest notes first and in note order within each, at
        most ``limit``."""
        words = [w.lower() for w in _FTS_TOKEN.findall(phrase)]
        if limit <= 0 or not words:
            return []
        match = 'text : "' + " ".join(w.replace('"', '""') for w in words) + '"'
        where, params = _filter_sql(flt)
        query = (
            "SELECT c.id FROM chunks_fts f JOIN chunks c ON c.id = f.rowid "
            "JOIN notes n ON n.id = c.note_id "
            "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? "
            f"WHERE chunks_fts MATCH ? {' '.join(where)} "
            "ORDER BY n.note_ts DESC, n.id DESC, c.chunk_index LIMIT ?"
        )
        with self.db.read() as conn:
            try:
                rows = conn.execute(query, [self.tenant_id, match, *params, limit]).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"full-text search failed: {exc}") from exc
        return [int(r[0]) for r in rows]

    def linking_notes(
        self, targets: Sequence[str], flt: SearchFilter, limit: int
    ) -> list[LinkingLine]:
        """The lines of the notes in ``flt`` that link to one of ``targets``."""
        if limit <= 0 or not targets:
            return []
        where, params = _filter_sql(flt)
        with self.db.read() as conn:
            try:
                query = linking_sql(self.tenant_id, list(targets), where, params, limit)
                return linking_lines(conn.execute(*query).fetchall())
            except sqlite3.Error as exc:
                raise StoreError(f"links query failed: {exc}") from exc

    def notes_named(self, names: Sequence[str], flt: SearchFilter, limit: int) -> list[int]:
        """The first chunks of the notes in ``flt`` whose file name or title is one of
        ``names``."""
        if limit <= 0 or not names:
            return []
        where, params = _filter_sql(flt)
        with self.db.read() as conn:
            try:
                query = named_sql(self.tenant_id, list(names), where, params, limit)
                return [int(r[0]) for r in conn.execute(*query).fetchall()]
            except sqlite3.Error as exc:
                raise StoreError(f"note name query failed: {exc}") from exc

    def mentions(self, phrases: Sequence[str], flt: SearchFilter) -> set[str]:
        found = set()
        unfound: list[tuple[str, list[str]]] = []
        with self.db.read() as conn:
            for phrase in phrases:
                words = [w.lower() for w in _FTS_TOKEN.findall(phrase)]
                if not words:
                    continue
                match = '"' + " ".join(w.replace('"', '""') for w in words) + '"'
                try:
                    if conn.execute(*_lexical_sql(self.tenant_id, match, flt, 1)).fetchone():
                        found.add(phrase)
                    else:
                        unfound.append((phrase, words))
                except sqlite3.OperationalError as exc:
                    raise StoreError(f"full-text search failed: {exc}") from exc
            found.update(self._in_properties(conn, unfound, flt))
        return found

    def _in_properties(
        self, conn: sqlite3.Connection, phrases: Sequence[tuple[str, list[str]]], flt: SearchFilter
    ) -> set[str]:
        """The phrases some note of ``flt`` holds in a frontmatter value (a tag, an alias, a
        property: the note mentions it, though its text may not). One scan of the values
        finds the notes that hold a phrase; only those are checked against ``flt``."""
        where, params = _filter_sql(flt)
        found = set()
        for phrase, words in phrases:
            try:
                rows = conn.execute(
                    "SELECT note_id, text FROM note_fields WHERE instr(text, ?) > 0 LIMIT 5000",
                    (words[0],),
                ).fetchall()
                notes = sorted({int(r[0]) for r in rows if holds_phrase(str(r[1]), words)})
                if not notes:
                    continue
                in_scope = " ".join(
                    [
                        "SELECT 1 FROM chunks c JOIN notes n ON n.id = c.note_id",
                        "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ?",
                        f"WHERE c.chunk_index = 0 AND n.id IN ({','.join('?' * len(notes))})",
                        *where,
                        "LIMIT 1",
                    ]
                )
                if conn.execute(in_scope, [self.tenant_id, *notes, *params]).fetchone():
                    found.add(phrase)
            except sqlite3.Error as exc:
                raise StoreError(f"frontmatter lookup failed: {exc}") from exc
        return found

    def lexical_search(self, query: str, flt: SearchFilter, limit: int) -> list[ChunkHit]:
        match = fts_query(query)
        if not match or limit <= 0:
            return []
        with self.db.read() as conn:
            try:
                if not _restricts(flt):
                    hits = self._lexical_top_unfiltered(conn, match, limit)
                    if hits is not None:
                        return hits
                rows = conn.execute(*_lexical_sql(self.tenant_id, match, flt, limit))
                return [ChunkHit(int(r[0]), float(r[1])) for r in rows]
            except sqlite3.OperationalError as exc:
                raise StoreError(f"full-text search failed: {exc}") from exc

    def _lexical_top_unfiltered(
        self, conn: sqlite3.Connection, match: str, limit: int
    ) -> list[ChunkHit] | None:
        """The top hits ranked by FTS5 alone, or None when the full query is needed.

        Joining every match to its chunk, note and vault costs more than BM25 itself when a
        query matches a large part of the index. Without a filter, the top ``limit`` matches
        are the answer as long as every one of them belongs to this tenant's chunks (or all
        matches were seen); ties are broken by rowid in both queries, so the order is the same.
        """
        if conn.execute(
            "SELECT 1 FROM vaults WHERE tenant_id != ? LIMIT 1", (self.tenant_id,)
        ).fetchone():
            return None
        rows = conn.execute(
            f"SELECT rowid, {_BM25} AS score FROM chunks_fts WHERE chunks_fts MATCH ? "
            "ORDER BY score DESC, rowid LIMIT ?",
            (match, limit),
        ).fetchall()
        if not rows:
            return []
        marks = ",".join("?" * len(rows))
        kept = {
            r[0]
            for r in conn.execute(
                "SELECT c.id FROM chunks c JOIN notes n ON n.id = c.note_id "
                "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? "
                f"WHERE c.id IN ({marks})",
                (self.tenant_id, *(r[0] for r in rows)),
            )
        }
        if len(kept) < len(rows) and len(rows) == limit:
            return None
        return [ChunkHit(int(r[0]), float(r[1])) for r in rows if r[0] in kept]

    def fetch_chunks(self, rowids: Sequence[int]) -> dict[int, StoredChunk]:
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        with self.db.read() as conn:
            rows = conn.execute(
                f"SELECT {STORED_CHUNK_COLUMNS} "
                "FROM chunks c JOIN notes n ON n.id = c.note_id JOIN vaults v ON v.id = c.vault_id "
                f"WHERE c.id IN ({marks}) AND v.tenant_id = ?",
                (*rowids, self.tenant_id),
            ).fetchall()
        return {int(r[0]): stored_chunk(r) for r in rows}

    # -- status -----------------------------------------------------------------------------

    def vault_status(self) -> list[VaultStatus]:
        result = []
        with self.db.read() as conn:
            for vault in self.list_vaults():
                notes = conn.execute(
                    "SELECT COUNT(*) FROM notes WHERE vault_id = ? AND error IS NULL", (vault.id,)
                ).fetchone()[0]
                chunks = conn.execute(
                    "SELECT COUNT(*) FROM chunks WHERE vault_id = ?", (vault.id,)
                ).fetchone()[0]
                failed = conn.execute(
                    "SELECT rel_path, error FROM notes WHERE vault_id = ? AND error IS NOT NULL "
                    "ORDER BY rel_path",
                    (vault.id,),
                ).fetchall()
                gaps = _vector_gaps(conn, vault.id) if chunks else (0, 0, 0)
                result.append(
                    VaultStatus(
                        name=vault.name,
                        path=str(vault.path),
                        notes=notes,
                        chunks=chunks,
                        failed=tuple(FailedFile(r[0], r[1]) for r in failed),
                        missing_vectors=gaps[0],
                        unsplit_chunks=gaps[1],
                        missing_sentence_vectors=gaps[2],
                    )
                )
        return result

    def folders(self, vault_id: int) -> list[str]:
        """Distinct folders of a vault's indexed notes."""
        with self.db.read() as conn:
            rows = conn.execute(
                "SELECT DISTINCT n.folder FROM notes n "
                "JOIN vaults v ON v.id = n.vault_id AND v.tenant_id = ? "
                "WHERE n.vault_id = ? AND n.error IS NULL ORDER BY n.folder",
                (self.tenant_id, vault_id),
            ).fetchall()
        return [r[0] for r in rows]


__all__ = ["SQLiteStore", "folder_matches", "fts_query"]
