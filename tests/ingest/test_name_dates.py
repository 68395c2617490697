"""A note's date from its file name: daily notes and dated notes with no date in their
frontmatter, in a vault whose files were all copied today."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from notecite import Engine
from notecite.ingest.name_dates import date_in_name
from notecite.ingest.parse import parse_file
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory

COPIED = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("rel_path", "day"),
    [
        ("daily/2026-01-22.md", (2026, 1, 22)),  # Obsidian's daily notes
        ("journals/2026_01_22.md", (2026, 1, 22)),  # Logseq
        ("daily.journal.2026.01.22.md", (2026, 1, 22)),  # Dendron
        ("meetings/2026-03-04 platform sync.md", (2026, 3, 4)),
        ("Standup 2025-12-31.txt", (2025, 12, 31)),
        ("zettel/202601221030 An idea.md", (2026, 1, 22)),  # a Zettelkasten id
        ("20260122.md", (2026, 1, 22)),
        ("journal/2026/01/22.md", (2026, 1, 22)),
        ("journal/2026/2026-01/22 Thursday.md", (2026, 1, 22)),
        ("2026-02-31 not a day, 2026-03-01 is.md", (2026, 3, 1)),
    ],
)
def test_a_date_the_name_gives(rel_path: str, day: tuple[int, int, int]) -> None:
    assert date_in_name(rel_path) == datetime(*day, tzinfo=UTC)


@pytest.mark.parametrize(
    "rel_path",
    [
        "notes/postgres.md",
        "2026-13-01.md",  # no month 13
        "release-12026-01-22.md",  # part of a longer number
        "2026-01-22/notes.md",  # a folder named by a day holds notes of any day
        "invoice 20261399.md",
        "ticket-1234567890123.md",
        "v2026.1.2.md",  # a version, not a day
        "2026-01_22.md",  # two separators
        "1850-01-01.md",
    ],
)
def test_names_that_give_no_date(rel_path: str) -> None:
    assert date_in_name(rel_path) is None


def test_the_frontmatter_date_comes_first_then_the_name_then_the_file_time() -> None:
    fm = parse_file("daily/2026-01-22.md", b"---\ndate: 2026-01-20\n---\nText.\n", COPIED)
    named = parse_file("daily/2026-01-22.md", b"# Thursday\n\nText.\n", COPIED)
    plain = parse_file("daily/today.md", b"# Today\n\nText.\n", COPIED)
    text = parse_file("logs/2026-01-22.txt", b"Text.\n", COPIED)
    assert (fm.created.date().isoformat(), fm.updated.date().isoformat()) == (
        "2026-01-20",
        "2026-01-20",
    )
    assert named.created == named.updated == datetime(2026, 1, 22, tzinfo=UTC)
    assert text.created == text.updated == datetime(2026, 1, 22, tzinfo=UTC)
    assert plain.created == plain.updated == COPIED
    updated = parse_file("daily/2026-01-22.md", b"---\nupdated: 2026-02-01\n---\nText.\n", COPIED)
    assert updated.created == datetime(2026, 1, 22, tzinfo=UTC)
    assert updated.updated.date().isoformat() == "2026-02-01"


DAILY = {
    "daily/2026-01-21.md": "# Wednesday\n\nDentist at 8. Paid the council tax.\n",
    "daily/2026-01-22.md": "# Thursday\n\nBoiler service today. The engineer arrived at 9:40.\n",
    "daily/2026-01-23.md": "# Friday\n\nLong run, 18 km along the river.\n",
}


@pytest.fixture
def engine(notecite_engines: EngineFactory) -> Engine:
    return notecite_engines(vaults={"me": DAILY})  # every file written (dated) today


def test_a_day_finds_its_daily_note_though_the_files_were_copied_today(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="What did I do on 22 January 2026?"))
    assert not response.abstained
    assert [r.rel_path for r in response.references] == ["daily/2026-01-22.md"]
    assert "Boiler service" in response.answer
