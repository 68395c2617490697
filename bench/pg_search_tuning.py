"""PostgreSQL search knobs at 100k chunks: ``store.hnsw_ef_search`` and full-text latency.

The index is the one of ``bench/store_100k.py`` (same synthetic notes, ``hash`` vectors at
384 dimensions, written through the store API inside ``bulk_load``), in PostgreSQL only. It
is loaded once into a pgserver data directory that is kept (``--data-dir``), so that later
runs (another ``--ef`` list, a change to the full-text SQL) measure the same database
without the ~5 minute load.

For each ``hnsw.ef_search`` of ``--ef``: recall@10 of ``vector_search`` against exact search
(by chunk id and tie-aware, as store_100k) and its p50 / p95 latency, per filter (none,
vault ``archive``, folder ``area-03``, one year of dates). Then ``lexical_search`` (top 50)
p50 / p95 per filter, the same ranking from the matched chunks' tsvectors (the form the
postings replaced, unfiltered), and how many chunks the unfiltered OR-query matches. The
first 5 queries warm up and are not counted.

    cd bench && ../.venv/bin/python pg_search_tuning.py --data-dir /tmp/notecite-pgtune
    ../.venv/bin/python pg_search_tuning.py --ef 40,100 --skip-lexical   # same database again
    ../.venv/bin/python pg_search_tuning.py --data-dir /tmp/notecite-pgtune --drop   # delete it
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg

from _measure import machine, percentile
from notecite.embed.base import Vectors
from notecite.embed.hashing import HashEmbedder
from notecite.store.base import bulk_load
from notecite.store.postgres.search import tsquery_text, tsvector_lexical_query
from notecite.store.postgres.store import PostgresStore
from notecite.types import SearchFilter
from search_latency import SCIFACT
from store_100k import (
    APP_ROLE,
    DIMENSIONS,
    WARMUP,
    Server,
    embed,
    filters,
    load,
    make_notes,
    recall,
)

OUT = Path(__file__).resolve().parent / "out"
DATABASE = "tuning"


@contextmanager
def kept_server(data_dir: Path) -> Iterator[Server]:
    """pgserver on ``data_dir/data``, created on the first run and kept after it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

    server = pgserver.get_server(data_dir / "data", cleanup_mode="stop")
    found = Server(server.get_postmaster_info(), data_dir)
    try:
        yield found
    finally:
        server.cleanup()


def ensure_loaded(server: Server, data_dir: Path, chunks: int, log: Callable[[str], None]) -> str:
    """The URL of the loaded database; loads it unless a previous run did."""
    marker = data_dir / "loaded.json"
    url = server.url(DATABASE)
    if marker.exists():
        loaded = json.loads(marker.read_text())
        if loaded["chunks_asked"] != chunks:
            raise SystemExit(f"{data_dir} holds {loaded['chunks_asked']} chunks; use --drop")
        return url
    server.admin(
        f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN "
        f"CREATE ROLE {APP_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS; END IF; END $$",
        "ALTER SYSTEM SET synchronous_commit = off",
        "ALTER SYSTEM SET maintenance_work_mem = '1GB'",
        "SELECT pg_reload_conf()",
        f"DROP DATABASE IF EXISTS {DATABASE}",
        f"CREATE DATABASE {DATABASE} OWNER {APP_ROLE}",
    )
    server.admin("CREATE EXTENSION vector", database=DATABASE)
    notes = make_notes(chunks)
    vectors = embed(notes)
    store = PostgresStore(url)
    start = time.perf_counter()
    try:
        with bulk_load(store):
            load(store, HashEmbedder(DIMENSIONS).model_id, notes, vectors, data_dir)
    finally:
        store.close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    seconds = time.perf_counter() - start
    count = sum(len(c) for _, _, c in notes)
    marker.write_text(json.dumps({"chunks_asked": chunks, "chunks": count, "load_s": seconds}))
    log(f"loaded {count} chunks in {seconds:.0f} s")
    return url


def latency(calls: Sequence[Callable[[], object]]) -> dict[str, float]:
    """p50 / p95 in ms of the calls after the warm-up ones."""
    seconds = []
    for number, call in enumerate(calls):
        start = time.perf_counter()
        call()
        if number >= WARMUP:
            seconds.append(time.perf_counter() - start)
    return {
        "p50_ms": percentile(seconds, 50) * 1000,
        "p95_ms": percentile(seconds, 95) * 1000,
        "n": len(seconds),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/notecite-pgtune"))
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--ef", default="40,100,200", help="hnsw.ef_search values, comma-separated")
    parser.add_argument("--skip-vector", action="store_true")
    parser.add_argument("--skip-lexical", action="store_true")
    parser.add_argument("--drop", action="store_true", help="delete --data-dir and stop")
    parser.add_argument("--out", type=Path, default=OUT / "pg_search_tuning.json")
    args = parser.parse_args()
    if args.drop:
        shutil.rmtree(args.data_dir, ignore_errors=True)
        return
    args.data_dir.mkdir(parents=True, exist_ok=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {
        "machine": machine(),
        "args": {k: str(v) for k, v in vars(args).items()},
    }

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)
        args.out.write_text(json.dumps(report, indent=2))

    claims = [json.loads(line) for line in (SCIFACT / "queries.jsonl").open(encoding="utf-8")]
    embedder = HashEmbedder(DIMENSIONS)
    queries: list[tuple[str, Vectors]] = [
        (q["text"], embedder.embed_query(q["text"])) for q in claims[: args.queries]
    ]
    model_id = embedder.model_id
    with kept_server(args.data_dir) as server:
        url = ensure_loaded(server, args.data_dir, args.chunks, log)
        report["loaded"] = json.loads((args.data_dir / "loaded.json").read_text())
        if not args.skip_vector:
            report["vector"] = {}
            for ef in (int(v) for v in args.ef.split(",")):
                store = PostgresStore(url, ef_search=ef)
                try:
                    flts = filters({"pg": store})["pg"]
                    row: dict[str, Any] = {"recall_at_10": recall(store, flts, model_id, queries)}
                    row["latency"] = {
                        name: latency(
                            [
                                lambda s=store, f=flt, v=vector: s.vector_search(model_id, v, f, 10)
                                for _, vector in queries
                            ]
                        )
                        for name, flt in flts.items()
                    }
                finally:
                    store.close()
                report["vector"][str(ef)] = row
                log(f"ef_search {ef}: {json.dumps(row)}")
        if not args.skip_lexical:
            store = PostgresStore(url)
            try:
                flts = filters({"pg": store})["pg"]
                report["lexical"] = {
                    name: latency(
                        [lambda f=flt, t=q: store.lexical_search(t, f, 50) for q, _ in queries]
                    )
                    for name, flt in flts.items()
                }
                with psycopg.connect(server.url(DATABASE, "postgres")) as conn:
                    matched = [
                        conn.execute(
                            "SELECT count(*) FROM chunks WHERE tsv @@ (SELECT string_agg("
                            "quote_literal(lexeme), ' | ')::tsquery "
                            "FROM unnest(notecite_fts_words(%s)))",
                            (tsquery_text(text),),
                        ).fetchone()
                        for text, _ in queries
                    ]
                    # the same ranking from the matched chunks' tsvectors (before postings)
                    conn.execute("SELECT set_config('notecite.tenant_id', '1', false)")
                    report["lexical_tsvector_form"] = latency(
                        [
                            lambda t=q: conn.execute(
                                *tsvector_lexical_query(1, tsquery_text(t), SearchFilter(), 50)
                            ).fetchall()
                            for q, _ in queries
                        ]
                    )
                report["lexical_or_matches_mean"] = sum(int(m[0]) for m in matched if m) / len(
                    matched
                )
            finally:
                store.close()
            log(f"lexical: {json.dumps(report['lexical'])}")
            log(f"lexical, tsvector form: {json.dumps(report['lexical_tsvector_form'])}")
    args.out.write_text(json.dumps(report, indent=2))
    print(json.dumps({k: v for k, v in report.items() if k != "machine"}, indent=2))


if __name__ == "__main__":
    main()
