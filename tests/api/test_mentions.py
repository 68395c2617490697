"""/ask answers which notes mention something from the notes' text, as ask does."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from notecite.testing import write_files
from tests.api.helpers import add_and_index
from tests.ask.test_mentions import NOTES, line_of

pytestmark = pytest.mark.anyio


async def test_ask_lists_the_mentioning_notes_cited_at_their_lines(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    status = await add_and_index(client, "me", write_files(tmp_path / "me", NOTES))
    assert status["state"] == "done", status
    response = await client.post(
        "/ask", json={"question": "Where do I mention Kasia?", "debug": True}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["answer"].splitlines()[0] == '2 notes mention "Kasia":'
    assert body["debug"]["strategy"] == "mentions"
    first = body["references"][0]
    assert line_of(first["rel_path"], first["quote_line"]).startswith("Lunch with kasia")
