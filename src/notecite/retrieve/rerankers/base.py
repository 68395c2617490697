"""The Reranker protocol and what a reranker is given (passages, its factory's context).

The registry of rerankers by name is :mod:`notecite.retrieve.rerankers.registry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from notecite.config import RetrievalSettings


@dataclass(frozen=True)
class Passage:
    """A candidate as a reranker sees it."""

    text: str
    title: str = ""
    heading_path: str = ""

    @property
    def full_text(self) -> str:
        """Title, heading path and text, as one passage."""
        head = " — ".join(p for p in (self.title, self.heading_path) if p)
        return f"{head}\n{self.text}" if head else self.text


@dataclass(frozen=True)
class RerankerContext:
    """What a reranker factory gets: the retrieval settings and a cache folder."""

    settings: RetrievalSettings
    cache_dir: Path


@runtime_checkable
class Reranker(Protocol):
    """Scores (question, passage) pairs; higher is more relevant.

    Contract:
    - ``score`` returns one float per passage, in order; scores are comparable within one
      call only (the retriever normalises them per query).
    - Constructing does no I/O; models load and clients connect on first use.
    - Failures raise :class:`notecite.errors.RerankError`; retrieval then keeps its order.
    """

    @property
    def name(self) -> str: ...

    def score(self, question: str, passages: Sequence[Passage]) -> list[float]: ...


@runtime_checkable
class WarmableReranker(Reranker, Protocol):
    """A reranker whose passage work can be done ahead of the question (e5's vectors)."""

    def warm(self, passages: Sequence[Passage]) -> int:
        """Prepare and cache ``passages``; return how many were not cached yet."""
        ...
