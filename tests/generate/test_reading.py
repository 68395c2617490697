"""The reading check's parts: the question it adds, how P(yes) is read, and its failures."""

from __future__ import annotations

import math

import pytest

from notecite.generate.base import ChatMessage
from notecite.generate.reading import (
    READING_QUESTION,
    asks_yes_or_no,
    reading_messages,
    reading_score,
    yes_share,
)
from notecite.testing import ScriptedLLM

PROMPT = (
    ChatMessage("system", "You answer from the notes."),
    ChatMessage("user", "[N1] apollo.md\nThe launch is on March 14.\n\nQuestion: When?"),
)


def _top(**chances: float) -> list[dict[str, object]]:
    return [{"token": token, "logprob": math.log(p)} for token, p in chances.items()]


def test_the_question_follows_the_answer_prompt_so_the_context_is_a_shared_prefix() -> None:
    checked = reading_messages(PROMPT)
    assert checked[0] == PROMPT[0]
    assert checked[1].content == f"{PROMPT[1].content}\n{READING_QUESTION}"
    assert checked[1].role == "user"


def test_p_yes_is_the_share_of_yes_among_yes_and_no_whatever_their_case_and_spacing() -> None:
    assert yes_share(_top(yes=0.6, No=0.2, maybe=0.2)) == pytest.approx(0.75)
    assert yes_share(_top(**{"Yes": 0.3, " yes": 0.3, "no": 0.2})) == pytest.approx(0.75)
    assert yes_share(_top(sure=0.9)) is None  # neither word: the model cannot be read


def test_a_model_that_cannot_weigh_it_or_fails_gives_no_score() -> None:
    assert reading_score(ScriptedLLM(), PROMPT) is None  # no probabilities (yes=None)
    failing = ScriptedLLM(yes=0.9, error="the model is gone")
    assert reading_score(failing, PROMPT) is None  # logged; the answer goes on without it
    assert len(failing.yes_calls) == 1


def test_a_model_that_weighs_it_gets_the_prompt_with_the_question() -> None:
    llm = ScriptedLLM(yes=lambda messages: 0.2 if "Question: When?" in messages[-1].content else 1)
    assert reading_score(llm, PROMPT) == 0.2
    (asked,) = llm.yes_calls
    assert asked[-1].content.endswith(READING_QUESTION)


@pytest.mark.parametrize(
    ("question", "yes_or_no"),
    [
        ("Can I use glob patterns in a resource filter?", True),
        ("Is there a lower limit on nav_order?", True),
        ("I publish my notes. Is it safe to run the doctor action?", True),
        ("I use callouts in Obsidian; do they render in Foam?", True),
        ("Does the export include links, or only the hierarchy?", True),
        ("When is the Apollo launch scheduled?", False),
        ("After adding a second vault, how do I pick the vault of a new note?", False),
        ("Which shortcut opens the daily note of another day?", False),
        ("Island archipelagos have fewer electors. Why?", False),
    ],
)
def test_a_yes_or_no_question_is_told_by_the_verb_its_asking_clause_starts_with(
    question: str, yes_or_no: bool
) -> None:
    assert asks_yes_or_no(question) is yes_or_no
