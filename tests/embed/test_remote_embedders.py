"""The `openai` and `ollama` embedders against a real HTTP server on 127.0.0.1:0.

The server (:class:`notecite.testing.ProviderServer`) speaks each provider's wire format;
its faults are scripted per test.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from notecite.config import EmbedderSettings
from notecite.embed.base import Embedder
from notecite.embed.hashing import HashEmbedder
from notecite.embed.registry import create_embedder
from notecite.errors import EmbeddingError
from notecite.testing import Fault, ProviderServer

DIMS = 8
_reference = HashEmbedder(dimensions=DIMS)


@pytest.fixture
def server() -> Iterator[ProviderServer]:
    """Vectors of the 8-d hash embedder, unnormalised on purpose (the client must normalise)
    and, over OpenAI's protocol, listed last first (the client must order rows by index)."""
    with ProviderServer(embedder=_reference, embed_scale=3.0, reverse_rows=True) as running:
        yield running


PROVIDERS = {
    "openai": ("/v1", "/v1/embeddings", "openai:"),
    "ollama": ("", "/api/embed", "ollama:"),
}


def make(server: ProviderServer, provider: str, **extra: Any) -> Embedder:
    base, _, _ = PROVIDERS[provider]
    settings = EmbedderSettings(
        name=provider, base_url=server.url + base, model="test-embed", **extra
    )
    return create_embedder(settings)


@pytest.fixture(params=sorted(PROVIDERS))
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_construction_does_no_io(server: ProviderServer, provider: str) -> None:
    embedder = make(server, provider)
    assert embedder.model_id == PROVIDERS[provider][2] + "test-embed"
    assert embedder.count_tokens(["one two three"]) == [4]
    assert server.received == []


def test_embeds_in_the_wire_format(server: ProviderServer, provider: str) -> None:
    texts = ["alpha beta", "gamma", "delta epsilon zeta"]
    vectors = make(server, provider).embed_documents(texts)
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, DIMS)
    np.testing.assert_allclose(vectors, _reference.embed_documents(texts), atol=1e-6)
    (request,) = server.received
    assert request.path == PROVIDERS[provider][1]
    assert request.body == {"model": "test-embed", "input": texts}


def test_batches_requests(server: ProviderServer, provider: str) -> None:
    texts = [f"text number {i}" for i in range(7)]
    vectors = make(server, provider, batch_size=3).embed_documents(texts)
    assert [len(r.body["input"]) for r in server.received] == [3, 3, 1]
    assert [t for r in server.received for t in r.body["input"]] == texts
    np.testing.assert_allclose(vectors, _reference.embed_documents(texts), atol=1e-6)


def test_query_vector_and_dimensions(server: ProviderServer, provider: str) -> None:
    embedder = make(server, provider)
    query = embedder.embed_query("what is alpha")
    assert query.shape == (DIMS,)
    assert float(np.linalg.norm(query)) == pytest.approx(1.0, abs=1e-6)
    assert embedder.dimensions == DIMS
    assert len(server.received) == 1


def test_dimensions_probed_when_not_configured(server: ProviderServer, provider: str) -> None:
    assert make(server, provider).dimensions == DIMS
    assert len(server.received) == 1
    assert make(server, provider, dimensions=123).dimensions == 123
    assert len(server.received) == 1


def test_empty_input_makes_no_request_when_dimensions_known(
    server: ProviderServer, provider: str
) -> None:
    out = make(server, provider, dimensions=DIMS).embed_documents([])
    assert out.shape == (0, DIMS)
    assert server.received == []


def test_openai_sends_the_api_key(server: ProviderServer) -> None:
    make(server, "openai", api_key="sk-test-123").embed_query("x")
    assert server.received[0].headers["Authorization"] == "Bearer sk-test-123"


def test_no_key_no_authorization_header(server: ProviderServer, provider: str) -> None:
    make(server, provider).embed_query("x")
    assert "Authorization" not in server.received[0].headers


def test_429_then_200_is_retried(server: ProviderServer, provider: str) -> None:
    server.fail("embeddings", 429, times=1)
    vectors = make(server, provider).embed_documents(["a b", "c"])
    assert len(server.received) == 2
    np.testing.assert_allclose(vectors, _reference.embed_documents(["a b", "c"]), atol=1e-6)


def test_500_forever_is_an_embedding_error(server: ProviderServer, provider: str) -> None:
    server.fail("embeddings", 500)
    with pytest.raises(EmbeddingError, match="answered 500"):
        make(server, provider).embed_documents(["x"])
    assert len(server.received) == 4  # one try and three retries, then give up


def test_client_error_is_not_retried(server: ProviderServer, provider: str) -> None:
    server.fail("embeddings", Fault(401, body=b'{"error": "bad key"}'))
    with pytest.raises(EmbeddingError, match="401"):
        make(server, provider).embed_documents(["x"])
    assert len(server.received) == 1


@pytest.mark.parametrize(
    "body",
    [
        b"<html>this is not json",
        b'{"unexpected": true}',
        b'{"data": "nope", "embeddings": "nope"}',
        b'{"data": [{"index": 0}], "embeddings": [[1, "x"]]}',
        b"[]",
    ],
)
def test_garbage_replies_are_embedding_errors(
    server: ProviderServer, provider: str, body: bytes
) -> None:
    server.fail("embeddings", Fault(200, body=body))
    with pytest.raises(EmbeddingError):
        make(server, provider).embed_documents(["x"])


def test_wrong_number_of_vectors_is_an_embedding_error(
    server: ProviderServer, provider: str
) -> None:
    one_vector = {
        "data": [{"index": 0, "embedding": [1.0] * DIMS}],
        "embeddings": [[1.0] * DIMS],
    }
    server.fail("embeddings", Fault(200, body=json.dumps(one_vector).encode()))
    with pytest.raises(EmbeddingError, match="returned 1 vectors for 2 texts"):
        make(server, provider).embed_documents(["x", "y"])
