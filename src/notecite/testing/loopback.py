"""A real HTTP server on 127.0.0.1:0 in a thread, whose every reply a test writes itself.

``LoopbackServer(respond)`` hands each request to ``respond(handler, body, number)``, which
writes the reply with the helpers here (JSON, a stream of lines, an error status, or nothing
until the client gives up). It is the low level of
:class:`notecite.testing.server.ProviderServer`, and the tool for wire-level tests of a
client (a malformed event, a stream that stalls midway).

Replies are HTTP/1.0, so every connection closes after one exchange and nothing is pooled.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import httpx


@dataclass(frozen=True)
class Received:
    """One request as the server saw it: its path, its JSON body (None without one), its
    headers (names in any case) and its method."""

    path: str
    body: Any
    headers: httpx.Headers
    method: str = "POST"


Responder = Callable[[BaseHTTPRequestHandler, Any, int], None]
"""``respond(handler, body, number)``: write the reply to request ``number`` (1-based)."""


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
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self._answer(body)

    def do_GET(self) -> None:
        self._answer(None)

    def _answer(self, body: Any) -> None:
        owner = self.server.owner
        with owner.lock:
            owner.received.append(
                Received(self.path, body, httpx.Headers(self.headers.items()), self.command)
            )
            number = len(owner.received)
        with contextlib.suppress(OSError):  # the client hung up (a timeout test)
            owner.respond(self, body, number)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""


class LoopbackServer:
    """``with LoopbackServer(respond) as server: ... server.url ... server.received``.

    Args:
        respond: Writes the reply to each request; see :data:`Responder`.

    Attributes:
        received: Every request, in arrival order.
        release: Set when the server stops; a handler that stalls (:func:`hold`) returns then.
    """

    def __init__(self, respond: Responder) -> None:
        self.respond = respond
        self.received: list[Received] = []
        self.lock = threading.Lock()
        self.release = threading.Event()
        self._server = _Server(self)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>``, without a trailing slash."""
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
    headers: Mapping[str, str] | None = None,
) -> None:
    """One JSON reply."""
    send_bytes(handler, json.dumps(payload).encode(), status, headers)


def send_bytes(
    handler: BaseHTTPRequestHandler,
    data: bytes,
    status: int = 200,
    headers: Mapping[str, str] | None = None,
    content_type: str = "application/json",
) -> None:
    """One reply of ``data`` as it is (a garbage body, for instance)."""
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
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
    """A streamed reply of ``lines``, flushed one by one (``between`` runs after each).

    ``lines`` may be a generator: each line goes out as soon as it is made.
    """
    handler.send_response(200)
    handler.send_header("Content-Type", content_type)
    handler.end_headers()
    for line in lines:
        handler.wfile.write(line.encode() + b"\n")
        handler.wfile.flush()
        if between is not None:
            between()


def hold(handler: BaseHTTPRequestHandler) -> None:
    """Stall the reply until the server shuts down (at most 10 s), for timeout tests."""
    server = handler.server
    assert isinstance(server, _Server)
    server.owner.release.wait(10)
