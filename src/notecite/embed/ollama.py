"""Ollama's native embedding API: ``POST {base_url}/api/embed``."""

from __future__ import annotations

from collections.abc import Sequence

import httpx
import numpy as np

from notecite.config import EmbedderSettings
from notecite.embed.base import Vectors, approx_token_count, normalise
from notecite.embed.remote import post_json
from notecite.errors import EmbeddingError


class OllamaEmbedder:
    """Embeds with ``{"model", "input": [...]}`` and reads ``{"embeddings": [[...]]}``."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:11434",
        model: str = "nomic-embed-text",
        dimensions: int | None = None,
        batch_size: int = 32,
        timeout_s: float = 60.0,
        max_tokens: int = 2048,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._dimensions = dimensions
        self._batch_size = batch_size
        self._timeout_s = timeout_s
        self._max_tokens = max_tokens
        self._client: httpx.Client | None = None

    @property
    def model_id(self) -> str:
        return f"ollama:{self._model}"

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

    def _request(self, texts: list[str]) -> Vectors:
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout_s)
        body = post_json(
            self._client, f"{self._base_url}/api/embed", {"model": self._model, "input": texts}
        )
        try:
            vectors = np.asarray(body["embeddings"], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"unexpected reply from Ollama at {self._base_url}") from exc
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise EmbeddingError(f"Ollama returned {len(vectors)} vectors for {len(texts)} texts")
        return vectors

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
        vector: Vectors = self.embed_documents([text])[0]
        return vector


def create(settings: EmbedderSettings) -> OllamaEmbedder:
    """Entry point: ``embedder.name = "ollama"`` (default model ``nomic-embed-text``)."""
    return OllamaEmbedder(
        base_url=settings.base_url or "http://127.0.0.1:11434",
        model=settings.model or "nomic-embed-text",
        dimensions=settings.dimensions,
        batch_size=settings.batch_size,
        timeout_s=settings.timeout_s,
    )
