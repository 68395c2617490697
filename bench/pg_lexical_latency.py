"""Full-text latency on both stores over the same SciFact index: SQLite FTS5 BM25,
PostgreSQL BM25 (``lexical_search``, from ``bm25_postings``), the same BM25 computed from the
matched chunks' tsvectors (``tsvector_lexical_query``, the form the postings replaced) and
plain ``ts_rank``.

Both indexes are the ones ``notecite eval beir`` builds (``<home>/eval/scifact.db``, and the
same corpus in a PostgreSQL database). The first 5 SciFact claims warm up; the next 45 are
timed, top 50, the queries taking turns on each claim. Before timing, both PostgreSQL BM25
forms run on all 50 claims and must return the same chunks in the same order, with scores
equal to 1e-9 (the largest difference is printed).

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

from notecite.store.postgres.search import tsquery_text, tsvector_lexical_query
from notecite.store.postgres.store import PostgresStore
from notecite.store.sqlite import SQLiteStore
from notecite.types import SearchFilter

QUERIES = Path("/work/shared/data/scifact/queries.jsonl")
TS_RANK = (
    "SELECT c.id, ts_rank(ARRAY[0.1, 0.5, 0.75, 1.0]::float4[], c.tsv, q, 1) AS score "
    "FROM chunks c, (SELECT string_agg(quote_literal(lexeme), ' | ')::tsquery AS q "
    "FROM unnest(notecite_fts_words(%s))) w WHERE c.tenant_id = 1 AND c.tsv @@ q "
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

    def from_tsvectors(text: str) -> list[tuple[int, float]]:
        query = tsvector_lexical_query(1, tsquery_text(text), SearchFilter(), 50)
        return [(int(r[0]), float(r[1])) for r in raw.execute(*query)]

    def from_postings(text: str) -> list[tuple[int, float]]:
        return [(h.chunk_rowid, h.score) for h in pg.lexical_search(text, SearchFilter(), 50)]

    largest = 0.0
    for claim in claims:
        old, new = from_tsvectors(claim), from_postings(claim)
        assert [i for i, _ in old] == [i for i, _ in new], claim
        largest = max(
            [largest] + [abs(a[1] - b[1]) / abs(a[1]) for a, b in zip(old, new, strict=True)]
        )
    assert largest < 1e-9, largest
    print(
        f"postings and tsvector forms: same hits on {len(claims)} claims, "
        f"scores within {largest:.1e} (relative)"
    )
    runs: dict[str, Callable[[str], object]] = {
        "sqlite fts5 bm25": lambda q: lite.lexical_search(q, SearchFilter(), 50),
        "postgres bm25 (postings)": from_postings,
        "postgres bm25 (tsvectors, before)": from_tsvectors,
        "postgres ts_rank": lambda q: raw.execute(TS_RANK, (tsquery_text(q),)).fetchall(),
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
