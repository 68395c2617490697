"""ProviderServer against real clients: the official ``openai`` client, notecite's providers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Literal

import httpx
import numpy as np
import openai
import pytest

from notecite.config import GenerationSettings
from notecite.embed.hashing import HashEmbedder
from notecite.embed.ollama import OllamaEmbedder
from notecite.embed.openai_compat import OpenAICompatEmbedder
from notecite.errors import EmbeddingError, LLMError
from notecite.generate.base import ChatMessage, GenerationRequest
from notecite.generate.ollama import OllamaLLM
from notecite.generate.openai_compat import OpenAICompatLLM
from notecite.retrieve.rerankers import Passage
from notecite.retrieve.rerankers.cross_encoder import RemoteCrossEncoder
from notecite.testing import GARBAGE, HANG, Fault, ProviderServer, ScriptedLLM

ANSWER = "The launch is on March 14 [N1]."
REQUEST = GenerationRequest(
    messages=(ChatMessage("system", "Answer briefly."), ChatMessage("user", "When?")),
    question="When?",
)


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    with ProviderServer(ScriptedLLM(ANSWER)) as running:
        yield running


def sdk(server: ProviderServer) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url + "/v1", api_key="sk-test", max_retries=0, timeout=5)


def openai_llm(server: ProviderServer, **settings: float) -> OpenAICompatLLM:
    options = {"retries": 0, "timeout_s": 5.0, **settings}
    return OpenAICompatLLM(GenerationSettings(base_url=server.url + "/v1", model="m", **options))


def test_the_openai_client_gets_a_completion(server: ProviderServer) -> None:
    with sdk(server) as ai:
        completion = ai.chat.completions.create(
            model="tiny",
            messages=[
                {"role": "developer", "content": "Answer briefly."},
                {"role": "user", "content": "When is the launch?"},
            ],
            max_tokens=20,
            temperature=0.1,
        )
    assert completion.choices[0].message.content == ANSWER
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "tiny"
    assert isinstance(server.llm, ScriptedLLM)
    (call,) = server.llm.calls
    assert [(m.role, m.content) for m in call.messages] == [
        ("system", "Answer briefly."),
        ("user", "When is the launch?"),
    ]
    assert (call.question, call.max_tokens, call.temperature) == ("When is the launch?", 20, 0.1)
    assert server.received[0].headers["Authorization"] == "Bearer sk-test"


def test_the_openai_client_streams_the_pieces(server: ProviderServer) -> None:
    with sdk(server) as ai:
        stream = ai.chat.completions.create(
            model="tiny", messages=[{"role": "user", "content": "When?"}], stream=True
        )
        chunks = list(stream)
    pieces = [c.choices[0].delta.content for c in chunks if c.choices[0].delta.content]
    assert len(pieces) > 3
    assert "".join(pieces) == ANSWER
    assert chunks[-1].choices[0].finish_reason == "stop"


def test_the_openai_client_gets_embeddings_and_models(server: ProviderServer) -> None:
    texts = ["alpha beta", "gamma"]
    with sdk(server) as ai:
        packed = ai.embeddings.create(model="e", input=texts)  # base64, the client's default
        plain = ai.embeddings.create(model="e", input="alpha beta", encoding_format="float")
        models = [m.id for m in ai.models.list()]
    expected = HashEmbedder(64).embed_documents(texts)
    np.testing.assert_allclose([d.embedding for d in packed.data], expected, atol=1e-6)
    np.testing.assert_allclose(plain.data[0].embedding, expected[0], atol=1e-6)
    assert models == ["scripted"]
    assert server.requests_to("embeddings")[1]["input"] == "alpha beta"


def test_notecite_providers_speak_to_it_over_openai_and_ollama(server: ProviderServer) -> None:
    assert openai_llm(server).generate(REQUEST) == ANSWER
    assert "".join(openai_llm(server).stream(REQUEST)) == ANSWER
    ollama = OllamaLLM(GenerationSettings(base_url=server.url, model="m", retries=0))
    assert ollama.generate(REQUEST) == ANSWER
    assert "".join(ollama.stream(REQUEST)) == ANSWER
    embedder = OllamaEmbedder(base_url=server.url, model="e", dimensions=None, batch_size=8)
    vectors = embedder.embed_documents(["alpha", "beta"])
    np.testing.assert_allclose(vectors, HashEmbedder(64).embed_documents(["alpha", "beta"]))
    assert [r.path for r in server.received] == [
        "/v1/chat/completions",
        "/v1/chat/completions",
        "/api/chat",
        "/api/chat",
        "/api/embed",
    ]


def test_faults_come_after_good_replies_for_a_number_of_times_until_healed(
    server: ProviderServer,
) -> None:
    server.fail("chat", Fault(503, message="busy"), after=1, times=2)
    llm = openai_llm(server)
    assert llm.generate(REQUEST) == ANSWER
    for _ in range(2):
        with pytest.raises(LLMError, match="503"):
            llm.generate(REQUEST)
    assert llm.generate(REQUEST) == ANSWER

    server.fail("chat", 500)
    with pytest.raises(LLMError, match="500"):
        llm.generate(REQUEST)
    server.heal("chat")
    assert llm.generate(REQUEST) == ANSWER
    assert server.received[1].path == "/v1/chat/completions"


def test_a_retried_500_with_retry_after_succeeds(server: ProviderServer) -> None:
    server.fail("chat", Fault(500, headers={"Retry-After": "0"}), times=1)
    assert openai_llm(server, retries=1).generate(REQUEST) == ANSWER
    assert len(server.received) == 2


def test_garbage_and_hanging_replies(server: ProviderServer) -> None:
    embedder = OpenAICompatEmbedder(
        base_url=server.url + "/v1", model="e", dimensions=8, batch_size=8, timeout_s=0.3
    )
    try:
        server.fail("embeddings", GARBAGE)
        with pytest.raises(EmbeddingError):
            embedder.embed_query("x")
    finally:
        embedder.close()
    server.fail("chat", HANG)
    started = time.monotonic()
    with pytest.raises(LLMError, match="timed out"):
        openai_llm(server, timeout_s=0.3).generate(REQUEST)
    assert time.monotonic() - started < 3


def test_the_scripted_llms_errors_go_over_the_wire() -> None:
    early = ScriptedLLM(error="the model crashed")
    with ProviderServer(early) as server, pytest.raises(LLMError, match="500"):
        list(openai_llm(server).stream(REQUEST))

    midway = ScriptedLLM("One two three", error="the model crashed", fail_after=2)
    got: list[str] = []
    with ProviderServer(midway) as server, pytest.raises(LLMError, match="bad stream event"):
        got.extend(openai_llm(server).stream(REQUEST))
    assert got == ["One", " "]


@pytest.mark.parametrize("style", ["cohere", "tei"])
def test_rerank_replies_in_both_styles(style: Literal["cohere", "tei"]) -> None:
    passages = [Passage("nothing here"), Passage("the launch moved"), Passage("launch")]
    with ProviderServer(rerank_style=style) as server:
        reranker = RemoteCrossEncoder(f"{server.url}/rerank", retries=0)
        try:
            scores = reranker.score("launch moved", passages)
        finally:
            reranker.close()
    assert scores == [0.0, 1.0, 0.5]


def test_unknown_routes_and_bodies_that_are_not_json_objects(server: ProviderServer) -> None:
    with httpx.Client(base_url=server.url) as client:
        assert client.post("/v1/completions", json={"prompt": "x"}).status_code == 404
        assert client.get("/v1/nothing").status_code == 404
        bad = client.post("/v1/chat/completions", content=b"{not json")
        assert bad.status_code == 400
        assert bad.json()["error"]["message"] == "the body is not a JSON object"
    assert [r.method for r in server.received] == ["POST", "GET", "POST"]
    assert server.received[2].body == "{not json"
