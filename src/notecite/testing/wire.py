"""Reply bodies in the providers' wire formats: OpenAI chat completions and embeddings,
Ollama's ``/api/chat`` and ``/api/embed``, and the Cohere/Jina and TEI ``/rerank`` replies.

Plain functions that build JSON values or lines, so a test's own responder
(:class:`notecite.testing.loopback.LoopbackServer`) can send exactly the reply it needs.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from notecite.embed.base import Vectors

COMPLETION_ID = "chatcmpl-notecite-test"


def chat_completion(content: str, model: str = "scripted") -> dict[str, Any]:
    """A non-streamed OpenAI chat-completion reply carrying ``content``."""
    return {
        "id": COMPLETION_ID,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def chunk_event(delta: dict[str, Any], model: str = "scripted", finish: str | None = None) -> str:
    """One ``data:`` line of an OpenAI chat-completion stream."""
    chunk = {
        "id": COMPLETION_ID,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(chunk)}"


def sse_events(pieces: Iterable[str], model: str = "scripted") -> list[str]:
    """The lines of an OpenAI chat-completion stream carrying ``pieces``, then ``[DONE]``
    (a blank line ends each event)."""
    lines: list[str] = []
    for piece in pieces:
        lines += [chunk_event({"content": piece}, model), ""]
    return [*lines, "data: [DONE]", ""]


def error_body(
    message: str, type_: str = "server_error", code: str | None = None
) -> dict[str, Any]:
    """``{"error": {"message", "type", "code"}}`` as OpenAI-compatible servers send it."""
    return {"error": {"message": message, "type": type_, "code": code}}


def embeddings_reply(
    vectors: Vectors, model: str, encoding: str = "float", reverse: bool = False
) -> dict[str, Any]:
    """An OpenAI ``/v1/embeddings`` reply; ``encoding`` "base64" packs float32 rows as the
    official client asks by default; ``reverse`` lists rows last first (a client must order
    them by ``index``)."""
    data = [
        {"object": "embedding", "index": i, "embedding": _encode(row, encoding)}
        for i, row in enumerate(vectors)
    ]
    if reverse:
        data.reverse()
    return {
        "object": "list",
        "data": data,
        "model": model,
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    }


def _encode(row: Vectors, encoding: str) -> list[float] | str:
    if encoding == "base64":
        return base64.b64encode(np.asarray(row, dtype="<f4").tobytes()).decode()
    return [float(x) for x in row]


def ollama_chat(content: str, model: str, done: bool = True) -> dict[str, Any]:
    """One Ollama ``/api/chat`` message (the whole reply, or one line of its stream)."""
    reply: dict[str, Any] = {
        "model": model,
        "created_at": "2025-01-01T00:00:00Z",
        "message": {"role": "assistant", "content": content},
        "done": done,
    }
    if done:
        reply["done_reason"] = "stop"
    return reply


def ollama_embed(vectors: Vectors, model: str) -> dict[str, Any]:
    """An Ollama ``/api/embed`` reply."""
    return {"model": model, "embeddings": [[float(x) for x in row] for row in vectors]}


def rerank_reply(scores: Sequence[float], style: str = "cohere") -> Any:
    """A ``/rerank`` reply, best first: Cohere/Jina's ``{"results": [{"index",
    "relevance_score"}]}`` or TEI's ``[{"index", "score"}]`` (``style`` "tei")."""
    ranked = sorted(range(len(scores)), key=lambda i: -scores[i])
    if style == "tei":
        return [{"index": i, "score": scores[i]} for i in ranked]
    return {"results": [{"index": i, "relevance_score": scores[i]} for i in ranked]}
