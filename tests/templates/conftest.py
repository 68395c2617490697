"""Fixtures of the template tests: a counting hash embedder, and template stores (the
SQLite index file and Chroma's embedded client, both always)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from notecite.embed.base import Embedder
from notecite.embed.hashing import HashEmbedder
from notecite.templates import RAGConfig, TemplateRetriever, TemplateStore
from notecite.templates.chroma_store import ChromaTemplateStore
from notecite.templates.sqlite_store import SQLiteTemplateStore
from notecite.testing import DelegatingEmbedder

MakeRetriever = Callable[..., TemplateRetriever]


@pytest.fixture
def embedder() -> DelegatingEmbedder:
    """The hash embedder (256-d), counting what it embeds."""
    return DelegatingEmbedder(HashEmbedder())


@pytest.fixture
def without_chromadb(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import chromadb`` fail as it does where the extra is not installed."""
    monkeypatch.setitem(sys.modules, "chromadb", None)


@pytest.fixture(params=["sqlite", "chroma"])
def store_kind(request: pytest.FixtureRequest) -> str:
    """Each retriever test runs against every store."""
    kind: str = request.param
    return kind


@pytest.fixture
def make_store(tmp_path: Path, store_kind: str) -> Callable[[], TemplateStore]:
    """A new handle on the test's store (same file or folder every call)."""

    def make() -> TemplateStore:
        if store_kind == "chroma":
            return ChromaTemplateStore(path=tmp_path / "chroma")
        return SQLiteTemplateStore(tmp_path / "index.db")

    return make


@pytest.fixture
def make_retriever(
    embedder: DelegatingEmbedder, make_store: Callable[[], TemplateStore]
) -> Iterator[MakeRetriever]:
    """``make_retriever(dirs, embedder=None, **config)``: a retriever on the test's store."""
    opened: list[TemplateRetriever] = []

    def make(dirs: tuple[Path, ...], embedder_: Embedder | None = None, **config: Any) -> Any:
        retriever = TemplateRetriever(
            embedder_ or embedder, make_store(), RAGConfig(template_dirs=dirs, **config)
        )
        opened.append(retriever)
        return retriever

    yield make
    for retriever in opened:
        retriever.close()
