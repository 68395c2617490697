"""The Chroma store beyond the shared contract: its collection, and a missing chromadb.

The contract itself (indexing, search, fallback, add) runs against Chroma in
``test_retriever.py`` whenever chromadb is installed (``pip install 'notecite[chroma]'``),
with its embedded persistent client in ``tmp_path``: no server, no network.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from notecite.errors import StoreError
from notecite.templates import RAGConfig, TemplateRetriever, open_template_store
from notecite.templates.chroma_store import COLLECTION, ChromaTemplateStore
from notecite.templates.sqlite_store import SQLiteTemplateStore
from notecite.testing import DelegatingEmbedder, hash_settings
from tests.templates.helpers import two_dirs


def test_the_store_follows_the_config(tmp_path: Path) -> None:
    settings = hash_settings(tmp_path / "home")
    default = open_template_store(settings, RAGConfig())
    assert isinstance(default, SQLiteTemplateStore)
    assert default.path == settings.db_path
    by_path = open_template_store(settings, RAGConfig(chroma_path=tmp_path / "c"))
    assert isinstance(by_path, ChromaTemplateStore)
    assert by_path.path == tmp_path / "c"
    by_url = open_template_store(settings, RAGConfig(chroma_url="http://127.0.0.1:8000"))
    assert isinstance(by_url, ChromaTemplateStore)
    assert by_url.url == "http://127.0.0.1:8000"
    with pytest.raises(ValueError, match="exactly one"):
        ChromaTemplateStore()


@pytest.mark.usefixtures("without_chromadb")
def test_missing_chromadb_names_the_install_command(
    tmp_path: Path, embedder: DelegatingEmbedder
) -> None:
    store = ChromaTemplateStore(path=tmp_path / "chroma")
    with pytest.raises(StoreError, match=r"pip install 'notecite\[chroma\]'"):
        store.count()
    retriever = TemplateRetriever(embedder, store, RAGConfig(template_dirs=(tmp_path,)))
    assert not retriever.is_ready()
    (match,) = retriever.search("anything")  # search never raises
    assert (match.id, match.score) == ("bot-chain-of-thought", 0.5)


def test_templates_live_in_a_cosine_collection(
    tmp_path: Path, embedder: DelegatingEmbedder
) -> None:
    chromadb = importlib.import_module("chromadb")
    folder = tmp_path / "chroma"
    retriever = TemplateRetriever(
        embedder,
        ChromaTemplateStore(path=folder),
        RAGConfig(template_dirs=two_dirs(tmp_path / "lib")),
    )
    assert retriever.index_templates() == 7
    retriever.close()
    client = chromadb.PersistentClient(
        path=str(folder), settings=chromadb.Settings(anonymized_telemetry=False)
    )
    collection = client.get_collection(COLLECTION)
    assert collection.metadata["hnsw:space"] == "cosine"
    assert collection.count() == 7
    got = collection.get(ids=["fermi"], include=["metadatas", "documents"])
    assert got["metadatas"][0]["name"] == "Fermi estimate"
    assert got["metadatas"][0]["model_id"] == "hash-256"


def test_an_unreachable_chroma_server_is_a_store_error_and_search_falls_back(
    tmp_path: Path, embedder: DelegatingEmbedder
) -> None:
    store = ChromaTemplateStore(url="http://127.0.0.1:9")  # the discard port: nothing listens
    with pytest.raises(StoreError, match=r"Chroma at http://127\.0\.0\.1:9"):
        store.count()
    retriever = TemplateRetriever(embedder, store, RAGConfig(template_dirs=(tmp_path,)))
    (match,) = retriever.search("anything")
    assert match.id == "bot-chain-of-thought"
