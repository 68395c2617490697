"""Chunking invariants (hypothesis) and the shape of composite embed texts."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from itertools import pairwise

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from notecite.chunking import ChunkerConfig, chunk_note
from notecite.chunking.chunker import TokenCounter, path_words
from notecite.embed.hashing import HashEmbedder
from notecite.ingest.markdown import parse_markdown
from notecite.types import Chunk, ParsedNote

MTIME = datetime(2024, 1, 1, tzinfo=UTC)
count_words = HashEmbedder().count_tokens
_WORD = re.compile(r"\w+")


def count_chars(texts: Sequence[str]) -> list[int]:
    """A token counter as greedy as a tokenizer can be: every non-space character."""
    return [sum(1 for ch in text if not ch.isspace()) for text in texts]


def note_from(
    body: str, title: str = "Note", description: str = "", keywords: Sequence[str] = ()
) -> tuple[ParsedNote, str]:
    front: dict[str, object] = {"title": title}
    if description:
        front["description"] = description
    if keywords:
        front["keywords"] = list(keywords)
    text = "---\n" + yaml.safe_dump(front, sort_keys=False) + "---\n" + body
    return parse_markdown("notes/n.md", text, MTIME), text


def chunks_of(
    note: ParsedNote, max_tokens: int = 64, overlap: int = 8, count: TokenCounter = count_words
) -> list[Chunk]:
    return chunk_note(note, "vault", count, ChunkerConfig(max_tokens, overlap))


def body_lines(text: str, note: ParsedNote) -> dict[int, str]:
    """Non-blank lines of the note body, by 1-based file line number."""
    lines = text.split("\n")
    first = note.sections[0].line_start if note.sections else len(lines) + 1
    return {n: ln for n, ln in enumerate(lines, start=1) if n >= first and ln.strip()}


def _is_heading(line: str) -> bool:
    return re.match(r"#{1,6}[ \t]+\S", line) is not None


# -- strategies ---------------------------------------------------------------------------

words = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
short_phrase = st.lists(words, min_size=1, max_size=6).map(" ".join)
text_line = st.lists(words, min_size=1, max_size=25).map(" ".join)
long_line = st.lists(words, min_size=60, max_size=300).map(" ".join)
heading_line = st.tuples(st.integers(1, 4), short_phrase).map(lambda t: "#" * t[0] + " " + t[1])
any_line = st.one_of(
    text_line, text_line, text_line, st.just(""), heading_line, long_line, st.just("   ")
)
bodies = st.lists(any_line, min_size=1, max_size=60).map("\n".join)
keywords = st.lists(words, max_size=4)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    body=bodies,
    title=short_phrase,
    description=st.one_of(st.just(""), short_phrase),
    kws=keywords,
    max_tokens=st.integers(24, 160),
    overlap=st.integers(0, 40),
)
def test_chunk_invariants(
    body: str, title: str, description: str, kws: list[str], max_tokens: int, overlap: int
) -> None:
    note, text = note_from(body, title, description, kws)
    chunks = chunks_of(note, max_tokens, overlap)
    lines = body_lines(text, note)

    assert [c.chunk_index for c in chunks] == list(range(len(chunks)))
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    assert bool(chunks) == bool(lines)

    # Spans are monotonic and point at non-blank body lines.
    for chunk in chunks:
        assert chunk.line_start <= chunk.line_end
        assert chunk.line_start in lines
        assert chunk.line_end in lines
    starts = [c.line_start for c in chunks]
    assert starts == sorted(starts)

    # No chunk over budget: the text fits beside its header in the model's window.
    for chunk in chunks:
        header = count_words([chunk.embed_text])[0] - count_words([chunk.text])[0]
        budget = max(16, max_tokens - header - 4)
        assert count_words([chunk.text])[0] <= chunk.token_count <= budget
        if header + 4 + 16 <= max_tokens:
            assert count_words([chunk.embed_text])[0] <= max_tokens

    # Every non-blank body line is covered, verbatim unless it had to be split. A heading
    # with nothing under it before the next heading may be left out (it holds no content).
    numbers = sorted(lines)
    for number, line in lines.items():
        around = [c for c in chunks if c.line_start <= number <= c.line_end]
        following = [lines[n] for n in numbers if n > number][:1]
        bare_heading = _is_heading(line) and (not following or _is_heading(following[0]))
        if bare_heading and not around:
            continue
        assert around, f"line {number} is in no chunk"
        if not any(line in c.text.split("\n") for c in around):
            seen = {w for c in around for w in c.text.split()}
            assert set(line.split()) <= seen, f"words of line {number} lost"


@settings(max_examples=60, deadline=None)
@given(body=bodies, max_tokens=st.integers(24, 160), overlap=st.integers(0, 40))
def test_chunking_is_deterministic(body: str, max_tokens: int, overlap: int) -> None:
    note, _ = note_from(body)
    assert chunks_of(note, max_tokens, overlap) == chunks_of(note, max_tokens, overlap)


@settings(max_examples=60, deadline=None)
@given(body=bodies, extra=text_line)
def test_ids_stable_for_unchanged_chunks(body: str, extra: str) -> None:
    before = chunks_of(note_from(body)[0])
    after = chunks_of(note_from(body + "\n\n# Appended section\n" + extra)[0])
    assert [c.chunk_id for c in after[: len(before)]] == [c.chunk_id for c in before]
    assert len(after) > len(before)


def test_changed_content_changes_id_and_hash_place_changes_id() -> None:
    base = "# A\nalpha beta\n# B\ngamma delta"
    first = chunks_of(note_from(base)[0])
    edited = chunks_of(note_from(base.replace("gamma", "epsilon"))[0])
    assert first[0].chunk_id == edited[0].chunk_id
    assert first[1].chunk_id != edited[1].chunk_id
    assert first[1].content_hash != edited[1].content_hash
    # the same words of its place ("notes n"): the same embedded text, another chunk id
    other_file = chunk_note(
        parse_markdown("notes/2024/n.md", "---\ntitle: Note\n---\n" + base, MTIME),
        "vault",
        count_words,
        ChunkerConfig(64, 8),
    )
    assert [c.content_hash for c in other_file] == [c.content_hash for c in first]
    assert {c.chunk_id for c in other_file}.isdisjoint(c.chunk_id for c in first)
    other_vault = chunk_note(
        first_note := note_from(base)[0], "v2", count_words, ChunkerConfig(64, 8)
    )
    assert first_note.rel_path == "notes/n.md"
    assert {c.chunk_id for c in other_vault}.isdisjoint(c.chunk_id for c in first)


def test_composite_embed_text() -> None:
    note, _ = note_from(
        "# Atlas\nintro line\n## Budget\nUSD 240,000",
        title="Atlas project",
        description="Launch plan and money",
        keywords=["atlas", "budget"],
    )
    first, second = chunks_of(note)
    assert first.heading_path == "# Atlas"
    assert first.embed_text == (
        "notes n\nAtlas project\n# Atlas\nLaunch plan and money\nKeywords: atlas, budget\n"
        "# Atlas\nintro line"
    )
    assert second.heading_path == "# Atlas > ## Budget"
    assert second.embed_text == (
        "notes n\nAtlas project\n# Atlas > ## Budget\n## Budget\nUSD 240,000"
    )
    assert second.text == "## Budget\nUSD 240,000"


def test_embed_text_without_heading_or_metadata_is_path_title_and_text() -> None:
    (chunk,) = chunks_of(note_from("just one line")[0])
    assert chunk.heading_path == ""
    assert chunk.embed_text == "notes n\nNote\njust one line"


@pytest.mark.parametrize(
    ("rel_path", "words"),
    [
        ("user/tools/cli/note.md", "user tools cli note"),
        # Dendron files a note in a dotted hierarchy; a camelCase name is words too
        (
            "dendron.topic.publish.config.enableSiteLastModified.md",
            "dendron topic publish config enable Site Last Modified",
        ),
        ("Meeting Notes/Q3 planning.md", "Meeting Notes Q3 planning"),
        ("journal/2024-01-05.md", "journal"),  # a date names no topic
        ("10009203.md", ""),  # nor an id: such a note's embedded text is as before
    ],
)
def test_path_words(rel_path: str, words: str) -> None:
    assert path_words(rel_path) == words


def test_long_section_is_split_into_overlapping_windows() -> None:
    body = "# Log\n" + "\n".join(f"entry {i} happened on day {i}" for i in range(60))
    chunks = chunks_of(note_from(body)[0], max_tokens=64, overlap=16)
    assert len(chunks) > 5
    for prev, nxt in pairwise(chunks):
        assert nxt.line_start <= prev.line_end, "windows should overlap"
        assert nxt.line_start > prev.line_start, "windows should advance"
        shared = prev.text.split("\n")[-1]
        assert shared in nxt.text.split("\n")
        assert nxt.heading_path == "# Log"


def test_no_overlap_means_disjoint_windows() -> None:
    body = "# Log\n" + "\n".join(f"entry {i} happened on day {i}" for i in range(60))
    chunks = chunks_of(note_from(body)[0], max_tokens=64, overlap=0)
    for prev, nxt in pairwise(chunks):
        assert nxt.line_start == prev.line_end + 1


def test_enormous_single_line_is_split_in_order() -> None:
    line = " ".join(f"w{i}" for i in range(3000))
    note, text = note_from("intro\n" + line + "\noutro")
    chunks = chunks_of(note, max_tokens=64, overlap=0)
    number = text.split("\n").index(line) + 1
    pieces = [c for c in chunks if c.line_start <= number <= c.line_end]
    assert len(pieces) > 40
    words_seen = [w for c in pieces for w in c.text.split() if w.startswith("w")]
    assert words_seen == line.split()
    assert all(c.token_count <= 64 for c in chunks)


@settings(max_examples=100, deadline=None)
@given(
    unit=st.text(alphabet="ab.", min_size=1, max_size=5).filter(lambda u: "a" in u or "b" in u),
    repeat=st.integers(10, 400),
    max_tokens=st.integers(24, 96),
)
def test_enormous_single_word_is_cut_without_loss(unit: str, repeat: int, max_tokens: int) -> None:
    word = unit * repeat
    note, _ = note_from("before\n" + word + "\nafter", title="T")
    for count in (count_words, count_chars):
        chunks = chunks_of(note, max_tokens=max_tokens, overlap=0, count=count)
        rebuilt = "".join(c.text.replace(" ", "").replace("\n", "") for c in chunks)
        assert rebuilt == "before" + word + "after"
        for chunk in chunks:
            header = count([chunk.embed_text])[0] - count([chunk.text])[0]
            budget = max(16, max_tokens - header - 4)
            assert count([chunk.text])[0] <= chunk.token_count <= budget


def test_every_chunk_records_its_token_count() -> None:
    chunks: list[Chunk] = chunks_of(note_from("# H\none two three\nfour five")[0])
    assert [c.token_count for c in chunks] == [count_words([c.text])[0] for c in chunks]
