"""Fixtures of the API tests: settings in a temporary home, the test vault, a started app."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from notecite import Settings
from notecite.testing import hash_settings
from tests.api.helpers import add_and_index, running
from tests.chat.notes import write_notes


@pytest.fixture
def anyio_backend() -> str:
    """The API tests run on asyncio (the loop uvicorn uses)."""
    return "asyncio"


@pytest.fixture
def api_settings(tmp_path: Path) -> Settings:
    """The hash embedder and the extractive LLM, in a fresh home."""
    return hash_settings(tmp_path / "home")


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_settings(request: pytest.FixtureRequest) -> dict[str, str]:
    """``store`` settings of a test that runs on both stores: SQLite (the default), then a
    fresh PostgreSQL database of the session's server."""
    if request.param == "postgres":
        return {"backend": "postgres", "url": request.getfixturevalue("pg_url")}
    return {}


@pytest.fixture
def notes_dir(tmp_path: Path) -> Path:
    """The test vault, written to disk."""
    return write_notes(tmp_path / "notes")


@pytest.fixture
async def client(api_settings: Settings) -> AsyncIterator[httpx.AsyncClient]:
    """A started app with no vault yet."""
    async with running(api_settings) as started:
        yield started


@pytest.fixture
async def indexed(client: httpx.AsyncClient, notes_dir: Path) -> httpx.AsyncClient:
    """A started app with the test vault added as ``notes`` and indexed through the API."""
    status = await add_and_index(client, "notes", notes_dir)
    assert status["state"] == "done", status
    return client
