"""The one retry policy of remote calls, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import pytest

from notecite.errors import EmbeddingError, LLMError, LLMTimeoutError, RerankError
from notecite.http import (
    EMBEDDING_SERVER,
    LLM_SERVER,
    RERANK_ENDPOINT,
    Provider,
    post_json,
    retry_after_s,
    stream_lines,
)
from notecite.retrieve.rerankers import Passage
from notecite.retrieve.rerankers.cross_encoder import RemoteCrossEncoder
from notecite.testing.loopback import LoopbackServer, hold, send_json, send_lines

OK = {"ok": True}


def post(
    server: LoopbackServer,
    retries: int,
    provider: Provider = LLM_SERVER,
    client_timeout_s: float = 5.0,
    timeout_s: float | None = None,
) -> Any:
    with httpx.Client(timeout=client_timeout_s) as client:
        return post_json(
            client,
            server.url + "/v1/x",
            {"q": 1},
            provider=provider,
            retries=retries,
            timeout_s=timeout_s,
        )


def test_a_429_is_retried_after_the_first_back_off() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        if n == 1:
            send_json(h, {"error": {"message": "slow down"}}, status=429)
        else:
            send_json(h, OK)

    with LoopbackServer(respond) as server:
        started = time.perf_counter()
        assert post(server, retries=2) == OK
        elapsed = time.perf_counter() - started
    assert len(server.received) == 2
    assert elapsed >= 0.5  # the first back-off: 0.5 s


def test_a_503_waits_as_long_as_its_retry_after_says() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        if n == 1:
            send_json(h, {"error": "busy"}, status=503, headers={"Retry-After": "1.2"})
        else:
            send_json(h, OK)

    with LoopbackServer(respond) as server:
        started = time.perf_counter()
        assert post(server, retries=1) == OK
        elapsed = time.perf_counter() - started
    assert len(server.received) == 2
    assert elapsed >= 1.2  # not the 0.5 s of the default back-off


@pytest.mark.parametrize(
    ("provider", "error"),
    [(LLM_SERVER, LLMError), (EMBEDDING_SERVER, EmbeddingError), (RERANK_ENDPOINT, RerankError)],
)
def test_retries_give_up_after_their_attempts_with_the_callers_error(
    provider: Provider, error: type[Exception]
) -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(
            h, {"error": {"code": "overloaded_now"}}, status=503, headers={"Retry-After": "0"}
        )

    with LoopbackServer(respond) as server, pytest.raises(error) as raised:
        post(server, retries=2, provider=provider)
    assert len(server.received) == 3
    assert str(raised.value) == (
        f"{provider.what} at {server.url}/v1/x answered 503 Service Unavailable (overloaded_now)"
    )
    assert not isinstance(raised.value, LLMTimeoutError)


def test_a_status_that_cannot_recover_is_not_retried() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(h, {"error": "no such model"}, status=404)

    with LoopbackServer(respond) as server, pytest.raises(LLMError, match="answered 404 Not Found"):
        post(server, retries=3)
    assert len(server.received) == 1


def test_a_timeout_is_an_llm_timeout_error_after_the_retries() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        hold(h)

    with LoopbackServer(respond) as server:
        with pytest.raises(LLMTimeoutError, match=r"LLM server at .* timed out"):
            post(server, retries=1, client_timeout_s=0.3)
        assert len(server.received) == 2


def test_a_timeout_of_this_call_overrides_the_clients_and_keeps_the_callers_error() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        hold(h)

    with LoopbackServer(respond) as server, pytest.raises(EmbeddingError, match="timed out"):
        post(server, retries=0, provider=EMBEDDING_SERVER, client_timeout_s=30, timeout_s=0.3)


def test_a_refused_connection_is_unreachable_after_the_retries() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    started = time.perf_counter()
    with (
        httpx.Client(timeout=2.0) as client,
        pytest.raises(LLMError, match="unreachable") as raised,
    ):
        post_json(client, f"http://127.0.0.1:{port}/x", {}, provider=LLM_SERVER, retries=1)
    assert not isinstance(raised.value, LLMTimeoutError)
    assert time.perf_counter() - started >= 0.5  # it waited once before its second attempt


def test_a_reply_that_is_not_json_is_not_retried() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_lines(h, ["<html>oops</html>"], "text/html")

    with LoopbackServer(respond) as server, pytest.raises(RerankError, match="sent invalid JSON"):
        post(server, retries=2, provider=RERANK_ENDPOINT)
    assert len(server.received) == 1


def stream(
    server: LoopbackServer, retries: int, timeout_s: float = 5.0, got: list[str] | None = None
) -> list[str]:
    """The lines of a streamed reply, collected in ``got`` as they arrive."""
    got = [] if got is None else got
    with httpx.Client(timeout=timeout_s) as client:
        got.extend(
            stream_lines(client, server.url + "/s", {}, provider=LLM_SERVER, retries=retries)
        )
    return got


def test_a_stream_is_retried_before_its_first_line() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        if n == 1:
            send_json(h, {}, status=502, headers={"Retry-After": "0"})
        else:
            send_lines(h, ['{"a": 1}', '{"b": 2}'], "application/x-ndjson")

    with LoopbackServer(respond) as server:
        assert stream(server, retries=1) == ['{"a": 1}', '{"b": 2}']
    assert len(server.received) == 2


def test_a_stream_that_stalls_before_its_first_line_is_retried() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        if n == 1:
            hold(h)
        else:
            send_lines(h, ["data: x"], "text/event-stream")

    with LoopbackServer(respond) as server:
        assert stream(server, retries=1, timeout_s=0.3) == ["data: x"]
    assert len(server.received) == 2


def test_a_stream_is_never_retried_after_its_first_line() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_lines(h, ["data: first"], "text/event-stream")
        hold(h)

    got: list[str] = []
    with LoopbackServer(respond) as server:
        with pytest.raises(LLMTimeoutError, match="timed out"):
            stream(server, retries=3, timeout_s=0.3, got=got)
        assert len(server.received) == 1
    assert got == ["data: first"]


def test_the_rerank_endpoint_retries_through_the_policy() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        if n == 1:
            send_json(h, {}, status=429, headers={"Retry-After": "0"})
        else:
            send_json(h, {"results": [{"index": 0, "relevance_score": 0.7}]})

    with LoopbackServer(respond) as server:
        reranker = RemoteCrossEncoder(server.url + "/rerank")  # one retry by default
        try:
            assert reranker.score("q", [Passage("p")]) == [0.7]
        finally:
            reranker.close()
    assert len(server.received) == 2


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert retry_after_s("3") == 3.0
    assert retry_after_s(" 1.5 ") == 1.5
    assert retry_after_s("-4") == 0.0
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    seconds = retry_after_s(later)
    assert seconds is not None
    assert 25 <= seconds <= 30
    assert retry_after_s("soon") is None
    assert retry_after_s(None) is None
