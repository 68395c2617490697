"""Fixtures of the ask tests: engines over the two test vaults, on real SQLite in tmp_path."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from notecite import Engine
from notecite.embed.base import Embedder
from notecite.generate.base import LLM
from notecite.testing import EngineFactory
from tests.ask.notes import VAULTS

MakeEngine = Callable[..., Engine]


@pytest.fixture
def make_engine(notecite_engines: EngineFactory) -> MakeEngine:
    """``make_engine(llm=..., embedder=..., indexed=True, **settings)``: a fresh home each call.

    ``llm`` is an LLM instance handed to the Engine, or a provider name for the settings.
    Settings default to the ``hash`` embedder and the ``extractive`` LLM, and auto-RAG off
    (the tiny vaults retrieve "weakly", and these tests count the LLM's calls) unless a
    test sets ``ask={"auto_rag": ...}``; with ``indexed`` the vaults v1 (work) and v2 (home)
    of :mod:`tests.ask.notes` are added and indexed.
    """

    def make(
        *,
        llm: LLM | str | None = None,
        embedder: Embedder | None = None,
        indexed: bool = True,
        **overrides: Any,
    ) -> Engine:
        overrides["ask"] = {"auto_rag": "off", **overrides.get("ask", {})}
        return notecite_engines(
            vaults=VAULTS if indexed else None,
            llm=llm,
            embedder=embedder or "hash",
            **overrides,
        )

    return make


@pytest.fixture
def notes_engine(make_engine: MakeEngine) -> Engine:
    """Both vaults indexed, answered by the extractive provider."""
    return make_engine()
