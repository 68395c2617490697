"""Fixtures of the ask tests: engines over the two test vaults, on real SQLite in tmp_path."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from notecite import Engine, load_settings
from notecite.embed.base import Embedder
from notecite.generate.base import LLM
from tests.ask.notes import build_vaults

MakeEngine = Callable[..., Engine]


@pytest.fixture
def make_engine(tmp_path: Path) -> Iterator[MakeEngine]:
    """``make_engine(llm=..., embedder=..., indexed=True, **settings)``: a fresh home each call.

    ``llm`` is an LLM instance handed to the Engine, or a provider name for the settings.
    Settings default to the ``hash`` embedder and the ``extractive`` LLM, and auto-RAG off
    (the tiny vaults retrieve "weakly", and these tests count the LLM's calls) unless a
    test sets ``ask={"auto_rag": ...}``; with ``indexed`` the vaults v1 (work) and v2 (home)
    of :mod:`tests.ask.notes` are added and indexed.
    """
    engines: list[Engine] = []

    def make(
        *,
        llm: LLM | str | None = None,
        embedder: Embedder | None = None,
        indexed: bool = True,
        **overrides: Any,
    ) -> Engine:
        overrides.setdefault("embedder", {"name": "hash"})
        overrides["ask"] = {"auto_rag": "off", **overrides.get("ask", {})}
        overrides["llm"] = llm if isinstance(llm, str) else "extractive"
        number = len(engines)
        settings = load_settings(home=tmp_path / f"home{number}", **overrides)
        instance = None if isinstance(llm, str) else llm
        engine = Engine(settings, llm=instance, embedder=embedder)
        engines.append(engine)
        if indexed:
            build_vaults(engine, tmp_path / f"notes{number}")
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def notes_engine(make_engine: MakeEngine) -> Engine:
    """Both vaults indexed, answered by the extractive provider."""
    return make_engine()
