"""Retrieval caches: query embeddings (LRU with a TTL) and search results per index generation.

A query embedding depends only on the model and the text, so it is kept for ``ttl_s``
seconds. A search result also depends on the index: it is keyed by the store's index
generation (bumped by every write, from any process), so a re-index makes every earlier
entry unreachable and they age out. A store that reports no generation gets no result cache.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import replace
from typing import Generic, Literal, Protocol, TypeVar, runtime_checkable

from notecite.embed.base import Embedder, Vectors
from notecite.retrieve.retriever import Retrieval
from notecite.types import CacheStats

V = TypeVar("V")
CacheState = Literal["hit", "miss", "off"]
Clock = Callable[[], float]


@runtime_checkable
class Generational(Protocol):
    """A store that can say when its index changed."""

    def index_generation(self) -> str:
        """An opaque value that changes whenever the index is written."""
        ...


class TTLCache(Generic[V]):
    """A thread-safe LRU map whose entries expire ``ttl_s`` seconds after they were put."""

    def __init__(self, name: str, max_entries: int, ttl_s: float, clock: Clock = time.monotonic):
        if max_entries < 1 or ttl_s <= 0:
            raise ValueError("a cache needs max_entries >= 1 and ttl_s > 0")
        self.name = name
        self._max = max_entries
        self._ttl = ttl_s
        self._clock = clock
        self._items: OrderedDict[Hashable, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> V | None:
        """The live value for ``key`` (and mark it recently used), else None."""
        with self._lock:
            found = self._items.get(key)
            if found is not None and self._clock() - found[0] < self._ttl:
                self._items.move_to_end(key)
                self.hits += 1
                return found[1]
            if found is not None:
                del self._items[key]
            self.misses += 1
            return None

    def put(self, key: Hashable, value: V) -> None:
        """Store ``value``; the least recently used entry goes when the cache is full."""
        with self._lock:
            self._items[key] = (self._clock(), value)
            self._items.move_to_end(key)
            while len(self._items) > self._max:
                self._items.popitem(last=False)

    def clear(self) -> None:
        """Drop every entry (the counters stay)."""
        with self._lock:
            self._items.clear()

    def stats(self) -> CacheStats:
        """Entries, hits, misses and hit rate so far."""
        with self._lock:
            return CacheStats(self.name, len(self._items), self._max, self.hits, self.misses)


class RetrievalCaches:
    """The query-embedding cache and the search-results cache of one engine."""

    def __init__(
        self,
        query_entries: int = 100,
        query_ttl_s: float = 300.0,
        result_entries: int = 256,
        result_ttl_s: float = 300.0,
        clock: Clock = time.monotonic,
    ) -> None:
        self.queries: TTLCache[Vectors] = TTLCache(
            "query_embeddings", query_entries, query_ttl_s, clock
        )
        self.results: TTLCache[Retrieval] = TTLCache(
            "search_results", result_entries, result_ttl_s, clock
        )
        # the LLM's folder picks per (question, folders offered), in folder_ranking "llm"
        self.folder_picks: TTLCache[tuple[str, ...]] = TTLCache(
            "folder_picks", result_entries, result_ttl_s, clock
        )

    def embed_query(self, embedder: Embedder, text: str) -> tuple[Vectors, bool]:
        """(vector, whether it came from the cache); failures are not cached."""
        key = (embedder.model_id, text)
        found = self.queries.get(key)
        if found is not None:
            return found, True
        vector = embedder.embed_query(text)
        vector.setflags(write=False)
        self.queries.put(key, vector)
        return vector, False

    def search(
        self, store: object, key: tuple[Hashable, ...], run: Callable[[], Retrieval]
    ) -> tuple[Retrieval, CacheState]:
        """``run()``'s result, from the cache when the index has not changed since.

        Returns the retrieval (candidates are copies: callers may change them) and "hit",
        "miss" or "off" (the store reports no index generation).
        """
        if not isinstance(store, Generational):
            return run(), "off"
        full = (store.index_generation(), *key)
        found = self.results.get(full)
        state: CacheState
        if found is None:
            found = run()
            self.results.put(full, _copy(found))
            state = "miss"
        else:
            state = "hit"
        return _copy(found), state

    def stats(self) -> tuple[CacheStats, ...]:
        """Both caches' counters."""
        return (self.queries.stats(), self.results.stats())


def vector_key(vector: Vectors | None) -> str | None:
    """A short, hashable fingerprint of a query vector."""
    if vector is None:
        return None
    return hashlib.blake2b(vector.tobytes(), digest_size=16).hexdigest()


def _copy(retrieval: Retrieval) -> Retrieval:
    return Retrieval([replace(c) for c in retrieval.candidates], list(retrieval.notes))
