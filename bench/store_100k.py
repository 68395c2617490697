"""SQLite vs PostgreSQL + pgvector at 100k chunks, side by side in one run.

Both stores get the same index through the store API, the way the indexer writes it
(``put_embeddings`` for a batch of ~256 chunks, then ``replace_note`` per note):

- texts: SciFact abstracts cut at sentence ends into chunks of ~120 words, cycled with
  variations (sentence order rotated, a revision tag in the title) over 200 folders and two
  vaults (``main`` ~80%, ``archive`` ~20%), dates spread over 2020-2025
  (``search_latency._synthetic_notes``);
- vectors: the ``hash`` embedder at 384 dimensions (feature hashing of words): structured
  like text (similar texts, similar vectors) and free, so **embedding cost is excluded**
  from every figure (it is timed on its own).

PostgreSQL 16 + pgvector 0.6.2 comes from the ``pgserver`` wheel, on a temporary data
directory, connected as an ordinary role (row-level security applies). Its settings:
``synchronous_commit = off`` (like the SQLite store's WAL with ``synchronous = NORMAL``:
a crash may lose the last commits, never corrupts), ``maintenance_work_mem = 1GB`` (the
HNSW build fits in memory), the rest default. The load runs inside ``bulk_load`` (HNSW index
built once at the end, timed separately); a second database loads the first
``--live-chunks`` chunks with the index kept up to date row by row, for comparison.

Searches (interleaved per query between the stores; the first 5 queries warm up and are not
counted): ``vector_search`` (top 10), ``lexical_search`` (50), and the fused vector + BM25
search of ``bench/_fused.py`` (top 8 of 50), each without a filter and with a vault, a
folder-prefix and a
date filter. Recall@10 of PostgreSQL's ``vector_search`` (HNSW, ``hnsw.ef_search`` 40 and
100) against its exact search, per filter (with a filter the store falls back to exact
search when the index scan comes up short). The SQLite store's vector search is exact.

    python bench/store_100k.py                      # 100k chunks, 50 queries (~12 min, 2 cores)
    python bench/store_100k.py --chunks 20000 --queries 20
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
import sys
import tempfile
import time
import uuid
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

from _fused import fused_search
from _measure import machine, percentile
from notecite.embed.base import Vectors
from notecite.embed.hashing import HashEmbedder
from notecite.store.base import Store, bulk_load
from notecite.store.postgres.search import exact_query, hnsw_index_name
from notecite.store.postgres.store import PostgresStore
from notecite.store.sqlite import SQLiteStore
from notecite.types import Chunk, NoteRecord, SearchFilter
from search_latency import SCIFACT, _synthetic_notes

DIMENSIONS = 384
BATCH_CHUNKS = 256  # the indexer's flush size
WARMUP = 5
APP_ROLE = "notecite_bench"
OUT = Path(__file__).resolve().parent / "out"

Note = tuple[NoteRecord, list[Chunk]]


# -- data -------------------------------------------------------------------------------------


def make_notes(total_chunks: int) -> list[tuple[str, NoteRecord, list[Chunk]]]:
    """(vault name, record, chunks) of the synthetic index; every 5th note is archived."""
    notes = []
    for number, (record, chunks) in enumerate(_synthetic_notes(total_chunks, 0)):
        notes.append(("archive" if number % 5 == 4 else "main", record, chunks))
    return notes


def embed(notes: Sequence[tuple[str, NoteRecord, list[Chunk]]]) -> dict[str, Vectors]:
    """Content hash -> 384-d hash-embedder vector of every chunk."""
    embedder = HashEmbedder(DIMENSIONS)
    texts = {c.content_hash: c.embed_text for _, _, chunks in notes for c in chunks}
    order = sorted(texts)
    vectors: dict[str, Vectors] = {}
    for start in range(0, len(order), 2048):
        part = order[start : start + 2048]
        vectors.update(zip(part, embedder.embed_documents([texts[h] for h in part]), strict=True))
    return vectors


def load(
    store: Store,
    model_id: str,
    notes: Sequence[tuple[str, NoteRecord, list[Chunk]]],
    vectors: dict[str, Vectors],
    root: Path,
) -> None:
    """Write the notes as the indexer does: vectors of ~256 chunks, then their notes."""
    vault_ids = {name: store.add_vault(name, root / name).id for name in ("main", "archive")}
    store.set_embedder_info(model_id, DIMENSIONS)
    pending: list[Note] = []

    def flush() -> None:
        hashes = {c.content_hash for _, chunks in pending for c in chunks}
        missing = store.missing_embeddings(model_id, hashes)
        if missing:
            store.put_embeddings(model_id, {h: vectors[h] for h in sorted(missing)})
        for record, chunks in pending:
            store.replace_note(record, chunks)
        pending.clear()

    for vault, record, chunks in notes:
        pending.append((dataclasses.replace(record, vault_id=vault_ids[vault]), chunks))
        if sum(len(c) for _, c in pending) >= BATCH_CHUNKS:
            flush()
    flush()


# -- PostgreSQL -------------------------------------------------------------------------------


@dataclass
class Server:
    """A pgserver PostgreSQL on a temporary directory."""

    postmaster: Any
    base: Path

    def url(self, database: str, user: str = APP_ROLE) -> str:
        return str(self.postmaster.get_uri(user=user, database=database))

    def admin(self, *statements: str, database: str = "postgres") -> None:
        with psycopg.connect(self.url(database, "postgres"), autocommit=True) as conn:
            for statement in statements:
                conn.execute(statement.encode())

    def database(self) -> str:
        name = f"bench_{uuid.uuid4().hex[:8]}"
        self.admin(f"CREATE DATABASE {name} OWNER {APP_ROLE}")
        self.admin("CREATE EXTENSION vector", database=name)
        return name


@contextmanager
def postgres() -> Iterator[Server]:
    """Start PostgreSQL 16 + pgvector from pgserver; stop it and delete its data after."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

    base = Path(tempfile.mkdtemp(prefix="notecite-bench-pg-"))
    server = pgserver.get_server(base / "data", cleanup_mode="delete")
    try:
        found = Server(server.get_postmaster_info(), base)
        found.admin(
            f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS",
            "ALTER SYSTEM SET synchronous_commit = off",
            "ALTER SYSTEM SET maintenance_work_mem = '1GB'",
            "SELECT pg_reload_conf()",
        )
        yield found
    finally:
        server.cleanup()
        shutil.rmtree(base, ignore_errors=True)


def pg_sizes(url: str, model_id: str) -> dict[str, int]:
    """Bytes of the tables (with their indexes) and of the HNSW index."""
    with psycopg.connect(url) as conn:
        row = conn.execute(
            "SELECT pg_total_relation_size('embeddings'), pg_total_relation_size('chunks'), "
            "pg_total_relation_size('notes'), pg_relation_size(%s::regclass), "
            "pg_database_size(current_database())",
            (hnsw_index_name(model_id, DIMENSIONS),),
        ).fetchone()
    assert row is not None
    keys = ("embeddings_bytes", "chunks_bytes", "notes_bytes", "hnsw_bytes", "database_bytes")
    return dict(zip(keys, (int(v) for v in row), strict=True))


def pg_exact(store: PostgresStore, model_id: str, query: Vectors, flt: SearchFilter) -> list[int]:
    """Chunk ids of the exact top 10 (no index)."""
    with store.connections.transaction() as conn:
        rows = conn.execute(*exact_query(store.tenant_id, model_id, query, flt, 10)).fetchall()
    return [int(r[0]) for r in rows]


# -- searching --------------------------------------------------------------------------------


def filters(stores: dict[str, Store]) -> dict[str, dict[str, SearchFilter]]:
    """Per store: no filter, vault 'archive', folder prefix 'area-03', one year of dates."""
    year = (datetime(2022, 1, 1, tzinfo=UTC), datetime(2022, 12, 31, tzinfo=UTC))
    found = {}
    for name, store in stores.items():
        archive = store.get_vault("archive")
        assert archive is not None
        found[name] = {
            "none": SearchFilter(),
            "vault": SearchFilter(vault_ids=(archive.id,)),
            "folder": SearchFilter(folders=("area-03",)),
            "date": SearchFilter(since=year[0], until=year[1]),
        }
    return found


def timed(call: Callable[[], object]) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def search_latency(
    stores: dict[str, Store],
    model_id: str,
    queries: Sequence[tuple[str, Vectors]],
) -> dict[str, dict[str, dict[str, list[float]]]]:
    """Seconds per store, filter and kind of search, warm-up queries left out."""
    flts = filters(stores)
    times: dict[str, dict[str, dict[str, list[float]]]] = {
        s: {f: {"vector": [], "lexical": [], "hybrid": []} for f in flts[s]} for s in stores
    }
    for number, (text, vector) in enumerate(queries):
        for filter_name in ("none", "vault", "folder", "date"):
            for name, store in stores.items():
                flt = flts[name][filter_name]
                row = times[name][filter_name]
                kinds: dict[str, Callable[[], object]] = {
                    "vector": lambda s=store, f=flt, v=vector: s.vector_search(model_id, v, f, 10),
                    "lexical": lambda s=store, f=flt, t=text: s.lexical_search(t, f, 50),
                    "hybrid": lambda s=store, f=flt, t=text, v=vector: fused_search(
                        s, model_id, v, t, f, 8, 50
                    ),
                }
                for kind, call in kinds.items():
                    seconds = timed(call)
                    if number >= WARMUP:
                        row[kind].append(seconds)
    return times


def recall(
    store: PostgresStore,
    flts: dict[str, SearchFilter],
    model_id: str,
    queries: Sequence[tuple[str, Vectors]],
) -> dict[str, dict[str, float]]:
    """Recall@10 of ``vector_search`` against exact search, per filter: by chunk id, and
    tie-aware (a hit counts when its score reaches the exact 10th score)."""
    found: dict[str, dict[str, float]] = {}
    for filter_name, flt in flts.items():
        by_id: list[float] = []
        by_score: list[float] = []
        for _, vector in queries:
            exact = pg_exact(store, model_id, vector, flt)
            if not exact:
                continue
            hits = store.vector_search(model_id, vector, flt, 10)
            scores = store.vector_scores(model_id, vector, exact)
            floor = min(scores.values()) - 1e-6
            by_id.append(len({h.chunk_rowid for h in hits} & set(exact)) / len(exact))
            by_score.append(min(1.0, sum(h.score >= floor for h in hits) / len(exact)))
        found[filter_name] = {
            "recall_by_id": float(np.mean(by_id)),
            "recall_tie_aware": float(np.mean(by_score)),
            "queries": len(by_id),
        }
    return found


def summary(times: dict[str, dict[str, dict[str, list[float]]]]) -> dict[str, Any]:
    return {
        store: {
            flt: {
                kind: {
                    "p50_ms": percentile(values, 50) * 1000,
                    "p95_ms": percentile(values, 95) * 1000,
                    "n": len(values),
                }
                for kind, values in kinds.items()
            }
            for flt, kinds in per_filter.items()
        }
        for store, per_filter in times.items()
    }


# -- main -------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--live-chunks", type=int, default=5_000)
    parser.add_argument("--out", type=Path, default=OUT / "store_100k.json")
    args = parser.parse_args()
    report: dict[str, Any] = {
        "machine": machine(),
        "args": {k: str(v) for k, v in vars(args).items()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)
        args.out.write_text(json.dumps(report, indent=2))  # what is measured so far

    start = time.perf_counter()
    notes = make_notes(args.chunks)
    chunk_count = sum(len(c) for _, _, c in notes)
    report["notes"], report["chunks"] = len(notes), chunk_count
    report["make_notes_s"] = time.perf_counter() - start
    start = time.perf_counter()
    vectors = embed(notes)
    report["embed_s_excluded"] = time.perf_counter() - start
    model_id = HashEmbedder(DIMENSIONS).model_id
    log(f"{len(notes)} notes, {chunk_count} chunks, {len(vectors)} vectors")
    claims = [json.loads(line) for line in (SCIFACT / "queries.jsonl").open(encoding="utf-8")]
    texts = [q["text"] for q in claims[: args.queries]]
    embedder = HashEmbedder(DIMENSIONS)
    queries = [(t, embedder.embed_query(t)) for t in texts]

    work = Path(tempfile.mkdtemp(prefix="notecite-bench-"))
    try:
        with postgres() as server:
            sqlite = SQLiteStore(work / "index.db")
            pg_url = server.url(server.database())
            pg = PostgresStore(pg_url, ef_search=40)  # as measured; the default is now 200
            try:
                start = time.perf_counter()
                load(sqlite, model_id, notes, vectors, work)
                sqlite_s = time.perf_counter() - start
                log(f"sqlite: {sqlite_s:.1f} s")
                start = time.perf_counter()
                with bulk_load(pg):
                    load(pg, model_id, notes, vectors, work)
                    rows_s = time.perf_counter() - start
                pg_s = time.perf_counter() - start
                log(f"postgres: rows {rows_s:.1f} s, with HNSW build {pg_s:.1f} s")
                report["indexing"] = {
                    "sqlite": {"seconds": sqlite_s, "chunks_per_s": chunk_count / sqlite_s},
                    "postgres_bulk": {
                        "seconds": pg_s,
                        "chunks_per_s": chunk_count / pg_s,
                        "rows_seconds": rows_s,
                        "hnsw_build_seconds": pg_s - rows_s,
                    },
                }
                live_notes, live_chunks = [], 0
                for note in notes:
                    if live_chunks >= args.live_chunks:
                        break
                    live_notes.append(note)
                    live_chunks += len(note[2])
                if live_notes:
                    live = PostgresStore(server.url(server.database()))
                    try:
                        start = time.perf_counter()
                        load(live, model_id, live_notes, vectors, work)
                        seconds = time.perf_counter() - start
                    finally:
                        live.close()
                    report["indexing"]["postgres_live_hnsw"] = {
                        "chunks": live_chunks,
                        "seconds": seconds,
                        "chunks_per_s": live_chunks / seconds,
                    }
                    log(f"postgres, live HNSW: {live_chunks} chunks in {seconds:.1f} s")
                report["sqlite_file_bytes"] = sum(p.stat().st_size for p in work.glob("index.db*"))
                report["postgres_sizes"] = pg_sizes(pg_url, model_id)
                with psycopg.connect(pg_url, autocommit=True) as conn:
                    conn.execute("ANALYZE")

                stores: dict[str, Store] = {"sqlite": sqlite, "postgres": pg}
                start = time.perf_counter()
                sqlite.vector_search(model_id, queries[0][1], SearchFilter(), 10)
                report["sqlite_first_search_s"] = time.perf_counter() - start
                times = search_latency(stores, model_id, queries)
                report["search"] = summary(times)
                log("searches done")
                pg_filters = filters({"postgres": pg})["postgres"]
                report["recall_at_10"] = {"ef_search_40": recall(pg, pg_filters, model_id, queries)}
                log("recall at ef_search 40 done")
                wide = PostgresStore(pg_url, ef_search=100)
                try:
                    report["recall_at_10"]["ef_search_100"] = recall(
                        wide, pg_filters, model_id, queries
                    )
                finally:
                    wide.close()
                agree = []
                for _, vector in queries:
                    lite = [
                        h.score for h in sqlite.vector_search(model_id, vector, SearchFilter(), 10)
                    ]
                    exact = pg.vector_scores(
                        model_id, vector, pg_exact(pg, model_id, vector, SearchFilter())
                    )
                    agree.append(np.allclose(sorted(lite), sorted(exact.values()), atol=1e-5))
                report["sqlite_equals_postgres_exact_top10_scores"] = float(np.mean(agree))
            finally:
                sqlite.close()
                pg.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(markdown(report))


def markdown(report: dict[str, Any]) -> str:
    """The report as the tables of bench/RESULTS.md."""
    index = report["indexing"]
    bulk = index["postgres_bulk"]
    lines = [
        f"{report['machine']}",
        f"{report['notes']} notes, {report['chunks']} chunks; hash-embedding them took "
        f"{report['embed_s_excluded']:.1f} s (excluded).",
        "",
        "| indexing | seconds | chunks/s |",
        "|---|---|---|",
        f"| SQLite | {index['sqlite']['seconds']:.1f} | {index['sqlite']['chunks_per_s']:,.0f} |",
        f"| PostgreSQL, bulk load (rows {bulk['rows_seconds']:.1f} s + HNSW "
        f"build {bulk['hnsw_build_seconds']:.1f} s) | "
        f"{bulk['seconds']:.1f} | {bulk['chunks_per_s']:,.0f} |",
    ]
    if "postgres_live_hnsw" in index:
        live = index["postgres_live_hnsw"]
        lines.append(
            f"| PostgreSQL, HNSW kept up to date ({live['chunks']:,} chunks) | "
            f"{live['seconds']:.1f} | {live['chunks_per_s']:,.0f} |"
        )
    lines += ["", "| search p50 / p95 ms | filter | SQLite | PostgreSQL |", "|---|---|---|---|"]
    search = report["search"]
    for kind in ("vector", "lexical", "hybrid"):
        for flt in ("none", "vault", "folder", "date"):
            cells = [
                f"{search[s][flt][kind]['p50_ms']:.2f} / {search[s][flt][kind]['p95_ms']:.2f}"
                for s in ("sqlite", "postgres")
            ]
            lines.append(f"| {kind} | {flt} | {cells[0]} | {cells[1]} |")
    lines += ["", "| recall@10 vs exact (by id / tie-aware) | ef_search 40 | ef_search 100 |"]
    lines.append("|---|---|---|")
    rec = report["recall_at_10"]
    for flt in ("none", "vault", "folder", "date"):
        cells = [
            f"{rec[e][flt]['recall_by_id']:.3f} / {rec[e][flt]['recall_tie_aware']:.3f}"
            for e in ("ef_search_40", "ef_search_100")
        ]
        lines.append(f"| {flt} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
