"""A deterministic, dependency-free embedder for tests: signed feature hashing of words.

Texts sharing words get similar vectors, so retrieval behaves plausibly; it is a fake for
tests and model-free runs, never the default.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from notecite.config import EmbedderSettings
from notecite.embed.base import Vectors, normalise

_WORD = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """Feature-hashing bag of lowercased words (and their 4-char prefixes)."""

    def __init__(self, dimensions: int = 256, max_tokens: int = 256) -> None:
        self._dimensions = dimensions
        self._max_tokens = max_tokens

    @property
    def model_id(self) -> str:
        return f"hash-{self._dimensions}"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    @property
    def max_tokens(self) -> int:
        return self._max_tokens

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(_WORD.findall(text)) for text in texts]

    def _vector(self, text: str) -> Vectors:
        vec = np.zeros(self._dimensions, dtype=np.float32)
        for word in _WORD.findall(text.lower())[: self._max_tokens]:
            for feature in (word, word[:4] + "~"):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                sign = 1.0 if value & 1 else -1.0
                vec[(value >> 1) % self._dimensions] += sign
        return vec

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self._dimensions), dtype=np.float32)
        return normalise(np.stack([self._vector(t) for t in texts]))

    def embed_query(self, text: str) -> Vectors:
        vector: Vectors = self.embed_documents([text])[0]
        return vector


def create(settings: EmbedderSettings) -> HashEmbedder:
    """Entry point: ``embedder.name = "hash"``."""
    return HashEmbedder(dimensions=settings.dimensions or 256)
