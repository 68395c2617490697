"""Compare fusion settings on a BEIR split (SciFact *train* by default) with `eval beir`.

Reuses the eval index under --home, so only the first run embeds anything. Prints one row
per setting for the `hybrid` and `hybrid+rerank` pipelines.

    .venv/bin/python bench/tune_fusion.py --home /tmp/evalhome --split train
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from notecite.config import load_settings
from notecite.evaluate.beir import run_beir

REPO = Path(__file__).resolve().parents[1]
SETTINGS: list[tuple[str, dict[str, Any]]] = [
    ("weighted 0.60/0.25/0.15", {"strategy": "weighted"}),
    (
        "weighted 0.50/0.35/0.15",
        {"strategy": "weighted", "vector_weight": 0.5, "keyword_weight": 0.35},
    ),
    (
        "weighted 0.45/0.45/0.10",
        {
            "strategy": "weighted",
            "vector_weight": 0.45,
            "keyword_weight": 0.45,
            "recency_weight": 0.1,
        },
    ),
    (
        "weighted 0.40/0.50/0.10",
        {
            "strategy": "weighted",
            "vector_weight": 0.4,
            "keyword_weight": 0.5,
            "recency_weight": 0.1,
        },
    ),
    ("rrf k=60", {"strategy": "rrf"}),
    ("rrf k=20", {"strategy": "rrf", "rrf_k": 20}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/scifact")
    parser.add_argument("--split", default="train")
    args = parser.parse_args()
    print("| setting | pipeline | nDCG@10 | R@100 | MRR@10 | p50 ms |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, retrieval in SETTINGS:
        settings = load_settings(home=args.home, retrieval=retrieval)
        for r in run_beir(settings, args.data, args.split, ["hybrid", "hybrid+rerank"]):
            print(
                f"| {label} | {r.pipeline} | {r.ndcg_10:.4f} | {r.recall_100:.4f} | "
                f"{r.mrr_10:.4f} | {r.latency_p50_ms:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
