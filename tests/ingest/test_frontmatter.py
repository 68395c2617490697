"""YAML frontmatter: splitting, the keys notecite reads, and everything else kept as JSON."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

from notecite.errors import ParseError
from notecite.ingest.frontmatter import (
    as_keywords,
    frontmatter_end,
    parse_date,
    split_frontmatter,
)
from notecite.ingest.markdown import parse_markdown
from notecite.types import ParsedNote

MTIME = datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC)


def note(front: str, body: str = "Body text.\n") -> ParsedNote:
    return parse_markdown("folder/n.md", f"---\n{front}\n---\n{body}", MTIME)


def test_split_returns_mapping_body_and_offset() -> None:
    meta, body, offset = split_frontmatter("---\ntitle: A\n---\nfirst\nsecond")
    assert meta == {"title": "A"}
    assert body == "first\nsecond"
    assert offset == 3


def test_no_frontmatter_leaves_text_alone() -> None:
    assert split_frontmatter("# Title\n---\nx: 1\n---\n") == ({}, "# Title\n---\nx: 1\n---\n", 0)


def test_frontmatter_end_counts_the_lines_through_the_closing_fence() -> None:
    text = "---\ntitle: A\nrole: lead\n---\n# A\nbody"
    assert frontmatter_end(text.split("\n")) == 4  # the same offset as split_frontmatter
    assert frontmatter_end(text.split("\n")) == split_frontmatter(text)[2]
    assert frontmatter_end(["# A", "---", "x: 1", "---"]) == 0  # a rule, not frontmatter
    assert frontmatter_end(["---", "x: 1"]) == 0  # never closed
    assert frontmatter_end([]) == 0


def test_empty_frontmatter_is_an_empty_mapping() -> None:
    assert split_frontmatter("---\n---\nbody") == ({}, "body", 2)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("---\ntitle: [unclosed\n---\nbody", "invalid YAML frontmatter"),
        ("---\n- a\n- b\n---\nbody", "frontmatter is a list"),
        ("---\njust a string\n---\nbody", "frontmatter is a str"),
        ("---\ntitle: never closed\nbody", "never closed"),
    ],
)
def test_broken_frontmatter_is_a_parse_error(text: str, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        split_frontmatter(text)


def test_invalid_yaml_error_names_the_file_line() -> None:
    with pytest.raises(ParseError, match="at line 3"):
        split_frontmatter("---\ntitle: ok\nbad: [\n---\n")


@pytest.mark.parametrize("key", ["title", "name"])
def test_title_from_title_or_name(key: str) -> None:
    assert note(f"{key}: Weekly Review").title == "Weekly Review"


def test_title_prefers_title_over_name() -> None:
    assert note("name: B\ntitle: A").title == "A"


def test_numeric_title_becomes_text() -> None:
    assert note("title: 0.87").title == "0.87"


def test_description() -> None:
    assert note("description: What this is about").description == "What this is about"


def test_dendron_desc_is_the_description() -> None:
    assert note("desc: 'Lookup lets you find or create a note'").description == (
        "Lookup lets you find or create a note"
    )


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("keywords: [alpha, beta]", ("alpha", "beta")),
        ("keywords: alpha, beta", ("alpha", "beta")),
        ("tags:\n  - alpha\n  - '#beta'", ("alpha", "beta")),
        ("tags: alpha beta", ("alpha", "beta")),
        ("tags: '#alpha #beta'", ("alpha", "beta")),
        ("tags: [2024, true]", ("2024", "True")),
        ("keywords: hello world, bonjour", ("hello", "world", "bonjour")),  # Foam's rule
        ("tags: single", ("single",)),
        ("tags: []", ()),
        ("tags:", ()),
    ],
)
def test_keywords_and_tags_as_list_or_string(front: str, expected: tuple[str, ...]) -> None:
    assert note(front).keywords == expected


def test_type_is_the_note_type() -> None:
    assert note("type: feature").note_type == "feature"
    assert note("title: x").note_type is None


def test_dendron_epoch_milliseconds() -> None:
    parsed = note("created: 1595952505038\nupdated: 1659715122710")
    assert parsed.created == datetime(2020, 7, 28, 16, 8, 25, 38000, tzinfo=UTC)
    assert parsed.updated == datetime(2022, 8, 5, 15, 58, 42, 710000, tzinfo=UTC)


def test_iso_date_and_datetime() -> None:
    parsed = note("date: 2025-03-10\nupdated: 2025-03-11T09:30:00+02:00")
    assert parsed.created == datetime(2025, 3, 10, tzinfo=UTC)
    assert parsed.updated == datetime(2025, 3, 11, 7, 30, tzinfo=UTC)


def test_created_falls_back_to_updated_and_back() -> None:
    only_updated = note("updated: 2025-01-02")
    assert only_updated.created == only_updated.updated == datetime(2025, 1, 2, tzinfo=UTC)
    only_created = note("created: 2025-01-03")
    assert only_created.updated == only_created.created == datetime(2025, 1, 3, tzinfo=UTC)


def test_date_from_mtime_without_frontmatter_dates() -> None:
    parsed = note("title: x")
    assert parsed.created == parsed.updated == MTIME
    bare = parse_markdown("n.md", "just text", MTIME)
    assert bare.created == bare.updated == MTIME


def test_unparseable_date_falls_back_to_mtime() -> None:
    assert note("date: next tuesday").created == MTIME


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1700000000, datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)),
        (1700000000000, datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)),
        ("1700000000000", datetime(2023, 11, 14, 22, 13, 20, tzinfo=UTC)),
        (date(2024, 2, 29), datetime(2024, 2, 29, tzinfo=UTC)),
        (datetime(2024, 2, 29, 12), datetime(2024, 2, 29, 12, tzinfo=UTC)),
        ("2024-02-29T12:00:00Z", datetime(2024, 2, 29, 12, tzinfo=UTC)),
        (None, None),
        (True, None),
        ("soon", None),
        (10**30, None),
        ([2024], None),
    ],
)
def test_parse_date(value: object, expected: datetime | None) -> None:
    assert parse_date(value) == expected


def test_other_keys_kept_as_json() -> None:
    parsed = note(
        "id: a7c3a810\nnav_order: 2\npublished: false\nwhen: 2024-01-02\n"
        "config:\n  global:\n    enableChildLinks: false"
    )
    assert parsed.frontmatter == {
        "id": "a7c3a810",
        "nav_order": 2,
        "published": False,
        "when": "2024-01-02",
        "config": {"global": {"enableChildLinks": False}},
    }
    assert json.loads(json.dumps(parsed.frontmatter)) == parsed.frontmatter


def test_non_string_keys_become_strings() -> None:
    assert note("2024: year\n3.5: v").frontmatter == {"2024": "year", "3.5": "v"}


def test_as_keywords_of_other_scalars() -> None:
    assert as_keywords(None) == ()
    assert as_keywords(7) == ("7",)
