"""The Reranker protocol and its registry."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from notecite.config import RetrievalSettings
from notecite.registry import Registry

BUILT_IN = ("lexical", "none")


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


RerankerFactory = Callable[[RerankerContext], Reranker]
_REGISTRY: Registry[RerankerContext, Reranker] = Registry("notecite.rerankers", "reranker")


def register_reranker(name: str, factory: RerankerFactory) -> None:
    """Make a reranker available under ``name``."""
    _REGISTRY.register(name, factory)


def available_rerankers() -> list[str]:
    """Names that ``retrieval.reranker`` may take."""
    return sorted({*BUILT_IN, *_REGISTRY.names()})


def _e5(context: RerankerContext) -> Reranker:
    from notecite.retrieve.rerankers.e5 import create

    return create(context)


def _cross_encoder(context: RerankerContext) -> Reranker:
    from notecite.retrieve.rerankers.cross_encoder import create

    return create(context)


# Also declared as entry points in pyproject.toml; registered here too so that an install
# made before the group existed still finds them.
register_reranker("e5", _e5)
register_reranker("cross-encoder", _cross_encoder)


def create_reranker(name: str, context: RerankerContext) -> Reranker | None:
    """The model reranker ``name``, or None for the built-in ``lexical`` and ``none``."""
    if name in BUILT_IN:
        return None
    return _REGISTRY.create(name, context)
