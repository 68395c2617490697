"""Plain text files: one section, titled by the file name."""

from __future__ import annotations

from datetime import datetime
from pathlib import PurePosixPath

from notecite.ingest.name_dates import date_in_name
from notecite.types import DocType, ParsedNote, Section


def parse_text(rel_path: str, text: str, mtime: datetime) -> ParsedNote:
    """A text file is one untitled section spanning its non-blank lines."""
    lines = text.split("\n")
    filled = [i for i, line in enumerate(lines) if line.strip()]
    sections: tuple[Section, ...] = ()
    if filled:
        first, last = filled[0], filled[-1]
        sections = (Section((), first + 1, last + 1, "\n".join(lines[first : last + 1])),)
    dated = date_in_name(rel_path) or mtime
    return ParsedNote(
        rel_path=rel_path,
        doc_type=DocType.TEXT,
        title=PurePosixPath(rel_path).stem,
        description="",
        keywords=(),
        note_type=None,
        created=dated,
        updated=dated,
        frontmatter={},
        sections=sections,
    )
