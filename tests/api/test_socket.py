"""The app over a real uvicorn socket on 127.0.0.1: a streamed chat arrives token by token."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from notecite import load_settings
from notecite.api import create_app
from notecite.testing.loopback import LoopbackServer, send_json
from notecite.testing.wire import chat_completion
from tests.api.helpers import index_over_http


@contextmanager
def serving(app: FastAPI, start_s: float = 15) -> Iterator[str]:
    """Serve ``app`` with uvicorn in a thread on a free loopback port; stop it afterwards."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + start_s
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped while starting"
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()
        assert not thread.is_alive(), "uvicorn did not stop"


def iter_events(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    """``(event, data)`` as each blank line completes an event."""
    name, data = "message", ""
    for line in lines:
        if line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data = line[5:].strip()
        elif not line and data:
            yield name, json.loads(data)
            name, data = "message", ""


def test_a_streamed_chat_over_a_real_socket(tmp_path: Path, notes_dir: Path) -> None:
    token_seen = threading.Event()
    released: list[bool] = []

    def respond(handler: BaseHTTPRequestHandler, body: Any, number: int) -> None:
        if not body.get("stream"):
            send_json(handler, chat_completion("[]"))
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()

        def piece(text: str) -> None:
            event = {"choices": [{"index": 0, "delta": {"content": text}}]}
            handler.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            handler.wfile.flush()

        piece("The Apollo budget is ")
        # The rest is written only once the client has seen the first token: a server that
        # buffered the stream would leave it waiting here.
        released.append(token_seen.wait(10))
        piece("40000 euros [N1].")
        handler.wfile.write(b"data: [DONE]\n\n")
        handler.wfile.flush()

    with LoopbackServer(respond) as llm_server:
        settings = load_settings(
            home=tmp_path / "home",
            embedder={"name": "hash"},
            llm="openai",
            generation={"base_url": llm_server.url + "/v1", "retries": 0},
        )
        with (
            serving(create_app(settings)) as base_url,
            httpx.Client(base_url=base_url, timeout=20) as http,
        ):
            assert http.get("/health").json()["status"] == "ok"
            index_over_http(http, "notes", notes_dir)

            events = []
            request = {"message": "What is the Apollo budget?", "stream": True}
            with http.stream("POST", "/chat", json=request) as response:
                assert response.headers["content-type"].startswith("text/event-stream")
                for event in iter_events(response.iter_lines()):
                    events.append(event)
                    if event[0] == "token":
                        token_seen.set()

            session = http.get(f"/sessions/{events[-1][1]['sessionId']}").json()

    assert released == [True]
    names = [name for name, _ in events]
    assert names[0] == "token"
    assert names[-1] == "final"
    assert set(names[:-1]) == {"token"}
    final = events[-1][1]
    assert final["answer"] == "The Apollo budget is 40000 euros [N1]."
    assert final["citations"][0]["noteId"] == "notes/projects/apollo.md"
    assert final["meta"]["model"] == "gpt-4o-mini"
    assert [m["role"] for m in session["messages"]] == ["user", "assistant"]
