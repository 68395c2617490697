"""Session routes: create, list, get with messages, rename, delete, settings; restarts."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from notecite import Settings
from notecite.config import AskSettings
from tests.api.helpers import add_and_index, assert_error, running

pytestmark = pytest.mark.anyio

DEFAULTS = {
    "enable_rag": True,
    "rag_top_k": 5,
    "rag_threshold": AskSettings().final_threshold,  # the calibrated threshold of /ask
    "include_citations": True,
    "model": None,
    "system_prompt": None,
    "filters": [],
}


async def create(client: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    response = await client.post("/sessions", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


async def test_a_session_is_created_listed_renamed_and_deleted(client: httpx.AsyncClient) -> None:
    session = await create(client, title="Apollo planning")
    assert set(session) == {"id", "title", "settings", "createdAt", "updatedAt", "messageCount"}
    assert session["settings"] == DEFAULTS
    assert session["messageCount"] == 0
    untitled = await create(client)
    assert untitled["title"] == "New chat"

    listed = (await client.get("/sessions")).json()["sessions"]
    assert {s["id"] for s in listed} == {session["id"], untitled["id"]}
    assert len((await client.get("/sessions", params={"limit": 1})).json()["sessions"]) == 1

    renamed = await client.patch(f"/sessions/{session['id']}", json={"title": "Apollo launch"})
    assert renamed.status_code == 200
    assert renamed.json()["title"] == "Apollo launch"
    assert_error(
        await client.patch(f"/sessions/{session['id']}", json={"title": "   "}),
        422,
        "InvalidRequestError",
    )

    assert (await client.delete(f"/sessions/{session['id']}")).status_code == 204
    assert_error(await client.get(f"/sessions/{session['id']}"), 404, "SessionNotFoundError")
    assert [s["id"] for s in (await client.get("/sessions")).json()["sessions"]] == [untitled["id"]]


async def test_settings_round_trip_and_reset(client: httpx.AsyncClient) -> None:
    session = await create(client, settings={"rag_top_k": 3, "model": "extractive"})
    url = f"/sessions/{session['id']}/settings"
    assert (await client.get(url)).json() == {**DEFAULTS, "rag_top_k": 3, "model": "extractive"}

    wanted = {
        "enable_rag": False,
        "rag_top_k": 10,
        "rag_threshold": 0.55,
        "include_citations": False,
        "system_prompt": "Answer like a ship's log.",
    }
    patched = await client.patch(url, json=wanted)
    assert patched.status_code == 200, patched.text
    expected = {**DEFAULTS, **wanted, "model": "extractive"}
    assert patched.json() == expected
    assert (await client.get(url)).json() == expected
    assert (await client.get(f"/sessions/{session['id']}")).json()["settings"] == expected

    reset = await client.patch(url, json={"rag_top_k": None, "system_prompt": None})
    assert reset.json()["rag_top_k"] == 5
    assert reset.json()["system_prompt"] is None
    assert reset.json()["enable_rag"] is False


@pytest.mark.parametrize(
    "patch",
    [
        {"rag_top_k": 0},
        {"rag_top_k": 11},
        {"rag_threshold": 1.5},
        {"enable_rag": "sometimes"},
        {"temperature": 2},
        {"model": "no-such-provider"},
    ],
)
async def test_invalid_settings_are_a_422(client: httpx.AsyncClient, patch: dict[str, Any]) -> None:
    session = await create(client)
    response = await client.patch(f"/sessions/{session['id']}/settings", json=patch)
    assert response.status_code == 422
    assert set(response.json()["error"]) == {"type", "message"}


async def test_every_session_route_is_a_404_for_an_unknown_id(client: httpx.AsyncClient) -> None:
    unknown = "00000000-0000-4000-8000-000000000000"
    for method, url, body in [
        ("GET", f"/sessions/{unknown}", None),
        ("PATCH", f"/sessions/{unknown}", {"title": "x"}),
        ("DELETE", f"/sessions/{unknown}", None),
        ("GET", f"/sessions/{unknown}/settings", None),
        ("PATCH", f"/sessions/{unknown}/settings", {"rag_top_k": 2}),
    ]:
        response = await client.request(method, url, json=body)
        message = assert_error(response, 404, "SessionNotFoundError")
        assert unknown in message


async def test_sessions_and_messages_survive_a_restart(
    api_settings: Settings, notes_dir: Any
) -> None:
    async with running(api_settings) as client:
        await add_and_index(client, "notes", notes_dir)
        first = (await client.post("/chat", json={"message": "What is the Apollo budget?"})).json()
        await client.patch(f"/sessions/{first['sessionId']}/settings", json={"rag_top_k": 2})
    async with running(api_settings) as client:
        detail = (await client.get(f"/sessions/{first['sessionId']}")).json()
        assert detail["settings"]["rag_top_k"] == 2
        assert [m["role"] for m in detail["messages"]] == ["user", "assistant"]
        assert detail["messages"][1]["citations"] == first["citations"]
        follow_up = await client.post(
            "/chat", json={"message": "And who approved it?", "sessionId": first["sessionId"]}
        )
        assert follow_up.status_code == 200
        assert follow_up.json()["meta"]["query"].startswith("What is the Apollo budget?")
        assert (await client.get(f"/sessions/{first['sessionId']}")).json()["messageCount"] == 4


async def test_an_edited_question_replaces_its_turn_and_every_later_one(
    api_settings: Settings, notes_dir: Any
) -> None:
    async with running(api_settings) as client:
        await add_and_index(client, "notes", notes_dir)
        first = (await client.post("/chat", json={"message": "What is the Apollo budget?"})).json()
        sid = first["sessionId"]
        for message in ("When is the Apollo launch?", "Where do the tomatoes grow?"):
            await client.post("/chat", json={"message": message, "sessionId": sid})
        other = (await client.post("/chat", json={"message": "Hello?"})).json()["sessionId"]
        messages = (await client.get(f"/sessions/{sid}")).json()["messages"]
        edited = messages[2]
        assert edited["content"] == "When is the Apollo launch?"

        foreign = (await client.get(f"/sessions/{other}")).json()["messages"][0]["id"]
        url = f"/sessions/{sid}/messages"
        refused = await client.delete(url, params={"from": foreign})
        assert_error(refused, 404, "SessionNotFoundError")
        unknown = "00000000-0000-4000-8000-000000000000"
        message = assert_error(
            await client.delete(f"/sessions/{unknown}/messages", params={"from": edited["id"]}),
            404,
            "SessionNotFoundError",
        )
        assert unknown in message
        assert (await client.delete(url)).status_code == 422  # which message: required
        assert (await client.delete(url, params={"from": 0})).status_code == 422

        left = await client.delete(url, params={"from": edited["id"]})
        assert left.status_code == 200, left.text
        assert left.json()["messageCount"] == 2
        assert [m["content"] for m in left.json()["messages"]] == [
            m["content"] for m in messages[:2]
        ]
        again = await client.post(
            "/chat", json={"message": "What blocks the Hermes migration?", "sessionId": sid}
        )
        assert again.status_code == 200
        stored = (await client.get(f"/sessions/{sid}")).json()["messages"]
        assert [m["content"] for m in stored if m["role"] == "user"] == [
            "What is the Apollo budget?",
            "What blocks the Hermes migration?",
        ]
