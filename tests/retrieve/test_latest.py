"""A question about the latest of a series of notes reads the newest member first (real
SQLite, the hash embedder, a scripted model that cites its first source)."""

from __future__ import annotations

import pytest

from notecite import Engine
from notecite.retrieve.latest import (
    asks_for_latest,
    latest_first,
    newest_member,
    read_first,
    series_of,
)
from notecite.retrieve.retriever import Candidate
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory, ScriptedLLM
from tests.helpers import stored_chunk

MONTHS = ["01", "02", "03", "04", "05", "06", "07", "08", "09", "10"]


def _sync(month: str) -> str:
    return (
        f"---\ndate: 2026-{month}-06\ntags: [meeting]\n---\n# Platform sync 2026-{month}-06\n\n"
        f"## Decisions\n- We decided to move the deploy freeze to month {int(month)}.\n"
    )


VAULT = {
    **{f"meetings/2026-{m}-06 platform sync.md": _sync(m) for m in MONTHS},
    "projects/deploys.md": "# Deploys\n\nThe platform sync decides the deploy freeze.\n",
}


@pytest.fixture
def engine(notecite_engines: EngineFactory) -> Engine:
    return notecite_engines(
        vaults={"me": VAULT}, llm=ScriptedLLM("We decided so [N1]."), ask={"auto_rag": "off"}
    )


@pytest.mark.parametrize(
    "question",
    [
        "What did we decide at the last platform sync?",
        "What did we decide at the latest platform sync?",
        "What was decided in the most recent platform sync?",
    ],
)
def test_the_newest_note_of_the_series_is_read_first(engine: Engine, question: str) -> None:
    response = engine.ask(AskRequest(question=question, debug=True))

    assert response.references[0].rel_path == "meetings/2026-10-06 platform sync.md"
    assert response.debug is not None
    kept = {c.rel_path for c in response.debug.retrieved_chunks if c.kept}
    assert kept <= {"meetings/2026-10-06 platform sync.md", "projects/deploys.md"}
    assert any("newest of its series" in note for note in response.debug.notes)


def test_a_question_that_asks_for_no_latest_is_ranked_as_before(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="What did we decide at a platform sync?", debug=True))
    assert response.debug is not None
    assert not any("newest of its series" in note for note in response.debug.notes)


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("What did we decide at the last platform sync?", "the last"),
        ("What's new in the latest release?", "latest"),
        ("Notes from our most recent retro", "most recent"),
        ("When did I last service the boiler?", "When did I last"),
        ("When was the boiler last serviced?", "When was the boiler last"),
        ("What did I do last week?", None),
        ("Show me the last few notes about it", None),
        ("What happened the last time it broke?", None),
        ("How do releases work?", None),
    ],
)
def test_asks_for_latest(question: str, phrase: str | None) -> None:
    assert asks_for_latest(question) == phrase


def test_series_of_sets_the_numbers_of_a_file_name_aside() -> None:
    assert series_of("me", "meetings/2026-05-06 platform sync.md") == (
        "me/meetings/#-#-# platform sync.md"
    )
    assert series_of("d", "changelog.release.2022-12-06.md") == "d/./changelog.release.#-#-#.md"
    assert series_of("me", "projects/deploys.md") is None


def _candidate(rowid: int, path: str) -> Candidate:
    chunk = stored_chunk(rowid, path)
    return Candidate(rowid=rowid, chunk=chunk, score_vector=0.5, score_bm25=1.0, folder_weight=1)


def test_the_newest_member_compares_numbers_in_order_not_as_text() -> None:
    found = [_candidate(1, "release 0.9.md"), _candidate(2, "release 0.10.md")]
    assert newest_member("v/./release #.#.md", found) == ("v", "release 0.10.md")
    # a series with one note found has no newest to put first
    assert newest_member("v/./release #.#.md", found[:1]) is None


def test_read_first_puts_the_newest_ahead_and_leaves_the_older_members_out() -> None:
    kept = [_candidate(1, "a 1.md"), _candidate(2, "b.md"), _candidate(3, "a 3.md")]
    newer = [_candidate(4, "a 4.md"), _candidate(5, "a 4.md"), _candidate(6, "a 4.md")]
    series = "v/./a #.md"
    assert [c.rowid for c in read_first(kept, newer, ("v", "a 3.md"), series)] == [3, 2]
    # never more than were kept, and a note of another series keeps its place after them
    assert [c.rowid for c in read_first(kept, newer, ("v", "a 4.md"), series)] == [4, 5, 2]


def test_older_members_are_left_out_when_the_newest_is_ranked_first_already() -> None:
    kept = [_candidate(3, "a 3.md"), _candidate(2, "b.md"), _candidate(1, "a 1.md")]
    ordered, newest = latest_first(kept, lambda moment: [])
    assert newest == ("v", "a 3.md")
    assert [c.rowid for c in ordered] == [3, 2]
