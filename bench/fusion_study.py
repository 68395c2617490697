"""Score fusion variants offline on a signal dump of bench/scifact_signals.py (train by default).

Every variant ranks documents by their best chunk among the union of the top --depth chunks
by MiniLM cosine and by FTS5 BM25, like `eval beir --pipeline hybrid`, so the baseline row
reproduces the eval's figure. Variants: weights, BM25 column weights (title : heading :
body), per-signal normalisation, dense pseudo-relevance feedback (Rocchio), BM25 feedback
(RM3-like expansion terms searched with FTS5), a title-vector signal, and scoring a document
by more than its best chunk.

    .venv/bin/python bench/scifact_signals.py --home /tmp/evalhome --split train
    .venv/bin/python bench/fusion_study.py --home /tmp/evalhome --split train [--titles]
"""

from __future__ import annotations

import argparse
import math
import pickle
import re
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from statistics import mean
from typing import Any

import numpy as np
import pytrec_eval

from notecite.config import load_settings
from notecite.embed.registry import create_embedder
from notecite.store.sqlite.store import _FTS_STOPWORDS

REPO = Path(__file__).resolve().parents[1]
Array = np.ndarray[Any, Any]
_WORD = re.compile(r"\w+")


def min_max(x: Array) -> Array:
    low, high = float(x.min()), float(x.max())
    return (x - low) / (high - low) if high - low > 1e-12 else np.ones_like(x)


def z_score(x: Array) -> Array:
    return (x - x.mean()) / (x.std() + 1e-9)


class Study:
    """The dump of one split plus what every variant needs."""

    def __init__(self, dump: dict[str, Any], db: Path, depth: int) -> None:
        self.d = dump
        self.depth = depth
        self.cos = dump["cos"].astype(np.float32)
        self.rowids = dump["rowids"]
        self.docs: list[str] = dump["docs"]
        self.row_index = {int(r): i for i, r in enumerate(self.rowids)}
        self.conn = sqlite3.connect(db)
        self.matrix = np.vstack(
            [
                np.frombuffer(v, dtype=np.float32)
                for (v,) in self.conn.execute(
                    "SELECT e.vector FROM chunks c JOIN embeddings e "
                    "ON e.content_hash = c.content_hash ORDER BY c.id"
                )
            ]
        )
        qrels = {q: dict(v) for q, v in dump["qrels"].items()}
        self.evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100"})
        self.title_cos: Callable[[int], Array] | None = None
        self._tokens: list[list[str]] | None = None
        self._idf: dict[str, float] = {}

    def candidates(self, qi: int, cos: Array, bm25: dict[int, float]) -> tuple[Array, Array, Array]:
        top_v = np.argpartition(-cos, self.depth)[: self.depth]
        top_b = sorted(bm25, key=lambda r: -bm25[r])[: self.depth]
        idx = np.array(list(dict.fromkeys([*top_v.tolist(), *(self.row_index[r] for r in top_b)])))
        b = np.array([bm25.get(int(self.rowids[i]), 0.0) for i in idx])
        return idx, cos[idx], b

    def to_docs(self, idx: Array, scores: Array, second: float = 0.0) -> dict[str, float]:
        best: dict[str, float] = {}
        runner_up: dict[str, float] = {}
        for o in np.argsort(-scores):
            doc = self.docs[idx[o]]
            if doc not in best:
                best[doc] = float(scores[o])
            elif doc not in runner_up:
                runner_up[doc] = float(scores[o])
        total = {k: v + second * runner_up.get(k, 0.0) for k, v in best.items()}
        return dict(sorted(total.items(), key=lambda kv: -kv[1])[:100])

    def evaluate(self, run: dict[str, dict[str, float]]) -> tuple[float, float]:
        per_query = self.evaluator.evaluate(run)
        return (
            mean(v["ndcg_cut_10"] for v in per_query.values()),
            mean(v["recall_100"] for v in per_query.values()),
        )

    def fused(self, qi: int, **kw: Any) -> tuple[Array, Array]:
        wv, wb = kw.get("wv", 0.5), kw.get("wb", 0.5)
        bm25 = self.d["bm25"][kw.get("bm", "t2h1.5b1")][qi]
        cos = self.cos[qi]
        if kw.get("rocchio"):
            k, beta = kw["rocchio"]
            top = np.argsort(-cos)[:k]
            q = self.d["qvecs"][qi] + beta * self.matrix[top].mean(0)
            cos = self.matrix @ (q / np.linalg.norm(q))
        idx, v, b = self.candidates(qi, cos, bm25)
        norm = kw.get("norm", "minmax")
        if norm == "minmax":
            v, b = min_max(v), min_max(b)
        elif norm == "z":
            v, b = z_score(v), z_score(b)
        elif norm == "max":
            v, b = v / v.max(), b / (b.max() + 1e-9)
        scores = wv * v + wb * b
        if kw.get("rm3"):
            k, m, weight = kw["rm3"]
            top = idx[np.argsort(-scores)[:k]]
            expansion = self.expansion_scores(qi, top, m)
            e = np.array([expansion.get(int(self.rowids[i]), 0.0) for i in idx])
            scores = scores + weight * (min_max(e) if e.max() > 0 else e)
        if kw.get("title") and self.title_cos is not None:
            scores = scores + kw["title"] * min_max(self.title_cos(qi)[idx])
        return idx, scores

    def expansion_scores(self, qi: int, top: Array, m: int) -> dict[int, float]:
        if self._tokens is None:
            self._tokens = [
                [
                    w
                    for w in _WORD.findall(f"{title} {text}".lower())
                    if w not in _FTS_STOPWORDS and not w.isdigit() and len(w) > 2
                ]
                for title, text in zip(self.d["titles"], self.d["texts"], strict=True)
            ]
            df: Counter[str] = Counter()
            for tokens in self._tokens:
                df.update(set(tokens))
            self._idf = {w: math.log(len(self._tokens) / c) for w, c in df.items()}
        asked = set(_WORD.findall(self.d["queries"][qi].lower()))
        weights: Counter[str] = Counter()
        for i in top:
            tf = Counter(self._tokens[i])
            length = sum(tf.values()) or 1
            for w, c in tf.items():
                if w not in asked:
                    weights[w] += c / length * self._idf[w]
        words = [w for w, _ in weights.most_common(m)]
        if not words:
            return {}
        match = " OR ".join(f'"{w}"' for w in words)
        rows = self.conn.execute(
            "SELECT rowid, -bm25(chunks_fts, 1.0, 1.0, 1.0) AS s FROM chunks_fts "
            "WHERE chunks_fts MATCH ? ORDER BY s DESC LIMIT 1000",
            (match,),
        )
        return {int(r): float(s) for r, s in rows}

    def run(self, second: float = 0.0, **kw: Any) -> tuple[float, float]:
        out = {}
        for qi, qid in enumerate(self.d["qids"]):
            idx, scores = self.fused(qi, **kw)
            out[qid] = self.to_docs(idx, scores, second)
        return self.evaluate(out)


VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("MiniLM only", {"wv": 1.0, "wb": 0.0}),
    ("FTS5 BM25 only (title 2 : heading 1.5 : body 1)", {"wv": 0.0, "wb": 1.0}),
    ("hybrid 0.6/0.25 min-max (= eval hybrid)", {"wv": 0.6, "wb": 0.25}),
    ("hybrid 0.5/0.5 min-max", {}),
    ("hybrid 0.5/0.5, BM25 columns 1 : 1 : 1", {"bm": "t1h1b1"}),
    ("hybrid 0.5/0.5, BM25 columns 4 : 1 : 1", {"bm": "t4h1b1"}),
    ("hybrid 0.5/0.5, z-score", {"norm": "z"}),
    ("hybrid 0.5/0.5, divide by the best", {"norm": "max"}),
    ("+ dense PRF (Rocchio, top 2, beta 0.3)", {"rocchio": (2, 0.3)}),
    ("+ dense PRF (Rocchio, top 5, beta 0.5)", {"rocchio": (5, 0.5)}),
    ("+ BM25 PRF (top 5 chunks, 20 terms, weight 0.1)", {"rm3": (5, 20, 0.1)}),
    ("+ BM25 PRF (top 3 chunks, 10 terms, weight 0.2)", {"rm3": (3, 10, 0.2)}),
    ("doc = best chunk + 0.05 x second chunk", {"second": 0.05}),
]
TITLE_VARIANTS: list[tuple[str, dict[str, Any]]] = [
    ("+ MiniLM title vector, weight 0.05", {"title": 0.05}),
    ("+ MiniLM title vector, weight 0.2", {"title": 0.2}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--split", default="train")
    parser.add_argument("--depth", type=int, default=300)
    parser.add_argument("--titles", action="store_true", help="embed titles (minutes)")
    args = parser.parse_args()
    dump_file = REPO / "bench" / "out" / f"scifact-signals-{args.split}.pkl"
    with dump_file.open("rb") as handle:
        dump = pickle.load(handle)
    study = Study(dump, args.home / "eval" / "scifact.db", args.depth)
    variants = list(VARIANTS)
    if args.titles:
        embedder = create_embedder(load_settings(home=args.home).embedder)
        titles = dict(zip(dump["docs"], dump["titles"], strict=True))
        names = list(titles)
        vectors = embedder.embed_documents([titles[n] for n in names])
        position = {n: i for i, n in enumerate(names)}
        owner = np.array([position[d] for d in dump["docs"]])
        study.title_cos = lambda qi: (vectors @ dump["qvecs"][qi])[owner]
        variants += TITLE_VARIANTS
    print(f"| variant ({args.split}, {len(dump['qids'])} queries) | nDCG@10 | R@100 |")
    print("| --- | --- | --- |")
    for label, kw in variants:
        ndcg, recall = study.run(**kw)
        print(f"| {label} | {ndcg:.4f} | {recall:.4f} |", flush=True)


if __name__ == "__main__":
    main()
