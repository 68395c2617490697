"""Helpers shared by test modules: paths to shared data, settings, a counting embedder."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from notecite import Settings, load_settings
from notecite.embed.base import Embedder, Vectors

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DENDRON_VAULT = SHARED_DATA / "vault-dendron" / "vault"
FOAM_VAULT = SHARED_DATA / "vault-foam" / "docs"

MakeVault = Callable[..., Path]
"""The ``make_vault`` fixture: ``make_vault({"a.md": "..."}, name="vault") -> Path``."""


def hash_settings(home: Path, **overrides: Any) -> Settings:
    """Settings of a fresh home with the ``hash`` embedder and the ``extractive`` LLM."""
    overrides.setdefault("embedder", {"name": "hash"})
    overrides.setdefault("llm", "extractive")
    return load_settings(home=home, **overrides)


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``files`` (relative path -> text or bytes) under ``root``; return ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


class CountingEmbedder:
    """A real Embedder that delegates to another and records every text it embeds."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.documents: list[str] = []
        self.queries: list[str] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    @property
    def max_tokens(self) -> int:
        return self.inner.max_tokens

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return self.inner.count_tokens(texts)

    def embed_documents(self, texts: Sequence[str]) -> Vectors:
        self.documents.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> Vectors:
        self.queries.append(text)
        return self.inner.embed_query(text)


def read_rows(db_path: Path, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
    """Rows of a read-only query against an index file (for checking what was stored)."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return [tuple(row) for row in conn.execute(sql, params)]
    finally:
        conn.close()
