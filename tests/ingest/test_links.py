"""The links a note makes, read from its file with their lines
(:mod:`notecite.ingest.links`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from notecite.ingest.links import link_target, names_of
from notecite.ingest.markdown import parse_markdown

NOTE = """---
title: Weekly review
related: "[[PG16-Upgrade]]"
see:
  - "[[projects/lisbon-trip|Lisbon]]"
---
# Weekly review

Read [[pg16-upgrade#Rollback|the rollback plan]] and ![[diagrams/cutover]].
Dendron style: [[the calendar|dendron://site/topic.calendar]] and [[people.priya]].
A [markdown link](../projects/Budget%202026.md "budget") and [[#Heading]] here.
Not notes: [site](https://example.com/a.md), ![chart](chart.png), [mail](mailto:a@b.c).
Code span `[[not-a-link]]` and [[still-a-link]] on one line.

```markdown
[[inside-a-fence]] and [x](fenced.md)
```

Last: [[Dup]] [[dup]] and [up](/root/note.markdown).
"""


def _links() -> list[tuple[str, int]]:
    note = parse_markdown("journal/review.md", NOTE, datetime(2026, 1, 1, tzinfo=UTC))
    return [(link.target, link.line) for link in note.links]


def test_every_kind_of_link_is_read_with_its_line_of_the_file() -> None:
    assert _links() == [
        ("pg16-upgrade", 3),
        ("projects/lisbon-trip", 5),
        ("pg16-upgrade", 9),
        ("diagrams/cutover", 9),
        ("topic.calendar", 10),
        ("people.priya", 10),
        ("projects/budget 2026", 11),
        ("still-a-link", 13),
        ("dup", 19),
        ("root/note", 19),
    ]


def test_the_line_numbers_are_the_file_lines_citations_count() -> None:
    note = parse_markdown("journal/review.md", NOTE, datetime(2026, 1, 1, tzinfo=UTC))
    lines = NOTE.split("\n")
    for link in note.links:
        assert "[" in lines[link.line - 1], link
    first_section = note.sections[0]
    assert lines[first_section.line_start - 1] == "# Weekly review"


def test_a_link_is_quoted_by_its_line_as_the_index_reads_it() -> None:
    note = parse_markdown("journal/review.md", NOTE, datetime(2026, 1, 1, tzinfo=UTC))
    quotes = {link.line: link.line_text for link in note.links}
    assert quotes[3] == 'related: "[[PG16-Upgrade]]"'  # a property: as written
    assert quotes[9] == "Read the rollback plan and diagrams/cutover."


def test_a_note_without_frontmatter_counts_from_its_first_line() -> None:
    note = parse_markdown("a.md", "# A\n\nSee [[b]].\n", datetime(2026, 1, 1, tzinfo=UTC))
    assert [(link.target, link.line) for link in note.links] == [("b", 3)]


@pytest.mark.parametrize(
    ("written", "target"),
    [
        ("PG16-Upgrade", "pg16-upgrade"),
        ("Projects/PG16 Upgrade.md", "projects/pg16 upgrade"),
        ("./notes/a.markdown", "notes/a"),
        ("dendron://site/topic.calendar", "topic.calendar"),
        ("note^block-1", "note"),
        ("", ""),
    ],
)
def test_targets_are_read_for_resolution(written: str, target: str) -> None:
    assert link_target(written) == target


def test_a_note_is_named_by_its_file_name_and_each_path_that_ends_with_it() -> None:
    assert names_of("Work/Projects/PG16-Upgrade.md") == (
        "pg16-upgrade",
        "projects/pg16-upgrade",
        "work/projects/pg16-upgrade",
    )
    assert names_of("dendron.topic.lookup.md") == ("dendron.topic.lookup",)
