"""Helpers of the API tests: a running app in-process, indexing through the API, SSE parsing."""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx

from notecite.api import create_app
from notecite.config import Settings

BASE_URL = "http://localhost"  # a loopback name: a keyless server answers no other


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """The app of ``settings``, started (lifespan) and reached through ASGITransport."""
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client:
            yield client


async def add_and_index(client: httpx.AsyncClient, name: str, path: Path) -> dict[str, Any]:
    """Register ``path`` as vault ``name``, index it through the API, return the final status."""
    created = await client.post("/vaults", json={"name": name, "path": str(path)})
    assert created.status_code == 201, created.text
    started = await client.post(f"/vaults/{name}/index")
    assert started.status_code == 202, started.text
    return await wait_for_index(client, name)


async def wait_for_index(client: httpx.AsyncClient, name: str) -> dict[str, Any]:
    """Poll the vault's index status until the run is over; return the last status."""
    with anyio.fail_after(20):
        while True:
            status = (await client.get(f"/vaults/{name}/index")).json()
            if status["state"] != "running":
                return dict(status)
            await anyio.sleep(0.02)


def index_over_http(http: httpx.Client, name: str, path: Path) -> None:
    """Register ``path`` as vault ``name`` on a served app and wait for its first index run."""
    assert http.post("/vaults", json={"name": name, "path": str(path)}).status_code == 201
    assert http.post(f"/vaults/{name}/index").status_code == 202
    deadline = time.monotonic() + 20
    while http.get(f"/vaults/{name}/index").json()["state"] == "running":
        assert time.monotonic() < deadline
        time.sleep(0.02)


def parse_sse(text: str) -> list[tuple[str, Any]]:
    """``(event, data)`` pairs of a text/event-stream body."""
    events = []
    for block in re.split(r"\r?\n\r?\n", text.strip()):
        name, data = "message", []
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].strip())
        if data:
            events.append((name, json.loads("\n".join(data))))
    return events


def assert_error(response: httpx.Response, status: int, type_: str) -> str:
    """The response has ``status`` and the body ``{"error": {"type", "message"}}``."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"type", "message"}
    assert body["error"]["type"] == type_
    return str(body["error"]["message"])
