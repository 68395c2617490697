"""Markdown notes: title, readable wikilinks, heading sections and file line numbers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from notecite.ingest.markdown import parse_markdown, readable_wikilinks
from notecite.ingest.sections import format_heading_path, split_sections
from notecite.types import DocType

MTIME = datetime(2024, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("see [[people/priya|Priya]] today", "see Priya today"),
        ("see [[Atlas]]", "see Atlas"),
        ("![[diagram.png]]", "diagram.png"),
        ("![[Atlas#Budget]]", "Atlas Budget"),
        ("[[Atlas#Budget|the budget]]", "the budget"),
        ("[[a]] and [[b|B]]", "a and B"),
        ("[[#Local heading]]", "Local heading"),
        # Dendron puts the label first, and its targets may name a vault
        ("a [[Calendar View|dendron://site/topic.sidebar.calendar-view]]", "a Calendar View"),
        ("[[Hooks|dendron.topic.hooks]] run", "Hooks run"),
        (
            "![[dendron://site/asset.preview#create-from-calendar,1:#*]]",
            "asset.preview create-from-calendar",
        ),
        ("[[release notes|notes/releases]]", "release notes"),
        ("not a link: [[]] [x] [[unclosed", "not a link:  [x] [[unclosed"),
    ],
)
def test_readable_wikilinks(text: str, expected: str) -> None:
    assert readable_wikilinks(text) == expected


def test_wikilinks_in_code_stay_as_written() -> None:
    code = ["```markdown", "![[note-name#Section Title]]", "```"]
    # a longer fence is closed only by a fence of its own kind and length
    long_fence = ["~~~~", "[[a|b]]", "```", "[[still|code]]", "~~~~"]
    text = "\n".join(
        ["Embed a section with `![[note#Section]]` or [[Atlas]]:", *code, *long_fence, "[[A#B]]"]
    )
    assert readable_wikilinks(text).split("\n") == [
        "Embed a section with `![[note#Section]]` or Atlas:",
        *code,
        *long_fence,
        "A B",
    ]


def test_wikilinks_are_readable_in_the_parsed_note() -> None:
    parsed = parse_markdown("n.md", "# Plan\nAsk [[people/priya|Priya]] about [[Atlas]].", MTIME)
    assert parsed.sections[0].text == "# Plan\nAsk Priya about Atlas."


def test_sections_carry_the_full_heading_path() -> None:
    text = "# Atlas\nintro\n## Budget\nmoney\n### Detail\nfine\n## Team\npeople\n# Other\nx"
    paths = [s.heading_path for s in split_sections(text)]
    assert paths == [
        ("# Atlas",),
        ("# Atlas", "## Budget"),
        ("# Atlas", "## Budget", "### Detail"),
        ("# Atlas", "## Team"),
        ("# Other",),
    ]


def test_skipped_heading_levels_pop_correctly() -> None:
    sections = split_sections("### Deep\na\n# Top\nb\n## Mid\nc")
    assert [s.heading_path for s in sections] == [("### Deep",), ("# Top",), ("# Top", "## Mid")]


def test_text_before_the_first_heading_has_an_empty_path() -> None:
    sections = split_sections("preamble\n\n# H\nbody")
    assert sections[0].heading_path == ()
    assert sections[0].text == "preamble"


def test_heading_line_belongs_to_its_section() -> None:
    sections = split_sections("# Full\n\nline\n\n\n# Next\nmore")
    assert [(s.text, s.line_start, s.line_end) for s in sections] == [
        ("# Full\n\nline", 1, 3),
        ("# Next\nmore", 6, 7),
    ]


@pytest.mark.parametrize("fence", ["```", "~~~", "````"])
def test_headings_inside_fenced_code_are_not_headings(fence: str) -> None:
    text = f"# Real\nbefore\n{fence}bash\n# a shell comment\n## nope\n{fence}\nafter\n## Second\nx"
    sections = split_sections(text)
    assert [s.heading_path for s in sections] == [("# Real",), ("# Real", "## Second")]
    assert "# a shell comment" in sections[0].text
    assert "after" in sections[0].text


def test_a_longer_fence_is_not_closed_by_a_shorter_one() -> None:
    text = "# A\n````\n```\n# inside\n```\n````\n# B\nx"
    assert [s.heading_path for s in split_sections(text)] == [("# A",), ("# B",)]


def test_tilde_fence_is_not_closed_by_backticks() -> None:
    text = "# A\n~~~\n```\n# inside\n~~~\n# B\nx"
    assert [s.heading_path for s in split_sections(text)] == [("# A",), ("# B",)]


def test_hash_without_space_is_not_a_heading() -> None:
    assert [s.heading_path for s in split_sections("#tag line\n#hashtag")] == [()]


def test_closing_hashes_are_trimmed() -> None:
    assert split_sections("## Budget ##\nx")[0].heading_path == ("## Budget",)


def test_format_heading_path() -> None:
    assert format_heading_path(("# Meetings", "## Weekly")) == "# Meetings > ## Weekly"
    assert format_heading_path(()) == ""


def test_section_lines_point_at_the_file_after_frontmatter() -> None:
    text = "---\ntitle: T\ntags: [a]\n---\n\n# Head\nline six... no, seven\n\n## Sub\nnine\n"
    parsed = parse_markdown("n.md", text, MTIME)
    lines = text.split("\n")
    for section in parsed.sections:
        assert lines[section.line_start - 1] == section.text.split("\n")[0]
        assert lines[section.line_end - 1] == section.text.split("\n")[-1]
    assert [(s.line_start, s.line_end) for s in parsed.sections] == [(6, 7), (9, 10)]


def test_title_from_h1_then_file_name() -> None:
    assert parse_markdown("a/b.md", "intro\n# The Title #\nx", MTIME).title == "The Title"
    assert parse_markdown("a/b.md", "## Only h2\nx", MTIME).title == "b"
    fenced = parse_markdown("a/c.md", "```\n# not a title\n```\n", MTIME)
    assert fenced.title == "c"


def test_markdown_note_fields() -> None:
    parsed = parse_markdown("projects/atlas/atlas.md", "# Atlas\nbody", MTIME)
    assert parsed.doc_type is DocType.MARKDOWN
    assert parsed.folder == "projects/atlas"
    assert parse_markdown("root.md", "x", MTIME).folder == ""
    assert parsed.frontmatter == {}
    assert parsed.description == ""
    assert parsed.keywords == ()


def test_a_fence_with_an_info_string_does_not_close_a_block() -> None:
    text = "# A\n```\n```python\n# inside\n```\n# B\nx"
    assert [s.heading_path for s in split_sections(text)] == [("# A",), ("# B",)]


def test_an_unclosed_fence_runs_to_the_end() -> None:
    assert [s.heading_path for s in split_sections("# A\n```\n# inside\n")] == [("# A",)]


def test_setext_headings_are_headings() -> None:
    text = (
        "Project Atlas\n=============\n\nAtlas moves billing.\n\n"
        "Budget\n------\n\nThe budget is 40k.\n\n## Team\nDana.\n"
    )
    sections = split_sections(text, first_line=3)
    assert [(s.heading_path, s.line_start, s.line_end) for s in sections] == [
        (("# Project Atlas",), 3, 6),
        (("# Project Atlas", "## Budget"), 8, 11),
        (("# Project Atlas", "## Team"), 13, 14),
    ]
    assert sections[1].text.startswith("Budget\n------\n")
    note = parse_markdown("atlas.md", text, MTIME)
    assert note.title == "Project Atlas"


@pytest.mark.parametrize(
    "text",
    [
        "A paragraph line\nthat goes on\n---\nafter",  # two lines: a rule after a paragraph
        "- a list item\n---\nafter",
        "> a quote\n===\nafter",
        "    indented code\n---\nafter",
        "```\ncode\n---\n```\nafter",
        "| a | b |\n---\nafter",
        "a dash\n-\nafter",  # one "-" is an empty list item
    ],
)
def test_lines_that_are_no_setext_heading(text: str) -> None:
    assert [s.heading_path for s in split_sections(text)] == [()]


def test_a_setext_title_alone_is_no_section() -> None:
    sections = split_sections("Title\n=====\n\nSub\n---\nbody")
    assert [s.heading_path for s in sections] == [("# Title", "## Sub")]
