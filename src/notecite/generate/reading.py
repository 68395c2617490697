"""The reading check: once it has answered, the model is asked whether the notes it was
given answer the question at all.

SQuAD 2.0's unanswerable questions are written beside the paragraph they cannot be answered
from, in its words ("In what year was Charleston, North Carolina founded?" beside a paragraph
on South Carolina's). Retrieval scores them like answerable ones, no salient term is missing,
and a small model answers from the nearest sentence, which grounding then finds. Only
reading tells them apart: asked whether "this exact question" can be answered from the notes
alone, the bundled model's probability of "yes" separates them (docs/answerability.md).

The check is the answer's own prompt with one question after it, sent once the answer is
written: the model finds the context in its prompt cache, so the check costs its own line
and one written token, and the first text waits for nothing.
"""

from __future__ import annotations

import logging
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from notecite.errors import LLMError
from notecite.generate.base import LLM, ChatMessage, Judge

logger = logging.getLogger(__name__)

READING_QUESTION = (
    "Do the notes above hold the information this question asks for? Reply yes or no (not "
    "the answer to the question)."
)
# A question that is itself answered yes or no ("Can I use globs in a filter?") gets a "no"
# for an answer of "no" as often as for a missing one: the small model mixes the two, so
# such questions are not asked about (docs/answerability.md).
_AUXILIARY = re.compile(
    r"(?:is|are|was|were|am|can|could|do|does|did|will|would|should|shall|has|have|had|may|"
    r"might|must|isn't|aren't|wasn't|can't|doesn't|don't|didn't|won't|hasn't|haven't)\b",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"(?<=[.;:!?])\s+")
_CLAUSE_BREAK = re.compile(r"[;:,]\s+")
NOT_ANSWERED = (
    "Your notes don't seem to answer that: the closest notes are listed below, and none of "
    "them says it."
)


def asks_yes_or_no(question: str) -> bool:
    """Is ``question`` answered yes or no: does the clause that asks (its last sentence that
    ends in "?", after a lead-in such as "I publish my notes." or "...;") start with an
    auxiliary verb ("Does Foam ...?", "Is there ...?", "...; do they render in Foam?")?"""
    sentences = _SENTENCE_END.split(question.strip())
    asking = [s for s in sentences if s.endswith("?")] or sentences
    last = asking[-1].strip()
    if not _AUXILIARY.match(last):
        last = _CLAUSE_BREAK.split(last)[-1].strip()
    return bool(_AUXILIARY.match(last))


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
    None when ``llm`` cannot weigh it, or failed (logged: the answer then stands as
    without the check)."""
    if not isinstance(llm, Judge):
        return None
    try:
        return llm.yes_probability(reading_messages(messages))
    except LLMError as exc:
        logger.warning("the reading check failed; answering without it: %s", exc)
        return None
