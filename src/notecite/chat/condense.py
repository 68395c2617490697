"""Follow-up condensing: "and the second one?" becomes a question retrieval can answer."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from notecite.chat.prompts import condense_messages
from notecite.errors import LLMError
from notecite.generate.base import LLM, ChatMessage, GenerationRequest
from notecite.schemas.ask import MAX_QUESTION_CHARS

logger = logging.getLogger(__name__)

Method = Literal["none", "llm", "previous+new", "unchanged"]

_FOLLOW_UP = re.compile(
    r"^\s*(and|but|also|so|then|what about|how about|what else|why|why not)\b"
    r"|\b(it|its|they|them|their|that|those|this|these|he|she|him|her|his|there|then|"
    r"the (first|second|third|last|other|same|former|latter)( one)?)\b",
    re.IGNORECASE,
)
_PREFIX = re.compile(r"^(standalone question|question|query|rewritten)\s*:\s*", re.IGNORECASE)
_MAX_REPLY_CHARS = 500  # a longer reply is the model answering, not rewriting


@dataclass(frozen=True)
class Condensed:
    """The query to retrieve with, and how it was made."""

    query: str
    method: Method


def looks_like_follow_up(message: str) -> bool:
    """Does the message lean on the conversation (a pronoun, "and ...", "what about ...")?"""
    return bool(_FOLLOW_UP.search(message))


def _clean(reply: str) -> str:
    lines = [ln.strip() for ln in reply.strip().splitlines() if ln.strip()]
    if not lines:
        return ""
    text = _PREFIX.sub("", lines[0]).strip().strip("\"'`").strip()
    return "" if len(text) > _MAX_REPLY_CHARS else text


def without_model(history: Sequence[ChatMessage], message: str) -> Condensed:
    """The fallback: the previous user question plus a follow-up, else the message itself."""
    previous = next((m.content for m in reversed(history) if m.role == "user"), None)
    if previous is not None and looks_like_follow_up(message):
        budget = MAX_QUESTION_CHARS - len(message) - 1
        if budget > 0:
            return Condensed(f"{previous[:budget]} {message}", "previous+new")
    return Condensed(message, "unchanged")


def condense(llm: LLM, history: Sequence[ChatMessage], message: str) -> Condensed:
    """A standalone query for ``message``; the model writes it when there is history.

    The extractive provider writes nothing, and a failing or rambling model falls back to
    :func:`without_model`.
    """
    if not any(m.role == "user" for m in history):
        return Condensed(message, "none")
    if llm.name != "extractive":
        try:
            reply = llm.generate(
                GenerationRequest(
                    messages=condense_messages(history, message),
                    question=message,
                    temperature=0.0,
                    max_tokens=128,
                )
            )
        except LLMError as exc:
            logger.info("follow-up condensing failed, using the fallback: %s", exc)
        else:
            query = _clean(reply)
            if query:
                return Condensed(query, "llm")
    return without_model(history, message)
