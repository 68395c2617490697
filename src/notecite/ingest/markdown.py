"""Markdown notes with YAML frontmatter."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from notecite.errors import ParseError
from notecite.ingest.blobs import without_blobs
from notecite.ingest.code_regions import rewrite_prose
from notecite.ingest.frontmatter import (
    as_keywords,
    first_str,
    parse_date,
    split_frontmatter,
    to_json_safe,
)
from notecite.ingest.inline_markup import readable_inline_markup
from notecite.ingest.links import VAULT_PREFIX, WIKILINK, note_links, reads_as_target
from notecite.ingest.name_dates import date_in_name
from notecite.ingest.page_properties import leading_properties
from notecite.ingest.sections import split_sections
from notecite.ingest.variables import substitute_variables
from notecite.types import DocType, ParsedNote, Section


def _wikilink_text(match: re.Match[str]) -> str:
    target, anchor, alias = match.group(1).strip(), match.group(2), match.group(3)
    if alias:
        alias = alias.strip()
        # Obsidian and Foam write [[target|label]], Dendron [[label|target]]
        if reads_as_target(alias) and target and not reads_as_target(target):
            return target
        return alias
    text = VAULT_PREFIX.sub("", target)
    if anchor:
        # an anchor may carry a range: "#heading,1:#*" embeds from the heading to the end
        heading = re.split(r"[,:]", anchor.lstrip("#"), maxsplit=1)[0].strip()
        text = f"{text} {heading}".strip()
    return text


def readable_wikilinks(text: str) -> str:
    """``[[people/priya|Priya]]`` -> ``Priya``; ``[[Atlas#Budget]]`` -> ``Atlas Budget``;
    Dendron's ``[[Calendar View|dendron://site/topic.calendar]]`` -> ``Calendar View``.

    Code is left as written: a link in a fenced block or a code span is an example of the
    syntax (``![[note#Section]]`` is how a note says how to embed a section)."""
    return rewrite_prose(text, "[[", lambda prose: WIKILINK.sub(_wikilink_text, prose))


def _body_as_read(body: str, meta: dict[str, Any]) -> str:
    """A note's body as the index reads it: encoded data elided, frontmatter variables,
    wikilinks, highlights, callouts and footnotes in their readable form, every line where
    it was."""
    return readable_inline_markup(
        readable_wikilinks(substitute_variables(without_blobs(body), meta))
    )


def _metadata(text: str) -> tuple[dict[str, Any], str, int]:
    """(frontmatter, body, lines before the body) of a note, with the ``key:: value`` lines
    that open its body read as frontmatter where the YAML does not give the key.

    Raises:
        ParseError: the YAML frontmatter is invalid.
    """
    meta, body, offset = split_frontmatter(text)
    return {**leading_properties(body), **meta}, body, offset


def lines_as_read(text: str) -> list[str]:
    """The lines of a markdown note as the index reads them (:func:`_body_as_read`),
    numbered as in the file: a quote taken from a chunk is found on its own line. A note
    with broken frontmatter is given as written."""
    try:
        meta, body, offset = _metadata(text)
    except ParseError:
        return text.split("\n")
    return text.split("\n")[:offset] + body_lines_as_read(body, meta)


def _first_h1(sections: tuple[Section, ...]) -> str:
    """The first level-1 heading outside code blocks, or ''."""
    for section in sections:
        if section.heading_path and section.heading_path[0].startswith("# "):
            return section.heading_path[0][2:]
    return ""


def parse_markdown(rel_path: str, text: str, mtime: datetime) -> ParsedNote:
    """Parse a markdown note; raises ParseError on broken frontmatter."""
    meta, body, offset = _metadata(text)
    return parse_body(rel_path, text, meta, body, offset, mtime)


def body_lines_as_read(body: str, meta: dict[str, Any]) -> list[str]:
    """The lines of a note's markdown ``body`` as the index reads them, given its metadata."""
    return _body_as_read(body, meta).split("\n")


def parse_body(
    rel_path: str,
    text: str,
    meta: dict[str, Any],
    body: str,
    offset: int,
    mtime: datetime,
    doc_type: DocType = DocType.MARKDOWN,
) -> ParsedNote:
    """A note from its metadata and its markdown ``body``, which starts on line
    ``offset + 1`` of the file ``text`` (the links are read from ``text``)."""
    body = _body_as_read(body, meta)
    read = dict(enumerate(body.split("\n"), start=offset))
    sections = split_sections(body, first_line=offset + 1)
    title = first_str(meta, "title", "name") or _first_h1(sections) or PurePosixPath(rel_path).stem
    created = (
        parse_date(meta.get("created")) or parse_date(meta.get("date")) or date_in_name(rel_path)
    )
    updated = parse_date(meta.get("updated")) or parse_date(meta.get("modified"))
    return ParsedNote(
        rel_path=rel_path,
        doc_type=doc_type,
        title=title,
        description=first_str(meta, "description", "desc", "summary"),
        keywords=as_keywords(meta.get("keywords", meta.get("tags"))),
        note_type=first_str(meta, "type") or None,
        created=created or updated or mtime,
        updated=updated or created or mtime,
        frontmatter=to_json_safe(meta),
        sections=sections,
        links=note_links(rel_path, text, offset, read),
    )
