"""PDF files: text per page, one section per page (``Page N``)."""

from __future__ import annotations

import io
import logging
from datetime import datetime
from pathlib import PurePosixPath

from notecite.errors import ParseError
from notecite.ingest.name_dates import date_in_name
from notecite.types import DocType, ParsedNote, Section

logger = logging.getLogger(__name__)


def parse_pdf(rel_path: str, data: bytes, mtime: datetime) -> ParsedNote:
    """Extract each page's text with pypdf; raises ParseError when the file is unreadable."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import PdfReadError
    except ImportError as exc:  # pragma: no cover - pypdf is a core dependency
        raise ParseError("PDF support needs pypdf: pip install pypdf") from exc
    # pypdf reports recoverable oddities through logging/warnings; they are not failures.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            raise ParseError("PDF is encrypted")
        pages = [page.extract_text() or "" for page in reader.pages]
        meta_title = (reader.metadata.title if reader.metadata else None) or ""
    except ParseError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise ParseError(f"unreadable PDF: {exc}") from exc
    sections = []
    line = 1
    for number, page_text in enumerate(pages, start=1):
        lines = [ln.rstrip() for ln in page_text.split("\n") if ln.strip()]
        if lines:
            sections.append(
                Section((f"Page {number}",), line, line + len(lines) - 1, "\n".join(lines))
            )
            line += len(lines)
    dated = date_in_name(rel_path) or mtime
    return ParsedNote(
        rel_path=rel_path,
        doc_type=DocType.PDF,
        title=str(meta_title).strip() or PurePosixPath(rel_path).stem,
        description="",
        keywords=(),
        note_type=None,
        created=dated,
        updated=dated,
        frontmatter={"pages": len(pages)},
        sections=tuple(sections),
    )
