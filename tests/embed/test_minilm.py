"""The bundled default embedder, loaded for real (all-MiniLM-L6-v2, int8 ONNX)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from notecite.config import EmbedderSettings
from notecite.embed.base import MINILM_INT8_MODEL_ID, MINILM_MODEL_ID, Embedder
from notecite.embed.minilm import (
    DIMENSIONS,
    MAX_TOKENS,
    MiniLMEmbedder,
    token_batches,
)
from notecite.embed.registry import create_embedder


@pytest.fixture(scope="module")
def minilm() -> Embedder:
    return create_embedder(EmbedderSettings(name="minilm", threads=2))


@pytest.mark.slow
def test_is_the_default_and_declares_its_shape() -> None:
    embedder = create_embedder(EmbedderSettings())
    assert isinstance(embedder, MiniLMEmbedder)
    assert isinstance(embedder, Embedder)
    assert (embedder.model_id, embedder.dimensions, embedder.max_tokens) == (
        MINILM_INT8_MODEL_ID,
        384,
        256,
    )


def test_each_variant_names_itself_and_gives_the_other() -> None:
    """Float and int8 activations are two model ids; each embedder gives the other
    variant (without loading anything) and refuses a model that is not MiniLM."""
    floats = create_embedder(EmbedderSettings(activations="float"))
    assert isinstance(floats, MiniLMEmbedder)
    assert floats.model_id == MINILM_MODEL_ID
    assert floats.variant(MINILM_MODEL_ID) is floats
    int8 = floats.variant(MINILM_INT8_MODEL_ID)
    assert int8 is not None
    assert int8.model_id == MINILM_INT8_MODEL_ID
    assert int8.variant(MINILM_MODEL_ID) is not None
    assert floats.variant("hash-256") is None


@pytest.mark.slow
def test_the_two_variants_give_close_vectors() -> None:
    texts = ["How do I reset my password?", "Daily notes open when VS Code starts.", "x"]
    floats = MiniLMEmbedder(threads=2, int8_activations=False).embed_documents(texts)
    int8 = MiniLMEmbedder(threads=2).embed_documents(texts)
    cosines = (floats * int8).sum(axis=1)
    assert cosines.min() > 0.97
    assert not np.array_equal(floats, int8)


@pytest.mark.slow
def test_unit_vectors_of_384_dimensions(minilm: Embedder) -> None:
    vectors = minilm.embed_documents(["The cat sat on the mat.", "Quarterly budget", "x"])
    assert vectors.shape == (3, DIMENSIONS)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    query = minilm.embed_query("The cat sat on the mat.")
    assert query.shape == (DIMENSIONS,)
    np.testing.assert_allclose(query, vectors[0], atol=1e-5)


@pytest.mark.slow
def test_related_sentences_score_higher_than_unrelated(minilm: Embedder) -> None:
    a, related, unrelated = minilm.embed_documents(
        [
            "How do I reset my password?",
            "Steps to change a forgotten account password",
            "The recipe needs two cups of flour and an egg.",
        ]
    )
    assert float(a @ related) > float(a @ unrelated) + 0.2


@pytest.mark.slow
def test_batches_give_the_same_vectors(minilm: Embedder) -> None:
    texts = [f"note number {i} about topic {i % 3}" for i in range(70)]
    batched = minilm.embed_documents(texts)
    one_by_one = np.stack([minilm.embed_query(t) for t in texts[:5]])
    np.testing.assert_allclose(batched[:5], one_by_one, atol=1e-4)


@pytest.mark.slow
def test_mixed_lengths_give_each_text_its_own_vector(minilm: Embedder) -> None:
    """Texts of very different token counts (padded together or not, split by the token
    budget or not) get the vector they get alone."""
    texts = [
        " ".join(f"word{i % 89} https://example.org/{i}" for i in range(size))
        for size in (1, 300, 7, 60, 2, 120, 15, 5, 90, 33)
    ]
    batched = minilm.embed_documents(texts)
    alone = np.stack([minilm.embed_query(t) for t in texts])
    np.testing.assert_allclose(batched, alone, atol=1e-5)


@given(
    lengths=st.lists(st.integers(min_value=1, max_value=300), max_size=120),
    max_rows=st.integers(min_value=1, max_value=40),
    max_tokens=st.integers(min_value=1, max_value=5000),
)
def test_token_batches_cover_every_text_within_the_limits(
    lengths: list[int], max_rows: int, max_tokens: int
) -> None:
    batches = token_batches(lengths, max_rows, max_tokens)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))
    flat = [lengths[i] for b in batches for i in b]
    assert flat == sorted(flat)  # similar lengths share a batch
    for batch in batches:
        assert 1 <= len(batch) <= max_rows
        width = max(lengths[i] for i in batch)
        assert len(batch) == 1 or len(batch) * width <= max_tokens


@pytest.mark.slow
def test_count_tokens(minilm: Embedder) -> None:
    counts = minilm.count_tokens(["hello world", "", "tokenization", "a " * 600])
    assert counts[0] == 2
    assert counts[1] == 0
    assert counts[2] >= 1
    assert counts[3] == 600  # no truncation when counting
    assert minilm.count_tokens([]) == []


@pytest.mark.slow
def test_long_text_is_truncated_not_an_error(minilm: Embedder) -> None:
    long_text = " ".join(f"word{i % 97}" for i in range(5000))
    assert minilm.count_tokens([long_text])[0] > MAX_TOKENS
    (vector,) = minilm.embed_documents([long_text])
    assert vector.shape == (DIMENSIONS,)
    assert np.isfinite(vector).all()
    assert float(np.linalg.norm(vector)) == pytest.approx(1.0, abs=1e-5)


@pytest.mark.slow
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
