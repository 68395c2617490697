"""Fixtures of the chat tests: an indexed engine (hash embedder) and its session store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from notecite import Engine, load_settings
from notecite.chat import SessionStore
from notecite.generate.base import LLM
from tests.chat.notes import index_notes

MakeEngine = Callable[..., Engine]


@pytest.fixture
def make_engine(tmp_path: Path) -> Iterator[MakeEngine]:
    """``make_engine(llm=None, **settings)``: the test vault indexed in a fresh home.

    Defaults: the ``hash`` embedder and the ``extractive`` LLM (``llm`` replaces it).
    """
    engines: list[Engine] = []

    def make(*, llm: LLM | None = None, **overrides: Any) -> Engine:
        overrides.setdefault("embedder", {"name": "hash"})
        overrides.setdefault("llm", "extractive")
        number = len(engines)
        engine = Engine(load_settings(home=tmp_path / f"home{number}", **overrides), llm=llm)
        engines.append(engine)
        index_notes(engine, tmp_path / f"notes{number}")
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def sessions_of() -> Iterator[Callable[[Engine], SessionStore]]:
    """``sessions_of(engine)``: a session store on the engine's index, closed after the test."""
    opened: list[SessionStore] = []

    def open_for(engine: Engine) -> SessionStore:
        store = engine.open_sessions()
        opened.append(store)
        return store

    yield open_for
    for store in opened:
        store.close()
