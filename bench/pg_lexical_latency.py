"""Full-text latency on both stores over the same SciFact index: SQLite FTS5 BM25,
PostgreSQL BM25 (``lexical_search``) and the ``ts_rank`` query it replaced.

Both indexes are the ones ``notecite eval beir`` builds (``<home>/eval/scifact.db``, and the
same corpus in a PostgreSQL database). The first 5 SciFact claims warm up; the next 45 are
timed, top 50, the three queries taking turns on each claim.

    cd bench && PYTHONPATH=../src ../.venv/bin/python pg_lexical_latency.py \\
        --sqlite /tmp/home/eval/scifact.db --url postgresql://app@/scifact?host=/tmp/pg
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import psycopg

from notecite.store.postgres.search import tsquery_text
from notecite.store.postgres.store import PostgresStore
from notecite.store.sqlite import SQLiteStore
from notecite.types import SearchFilter

QUERIES = Path("/work/shared/data/scifact/queries.jsonl")
TS_RANK = (
    "SELECT c.id, ts_rank(ARRAY[0.1, 0.5, 0.75, 1.0]::float4[], c.tsv, q, 1) AS score "
    "FROM chunks c, to_tsquery('english', %s) q WHERE c.tenant_id = 1 AND c.tsv @@ q "
    "ORDER BY score DESC, c.id LIMIT 50"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sqlite", type=Path, required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--queries", type=Path, default=QUERIES)
    args = parser.parse_args()
    claims = [json.loads(line)["text"] for line in args.queries.read_text().splitlines()][:50]
    lite, pg = SQLiteStore(args.sqlite), PostgresStore(args.url)
    raw = psycopg.connect(args.url, autocommit=True)
    raw.execute("SET notecite.tenant_id = '1'")
    runs: dict[str, Callable[[str], object]] = {
        "sqlite fts5 bm25": lambda q: lite.lexical_search(q, SearchFilter(), 50),
        "postgres bm25": lambda q: pg.lexical_search(q, SearchFilter(), 50),
        "postgres ts_rank (before)": lambda q: raw.execute(
            TS_RANK, (" | ".join(tsquery_text(q).split()),)
        ).fetchall(),
    }
    for run in runs.values():
        for claim in claims[:5]:
            run(claim)
    times: dict[str, list[float]] = {name: [] for name in runs}
    for claim in claims[5:]:
        for name, run in runs.items():
            started = time.perf_counter()
            run(claim)
            times[name].append((time.perf_counter() - started) * 1000)
    for name, values in times.items():
        values.sort()
        p95 = values[int(0.95 * len(values))]
        print(f"{name}: p50 {statistics.median(values):.1f} ms, p95 {p95:.1f} ms")
    lite.close()
    pg.close()
    raw.close()


if __name__ == "__main__":
    main()
