"""The Retriever through the Engine: doc-type weights, time hints, strategies."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from notecite import Engine, Settings
from notecite.retrieve.folders import Scope
from notecite.retrieve.retriever import Retriever, recency_score
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory

NOTES = {
    "photos/kayak.md": "---\ntitle: Kayak trip\ntype: photo\ndate: 2025-06-01\n---\n"
    "# Kayak trip\nThe kayak trip on the lake was calm and sunny.\n",
    "projects/kayak.md": "---\ntitle: Kayak plan\ntype: project\ndate: 2025-06-01\n---\n"
    "# Kayak plan\nThe kayak trip on the lake was calm and sunny.\n",
    "meetings/march.md": "---\ntitle: Budget review\ndate: 2024-03-12\n---\n"
    "# Budget review\nWe reviewed the marketing budget for the spring campaign.\n",
    "meetings/june.md": "---\ntitle: Budget review\ndate: 2025-06-20\n---\n"
    "# Budget review\nWe reviewed the marketing budget for the summer campaign.\n",
}


@pytest.fixture
def indexed(engine: Engine, make_vault: Callable[..., Path]) -> Engine:
    engine.add_vault("v", make_vault(NOTES))
    engine.index()
    return engine


def test_doc_type_weight_orders_equal_text(indexed: Engine) -> None:
    response = indexed.ask(AskRequest(question="kayak trip on the lake", debug=True))
    assert response.debug is not None
    paths = [c.rel_path for c in response.debug.retrieved_chunks]
    assert paths.index("projects/kayak.md") < paths.index("photos/kayak.md")


def test_time_hint_filters_by_note_date(indexed: Engine) -> None:
    response = indexed.ask(AskRequest(question="marketing budget review in March 2024", debug=True))
    assert response.debug is not None
    paths = {c.rel_path for c in response.debug.retrieved_chunks}
    assert paths == {"meetings/march.md"}
    assert any("time hint" in note for note in response.debug.notes)


def test_no_time_hint_keeps_old_notes(indexed: Engine) -> None:
    response = indexed.ask(AskRequest(question="marketing budget review", debug=True))
    assert response.debug is not None
    paths = {c.rel_path for c in response.debug.retrieved_chunks}
    assert {"meetings/march.md", "meetings/june.md"} <= paths


@pytest.mark.parametrize("strategy", ["weighted", "rrf", "vector_lexical", "vector", "bm25"])
def test_every_strategy_ranks_the_matching_note_first(indexed: Engine, strategy: str) -> None:
    vault = indexed.vault("v")
    retriever = Retriever(
        indexed.store, indexed.embedder.model_id, indexed.retrieval_options(strategy)
    )
    question = "spring campaign budget"
    retrieval = retriever.retrieve(
        question, indexed.embedder.embed_query(question), [Scope(vault, "", 1.0)], 10
    )
    assert retrieval.candidates[0].chunk.rel_path == "meetings/march.md"
    assert all(
        a.final >= b.final
        for a, b in zip(retrieval.candidates, retrieval.candidates[1:], strict=False)
    )


def test_strategy_is_configurable(settings: Settings) -> None:
    changed = settings.model_copy(
        update={"retrieval": settings.retrieval.model_copy(update={"strategy": "rrf"})}
    )
    with Engine(changed) as engine:
        assert engine.retrieval_options().strategy == "rrf"


def test_recency_halves_every_half_life() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 1, 1, tzinfo=UTC).timestamp()
    assert recency_score(datetime(2026, 1, 1, tzinfo=UTC), now, 365) == pytest.approx(1.0)
    assert recency_score(datetime(2025, 1, 1, tzinfo=UTC), now, 365) == pytest.approx(0.5)
    assert recency_score(None, now, 365) == 0.5


# One line of a long note answers the question; the short note only shares a few words.
LONG_NOTE = (
    "---\ntitle: Field notes\n---\n# Field notes\n"
    + "\n".join(
        [
            "Rainfall was measured daily at the northern ridge station.",
            "Soil samples were sealed and labelled before transport.",
            "The herbarium sheets dried slowly in the humid weather.",
            "Our canoe leaked near the portage so we patched the hull with resin.",
            "Lichen growth on the granite boulders was photographed weekly.",
            "Night temperatures dropped below freezing twice in October.",
            "Three moose crossed the valley floor at dawn on Tuesday.",
            "The camp stove needed a new gasket after the second week.",
            "Bird counts were highest along the marsh edge after rain.",
            "We mapped the beaver dams on the eastern creek in detail.",
            "Mosquito nets were essential for sleeping in the lowland camp.",
            "The satellite phone battery lasted four days between charges.",
        ]
    )
    + "\n"
)
SHORT_NOTE = "---\ntitle: Supplies\n---\n# Supplies\nResin, hull tape.\n"


def test_sentence_vectors_lift_the_note_with_the_matching_line(
    engine: Engine, make_vault: Callable[..., Path]
) -> None:
    engine.add_vault("v", make_vault({"field.md": LONG_NOTE, "supplies.md": SHORT_NOTE}))
    (report,) = engine.index()
    assert report.sentences_embedded >= 6
    vault = engine.vault("v")
    question = "canoe leaked portage patched hull resin"
    query = engine.embedder.embed_query(question)
    ranked = {}
    for weight in (0.0, 0.5):
        options = replace(
            engine.retrieval_options("vector"), sentence_weight=weight, reranker="none"
        )
        retriever = Retriever(engine.store, engine.embedder.model_id, options)
        found = retriever.retrieve(question, query, [Scope(vault, "", 1.0)], 10).candidates
        ranked[weight] = [c.chunk.rel_path for c in found]
        cosines = engine.store.vector_scores(
            engine.embedder.model_id, query, [c.rowid for c in found]
        )
        dense = engine.store.vector_scores(
            engine.embedder.model_id, query, [c.rowid for c in found], weight
        )
        for cand in found:  # the gate's cosine stays the chunk's own; fusion ranks by dense
            assert cand.score_vector == pytest.approx(cosines[cand.rowid], abs=1e-6)
            assert cand.score_dense == pytest.approx(dense[cand.rowid], abs=1e-6)
    assert ranked[0.0][0] == "supplies.md"
    assert ranked[0.5][0] == "field.md"


ISLAND = {
    "trips/kayak.md": "# Kayak plan\nWe paddle across the lake at dawn and camp on the island.\n",
    **{
        f"ferries/f{i}.md": f"# Ferry {i}\nIsland island ferry schedule number {i}.\n"
        for i in range(5)
    },
}


def test_a_vector_hit_that_bm25_ranks_lower_keeps_its_keyword_score(
    notecite_engines: EngineFactory, store_options: dict[str, str]
) -> None:
    """BM25 is searched ``keyword_depth`` times as deep as the vector search, so a chunk
    the vector search finds brings its keyword score though BM25 ranks it past the first
    ``per_scope`` hits (here: sixth of six, with one hit per scope)."""
    engine = notecite_engines(vaults={"isles": ISLAND}, store=store_options)
    vault = engine.vault("isles")
    near_the_kayak_note = engine.embedder.embed_query(ISLAND["trips/kayak.md"])

    def kayak_bm25(depth: int) -> float:
        options = replace(engine.retrieval_options(), keyword_depth=depth)
        retriever = Retriever(engine.store, engine.embedder.model_id, options)
        found = retriever.retrieve(
            "island ferry schedule", near_the_kayak_note, [Scope(vault, "", 1.0)], 1
        )
        kayak = [c for c in found.candidates if c.chunk.rel_path == "trips/kayak.md"]
        assert kayak  # the vector search finds it either way
        return kayak[0].score_bm25

    assert kayak_bm25(1) == 0.0
    assert kayak_bm25(6) > 0.0
    assert engine.retrieval_options().keyword_depth == 4  # the default
