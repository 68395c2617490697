"""Tenant isolation: two tenants, each with its own key, tried from every route.

Tenant ``default`` holds the test vault (Apollo, Hermes, garden); tenant ``beta`` holds a
vault of the same name with other notes (Zephyr). Neither may read or change the other's
vaults, index, notes (note files, folders, search, ask, chat) or sessions. The
OpenAI-compatible routes and GraphQL are tried with two tenants in their own test modules.
Every test here runs on the SQLite and on the PostgreSQL store.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from notecite import Settings, load_settings
from notecite.api import create_app
from notecite.testing import write_files
from tests.api.helpers import BASE_URL, add_and_index, assert_error, parse_sse
from tests.chat.notes import write_notes

pytestmark = pytest.mark.anyio

BETA_NOTES = {
    "projects/zephyr.md": (
        "# Zephyr\n\n## Budget\n\nThe Zephyr budget is 12000 dollars, approved by Tomas.\n"
    ),
}
UNKNOWN_SESSION = "00000000-0000-4000-8000-000000000000"


@pytest.fixture
def tenant_settings(store_settings: dict[str, str], tmp_path: Path) -> Settings:
    """Keys of the two tenants, on the SQLite store, then on a fresh PostgreSQL database."""
    return load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        llm="extractive",
        store=store_settings,
        server={
            "api_keys": ["alpha-key"],
            "tenant_keys": {"beta": ["beta-key"]},
            "vault_roots": [tmp_path / "alpha"],
            "tenant_vault_roots": {"beta": [tmp_path / "beta"]},
        },
    )


@asynccontextmanager
async def two_clients(
    settings: Settings,
) -> AsyncIterator[tuple[httpx.AsyncClient, httpx.AsyncClient]]:
    """One started app; a client with the default tenant's key and one with beta's."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with (
            httpx.AsyncClient(
                transport=transport,
                base_url=BASE_URL,
                headers={"Authorization": "Bearer alpha-key"},
            ) as alpha,
            httpx.AsyncClient(
                transport=transport, base_url=BASE_URL, headers={"Authorization": "Bearer beta-key"}
            ) as beta,
        ):
            yield alpha, beta


def texts(body: dict[str, Any]) -> str:
    return " ".join(hit["text"] for hit in body["results"])


async def test_two_tenants_see_only_their_own_data_from_every_route(
    tenant_settings: Settings, tmp_path: Path
) -> None:
    alpha_dir = write_notes(tmp_path / "alpha")
    beta_dir = write_files(tmp_path / "beta", BETA_NOTES)
    async with two_clients(tenant_settings) as (alpha, beta):
        # vaults: the same name in both tenants, each indexing its own folder
        assert (await add_and_index(alpha, "notes", alpha_dir))["state"] == "done"
        assert (await beta.get("/vaults")).json() == {"vaults": []}
        assert (await add_and_index(beta, "notes", beta_dir))["state"] == "done"
        created = await alpha.post("/vaults", json={"name": "alpha-only", "path": str(alpha_dir)})
        assert created.status_code == 201
        listed = {v["name"]: v for v in (await alpha.get("/vaults")).json()["vaults"]}
        assert set(listed) == {"notes", "alpha-only"}
        assert listed["notes"]["notes"] == 3
        beta_vaults = (await beta.get("/vaults")).json()["vaults"]
        assert [(v["name"], v["notes"], v["path"]) for v in beta_vaults] == [
            ("notes", 1, str(beta_dir.resolve()))
        ]
        for method, path in (
            ("DELETE", "/vaults/alpha-only"),
            ("POST", "/vaults/alpha-only/index"),
            ("GET", "/vaults/alpha-only/index"),
            ("GET", "/vaults/alpha-only/folders"),
            ("GET", "/notes/alpha-only/projects/apollo.md"),
            ("GET", "/notes/notes/projects/apollo.md"),  # beta's own "notes" has no Apollo
        ):
            assert_error(await beta.request(method, path), 404, "NotFoundError")
        assert (await alpha.get("/notes/notes/projects/apollo.md")).status_code == 200
        assert (await beta.get("/notes/notes/projects/zephyr.md")).status_code == 200
        assert (await beta.get("/vaults/notes/folders")).json()["folders"] == ["projects"]
        assert (await alpha.get("/vaults/notes/folders")).json()["folders"] == ["home", "projects"]
        # reasoning templates are a library shared by every tenant, not tenant data
        shared = (await alpha.get("/templates")).json()
        assert shared == (await beta.get("/templates")).json()

        # search and ask: the other tenant's notes are never found
        found = (await beta.post("/search", json={"query": "Apollo budget euros"})).json()
        assert "Apollo" not in texts(found)
        found = (await alpha.post("/search", json={"query": "Zephyr budget dollars"})).json()
        assert "Zephyr" not in texts(found)
        assert "Zephyr" in texts(
            (await beta.post("/search", json={"query": "Zephyr budget"})).json()
        )
        for body in ({"query": "budget", "vaults": ["alpha-only"]},):
            assert_error(await beta.post("/search", json=body), 404, "NotFoundError")
        asked = (await beta.post("/ask", json={"question": "What is the Apollo budget?"})).json()
        assert "40000" not in asked["answer"]
        assert all(r["rel_path"] != "projects/apollo.md" for r in asked["references"])
        assert_error(
            await beta.post("/ask", json={"question": "budget?", "vaults": ["alpha-only"]}),
            404,
            "NotFoundError",
        )

        # chat: beta's answer cites only beta's notes; a body naming another tenant is refused
        chat = (await beta.post("/chat", json={"message": "What is the Apollo budget?"})).json()
        assert "40000" not in chat["answer"]
        assert all("apollo" not in c["noteId"] for c in chat["citations"])
        own = (await beta.post("/chat", json={"message": "What is the Zephyr budget?"})).json()
        assert [c["noteId"] for c in own["citations"]] == ["notes/projects/zephyr.md"]
        assert_error(
            await beta.post("/chat", json={"message": "hi", "tenantId": "default"}),
            403,
            "ForbiddenError",
        )
        assert_error(
            await alpha.post("/chat", json={"message": "hi", "tenantId": "beta"}),
            403,
            "ForbiddenError",
        )

        # sessions: alpha's session is unknown to beta, on every session route
        first = (await alpha.post("/chat", json={"message": "What is the Apollo budget?"})).json()
        assert "40000" in first["answer"]
        sid = first["sessionId"]
        beta_ids = {s["id"] for s in (await beta.get("/sessions")).json()["sessions"]}
        assert sid not in beta_ids
        assert len(beta_ids) == 2
        for method, path, body in (
            ("GET", f"/sessions/{sid}", None),
            ("PATCH", f"/sessions/{sid}", {"title": "taken over"}),
            ("GET", f"/sessions/{sid}/settings", None),
            ("PATCH", f"/sessions/{sid}/settings", {"rag_top_k": 2}),
            ("DELETE", f"/sessions/{sid}", None),
            ("POST", "/chat", {"message": "and then?", "sessionId": sid}),
            ("POST", "/chat", {"message": "and then?", "sessionId": sid, "stream": True}),
        ):
            response = await beta.request(method, path, json=body)
            assert_error(response, 404, "SessionNotFoundError")
        kept = (await alpha.get(f"/sessions/{sid}")).json()
        assert kept["title"] != "taken over"
        assert kept["settings"]["rag_top_k"] == 5
        assert kept["messageCount"] == 2
        assert {s["id"] for s in (await alpha.get("/sessions")).json()["sessions"]} == {sid}

        # streamed chat of beta: its final event cites beta's notes only
        streamed = await beta.post(
            "/chat", json={"message": "What is the Zephyr budget?", "stream": True}
        )
        final = parse_sse(streamed.text)[-1][1]
        assert [c["noteId"] for c in final["citations"]] == ["notes/projects/zephyr.md"]

        # removing beta's vault leaves alpha's vault of the same name indexed
        assert (await beta.delete("/vaults/notes")).status_code == 204
        assert (await beta.get("/vaults")).json() == {"vaults": []}
        again = {v["name"]: v["notes"] for v in (await alpha.get("/vaults")).json()["vaults"]}
        assert again == {"notes": 3, "alpha-only": 0}
        apollo = (await alpha.post("/search", json={"query": "Apollo budget"})).json()
        assert "40000" in texts(apollo)
