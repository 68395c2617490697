"""The bundled default embedder, loaded for real (all-MiniLM-L6-v2, int8 ONNX)."""

from __future__ import annotations

import numpy as np
import pytest

from notecite.config import EmbedderSettings
from notecite.embed.base import Embedder
from notecite.embed.minilm import DIMENSIONS, MAX_TOKENS, MODEL_ID, MiniLMEmbedder
from notecite.embed.registry import create_embedder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return create_embedder(EmbedderSettings(name="minilm", threads=2))


def test_is_the_default_and_declares_its_shape() -> None:
    embedder = create_embedder(EmbedderSettings())
    assert isinstance(embedder, MiniLMEmbedder)
    assert isinstance(embedder, Embedder)
    assert (embedder.model_id, embedder.dimensions, embedder.max_tokens) == (
        MODEL_ID,
        384,
        256,
    )


def test_unit_vectors_of_384_dimensions(minilm: Embedder) -> None:
    vectors = minilm.embed_documents(["The cat sat on the mat.", "Quarterly budget", "x"])
    assert vectors.shape == (3, DIMENSIONS)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = minilm.embed_query("The cat sat on the mat.")
    assert query.shape == (DIMENSIONS,)
    np.testing.assert_allclose(query, vectors[0], atol=1e-5)


def test_related_sentences_score_higher_than_unrelated(minilm: Embedder) -> None:
    a, related, unrelated = minilm.embed_documents(
        [
            "How do I reset my password?",
            "Steps to change a forgotten account password",
            "The recipe needs two cups of flour and an egg.",
        ]
    )
    assert float(a @ related) > float(a @ unrelated) + 0.2


def test_batches_give_the_same_vectors(minilm: Embedder) -> None:
    texts = [f"note number {i} about topic {i % 3}" for i in range(70)]
    batched = minilm.embed_documents(texts)
    one_by_one = np.stack([minilm.embed_query(t) for t in texts[:5]])
    np.testing.assert_allclose(batched[:5], one_by_one, atol=1e-4)


def test_count_tokens(minilm: Embedder) -> None:
    counts = minilm.count_tokens(["hello world", "", "tokenization", "a " * 600])
    assert counts[0] == 2
    assert counts[1] == 0
    assert counts[2] >= 1
    assert counts[3] == 600  # no truncation when counting
    assert minilm.count_tokens([]) == []


def test_long_text_is_truncated_not_an_error(minilm: Embedder) -> None:
    long_text = " ".join(f"word{i % 97}" for i in range(5000))
    assert minilm.count_tokens([long_text])[0] > MAX_TOKENS
    (vector,) = minilm.embed_documents([long_text])
    assert vector.shape == (DIMENSIONS,)
    assert np.isfinite(vector).all()
    assert float(np.linalg.norm(vector)) == pytest.approx(1.0, abs=1e-5)


def test_empty_input(minilm: Embedder) -> None:
    assert minilm.embed_documents([]).shape == (0, DIMENSIONS)


def test_chunks_fit_the_model_window(minilm: Embedder) -> None:
    from datetime import UTC, datetime

    from notecite.chunking import ChunkerConfig, chunk_note
    from notecite.ingest.markdown import parse_markdown

    body = "\n".join(
        [
            "# Budget review",
            "Spend went from $211,400 to $240,000 (FY2025); see [[people/priya|Priya]].",
            " ".join(["supercalifragilistic"] * 400),
            "-" * 3000,
            "日本語のテキスト" * 200,
            "## Next steps",
            *[f"- item {i}: follow up with team {i % 7} about invoice #{i}" for i in range(80)],
        ]
    )
    note = parse_markdown("notes/budget.md", "---\ntitle: Budget\n---\n" + body, datetime.now(UTC))
    chunks = chunk_note(note, "v", minilm.count_tokens, ChunkerConfig(MAX_TOKENS, 32))
    counts = minilm.count_tokens([c.embed_text for c in chunks])
    assert len(chunks) > 10
    assert max(counts) <= MAX_TOKENS
