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
from notecite.types import DocType, ParsedNote

_WIKILINK = re.compile(r"!?\[\[([^\]|#\n]*)(#[^\]|\n]*)?(?:\|([^\]\n]+))?\]\]")
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


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


def parse_markdown(rel_path: str, text: str, mtime: datetime) -> ParsedNote:
    """Parse a markdown note; raises ParseError on broken frontmatter."""
    meta, body, offset = split_frontmatter(text)
    body = readable_wikilinks(body)
    title = first_str(meta, "title", "name")
    if not title:
        h1 = _H1.search(body)
        title = h1.group(1).strip() if h1 else PurePosixPath(rel_path).stem
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
        sections=split_sections(body, first_line=offset + 1),
    )
