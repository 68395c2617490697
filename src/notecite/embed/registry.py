"""Embedding providers by name.

Built-ins are declared as entry points in the ``notecite.embedders`` group, the same route a
third-party package would take; :func:`register_embedder` adds one at run time.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points

from notecite.config import EmbedderSettings
from notecite.embed.base import Embedder
from notecite.errors import ConfigError

EmbedderFactory = Callable[[EmbedderSettings], Embedder]

ENTRY_POINT_GROUP = "notecite.embedders"


class EmbedderRegistry:
    """Factories by name: entry points first, then those registered at run time."""

    def __init__(self) -> None:
        self._factories: dict[str, EmbedderFactory] = {}

    def register(self, name: str, factory: EmbedderFactory) -> None:
        self._factories[name] = factory

    def names(self) -> list[str]:
        found = {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)}
        return sorted(found | set(self._factories))

    def create(self, settings: EmbedderSettings) -> Embedder:
        factory = self._factories.get(settings.name)
        if factory is None:
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                if ep.name == settings.name:
                    factory = ep.load()
                    break
        if factory is None:
            raise ConfigError(
                f"unknown embedder {settings.name!r}; available: {', '.join(self.names())}"
            )
        return factory(settings)


_REGISTRY = EmbedderRegistry()


def register_embedder(name: str, factory: EmbedderFactory) -> None:
    """Make an embedder available under ``name`` (overrides an entry point of that name)."""
    _REGISTRY.register(name, factory)


def available_embedders() -> list[str]:
    """Names that ``embedder.name`` may take."""
    return _REGISTRY.names()


def create_embedder(settings: EmbedderSettings) -> Embedder:
    """Build the embedder named by ``settings.name`` (no model is loaded yet)."""
    return _REGISTRY.create(settings)
