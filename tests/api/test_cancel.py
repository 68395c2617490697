"""A client that goes away mid-answer stops the model within a second, and the turn is
stored as cancelled with what was written (real sockets: notecite, and a slow model server)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from notecite.api import create_app
from notecite.config import load_settings
from notecite.generate.base import GenerationRequest
from notecite.testing import ProviderServer, ScriptedLLM
from tests.api.helpers import index_over_http
from tests.api.test_socket import iter_events, serving

WORDS = 400
PIECE_S = 0.02  # the model writes a word every 20 ms: 16 s for the whole answer


class SlowModel:
    """The scripted model behind the provider server, noting when it wrote each piece and
    when its stream was closed."""

    def __init__(self) -> None:
        self.inner = ScriptedLLM(
            "The Apollo budget is 40000 euros [N1]. " + "and more " * WORDS, delay_s=PIECE_S
        )
        self.written: list[float] = []
        self.closed = threading.Event()
        self.closed_at = 0.0

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    def generate(self, request: GenerationRequest) -> str:
        return self.inner.generate(request)

    def stream(self, request: GenerationRequest) -> Iterator[str]:
        try:
            for piece in self.inner.stream(request):
                self.written.append(time.monotonic())
                yield piece
        finally:
            self.closed_at = time.monotonic()
            self.closed.set()


def test_a_client_that_goes_away_stops_the_model_within_a_second(
    tmp_path: Path, notes_dir: Path, store_options: dict[str, str]
) -> None:
    model = SlowModel()
    with ProviderServer(model) as provider:
        settings = load_settings(
            home=tmp_path / "home",
            embedder={"name": "hash"},
            llm="openai",
            store=store_options,
            generation={"base_url": provider.url + "/v1", "retries": 0, "timeout_s": 20},
        )
        with (
            serving(create_app(settings)) as base_url,
            httpx.Client(base_url=base_url, timeout=20) as http,
        ):
            index_over_http(http, "notes", notes_dir)
            sid = http.post("/sessions", json={}).json()["id"]

            body = {"message": "What is the Apollo budget?", "sessionId": sid, "stream": True}
            tokens = 0
            with http.stream("POST", "/chat", json=body) as response:
                for name, _ in iter_events(response.iter_lines()):
                    tokens += name == "token"
                    if tokens == 5:
                        break
                left_at = time.monotonic()  # closing the response drops the connection
            assert model.closed.wait(5), "the model was never stopped"
            stopped_after = model.closed_at - left_at
            print(f"model stopped {stopped_after * 1000:.0f} ms after the client left")
            assert stopped_after < 1.0, f"the model wrote on for {stopped_after:.2f} s"
            assert len(model.written) < WORDS / 2

            deadline = time.monotonic() + 5
            while len(messages := http.get(f"/sessions/{sid}").json()["messages"]) < 2:
                assert time.monotonic() < deadline, "the cancelled turn was not stored"
                time.sleep(0.05)
    user, answer = messages
    assert user["content"] == "What is the Apollo budget?"
    assert answer["meta"]["cancelled"] is True
    assert answer["error"] is None
    assert answer["content"].startswith("The Apollo")
    assert len(answer["content"].split()) < WORDS
