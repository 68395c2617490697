"""Turn a file's bytes into a ParsedNote, by extension; every failure is a ParseError."""

from __future__ import annotations

from datetime import datetime
from pathlib import PurePosixPath

from notecite.errors import ParseError
from notecite.ingest.html import parse_html
from notecite.ingest.markdown import lines_as_read, parse_markdown
from notecite.ingest.org import org_lines_as_read, parse_org
from notecite.ingest.pdf import parse_pdf
from notecite.ingest.plaintext import parse_text
from notecite.types import ParsedNote

MARKDOWN_EXT = {".md", ".markdown"}
ORG_EXT = {".org"}
HTML_EXT = {".html", ".htm"}


def decode_text(data: bytes) -> str:
    """UTF-8 text (BOM dropped, CRLF normalised), or ParseError for binary/other encodings."""
    if b"\x00" in data[:8192]:
        raise ParseError("binary file (contains NUL bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ParseError(f"not valid UTF-8 (byte {exc.start}); re-save the file as UTF-8") from exc
    return text.replace("\r\n", "\n").replace("\r", "\n")


def note_lines_as_read(rel_path: str, text: str) -> list[str]:
    """The lines of a note file numbered as in the file, a markdown note's as the index
    reads them (:func:`~notecite.ingest.markdown.lines_as_read`), an org note's as the
    markdown it is read as."""
    suffix = PurePosixPath(rel_path).suffix.lower()
    if suffix in MARKDOWN_EXT:
        return lines_as_read(text)
    if suffix in ORG_EXT:
        return org_lines_as_read(text)
    return text.split("\n")


def parse_file(rel_path: str, data: bytes, mtime: datetime) -> ParsedNote:
    """Parse one vault file.

    Raises:
        ParseError: empty, binary, badly encoded, or malformed content.
    """
    if not data.strip():
        raise ParseError("empty file")
    suffix = PurePosixPath(rel_path).suffix.lower()
    if suffix == ".pdf":
        note = parse_pdf(rel_path, data, mtime)
    elif suffix in HTML_EXT:
        note = parse_html(rel_path, decode_text(data), mtime)
    elif suffix in MARKDOWN_EXT:
        note = parse_markdown(rel_path, decode_text(data), mtime)
    elif suffix in ORG_EXT:
        note = parse_org(rel_path, decode_text(data), mtime)
    else:
        note = parse_text(rel_path, decode_text(data), mtime)
    if not note.sections and suffix == ".pdf":
        raise ParseError("PDF has no extractable text (scanned images need OCR)")
    return note
