"""Calibrate the similarity threshold of template search for an embedder (default: minilm).

``TemplateRetriever.search`` keeps templates whose cosine similarity to the query is at least
the threshold and answers with the chain-of-thought fallback when none is left. 0.65 was
chosen for nomic-embed-text; other models score on other scales, so each needs its own.

Method (``docs/templates.md``): the shipped library (``src/notecite/templates/library``) is
indexed with the embedder. ``bench/template_queries.json`` holds 36 problem statements
labelled with the template that should answer them (3 per template) and 24 off-topic
queries that no template fits, each in a ``calibration`` or ``held_out`` split. For every
query the script scores all templates. The threshold is the lowest value, in steps of 0.01,
that sends every off-topic calibration query to the fallback (so nothing is retrieved for
a question no method fits); the script then reports, on both splits, how many labelled
queries get their template (in the top 3 and over the threshold; for chain of thought, the
fallback counts too) and how many off-topic queries fall back.

    python bench/calibrate_templates.py                      # minilm, the bundled default
    python bench/calibrate_templates.py --embedder ollama --model nomic-embed-text
    python bench/calibrate_templates.py --json               # machine-readable figures
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from _measure import REPO, machine
from notecite.config import EmbedderSettings
from notecite.embed.registry import create_embedder
from notecite.templates import RAGConfig, TemplateRetriever
from notecite.templates.library import BUNDLED_LIBRARY
from notecite.templates.sqlite_store import SQLiteTemplateStore
from notecite.templates.thresholds import threshold_for
from notecite.templates.types import FALLBACK_TEMPLATE_ID

QUERIES = REPO / "bench" / "template_queries.json"
TOP_K = 3


@dataclass
class Scored:
    """One labelled query and every template's similarity to it, best first."""

    query: str
    split: str
    target: str | None  # None: off-topic
    ranked: list[tuple[str, float]]

    @property
    def best(self) -> float:
        return self.ranked[0][1]

    def target_score(self) -> float:
        return next(s for i, s in self.ranked if i == self.target)

    def target_rank(self) -> int:
        return next(n for n, (i, _) in enumerate(self.ranked, start=1) if i == self.target)

    def correct(self, threshold: float) -> bool:
        """Off-topic: nothing passes. Labelled: the target is returned (or is the fallback)."""
        returned = [i for i, s in self.ranked[:TOP_K] if s >= threshold]
        if self.target is None:
            return not returned
        if not returned:
            return self.target == FALLBACK_TEMPLATE_ID
        return self.target in returned


def score_queries(embedder_settings: EmbedderSettings) -> tuple[str, list[Scored]]:
    """Index the shipped library in a temporary store and score every labelled query."""
    data = json.loads(QUERIES.read_text())
    embedder = create_embedder(embedder_settings)
    with tempfile.TemporaryDirectory() as tmp:
        config = RAGConfig(
            template_dirs=(BUNDLED_LIBRARY / "bot-buffer", BUNDLED_LIBRARY / "templates")
        )
        retriever = TemplateRetriever(embedder, SQLiteTemplateStore(Path(tmp) / "t.db"), config)
        try:
            count = retriever.index_templates()
            items = [(q["query"], q["split"], q["template"]) for q in data["positive"]]
            items += [(q["query"], q["split"], None) for q in data["off_topic"]]
            vectors = embedder.embed_documents([query for query, _, _ in items])
            scored = []
            for (query, split, target), vector in zip(items, vectors, strict=True):
                hits = retriever.store.search(vector, embedder.model_id, count)
                ranked = [(t.id, score) for t, score in hits]
                scored.append(Scored(query, split, target, ranked))
        finally:
            retriever.close()
    return embedder.model_id, scored


def choose_threshold(scored: list[Scored]) -> float:
    """The lowest 0.01 step above every off-topic calibration query's best score."""
    worst = max(s.best for s in scored if s.target is None and s.split == "calibration")
    return math.floor(worst * 100 + 1) / 100


def summary(scored: list[Scored], threshold: float) -> dict[str, dict[str, object]]:
    """Per split: labelled queries answered right, off-topic queries that fell back."""
    result: dict[str, dict[str, object]] = {}
    for split in ("calibration", "held_out", "all"):
        rows = [s for s in scored if split in ("all", s.split)]
        labelled = [s for s in rows if s.target is not None]
        off = [s for s in rows if s.target is None]
        pos_ok = sum(s.correct(threshold) for s in labelled)
        off_ok = sum(s.correct(threshold) for s in off)
        result[split] = {
            "labelled_retrieved": f"{pos_ok}/{len(labelled)}",
            "off_topic_fallback": f"{off_ok}/{len(off)}",
            "balanced_accuracy": round((pos_ok / len(labelled) + off_ok / len(off)) / 2, 3),
            "top1": f"{sum(s.target_rank() == 1 for s in labelled)}/{len(labelled)}",
        }
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", default="minilm", help="embedder name (default minilm)")
    parser.add_argument("--model", help="the embedder's model (ollama, openai)")
    parser.add_argument("--base-url", help="the embedder's server (ollama, openai)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    settings = EmbedderSettings(name=args.embedder, model=args.model, base_url=args.base_url)
    model_id, scored = score_queries(settings)
    chosen = choose_threshold(scored)
    shipped = threshold_for(model_id)
    report = {
        "model": model_id,
        "machine": machine(),
        "chosen_threshold": chosen,
        "shipped_threshold": shipped,
        "at_chosen": summary(scored, chosen),
        "at_shipped": summary(scored, shipped),
        "labelled": [
            {
                "query": s.query,
                "split": s.split,
                "template": s.target,
                "score": round(s.target_score(), 3),
                "rank": s.target_rank(),
                "best": s.ranked[0][0],
                "best_score": round(s.best, 3),
            }
            for s in scored
            if s.target is not None
        ],
        "off_topic": [
            {
                "query": s.query,
                "split": s.split,
                "best": s.ranked[0][0],
                "best_score": round(s.best, 3),
            }
            for s in scored
            if s.target is None
        ],
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"model {model_id}; {report['machine']}")
    print("\nlabelled queries (target score, rank; best template):")
    for row in report["labelled"]:
        assert isinstance(row, dict)
        print(
            f"  {row['score']:6.3f}  rank {row['rank']:2d}  {row['template']:<26} "
            f"best {row['best']} {row['best_score']:.3f}  [{row['split']}]"
        )
    print("\noff-topic queries (best score, template):")
    for row in report["off_topic"]:
        assert isinstance(row, dict)
        print(f"  {row['best_score']:6.3f}  {row['best']:<26} [{row['split']}] {row['query']}")
    for label, value in (("chosen", chosen), ("shipped", shipped)):
        print(f"\nthreshold {value:.2f} ({label}):")
        for split, figures in summary(scored, value).items():
            print(f"  {split:<12} {figures}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
