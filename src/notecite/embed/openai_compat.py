"""Any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM, llama.cpp, LM Studio...)."""

from __future__ import annotations

from collections.abc import Sequence

import httpx
import numpy as np

from notecite.config import EmbedderSettings
from notecite.embed.base import Vectors, approx_token_count, normalise
from notecite.embed.remote import post_json
from notecite.errors import EmbeddingError


class OpenAICompatEmbedder:
    """Embeds through ``POST {base_url}/embeddings`` with ``{"model", "input": [...]}``."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 64,
        timeout_s: float = 60.0,
        max_tokens: int = 512,
    ) -> None:
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._api_key = api_key
        self._dimensions = dimensions
        self._batch_size = batch_size
        self._timeout_s = timeout_s
        self._max_tokens = max_tokens
        self._client: httpx.Client | None = None

    @property
    def model_id(self) -> str:
        return f"openai:{self._model}"

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
            headers = {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}
            self._client = httpx.Client(timeout=self._timeout_s, headers=headers)
        return self._client

    def _request(self, texts: list[str]) -> Vectors:
        body = post_json(
            self._http(), f"{self._base_url}/embeddings", {"model": self._model, "input": texts}
        )
        try:
            rows = sorted(body["data"], key=lambda d: d["index"])
            vectors = np.asarray([r["embedding"] for r in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"unexpected embeddings reply from {self._base_url}") from exc
        if vectors.ndim != 2 or len(vectors) != len(texts):
            raise EmbeddingError(
                f"{self._base_url} returned {len(vectors)} vectors for {len(texts)} texts"
            )
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


def create(settings: EmbedderSettings) -> OpenAICompatEmbedder:
    """Entry point: ``embedder.name = "openai"``."""
    return OpenAICompatEmbedder(
        base_url=settings.base_url or "https://api.openai.com/v1",
        model=settings.model or "text-embedding-3-small",
        api_key=settings.api_key.get_secret_value() if settings.api_key else None,
        dimensions=settings.dimensions,
        batch_size=settings.batch_size,
        timeout_s=settings.timeout_s,
    )
