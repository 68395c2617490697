"""Questions about a note as a whole: the newest of a series asked what it holds, and the
notes of a day or a time asked what happened."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from notecite.retrieve.timehints import parse_day
from notecite.retrieve.whole_note import asks_of_a_time, asks_of_the_whole

SYNC = ("personal", "work/meetings/2026-05-06 platform sync.md", "Platform sync 2026-05-06")
RELEASE = ("dendron", "changelog.release.2022-12-06.md", "0.119")


@pytest.mark.parametrize(
    ("question", "note", "whole"),
    [
        ("What did we decide at the last platform sync?", SYNC, True),
        ("What happened at our most recent platform sync?", SYNC, True),
        ("What are the action items from the last platform sync?", SYNC, False),
        ("What's new in the latest Dendron release?", RELEASE, True),
        ("When did I last bleed the radiators?", ("me", "daily/2026-03-02.md", "2 March"), False),
    ],
)
def test_asks_of_the_whole(question: str, note: tuple[str, str, str], whole: bool) -> None:
    assert asks_of_the_whole(question, *note) is whole


NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("What did I do on 22 January?", (2026, 1, 22)),
        ("What did I do on 2026-01-22?", (2026, 1, 22)),
        ("notes from Jan 22nd, 2024", (2024, 1, 22)),
        ("What did I write on the 2nd of March?", (2026, 3, 2)),
        ("What happened on December 6?", (2025, 12, 6)),  # not yet this year: last year's
        ("What did I do last Tuesday?", (2026, 11, 24)),  # NOW is Monday 30 November
        ("What did I write on Monday?", (2026, 11, 23)),  # the last one before today
        ("What happened on Thursday 22 January?", (2026, 1, 22)),  # the date, not the day
        ("What do I do every Tuesday?", None),
        ("What is due on 31 February?", None),
        ("Which release came out in May 2022?", None),
        ("What changed in version 2.3?", None),
    ],
)
def test_parse_day(question: str, day: tuple[int, int, int] | None) -> None:
    found = parse_day(question, NOW)
    if day is None:
        assert found is None
    else:
        assert found is not None
        assert found.since == datetime(*day, tzinfo=UTC)
        assert found.until is not None
        assert (found.until - found.since).days == 1


@pytest.mark.parametrize(
    ("question", "asks"),
    [
        ("What did I do on 22 January?", True),
        ("What happened on Thursday 22 January?", True),
        ("Show my journal entries from March 2nd", True),
        ("What did I do last week?", True),
        ("What did I do in March 2026?", True),
        ("Summarize my week of 19 January 2026", True),
        ("What did I do the week starting 16 March?", True),
        ("What did we decide about retention the week of 12 March?", False),
        ("When did I bleed the radiators in March 2026?", False),
        ("What did we decide about retention on 12 March?", False),
        ("Where does the journal file for 10 Jan 2024 live on disk?", False),
        ("What did I do?", False),
    ],
)
def test_asks_of_a_time(question: str, asks: bool) -> None:
    assert (asks_of_a_time(question) is not None) is asks
