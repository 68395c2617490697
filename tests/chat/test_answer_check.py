"""Citation validation of chat answers: valid, invalid, none, and an admitted gap."""

from __future__ import annotations

from notecite.chat.answer import check_answer, without_markers
from notecite.chat.history import history_messages, sources_block, strip_sources
from notecite.chat.retrieval import RetrievedSource
from notecite.generate.citations import FALLBACK_ANSWER
from notecite.schemas.chat import StoredMessage

SOURCES = (
    RetrievedSource("N1", "c1", "notes", "projects/apollo.md", "# Apollo > ## Launch", "x", 0.9),
    RetrievedSource("N2", "c2", "notes", "projects/apollo.md", "# Apollo > ## Budget", "y", 0.8),
)


def test_valid_citations_are_kept_in_first_cited_order() -> None:
    checked = check_answer("Budget is 40k [N2]. Launch is March 14 [N1].", SOURCES, grounded=True)
    assert checked.text == "Budget is 40k [N2]. Launch is March 14 [N1]."
    assert [s.cid for s in checked.cited] == ["N2", "N1"]
    assert checked.invalid == 0
    assert not checked.fallback


def test_invalid_citations_are_removed_and_counted() -> None:
    checked = check_answer("Launch is March 14 [N1][N7]. Also [N9].", SOURCES, grounded=True)
    assert checked.text == "Launch is March 14 [N1]. Also."
    assert [s.cid for s in checked.cited] == ["N1"]
    assert checked.invalid == 2


def test_an_answer_without_a_valid_citation_becomes_the_fallback() -> None:
    for raw in ("The launch is in March.", "The launch is in March [N8]."):
        checked = check_answer(raw, SOURCES, grounded=True)
        assert checked.text == FALLBACK_ANSWER
        assert checked.cited == ()
        assert checked.fallback


def test_an_answer_that_admits_the_notes_do_not_say_is_kept() -> None:
    raw = "The notes don't mention who designed the rocket."
    checked = check_answer(raw, SOURCES, grounded=True)
    assert (checked.text, checked.cited, checked.fallback) == (raw, (), False)


def test_plain_chat_is_not_replaced_by_the_fallback() -> None:
    checked = check_answer("Hello! How can I help? [N1]", (), grounded=False)
    assert checked.text == "Hello! How can I help?"
    assert checked.invalid == 1


def test_markers_come_out_when_citations_are_off() -> None:
    assert without_markers("Launch is March 14 [N1]. Budget [N2][N3].") == (
        "Launch is March 14. Budget."
    )


def test_the_sources_list_and_history_cleaning() -> None:
    block = sources_block([(s.cid, s.label) for s in SOURCES])
    assert block == (
        "\n\n---\n**Sources:**\n"
        "- [1] notes/projects/apollo.md > # Apollo > ## Launch\n"
        "- [2] notes/projects/apollo.md > # Apollo > ## Budget"
    )
    assert sources_block([]) == ""
    stored = "Launch is March 14 [N1]." + block
    assert strip_sources(stored) == "Launch is March 14 [N1]."
    past = [
        StoredMessage(id=1, role="user", content="When?", created_at="2025-01-01T00:00:00Z"),
        StoredMessage(id=2, role="assistant", content=stored, created_at="2025-01-01T00:00:00Z"),
    ]
    turns = history_messages(past)
    assert [(t.role, t.content) for t in turns] == [
        ("user", "When?"),
        ("assistant", "Launch is March 14."),
    ]
