"""Encoded data in a note (a pasted image's data: URI, an Excalidraw drawing's base64) is
read as a mark or a blank line, not as text to cut, embed and search."""

from __future__ import annotations

import base64
import random
from datetime import UTC, datetime

from notecite.chunking import ChunkerConfig, chunk_note
from notecite.embed.hashing import HashEmbedder
from notecite.ingest.blobs import without_blobs
from notecite.ingest.parse import note_lines_as_read, parse_file

NOW = datetime(2026, 11, 30, tzinfo=UTC)


def _payload(size: int) -> str:
    return base64.b64encode(random.Random(7).randbytes(size)).decode()


def test_a_data_uri_keeps_its_type_and_loses_its_payload() -> None:
    line = f"![shot](data:image/png;base64,{_payload(3000)}) and `data:text/plain;base64,aGk=`"
    assert without_blobs(line) == "![shot](data:image/png;base64,…) and `data:text/plain;base64,…`"


def test_lines_of_bare_base64_are_blank_and_every_line_stays() -> None:
    blob = _payload(768)  # four lines of 256
    lines = [blob[i : i + 256] for i in range(0, len(blob), 256)]
    text = "\n".join(["# Drawing", "```compressed-json", *lines, "```", "after"])
    read = without_blobs(text).split("\n")
    assert read == ["# Drawing", "```compressed-json", *[""] * len(lines), "```", "after"]


def test_long_words_urls_and_hashes_stay() -> None:
    text = "\n".join(
        [
            "https://camo.example.com/" + "f6cb94205c5f83dc" * 8,  # a URL of hex runs
            "sha256 " + "a" * 64,
            "x" * 99,
            "ACGT" * 40,  # a DNA sequence
            "a" * 300,
            "0123456789abcdef" * 10,  # hex
            "A sentence that goes on and on " * 10,
        ]
    )
    assert without_blobs(text) == text


def test_a_pasted_image_is_one_chunk_not_hundreds() -> None:
    note = (
        "# Trip photos\n\nThe view from the ridge was great.\n\n"
        f"![image](data:image/png;base64,{_payload(300_000)})\n\nWe camped at Llyn Idwal.\n"
    )
    parsed = parse_file("trip.md", note.encode(), NOW)
    counter = HashEmbedder()
    config = ChunkerConfig(max_tokens=counter.max_tokens, overlap_tokens=32)
    chunks = chunk_note(parsed, "v", counter.count_tokens, config)
    assert len(chunks) == 1
    assert "We camped at Llyn Idwal." in chunks[0].text
    assert note_lines_as_read("trip.md", note)[4] == "![image](data:image/png;base64,…)"
