"""Any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM, llama.cpp, LM Studio...)."""

from __future__ import annotations

import numpy as np

from notecite.config import EmbedderSettings
from notecite.embed.base import Vectors
from notecite.embed.remote_base import RemoteEmbedder
from notecite.errors import EmbeddingError
from notecite.http import EMBEDDING_SERVER, post_json


class OpenAICompatEmbedder(RemoteEmbedder):
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
        super().__init__(
            base_url,
            model,
            dimensions=dimensions,
            batch_size=batch_size,
            timeout_s=timeout_s,
            max_tokens=max_tokens,
            headers={"Authorization": f"Bearer {api_key}"} if api_key else None,
        )

    @property
    def model_id(self) -> str:
        return f"openai:{self._model}"

    def _request(self, texts: list[str], *, query: bool = False) -> Vectors:
        body = post_json(
            self._http(),
            f"{self._base_url}/embeddings",
            {"model": self._model, "input": texts},
            provider=EMBEDDING_SERVER,
            retries=self.query_retries if query else self.retries,
            timeout_s=self.query_timeout_s if query else None,
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
