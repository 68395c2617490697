"""HTML files: visible text only, h1-h6 as heading sections."""

from __future__ import annotations

from datetime import UTC, datetime

from notecite.ingest.html import html_to_markdownish, parse_html
from notecite.ingest.parse import parse_file
from notecite.types import DocType

MTIME = datetime(2024, 1, 1, tzinfo=UTC)

PAGE = """<!doctype html>
<html><head><title>Atlas   Runbook</title>
<style>body { color: red; } .secret-style {}</style>
<script>var secretScript = "do not index";</script>
</head>
<body>
<nav>Home</nav>
<h1>Atlas</h1>
<p>Intro &amp; overview of
   the project.</p>
<h2>Budget</h2>
<p>USD 240,000 <b>total</b>.</p>
<ul><li>cloud</li><li>contractors</li></ul>
<h3>Detail</h3><p>fine print</p>
<script type="module">import("x")</script>
<noscript>enable javascript</noscript>
<h2>Team</h2><div>Priya</div>
</body></html>
"""


def test_headings_become_sections_with_paths() -> None:
    note = parse_html("site/runbook.html", PAGE, MTIME)
    assert [s.heading_path for s in note.sections] == [
        (),
        ("# Atlas",),
        ("# Atlas", "## Budget"),
        ("# Atlas", "## Budget", "### Detail"),
        ("# Atlas", "## Team"),
    ]
    budget = note.sections[2].text
    assert "USD 240,000 total." in budget
    assert "cloud\ncontractors" in budget


def test_script_style_and_noscript_are_dropped() -> None:
    _, text = html_to_markdownish(PAGE)
    for hidden in ("secretScript", "secret-style", "color: red", "import(", "enable javascript"):
        assert hidden not in text


def test_entities_decoded_and_whitespace_collapsed() -> None:
    _, text = html_to_markdownish(PAGE)
    assert "Intro & overview of the project." in text.split("\n")


def test_title_from_title_tag_then_h1_then_file_name() -> None:
    assert parse_html("a.html", PAGE, MTIME).title == "Atlas Runbook"
    assert parse_html("a.html", "<h1>Only H1</h1><p>x</p>", MTIME).title == "Only H1"
    assert parse_html("dir/page.htm", "<p>no headings</p>", MTIME).title == "page"


def test_section_lines_index_the_extracted_text() -> None:
    _, text = html_to_markdownish(PAGE)
    lines = text.split("\n")
    for section in parse_html("a.html", PAGE, MTIME).sections:
        assert lines[section.line_start - 1] == section.text.split("\n")[0]
        assert lines[section.line_end - 1] == section.text.split("\n")[-1]


def test_html_note_fields_through_parse_file() -> None:
    note = parse_file("web/page.HTM", PAGE.encode(), MTIME)
    assert note.doc_type is DocType.HTML
    assert note.folder == "web"
    assert note.created == note.updated == MTIME
    assert note.frontmatter == {}


def test_unclosed_tags_do_not_break_parsing() -> None:
    _, text = html_to_markdownish("<div><p>one<p>two<h2>H <b>bold</h2>after")
    assert text.split("\n") == ["one", "two", "## H bold", "after"]


def test_words_around_inline_tags_across_newlines_stay_apart() -> None:
    _, text = html_to_markdownish("<p>Priya <i>Raman</i>\n  owns\n<b>Atlas</b>\nnow</p>")
    assert text == "Priya Raman owns Atlas now"


def test_page_text_starting_with_hash_or_fence_is_not_a_heading() -> None:
    page = "<h1>Real</h1><pre># shell comment\nls</pre><p>## not a heading</p><p>```</p><h2>B</h2>x"
    note = parse_html("a.html", page, MTIME)
    assert [s.heading_path for s in note.sections] == [("# Real",), ("# Real", "## B")]
    assert "\\# shell comment ls" in note.sections[0].text


def test_a_literal_marked_section_start_is_read_as_text() -> None:
    """Python's HTML parser stops with an AssertionError at "<![" followed by no name (found
    by the hostile-input fuzz test); the page is read with it as text, and a real CDATA
    section still parses."""
    title, text = html_to_markdownish("<head><title>t</title></head><p>a <![ b</p><h2>c <![</h2>")
    assert title == "t"
    assert text.splitlines() == ["a <![ b", "## c <!["]
    assert html_to_markdownish("<p>a <![CDATA[x]]> b</p>")[1] == "a b"
