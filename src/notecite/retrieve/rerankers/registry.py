"""Model rerankers by name (entry-point group ``notecite.rerankers``).

``lexical`` and ``none`` are built into the retriever and have no provider here.
"""

from __future__ import annotations

from collections.abc import Callable

from notecite.registry import Registry
from notecite.retrieve.rerankers.base import Reranker, RerankerContext
from notecite.retrieve.rerankers.cross_encoder import create as create_cross_encoder
from notecite.retrieve.rerankers.e5 import create as create_e5

BUILT_IN = ("lexical", "none")

RerankerFactory = Callable[[RerankerContext], Reranker]
_REGISTRY: Registry[RerankerContext, Reranker] = Registry("notecite.rerankers", "reranker")


def register_reranker(name: str, factory: RerankerFactory) -> None:
    """Make a reranker available under ``name`` (overrides an entry point of that name)."""
    _REGISTRY.register(name, factory)


def available_rerankers() -> list[str]:
    """Names that ``retrieval.reranker`` may take."""
    return sorted({*BUILT_IN, *_REGISTRY.names()})


# Also declared as entry points in pyproject.toml; registered here too so that an install
# made before the group existed still finds them. Neither module loads a model on import.
register_reranker("e5", create_e5)
register_reranker("cross-encoder", create_cross_encoder)


def create_reranker(name: str, context: RerankerContext) -> Reranker | None:
    """The model reranker ``name``, or None for the built-in ``lexical`` and ``none``.

    Raises:
        ConfigError: no reranker of that name is registered.
    """
    if name in BUILT_IN:
        return None
    return _REGISTRY.create(name, context)
