"""Vault routes: list, add, remove, background index runs and their progress."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from tests.api.helpers import assert_error, wait_for_index
from tests.chat.notes import NOTES

pytestmark = pytest.mark.anyio


async def test_an_indexed_vault_is_listed_with_its_counts(indexed: httpx.AsyncClient) -> None:
    (vault,) = (await indexed.get("/vaults")).json()["vaults"]
    assert vault["name"] == "notes"
    assert vault["notes"] == len(NOTES)
    assert vault["chunks"] >= len(NOTES)
    assert vault["failed"] == []
    indexed_at = datetime.fromisoformat(vault["indexed_at"])  # the run just done
    assert abs(datetime.now(UTC) - indexed_at) < timedelta(minutes=5)
    assert vault["indexing"] is None


async def test_an_index_run_reports_progress_and_its_report(
    client: httpx.AsyncClient, notes_dir: Path
) -> None:
    (notes_dir / "broken.md").write_bytes(b"\xff\xfe\x00binary")
    created = await client.post("/vaults", json={"name": "notes", "path": str(notes_dir)})
    assert created.json() == {
        "name": "notes",
        "path": str(notes_dir),
        "notes": 0,
        "chunks": 0,
        "failed": [],
        "indexed_at": None,
        "indexing": None,
    }
    idle = (await client.get("/vaults/notes/index")).json()
    assert (idle["state"], idle["done"], idle["report"]) == ("idle", 0, None)

    started = await client.post("/vaults/notes/index")
    assert started.status_code == 202
    assert started.json()["state"] in {"running", "done"}
    status = await wait_for_index(client, "notes")
    assert status["state"] == "done"
    # the last phase embeds chunks; notes were written (keyword-searchable) before it
    assert (status["phase"], status["notes_written"]) == ("vectors", len(NOTES))
    assert status["done"] == status["total"] == status["chunks_embedded"] > 0
    assert status["notes_per_s"] > 0
    assert status["chunks_per_s"] > 0
    assert status["eta_s"] is None
    assert status["report"]["waiting_for_vectors"] == 0
    assert status["report"]["added"] == len(NOTES)
    assert status["report"]["failed"] == 1
    assert status["report"]["failures"][0]["rel_path"] == "broken.md"
    assert status["started_at"] <= status["finished_at"]

    again = await client.post("/vaults/notes/index")
    assert again.status_code == 202
    status = await wait_for_index(client, "notes")
    assert status["report"]["unchanged"] == len(NOTES)


async def test_adding_a_taken_name_or_a_missing_folder_fails(
    indexed: httpx.AsyncClient, tmp_path: Path
) -> None:
    assert_error(
        await indexed.post("/vaults", json={"name": "notes", "path": str(tmp_path)}),
        409,
        "ConflictError",
    )
    missing = await indexed.post("/vaults", json={"name": "x", "path": str(tmp_path / "nope")})
    assert "not found" in assert_error(missing, 400, "VaultError")


async def test_a_removed_vault_is_gone_and_unknown_vaults_are_404(
    indexed: httpx.AsyncClient,
) -> None:
    assert (await indexed.delete("/vaults/notes")).status_code == 204
    assert (await indexed.get("/vaults")).json() == {"vaults": []}
    assert_error(await indexed.delete("/vaults/notes"), 404, "NotFoundError")
    assert_error(await indexed.post("/vaults/notes/index"), 404, "NotFoundError")
    assert_error(await indexed.get("/vaults/notes/index"), 404, "NotFoundError")
