"""A note's properties reach the model when the question names one, on /ask and /chat, and a
claim they support cites the property's line of the file."""

from __future__ import annotations

from notecite import Engine
from notecite.chat import ChatRequest
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory, ScriptedLLM

TOMASZ = """---
tags: [person]
role: Senior backend engineer
timezone: Europe/Warsaw
aliases: [Tomek]
---
# Tomasz Brenner

Owns the billing export and is backup on Postgres.
Prefers meetings before four, picks up the kids.
"""
LEILA = """---
tags: [person]
role: Product manager
timezone: Europe/London
---
# Leila Haddad

Runs the pipelines roadmap and the customer calls.
"""
FILES = {"people/tomasz.md": TOMASZ, "people/leila.md": LEILA}
TIMEZONE = "Which timezone does Tomasz Brenner work in?"
# the hash embedder has no sense of meaning: both notes are kept, whatever they say
KEEP_ALL = {
    "auto_rag": "off",
    "answerability_gate": False,
    "vector_threshold": 0.0,
    "final_threshold": 0.0,
}


def engine_with(notecite_engines: EngineFactory, llm: ScriptedLLM) -> Engine:
    return notecite_engines(vaults={"team": FILES}, llm=llm, embedder="hash", ask=KEEP_ALL)


def test_a_property_the_question_names_is_in_the_prompt_and_cited_at_its_line(
    notecite_engines: EngineFactory,
) -> None:
    llm = ScriptedLLM("Tomasz works in the Europe/Warsaw timezone [N1].")
    response = engine_with(notecite_engines, llm).ask(AskRequest(question=TIMEZONE))

    prompt = llm.answer_calls[0].messages[-1].content
    assert "timezone: Europe/Warsaw" in prompt
    assert "role: Senior backend engineer" not in prompt  # the question names no role
    assert "tags:" not in prompt
    assert "aliases:" not in prompt
    assert response.answer == "Tomasz works in the Europe/Warsaw timezone [N1]."
    (reference,) = response.references
    assert reference.rel_path == "people/tomasz.md"
    assert reference.quote == "timezone: Europe/Warsaw"
    assert reference.quote_line == 4  # the line of the file, above the note's text
    assert reference.line_start == 4  # the span the page highlights starts there


def test_a_question_naming_no_property_gets_the_notes_text_only(
    notecite_engines: EngineFactory,
) -> None:
    llm = ScriptedLLM("He prefers meetings before four [N1].")
    engine_with(notecite_engines, llm).ask(AskRequest(question="When does Tomasz like meetings?"))

    prompt = llm.answer_calls[0].messages[-1].content
    assert "Prefers meetings before four" in prompt
    assert "timezone:" not in prompt
    assert "role:" not in prompt


def test_chat_shows_the_property_too(notecite_engines: EngineFactory) -> None:
    llm = ScriptedLLM("Tomasz works in the Europe/Warsaw timezone [N1].")
    response = engine_with(notecite_engines, llm).chat(ChatRequest(message=TIMEZONE))

    assert "timezone: Europe/Warsaw" in llm.answer_calls[0].messages[-1].content
    citation = response.citations[0]
    assert citation.note_id.endswith("people/tomasz.md")
    assert (citation.quote, citation.quote_line) == ("timezone: Europe/Warsaw", 4)
    assert citation.line_start == 4


TRIP = """---
tags: [travel, denmark]
aliases: [Owen's 40th trip]
rating: 5
---
# Copenhagen, June 2025

Four nights in June, flew with KLM.
"""


def test_a_term_only_a_tag_holds_is_not_called_unmentioned(
    notecite_engines: EngineFactory,
) -> None:
    llm = ScriptedLLM("You gave it a 5 [N1].")
    engine = notecite_engines(
        vaults={"life": {"travel/cph.md": TRIP, **FILES}}, llm=llm, embedder="hash", ask=KEEP_ALL
    )
    question = "Owen wants to go back to Denmark. What rating did I give the Copenhagen trip?"
    response = engine.ask(AskRequest(question=question, debug=True))

    assert response.abstain_reason != "not_mentioned"
    assert response.debug is not None
    assert "Denmark" not in response.debug.missing_terms  # the vault holds it: a tag
    assert "Denmark" not in response.debug.absent_from_context  # a kept note's tag
    assert "rating: 5" in llm.answer_calls[0].messages[-1].content
    absent = engine.ask(AskRequest(question="What rating did Norway get?", debug=True))
    assert absent.abstain_reason == "not_mentioned"  # no note holds Norway anywhere
