"""Dump per-query retrieval signals of the SciFact eval index, for offline fusion studies.

Reads the index that `notecite eval beir` built under --home (MiniLM vectors, FTS5), and
writes, for every query of the split: MiniLM cosine of every chunk, and FTS5 BM25 of the top
--bm25-depth chunks for two column weightings. Fusion variants are then scored on the dump
in seconds (bench/fusion_study.py) instead of re-running the whole eval for each one.

    .venv/bin/python bench/scifact_signals.py --home /tmp/evalhome --split train
"""

from __future__ import annotations

import argparse
import pickle
import sqlite3
import time
from pathlib import Path

import numpy as np

from notecite.config import load_settings
from notecite.embed.registry import create_embedder
from notecite.evaluate.beir_data import load_beir
from notecite.store.sqlite.store import fts_query

REPO = Path(__file__).resolve().parents[1]
WEIGHTINGS = {"t2h1.5b1": (2.0, 1.5, 1.0), "t1h1b1": (1.0, 1.0, 1.0), "t4h1b1": (4.0, 1.0, 1.0)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/scifact")
    parser.add_argument("--split", default="train")
    parser.add_argument("--bm25-depth", type=int, default=1000)
    parser.add_argument("--out", type=Path, default=REPO / "bench/out")
    args = parser.parse_args()
    data = load_beir(args.data, args.split)
    db = args.home / "eval" / f"{data.name}.db"
    conn = sqlite3.connect(db)
    settings = load_settings(home=args.home)
    embedder = create_embedder(settings.embedder)
    rows = conn.execute(
        "SELECT c.id, n.rel_path, c.chunk_index, e.vector, c.text, n.title FROM chunks c "
        "JOIN notes n ON n.id = c.note_id "
        "JOIN embeddings e ON e.model_id = ? AND e.content_hash = c.content_hash ORDER BY c.id",
        (embedder.model_id,),
    ).fetchall()
    rowids = np.array([r[0] for r in rows], dtype=np.int64)
    docs = [Path(r[1]).stem for r in rows]
    matrix = np.vstack([np.frombuffer(r[3], dtype=np.float32) for r in rows])
    texts = [r[4] for r in rows]
    titles = [r[5] for r in rows]
    started = time.perf_counter()
    queries = list(data.queries.items())
    qvecs = np.vstack([embedder.embed_query(text) for _, text in queries])
    print(f"embedded {len(queries)} queries in {time.perf_counter() - started:.1f} s")
    cos = (qvecs @ matrix.T).astype(np.float16)
    bm25: dict[str, list[dict[int, float]]] = {}
    for name, (wt, wh, wb) in WEIGHTINGS.items():
        per_query = []
        for _, text in queries:
            match = fts_query(text)
            found = conn.execute(
                f"SELECT rowid, -bm25(chunks_fts, {wt}, {wh}, {wb}) AS s FROM chunks_fts "
                "WHERE chunks_fts MATCH ? ORDER BY s DESC LIMIT ?",
                (match, args.bm25_depth),
            ).fetchall()
            per_query.append({int(r): float(s) for r, s in found})
        bm25[name] = per_query
        print(f"bm25 {name} done")
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / f"scifact-signals-{args.split}.pkl"
    with target.open("wb") as handle:
        pickle.dump(
            {
                "qids": [q for q, _ in queries],
                "queries": [t for _, t in queries],
                "qvecs": qvecs,
                "rowids": rowids,
                "docs": docs,
                "texts": texts,
                "titles": titles,
                "cos": cos,
                "bm25": bm25,
                "qrels": data.qrels,
            },
            handle,
        )
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
