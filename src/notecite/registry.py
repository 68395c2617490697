"""A small registry of providers by name, fed by entry points and by run-time registration.

Built-in providers are declared as entry points of the ``notecite.*`` groups in
``pyproject.toml``, the same route a third-party package takes.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Generic, TypeVar

from notecite.errors import ConfigError

T = TypeVar("T")
S = TypeVar("S")


class Registry(Generic[S, T]):
    """Factories ``settings -> provider`` by name for one entry-point group."""

    def __init__(self, group: str, kind: str) -> None:
        self._group = group
        self._kind = kind
        self._factories: dict[str, Callable[[S], T]] = {}

    def register(self, name: str, factory: Callable[[S], T]) -> None:
        """Add or override a provider at run time."""
        self._factories[name] = factory

    def names(self) -> list[str]:
        """Every provider name known now."""
        found = {ep.name for ep in entry_points(group=self._group)}
        return sorted(found | set(self._factories))

    def has(self, name: str) -> bool:
        return name in self.names()

    def create(self, name: str, settings: S) -> T:
        """Build provider ``name``; ConfigError names the available ones if it is unknown."""
        factory = self._factories.get(name)
        if factory is None:
            for ep in entry_points(group=self._group):
                if ep.name == name:
                    factory = ep.load()
                    break
        if factory is None:
            raise ConfigError(
                f"unknown {self._kind} {name!r}; available: {', '.join(self.names())}"
            )
        return factory(settings)
