"""The OpenAI-compatible provider against a real HTTP server on 127.0.0.1 speaking the protocol."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from pydantic import SecretStr

from notecite.config import GenerationSettings
from notecite.errors import LLMError
from notecite.generate.base import ChatMessage, GenerationRequest, GenerationUsage
from notecite.generate.openai_compat import OpenAICompatLLM
from notecite.testing.loopback import LoopbackServer, hold, send_json, send_lines
from notecite.testing.wire import chat_completion, sse_events

REQUEST = GenerationRequest(
    messages=(ChatMessage("system", "Answer briefly."), ChatMessage("user", "When is it?")),
    temperature=0.2,
    max_tokens=32,
    stop=("\n\n",),
)


def provider(server: LoopbackServer, **settings: Any) -> OpenAICompatLLM:
    settings.setdefault("retries", 0)
    settings.setdefault("timeout_s", 5.0)
    return OpenAICompatLLM(
        GenerationSettings(base_url=server.url + "/v1", model="tiny", **settings)
    )


def test_generate_posts_the_chat_request_and_returns_the_content() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(h, chat_completion("On March 14. [N1]"))

    with LoopbackServer(respond) as server:
        llm = provider(server, api_key=SecretStr("sk-test"))
        assert llm.generate(REQUEST) == "On March 14. [N1]"

    (seen,) = server.received
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["Authorization"] == "Bearer sk-test"
    assert seen.body == {
        "model": "tiny",
        "messages": [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "When is it?"},
        ],
        "temperature": 0.2,
        "max_tokens": 32,
        "stream": False,
        "stop": ["\n\n"],
    }
    assert (llm.name, llm.model_id) == ("openai", "tiny")


def test_no_authorization_header_without_a_key() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(h, chat_completion("ok"))

    with LoopbackServer(respond) as server:
        provider(server).generate(REQUEST)
    assert "Authorization" not in server.received[0].headers


def test_stream_yields_the_deltas_of_the_event_stream() -> None:
    pieces = ["On", " March", " 14", ". [N1]"]

    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        # a keep-alive comment and a role-only delta come first, as real servers send them
        lines = [": keep-alive", "", 'data: {"choices":[{"delta":{"role":"assistant"}}]}', ""]
        send_lines(h, lines + sse_events(pieces), "text/event-stream")

    with LoopbackServer(respond) as server:
        streamed = list(provider(server).stream(REQUEST))
    assert streamed == pieces
    assert server.received[0].body["stream"] is True


def test_a_500_is_retried_and_a_later_success_returned() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        if n == 1:
            send_json(h, {"error": "busy"}, status=500, headers={"Retry-After": "0"})
        else:
            send_json(h, chat_completion("fine [N1]"))

    with LoopbackServer(respond) as server:
        assert provider(server, retries=1).generate(REQUEST) == "fine [N1]"
    assert len(server.received) == 2


def test_persistent_500s_raise_llm_error_after_the_retries() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(h, {"error": "down"}, status=500, headers={"Retry-After": "0"})

    with LoopbackServer(respond) as server, pytest.raises(LLMError, match="500"):
        provider(server, retries=1).generate(REQUEST)
    assert len(server.received) == 2


def test_a_client_error_is_not_retried() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(h, {"error": {"message": "no such model"}}, status=404)

    with LoopbackServer(respond) as server, pytest.raises(LLMError, match="404"):
        provider(server, retries=2).generate(REQUEST)
    assert len(server.received) == 1


def test_a_server_that_hangs_past_the_timeout_raises_llm_error() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        hold(h)

    with LoopbackServer(respond) as server:
        started = time.monotonic()
        with pytest.raises(LLMError, match="timed out"):
            provider(server, timeout_s=0.3).generate(REQUEST)
        assert time.monotonic() - started < 3


def test_a_reply_without_choices_raises_llm_error() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(h, {"object": "error"})

    with LoopbackServer(respond) as server, pytest.raises(LLMError, match="unexpected"):
        provider(server).generate(REQUEST)


def test_an_unreachable_server_raises_llm_error() -> None:
    with LoopbackServer(lambda h, body, n: None) as server:
        url = server.url
    llm = OpenAICompatLLM(GenerationSettings(base_url=url + "/v1", retries=0, timeout_s=2))
    with pytest.raises(LLMError, match="unreachable"):
        llm.generate(REQUEST)


def test_stream_raises_llm_error_on_a_500() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(h, {"error": "down"}, status=500)

    with LoopbackServer(respond) as server, pytest.raises(LLMError, match="500"):
        list(provider(server).stream(REQUEST))


def test_stream_raises_llm_error_on_a_bad_event() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_lines(h, ["data: {not json", ""], "text/event-stream")

    with LoopbackServer(respond) as server, pytest.raises(LLMError, match="bad stream event"):
        list(provider(server).stream(REQUEST))


def test_a_stream_that_stalls_midway_fails_without_repeating_pieces() -> None:
    """Retries happen only before the first piece: a retry then would repeat the answer."""

    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        events = sse_events(["Hello", " world"])
        if n == 1:
            send_lines(h, events[:2], "text/event-stream")
            hold(h)
        else:
            send_lines(h, events, "text/event-stream")

    got: list[str] = []
    with LoopbackServer(respond) as server:
        with pytest.raises(LLMError, match="timed out"):
            got.extend(provider(server, retries=1, timeout_s=0.5).stream(REQUEST))
        assert got == ["Hello"]
        assert len(server.received) == 1


def test_a_reported_usage_is_recorded_also_from_a_usage_only_stream_event() -> None:
    # With stream_options.include_usage, OpenAI ends the stream with an event whose
    # choices are empty and which carries the usage.
    usage_event = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "choices": [],
        "usage": {
            "prompt_tokens": 412,
            "completion_tokens": 17,
            "total_tokens": 429,
            "prompt_tokens_details": {"cached_tokens": 256},
        },
    }

    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        events = sse_events(["On March 14. [N1]"])
        lines = [*events[:-2], f"data: {json.dumps(usage_event)}", "", *events[-2:]]
        send_lines(h, lines, "text/event-stream")

    usage = GenerationUsage()
    with LoopbackServer(respond) as server:
        streamed = list(provider(server).stream(replace(REQUEST, usage=usage)))
    assert streamed == ["On March 14. [N1]"]
    assert (usage.prompt_tokens, usage.cached_tokens, usage.output_tokens) == (412, 256, 17)


def test_generate_records_the_usage_of_the_reply() -> None:
    reply = chat_completion("fine [N1]")
    reply["usage"] = {"prompt_tokens": 90, "completion_tokens": 3, "total_tokens": 93}

    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(h, reply)

    usage = GenerationUsage()
    with LoopbackServer(respond) as server:
        assert provider(server).generate(replace(REQUEST, usage=usage)) == "fine [N1]"
    assert (usage.prompt_tokens, usage.output_tokens, usage.cached_tokens) == (90, 3, 0)
