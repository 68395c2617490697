"""PDF files: text per page from a real (hand-written) PDF, one section per page."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pypdf import PdfReader

from notecite.errors import ParseError
from notecite.ingest.parse import parse_file
from notecite.types import DocType

MTIME = datetime(2024, 1, 1, tzinfo=UTC)


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def make_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A minimal, valid PDF 1.4: one Helvetica text line per entry, one page per list."""
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    }
    page_ids = [4 + 2 * i for i in range(len(pages))]
    kids = " ".join(f"{p} 0 R" for p in page_ids)
    objects[2] = f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode()
    for page_id, lines in zip(page_ids, pages, strict=True):
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
        ops += [f"{_pdf_string(line)} Tj T*" for line in lines]
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects[page_id] = (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {page_id + 1} 0 R >>"
        ).encode()
        objects[page_id + 1] = b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream)
    info = ""
    if title is not None:
        info_id = max(objects) + 1
        objects[info_id] = f"<< /Title {_pdf_string(title)} >>".encode("latin-1")
        info = f" /Info {info_id} 0 R"
    out = bytearray(b"%PDF-1.4\n")
    offsets: dict[int, int] = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n%s\nendobj\n" % (number, objects[number])
    xref = len(out)
    size = max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    out += b"".join(b"%010d 00000 n \n" % offsets[n] for n in range(1, size))
    out += f"trailer\n<< /Size {size} /Root 1 0 R{info} >>\n".encode()
    out += b"startxref\n%d\n%%%%EOF\n" % xref
    return bytes(out)


def test_the_hand_written_pdf_is_valid() -> None:
    import io

    reader = PdfReader(io.BytesIO(make_pdf([["hello"], ["world"]])))
    assert len(reader.pages) == 2


def test_text_per_page_one_section_each() -> None:
    data = make_pdf(
        [
            ["Quarterly budget review", "Cloud spend (USD) went down"],
            ["Team changes", "Priya leads Atlas"],
        ]
    )
    note = parse_file("reports/q1.pdf", data, MTIME)
    assert note.doc_type is DocType.PDF
    assert [s.heading_path for s in note.sections] == [("Page 1",), ("Page 2",)]
    assert note.sections[0].text == "Quarterly budget review\nCloud spend (USD) went down"
    assert note.sections[1].text == "Team changes\nPriya leads Atlas"
    assert [(s.line_start, s.line_end) for s in note.sections] == [(1, 2), (3, 4)]
    assert note.frontmatter == {"pages": 2}
    assert note.folder == "reports"


def test_empty_pages_are_skipped_but_counted() -> None:
    note = parse_file("a.pdf", make_pdf([["first"], [], ["third"]]), MTIME)
    assert [s.heading_path for s in note.sections] == [("Page 1",), ("Page 3",)]
    assert note.frontmatter == {"pages": 3}


def test_title_from_metadata_then_file_name() -> None:
    assert parse_file("a.pdf", make_pdf([["x"]], title="Budget 2025"), MTIME).title == (
        "Budget 2025"
    )
    assert parse_file("dir/scan-7.pdf", make_pdf([["x"]]), MTIME).title == "scan-7"


def test_pdf_without_text_is_a_parse_error() -> None:
    with pytest.raises(ParseError, match="no extractable text"):
        parse_file("scan.pdf", make_pdf([[], []]), MTIME)


@pytest.mark.parametrize("data", [b"%PDF-1.4\ngarbage", b"not a pdf at all"])
def test_corrupt_pdf_is_a_parse_error(data: bytes) -> None:
    with pytest.raises(ParseError, match="unreadable PDF"):
        parse_file("broken.pdf", data, MTIME)


def test_truncated_pdf_is_a_parse_error() -> None:
    data = make_pdf([["some text here"]])
    with pytest.raises(ParseError):
        parse_file("cut.pdf", data[: len(data) // 2], MTIME)
