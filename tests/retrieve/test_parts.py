"""A question that asks two things: its parts, each searched on its own, and their room."""

from __future__ import annotations

from pathlib import Path

import pytest

from notecite.chat import ChatRequest, Sessions, SessionSettings
from notecite.config import AskSettings
from notecite.generate.base import LLM
from notecite.pipeline import context_budget
from notecite.retrieve.parts import question_parts
from notecite.schemas.ask import AskRequest
from notecite.schemas.chat import SessionSettingsPatch
from notecite.testing import CliRun, EngineFactory, ScriptedLLM, write_files


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        (
            "How do I create today's daily note from the terminal, and what is the editor "
            "shortcut for the same thing?",
            [
                "How do I create today's daily note from the terminal",
                "what is the editor shortcut for the same thing?",
            ],
        ),
        (
            "How do I give a tag its own color, and in which version did custom tag colors arrive?",
            ["How do I give a tag its own color", "in which version did custom tag colors arrive?"],
        ),
        (  # a lead-in says what both parts are about
            "To publish on GitHub Pages with math, which link setting and which rendering "
            "library do I need?",
            [
                "To publish on GitHub Pages with math, which link setting",
                "To publish on GitHub Pages with math, which rendering library do I need?",
            ],
        ),
        (  # so does a sentence that asks nothing
            "I want my notes site on my own domain. What do I add to the workflow, and what "
            "should I do with the URL prefix setting?",
            [
                "I want my notes site on my own domain. What do I add to the workflow",
                "I want my notes site on my own domain. what should I do with the URL prefix "
                "setting?",
            ],
        ),
        (  # a second question that opens with "And"
            "Which app does Foam suggest for Android? And what fixes its link lists?",
            ["Which app does Foam suggest for Android?", "what fixes its link lists?"],
        ),
        (  # a clause that opens with "under which"
            "I keep workout logs as journal notes. Under which hierarchy does Dendron put them, "
            "and what's the Mac shortcut to start one?",
            [
                "I keep workout logs as journal notes. Under which hierarchy does Dendron put them",
                "I keep workout logs as journal notes. what's the Mac shortcut to start one?",
            ],
        ),
        (  # one clause asks for two things a statement before it names
            "For task notes I want the status 'shipped' shown as an emoji and priority H to "
            "read 'high'. Which two settings do that?",
            [
                "For task notes I want the status 'shipped' shown as an emoji. Which two "
                "settings do that?",
                "priority H to read 'high'. Which two settings do that?",
            ],
        ),
        (
            "On my site, untagged colours still show, and task links show owners and due "
            "dates. Which options switch those off?",
            [
                "On my site, untagged colours still show. Which options switch those off?",
                "task links show owners and due dates. Which options switch those off?",
            ],
        ),
        (
            "For my published site I want a comment thread and rendered math: which options "
            "are involved?",
            [
                "For my published site I want a comment thread. which options are involved?",
                "rendered math. which options are involved?",
            ],
        ),
        (  # "both A and B": the clause once with each
            "How do I see which notes link to this one, both inside VS Code and with the CLI?",
            [
                "How do I see which notes link to this one inside VS Code?",
                "How do I see which notes link to this one with the CLI?",
            ],
        ),
    ],
)
def test_a_question_that_asks_two_things_has_two_parts(question: str, parts: list[str]) -> None:
    assert question_parts(question) == parts


@pytest.mark.parametrize(
    "question",
    [
        "When is the Apollo launch?",
        "Which port does the preview server use and why?",  # "why?" alone asks nothing new
        "What are the pros and cons of Postgres?",  # "and" joins names, not clauses
        # a statement before the clause that asks: one question
        "I use callouts like > [!note] in Obsidian; do they render in Foam?",
        "I have both projects.md and a projects folder; which one does [[projects]] open?",
        "Dollar signs keep turning into formulas; how do I stop the inline math rendering?",
        "launch budget",  # no asking clause at all
        # a statement that joins two things before a clause that asks for one
        "I use Foam and VS Code on Linux. What happens when I rename a note?",
        "I set the theme to dark and the font to mono. Which file holds that?",
        # "and what" goes on from the "what" inside the clause
        "Does the command that shows what a note points to and what points back at it have "
        "another name?",
    ],
)
def test_a_question_that_asks_one_thing_is_left_whole(question: str) -> None:
    assert question_parts(question) == [question]


NOTES = {
    "cli/daily.md": (
        "# foam daily\n\nRun `foam daily --create` in a terminal to create today's daily note "
        "from the command line.\n"
    ),
    "features/daily-notes.md": (
        "# Daily notes\n\nThe editor shortcut Alt+D opens today's daily note in VS Code.\n"
    ),
    "features/tags.md": "# Tags\n\nTags group notes by topic; the tag explorer lists them.\n",
}
QUESTION = (
    "How do I create today's daily note from the terminal, and what is the editor shortcut for "
    "a daily note?"
)


def _ask(notecite_engines: EngineFactory, parts: bool) -> tuple[str, list[str]]:
    llm = ScriptedLLM("Run `foam daily --create` [N1].")
    engine = notecite_engines(
        vaults={"notes": NOTES},
        llm=llm,
        embedder="hash",
        ask={
            "auto_rag": "off",
            "question_parts": parts,
            "k_min": 1,
            "k_default": 1,
            "k_max": 1,
            "vector_threshold": 0.0,
            "final_threshold": 0.0,
        },
    )
    response = engine.ask(AskRequest(question=QUESTION, debug=True))
    assert response.debug is not None
    assert llm.answer_calls, response.answer
    prompt = llm.answer_calls[-1].messages[-1].content
    return prompt, response.debug.question_parts


def test_each_part_brings_its_best_note_into_the_context(
    notecite_engines: EngineFactory,
) -> None:
    prompt, parts = _ask(notecite_engines, parts=True)
    assert parts == question_parts(QUESTION)
    assert len(parts) == 2
    assert "foam daily --create" in prompt
    assert "Alt+D" in prompt
    assert "tag explorer" not in prompt


def test_with_parts_off_one_search_keeps_one_note(notecite_engines: EngineFactory) -> None:
    prompt, parts = _ask(notecite_engines, parts=False)
    assert parts == []
    assert ("foam daily --create" in prompt) != ("Alt+D" in prompt)


def test_each_part_after_the_first_adds_half_the_evidence_budget() -> None:
    settings = AskSettings()
    local: LLM = ScriptedLLM("x", name="local")
    one = context_budget(settings, local).evidence_tokens
    assert one == settings.evidence_tokens_local
    assert context_budget(settings, local, parts=2).evidence_tokens == round(1.5 * one)
    assert context_budget(settings, local, parts=5).evidence_tokens == 2 * one  # at most twice
    assert context_budget(settings, local, parts=0).evidence_tokens == one


@pytest.mark.parametrize("parts", [True, False])
def test_chat_searches_the_parts_of_a_question_too(
    notecite_engines: EngineFactory, parts: bool
) -> None:
    llm = ScriptedLLM("Run `foam daily --create` [N1].")
    engine = notecite_engines(
        vaults={"notes": NOTES},
        llm=llm,
        embedder="hash",
        ask={"auto_rag": "off", "question_parts": parts},
    )
    store = engine.open_sessions()
    try:
        sessions = Sessions(store, SessionSettings.defaults(engine.settings.ask))
        session = sessions.create("one chunk", SessionSettingsPatch(rag_top_k=1, rag_threshold=0))
        engine.chat(ChatRequest(message=QUESTION, session_id=session.id), sessions=store)
    finally:
        store.close()
    prompt = llm.answer_calls[-1].messages[-1].content
    assert ("foam daily --create" in prompt and "Alt+D" in prompt) is parts


def test_ask_debug_shows_the_parts(tmp_path: Path) -> None:
    run = CliRun(tmp_path / "home", llm="extractive", embedder="hash")
    run("index", str(write_files(tmp_path / "notes", NOTES)), "--vault", "notes")
    shown = run("ask", QUESTION, "--debug").output
    assert f"question parts: {' | '.join(question_parts(QUESTION))}" in shown
    one = run("ask", "What is the editor shortcut for the daily note?", "--debug").output
    assert "question parts:" not in one
