"""Filters written inside a question, and the rows frontmatter is indexed as."""

from __future__ import annotations

from datetime import UTC, datetime

from notecite.filters import Field, Op, extract_inline, note_fields


def test_inline_filters_are_cut_out_of_the_question() -> None:
    found = extract_inline("What did we decide #atlas type:meeting about the budget? has:due")
    assert found.question == "What did we decide about the budget?"
    assert [(c.key, c.op, c.values) for c in found.conditions] == [
        ("tags", Op.PREFIX, ("atlas",)),
        ("due", Op.HAS, ()),
        ("type", Op.EQ, ("meeting",)),
    ]
    assert [c.source for c in found.conditions] == ["#atlas", "has:due", "type:meeting"]


def test_negation_dates_quotes_and_trailing_punctuation() -> None:
    found = extract_inline('budget -status:draft created>=2024-01-01 owner:"Priya Shah"?')
    assert found.question == "budget ?"
    by_key = {c.key: c for c in found.conditions}
    assert by_key["status"].op is Op.NE
    assert by_key["owner"].values == ("priya shah",)
    created = by_key["created"]
    assert created.bound is not None
    assert created.bound.value == datetime(2024, 1, 1, tzinfo=UTC).timestamp()
    assert extract_inline("what is status:final.").conditions[0].values == ("final",)


def test_text_that_only_looks_like_a_filter_stays() -> None:
    for question in (
        "visit http://x.com at 10:30",
        "is C# faster? ranked #1",
        "Note: the budget",
        "# heading",
    ):
        found = extract_inline(question)
        assert found.question == question
        assert found.conditions == ()


def test_a_question_of_filters_only_keeps_its_text() -> None:
    found = extract_inline("#atlas")
    assert found.question == "#atlas"
    assert len(found.conditions) == 1


def test_frontmatter_rows() -> None:
    rows = note_fields(
        {
            "Tags": "#Atlas, launch",
            "created": 1608552018432,
            "due": None,
            "date": "2024-01-05",
            "n": 3,
            "done": True,
            "nested": {"a": 1},
            "summary": "x" * 300,
            "aliases": ["A", "A"],
        }
    )
    assert Field("tags", "atlas") in rows
    assert Field("tags", "launch") in rows
    assert Field("created", "1608552018432", 1608552018432.0, 1608552018.432) in rows
    assert Field("due", None) in rows
    assert Field("date", "2024-01-05", None, datetime(2024, 1, 5, tzinfo=UTC).timestamp()) in rows
    assert Field("n", "3", 3.0, None) in rows
    assert Field("done", "true") in rows
    assert Field("nested", None) in rows
    assert Field("summary", None) in rows
    assert [r for r in rows if r.key == "aliases"] == [Field("aliases", "a")]


def test_a_pair_whose_key_no_note_has_stays_text() -> None:
    found = extract_inline("re:budget for type:meeting", known_key=lambda key: key == "type")
    assert found.question == "re:budget for"
    assert [c.source for c in found.conditions] == ["type:meeting"]


def test_a_tag_no_note_carries_stays_text() -> None:
    question = "How do I rename #todo to #tasks, only in #atlas notes?"
    found = extract_inline(question, known_tag=lambda tag: tag == "atlas")
    assert found.question == "How do I rename #todo to #tasks, only in notes?"
    assert [c.source for c in found.conditions] == ["#atlas"]


def test_a_tag_written_as_a_word_after_tagged_is_a_tag_some_note_carries() -> None:
    def known(tag: str) -> bool:
        return tag in ("recipe", "travel")

    for question, tag in (
        ("Which notes are tagged recipe?", "recipe"),
        ("Which notes are tagged recipes?", "recipe"),  # the tag a plural names
        ("notes tagged with travel about Lisbon", "travel"),
        ("What notes with the tag 'travel' mention Lisbon?", "travel"),
    ):
        found = extract_inline(question, known_tag=known)
        assert [(c.key, c.op, c.values, c.source) for c in found.conditions] == [
            ("tags", Op.PREFIX, (tag,), f"#{tag}")
        ], question
        assert tag not in found.question.lower()
    # a word no note carries as a tag, or no tag lookup at all, stays text
    assert extract_inline("notes tagged love", known_tag=known).conditions == ()
    assert extract_inline("Which notes are tagged recipe?").conditions == ()
