"""The OpenAI-compatible provider against a real llama.cpp server on 127.0.0.1 (SmolLM2-135M).

The model is tiny, so its answers are weak; the tests hold it to the contract only: text comes
back, the stream adds up to the answer, and an ask returns references and no invalid citation.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import xllamacpp

from notecite import Engine, load_settings
from notecite.config import GenerationSettings
from notecite.generate.base import ChatMessage, ContextSource, GenerationRequest
from notecite.generate.citations import validate_citations
from notecite.generate.local_model import smollm2_path
from notecite.generate.openai_compat import OpenAICompatLLM
from notecite.schemas.ask import AskRequest
from tests.ask.notes import build_vaults

pytestmark = pytest.mark.slow

REQUEST = GenerationRequest(
    messages=(
        ChatMessage("system", "You answer in one short sentence."),
        ChatMessage("user", "Name a colour of the sky."),
    ),
    temperature=0.0,
    max_tokens=12,
)


@pytest.fixture(scope="module")
def llama_url() -> Iterator[str]:
    """A llama.cpp server with SmolLM2 on a free loopback port; its OpenAI base URL."""
    params = xllamacpp.CommonParams()
    params.model.path = str(smollm2_path())
    params.n_ctx = 2048
    params.cpuparams.n_threads = 2
    params.cpuparams_batch.n_threads = 2
    params.port = 0  # the server picks a free port and reports it
    params.hostnames = ["127.0.0.1"]
    params.verbosity = 0
    server = xllamacpp.Server(params)
    url = server.listening_address + "/v1"
    assert url.startswith("http://127.0.0.1:")
    yield url
    del server
    gc.collect()


@pytest.fixture
def llm(llama_url: str) -> Iterator[OpenAICompatLLM]:
    provider = OpenAICompatLLM(
        GenerationSettings(base_url=llama_url, model="smollm2", timeout_s=120, retries=0)
    )
    yield provider
    provider.close()


def test_generate_returns_text_and_the_stream_adds_up_to_it(llm: OpenAICompatLLM) -> None:
    text = llm.generate(REQUEST)
    assert isinstance(text, str)
    assert text.strip()
    pieces = list(llm.stream(REQUEST))
    assert len(pieces) > 1
    assert all(isinstance(p, str) and p for p in pieces)
    assert "".join(pieces) == text  # greedy decoding is deterministic


def test_an_ask_through_llama_cpp_keeps_the_contract(llama_url: str, tmp_path: Path) -> None:
    settings = load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        llm="openai",
        generation={
            "base_url": llama_url,
            "model": "smollm2",
            "max_tokens": 16,
            "temperature": 0.0,
            "timeout_s": 120,
        },
        ask={"folder_ranking": False},
    )
    pieces: list[str] = []
    with Engine(settings) as engine:
        build_vaults(engine, tmp_path)
        llm = engine.llm()
        assert isinstance(llm, OpenAICompatLLM)
        request = AskRequest(
            question="When is the Apollo launch scheduled?",
            folders=["v1/projects/work"],
            k=3,
            debug=True,
        )
        try:
            response = engine.ask(request, on_token=pieces.append)
        finally:
            llm.close()  # Engine.close does not close LLM clients

    assert response.error is None
    assert response.debug is not None
    assert response.debug.llm == "openai"
    assert response.references
    kept = [c for c in response.debug.retrieved_chunks if c.kept]
    assert 0 < len(kept) <= 3
    assert all(c.rel_path.startswith("projects/work/") for c in kept)
    # what streamed is the raw answer; the response is it after citation checks
    raw = "".join(pieces)
    sources = [
        ContextSource(f"N{i}", c.vault, c.rel_path, c.heading_path, c.text)
        for i, c in enumerate(kept, start=1)
    ]
    validated = validate_citations(raw, sources, "numbered")
    assert response.debug.invalid_citations == list(validated.invalid)
    cited_ids = {int(n) for n in re.findall(r"\[N(\d+)\]", response.answer)}
    assert cited_ids <= set(range(1, len(kept) + 1))  # no invalid citation survives
    # every claim is checked against a line of the notes: what stands is what a line supports
    supported = [c for c in response.debug.claims if c.status in ("supported", "recited")]
    if supported:
        assert not response.abstained
        assert {r.cid for r in response.references} == {f"N{n}" for n in cited_ids}
        assert all(c.quote for c in supported)
    else:
        assert response.abstain_reason == "insufficient_information"
        assert len(response.references) == len(kept)
