"""The Ollama provider against a real HTTP server on 127.0.0.1 speaking ``/api/chat``."""

from __future__ import annotations

import json
from dataclasses import replace
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from notecite.config import GenerationSettings
from notecite.errors import LLMError
from notecite.generate.base import ChatMessage, GenerationRequest, GenerationUsage
from notecite.generate.ollama import OllamaLLM
from notecite.testing.loopback import LoopbackServer, hold, send_json, send_lines
from notecite.testing.wire import ollama_chat

REQUEST = GenerationRequest(
    messages=(ChatMessage("system", "Answer briefly."), ChatMessage("user", "When is it?")),
    temperature=0.1,
    max_tokens=40,
    stop=("###",),
)


def provider(server: LoopbackServer, **settings: Any) -> OllamaLLM:
    settings.setdefault("retries", 0)
    settings.setdefault("timeout_s", 5.0)
    return OllamaLLM(GenerationSettings(base_url=server.url, model="llama3.2:1b", **settings))


def test_generate_posts_to_api_chat_without_streaming() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(
            h,
            {
                "model": "llama3.2:1b",
                "message": {"role": "assistant", "content": "March 14. [N1]"},
                "done": True,
            },
        )

    with LoopbackServer(respond) as server:
        llm = provider(server)
        assert llm.generate(REQUEST) == "March 14. [N1]"

    (seen,) = server.received
    assert seen.path == "/api/chat"
    assert seen.body == {
        "model": "llama3.2:1b",
        "messages": [
            {"role": "system", "content": "Answer briefly."},
            {"role": "user", "content": "When is it?"},
        ],
        "stream": False,
        "options": {"temperature": 0.1, "num_predict": 40, "stop": ["###"]},
    }
    assert (llm.name, llm.model_id) == ("ollama", "llama3.2:1b")


def test_stream_reads_ndjson_until_done() -> None:
    pieces = ["March", " 14", ". [N1]"]

    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        lines = [
            json.dumps({"message": {"role": "assistant", "content": p}, "done": False})
            for p in pieces
        ]
        lines.append(json.dumps({"message": {"role": "assistant", "content": ""}, "done": True}))
        lines.append(json.dumps({"message": {"content": "after done"}, "done": False}))
        send_lines(h, lines, "application/x-ndjson")

    with LoopbackServer(respond) as server:
        assert list(provider(server).stream(REQUEST)) == pieces
    assert server.received[0].body["stream"] is True


def test_stream_raises_llm_error_on_a_bad_line() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_lines(h, ["{broken"], "application/x-ndjson")

    with LoopbackServer(respond) as server, pytest.raises(LLMError, match="bad stream line"):
        list(provider(server).stream(REQUEST))


def test_a_missing_model_is_an_llm_error() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        send_json(h, {"error": "model 'llama3.2:1b' not found"}, status=404)

    with LoopbackServer(respond) as server, pytest.raises(LLMError, match="answered 404 Not Found"):
        provider(server).generate(REQUEST)


def test_a_hanging_server_times_out() -> None:
    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        hold(h)

    with LoopbackServer(respond) as server, pytest.raises(LLMError, match="timed out"):
        provider(server, timeout_s=0.3).generate(REQUEST)


def test_the_final_line_s_counts_and_durations_are_recorded() -> None:
    final = ollama_chat("", "llama3.2:1b")
    final.update(
        prompt_eval_count=300,
        prompt_eval_duration=1_500_000_000,
        eval_count=20,
        eval_duration=800_000_000,
    )

    def respond(h: BaseHTTPRequestHandler, body: Any, n: int) -> None:
        lines = [json.dumps(ollama_chat("March 14 [N1]", "llama3.2:1b", done=False))]
        send_lines(h, [*lines, json.dumps(final)], "application/x-ndjson")

    usage = GenerationUsage()
    with LoopbackServer(respond) as server:
        assert list(provider(server).stream(replace(REQUEST, usage=usage))) == ["March 14 [N1]"]
    assert (usage.prompt_tokens, usage.output_tokens) == (300, 20)
    assert (usage.prompt_ms, usage.output_ms) == (1500.0, 800.0)
