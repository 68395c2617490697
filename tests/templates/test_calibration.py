"""The shipped minilm threshold separates the labelled queries of
``bench/template_queries.json`` (real bundled model; method in ``docs/templates.md``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from notecite.embed.minilm import MiniLMEmbedder
from notecite.templates import RAGConfig, TemplateMatch, TemplateRetriever
from notecite.templates.library import BUNDLED_LIBRARY
from notecite.templates.sqlite_store import SQLiteTemplateStore
from notecite.templates.thresholds import MINILM_THRESHOLD, NOMIC_THRESHOLD
from tests.helpers import REPO_ROOT

pytestmark = pytest.mark.slow

QUERIES = json.loads((REPO_ROOT / "bench" / "template_queries.json").read_text())


def _falls_back(matches: list[TemplateMatch]) -> bool:
    return [(m.id, m.score) for m in matches] == [("bot-chain-of-thought", 0.5)]


def _rates(retriever: TemplateRetriever) -> tuple[float, float, float]:
    """Share of labelled queries that get their template (the fallback counts for chain of
    thought), share of off-topic queries that fall back, and their mean."""
    labelled = [
        q["template"] in {m.id for m in retriever.search(q["query"])} for q in QUERIES["positive"]
    ]
    off_topic = [_falls_back(retriever.search(q["query"])) for q in QUERIES["off_topic"]]
    hit, rejected = sum(labelled) / len(labelled), sum(off_topic) / len(off_topic)
    return hit, rejected, (hit + rejected) / 2


def test_minilm_threshold_separates_the_labelled_queries(tmp_path: Path) -> None:
    embedder = MiniLMEmbedder()
    store = SQLiteTemplateStore(tmp_path / "index.db")
    dirs = (BUNDLED_LIBRARY / "bot-buffer", BUNDLED_LIBRARY / "templates")

    def retriever(threshold: float | None) -> TemplateRetriever:
        config = RAGConfig(template_dirs=dirs, similarity_threshold=threshold)
        return TemplateRetriever(embedder, store, config)

    shipped = retriever(None)
    assert shipped.threshold == MINILM_THRESHOLD
    assert shipped.index_templates() == 12
    hit, rejected, balanced = _rates(shipped)
    # Measured: 31/36 labelled queries get their template, 23/24 off-topic fall back.
    assert hit >= 29 / 36
    assert rejected >= 22 / 24
    assert balanced >= 0.88
    # nomic-embed-text's 0.65 would reject nearly everything with minilm, and no threshold
    # at all would hand a template to every off-topic query.
    for other in (NOMIC_THRESHOLD, 0.0):
        assert _rates(retriever(other))[2] < balanced - 0.2
    store.close()
