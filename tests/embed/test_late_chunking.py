"""Late chunking with the bundled MiniLM: sentence vectors pooled from the chunk's own pass,
and an index built that way (``index.sentence_method = "late"``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from notecite import Engine
from notecite.chunking.chunker import late_spans
from notecite.embed.minilm import DIMENSIONS, MiniLMEmbedder
from notecite.testing import hash_settings, write_files

pytestmark = pytest.mark.slow

TEXT = (
    "Boiler\nThe plumber services the boiler every October. "
    "Lisbon flights leave on Thursday mornings. The tomatoes go in the south bed."
)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder(threads=2)


def test_spans_pool_the_chunks_own_tokens(minilm: MiniLMEmbedder) -> None:
    body = TEXT.split("\n", 1)[1]
    spans = late_spans(TEXT, body)
    assert [TEXT[a:b] for a, b in spans] == [
        "The plumber services the boiler every October.",
        "Lisbon flights leave on Thursday mornings.",
        "The tomatoes go in the south bed.",
    ]
    vectors, parts = minilm.embed_with_spans([TEXT, "short"], [spans, [(50, 60)]])
    np.testing.assert_allclose(vectors, minilm.embed_documents([TEXT, "short"]), atol=1e-5)
    assert parts[0].shape == (3, DIMENSIONS)
    np.testing.assert_allclose(np.linalg.norm(parts[0], axis=1), 1.0, atol=1e-5)
    # each sentence's vector is nearest its own question among the three
    questions = minilm.embed_documents(
        ["when is the boiler serviced", "when do flights to Lisbon leave", "where do tomatoes go"]
    )
    assert list((parts[0] @ questions.T).argmax(axis=1)) == [0, 1, 2]
    # a span with no token (past the text) falls back to the text's own vector
    np.testing.assert_allclose(parts[1][0], vectors[1], atol=1e-5)


def test_a_late_chunked_index_stores_sentence_vectors_from_one_pass(
    tmp_path: Path, minilm: MiniLMEmbedder
) -> None:
    write_files(tmp_path / "notes", {"house.md": "# House\n\n" + TEXT.split("\n", 1)[1] + "\n"})
    settings = hash_settings(tmp_path / "home", index={"sentence_method": "late"})
    with Engine(settings, embedder=minilm) as engine:
        engine.add_vault("v", tmp_path / "notes")
        (report,) = engine.index("v")
        assert (report.chunks_embedded, report.sentences_embedded) == (1, 3)
        (again,) = engine.index("v", rebuild=True)
        assert (again.chunks_embedded, again.sentences_embedded) == (0, 0)
        hit = engine.search("when do flights to Lisbon leave", k=1)[0]
        assert hit.rel_path == "house.md"
    conn = sqlite3.connect(settings.db_path)
    try:
        stored = conn.execute("SELECT COUNT(*) FROM sentence_embeddings").fetchone()[0]
    finally:
        conn.close()
    assert stored == 3
