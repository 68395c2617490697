"""Time-hint parsing table."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from notecite.retrieve.timehints import parse_time_hint
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory, ScriptedLLM

NOW = datetime(2026, 11, 22, 15, 30, tzinfo=UTC)


def d(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "since", "until"),
    [
        ("what did I write today", d(2026, 11, 22), d(2026, 11, 23)),
        ("notes from yesterday", d(2026, 11, 21), d(2026, 11, 22)),
        ("meetings last week", d(2026, 11, 8), d(2026, 11, 23)),
        ("what happened last month", d(2026, 10, 1), d(2026, 11, 1)),
        ("goals this year", d(2026, 1, 1), d(2026, 11, 23)),
        ("what did we decide last year", d(2025, 1, 1), d(2026, 1, 1)),
        ("the standup in March 2024", d(2024, 3, 1), d(2024, 4, 1)),
        ("retro in dec 2025", d(2025, 12, 1), d(2026, 1, 1)),
        ("anything since 2023", d(2023, 1, 1), None),
        ("projects after 2023", d(2024, 1, 1), None),
        ("old notes before 2020", None, d(2020, 1, 1)),
        ("what happened in 2024", d(2024, 1, 1), d(2025, 1, 1)),
        # a week named by a day of it: from its Monday, or from the day it starts on
        ("my week of 19 January 2026", d(2026, 1, 19), d(2026, 1, 26)),
        ("the week of Wednesday 21 January 2026", d(2026, 1, 19), d(2026, 1, 26)),
        ("what did we decide the week of 2026-03-18", d(2026, 3, 16), d(2026, 3, 23)),
        ("the week starting 4 March", d(2026, 3, 4), d(2026, 3, 11)),
    ],
)
def test_time_hints(question: str, since: datetime | None, until: datetime | None) -> None:
    hint = parse_time_hint(question, NOW)
    assert hint is not None
    assert (hint.since, hint.until) == (since, until)


@pytest.mark.parametrize(
    "question",
    ["when is the atlas launch", "what may happen", "list 2024 budget lines", "week of the 19th"],
)
def test_no_hint_means_no_date_filter(question: str) -> None:
    assert parse_time_hint(question, NOW) is None


def test_a_note_dated_at_the_next_months_midnight_is_not_in_the_month(
    notecite_engines: EngineFactory,
) -> None:
    notes = {
        "garden/march.md": "---\ndate: 2026-03-15\n---\n# Garden\n\nSowed the garden beans.\n",
        "garden/april.md": "---\ndate: 2026-04-01\n---\n# Garden\n\nSowed the garden peas.\n",
    }
    engine = notecite_engines(
        vaults={"me": notes}, llm=ScriptedLLM("Beans [N1]."), ask={"auto_rag": "off"}
    )
    response = engine.ask(
        AskRequest(question="What did I sow in the garden in March 2026?", debug=True)
    )
    assert response.debug is not None
    found = {c.rel_path for c in response.debug.retrieved_chunks}
    assert found == {"garden/march.md"}
