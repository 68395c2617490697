"""Context assembly: merging, dedup, and a budget that is never exceeded."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from notecite.embed.hashing import HashEmbedder
from notecite.generate.context import ContextBudget, ContextPiece, assemble_context, merge_pieces

COUNT = HashEmbedder().count_tokens


def piece(
    index: int, path: str, start: int, end: int, text: str, heading: str = "# A"
) -> ContextPiece:
    return ContextPiece(index, "v", path, heading, text, start, end)


def test_overlapping_windows_merge_and_keep_the_overlap_once() -> None:
    first = piece(0, "a.md", 1, 3, "one\ntwo\nthree")
    second = piece(1, "a.md", 3, 5, "three\nfour\nfive")
    (block,) = merge_pieces([second, first])
    assert block.text == "one\ntwo\nthree\nfour\nfive"
    assert block.members == [0, 1]
    assert (block.line_start, block.line_end) == (1, 5)


def test_adjacent_sections_merge_under_their_common_heading() -> None:
    first = piece(0, "a.md", 1, 2, "## X\nx text", "# A > ## X")
    second = piece(1, "a.md", 3, 4, "## Y\ny text", "# A > ## Y")
    (block,) = merge_pieces([first, second])
    assert block.heading_path == "# A"
    assert block.text == "## X\nx text\n## Y\ny text"


def test_distant_chunks_of_a_note_stay_apart_and_notes_keep_relevance_order() -> None:
    blocks = merge_pieces(
        [
            piece(0, "b.md", 10, 12, "late part"),
            piece(1, "a.md", 1, 2, "other note"),
            piece(2, "b.md", 1, 2, "early part"),
        ]
    )
    assert [(b.rel_path, b.members) for b in blocks] == [
        ("b.md", [0]),
        ("a.md", [1]),
        ("b.md", [2]),
    ]


def test_repeated_text_is_dropped() -> None:
    blocks = merge_pieces(
        [piece(0, "a.md", 1, 1, "same  words"), piece(1, "copy.md", 1, 1, "same words")]
    )
    assert [b.members for b in blocks] == [[0]]


def test_budget_skips_blocks_that_do_not_fit_but_keeps_the_best() -> None:
    big = piece(0, "a.md", 1, 1, "word " * 50)
    small = piece(1, "b.md", 1, 1, "tiny note")
    blocks = assemble_context([big, small], ContextBudget(max_tokens=51), COUNT)
    assert [b.members for b in blocks] == [[0]]


def test_max_chunks_and_chars() -> None:
    pieces = [piece(i, f"n{i}.md", 1, 1, f"note number {i}") for i in range(20)]
    assert len(assemble_context(pieces, ContextBudget(max_chunks=12), COUNT)) == 12
    assert len(assemble_context(pieces, ContextBudget(max_chars=30), COUNT)) == 2


@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),
            st.integers(1, 40),
            st.integers(0, 5),
            st.text(alphabet="abc \n", min_size=1, max_size=200),
        ),
        min_size=1,
        max_size=15,
    ),
    st.integers(5, 120),
)
def test_budget_is_never_exceeded(specs: list[tuple[int, int, int, str]], budget: int) -> None:
    pieces = [
        piece(i, f"n{note}.md", start, start + span, text)
        for i, (note, start, span, text) in enumerate(specs)
    ]
    blocks = assemble_context(pieces, ContextBudget(max_tokens=budget, max_chars=400), COUNT)
    assert sum(COUNT([b.text])[0] for b in blocks) <= budget
    assert sum(len(b.text) for b in blocks) <= 400 + len(blocks)
    members = [m for b in blocks for m in b.members]
    assert len(members) == len(set(members)) <= 12
