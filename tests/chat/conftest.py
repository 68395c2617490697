"""Fixtures of the chat tests: an indexed engine (hash embedder) and its session store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from notecite import Engine
from notecite.chat import SessionStore
from notecite.generate.base import LLM
from notecite.testing import EngineFactory
from tests.chat.notes import NOTES

MakeEngine = Callable[..., Engine]


@pytest.fixture
def make_engine(notecite_engines: EngineFactory) -> MakeEngine:
    """``make_engine(llm=None, **settings)``: the test vault indexed as ``notes`` in a fresh
    home.

    Defaults: the ``hash`` embedder and the ``extractive`` LLM (``llm`` replaces it).
    """

    def make(*, llm: LLM | None = None, **overrides: Any) -> Engine:
        return notecite_engines(vaults={"notes": NOTES}, llm=llm, **overrides)

    return make


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
