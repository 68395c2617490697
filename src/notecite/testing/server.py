"""A loopback server that speaks the providers' protocols, backed by real providers.

``ProviderServer`` answers on 127.0.0.1:0, in a thread, as a context manager:

- ``POST /v1/chat/completions`` (OpenAI; streamed as Server-Sent Events when asked) and
  ``POST /api/chat`` (Ollama; NDJSON when streaming), with the replies of an LLM (by default
  a :class:`~notecite.testing.llm.ScriptedLLM`);
- ``POST /v1/embeddings`` (OpenAI; float or base64) and ``POST /api/embed`` (Ollama), with
  the vectors of an embedder (by default the ``hash`` embedder, 64-d);
- ``POST /rerank`` and ``/v1/rerank`` (Cohere/Jina or TEI replies), scored by a function;
- ``GET /v1/models``.

The official ``openai`` client works against it. Faults are scripted per route
(:meth:`ProviderServer.fail`): an HTTP status, a garbage body, or a reply that never comes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any, Literal

from notecite.embed.base import Embedder
from notecite.embed.hashing import HashEmbedder
from notecite.errors import LLMError
from notecite.generate.base import LLM, ChatMessage, GenerationRequest
from notecite.testing.llm import ScriptedLLM
from notecite.testing.loopback import LoopbackServer, hold, send_bytes, send_json, send_lines
from notecite.testing.wire import (
    chat_completion,
    chunk_event,
    embeddings_reply,
    error_body,
    ollama_chat,
    ollama_embed,
    rerank_reply,
)

Route = Literal["chat", "embeddings", "rerank"]
Scorer = Callable[[str, Sequence[str]], Sequence[float]]
"""``score(query, documents)``: one relevance score per document."""


@dataclass(frozen=True)
class Fault:
    """A reply that replaces the provider's answer.

    Attributes:
        status: The HTTP status.
        body: The body as sent; None sends ``{"error": {"message": message, ...}}``.
        message: The error message of the default body.
        headers: Extra headers (``{"Retry-After": "0"}`` keeps retry tests fast).
        hang: Send nothing until the server stops, so the client times out.
    """

    status: int = 500
    body: bytes | None = None
    message: str = "scripted failure"
    headers: Mapping[str, str] = field(default_factory=dict)
    hang: bool = False


HANG = Fault(hang=True)
"""The reply never comes (until the server stops)."""
GARBAGE = Fault(status=200, body=b"<html>\x00not json at all")
"""A 200 whose body is not JSON."""


@dataclass
class _Schedule:
    fault: Fault
    after: int
    times: int | None


def word_overlap(query: str, documents: Sequence[str]) -> list[float]:
    """The default reranking score: the share of the query's words found in each document."""
    words = set(re.findall(r"\w+", query.lower()))
    return [
        len(words & set(re.findall(r"\w+", doc.lower()))) / (len(words) or 1) for doc in documents
    ]


class ProviderServer(LoopbackServer):
    """``with ProviderServer(ScriptedLLM("It is March 14 [N1].")) as server: server.url``.

    Args:
        llm: Writes the chat replies (a :class:`ScriptedLLM` by default). An
            :class:`LLMError` it raises becomes a 500 (or an error event, mid-stream).
        embedder: Computes the embeddings (``HashEmbedder(dimensions=64)`` by default).
        rerank: Scores ``/rerank`` documents (:func:`word_overlap` by default).
        rerank_style: "cohere" (also Jina's) or "tei" replies.
        embed_scale: Multiplies every vector (a client must normalise what it gets).
        reverse_rows: Lists OpenAI embedding rows last first (a client must order them by
            their index).
        model: The model name in chat replies when the request names none.

    Attributes:
        llm, embedder: The providers behind the routes (a test may inspect or change them).
        received: Every request, in order (see :class:`~notecite.testing.loopback.Received`).
    """

    def __init__(
        self,
        llm: LLM | None = None,
        *,
        embedder: Embedder | None = None,
        rerank: Scorer = word_overlap,
        rerank_style: Literal["cohere", "tei"] = "cohere",
        embed_scale: float = 1.0,
        reverse_rows: bool = False,
        model: str = "scripted",
    ) -> None:
        super().__init__(self._dispatch)
        self.llm: LLM = llm if llm is not None else ScriptedLLM()
        self.embedder: Embedder = embedder if embedder is not None else HashEmbedder(64)
        self.rerank = rerank
        self.rerank_style = rerank_style
        self.embed_scale = embed_scale
        self.reverse_rows = reverse_rows
        self.model = model
        self._faults: dict[Route, _Schedule] = {}

    def __enter__(self) -> ProviderServer:
        super().__enter__()
        return self

    def fail(
        self, route: Route, fault: int | Fault, *, times: int | None = None, after: int = 0
    ) -> None:
        """Answer ``route`` with ``fault`` (a status, or a :class:`Fault`) instead.

        Args:
            route: "chat", "embeddings" or "rerank" (OpenAI and Ollama paths alike).
            fault: An HTTP status with the default error body, or a :class:`Fault`.
            times: How many requests fail; None: every one until :meth:`heal`.
            after: How many requests are still answered normally first.
        """
        scripted = fault if isinstance(fault, Fault) else Fault(status=fault)
        with self.lock:
            self._faults[route] = _Schedule(scripted, after, times)

    def heal(self, route: Route | None = None) -> None:
        """Stop the faults of ``route`` (of every route when None)."""
        with self.lock:
            if route is None:
                self._faults.clear()
            else:
                self._faults.pop(route, None)

    def requests_to(self, route: Route) -> list[Any]:
        """The bodies of the requests ``route`` received, in order."""
        return [r.body for r in self.received if _route_of(r.path) == route]

    def _dispatch(self, handler: BaseHTTPRequestHandler, body: Any, number: int) -> None:
        path = handler.path.split("?")[0]
        if handler.command == "GET":
            if path.endswith("/models"):
                send_json(handler, {"object": "list", "data": [self._model_card()]})
            else:
                send_json(handler, error_body(f"no route {path}", "not_found"), status=404)
            return
        route = _route_of(path)
        if route is None:
            send_json(handler, error_body(f"no route {path}", "not_found"), status=404)
            return
        if not isinstance(body, dict):
            send_json(handler, error_body("the body is not a JSON object"), status=400)
            return
        fault = self._fault_for(route)
        if fault is not None:
            _send_fault(handler, fault)
        elif route == "chat":
            self._chat(handler, body, ollama=path.startswith("/api/"))
        elif route == "embeddings":
            self._embeddings(handler, body, ollama=path.startswith("/api/"))
        else:
            self._rerank(handler, body)

    def _fault_for(self, route: Route) -> Fault | None:
        with self.lock:
            schedule = self._faults.get(route)
            if schedule is None:
                return None
            if schedule.after > 0:
                schedule.after -= 1
                return None
            if schedule.times is None:
                return schedule.fault
            if schedule.times > 0:
                schedule.times -= 1
                return schedule.fault
            return None

    def _chat(self, handler: BaseHTTPRequestHandler, body: dict[str, Any], ollama: bool) -> None:
        request = _generation_request(body, ollama)
        model = str(body.get("model") or self.model)
        streaming = bool(body.get("stream", ollama))  # Ollama streams unless told not to
        if not streaming:
            try:
                content = self.llm.generate(request)
            except LLMError as exc:
                send_json(handler, error_body(str(exc)), status=500)
                return
            reply = ollama_chat(content, model) if ollama else chat_completion(content, model)
            send_json(handler, reply)
            return
        pieces = self.llm.stream(request)
        try:
            first = next(pieces, None)
        except LLMError as exc:  # failed before the first piece: an HTTP error, as servers do
            send_json(handler, error_body(str(exc)), status=500)
            return
        lines = _ndjson(first, pieces, model) if ollama else _sse(first, pieces, model)
        send_lines(handler, lines, "application/x-ndjson" if ollama else "text/event-stream")

    def _embeddings(
        self, handler: BaseHTTPRequestHandler, body: dict[str, Any], ollama: bool
    ) -> None:
        raw = body.get("input", [])
        texts = [raw] if isinstance(raw, str) else [str(t) for t in raw]
        vectors = self.embedder.embed_documents(texts) * self.embed_scale
        model = str(body.get("model") or self.model)
        if ollama:  # rows carry no index here: they stay in order
            send_json(handler, ollama_embed(vectors, model))
            return
        encoding = str(body.get("encoding_format") or "float")
        send_json(handler, embeddings_reply(vectors, model, encoding, self.reverse_rows))

    def _rerank(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        documents = body.get("documents", body.get("texts", []))
        texts = [d if isinstance(d, str) else str(d.get("text", "")) for d in documents]
        scores = [float(s) for s in self.rerank(str(body.get("query", "")), texts)]
        send_json(handler, rerank_reply(scores, self.rerank_style))

    def _model_card(self) -> dict[str, Any]:
        return {"id": self.model, "object": "model", "created": 0, "owned_by": "notecite"}


def _route_of(path: str) -> Route | None:
    path = path.split("?")[0].rstrip("/")
    if path.endswith("/chat/completions") or path == "/api/chat":
        return "chat"
    if path.endswith("/embeddings") or path == "/api/embed":
        return "embeddings"
    if path.endswith("/rerank"):
        return "rerank"
    return None


def _generation_request(body: dict[str, Any], ollama: bool) -> GenerationRequest:
    messages = tuple(
        ChatMessage(_role(m.get("role")), _text(m.get("content"))) for m in body["messages"]
    )
    options = body.get("options", {}) if ollama else body
    stop = options.get("stop") or ()
    max_tokens = options.get("num_predict" if ollama else "max_tokens")
    question = next((m.content for m in reversed(messages) if m.role == "user"), "")
    return GenerationRequest(
        messages=messages,
        question=question,
        temperature=float(options.get("temperature", 0.3)),
        max_tokens=int(max_tokens or body.get("max_completion_tokens") or 512),
        stop=(stop,) if isinstance(stop, str) else tuple(stop),
    )


def _role(role: Any) -> Literal["system", "user", "assistant"]:
    if role in ("system", "developer"):
        return "system"
    return "assistant" if role == "assistant" else "user"


def _text(content: Any) -> str:
    if isinstance(content, list):  # content parts: keep the text ones
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return "" if content is None else str(content)


def _sse(first: str | None, rest: Iterator[str], model: str) -> Iterator[str]:
    yield chunk_event({"role": "assistant", "content": ""}, model)
    yield ""
    try:
        if first is not None:
            yield chunk_event({"content": first}, model)
            yield ""
            for piece in rest:
                yield chunk_event({"content": piece}, model)
                yield ""
    except LLMError as exc:  # mid-stream: an error event, as OpenAI-compatible servers send
        yield f"data: {_json(error_body(str(exc)))}"
        yield ""
        return
    yield chunk_event({}, model, finish="stop")
    yield ""
    yield "data: [DONE]"
    yield ""


def _ndjson(first: str | None, rest: Iterator[str], model: str) -> Iterator[str]:
    try:
        if first is not None:
            yield _json(ollama_chat(first, model, done=False))
            for piece in rest:
                yield _json(ollama_chat(piece, model, done=False))
    except LLMError as exc:
        yield _json({"error": str(exc)})
        return
    yield _json(ollama_chat("", model, done=True))


def _json(value: Any) -> str:
    return json.dumps(value)


def _send_fault(handler: BaseHTTPRequestHandler, fault: Fault) -> None:
    if fault.hang:
        hold(handler)
        return
    body = fault.body if fault.body is not None else _json(error_body(fault.message)).encode()
    send_bytes(handler, body, fault.status, fault.headers)
