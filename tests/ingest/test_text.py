"""Plain text files and the decoding every text format shares."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from notecite.errors import ParseError
from notecite.ingest.parse import decode_text, parse_file
from notecite.types import DocType

MTIME = datetime(2024, 1, 1, tzinfo=UTC)


def test_text_file_is_one_section_of_its_non_blank_span() -> None:
    note = parse_file("logs/today.txt", b"\n\nfirst line\n\n# not a heading\nlast\n\n", MTIME)
    assert note.doc_type is DocType.TEXT
    assert note.title == "today"
    assert note.folder == "logs"
    assert len(note.sections) == 1
    section = note.sections[0]
    assert section.heading_path == ()
    assert (section.line_start, section.line_end) == (3, 6)
    assert section.text == "first line\n\n# not a heading\nlast"
    assert note.created == note.updated == MTIME


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"\xef\xbb\xbfbom then text", "bom then text"),
        (b"a\r\nb\rc\n", "a\nb\nc\n"),
        ("caf\u00e9 \u2013 \u65e5\u672c".encode(), "caf\u00e9 \u2013 \u65e5\u672c"),
    ],
)
def test_decode_text(data: bytes, expected: str) -> None:
    assert decode_text(data) == expected


def test_crlf_lines_are_numbered_like_the_file() -> None:
    note = parse_file("a.md", b"---\r\ntitle: T\r\n---\r\n# H\r\nbody\r\n", MTIME)
    assert note.title == "T"
    assert [(s.line_start, s.line_end) for s in note.sections] == [(4, 5)]


@pytest.mark.parametrize(
    ("rel_path", "data", "reason"),
    [
        ("a.txt", b"", "empty file"),
        ("a.md", b"  \n\t\n", "empty file"),
        ("a.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
        ("a.txt", "caf\u00e9".encode("latin-1"), "not valid UTF-8"),
        ("a.html", b"<p>\xff\xfe</p>", "not valid UTF-8"),
    ],
)
def test_undecodable_files_are_parse_errors(rel_path: str, data: bytes, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parse_file(rel_path, data, MTIME)


@pytest.mark.parametrize(
    ("rel_path", "doc_type"),
    [
        ("a.md", DocType.MARKDOWN),
        ("a.MARKDOWN", DocType.MARKDOWN),
        ("a.txt", DocType.TEXT),
        ("a.html", DocType.HTML),
        ("a.htm", DocType.HTML),
    ],
)
def test_type_by_extension(rel_path: str, doc_type: DocType) -> None:
    assert parse_file(rel_path, b"# x\ny", MTIME).doc_type is doc_type
