"""Sentence windows: in order, every word once, short fragments joined, long ones cut."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from notecite.chunking.chunker import ChunkerConfig, chunk_note, sentence_texts_for
from notecite.chunking.sentences import sentence_windows
from notecite.ingest.parse import parse_file


def test_sentences_lines_and_short_fragments() -> None:
    text = (
        'He said "stop." Then the committee voted on the budget. Short one.\n'
        "- a bullet item about the roadmap review\n"
        "- tiny\n"
        "Dr. Smith joined the meeting late today."
    )
    assert sentence_windows(text) == [
        'He said "stop." Then the committee voted on the budget.',
        "Short one. - a bullet item about the roadmap review",
        "- tiny Dr. Smith joined the meeting late today.",
    ]


def test_long_sentence_is_cut_into_word_windows() -> None:
    words = [f"w{i}" for i in range(170)]
    windows = sentence_windows(" ".join(words), max_words=80)
    assert [len(w.split()) for w in windows] == [80, 80, 10]


def test_a_short_tail_joins_the_last_window() -> None:
    assert sentence_windows("The first sentence is long enough here. Tail.") == [
        "The first sentence is long enough here. Tail."
    ]
    assert sentence_windows("") == sentence_windows("  \n ") == []


@given(st.text(alphabet=st.sampled_from("ab .!?\nXY1\"'()"), max_size=400))
def test_windows_cover_the_words_in_order(text: str) -> None:
    windows = sentence_windows(text, min_words=3, max_words=12)
    assert " ".join(windows).split() == text.split()
    assert all(0 < len(w.split()) <= 12 for w in windows)


def test_chunks_of_several_sentences_list_their_windows() -> None:
    note = parse_file(
        "n.md",
        b"---\ntitle: Trip\n---\n# Plan\nWe fly to Lisbon on Monday morning. "
        b"The hotel is booked near the old town.\n\n# Short\nOne line only here.\n",
        None,
    )
    count = lambda texts: [len(t.split()) for t in texts]  # noqa: E731
    chunks = chunk_note(note, "v", count, ChunkerConfig())
    # The heading line is a fragment under min_words, so it joins the first sentence.
    assert chunks[0].sentence_texts == (
        "Trip > # Plan\n# Plan We fly to Lisbon on Monday morning.",
        "Trip > # Plan\nThe hotel is booked near the old town.",
    )
    assert len(set(chunks[0].sentence_hashes)) == 2
    assert chunks[1].sentence_texts == ()  # one window: the chunk vector stands for it
    off = chunk_note(note, "v", count, ChunkerConfig(sentence_vectors=False))
    assert [c.sentence_texts for c in off] == [(), ()]
    assert [c.content_hash for c in off] == [c.content_hash for c in chunks]
    two = "The first sentence has six words. The second one has six too."
    assert sentence_texts_for(note, "", two) == (
        "Trip\nThe first sentence has six words.",
        "Trip\nThe second one has six too.",
    )
