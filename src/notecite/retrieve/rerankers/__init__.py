"""Model rerankers (e5 re-score, cross-encoders) by name (entry-point group ``notecite.rerankers``).

``lexical`` and ``none`` are built into the retriever; every other name is a provider here.
"""

from notecite.retrieve.rerankers.base import Passage, Reranker, RerankerContext
from notecite.retrieve.rerankers.registry import (
    available_rerankers,
    create_reranker,
    register_reranker,
)

__all__ = [
    "Passage",
    "Reranker",
    "RerankerContext",
    "available_rerankers",
    "create_reranker",
    "register_reranker",
]
