"""Frontmatter filters over HTTP: /search, /ask, /chat and session settings, /v1, GraphQL,
and the values a vault's notes hold (the scope panel's pickers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from notecite import Settings
from notecite.testing import hash_settings, write_files
from tests.api.helpers import add_and_index, assert_error, running

pytestmark = pytest.mark.anyio

NOTES = {
    "meetings/atlas-kickoff.md": (
        "---\ntype: meeting\ntags: [atlas, launch]\nstatus: final\ncreated: 2024-09-16\n---\n"
        "# Atlas kickoff\n\nThe Atlas budget is 240000 dollars, approved at the kickoff.\n"
    ),
    "projects/atlas.md": (
        "---\ntype: project\ntags: [projects/atlas]\nstatus: draft\ncreated: 2024-08-01\n---\n"
        "# Atlas\n\nThe Atlas budget draft says 200000 dollars for the first year.\n"
    ),
    "projects/beacon.md": (
        "---\ntype: project\ntags: [projects/beacon]\n---\n"
        "# Beacon\n\nThe Beacon budget is 50000 dollars for the pilot.\n"
    ),
}


@pytest.fixture
async def vault(tmp_path: Path) -> Any:
    settings: Settings = hash_settings(tmp_path / "home")
    async with running(settings) as client:
        status = await add_and_index(client, "notes", write_files(tmp_path / "notes", NOTES))
        assert status["state"] == "done", status
        yield client


def paths(body: dict[str, Any]) -> set[str]:
    return {r["rel_path"] for r in body["results"]}


async def test_search_filters_by_frontmatter(vault: httpx.AsyncClient) -> None:
    async def search(**body: Any) -> set[str]:
        response = await vault.post("/search", json={"query": "budget dollars", **body})
        assert response.status_code == 200, response.text
        return paths(response.json())

    everything = await search()
    assert everything == set(NOTES)
    assert await search(filters=["type=project"]) == {"projects/atlas.md", "projects/beacon.md"}
    assert await search(filters=["tags^=projects/", "status!=draft"]) == {"projects/beacon.md"}
    assert await search(filters=["created>=2024-09-01"]) == {"meetings/atlas-kickoff.md"}
    assert await search(filters=["persona=pirate"]) == set()
    inline = await vault.post("/search", json={"query": "budget #atlas"})
    assert paths(inline.json()) == {"meetings/atlas-kickoff.md"}
    # no note carries #pilot (nor a tag under it): the word is searched, nothing filtered
    words = await vault.post("/search", json={"query": "budget #pilot"})
    assert "projects/beacon.md" in paths(words.json())


async def test_a_bad_filter_is_a_400_that_says_what_is_wrong(vault: httpx.AsyncClient) -> None:
    for route, body in (
        ("/search", {"query": "budget", "filters": ["tags in [atlas"]}),
        ("/ask", {"question": "What is the budget?", "filters": ["tags in [atlas"]}),
        ("/chat", {"message": "What is the budget?", "filters": ["tags in [atlas"]}),
    ):
        message = assert_error(await vault.post(route, json=body), 400, "FilterError")
        assert "expected ',' or ']'" in message


async def test_ask_under_filters_and_when_they_leave_nothing(vault: httpx.AsyncClient) -> None:
    response = await vault.post(
        "/ask",
        json={"question": "What is the Atlas budget? type:meeting", "filters": [], "debug": True},
    )
    body = response.json()
    assert body["references"][0]["rel_path"] == "meetings/atlas-kickoff.md", body
    assert body["debug"]["filters"] == ["type:meeting"]
    assert body["debug"]["searched_question"] == "What is the Atlas budget?"
    assert {c["rel_path"] for c in body["debug"]["retrieved_chunks"]} == {
        "meetings/atlas-kickoff.md"
    }

    empty = await vault.post(
        "/ask", json={"question": "What is the budget?", "filters": ["tags=nothing"]}
    )
    body = empty.json()
    assert body["abstained"] is True
    assert body["abstain_reason"] == "no_matching_notes"
    assert "No note matches the filters tags=nothing" in body["answer"]
    assert body["references"] == []


async def test_chat_filters_per_message_and_per_session(vault: httpx.AsyncClient) -> None:
    first = await vault.post(
        "/chat", json={"message": "What is the Beacon budget?", "filters": ["tags=nothing"]}
    )
    reply = first.json()
    assert reply["meta"]["abstainReason"] == "no_matching_notes", reply
    assert "No note matches the filters tags=nothing" in reply["answer"]
    sid = reply["sessionId"]
    bad = await vault.patch(f"/sessions/{sid}/settings", json={"filters": ["has:"]})
    assert "expected a frontmatter key" in assert_error(bad, 422, "ValidationError")
    patched = await vault.patch(f"/sessions/{sid}/settings", json={"filters": ["type=project"]})
    assert patched.json()["filters"] == ["type=project"]
    second = await vault.post(
        "/chat", json={"message": "What is the budget?", "sessionId": sid, "debug": True}
    )
    reply = second.json()
    assert reply["debug"]["filters"] == ["type=project"]
    assert {c["noteId"] for c in reply["citations"]} <= {
        "notes/projects/atlas.md",
        "notes/projects/beacon.md",
    }
    assert reply["citations"]
    both = await vault.post(
        "/chat",
        json={"message": "budget?", "sessionId": sid, "filters": ["status=draft"], "debug": True},
    )
    assert both.json()["debug"]["filters"] == ["type=project", "status=draft"]


async def test_openai_extra_body_and_graphql_carry_filters(vault: httpx.AsyncClient) -> None:
    completion = await vault.post(
        "/v1/chat/completions",
        json={
            "model": "notecite",
            "messages": [{"role": "user", "content": "What is the Atlas budget?"}],
            "filters": ["tags=launch"],
        },
    )
    assert completion.status_code == 200, completion.text
    cited = {c["noteId"] for c in completion.json()["citations"]}
    assert cited == {"notes/meetings/atlas-kickoff.md"}

    sent = await vault.post(
        "/graphql",
        json={
            "query": 'mutation { sendMessage(message: "What is the budget?", '
            'filters: ["tags^=projects/beacon"]) { citations { noteId } } }'
        },
    )
    citations = sent.json()["data"]["sendMessage"]["citations"]
    assert {c["noteId"] for c in citations} == {"notes/projects/beacon.md"}


async def test_the_vault_lists_its_tags_and_types(vault: httpx.AsyncClient) -> None:
    response = await vault.get("/vaults/notes/frontmatter")
    assert response.status_code == 200, response.text
    values = response.json()["values"]
    assert values["type"] == {"project": 2, "meeting": 1}
    assert values["tags"] == {"atlas": 1, "launch": 1, "projects/atlas": 1, "projects/beacon": 1}
    status = await vault.get("/vaults/notes/frontmatter", params={"keys": "Status, persona"})
    assert status.json()["values"] == {"status": {"draft": 1, "final": 1}, "persona": {}}
    assert_error(await vault.get("/vaults/nope/frontmatter"), 404, "NotFoundError")
