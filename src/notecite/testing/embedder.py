"""A delegating embedder: wraps another, records what it embeds, fails when told to."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from notecite.embed.base import Embedder, Vectors
from notecite.embed.hashing import HashEmbedder
from notecite.errors import EmbeddingError


class DelegatingEmbedder:
    """A real :class:`~notecite.embed.base.Embedder` that passes every call to ``inner``.

    ``DelegatingEmbedder()`` wraps the ``hash`` embedder (256-d);
    ``DelegatingEmbedder(fail_queries="server down")`` indexes normally but fails every
    query embedding, as a provider that went down after indexing would.

    Args:
        inner: The embedder that does the work (``HashEmbedder()`` by default).
        fail_documents: Raised by ``embed_documents`` instead of embedding (a string becomes
            an :class:`EmbeddingError`); the texts are still recorded.
        fail_queries: The same for ``embed_query``.

    Attributes:
        documents: Every text given to ``embed_documents``, in order.
        queries: Every text given to ``embed_query``, in order (failed ones included).
        document_calls: How many times ``embed_documents`` was called (batches).
        fail_documents, fail_queries: The errors to raise; a test may set or clear them.
    """

    def __init__(
        self,
        inner: Embedder | None = None,
        *,
        fail_documents: str | Exception | None = None,
        fail_queries: str | Exception | None = None,
    ) -> None:
        self.inner: Embedder = inner if inner is not None else HashEmbedder()
        self.fail_documents = fail_documents
        self.fail_queries = fail_queries
        self.documents: list[str] = []
        self.queries: list[str] = []
        self.document_calls = 0
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens(texts)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        with self._lock:
            self.documents.extend(texts)
            self.document_calls += 1
        _raise(self.fail_documents)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        with self._lock:
            self.queries.append(text)
        _raise(self.fail_queries)
        return self.inner.embed_query(text)


def _raise(error: str | Exception | None) -> None:
    if isinstance(error, str):
        raise EmbeddingError(error)
    if error is not None:
        raise error
