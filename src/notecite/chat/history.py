"""Earlier turns as prompt messages, and the sources list that ends a stored answer."""

from __future__ import annotations

import re
from collections.abc import Sequence

from notecite.generate.base import ChatMessage
from notecite.schemas.chat import StoredMessage

SOURCES_MARKER = "\n\n---\n**Sources:**\n"
_CITATION = re.compile(r"\s*\[N\d+\]")


def sources_block(sources: Sequence[tuple[str, str]], *, keep_prefix: bool = False) -> str:
    """``---`` / ``**Sources:**`` / ``- [1] source`` lines for ``(cid, label)`` pairs
    (``- [N1] source`` with ``keep_prefix``, as the answer text cites them)."""
    if not sources:
        return ""
    lines = [
        f"- [{cid if keep_prefix else cid.removeprefix('N')}] {label}" for cid, label in sources
    ]
    return SOURCES_MARKER + "\n".join(lines)


def strip_sources(content: str) -> str:
    """A stored answer without its sources list."""
    return content.split(SOURCES_MARKER, 1)[0]


def history_messages(past: Sequence[StoredMessage]) -> tuple[ChatMessage, ...]:
    """Earlier turns for the prompt, oldest first.

    Answers lose their sources list and their ``[Nk]`` markers: those ids named the sources
    of an earlier turn, and a model seeing them would cite this turn's sources wrongly.
    Answers that were an LLM failure are left out.
    """
    found = []
    for message in past:
        if message.role == "assistant":
            if message.error is not None:
                continue
            found.append(
                ChatMessage("assistant", _CITATION.sub("", strip_sources(message.content)))
            )
        else:
            found.append(ChatMessage("user", message.content))
    return tuple(found)
