"""Ollama's native embedding API: ``POST {base_url}/api/embed``."""

from __future__ import annotations

import numpy as np

from notecite.config import EmbedderSettings
from notecite.embed.base import Vectors
from notecite.embed.remote_base import RemoteEmbedder
from notecite.errors import EmbeddingError
from notecite.http import EMBEDDING_SERVER, post_json


class OllamaEmbedder(RemoteEmbedder):
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
        super().__init__(
            base_url,
            model,
            dimensions=dimensions,
            batch_size=batch_size,
            timeout_s=timeout_s,
            max_tokens=max_tokens,
        )

    @property
    def model_id(self) -> str:
        return f"ollama:{self._model}"

    def _request(self, texts: list[str], *, query: bool = False) -> Vectors:
        body = post_json(
            self._http(),
            f"{self._base_url}/api/embed",
            {"model": self._model, "input": texts},
            provider=EMBEDDING_SERVER,
            retries=self.query_retries if query else self.retries,
            timeout_s=self.query_timeout_s if query else None,
        )
        try:
            vectors = np.asarray(body["embeddings"], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"unexpected reply from Ollama at {self._base_url}") from exc
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise EmbeddingError(f"Ollama returned {len(vectors)} vectors for {len(texts)} texts")
        return vectors


def create(settings: EmbedderSettings) -> OllamaEmbedder:
    """Entry point: ``embedder.name = "ollama"`` (default model ``nomic-embed-text``)."""
    return OllamaEmbedder(
        base_url=settings.base_url or "http://127.0.0.1:11434",
        model=settings.model or "nomic-embed-text",
        dimensions=settings.dimensions,
        batch_size=settings.batch_size,
        timeout_s=settings.timeout_s,
    )
