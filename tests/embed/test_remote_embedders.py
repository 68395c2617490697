"""The `openai` and `ollama` embedders against a real HTTP server on 127.0.0.1:0.

The server speaks each provider's wire format; its behaviour per request is scripted.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import numpy as np
import pytest

from notecite.config import EmbedderSettings
from notecite.embed.base import Embedder
from notecite.embed.hashing import HashEmbedder
from notecite.embed.registry import create_embedder
from notecite.errors import EmbeddingError

DIMS = 8
_reference = HashEmbedder(dimensions=DIMS)


@dataclass
class Reply:
    status: int = 200
    body: bytes | None = None  # None: the provider's normal answer


@dataclass
class Received:
    path: str
    payload: Any
    headers: dict[str, str]


@dataclass
class FakeServer:
    """Records requests; ``script`` decides each reply (default: a correct answer)."""

    url: str
    requests: list[Received] = field(default_factory=list)
    script: Callable[[int], Reply] = lambda _: Reply()


def _vectors(texts: list[str]) -> list[list[float]]:
    # Unnormalised on purpose: the client must normalise.
    return [(row * 3.0).tolist() for row in _reference.embed_documents(texts)]


def _answer(path: str, payload: Any) -> bytes:
    texts = payload["input"]
    if path == "/v1/embeddings":
        data = [
            {"object": "embedding", "index": i, "embedding": v}
            for i, v in enumerate(_vectors(texts))
        ]
        data.reverse()  # the client must order rows by "index"
        body = {
            "object": "list",
            "data": data,
            "model": payload["model"],
            "usage": {"prompt_tokens": 1, "total_tokens": 1},
        }
    elif path == "/api/embed":
        body = {"model": payload["model"], "embeddings": _vectors(texts)}
    else:
        raise AssertionError(f"unexpected path {path}")
    return json.dumps(body).encode()


@pytest.fixture
def server() -> Iterator[FakeServer]:
    state = FakeServer(url="")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            payload = json.loads(self.rfile.read(length))
            with lock:
                state.requests.append(Received(self.path, payload, dict(self.headers)))
                reply = state.script(len(state.requests))
            body = reply.body if reply.body is not None else _answer(self.path, payload)
            if reply.status != 200 and reply.body is None:
                body = b'{"error": {"message": "scripted failure"}}'
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


PROVIDERS = {
    "openai": ("/v1", "/v1/embeddings", "openai:"),
    "ollama": ("", "/api/embed", "ollama:"),
}


def make(server: FakeServer, provider: str, **extra: Any) -> Embedder:
    base, _, _ = PROVIDERS[provider]
    settings = EmbedderSettings(
        name=provider, base_url=server.url + base, model="test-embed", **extra
    )
    return create_embedder(settings)


@pytest.fixture(params=sorted(PROVIDERS))
def provider(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_construction_does_no_io(server: FakeServer, provider: str) -> None:
    embedder = make(server, provider)
    assert embedder.model_id == PROVIDERS[provider][2] + "test-embed"
    assert embedder.count_tokens(["one two three"]) == [4]
    assert server.requests == []


def test_embeds_in_the_wire_format(server: FakeServer, provider: str) -> None:
    texts = ["alpha beta", "gamma", "delta epsilon zeta"]
    vectors = make(server, provider).embed_documents(texts)
    assert vectors.dtype == np.float32
    assert vectors.shape == (3, DIMS)
    np.testing.assert_allclose(vectors, _reference.embed_documents(texts), atol=1e-6)
    (request,) = server.requests
    assert request.path == PROVIDERS[provider][1]
    assert request.payload == {"model": "test-embed", "input": texts}


def test_batches_requests(server: FakeServer, provider: str) -> None:
    texts = [f"text number {i}" for i in range(7)]
    vectors = make(server, provider, batch_size=3).embed_documents(texts)
    assert [len(r.payload["input"]) for r in server.requests] == [3, 3, 1]
    assert [t for r in server.requests for t in r.payload["input"]] == texts
    np.testing.assert_allclose(vectors, _reference.embed_documents(texts), atol=1e-6)


def test_query_vector_and_dimensions(server: FakeServer, provider: str) -> None:
    embedder = make(server, provider)
    query = embedder.embed_query("what is alpha")
    assert query.shape == (DIMS,)
    assert float(np.linalg.norm(query)) == pytest.approx(1.0, abs=1e-6)
    assert embedder.dimensions == DIMS
    assert len(server.requests) == 1


def test_dimensions_probed_when_not_configured(server: FakeServer, provider: str) -> None:
    assert make(server, provider).dimensions == DIMS
    assert len(server.requests) == 1
    assert make(server, provider, dimensions=123).dimensions == 123
    assert len(server.requests) == 1


def test_empty_input_makes_no_request_when_dimensions_known(
    server: FakeServer, provider: str
) -> None:
    out = make(server, provider, dimensions=DIMS).embed_documents([])
    assert out.shape == (0, DIMS)
    assert server.requests == []


def test_openai_sends_the_api_key(server: FakeServer) -> None:
    make(server, "openai", api_key="sk-test-123").embed_query("x")
    assert server.requests[0].headers["Authorization"] == "Bearer sk-test-123"


def test_no_key_no_authorization_header(server: FakeServer, provider: str) -> None:
    make(server, provider).embed_query("x")
    assert "Authorization" not in server.requests[0].headers


def test_429_then_200_is_retried(server: FakeServer, provider: str) -> None:
    server.script = lambda n: Reply(status=429) if n == 1 else Reply()
    vectors = make(server, provider).embed_documents(["a b", "c"])
    assert len(server.requests) == 2
    np.testing.assert_allclose(vectors, _reference.embed_documents(["a b", "c"]), atol=1e-6)


def test_500_forever_is_an_embedding_error(server: FakeServer, provider: str) -> None:
    server.script = lambda _: Reply(status=500)
    with pytest.raises(EmbeddingError, match="answered 500"):
        make(server, provider).embed_documents(["x"])
    assert len(server.requests) == 4  # one try and three retries, then give up


def test_client_error_is_not_retried(server: FakeServer, provider: str) -> None:
    server.script = lambda _: Reply(status=401, body=b'{"error": "bad key"}')
    with pytest.raises(EmbeddingError, match="401"):
        make(server, provider).embed_documents(["x"])
    assert len(server.requests) == 1


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
    server: FakeServer, provider: str, body: bytes
) -> None:
    server.script = lambda _: Reply(body=body)
    with pytest.raises(EmbeddingError):
        make(server, provider).embed_documents(["x"])


def test_wrong_number_of_vectors_is_an_embedding_error(server: FakeServer, provider: str) -> None:
    one_vector = {
        "data": [{"index": 0, "embedding": [1.0] * DIMS}],
        "embeddings": [[1.0] * DIMS],
    }
    server.script = lambda _: Reply(body=json.dumps(one_vector).encode())
    with pytest.raises(EmbeddingError, match="returned 1 vectors for 2 texts"):
        make(server, provider).embed_documents(["x", "y"])
