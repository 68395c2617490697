"""Shared scoring of the offline SciFact fusion studies (e5_fusion_study, maxsim_study).

Both read a signal dump of bench/scifact_signals.py and score a weighted min-max fusion of
BM25 with one or more dense signals over the union of each signal's top `depth` chunks; a
document scores its best chunk; nDCG@10 and Recall@100 come from pytrec_eval.
"""

from __future__ import annotations

import pickle
from collections.abc import Sequence
from pathlib import Path
from statistics import mean
from typing import Any

import numpy as np
import pytrec_eval

OUT = Path(__file__).resolve().parent / "out"
Array = np.ndarray[Any, Any]


def load_dump(split: str) -> dict[str, Any]:
    """The signal dump of one split (bench/scifact_signals.py)."""
    with (OUT / f"scifact-signals-{split}.pkl").open("rb") as handle:
        data: dict[str, Any] = pickle.load(handle)
    return data


def min_max(x: Array) -> Array:
    low, high = float(x.min()), float(x.max())
    return (x - low) / (high - low) if high - low > 1e-12 else np.ones_like(x)


class FusionScorer:
    """Scores fusion variants on one split's dump."""

    def __init__(self, dump: dict[str, Any], depth: int) -> None:
        self.d = dump
        self.depth = depth
        self.cos: Array = dump["cos"].astype(np.float32)
        self.rowids: Array = dump["rowids"]
        self.docs: list[str] = dump["docs"]
        self.row_index = {int(r): i for i, r in enumerate(self.rowids)}
        qrels = {q: dict(v) for q, v in dump["qrels"].items()}
        self.evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recall.100"})

    def top(self, scores: Array) -> list[int]:
        return np.argpartition(-scores, self.depth)[: self.depth].tolist()

    def run(
        self, dense: Sequence[tuple[float, Array]], wb: float, cols: str = "t2h1.5b1"
    ) -> tuple[float, float]:
        """nDCG@10 and R@100 of wb x BM25 + sum of w x signal (queries x chunks arrays)."""
        signals = [(w, s) for w, s in dense if w]
        out: dict[str, dict[str, float]] = {}
        for qi, qid in enumerate(self.d["qids"]):
            bm25 = self.d["bm25"][cols][qi]
            top_b = [self.row_index[r] for r in sorted(bm25, key=lambda r: -bm25[r])[: self.depth]]
            pools = ([top_b] if wb else []) + [self.top(s[qi]) for _, s in signals]
            idx = np.array(list(dict.fromkeys(i for pool in pools for i in pool)))
            scores = np.zeros(len(idx))
            for weight, signal in signals:
                scores += weight * min_max(signal[qi][idx])
            if wb:
                scores += wb * min_max(np.array([bm25.get(int(self.rowids[i]), 0.0) for i in idx]))
            best: dict[str, float] = {}
            for o in np.argsort(-scores):
                best.setdefault(self.docs[idx[o]], float(scores[o]))
                if len(best) == 100:
                    break
            out[qid] = best
        per_query = self.evaluator.evaluate(out)
        return (
            mean(v["ndcg_cut_10"] for v in per_query.values()),
            mean(v["recall_100"] for v in per_query.values()),
        )

    def variant(self, **kw: Any) -> tuple[float, float]:
        """One variant's nDCG@10 and R@100 (each study defines its knobs)."""
        raise NotImplementedError

    def print_table(
        self, variants: Sequence[tuple[str, dict[str, Any]]], split: str, only: Sequence[str]
    ) -> None:
        """A markdown table of ``self.variant(**kw)`` for each (label, kw) kept by ``only``."""
        print(f"| variant ({split}, {len(self.d['qids'])} queries) | nDCG@10 | R@100 |")
        print("| --- | --- | --- |")
        for label, kw in variants:
            if only and label not in only:
                continue
            ndcg, recall = self.variant(**kw)
            print(f"| {label} | {ndcg:.4f} | {recall:.4f} |", flush=True)
