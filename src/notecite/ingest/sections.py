"""Split markdown text into sections by heading path, outside fenced code blocks.

Headings are ATX (``## Budget``) or setext: a one-line paragraph underlined with ``===``
(level 1) or ``---`` (level 2), as CommonMark reads them, named in the heading path as the
ATX form (``# Project Atlas``).
"""

from __future__ import annotations

import re

from notecite.ingest.code_regions import in_code
from notecite.types import Section

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})(.*)$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(=+|-{2,})[ \t]*$")
# a line that is no paragraph text: a list item, a quote, a table row, an ATX heading, a
# fence, an indented code line
_NOT_PARAGRAPH = re.compile(r"^(?: {4}|\t|\s*(?:[-*+]\s|\d{1,9}[.)]\s|>|\||#|`{3}|~{3}))")
# A heading's words in the heading path. Every chunk of a section repeats the path in its
# embedded text, so a paragraph pasted after "# " would otherwise cost its length times the
# number of chunks it is cut into (a 100 KB heading line: ~600 MB). The full line stays in the
# section's text.
MAX_HEADING_CHARS = 200


def shorten_label(title: str) -> str:
    """``title`` cut at a word boundary to at most ``MAX_HEADING_CHARS`` characters (+ " …")."""
    if len(title) <= MAX_HEADING_CHARS:
        return title
    cut = title[:MAX_HEADING_CHARS].rsplit(" ", 1)[0] or title[:MAX_HEADING_CHARS]
    return cut.rstrip() + " …"


def format_heading_path(path: tuple[str, ...]) -> str:
    """``('# Meetings', '## Weekly Standup')`` -> ``'# Meetings > ## Weekly Standup'``."""
    return " > ".join(path)


def _setext_titles(lines: list[str]) -> dict[int, int]:
    """Line index -> heading level of each setext heading's text line: a one-line paragraph
    (a blank line or a heading before it) outside code, underlined on the next line."""
    titles: dict[int, int] = {}
    code = in_code(lines)
    for number, line in enumerate(lines):
        if code[number] or number + 1 >= len(lines):
            continue
        underline = _SETEXT_UNDERLINE.match(lines[number + 1])
        before = lines[number - 1] if number else ""
        if (
            underline
            and line.strip()
            and not _NOT_PARAGRAPH.match(line)
            and (not before.strip() or _HEADING.match(before) or number - 1 in titles)
        ):
            titles[number] = 1 if underline.group(1)[0] == "=" else 2
    return titles


def split_sections(text: str, first_line: int = 1) -> tuple[Section, ...]:
    """Cut ``text`` at headings; each section carries its full heading path.

    ``first_line`` is the file line number of the text's first line, so that spans point at
    the file. Sections with no non-blank line are dropped; a heading line belongs to the
    section it opens.
    """
    lines = text.split("\n")
    setext = _setext_titles(lines)
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    heading_lines = 0  # the lines of ``current`` that are its heading (an underline is one)
    fence: str | None = None

    def flush() -> None:
        filled = [i for i, line in enumerate(current) if line.strip()]
        heading_only = bool(stack) and all(i < heading_lines for i in filled)
        if filled and not heading_only:
            first, last = filled[0], filled[-1]
            sections.append(
                Section(
                    heading_path=tuple(h for _, h in stack),
                    line_start=first_line + start + first,
                    line_end=first_line + start + last,
                    text="\n".join(current[first : last + 1]),
                )
            )

    for number, line in enumerate(lines):
        fence_match = _FENCE.match(line)
        if fence_match:
            marker, rest = fence_match.group(1), fence_match.group(2)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not rest.strip():
                # CommonMark: only a bare fence of the same kind, at least as long, closes.
                fence = None
        heading = _HEADING.match(line) if fence is None and not fence_match else None
        titled: tuple[int, str, int] | None = None  # (level, words, lines it takes)
        if heading:
            titled = (len(heading.group(1)), heading.group(2).strip(), 1)
        elif number in setext and fence is None:
            titled = (setext[number], line.strip(), 2)
        if titled is not None:
            flush()
            level, words, heading_lines = titled
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, f"{'#' * level} {shorten_label(words)}"))
            current = [line]
            start = number
        else:
            current.append(line)
    flush()
    return tuple(sections)
