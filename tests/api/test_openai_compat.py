"""The OpenAI-compatible routes, driven by the official ``openai`` client against a real
uvicorn server on 127.0.0.1 (and in-process for the error cases)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from notecite import Settings, load_settings
from notecite.api import create_app
from notecite.testing import HANG, ProviderServer, write_files
from tests.api.helpers import add_and_index, assert_error, index_over_http, running
from tests.api.test_chat import scripted_settings
from tests.api.test_socket import serving

BETA_NOTES = {"zephyr.md": "# Zephyr\n\n## Budget\n\nThe Zephyr budget is 12000 dollars.\n"}


@pytest.fixture
def keyed_settings(tmp_path: Path) -> Settings:
    return load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        llm="extractive",
        server={
            "api_keys": ["alpha-key"],
            "tenant_keys": {"beta": ["beta-key"]},
            "vault_roots": [tmp_path / "notes"],
            "tenant_vault_roots": {"beta": [tmp_path / "beta"]},
        },
    )


@pytest.fixture
def server(keyed_settings: Settings, notes_dir: Path, tmp_path: Path) -> Iterator[str]:
    """A real server with the test vault for the default tenant and Zephyr for beta."""
    with serving(create_app(keyed_settings)) as base_url:
        with httpx.Client(
            base_url=base_url, headers={"Authorization": "Bearer alpha-key"}, timeout=20
        ) as alpha:
            index_over_http(alpha, "notes", notes_dir)
        with httpx.Client(
            base_url=base_url, headers={"Authorization": "Bearer beta-key"}, timeout=20
        ) as beta:
            index_over_http(beta, "notes", write_files(tmp_path / "beta", BETA_NOTES))
        yield base_url


def sdk(base_url: str, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url + "/v1", api_key=key, max_retries=0, timeout=20)


def test_the_openai_client_gets_a_cited_answer(server: str) -> None:
    with sdk(server, "alpha-key") as ai:
        models = [m.id for m in ai.models.list()]
        assert models[0] == "notecite"
        assert "notecite:extractive" in models

        completion = ai.chat.completions.create(
            model="notecite",
            messages=[
                {"role": "system", "content": "Answer briefly."},
                {"role": "user", "content": "What is the Apollo budget?"},
            ],
        )
        message = completion.choices[0].message
        assert completion.object == "chat.completion"
        assert completion.choices[0].finish_reason == "stop"
        assert message.role == "assistant"
        assert message.content is not None
        answer, _, sources = message.content.partition("\n\n---\n**Sources:**\n")
        assert "40000" in answer
        assert "[N1]" in answer
        # the sources list names each source as the text cites it, with its section
        assert (
            sources.splitlines()[0] == "- [N1] notes/projects/apollo.md \u203a Apollo \u203a Budget"
        )
        usage = completion.usage
        assert usage is not None
        assert usage.prompt_tokens > 20  # the question, the rules and the context it read
        assert 0 < usage.completion_tokens < usage.prompt_tokens
        assert usage.total_tokens == usage.prompt_tokens + usage.completion_tokens
        extra = message.model_extra or {}
        assert extra["citations"][0]["cid"] == "N1"
        assert extra["citations"][0]["noteId"] == "notes/projects/apollo.md"
        assert (completion.model_extra or {})["citations"] == extra["citations"]

        with httpx.Client(base_url=server, headers={"Authorization": "Bearer alpha-key"}) as h:
            assert h.get("/sessions").json()["sessions"] == []  # the turn's session is gone


def test_the_openai_client_streams_chunks_then_citations(server: str) -> None:
    with sdk(server, "alpha-key") as ai:
        stream = ai.chat.completions.create(
            model="notecite:extractive",
            messages=[
                {"role": "user", "content": "Where is the Apollo launch?"},
                {"role": "assistant", "content": "At the Lisbon office [N1]."},
                {
                    "role": "user",
                    "content": [{"type": "text", "text": "What is the Apollo budget?"}],
                },
            ],
            stream=True,
        )
        chunks = list(stream)
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert len({c.id for c in chunks}) == 1
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert "40000" in text
    assert "- [N1] notes/projects/apollo.md \u203a Apollo \u203a Budget" in text
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop"
    assert last.usage is not None
    assert last.usage.completion_tokens > 0
    extra = last.model_extra or {}
    assert extra["citations"][0]["noteId"] == "notes/projects/apollo.md"
    assert extra["notecite"]["answer"] in text
    assert all(c.choices[0].finish_reason is None for c in chunks[:-1])


def test_keys_and_tenants_apply_to_the_openai_routes(server: str) -> None:
    with sdk(server, "wrong-key") as ai, pytest.raises(openai.AuthenticationError):
        ai.models.list()
    with sdk(server, "beta-key") as ai:
        completion = ai.chat.completions.create(
            model="notecite", messages=[{"role": "user", "content": "What is the Apollo budget?"}]
        )
        content = completion.choices[0].message.content or ""
        assert "40000" not in content
        _, _, sources = content.partition("**Sources:**")
        assert "apollo" not in sources.lower()  # no note of the other tenant is cited
        assert "don't mention" in content  # beta's notes say nothing of Apollo, and it says so
        zephyr = ai.chat.completions.create(
            model="notecite", messages=[{"role": "user", "content": "What is the Zephyr budget?"}]
        )
        assert "12000" in (zephyr.choices[0].message.content or "")
        with pytest.raises(openai.NotFoundError):
            ai.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}])


@pytest.mark.anyio
async def test_bad_completions_are_json_errors(client: httpx.AsyncClient) -> None:
    post = client.post
    assert_error(
        await post("/v1/chat/completions", json={"model": "notecite", "messages": []}),
        422,
        "ValidationError",
    )
    only_system = {"model": "notecite", "messages": [{"role": "system", "content": "hi"}]}
    assert_error(await post("/v1/chat/completions", json=only_system), 422, "InvalidRequestError")
    long = {"model": "notecite", "messages": [{"role": "user", "content": "x" * 2001}]}
    assert_error(await post("/v1/chat/completions", json=long), 422, "InvalidRequestError")
    scoped = {
        "model": "notecite",
        "messages": [{"role": "user", "content": "hi"}],
        "vaults": ["nope"],
    }
    assert_error(await post("/v1/chat/completions", json=scoped), 404, "NotFoundError")
    bad_json = await post(
        "/v1/chat/completions", content=b"{", headers={"Content-Type": "application/json"}
    )
    assert_error(bad_json, 422, "ValidationError")


@pytest.mark.anyio
async def test_an_llm_timeout_is_a_504_with_the_sources(tmp_path: Path, notes_dir: Path) -> None:
    question = {"model": "notecite", "messages": [{"role": "user", "content": "Apollo budget?"}]}
    with ProviderServer() as server:
        server.fail("chat", HANG)
        async with running(scripted_settings(tmp_path / "home", server)) as client:
            await add_and_index(client, "notes", notes_dir)
            response = await client.post("/v1/chat/completions", json=question)
            streamed = await client.post("/v1/chat/completions", json={**question, "stream": True})
            assert (await client.get("/sessions")).json()["sessions"] == []
    assert response.status_code == 504
    assert response.json()["error"]["type"] == "LLMTimeoutError"
    assert response.json()["citations"][0]["noteId"] == "notes/projects/apollo.md"
    events = [line[6:] for line in streamed.text.splitlines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    failed = json.loads(events[-2])
    assert failed["error"]["type"] == "LLMTimeoutError"
    assert failed["citations"]
