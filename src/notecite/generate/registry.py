"""LLM providers by name (entry-point group ``notecite.llms``)."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable

from notecite.config import GenerationSettings
from notecite.generate.base import LLM
from notecite.registry import Registry

LLMFactory = Callable[[GenerationSettings], LLM]

_REGISTRY: Registry[GenerationSettings, LLM] = Registry("notecite.llms", "LLM provider")


def register_llm(name: str, factory: LLMFactory) -> None:
    """Make an LLM provider available under ``name``."""
    _REGISTRY.register(name, factory)


def available_llms() -> list[str]:
    """Names that ``llm`` may take."""
    return _REGISTRY.names()


def default_llm_name() -> str:
    """``local`` when its runtime is installed, else ``extractive``."""
    return "local" if importlib.util.find_spec("xllamacpp") is not None else "extractive"


def create_llm(name: str | None, settings: GenerationSettings) -> LLM:
    """Build the provider ``name`` (the default when None); nothing loads yet."""
    return _REGISTRY.create(name or default_llm_name(), settings)
