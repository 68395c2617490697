"""Provider faults end to end: the LLM or embedding server down, slow, garbage or rate-limited.

Both providers are real HTTP servers on 127.0.0.1 speaking the OpenAI wire format (the
embedding one computes real vectors with the hash embedder), switched into a fault mode per
test. Whatever fails, the answer comes back within a bounded time, with a clear error and the
retrieved references; an index run whose embedder fails stops with a clear error, writes no
half note, and the next run finishes the job. Unit-level fault tests of each provider live in
tests/generate/test_openai_compat.py, tests/generate/test_ollama.py,
tests/embed/test_remote_embedders.py and tests/ask/test_failures.py.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from notecite import Engine
from notecite.embed.hashing import HashEmbedder
from notecite.embed.openai_compat import OpenAICompatEmbedder
from notecite.errors import EmbeddingError
from notecite.schemas.ask import AskRequest
from notecite.testing import (
    GARBAGE,
    HANG,
    Fault,
    ProviderServer,
    ScriptedLLM,
    Task,
    hash_settings,
    write_files,
)
from tests.reliability.vaults import snapshot

pytestmark = pytest.mark.reliability

QUESTION = "When is the Apollo launch scheduled?"
NOTES = {
    "projects/apollo.md": "# Apollo\n\nThe Apollo launch is scheduled for March 14.\n",
    "garden.md": "# Garden\n\nTomatoes go in the south bed in May.\n",
}
TIMEOUT_S = 0.5


FAULTS = {
    "down": Fault(503, message="unavailable"),
    "429": Fault(429, message="slow down"),
    "slow": HANG,
    "garbage": GARBAGE,
}
"""What a fake server does instead of answering, by name."""


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[ProviderServer, Engine]]:
    """An engine whose LLM and embedder are one OpenAI-compatible server (``server.fail``
    switches either into a fault mode)."""
    llm = ScriptedLLM("The launch is on March 14 [N1].")
    with ProviderServer(llm, embedder=HashEmbedder(dimensions=64)) as server:
        settings = hash_settings(
            tmp_path / "home",
            embedder={
                "name": "openai",
                "base_url": server.url + "/v1",
                "model": "e",
                "timeout_s": TIMEOUT_S,
            },
            llm="openai",
            generation={
                "base_url": server.url + "/v1",
                "model": "m",
                "timeout_s": TIMEOUT_S,
                "retries": 1,
            },
            ask={"folder_ranking": False},
        )
        with Engine(settings) as engine:
            engine.add_vault("v", write_files(tmp_path / "notes", NOTES))
            engine.index("v")
            yield server, engine


@pytest.mark.parametrize("mode", ["down", "slow", "garbage", "429"])
def test_a_failing_llm_still_answers_with_references_in_bounded_time(
    world: tuple[ProviderServer, Engine], mode: str
) -> None:
    server, engine = world
    server.fail("chat", FAULTS[mode])
    started = time.perf_counter()
    response = engine.ask(AskRequest(question=QUESTION, debug=True))
    elapsed = time.perf_counter() - started

    assert response.error is not None
    assert response.error.message
    assert "projects/apollo.md" in [r.rel_path for r in response.references]
    # Bounded, but every LLM call of the ask (query rewrites, then the answer) waits its own
    # attempts: up to 3 calls x 2 attempts x (1 s timeout + back-off) here.
    assert elapsed < 3 * 2 * (TIMEOUT_S + 1.0) + 3.0


@pytest.mark.parametrize("mode", ["down", "slow", "garbage", "429"])
def test_a_failing_embedder_falls_back_to_keyword_retrieval(
    world: tuple[ProviderServer, Engine], mode: str
) -> None:
    server, engine = world
    server.fail("embeddings", FAULTS[mode])
    started = time.perf_counter()
    response = engine.ask(AskRequest(question=QUESTION, debug=True))
    elapsed = time.perf_counter() - started

    assert response.error is None
    assert [r.rel_path for r in response.references] == ["projects/apollo.md"]
    assert response.debug is not None
    assert any("embedding failed" in n for n in response.debug.notes)
    # The query embedding makes one attempt and later ones (the HyDE passage's included)
    # fail at once: one timeout at worst, plus the LLM calls of auto-RAG and the answer.
    assert elapsed < TIMEOUT_S + 2.0


def test_both_providers_down_still_return_references(world: tuple[ProviderServer, Engine]) -> None:
    server, engine = world
    server.fail("chat", FAULTS["down"])
    server.fail("embeddings", FAULTS["down"])
    response = engine.ask(AskRequest(question=QUESTION))
    assert response.error is not None
    assert "projects/apollo.md" in [r.rel_path for r in response.references]


def test_an_embedder_failing_mid_index_loses_nothing_and_the_next_run_finishes(
    world: tuple[ProviderServer, Engine], tmp_path: Path
) -> None:
    server, engine = world
    before = snapshot(engine.settings.db_path, model_id="openai:e")
    extra = {
        f"new/n{i}.md": f"# New {i}\n\nFresh note number {i} about rockets.\n" for i in range(5)
    }
    write_files(tmp_path / "notes", extra)
    server.fail("embeddings", FAULTS["down"])
    with pytest.raises(EmbeddingError, match=r"answered 503"):
        engine.index("v")
    during = snapshot(engine.settings.db_path, model_id="openai:e")
    # the new notes are written whole and found by keyword; their vectors wait
    assert set(during.notes) == set(before.notes) | set(extra)
    assert all(during.notes[p] == before.notes[p] for p in before.notes)
    assert during.unembedded == len(extra)
    (waiting,) = engine.status().vaults
    assert waiting.waiting_for_vectors == len(extra)

    server.heal("embeddings")
    (report,) = engine.index("v")
    after = snapshot(engine.settings.db_path, model_id="openai:e")
    # the notes were written by the failed run: this one only embeds them
    assert (report.added, report.chunks_embedded) == (0, len(extra))
    assert len(after.notes) == len(NOTES) + len(extra)
    assert after.unembedded == 0


def test_an_unreachable_llm_port_is_a_clear_error(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    settings = hash_settings(
        tmp_path / "home",
        llm="openai",
        generation={"base_url": f"http://127.0.0.1:{port}/v1", "model": "m", "retries": 0},
        ask={"folder_ranking": False},
    )
    with Engine(settings) as engine:
        engine.add_vault("v", write_files(tmp_path / "notes", NOTES))
        engine.index("v")
        response = engine.ask(AskRequest(question=QUESTION))
    assert response.error is not None
    assert "unreachable" in response.error.message
    assert "projects/apollo.md" in [r.rel_path for r in response.references]


def test_a_down_embedder_is_asked_once_then_queries_fail_at_once() -> None:
    with ProviderServer() as server:
        server.fail("embeddings", FAULTS["down"])
        embedder = OpenAICompatEmbedder(
            base_url=server.url + "/v1", model="e", dimensions=None, batch_size=8, timeout_s=5
        )
        try:
            with pytest.raises(EmbeddingError, match="answered 503"):
                embedder.embed_query("first question")
            started = time.perf_counter()
            for _ in range(5):
                with pytest.raises(EmbeddingError, match="not retried for 30 s"):
                    embedder.embed_query("another question")
            assert time.perf_counter() - started < 0.1
        finally:
            embedder.close()
        assert len(server.received) == 1  # one attempt: no retries on the answer path


HYDE_PASSAGE = "The Apollo launch happens on March 14 at the coast."
AUTO_RAG_TASKS: tuple[Task, ...] = ("hyde", "search_query", "multi_query")


@pytest.mark.parametrize(
    ("mode", "ok_first", "embeds", "detail"),
    [
        ("down", 0, 1, "not retried for 30 s"),  # the question's own attempt opened the circuit
        ("slow", 0, 1, "not retried for 30 s"),
        ("down", 1, 2, "answered 503"),  # the question embedded, then the server went down
        ("slow", 1, 2, "timed out"),
    ],
)
def test_the_hyde_passage_takes_the_query_path_when_the_embedder_fails(
    tmp_path: Path, mode: str, ok_first: int, embeds: int, detail: str
) -> None:
    """A real generating LLM and a real embedding server on loopback; auto-RAG always on.

    The HyDE passage is embedded with one attempt of at most the query timeout, or none
    while the query circuit is open: never indexing's 3 retries and 3.5 s of back-off.
    """
    llm = ScriptedLLM(HYDE_PASSAGE, replies=dict.fromkeys(AUTO_RAG_TASKS, HYDE_PASSAGE))
    with ProviderServer(llm, embedder=HashEmbedder(dimensions=64)) as server:
        settings = hash_settings(
            tmp_path / "home",
            embedder={
                "name": "openai",
                "base_url": server.url + "/v1",
                "model": "e",
                "timeout_s": TIMEOUT_S,
            },
            llm="openai",
            generation={"base_url": server.url + "/v1", "model": "m", "retries": 0},
            ask={"folder_ranking": False, "auto_rag": "always"},
        )
        with Engine(settings) as engine:
            engine.add_vault("v", write_files(tmp_path / "notes", NOTES))
            engine.index("v")
            before = len([r for r in server.received if r.path.endswith("/embeddings")])
            server.fail("embeddings", FAULTS[mode], after=ok_first)
            started = time.perf_counter()
            response = engine.ask(AskRequest(question=QUESTION, debug=True))
            elapsed = time.perf_counter() - started
        embedded = [r for r in server.received if r.path.endswith("/embeddings")][before:]

    assert response.debug is not None
    (hyde,) = [step for step in response.debug.auto_rag.steps if step.name == "hyde"]
    assert hyde.status == "failed"
    assert detail in hyde.detail
    assert len(embedded) == embeds  # the question's (and at most one for HyDE): no retries
    if ok_first:
        assert embedded[-1].body["input"] == [HYDE_PASSAGE]
    assert "projects/apollo.md" in [r.rel_path for r in response.references]
    # Indexing's path would cost 4 attempts and 3.5 s of back-off for the passage alone.
    assert elapsed < 2 * TIMEOUT_S + 1.5
