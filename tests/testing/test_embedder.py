"""DelegatingEmbedder: passes calls through, records them, fails when told to."""

from __future__ import annotations

import numpy as np
import pytest

from notecite.embed.base import Embedder
from notecite.embed.hashing import HashEmbedder
from notecite.errors import EmbeddingError, StoreError
from notecite.testing import DelegatingEmbedder


def test_it_delegates_and_records_every_text() -> None:
    inner = HashEmbedder(dimensions=32, max_tokens=40)
    embedder = DelegatingEmbedder(inner)
    assert isinstance(embedder, Embedder)
    assert (embedder.model_id, embedder.dimensions, embedder.max_tokens) == ("hash-32", 32, 40)
    assert embedder.count_tokens(["one two three"]) == [3]
    vectors = embedder.embed_documents(["alpha", "beta"])
    embedder.embed_documents(["gamma"])
    query = embedder.embed_query("alpha?")
    np.testing.assert_array_equal(vectors, inner.embed_documents(["alpha", "beta"]))
    np.testing.assert_array_equal(query, inner.embed_query("alpha?"))
    assert embedder.documents == ["alpha", "beta", "gamma"]
    assert embedder.document_calls == 2
    assert embedder.queries == ["alpha?"]
    assert DelegatingEmbedder().model_id == HashEmbedder().model_id


def test_it_fails_when_told_to_and_recovers_when_cleared() -> None:
    embedder = DelegatingEmbedder(fail_queries="the server at http://127.0.0.1:9 is down")
    assert embedder.embed_documents(["indexing still works"]).shape == (1, 256)
    with pytest.raises(EmbeddingError, match="is down"):
        embedder.embed_query("a question")
    assert embedder.queries == ["a question"]  # the failed attempt counts

    embedder.fail_queries = None
    embedder.fail_documents = StoreError("any exception will do")
    assert embedder.embed_query("again").shape == (256,)
    with pytest.raises(StoreError, match="any exception"):
        embedder.embed_documents(["x"])
