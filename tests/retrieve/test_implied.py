"""A question that asks what happens when the asker sets nothing is searched for the default;
one that asks who was at a meeting, for its attendees."""

from __future__ import annotations

import pytest

from notecite.retrieve.implied import implied_terms
from notecite.schemas.ask import AskRequest
from notecite.testing import EngineFactory, ScriptedLLM

ASKS_FOR_A_DEFAULT = [
    "What embed style does the preview use when I haven't picked one?",
    "If I never say which note is the home page of my site, which one does it use?",
    "When I search the text inside notes, how many files do I get back at most unless I raise it?",
    "Will readers see when each page was last edited, without me setting anything up?",
    "If I make a note from the command line without giving it a name, what is it called?",
    "What does $FOAM_DATE_FORMAT print when I don't give it a format string?",
    "Where do pasted images get saved if I leave its settings alone?",
    "Which theme does the graph use out of the box?",
    "I saved a query and never gave it a display name. What will it be called?",
]
ASKS_FOR_SOMETHING_ELSE = [
    "Why was Quartz not picked as the base?",  # a passive: what someone decided
    "Is it not set by the installer?",
    "I want a different siteUrl without touching dendron.yml. How do I do that?",
    "What is the default date format of task notes?",  # says it already
    "Which key renames a block anchor?",
    "How do I leave a comment on a published note?",
    "Teaching hospitals do not provide better care than non-teaching hospitals.",
    "What does article 288 not say?",  # what a text leaves out
]


@pytest.mark.parametrize("question", ASKS_FOR_A_DEFAULT)
def test_a_question_about_what_is_left_unset_implies_default(question: str) -> None:
    assert implied_terms(question) == ("default",)


@pytest.mark.parametrize("question", ASKS_FOR_SOMETHING_ELSE)
def test_other_questions_imply_nothing(question: str) -> None:
    assert implied_terms(question) == ()


@pytest.mark.parametrize(
    "question",
    [
        "Who was at the PG16 kickoff?",
        "who attended the Q2 retro",
        "Who came to the last platform sync?",
        "Who else was invited to the review?",
    ],
)
def test_a_question_about_who_was_at_a_meeting_implies_attendees(question: str) -> None:
    assert implied_terms(question) == ("attendees",)


@pytest.mark.parametrize(
    "question", ["Who is my manager?", "Who owns the PG16 upgrade?", "Who attended? Attendees?"]
)
def test_other_who_questions_imply_no_attendees(question: str) -> None:
    assert "attendees" not in implied_terms(question)


MEETING = {
    "meetings/kickoff.md": (
        "# PG16 upgrade kickoff\n\nAttendees: me, Dana, Tomasz\n\n"
        "Context: the cluster is on Postgres 14 and the kickoff picks a way to upgrade it.\n\n"
        "## Decisions\n- The kickoff picked logical replication.\n"
    ),
}


def test_the_attendees_line_reaches_the_model(notecite_engines: EngineFactory) -> None:
    llm = ScriptedLLM("Dana and Tomasz were there [N1].")
    engine = notecite_engines(vaults={"me": MEETING}, llm=llm, ask={"auto_rag": "off"})
    engine.ask(AskRequest(question="Who was at the PG16 upgrade kickoff?"))
    prompt = "\n".join(m.content for m in llm.answer_calls[-1].messages)
    assert "Attendees: me, Dana, Tomasz" in prompt


NOTES = {
    "grep.md": (
        "# grep\n\nSearches the text of every note and prints the files that match.\n\n"
        "## Options\n\n- `--context <n>`: lines shown around each match\n"
        "- `--limit <n>`: at most this many files (default: 20)\n"
    ),
    "search.md": (
        "# Searching notes\n\nSearch the text of notes from the command line; raise the "
        "limit when a search returns too few files.\n"
    ),
    "tags.md": "# Tags\n\nA tag groups notes; search a tag with `#name`.\n",
}


def test_the_default_line_is_searched_for_and_ranks_first(
    notecite_engines: EngineFactory,
) -> None:
    """'unless I raise it' asks for the default. The line that says "(default: 20)" holds
    few words of the question, and a note that says "raise" ranks above it unless "default"
    is searched for too. The model reads the asker's own question."""
    llm = ScriptedLLM("At most 20 files [N1].")
    engine = notecite_engines(
        vaults={"notes": NOTES},
        llm=llm,
        embedder="hash",
        # the hash embedder's vectors are weak: every chunk is judged by its ranking alone
        ask={"auto_rag": "off", "folder_ranking": False, "vector_threshold": 0.0},
    )
    question = "How many files does a text search give back at most unless I raise it?"
    response = engine.ask(AskRequest(question=question, vaults=["notes"], debug=True))
    assert response.debug is not None
    first = response.debug.retrieved_chunks[0]
    assert (first.rel_path, first.heading_path) == ("grep.md", "# grep > ## Options")
    (call,) = llm.answer_calls
    prompt = call.messages[-1].content
    assert "(default: 20)" in prompt
    assert prompt.endswith(f"Question: {question}")
    assert response.debug.searched_question == f"{question} (default)"


def test_search_reads_the_question_the_same_way(notecite_engines: EngineFactory) -> None:
    engine = notecite_engines(
        vaults={"notes": NOTES}, embedder="hash", ask={"vector_threshold": 0.0}
    )
    question = "How many files does a text search give back at most unless I raise it?"
    (first, *_) = engine.search(question, vaults=["notes"], k=2)
    assert (first.rel_path, first.heading_path) == ("grep.md", "# grep > ## Options")


def test_a_weekday_implies_its_short_form() -> None:
    assert implied_terms("What's the plan for Sunday in Lisbon?") == ("sun",)
    assert implied_terms("What cut-off did we agree on for deploying on Fridays?") == ("fri",)
    assert implied_terms("Since when is handover on Tuesdays, not Mondays?") == ("tue", "mon")
    assert implied_terms("What's the plan for the weekend?") == ()


TRIP = {
    "travel/lisbon.md": (
        "# Lisbon, April\n\n## Plan by day\n\n### Sat 18 — markets\n- Feira da Ladra.\n\n"
        "### Sun 19 — Sintra\n- Quinta da Regaleira first, then the Moorish Castle.\n\n"
        "### Mon 20 — free\n- A lazy day at the tile museum.\n"
    ),
    "running/plan.md": (
        "# Running plan\n\n## Week structure\n- Sunday: the long run, 12 km.\n"
        "- Tuesday: intervals.\n"
    ),
}


def test_a_day_written_short_in_a_heading_is_found_for_its_weekday(
    notecite_engines: EngineFactory,
) -> None:
    llm = ScriptedLLM("Sintra [N1].")
    engine = notecite_engines(vaults={"me": TRIP}, llm=llm, ask={"auto_rag": "off"})
    response = engine.ask(AskRequest(question="What's the plan for Sunday in Lisbon?"))
    assert response.references[0].heading_path.endswith("Sun 19 — Sintra")
