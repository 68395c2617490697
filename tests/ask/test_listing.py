"""A question that asks only which notes a tag, filter or folder holds is answered by the
list of those notes, each cited, with no model call (real SQLite, the hash embedder)."""

from __future__ import annotations

import pytest

from notecite import Engine
from notecite.filters.model import Condition, Op
from notecite.generate.listing import gist, listing_text
from notecite.retrieve.listing import LISTED_AT_MOST, asks_for_listing, scope_words
from notecite.schemas.ask import AskRequest
from notecite.schemas.chat import ChatRequest
from notecite.testing import EngineFactory, ScriptedLLM
from tests.ask.notes import dated_note

NOTES = {
    "reading/slow-bread.md": dated_note(
        "book, baking", "2026-01-30", "Slow Bread", "About fermentation time as an ingredient."
    ),
    "daily/2026-01-17.md": dated_note(
        "daily, baking",
        "2026-01-17",
        "Saturday 17 January",
        "- [x] Bake the [[sourdough-loaf|country loaf]] with **9 g** salt.",
    ),
    "recipes/cookies.md": dated_note(
        "recipe, baking", "2025-12-01", "Ginger cookies", "Chewy ones. Makes about 24."
    ),
    "recipes/dal.md": dated_note(
        "recipe", "2025-11-02", "Red lentil dal", "Freezes well for a month."
    ),
    "work/kafka.md": dated_note(
        "sre", "2026-02-02", "Kafka runbook", "Restart the Kafka brokers one at a time."
    ),
}


@pytest.fixture
def llm() -> ScriptedLLM:
    return ScriptedLLM("The notes say so [N1].")


@pytest.fixture
def engine(notecite_engines: EngineFactory, llm: ScriptedLLM) -> Engine:
    return notecite_engines(vaults={"me": NOTES}, llm=llm, ask={"auto_rag": "off"})


def test_a_tag_question_lists_the_tagged_notes_newest_first(
    engine: Engine, llm: ScriptedLLM
) -> None:
    response = engine.ask(AskRequest(question="What notes are tagged #baking?", debug=True))

    assert not response.abstained
    assert response.answer.splitlines() == [
        "3 notes tagged #baking:",
        "- Slow Bread: About fermentation time as an ingredient. [N1]",
        "- Saturday 17 January: Bake the country loaf with 9 g salt. [N2]",
        "- Ginger cookies: Chewy ones. Makes about 24. [N3]",
    ]
    assert [(r.cid, r.rel_path) for r in response.references] == [
        ("N1", "reading/slow-bread.md"),
        ("N2", "daily/2026-01-17.md"),
        ("N3", "recipes/cookies.md"),
    ]
    assert all((r.line_start or 0) > 0 for r in response.references)
    assert llm.answer_calls == []  # listed, not written
    assert response.debug is not None
    assert response.debug.strategy == "listing"


@pytest.mark.parametrize(
    "question",
    [
        "What are my notes tagged #baking about?",
        "How many notes are tagged #baking?",
        "#baking",
        "show me everything tagged #baking",
        "Which notes are tagged baking?",
        "Show me my notes tagged with baking",
        "What notes have the tag baking?",
    ],
)
def test_other_ways_to_ask_for_the_tagged_notes(engine: Engine, question: str) -> None:
    response = engine.ask(AskRequest(question=question))
    assert response.answer.startswith("3 notes tagged #baking:")
    assert len(response.references) == 3


def test_a_folder_the_question_names_is_listed(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="What's in my recipes folder?"))

    assert response.answer.startswith("2 notes in me/recipes:")
    assert {r.rel_path for r in response.references} == {"recipes/cookies.md", "recipes/dal.md"}


def test_a_folder_and_a_filter_of_the_request_are_listed(engine: Engine) -> None:
    response = engine.ask(
        AskRequest(question="list the notes", folders=["recipes"], filters=["tags=baking"])
    )
    assert response.answer.splitlines()[0] == "1 note with tags=baking, in me/recipes:"
    assert [r.rel_path for r in response.references] == ["recipes/cookies.md"]


def test_a_question_with_something_to_find_is_searched_not_listed(
    engine: Engine, llm: ScriptedLLM
) -> None:
    response = engine.ask(
        AskRequest(question="Which notes tagged #sre say how to restart Kafka?", debug=True)
    )
    assert llm.answer_calls  # the model answers it from what the search found
    assert response.debug is not None
    assert response.debug.strategy != "listing"
    # with no tag, folder or filter the searched vaults are listed whole
    unscoped = engine.ask(AskRequest(question="What notes do I have?", debug=True))
    assert unscoped.debug is not None
    assert unscoped.debug.strategy == "listing"
    assert unscoped.answer.split(":")[0].endswith(" notes in me")


def test_a_tag_no_note_carries_is_no_listing(engine: Engine) -> None:
    response = engine.ask(AskRequest(question="What notes are tagged #gardening?", debug=True))
    assert response.debug is not None
    assert response.debug.strategy != "listing"


def test_a_long_listing_names_the_newest_and_counts_them_all(
    notecite_engines: EngineFactory,
) -> None:
    many = {
        f"daily/2026-03-{day:02d}.md": dated_note(
            "daily", f"2026-03-{day:02d}", f"Day {day}", "Ran."
        )
        for day in range(1, 21)
    }
    engine = notecite_engines(vaults={"me": many}, llm=ScriptedLLM("unused"))

    response = engine.ask(AskRequest(question="What notes are tagged #daily?"))

    lines = response.answer.splitlines()
    assert lines[0] == f"20 notes tagged #daily; the {LISTED_AT_MOST} newest:"
    assert lines[1] == "- Day 20: Ran. [N1]"
    assert len(response.references) == LISTED_AT_MOST


def test_chat_lists_the_tagged_notes_with_citations(engine: Engine, llm: ScriptedLLM) -> None:
    pieces: list[str] = []
    reply = engine.chat(
        ChatRequest(message="What notes are tagged #baking?"), on_token=pieces.append
    )

    assert reply.answer.startswith("3 notes tagged #baking:")
    assert "".join(pieces) == reply.answer
    assert [c.cid for c in reply.citations] == ["N1", "N2", "N3"]
    assert reply.citations[0].path == "reading/slow-bread.md"
    assert not reply.meta.abstained
    assert llm.answer_calls == []


@pytest.mark.parametrize(
    ("question", "listing"),
    [
        ("What notes are tagged?", True),
        ("What are my notes about?", True),
        ("What's in?", True),
        ("How many notes are there?", True),
        ("Summarize my notes", True),
        ("Give me an overview", True),
        ("What notes mention Kafka?", False),
        ("How do I restart the brokers?", False),
        ("Which recipes freeze well?", False),
    ],
)
def test_asks_for_listing(question: str, listing: bool) -> None:
    assert asks_for_listing(question) is listing


def test_a_question_of_filters_alone_asks_for_the_notes() -> None:
    assert not asks_for_listing("#baking")  # searched as written when nothing else is left
    assert asks_for_listing("#baking", ["#baking"])
    assert not asks_for_listing("#baking sourdough", ["#baking"])


def test_scope_words() -> None:
    tag = Condition("tags", Op.PREFIX, ("sre",), source="#sre")
    kind = Condition("type", Op.EQ, ("meeting",), source="type:meeting")
    assert scope_words([tag], []) == "tagged #sre"
    assert scope_words([tag, kind], ["me/work"]) == "tagged #sre, with type:meeting, in me/work"


def test_gist_is_the_first_line_of_text_in_plain_words() -> None:
    assert gist("# Title\n\n| a | b |\n\n- [ ] Call **Priya** about [the boiler](x.md)") == (
        "Call Priya about the boiler"
    )
    assert gist("# Only a heading\n---\n") == ""
    long = "word " * 40
    assert gist(long).endswith(" \u2026")
    assert len(gist(long)) <= 102
    assert (
        listing_text([("A", ""), ("B", "b.")], "in x", 2) == "2 notes in x:\n- A [N1]\n- B: b. [N2]"
    )
