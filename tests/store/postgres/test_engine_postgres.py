"""End to end: the Foam vault indexed into PostgreSQL through the Engine, then asked."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite import Engine
from notecite.schemas.ask import AskRequest
from notecite.store.postgres.store import PostgresStore
from notecite.testing import hash_settings
from notecite.types import SearchFilter
from tests.helpers import FOAM_VAULT

pytestmark = pytest.mark.postgres

FOAM_NOTES = 86
QUESTION = "How do I create a new note from a template?"


def test_foam_indexed_into_postgres_answers_like_sqlite(pg_url: str, tmp_path: Path) -> None:
    settings = hash_settings(tmp_path / "pg", store={"backend": "postgres", "url": pg_url})
    with Engine(settings) as engine, Engine(hash_settings(tmp_path / "sqlite")) as sqlite:
        assert isinstance(engine.store, PostgresStore)
        for eng in (engine, sqlite):
            eng.add_vault("foam", FOAM_VAULT)
            (report,) = eng.index()
            assert (report.added, report.failed) == (FOAM_NOTES, 0)
        (status,) = engine.status().vaults
        (expected,) = sqlite.status().vaults
        assert (status.notes, status.chunks) == (expected.notes, expected.chunks)
        assert not (tmp_path / "pg" / "notecite.db").exists()

        # vector search: the same chunks with the same cosine scores
        query = engine.embedder.embed_query(QUESTION)
        hits = {
            name: eng.store.vector_search(eng.embedder.model_id, query, SearchFilter(), 10)
            for name, eng in (("pg", engine), ("sqlite", sqlite))
        }
        places = {
            name: [
                (c.rel_path, c.chunk_index)
                for c in (
                    eng.store.fetch_chunks([h.chunk_rowid for h in hits[name]])[h.chunk_rowid]
                    for h in hits[name]
                )
            ]
            for name, eng in (("pg", engine), ("sqlite", sqlite))
        }
        assert places["pg"] == places["sqlite"]
        assert [h.score for h in hits["pg"]] == pytest.approx(
            [h.score for h in hits["sqlite"]], abs=1e-5
        )

        response = engine.ask(AskRequest(question=QUESTION))
        assert response.error is None
        assert not response.abstained
        assert response.references
        assert all((FOAM_VAULT / r.rel_path).is_file() for r in response.references)
        assert any("template" in r.rel_path for r in response.references)

        # re-indexing an unchanged vault embeds nothing and keeps every note
        (again,) = engine.index()
        assert (again.unchanged, again.added, again.chunks_embedded) == (FOAM_NOTES, 0, 0)
