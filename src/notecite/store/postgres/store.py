"""PostgreSQL store: pgvector HNSW for vectors, weighted tsvector full text, RLS per tenant."""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path

from psycopg import sql
from psycopg.types.json import Jsonb

from notecite.embed.base import Vectors
from notecite.errors import VaultError
from notecite.store.base import LinkingLine, NoteState, StoredChunk
from notecite.store.postgres import index_runs
from notecite.store.postgres.connection import Connection, TenantConnections, describe_url
from notecite.store.postgres.frontmatter import CHUNK_FIELDS_SQL, FACETS_SQL, facet_params
from notecite.store.postgres.frontmatter import columns as frontmatter_columns
from notecite.store.postgres.links import (
    delete_links_sql,
    insert_links,
    linking_lines,
    linking_query,
    named_query,
)
from notecite.store.postgres.lock import advisory_index_locks
from notecite.store.postgres.search import (
    approximate_query,
    exact_query,
    filter_sql,
    hnsw_index_name,
    hnsw_index_sql,
    lexical_query,
    phrase_query_sql,
    scores_query,
    sentence_scores_query,
    tsquery_text,
    vector_literal,
)
from notecite.store.rows import (
    SENTENCE_POOL_FACTOR,
    STORED_CHUNK_COLUMNS,
    dense_score,
    failure_note,
    holds_phrase,
    stored_chunk,
)
from notecite.types import Chunk, ChunkHit, FailedFile, NoteRecord, SearchFilter, Vault, VaultStatus

logger = logging.getLogger(__name__)

_PHRASE_WORD = re.compile(r"[^\W_]+", re.UNICODE)

# Held while an HNSW index is created, so that two writers do not race to create it.
_INDEX_LOCK = 0x6E6F746563697469  # "notecit" + "i"
_MAX_EF_SEARCH = 1000  # pgvector's upper bound of hnsw.ef_search
_C = 'COLLATE "C"'  # byte order, as in SQLite, whatever the database's locale
# The tenant's index generation: a counter in its ``meta`` row 'generation', bumped as the
# last statement of every write transaction (so the row is locked only until the commit).
_BUMP_GENERATION = (
    "INSERT INTO meta (tenant_id, key, value) VALUES (%s, 'generation', '1') "
    "ON CONFLICT (tenant_id, key) DO UPDATE SET value = (meta.value::bigint + 1)::text"
)

# Per vault of the tenant: chunks without a vector of the index's model, chunks of more than
# 80 words (always two sentence windows or more: chunking.sentences cuts at 80) that list no
# window, and listed windows without a vector; no row when nothing is embedded yet.
_VECTOR_GAPS = (
    "WITH model AS (SELECT value FROM meta WHERE tenant_id = %(t)s AND key = 'embed_model') "
    "SELECT c.vault_id, "
    "count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.tenant_id = "
    "c.tenant_id AND e.model_id = m.value AND e.content_hash = c.content_hash)), "
    "count(*) FILTER (WHERE cardinality(c.sentence_hashes) = 0 AND "
    "cardinality(regexp_split_to_array(btrim(c.text), '\\s+')) > 80), "
    "coalesce(sum((SELECT count(*) FROM unnest(c.sentence_hashes) h WHERE NOT EXISTS "
    "(SELECT 1 FROM sentence_embeddings s WHERE s.tenant_id = c.tenant_id "
    "AND s.model_id = m.value AND s.content_hash = h))), 0) "
    "FROM chunks c, model m WHERE c.tenant_id = %(t)s GROUP BY c.vault_id"
)


def _clean(text: str) -> str:
    """PostgreSQL text cannot hold NUL characters; SQLite can, so keep the rest of the text.

    A value that is not text goes through unchanged, for the database to reject.
    """
    return text.replace("\x00", "\ufffd") if isinstance(text, str) else text


def _utc(value: datetime | None) -> datetime | None:
    return datetime.fromtimestamp(value.timestamp(), UTC) if value else None


class PostgresStore:
    """The server :class:`~notecite.store.Store`: PostgreSQL 16 with pgvector.

    Nothing connects until first use; then the schema is migrated and a connection pool
    opens (:class:`TenantConnections`). Every transaction sets ``notecite.tenant_id``, which
    row-level security checks; every query also names the tenant, for the planner.

    Args:
        url: a libpq connection string or ``postgresql://`` URL.
        tenant_id: the tenant whose rows this store reads and writes.
        ef_search: ``hnsw.ef_search`` of vector searches (raised to the search's limit, or
            to its sentence pool).
        pool_size: the most connections the pool opens.

    Sentence vectors live in ``sentence_embeddings``, which has no HNSW index: with a
    sentence weight, a vector search re-scores the pool of chunks found by their own
    vectors.

    Every write transaction also bumps the tenant's index generation (``meta`` row
    'generation'), which :meth:`index_generation` reads: the search-results cache keys on it.
    """

    keeps_sentence_vectors = True
    keeps_query_log = True  # table query_log, opened by store.factory.open_query_log

    def __init__(
        self, url: str, *, tenant_id: int = 1, ef_search: int = 200, pool_size: int = 10
    ) -> None:
        self.tenant_id = tenant_id
        self.ef_search = ef_search
        self._pool_size = pool_size
        self._connections = TenantConnections(url, tenant_id, pool_size)
        self._tx = self._connections.transaction
        self._hnsw: set[tuple[str, int]] = set()  # (model, dimensions) known to be indexed
        self._deferred: set[tuple[str, int]] = set()  # indexes a bulk load builds at its end
        self._bulk_loads = 0  # bulk loads open on this store
        self._bulk_lock = threading.Lock()
        self._waiting: dict[tuple[int, str], tuple[str, frozenset[str]]] = {}

    def __repr__(self) -> str:
        url = describe_url(self._connections.url)
        return f"PostgresStore({url!r}, tenant_id={self.tenant_id})"

    @property
    def connections(self) -> TenantConnections:
        """The tenant's connection pool (for exports and maintenance)."""
        return self._connections

    def close(self) -> None:
        self._connections.close()
        self._hnsw.clear()

    @contextmanager
    def _write(self) -> Iterator[Connection]:
        """One transaction of the tenant that also bumps its index generation (at its end;
        a transaction that fails rolls the bump back with the rest)."""
        with self._tx() as conn:
            yield conn
            self._bump(conn)

    def _bump(self, conn: Connection) -> None:
        conn.execute(_BUMP_GENERATION, (self.tenant_id,))

    # -- tenants ----------------------------------------------------------------------------

    def tenant_id_of(self, name: str) -> int:
        """The id of the tenant called ``name`` in this database, created when it is new.

        It goes through ``notecite_tenant_id`` (migration 3), which may read every tenant's
        name where this store's own queries see only its tenant's row.
        """
        with self._tx() as conn:
            row = conn.execute("SELECT notecite_tenant_id(%s)", (name,)).fetchone()
        assert row is not None  # a function call returns one row
        return int(row[0])

    def for_tenant(self, name: str) -> PostgresStore:
        """A store of the same database over the tenant called ``name`` (created when new);
        it opens its own pool on first use."""
        return PostgresStore(
            self._connections.url,
            tenant_id=self.tenant_id_of(name),
            ef_search=self.ef_search,
            pool_size=self._pool_size,
        )

    # -- vaults -----------------------------------------------------------------------------

    def add_vault(self, name: str, path: Path) -> Vault:
        with self._write() as conn:
            row = conn.execute(
                "INSERT INTO vaults (tenant_id, name, path) VALUES (%s, %s, %s) "
                "ON CONFLICT (tenant_id, name) DO NOTHING RETURNING id",
                (self.tenant_id, name, str(path)),
            ).fetchone()
        if row is None:
            raise VaultError(f"a vault named {name!r} exists already; pick another name")
        return Vault(int(row[0]), name, path, self.tenant_id)

    def get_vault(self, name: str) -> Vault | None:
        with self._tx() as conn:
            row = conn.execute(
                "SELECT id, path FROM vaults WHERE tenant_id = %s AND name = %s",
                (self.tenant_id, name),
            ).fetchone()
        return Vault(int(row[0]), name, Path(row[1]), self.tenant_id) if row else None

    def list_vaults(self) -> list[Vault]:
        with self._tx() as conn:
            rows = conn.execute(
                f"SELECT id, name, path FROM vaults WHERE tenant_id = %s ORDER BY name {_C}",
                (self.tenant_id,),
            ).fetchall()
        return [Vault(int(r[0]), r[1], Path(r[2]), self.tenant_id) for r in rows]

    def remove_vault(self, name: str) -> None:
        with self._write() as conn:
            row = conn.execute(
                "DELETE FROM vaults WHERE tenant_id = %s AND name = %s RETURNING id",
                (self.tenant_id, name),
            ).fetchone()
        if row is None:
            raise VaultError(f"no vault named {name!r}")

    # -- index metadata ---------------------------------------------------------------------

    def index_generation(self) -> str:
        """Changes with every write to this tenant's index, from any process (the results
        cache keys on it); one read of the tenant's ``meta`` row 'generation'."""
        with self._tx() as conn:
            row = conn.execute(
                "SELECT value FROM meta WHERE tenant_id = %s AND key = 'generation'",
                (self.tenant_id,),
            ).fetchone()
        return f"{self.tenant_id}:{row[0] if row else '0'}"

    def embedder_info(self) -> tuple[str, int] | None:
        with self._tx() as conn:
            rows = dict(
                conn.execute(
                    "SELECT key, value FROM meta WHERE tenant_id = %s "
                    "AND key IN ('embed_model', 'embed_dimensions')",
                    (self.tenant_id,),
                ).fetchall()
            )
        model, dims = rows.get("embed_model"), rows.get("embed_dimensions")
        return (model, int(dims)) if model and dims else None

    def set_embedder_info(self, model_id: str, dimensions: int) -> None:
        with self._write() as conn:
            conn.cursor().executemany(
                "INSERT INTO meta (tenant_id, key, value) VALUES (%s, %s, %s) "
                "ON CONFLICT (tenant_id, key) DO UPDATE SET value = excluded.value",
                [
                    (self.tenant_id, "embed_model", model_id),
                    (self.tenant_id, "embed_dimensions", str(dimensions)),
                ],
            )

    def clear_index(self) -> None:
        """Forget every note, chunk and the recorded model; vaults stay registered."""
        with self._write() as conn:
            conn.execute("DELETE FROM notes WHERE tenant_id = %s", (self.tenant_id,))
            conn.execute(
                "DELETE FROM meta WHERE tenant_id = %s "
                "AND key IN ('embed_model', 'embed_dimensions')",
                (self.tenant_id,),
            )
            conn.execute(index_runs.FORGET_SQL, (self.tenant_id,))

    # -- notes ------------------------------------------------------------------------------

    def note_states(self, vault_id: int) -> dict[str, NoteState]:
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT rel_path, content_hash, size, mtime_ns, error IS NOT NULL FROM notes "
                "WHERE tenant_id = %s AND vault_id = %s",
                (self.tenant_id, vault_id),
            ).fetchall()
        return {r[0]: NoteState(r[1], r[2], r[3], r[4]) for r in rows}

    def touch_note(self, vault_id: int, rel_path: str, size: int, mtime_ns: int) -> None:
        with self._write() as conn:
            conn.execute(
                "UPDATE notes SET size = %s, mtime_ns = %s "
                "WHERE tenant_id = %s AND vault_id = %s AND rel_path = %s",
                (size, mtime_ns, self.tenant_id, vault_id, rel_path),
            )

    def replace_note(self, note: NoteRecord, chunks: Sequence[Chunk]) -> None:
        # One round trip for the statements (pipeline mode): the note's id comes from a
        # subquery rather than back to the client, all chunks go in one INSERT, and the
        # generation bump goes last.
        this_note = "SELECT id FROM notes WHERE tenant_id = %s AND vault_id = %s AND rel_path = %s"
        key = (self.tenant_id, note.vault_id, note.rel_path)
        with self._tx() as conn, conn.pipeline():
            self._upsert_note(conn, note)
            conn.execute(
                "UPDATE notes SET fm_text = %s, fm_num = %s, fm_ts = %s "
                "WHERE tenant_id = %s AND vault_id = %s AND rel_path = %s",
                (*frontmatter_columns(note.frontmatter), *key),
            )
            conn.execute(
                f"DELETE FROM chunks WHERE tenant_id = %s AND note_id = ({this_note})",
                (self.tenant_id, *key),
            )
            if chunks:
                self._insert_chunks(conn, note, chunks)
            conn.execute(delete_links_sql(this_note), (self.tenant_id, *key))
            links = insert_links(self.tenant_id, note, _clean)
            if links is not None:
                conn.execute(*links)
            self._bump(conn)  # last: the generation row stays locked only until the commit

    def _insert_chunks(self, conn: Connection, note: NoteRecord, chunks: Sequence[Chunk]) -> None:
        """All chunks of ``note`` in one INSERT (its id from a subquery, not the client)."""
        conn.execute(
            "INSERT INTO chunks (tenant_id, chunk_id, note_id, vault_id, chunk_index, "
            "title, heading_path, text, line_start, line_end, token_count, content_hash, "
            "sentence_hashes) "
            "SELECT n.tenant_id, c.chunk_id, n.id, n.vault_id, c.chunk_index, %s, "
            "c.heading_path, c.text, c.line_start, c.line_end, c.token_count, "
            "c.content_hash, "
            "string_to_array(c.sentence_hashes, ' ') FROM notes n, "
            "unnest(%s::text[], %s::int[], %s::text[], %s::text[], %s::int[], %s::int[], "
            "%s::int[], %s::text[], %s::text[]) WITH ORDINALITY AS c(chunk_id, "
            "chunk_index, heading_path, text, line_start, line_end, token_count, "
            "content_hash, sentence_hashes, position) "
            "WHERE n.tenant_id = %s AND n.vault_id = %s AND n.rel_path = %s "
            "ORDER BY c.position",
            (
                _clean(note.title),
                [c.chunk_id for c in chunks],
                [c.chunk_index for c in chunks],
                [_clean(c.heading_path) for c in chunks],
                [_clean(c.text) for c in chunks],
                [c.line_start for c in chunks],
                [c.line_end for c in chunks],
                [c.token_count for c in chunks],
                [c.content_hash for c in chunks],
                # one list per chunk, of any length: unnest cannot take a ragged
                # text[][], so each goes as one string of its (hex) hashes
                [" ".join(c.sentence_hashes) for c in chunks],
                self.tenant_id,
                note.vault_id,
                note.rel_path,
            ),
        )

    def _upsert_note(self, conn: Connection, note: NoteRecord) -> None:
        conn.execute(
            "INSERT INTO notes (tenant_id, vault_id, rel_path, folder, title, doc_type, "
            "note_type, description, keywords, frontmatter, created, modified, note_ts, "
            "content_hash, size, mtime_ns, error, indexed_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now()) "
            "ON CONFLICT (tenant_id, vault_id, rel_path) DO UPDATE SET folder = excluded.folder, "
            "title = excluded.title, doc_type = excluded.doc_type, "
            "note_type = excluded.note_type, description = excluded.description, "
            "keywords = excluded.keywords, frontmatter = excluded.frontmatter, "
            "created = excluded.created, modified = excluded.modified, "
            "note_ts = excluded.note_ts, content_hash = excluded.content_hash, "
            "size = excluded.size, mtime_ns = excluded.mtime_ns, error = excluded.error, "
            "indexed_at = excluded.indexed_at",
            (
                self.tenant_id,
                note.vault_id,
                note.rel_path,
                note.folder,
                _clean(note.title),
                note.doc_type,
                note.note_type,
                _clean(note.description),
                [_clean(k) for k in note.keywords],
                Jsonb(note.frontmatter),
                _utc(note.created),
                _utc(note.modified),
                _utc(note.modified or note.created),
                note.content_hash,
                note.size,
                note.mtime_ns,
                _clean(note.error) if note.error is not None else None,
            ),
        )

    def record_failure(
        self, vault_id: int, rel_path: str, reason: str, size: int, mtime_ns: int
    ) -> None:
        self.replace_note(failure_note(vault_id, rel_path, reason, size, mtime_ns), [])

    def delete_notes(self, vault_id: int, rel_paths: Iterable[str]) -> None:
        paths = sorted(set(rel_paths))
        if not paths:
            return
        with self._write() as conn:
            conn.execute(
                "DELETE FROM notes WHERE tenant_id = %s AND vault_id = %s AND rel_path = ANY(%s)",
                (self.tenant_id, vault_id, paths),
            )

    # -- embeddings -------------------------------------------------------------------------

    def missing_embeddings(self, model_id: str, content_hashes: Iterable[str]) -> set[str]:
        return self._missing("embeddings", model_id, content_hashes)

    def put_embeddings(self, model_id: str, vectors: Mapping[str, Vectors]) -> None:
        if not vectors:
            return
        for dims in sorted({len(v) for v in vectors.values()}):
            self._ensure_hnsw(model_id, dims)
        self._put("embeddings", model_id, vectors)

    def missing_sentence_vectors(self, model_id: str, content_hashes: Iterable[str]) -> set[str]:
        return self._missing("sentence_embeddings", model_id, content_hashes)

    def put_sentence_vectors(self, model_id: str, vectors: Mapping[str, Vectors]) -> None:
        # No HNSW index: searches look sentence vectors up by key (see vector_search).
        self._put("sentence_embeddings", model_id, vectors)

    def notes_waiting_for_vectors(self, vault_id: int, model_id: str) -> set[str]:
        # Asked by every retrieval: kept until the index generation moves.
        generation = self.index_generation()
        cached = self._waiting.get((vault_id, model_id))
        if cached is not None and cached[0] == generation:
            return set(cached[1])
        with self._tx() as conn:
            rows = conn.execute(
                "SELECT DISTINCT n.rel_path FROM chunks c JOIN notes n ON n.id = c.note_id "
                "WHERE c.tenant_id = %s AND c.vault_id = %s AND NOT EXISTS (SELECT 1 "
                "FROM embeddings e WHERE e.tenant_id = c.tenant_id AND e.model_id = %s "
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
        with self._tx() as conn:
            rows = conn.execute(
                sql.SQL(
                    "SELECT content_hash FROM {table} "
                    "WHERE tenant_id = %s AND model_id = %s AND content_hash = ANY(%s)"
                ).format(table=sql.Identifier(table)),
                (self.tenant_id, model_id, list(wanted)),
            ).fetchall()
        return wanted - {r[0] for r in rows}

    def _put(self, table: str, model_id: str, vectors: Mapping[str, Vectors]) -> None:
        if not vectors:
            return
        with self._write() as conn:
            # Sorted, so that two writers of overlapping batches lock rows in the same order.
            conn.cursor().executemany(
                sql.SQL(
                    "INSERT INTO {table} (tenant_id, model_id, content_hash, dimensions, vector) "
                    "VALUES (%s, %s, %s, %s, %s::vector) "
                    "ON CONFLICT (tenant_id, model_id, content_hash) DO UPDATE "
                    "SET dimensions = excluded.dimensions, vector = excluded.vector"
                ).format(table=sql.Identifier(table)),
                [
                    (self.tenant_id, model_id, h, len(vectors[h]), vector_literal(vectors[h]))
                    for h in sorted(vectors)
                ],
            )

    def _ensure_hnsw(self, model_id: str, dims: int) -> None:
        """Create the HNSW index of ``model_id`` at ``dims`` dimensions unless it exists.

        During :meth:`bulk_load`, an index whose vectors are all still to come (none stored
        yet) is left for the end of the load instead.
        """
        key = (model_id, dims)
        if key in self._hnsw or key in self._deferred:
            return
        with self._tx() as conn:
            exists = conn.execute(
                "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = %s",
                (hnsw_index_name(model_id, dims),),
            ).fetchone()
            if not exists and self._bulk_loads:
                first = not conn.execute(
                    "SELECT 1 FROM embeddings WHERE tenant_id = %s AND model_id = %s "
                    "AND dimensions = %s LIMIT 1",
                    (self.tenant_id, model_id, dims),
                ).fetchone()
                if first:
                    logger.info("bulk load: the HNSW index of %s waits for the end", model_id)
                    self._deferred.add(key)
                    return
            if not exists:
                self._create_hnsw(conn, model_id, dims)
        self._hnsw.add(key)

    def _create_hnsw(self, conn: Connection, model_id: str, dims: int) -> None:
        logger.info("creating the HNSW index of %s (%d dimensions)", model_id, dims)
        # Two writers take turns; the second finds the index there (IF NOT EXISTS).
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (_INDEX_LOCK,))
        conn.execute(hnsw_index_sql(model_id, dims))
        # Searches turn from exact to approximate: cached results of this tenant are stale.
        self._bump(conn)

    def index_lock(
        self, vaults: Sequence[tuple[int, str]], wait_s: float
    ) -> AbstractContextManager[None]:
        """A session advisory lock per vault (see :mod:`.lock`)."""
        return advisory_index_locks(self._connections.url, vaults, wait_s)

    def mark_indexed(self, vault_id: int, finished_at: datetime) -> None:
        """Record the end of a complete index run (see :mod:`.index_runs`)."""
        with self._tx() as conn:
            index_runs.mark_indexed(conn, self.tenant_id, vault_id, finished_at)

    def last_indexed(self) -> dict[int, datetime]:
        """Vault id -> end of its last complete index run, for this tenant's vaults."""
        with self._tx() as conn:
            return index_runs.last_indexed(conn, self.tenant_id)

    def index_holders(self) -> dict[int, str]:
        """Vault id -> holder of its index lock, for this tenant's vaults being indexed."""
        with self._tx() as conn:
            return index_runs.index_holders(conn, self.tenant_id)

    @contextmanager
    def bulk_load(self) -> Iterator[None]:
        """Load many vectors, then build their HNSW index once.

        Inside, the first vectors of a (model, dimension) with no index and no stored
        vectors do not create the index; it is built when the outermost ``bulk_load`` ends
        (also after an error), which is several times faster than keeping it up to date row
        by row. Searches stay correct meanwhile (exact, by a sequential scan). An index that
        exists is never dropped, and a concurrent writer outside a bulk load still creates
        the index at once; the advisory lock and ``IF NOT EXISTS`` make the builders take
        turns and build it once.
        """
        with self._bulk_lock:
            self._bulk_loads += 1
        try:
            yield
        finally:
            with self._bulk_lock:
                self._bulk_loads -= 1
                pending = sorted(self._deferred) if not self._bulk_loads else []
                self._deferred.difference_update(pending)
            for model_id, dims in pending:
                with self._tx() as conn:
                    self._create_hnsw(conn, model_id, dims)
                self._hnsw.add((model_id, dims))

    # -- search -----------------------------------------------------------------------------

    def vector_search(
        self,
        model_id: str,
        query: Vectors,
        flt: SearchFilter,
        limit: int,
        sentence_weight: float = 0.0,
    ) -> list[ChunkHit]:
        """Nearest chunks by the HNSW index, or by exact search when the index scan (which
        filters after it has found ``hnsw.ef_search`` candidates) came up short.

        With ``sentence_weight`` > 0 the search fetches a pool of max(``ef_search``,
        SENTENCE_POOL_FACTOR x limit) chunks that way (what the index scan visits anyway, so
        the default ``hnsw.ef_search`` of 200 is not raised for small limits; SQLite, whose
        pool costs nothing to widen, re-scores SENTENCE_POOL), looks up the best sentence
        cosine of each, and keeps the ``limit`` best by dense score.
        """
        if limit <= 0 or not len(query):
            return []
        mixed = sentence_weight > 0
        fetch = max(self.ef_search, SENTENCE_POOL_FACTOR * limit) if mixed else limit
        ef_search = min(max(self.ef_search, fetch), _MAX_EF_SEARCH)
        with self._tx(ef_search=ef_search) as conn:
            rows = conn.execute(
                *approximate_query(self.tenant_id, model_id, query, flt, fetch)
            ).fetchall()
            # Short of the limit: the filter dropped too many of the index's candidates.
            # (A pool short of its size but holding ``limit`` rows is kept as it is.)
            if len(rows) < limit:
                rows = conn.execute(
                    *exact_query(self.tenant_id, model_id, query, flt, fetch)
                ).fetchall()
            cosines = {int(r[0]): float(r[1]) for r in rows}
            if not mixed:
                hits = [ChunkHit(rowid, score) for rowid, score in cosines.items()]
                return sorted(hits, key=lambda h: (-h.score, h.chunk_rowid))
            dense = self._dense(conn, model_id, query, cosines, sentence_weight)
        hits = [ChunkHit(rowid, cosines[rowid], dense[rowid]) for rowid in cosines]
        hits.sort(key=lambda h: (-dense[h.chunk_rowid], h.chunk_rowid))
        return hits[:limit]

    def _dense(
        self,
        conn: Connection,
        model_id: str,
        query: Vectors,
        cosines: Mapping[int, float],
        weight: float,
    ) -> dict[int, float]:
        """(1 - weight) x chunk cosine + weight x best sentence cosine of each chunk in
        ``cosines`` (a chunk without sentence vectors counts its cosine as its best)."""
        if not cosines:
            return {}
        best = {
            int(r[0]): float(r[1])
            for r in conn.execute(
                *sentence_scores_query(self.tenant_id, model_id, query, list(cosines))
            )
        }
        return {
            rowid: dense_score(cosine, best.get(rowid, cosine), weight)
            for rowid, cosine in cosines.items()
        }

    def vector_scores(
        self, model_id: str, query: Vectors, rowids: Sequence[int], sentence_weight: float = 0.0
    ) -> dict[int, float]:
        if not rowids or not len(query):
            return {}
        with self._tx() as conn:
            rows = conn.execute(*scores_query(self.tenant_id, model_id, query, rowids))
            cosines = {int(r[0]): float(r[1]) for r in rows}
            if sentence_weight <= 0:
                return cosines
            return self._dense(conn, model_id, query, cosines, sentence_weight)

    def lexical_search(self, query: str, flt: SearchFilter, limit: int) -> list[ChunkHit]:
        tsquery = tsquery_text(query)
        if not tsquery or limit <= 0:
            return []
        with self._tx() as conn:
            rows = conn.execute(*lexical_query(self.tenant_id, tsquery, flt, limit)).fetchall()
        return [ChunkHit(int(r[0]), float(r[1])) for r in rows]

    def mentions(self, phrases: Sequence[str], flt: SearchFilter) -> set[str]:
        where, params = filter_sql(flt)
        join = "JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id"
        query = sql.SQL(
            "SELECT 1 FROM chunks c " + join + " "
            "WHERE c.tenant_id = %s AND c.tsv @@ " + phrase_query_sql() + " {} LIMIT 1"
        ).format(where)
        # a note mentions a phrase in a frontmatter value too: a tag, an alias, a property;
        # the notes whose values hold it are found first, then checked against the filter
        holding = "SELECT id, fm_text FROM notes WHERE tenant_id = %s AND fm_text::text LIKE %s"
        in_scope = sql.SQL(
            "SELECT 1 FROM chunks c " + join + " "
            "WHERE c.tenant_id = %s AND c.chunk_index = 0 AND n.id = ANY(%s) {} LIMIT 1"
        ).format(where)
        found = set()
        with self._tx() as conn:
            for phrase in phrases:
                words = _PHRASE_WORD.findall(phrase)
                if not words:
                    continue
                if conn.execute(query, [self.tenant_id, " ".join(words), *params]).fetchone():
                    found.add(phrase)
                    continue
                lower = [w.lower() for w in words]
                rows = conn.execute(
                    holding + " LIMIT 5000", [self.tenant_id, f"%{lower[0]}%"]
                ).fetchall()
                notes = [
                    int(note_id)
                    for note_id, fields in rows
                    if any(holds_phrase(str(v), lower) for vs in fields.values() for v in vs)
                ]
                if notes and conn.execute(in_scope, [self.tenant_id, notes, *params]).fetchone():
                    found.add(phrase)
        return found

    def recent_chunks(self, flt: SearchFilter, limit: int) -> list[int]:
        """The first chunk of each of the ``limit`` most recently dated notes in ``flt``."""
        if limit <= 0:
            return []
        where, params = filter_sql(flt)
        query = sql.SQL(
            "SELECT MIN(c.id) FROM chunks c "
            "JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id "
            "WHERE c.tenant_id = %s {} GROUP BY n.id "
            "ORDER BY MAX(n.note_ts) DESC NULLS LAST, n.id DESC LIMIT %s"
        ).format(where)
        with self._tx() as conn:
            rows = conn.execute(query, [self.tenant_id, *params, limit]).fetchall()
        return [int(r[0]) for r in rows]

    def chunks_holding(self, marks: Sequence[str], flt: SearchFilter, limit: int) -> list[int]:
        """The chunks in ``flt`` whose text holds one of ``marks`` as written (case and all),
        newest notes first and in note order within each, at most ``limit``."""
        if limit <= 0 or not marks:
            return []
        where, params = filter_sql(flt)
        held = sql.SQL(" OR ").join(sql.SQL("strpos(c.text, %s) > 0") for _ in marks)
        query = sql.SQL(
            "SELECT c.id FROM chunks c "
            "JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id "
            "WHERE c.tenant_id = %s AND ({}) {} "
            "ORDER BY n.note_ts DESC NULLS LAST, n.id DESC, c.chunk_index LIMIT %s"
        ).format(held, where)
        with self._tx() as conn:
            rows = conn.execute(query, [self.tenant_id, *marks, *params, limit]).fetchall()
        return [int(r[0]) for r in rows]

    def chunks_mentioning(self, phrase: str, flt: SearchFilter, limit: int) -> list[int]:
        """The chunks in ``flt`` whose text holds the words of ``phrase`` in order, as the
        full-text index reads words, newest notes first and in note order within each, at
        most ``limit``."""
        words = _PHRASE_WORD.findall(phrase)
        if limit <= 0 or not words:
            return []
        where, params = filter_sql(flt)
        # the GIN index finds the chunks that hold the words anywhere; the text's own words
        # (weight C: not the title's or the headings') must hold them in order
        query = sql.SQL(
            "SELECT c.id FROM chunks c "
            "JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id, "
            + phrase_query_sql()
            + " AS q(phrase) "
            "WHERE c.tenant_id = %s AND c.tsv @@ q.phrase "
            "AND ts_filter(c.tsv, '{{c}}') @@ q.phrase {} "
            "ORDER BY n.note_ts DESC NULLS LAST, n.id DESC, c.chunk_index LIMIT %s"
        ).format(where)
        with self._tx() as conn:
            rows = conn.execute(query, [" ".join(words), self.tenant_id, *params, limit]).fetchall()
        return [int(r[0]) for r in rows]

    def linking_notes(
        self, targets: Sequence[str], flt: SearchFilter, limit: int
    ) -> list[LinkingLine]:
        """The lines of the notes in ``flt`` that link to one of ``targets``."""
        if limit <= 0 or not targets:
            return []
        where, params = filter_sql(flt)
        with self._tx() as conn:
            rows = conn.execute(
                linking_query(where), [self.tenant_id, list(targets), *params, limit]
            ).fetchall()
        return linking_lines(rows)

    def notes_named(self, names: Sequence[str], flt: SearchFilter, limit: int) -> list[int]:
        """The first chunks of the notes in ``flt`` whose file name or title is one of
        ``names``."""
        if limit <= 0 or not names:
            return []
        where, params = filter_sql(flt)
        query, values = named_query(self.tenant_id, names, where, params)
        with self._tx() as conn:
            rows = conn.execute(query, [*values, limit]).fetchall()
        return [int(r[0]) for r in rows]

    def frontmatter_facets(
        self, vault_ids: Sequence[int], keys: Sequence[str]
    ) -> dict[str, dict[str, int]]:
        """For each key (lower case): value -> notes with it, in the vaults (all when empty)."""
        wanted = [k.strip().lower() for k in keys]
        found: dict[str, dict[str, int]] = {k: {} for k in wanted}
        if not wanted:
            return found
        with self._tx() as conn:
            for key, value, count in conn.execute(
                FACETS_SQL, facet_params(self.tenant_id, vault_ids, wanted)
            ):
                found[key][value] = int(count)
        return found

    def chunk_fields(
        self, rowids: Sequence[int], keys: Sequence[str]
    ) -> dict[int, dict[str, list[str]]]:
        """Chunk rowid -> key -> the text values (lower case) its note holds."""
        found: dict[int, dict[str, list[str]]] = {}
        if not rowids or not keys:
            return found
        wanted = [k.strip().lower() for k in keys]
        with self._tx() as conn:
            for rowid, key, value in conn.execute(
                CHUNK_FIELDS_SQL, [self.tenant_id, list(rowids), wanted]
            ):
                found.setdefault(int(rowid), {}).setdefault(key, []).append(value)
        return found

    def fetch_chunks(self, rowids: Sequence[int]) -> dict[int, StoredChunk]:
        if not rowids:
            return {}
        with self._tx() as conn:
            rows = conn.execute(
                f"SELECT {STORED_CHUNK_COLUMNS} FROM chunks c "
                "JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id "
                "JOIN vaults v ON v.tenant_id = c.tenant_id AND v.id = c.vault_id "
                "WHERE c.tenant_id = %s AND c.id = ANY(%s)",
                (self.tenant_id, list(rowids)),
            ).fetchall()
        return {int(r[0]): stored_chunk(r) for r in rows}

    # -- status -----------------------------------------------------------------------------

    def vault_status(self) -> list[VaultStatus]:
        with self._tx() as conn:
            vaults = conn.execute(
                "SELECT v.id, v.name, v.path, "
                "(SELECT count(*) FROM notes n WHERE n.tenant_id = v.tenant_id "
                "AND n.vault_id = v.id AND n.error IS NULL), "
                "(SELECT count(*) FROM chunks c WHERE c.tenant_id = v.tenant_id "
                "AND c.vault_id = v.id) "
                f"FROM vaults v WHERE v.tenant_id = %s ORDER BY v.name {_C}",
                (self.tenant_id,),
            ).fetchall()
            gaps = {
                int(r[0]): (int(r[1]), int(r[2]), int(r[3]))
                for r in conn.execute(_VECTOR_GAPS, {"t": self.tenant_id})
            }
            failed: dict[int, list[FailedFile]] = {}
            for vault_id, rel_path, error in conn.execute(
                "SELECT vault_id, rel_path, error FROM notes "
                f"WHERE tenant_id = %s AND error IS NOT NULL ORDER BY rel_path {_C}",
                (self.tenant_id,),
            ):
                failed.setdefault(vault_id, []).append(FailedFile(rel_path, error))
        return [
            VaultStatus(
                name=name,
                path=path,
                notes=int(notes),
                chunks=int(chunks),
                failed=tuple(failed.get(vault_id, ())),
                missing_vectors=gaps.get(vault_id, (0, 0, 0))[0],
                unsplit_chunks=gaps.get(vault_id, (0, 0, 0))[1],
                missing_sentence_vectors=gaps.get(vault_id, (0, 0, 0))[2],
            )
            for vault_id, name, path, notes, chunks in vaults
        ]

    def folders(self, vault_id: int) -> list[str]:
        """Distinct folders of a vault's indexed notes."""
        with self._tx() as conn:
            rows = conn.execute(
                'SELECT DISTINCT folder COLLATE "C" AS folder FROM notes '
                "WHERE tenant_id = %s AND vault_id = %s AND error IS NULL ORDER BY 1",
                (self.tenant_id, vault_id),
            ).fetchall()
        return [r[0] for r in rows]


__all__ = ["PostgresStore"]
