"""Markdown notes with YAML frontmatter."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import PurePosixPath

from notecite.ingest.frontmatter import (
    as_keywords,
    first_str,
    parse_date,
    split_frontmatter,
    to_json_safe,
)
from notecite.ingest.sections import split_sections
from notecite.types import DocType, ParsedNote, Section

_WIKILINK = re.compile(r"!?\[\[([^\]|#\n]*)(#[^\]|\n]*)?(?:\|([^\]\n]+))?\]\]")


def _wikilink_text(match: re.Match[str]) -> str:
    target, anchor, alias = match.group(1), match.group(2), match.group(3)
    if alias:
        return alias.strip()
    text = target.strip()
    if anchor:
        text = f"{text} {anchor.lstrip('#').strip()}".strip()
    return text


def readable_wikilinks(text: str) -> str:
    """``[[people/priya|Priya]]`` -> ``Priya``; ``[[Atlas#Budget]]`` -> ``Atlas Budget``."""
    return _WIKILINK.sub(_wikilink_text, text)


def _first_h1(sections: tuple[Section, ...]) -> str:
    """The first level-1 heading outside code blocks, or ''."""
    for section in sections:
        if section.heading_path and section.heading_path[0].startswith("# "):
            return section.heading_path[0][2:]
    return ""


def parse_markdown(rel_path: str, text: str, mtime: datetime) -> ParsedNote:
    """Parse a markdown note; raises ParseError on broken frontmatter."""
    meta, body, offset = split_frontmatter(text)
    body = readable_wikilinks(body)
    sections = split_sections(body, first_line=offset + 1)
    title = first_str(meta, "title", "name") or _first_h1(sections) or PurePosixPath(rel_path).stem
    created = parse_date(meta.get("created")) or parse_date(meta.get("date"))
    updated = parse_date(meta.get("updated")) or parse_date(meta.get("modified"))
    return ParsedNote(
        rel_path=rel_path,
        doc_type=DocType.MARKDOWN,
        title=title,
        description=first_str(meta, "description", "desc", "summary"),
        keywords=as_keywords(meta.get("keywords", meta.get("tags"))),
        note_type=first_str(meta, "type") or None,
        created=created or updated or mtime,
        updated=updated or created or mtime,
        frontmatter=to_json_safe(meta),
        sections=sections,
    )
