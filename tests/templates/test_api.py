"""``GET /templates`` and ``POST /templates/search`` in-process (httpx ASGITransport); the
library is indexed when the app starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite import load_settings
from notecite.templates import embed_text, parse_template
from notecite.templates.library import BUNDLED_LIBRARY
from tests.api.helpers import assert_error, running
from tests.helpers import read_rows


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default template dirs resolve to the bundled library (no data/ in the cwd)."""
    monkeypatch.chdir(tmp_path)


@pytest.mark.anyio
async def test_start_up_indexes_the_library_and_get_lists_it(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path / "home", embedder={"name": "hash"}, llm="extractive")
    async with running(settings) as client:
        response = await client.get("/templates")
        assert response.status_code == 200
        templates = response.json()["templates"]
        assert len(templates) == 12
        fermi = next(t for t in templates if t["id"] == "fermi-estimation")
        assert fermi["filePath"] == str(BUNDLED_LIBRARY / "templates" / "fermi-estimation.md")
        assert fermi["domain"] == "estimation"
        assert "keywords" in fermi
        assert "content" in fermi
    # A restart re-indexes without duplicating (the templates table of the index file).
    async with running(settings) as client:
        assert len((await client.get("/templates")).json()["templates"]) == 12
    assert read_rows(settings.db_path, "SELECT COUNT(*) FROM templates") == [(12,)]


@pytest.mark.anyio
async def test_search_with_top_k_threshold_and_fallback(tmp_path: Path) -> None:
    settings = load_settings(home=tmp_path / "home", embedder={"name": "hash"}, llm="extractive")
    template = parse_template(BUNDLED_LIBRARY / "templates" / "pre-mortem.md")
    async with running(settings) as client:
        response = await client.post("/templates/search", json={"query": embed_text(template)})
        assert response.status_code == 200
        (match,) = response.json()["matches"]  # 0.65 keeps only the near-identical one
        assert set(match) == {"id", "name", "score", "description", "content"}
        assert match["id"] == "pre-mortem"
        assert match["score"] == pytest.approx(1.0, abs=1e-5)
        assert match["content"] == template.content

        off = await client.post("/templates/search", json={"query": "zzz qqq", "topK": 5})
        (fallback,) = off.json()["matches"]
        assert (fallback["id"], fallback["score"]) == ("bot-chain-of-thought", 0.5)
        assert fallback["name"] == "Chain of thought"

        assert_error(
            await client.post("/templates/search", json={"query": ""}), 422, "ValidationError"
        )
        bad_k = await client.post("/templates/search", json={"query": "x", "topK": 0})
        assert_error(bad_k, 422, "ValidationError")


@pytest.mark.anyio
async def test_template_routes_need_the_api_key_when_keys_are_set(tmp_path: Path) -> None:
    settings = load_settings(
        home=tmp_path / "home",
        embedder={"name": "hash"},
        llm="extractive",
        server={"api_keys": ["s3cret"]},
    )
    async with running(settings) as client:
        assert_error(await client.get("/templates"), 401, "UnauthorizedError")
        ok = await client.get("/templates", headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200
