"""A real HTTP server on 127.0.0.1 for LLM provider tests: the fake sits at the network edge.

Each test passes a ``respond(handler, body, number)`` function that writes the reply itself
(JSON, Server-Sent Events, NDJSON, an error status, or nothing until the client gives up).
Replies are HTTP/1.0, so every connection closes after one exchange and nothing is pooled.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    path: str
    body: Any
    headers: dict[str, str]


Responder = Callable[[BaseHTTPRequestHandler, Any, int], None]


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # join handler threads on close, so no test leaves one running

    def __init__(self, owner: LoopbackServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        body = json.loads(raw) if raw else None
        owner = self.server.owner
        with owner.lock:
            owner.received.append(Received(self.path, body, dict(self.headers.items())))
            number = len(owner.received)
        with contextlib.suppress(OSError):  # the client hung up (a timeout test)
            owner.respond(self, body, number)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""


class LoopbackServer:
    """``with LoopbackServer(respond) as server: ... server.url ... server.received``."""

    def __init__(self, respond: Responder) -> None:
        self.respond = respond
        self.received: list[Received] = []
        self.lock = threading.Lock()
        self.release = threading.Event()  # set on exit: handlers that wait must return
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()


def send_json(
    handler: BaseHTTPRequestHandler,
    payload: Any,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> None:
    """One JSON reply."""
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    for key, value in (headers or {}).items():
        handler.send_header(key, value)
    handler.end_headers()
    handler.wfile.write(data)


def send_lines(
    handler: BaseHTTPRequestHandler,
    lines: Iterable[str],
    content_type: str,
    between: Callable[[], None] | None = None,
) -> None:
    """A streamed reply of ``lines``, flushed one by one (``between`` runs after each)."""
    handler.send_response(200)
    handler.send_header("Content-Type", content_type)
    handler.end_headers()
    for line in lines:
        handler.wfile.write(line.encode() + b"\n")
        handler.wfile.flush()
        if between is not None:
            between()


def sse_events(pieces: Iterable[str]) -> list[str]:
    """OpenAI chat-completion stream events carrying ``pieces``, then ``[DONE]``."""
    lines = []
    for piece in pieces:
        event = {"choices": [{"index": 0, "delta": {"content": piece}}]}
        lines += [f"data: {json.dumps(event)}", ""]
    return [*lines, "data: [DONE]", ""]


def chat_completion(content: str) -> dict[str, Any]:
    """A non-streamed OpenAI chat-completion reply."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }


def hold(handler: BaseHTTPRequestHandler) -> None:
    """Stall the reply until the server shuts down (for timeout tests)."""
    server = handler.server
    assert isinstance(server, _Server)
    server.owner.release.wait(10)
