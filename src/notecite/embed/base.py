"""The Embedder protocol."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]

MINILM_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
"""The ``model_id`` of the bundled embedder (:mod:`notecite.embed.minilm`) with its int8
weights multiplied in float; kept here so that code tuned per model (template thresholds,
the answerability gate) need not import the provider."""
MINILM_INT8_MODEL_ID = "all-MiniLM-L6-v2-onnx-int8-a8"
"""The same model with its activations quantized to int8 too (about twice as fast; vectors
within a cosine of about 0.99 of the float ones): what a new index is built with."""
MINILM_MODEL_IDS = frozenset({MINILM_MODEL_ID, MINILM_INT8_MODEL_ID})
"""Both MiniLM variants: scores tuned on one hold for the other (bench/RESULTS.md)."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors.

    Contract:
    - ``model_id`` names the model and its settings; two embedders with the same id must give
      the same vector for the same text (it keys the embedding cache and is recorded with the
      index). ``dimensions`` is the vector length.
    - ``max_tokens`` is how many tokens the model reads; the chunker keeps chunks under it.
      ``count_tokens`` counts tokens the way the model does (no special tokens).
    - ``embed_documents`` and ``embed_query`` return an ``(n, dimensions)`` / ``(dimensions,)``
      float32 array with unit rows; they batch internally.
    - Constructing an embedder does no I/O; models and clients load on first use.
    - Failures raise :class:`notecite.errors.EmbeddingError`.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dimensions(self) -> int: ...

    @property
    def max_tokens(self) -> int: ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...

    def embed_documents(self, texts: Sequence[str]) -> Vectors: ...

    def embed_query(self, text: str) -> Vectors: ...


@runtime_checkable
class SpanEmbedder(Protocol):
    """An embedder that can pool parts of a text from the pass that embeds it (late
    chunking).

    ``embed_with_spans(texts, spans)`` returns the texts' vectors (as ``embed_documents``
    gives them) and, for each text, an ``(len(spans[i]), dimensions)`` array of unit
    vectors, one per character span of that text.
    """

    def embed_with_spans(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[Vectors, list[Vectors]]: ...


@runtime_checkable
class EmbedderVariants(Protocol):
    """An embedder that can stand in for another variant of its own model.

    ``variant(model_id)`` returns an embedder (sharing nothing that is not safe to share)
    whose ``model_id`` is ``model_id``, when that id names a variant of this embedder's
    model (the bundled MiniLM with float or int8 activations); None otherwise. An index
    built with one variant keeps being searched and written with it.
    """

    def variant(self, model_id: str) -> Embedder | None: ...


@runtime_checkable
class QueryPathPassages(Protocol):
    """An embedder whose query path can also embed a passage.

    A passage written while a question waits (auto-RAG's HyDE answer) is a document to the
    model but is on the question's clock: embedders that reach a server implement this to
    give it the query's budget (one attempt, the short timeout, the failure cool-down)
    instead of indexing's retries. Local embedders need not: nothing there waits on a
    network.
    """

    def embed_passage_for_query(self, text: str) -> Vectors: ...


def embed_passage_for_query(embedder: Embedder, text: str) -> Vectors:
    """Embed ``text`` as a passage on the query path (see :class:`QueryPathPassages`).

    Embedders without that path embed it with ``embed_documents``.
    """
    if isinstance(embedder, QueryPathPassages):
        return embedder.embed_passage_for_query(text)
    vector: Vectors = embedder.embed_documents([text])[0]
    return vector


def normalise(vectors: Vectors) -> Vectors:
    """L2-normalise rows; zero rows stay zero."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    norms[norms == 0] = 1.0
    result: Vectors = (vectors / norms).astype(np.float32, copy=False)
    return result


def approx_token_count(text: str) -> int:
    """Word-piece estimate for providers whose tokenizer we do not have: ~4/3 tokens a word."""
    words = len(text.split())
    return (words * 4 + 2) // 3
