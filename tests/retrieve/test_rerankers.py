"""Model rerankers: a remote /rerank endpoint on 127.0.0.1 (Cohere/Jina and TEI replies), e5."""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from notecite.ask_types import AskRequest
from notecite.config import RetrievalSettings
from notecite.errors import ConfigError, RerankError
from notecite.retrieve.rerankers import (
    Passage,
    RerankerContext,
    available_rerankers,
    create_reranker,
)
from notecite.retrieve.rerankers.cross_encoder import OnnxCrossEncoder, RemoteCrossEncoder
from notecite.retrieve.rerankers.e5 import E5Reranker
from tests.ask.conftest import MakeEngine
from tests.generate.servers import LoopbackServer, send_json

QUESTION = "Why was the Apollo launch review moved?"


def keyword_scores(body: Any) -> list[float]:
    """What our fake cross-encoder believes: the passages that mention 'moved' matter."""
    return [float(text.count("moved")) for text in body["documents"]]


def cohere(handler: BaseHTTPRequestHandler, body: Any, number: int) -> None:
    scores = keyword_scores(body)
    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
    send_json(handler, {"results": [{"index": i, "relevance_score": scores[i]} for i in ranked]})


def tei(handler: BaseHTTPRequestHandler, body: Any, number: int) -> None:
    scores = [float(text.count("moved")) for text in body["texts"]]
    send_json(handler, [{"index": i, "score": s} for i, s in enumerate(scores)][::-1])


def failing(handler: BaseHTTPRequestHandler, body: Any, number: int) -> None:
    send_json(handler, {"error": "model not loaded"}, status=400)


def context(tmp_path: Path, **settings: Any) -> RerankerContext:
    return RerankerContext(RetrievalSettings(**settings), tmp_path / "cache")


def test_the_registry_knows_the_built_in_rerankers(tmp_path: Path) -> None:
    assert {"lexical", "none", "e5", "cross-encoder"} <= set(available_rerankers())
    assert create_reranker("lexical", context(tmp_path)) is None
    assert isinstance(create_reranker("e5", context(tmp_path)), E5Reranker)
    with pytest.raises(ConfigError, match="unknown reranker 'colbert'"):
        create_reranker("colbert", context(tmp_path))
    with pytest.raises(ConfigError, match="cross_encoder_url"):
        create_reranker("cross-encoder", context(tmp_path))
    onnx = create_reranker("cross-encoder", context(tmp_path, cross_encoder_path=tmp_path / "m"))
    assert isinstance(onnx, OnnxCrossEncoder)
    with pytest.raises(RerankError, match="cross-encoder file not found"):
        onnx.score("q", [Passage("p")])


@pytest.mark.parametrize("respond", [cohere, tei], ids=["cohere-jina", "tei"])
def test_a_remote_endpoint_scores_passages_in_order(respond: Any) -> None:
    with LoopbackServer(respond) as server:
        reranker = RemoteCrossEncoder(f"{server.url}/v1/rerank", model="rr-1", api_key="k")
        scores = reranker.score("q", [Passage("kept"), Passage("moved, moved"), Passage("moved")])
        reranker.close()
    assert scores == [0.0, 2.0, 1.0]
    (request,) = server.received
    assert request.path == "/v1/rerank"
    assert request.headers["Authorization"] == "Bearer k"
    assert request.body["query"] == "q"
    assert request.body["model"] == "rr-1"
    assert request.body["documents"] == request.body["texts"] == ["kept", "moved, moved", "moved"]


def test_a_failing_endpoint_is_a_rerank_error() -> None:
    with LoopbackServer(failing) as server:
        reranker = RemoteCrossEncoder(f"{server.url}/rerank", retries=0)
        with pytest.raises(RerankError, match="answered 400"):
            reranker.score("q", [Passage("a")])
        reranker.close()


def test_the_ask_pipeline_reorders_by_the_cross_encoder(make_engine: MakeEngine) -> None:
    with LoopbackServer(cohere) as server:
        engine = make_engine(
            retrieval={
                "reranker": "cross-encoder",
                "cross_encoder_url": f"{server.url}/v1/rerank",
                "model_rerank_depth": 10,
                "model_rerank_weight": 1.0,
            },
            ask={"folder_ranking": False},
        )
        debug = engine.ask(AskRequest(question=QUESTION, debug=True)).debug
    assert debug is not None
    assert debug.reranker == "cross-encoder"
    top = debug.retrieved_chunks[0]
    assert "moved" in top.text  # the only chunk the fake cross-encoder likes
    assert top.score_rerank == 1.0
    assert len(server.received) == 1
    assert len(server.received[0].body["documents"]) == 10


def test_a_reranker_failure_keeps_the_fused_order(make_engine: MakeEngine) -> None:
    plain = make_engine(ask={"folder_ranking": False}).ask(
        AskRequest(question=QUESTION, debug=True)
    )
    with LoopbackServer(failing) as server:
        engine = make_engine(
            retrieval={"reranker": "cross-encoder", "cross_encoder_url": f"{server.url}/rerank"},
            ask={"folder_ranking": False},
        )
        response = engine.ask(AskRequest(question=QUESTION, debug=True))
    assert response.debug is not None
    assert plain.debug is not None
    assert any("reranker cross-encoder failed" in n for n in response.debug.notes)
    assert [c.chunk_id for c in response.debug.retrieved_chunks] == [
        c.chunk_id for c in plain.debug.retrieved_chunks
    ]
    assert response.references


def test_e5_prefers_the_relevant_passage_and_caches_vectors(tmp_path: Path) -> None:
    passages = [
        Passage("The launch review moved to Thursday because Maria is travelling.", "Standup"),
        Passage("Sourdough needs 75 percent hydration and a long cold proof.", "Bread"),
    ]
    reranker = E5Reranker(tmp_path / "e5.db")
    relevant, unrelated = reranker.score(QUESTION, passages)
    assert relevant > unrelated
    assert reranker.embedded == 2
    reranker.score("another question", passages)  # the passages are cached in memory
    assert reranker.embedded == 2
    reranker.close()

    again = E5Reranker(tmp_path / "e5.db")  # a new process would find them in the file
    assert again.warm(passages) == 0
    assert again.score(QUESTION, passages) == pytest.approx([relevant, unrelated], abs=1e-6)
    again.close()
