"""IR metrics through pytrec_eval (the reference implementation of trec_eval)."""

from __future__ import annotations

from collections.abc import Mapping
from statistics import mean

from notecite.errors import ConfigError

Run = Mapping[str, Mapping[str, float]]
Qrels = Mapping[str, Mapping[str, int]]


def evaluate_run(qrels: Qrels, run: Run) -> dict[str, float]:
    """Mean nDCG@10, Recall@100 and MRR@10 over the judged queries."""
    try:
        import pytrec_eval
    except ImportError as exc:
        raise ConfigError("evaluation needs pytrec_eval: pip install pytrec-eval-terrier") from exc
    qrels_plain = {q: dict(d) for q, d in qrels.items()}
    run_plain = {q: {d: float(s) for d, s in run.get(q, {}).items()} for q in qrels}
    top10 = {
        q: dict(sorted(docs.items(), key=lambda kv: (-kv[1], kv[0]))[:10])
        for q, docs in run_plain.items()
    }
    full = pytrec_eval.RelevanceEvaluator(qrels_plain, {"ndcg_cut.10", "recall.100"})
    rr = pytrec_eval.RelevanceEvaluator(qrels_plain, {"recip_rank"})
    per_query = full.evaluate(run_plain)
    per_query_rr = rr.evaluate(top10)
    return {
        "ndcg@10": mean(v["ndcg_cut_10"] for v in per_query.values()),
        "recall@100": mean(v["recall_100"] for v in per_query.values()),
        "mrr@10": mean(v["recip_rank"] for v in per_query_rr.values()),
    }
