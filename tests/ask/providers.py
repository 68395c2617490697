"""Real provider implementations for the ask tests: a scripted LLM and a query-failing embedder.

They implement the public protocols (:class:`notecite.generate.base.LLM`,
:class:`notecite.embed.base.Embedder`) the way a third-party plugin would; nothing of
notecite is patched.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from notecite.embed.base import Vectors
from notecite.embed.hashing import HashEmbedder
from notecite.errors import EmbeddingError
from notecite.generate.base import GenerationRequest


class ScriptedLLM:
    """Answers every question with ``answer`` and every folder-ranking request with ``folders``.

    A folder-ranking request is the one that carries no sources. ``error``, when set, is
    raised instead of answering. Every request is kept in ``calls``.
    """

    def __init__(
        self,
        answer: str = "The Apollo launch is scheduled for March 14 [N1].",
        *,
        folders: str = "[]",
        error: Exception | None = None,
        name: str = "scripted",
    ) -> None:
        self.answer = answer
        self.folders = folders
        self.error = error
        self._name = name
        self.calls: list[GenerationRequest] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def model_id(self) -> str:
        return "scripted-1"

    @property
    def answer_calls(self) -> list[GenerationRequest]:
        """The requests that asked for an answer (not for folders)."""
        return [c for c in self.calls if c.sources]

    @property
    def folder_calls(self) -> list[GenerationRequest]:
        """The folder-ranking requests."""
        return [c for c in self.calls if not c.sources]

    def generate(self, request: GenerationRequest) -> str:
        self.calls.append(request)
        if not request.sources:
            return self.folders
        if self.error is not None:
            raise self.error
        return self.answer

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        for piece in re.split(r"(\s+)", self.generate(request)):
            if piece:
                yield piece


class QueryFailingEmbedder:
    """Indexes like the ``hash`` embedder, but every query embedding fails."""

    def __init__(self) -> None:
        self.inner = HashEmbedder()
        self.query_attempts = 0

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
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        self.query_attempts += 1
        raise EmbeddingError("embedding server at http://127.0.0.1:9 is unreachable")
