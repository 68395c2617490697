"""What the remote embedders share: lazy client, batching, dimension probing, closing."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Sequence

import httpx
import numpy as np

from notecite.embed.base import Vectors, approx_token_count, normalise
from notecite.errors import EmbeddingError

# A question waits on its query embedding, and retrieval falls back to keywords without it:
# one attempt, a short timeout, and after a failure no new attempt for a while.
QUERY_RETRIES = 0
QUERY_TIMEOUT_S = 10.0
QUERY_COOLDOWN_S = 30.0


class RemoteEmbedder(ABC):
    """An embedder behind an HTTP API; subclasses send one batch in ``_request``.

    Documents (indexing) get ``retries`` retries with backoff and the configured timeout. A
    query gets ``query_retries`` and at most ``query_timeout_s``; once a query embedding has
    failed, queries fail at once for ``QUERY_COOLDOWN_S`` seconds, so that a down server
    costs each question nothing while search goes keyword-only. A passage embedded while a
    question waits (HyDE, :meth:`embed_passage_for_query`) takes the query path too.
    """

    retries = 3
    query_retries = QUERY_RETRIES

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        dimensions: int | None,
        batch_size: int,
        timeout_s: float,
        max_tokens: int,
        headers: dict[str, str] | None = None,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._dimensions = dimensions
        self._batch_size = batch_size
        self._timeout_s = timeout_s
        self._max_tokens = max_tokens
        self._headers = headers or {}
        self._client: httpx.Client | None = None
        self._query_failed_at: float | None = None

    @property
    def query_timeout_s(self) -> float:
        """The timeout of one query embedding."""
        return min(self._timeout_s, QUERY_TIMEOUT_S)

    @property
    def dimensions(self) -> int:
        if self._dimensions is None:
            self._dimensions = int(self._request(["dimension probe"]).shape[1])
        return self._dimensions

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def close(self) -> None:
        """Close the HTTP client (idempotent)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [approx_token_count(t) for t in texts]

    def _http(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout_s, headers=self._headers)
        return self._client

    @abstractmethod
    def _request(self, texts: list[str], *, query: bool = False) -> Vectors:
        """Embed one batch (``query``: with the query retries and timeout); raise
        EmbeddingError on any failure."""

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        parts = [
            self._request(list(texts[i : i + self._batch_size]))
            for i in range(0, len(texts), self._batch_size)
        ]
        vectors = np.concatenate(parts)
        if self._dimensions is None:
            self._dimensions = int(vectors.shape[1])
        return normalise(vectors)

    def embed_query(self, text: str) -> Vectors:
        return self._embed_on_query_path(text)

    def embed_passage_for_query(self, text: str) -> Vectors:
        """Embed a passage written while a question waits (HyDE) with the query's budget.

        These servers embed passages and queries with the same request, so this is the query
        path: one attempt, at most ``query_timeout_s``, and the failure cool-down.
        """
        return self._embed_on_query_path(text)

    def _embed_on_query_path(self, text: str) -> Vectors:
        failed_at = self._query_failed_at
        if failed_at is not None and time.monotonic() - failed_at < QUERY_COOLDOWN_S:
            raise EmbeddingError(
                f"the embedding server at {self._base_url} failed "
                f"{time.monotonic() - failed_at:.0f} s ago; not retried for "
                f"{QUERY_COOLDOWN_S:.0f} s"
            )
        try:
            vectors = self._request([text], query=True)
        except EmbeddingError:
            self._query_failed_at = time.monotonic()
            raise
        self._query_failed_at = None
        if self._dimensions is None:
            self._dimensions = int(vectors.shape[1])
        vector: Vectors = normalise(vectors)[0]
        return vector
