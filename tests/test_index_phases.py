"""A first index is searchable by keyword before its vectors exist, on both stores.

A run stopped between its two phases (every note written, no vector yet) leaves notes that
keyword search and ask find at once; ``status`` counts them as waiting for vectors, and the
retrieval strategy and debug view say that they are found by keyword only. The next run
embeds what waits and nothing else.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from notecite import Engine
from notecite.config import Settings
from notecite.ingest.progress import IndexProgress
from notecite.retrieve.stage import PARTIAL_VECTORS
from notecite.schemas.ask import AskRequest, DebugInfo
from notecite.testing import hash_settings, write_files

NOTES = {
    "garden.md": "# Garden\n\nThe tomatoes go in the south bed in May.\n",
    "trips/lisbon.md": "# Lisbon\n\nThe flight to Lisbon leaves on Thursday at 9.\n",
    "house/boiler.md": "# Boiler\n\nThe plumber services the boiler every October.\n",
}


def _stop_before_vectors(engine: Engine) -> None:
    stop = threading.Event()

    def progress(report: IndexProgress) -> None:
        if report.phase == "vectors":
            stop.set()

    (report,) = engine.index("notes", progress=progress, stop=stop)
    assert report.interrupted
    assert (report.added, report.chunks_embedded) == (len(NOTES), 0)
    assert report.waiting_for_vectors == len(NOTES)


def _check(settings: Settings, notes_dir: Path) -> None:
    write_files(notes_dir, NOTES)
    with Engine(settings) as engine:
        engine.add_vault("notes", notes_dir)
        _stop_before_vectors(engine)

        (status,) = engine.status().vaults
        assert (status.notes, status.waiting_for_vectors) == (len(NOTES), len(NOTES))
        hits = engine.search("plumber boiler")
        assert hits[0].rel_path == "house/boiler.md"
        debug = DebugInfo()
        found = engine.retrieve(
            AskRequest(question="When does the Lisbon flight leave?"), debug=debug
        )
        assert found.strategy.endswith(PARTIAL_VECTORS)
        assert debug.strategy == found.strategy
        assert any("3 notes still wait for their vectors" in n for n in debug.notes)
        assert "trips/lisbon.md" in [c.chunk.rel_path for c in found.kept]

        (report,) = engine.index("notes")
        assert not report.interrupted
        assert (report.added, report.unchanged, report.waiting_for_vectors) == (0, 3, 0)
        assert report.chunks_embedded == status.chunks
        (status,) = engine.status().vaults
        assert status.waiting_for_vectors == 0
        found = engine.retrieve(AskRequest(question="When does the Lisbon flight leave?"))
        assert not found.strategy.endswith(PARTIAL_VECTORS)
        (again,) = engine.index("notes")
        assert (again.unchanged, again.chunks_embedded) == (len(NOTES), 0)


def test_sqlite_notes_are_found_by_keyword_before_their_vectors(tmp_path: Path) -> None:
    _check(hash_settings(tmp_path / "home"), tmp_path / "notes")


@pytest.mark.postgres
def test_postgres_notes_are_found_by_keyword_before_their_vectors(
    pg_url: str, tmp_path: Path
) -> None:
    settings = hash_settings(tmp_path / "home", store={"backend": "postgres", "url": pg_url})
    _check(settings, tmp_path / "notes")
