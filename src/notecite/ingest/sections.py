"""Split markdown text into sections by ATX heading path, outside fenced code blocks."""

from __future__ import annotations

import re

from notecite.types import Section

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})(.*)$")
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


def split_sections(text: str, first_line: int = 1) -> tuple[Section, ...]:
    """Cut ``text`` at headings; each section carries its full heading path.

    ``first_line`` is the file line number of the text's first line, so that spans point at
    the file. Sections with no non-blank line are dropped; a heading line belongs to the
    section it opens.
    """
    lines = text.split("\n")
    sections: list[Section] = []
    stack: list[tuple[int, str]] = []
    current: list[str] = []
    start = 0
    fence: str | None = None

    def flush() -> None:
        filled = [i for i, line in enumerate(current) if line.strip()]
        heading_only = (
            len(filled) == 1 and bool(stack) and current[filled[0]].lstrip().startswith("#")
        )
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
        if heading:
            flush()
            level = len(heading.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, f"{heading.group(1)} {shorten_label(heading.group(2).strip())}"))
            current = [line]
            start = number
        else:
            current.append(line)
    flush()
    return tuple(sections)
