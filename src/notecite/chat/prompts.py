"""Prompts of chat: answers over sources with history, plain chat, and follow-up condensing."""

from __future__ import annotations

from collections.abc import Sequence

from notecite.generate.base import ChatMessage, ContextSource
from notecite.generate.citations import FALLBACK_ANSWER
from notecite.generate.prompts import DETAIL_HINTS, NUMBERED_RULE, SYSTEM_PROMPT, answer_messages
from notecite.schemas.ask import Detail

CHAT_RULE = (
    " Use only the sources; never invent facts. Put at least one citation like [N1] inline, "
    "right after every factual claim. If the sources do not answer the question, reply: "
    f"{FALLBACK_ANSWER}"
)
PLAIN_SYSTEM_PROMPT = (
    "You are a helpful assistant. Answer the user's message; when you do not know, say so."
)
CONDENSE_SYSTEM_PROMPT = (
    "Rewrite the user's last message as one standalone question that can be understood "
    "without the conversation. Keep the names, dates and terms from the conversation that "
    "the message refers to. Reply with the question only."
)
_TRANSCRIPT_CHARS = 600  # per earlier message, in the condensing prompt


def rag_messages(
    question: str,
    sources: Sequence[ContextSource],
    history: Sequence[ChatMessage],
    system_prompt: str | None,
    detail: Detail = "normal",
    absent: Sequence[str] = (),
) -> tuple[ChatMessage, ...]:
    """System prompt (the session's own, if any) with the citation rules, history, context;
    ``detail`` sets the answer's length as in /ask; ``absent`` as in ``answer_messages``."""
    base = answer_messages(question, sources, "numbered", detail, history, absent)
    hint = DETAIL_HINTS.get(detail, DETAIL_HINTS["normal"])
    # fixed per session and detail level: the model's prompt cache keeps it across turns
    system = f"{system_prompt or SYSTEM_PROMPT}{NUMBERED_RULE}{CHAT_RULE} {hint}"
    return (ChatMessage("system", system), *base[1:])


def fixed_chat_prompt(detail: Detail = "normal") -> tuple[ChatMessage, ...]:
    """The start every chat turn with the default system prompt shares, for the model to
    read ahead (``Engine.prepare_llm``)."""
    return rag_messages("", (), (), None, detail)


def plain_messages(
    message: str, history: Sequence[ChatMessage], system_prompt: str | None
) -> tuple[ChatMessage, ...]:
    """A chat turn without notes (``enable_rag`` off)."""
    return (
        ChatMessage("system", system_prompt or PLAIN_SYSTEM_PROMPT),
        *history,
        ChatMessage("user", message),
    )


def condense_messages(history: Sequence[ChatMessage], message: str) -> tuple[ChatMessage, ...]:
    """Ask for a standalone version of ``message`` given the conversation."""
    lines = []
    for turn in history:
        text = " ".join(turn.content.split())
        if len(text) > _TRANSCRIPT_CHARS:
            text = text[:_TRANSCRIPT_CHARS] + "..."
        lines.append(f"{turn.role.capitalize()}: {text}")
    transcript = "\n".join(lines)
    return (
        ChatMessage("system", CONDENSE_SYSTEM_PROMPT),
        ChatMessage(
            "user",
            f"Conversation:\n{transcript}\n\nLast message: {message}\nStandalone question:",
        ),
    )
