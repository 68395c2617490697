"""The reading check: before it answers, the model is asked whether the notes it was given
answer the question at all.

SQuAD 2.0's unanswerable questions are written beside the paragraph they cannot be answered
from, in its words ("In what year was Charleston, North Carolina founded?" beside a paragraph
on South Carolina's). Retrieval scores them like answerable ones, no salient term is missing,
and a small model answers from the nearest sentence, which grounding then finds. Only
reading tells them apart: asked whether "this exact question" can be answered from the notes
alone, the bundled model's probability of "yes" separates them (docs/answerability.md).

The check is the answer's own prompt with one question after it, so the model reads the
context once: the answer then finds it in the prompt cache, and the check costs its own
instruction and one written token.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from typing import Any

from notecite.errors import LLMError
from notecite.generate.base import LLM, ChatMessage, Judge

logger = logging.getLogger(__name__)

READING_QUESTION = (
    "Questions may contain a false premise or a detail the notes do not state. Can this "
    "exact question be answered from the notes above alone? Reply yes or no."
)
NOT_ANSWERED = (
    "Your notes don't seem to answer that: the closest notes are listed below, and none of "
    "them says it."
)


def reading_messages(messages: Sequence[ChatMessage]) -> tuple[ChatMessage, ...]:
    """The answer prompt ``messages`` (ending with the user's turn: the context and the
    question) with the yes/no question after it."""
    *head, last = messages
    return (*head, ChatMessage(last.role, f"{last.content}\n{READING_QUESTION}"))


def yes_share(top_logprobs: Sequence[Mapping[str, Any]]) -> float | None:
    """P(yes) / (P(yes) + P(no)) from the first token's most likely tokens (OpenAI's
    ``top_logprobs`` entries: ``token`` and ``logprob``); None when neither word is there."""
    yes = no = 0.0
    for entry in top_logprobs:
        word = str(entry.get("token", "")).strip().lower()
        chance = math.exp(float(entry.get("logprob", -math.inf)))
        if word == "yes":
            yes += chance
        elif word == "no":
            no += chance
    return yes / (yes + no) if yes + no > 0 else None


def reading_score(llm: LLM, messages: Sequence[ChatMessage]) -> float | None:
    """The model's P(yes: the notes answer the question) for the answer prompt ``messages``;
    None when ``llm`` cannot weigh it, or failed (logged: the answer is then written as
    without the check)."""
    if not isinstance(llm, Judge):
        return None
    try:
        return llm.yes_probability(reading_messages(messages))
    except LLMError as exc:
        logger.warning("the reading check failed; answering without it: %s", exc)
        return None
