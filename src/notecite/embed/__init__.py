"""Embedding providers: a Protocol, a registry by name, and the built-in providers."""

from notecite.embed.base import Embedder
from notecite.embed.registry import available_embedders, create_embedder, register_embedder

__all__ = ["Embedder", "available_embedders", "create_embedder", "register_embedder"]
