"""A request to summarize reads the best-ranked note as its outline."""

from __future__ import annotations

import pytest

from notecite.generate.evidence import GAP
from notecite.generate.outline import asks_for_summary, outline


def _words(texts: list[str]) -> list[int]:
    return [len(text.split()) for text in texts]


NOTE = [
    "# Postgres 16 upgrade",
    "",
    "Move the cluster from 14 to 16.",
    "Owner: Dana.",
    "",
    "## Status",
    "Done. Cutover on 2026-05-24.",
    "Old host kept read-only until June.",
    "",
    "## Decisions",
    "- 2026-03-12 logical replication",
    "```sql",
    "ALTER TABLE events_daily REPLICA IDENTITY;",
    "```",
    "- 2026-04-08 cutover slipped",
    "![chart](lag.png)",
]


def test_the_outline_is_each_heading_with_its_first_lines_in_turn() -> None:
    short = outline(NOTE, 25, _words)
    assert short == [
        "# Postgres 16 upgrade",
        "Move the cluster from 14 to 16.",
        GAP,
        "## Status",
        "Done. Cutover on 2026-05-24.",
        GAP,
        "## Decisions",
        "- 2026-03-12 logical replication",
    ]
    whole = outline(NOTE, 1000, _words)
    assert "Old host kept read-only until June." in whole
    assert "- 2026-04-08 cutover slipped" in whole
    assert not any("ALTER TABLE" in line or "lag.png" in line for line in whole)  # code, markup


@pytest.mark.parametrize(
    "question",
    [
        "Summarize the PG16 upgrade project.",
        "summarise my notes on the Lisbon trip",
        "Can you summarize the scheduler design doc?",
        "Give me a quick overview of the Loki migration",
        "What's the gist of the retention review?",
        "TL;DR of the q2 retro",
        "Recap the last platform sync",
    ],
)
def test_requests_to_summarize(question: str) -> None:
    assert asks_for_summary(question)


@pytest.mark.parametrize(
    "question",
    [
        "Can Dendron summarize a hierarchy of my notes?",
        "Where is the summary of the retro kept?",
        "Does Foam show an overview of my graph?",
        "What did the retro decide?",
    ],
)
def test_questions_about_summaries_are_not_requests(question: str) -> None:
    assert not asks_for_summary(question)


def test_a_long_note_is_outlined_from_its_first_lines() -> None:
    lines = [f"## Part {n}\nLine {n} of the note." for n in range(5000)]
    note = "\n".join(lines).split("\n")
    kept = outline(note, 40, _words)
    assert kept[:2] == ["## Part 0", "Line 0 of the note."]
    assert sum(len(line.split()) for line in kept) <= 40


def test_a_tag_at_a_line_start_is_not_a_heading() -> None:
    note = [
        "# Saturday",
        "#house boiler pressure low again.",
        "Topped it up to 1.5.",
        "Called Priya about the valve.",
        "## Garden",
        "Planted the garlic.",
    ]
    # the tag line is the first line under "# Saturday", not a section of its own: with
    # room for each section's first line, the second line under "# Saturday" is left out
    assert outline(note, 14, _words) == [
        "# Saturday",
        "#house boiler pressure low again.",
        GAP,
        "## Garden",
        "Planted the garlic.",
    ]
