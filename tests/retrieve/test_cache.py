"""Retrieval caches: LRU + TTL, hit counting, and invalidation when the index changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite import Engine
from notecite.embed.hashing import HashEmbedder
from notecite.retrieve.cache import RetrievalCaches, TTLCache
from notecite.retrieve.retriever import Retrieval
from notecite.schemas.ask import AskRequest
from notecite.testing import write_files
from tests.ask.conftest import MakeEngine


class Clock:
    """A clock the test moves by hand (the cache takes any ``() -> float``)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_entries_expire_after_the_ttl() -> None:
    clock = Clock()
    cache: TTLCache[str] = TTLCache("t", max_entries=10, ttl_s=300, clock=clock)
    cache.put("q", "v")
    clock.now += 299
    assert cache.get("q") == "v"
    clock.now += 2
    assert cache.get("q") is None
    stats = cache.stats()
    assert (stats.hits, stats.misses, stats.entries) == (1, 1, 0)
    assert stats.hit_rate == 0.5


def test_the_least_recently_used_entry_goes_first() -> None:
    cache: TTLCache[int] = TTLCache("t", max_entries=2, ttl_s=60)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "b" is now the least recently used
    cache.put("c", 3)
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c")) == (1, 3)


def test_a_cache_needs_room_and_a_ttl() -> None:
    with pytest.raises(ValueError, match="max_entries"):
        TTLCache("t", max_entries=0, ttl_s=1)


def test_query_vectors_are_cached_per_model_and_text() -> None:
    caches = RetrievalCaches(query_entries=100, query_ttl_s=300)
    embedder = HashEmbedder()
    first, hit1 = caches.embed_query(embedder, "apollo launch")
    second, hit2 = caches.embed_query(embedder, "apollo launch")
    _, hit3 = caches.embed_query(embedder, "apollo budget")
    assert (hit1, hit2, hit3) == (False, True, False)
    assert second is first
    assert not first.flags.writeable  # a shared vector cannot be changed by one caller


def test_a_store_without_a_generation_gets_no_result_cache() -> None:
    caches = RetrievalCaches()
    runs: list[int] = []

    def run() -> Retrieval:
        runs.append(1)
        return Retrieval([])

    assert caches.search(object(), ("q",), run)[1] == "off"
    assert caches.search(object(), ("q",), run)[1] == "off"
    assert len(runs) == 2


def test_asking_twice_hits_both_caches(make_engine: MakeEngine) -> None:
    engine = make_engine()
    question = AskRequest(question="When is the Apollo launch?", debug=True)
    first = engine.ask(question).debug
    second = engine.ask(question).debug
    assert first is not None
    assert second is not None
    assert (first.cache.query_embedding, first.cache.search_results) == ("miss", "miss")
    assert (second.cache.query_embedding, second.cache.search_results) == ("hit", "hit")
    assert [c.chunk_id for c in second.retrieved_chunks] == [
        c.chunk_id for c in first.retrieved_chunks
    ]
    by_name = {c.name: c for c in engine.status().caches}
    assert by_name["query_embeddings"].hits == 1
    assert by_name["search_results"].hit_rate == 0.5


def test_a_reindex_invalidates_cached_results(make_engine: MakeEngine, tmp_path: Path) -> None:
    engine = make_engine()
    question = AskRequest(question="What does the Apollo gift shop sell?", debug=True)
    before = engine.ask(question).debug
    assert before is not None
    assert not any("giftshop" in c.rel_path for c in before.retrieved_chunks)

    vault = engine.vault("v1")
    write_files(
        Path(vault.path),
        {"projects/work/giftshop.md": "# Gift shop\n\nThe Apollo gift shop sells mugs.\n"},
    )
    engine.index("v1")
    after = engine.ask(question).debug
    assert after is not None
    assert after.cache.query_embedding == "hit"  # the text did not change
    assert after.cache.search_results == "miss"  # the index did
    assert any("giftshop" in c.rel_path for c in after.retrieved_chunks)


def test_another_process_writing_the_index_invalidates_too(make_engine: MakeEngine) -> None:
    engine = make_engine()
    question = AskRequest(question="Who approved the Apollo budget?", debug=True)
    engine.ask(question)
    with Engine(engine.settings, embedder=HashEmbedder()) as other:  # its own connection
        other.remove_vault("v2")
    again = engine.ask(question).debug
    assert again is not None
    assert again.cache.search_results == "miss"
