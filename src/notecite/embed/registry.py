"""Embedding providers by name (entry-point group ``notecite.embedders``)."""

from __future__ import annotations

from collections.abc import Callable

from notecite.config import EmbedderSettings
from notecite.embed.base import Embedder
from notecite.registry import Registry

EmbedderFactory = Callable[[EmbedderSettings], Embedder]

_REGISTRY: Registry[EmbedderSettings, Embedder] = Registry("notecite.embedders", "embedder")


def register_embedder(name: str, factory: EmbedderFactory) -> None:
    """Make an embedder available under ``name`` (overrides an entry point of that name)."""
    _REGISTRY.register(name, factory)


def available_embedders() -> list[str]:
    """Names that ``embedder.name`` may take."""
    return _REGISTRY.names()


def create_embedder(settings: EmbedderSettings) -> Embedder:
    """Build the embedder named by ``settings.name`` (no model is loaded yet)."""
    return _REGISTRY.create(settings.name, settings)
