"""HTML files: visible text only, with h1-h6 kept as heading sections."""

from __future__ import annotations

import re
from datetime import datetime
from html.parser import HTMLParser
from pathlib import PurePosixPath

from notecite.ingest.name_dates import date_in_name
from notecite.ingest.sections import split_sections
from notecite.types import DocType, ParsedNote

_SKIP = {"script", "style", "noscript", "template", "head", "svg"}
_BLOCK = {
    "p", "div", "br", "li", "ul", "ol", "tr", "table", "section", "article", "header",
    "footer", "blockquote", "pre", "hr", "dd", "dt", "nav", "main", "aside", "figure",
}  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_WHITESPACE = re.compile(r"\s+")
# Marks the '#' prefixes the extractor writes for h1-h6, so that page text which happens to
# start with '#' or a code fence (a shell comment in <pre>) is escaped instead of becoming one.
_HEADING_MARK = "\ue000"
_MARKUP_STARTS = ("#", "```", "~~~")


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._skip_depth = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag in _SKIP:
            self._skip_depth += 1
        elif tag in _HEADINGS:
            self.parts.append("\n\n" + _HEADING_MARK + "#" * _HEADINGS[tag] + " ")
        elif tag in _BLOCK:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _SKIP:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in _HEADINGS or tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._skip_depth:
            return
        # Runs of whitespace (newlines included) become one space; the edges are kept so
        # that words on either side of an inline tag stay apart.
        self.parts.append(_WHITESPACE.sub(" ", data.replace(_HEADING_MARK, "")))


def _extracted(html: str) -> _TextExtractor:
    """``html`` read by the extractor. Python's parser stops with an AssertionError at a
    marked section it cannot read ("<![" followed by no name, as in text that writes
    "<![" literally): the page is then read with each "<![" as text."""
    parser = _TextExtractor()
    try:
        parser.feed(html)
        parser.close()
    except AssertionError:
        parser = _TextExtractor()
        parser.feed(html.replace("<![", "&lt;!["))
        parser.close()
    return parser


def html_to_markdownish(html: str) -> tuple[str, str]:
    """(title, text with '#' headings and one block per line)."""
    parser = _extracted(html)
    lines = []
    for raw in "".join(parser.parts).split("\n"):
        line = " ".join(raw.split())
        if line.startswith(_HEADING_MARK):
            line = line[1:]
        elif line.startswith(_MARKUP_STARTS):
            line = "\\" + line
        if line:
            lines.append(line)
    text = "\n".join(lines)
    return " ".join(parser.title.split()), text


def parse_html(rel_path: str, html: str, mtime: datetime) -> ParsedNote:
    """Parse an HTML file; spans refer to lines of the extracted text."""
    title, text = html_to_markdownish(html)
    if not title:
        first_heading = next((ln for ln in text.split("\n") if ln.startswith("# ")), "")
        title = first_heading[2:].strip() or PurePosixPath(rel_path).stem
    dated = date_in_name(rel_path) or mtime
    return ParsedNote(
        rel_path=rel_path,
        doc_type=DocType.HTML,
        title=title,
        description="",
        keywords=(),
        note_type=None,
        created=dated,
        updated=dated,
        frontmatter={},
        sections=split_sections(text),
    )
