"""/ask answers which notes link to a note from the recorded links, as ask does."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from notecite.testing import write_files
from tests.api.helpers import add_and_index
from tests.ask.test_backlinks import NOTES, line_of

pytestmark = pytest.mark.anyio


async def test_ask_lists_the_linking_notes_cited_at_their_links(
    client: httpx.AsyncClient, tmp_path: Path
) -> None:
    status = await add_and_index(client, "me", write_files(tmp_path / "me", NOTES))
    assert status["state"] == "done", status
    response = await client.post(
        "/ask", json={"question": "What links to [[pg16-upgrade]]?", "debug": True}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["answer"].splitlines()[0] == "3 notes link to PG16 upgrade:"
    assert body["debug"]["strategy"] == "backlinks"
    first = body["references"][0]
    assert line_of(first["rel_path"], first["quote_line"]).startswith("Rollback drill")
