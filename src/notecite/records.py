"""Plain records that the store keeps for the layers above it: chat sessions with their
messages, and the query log.

They are what the store reads and writes, so that ``store/`` never imports the chat or the
HTTP contract; ``chat/records.py`` converts them to and from the wire models of
``schemas/chat.py``, and ``querylog.py`` builds a query-log record from an ask response.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

Role = Literal["user", "assistant"]


@dataclass(frozen=True, kw_only=True)
class CitationRecord:
    """A source an answer cites: ``cid`` is its marker in the answer text (``N1``)."""

    cid: str
    note_id: str
    chunk_id: str
    snippet: str
    score: float
    created_at: datetime | None = None
    vault: str = ""
    path: str = ""
    section: str = ""
    line_start: int | None = None
    line_end: int | None = None
    quote: str | None = None
    quote_line: int | None = None


@dataclass(frozen=True, kw_only=True)
class RetrievalRecord:
    """How an answer's sources were found: chunks used, strategy, counts and time."""

    k: int = 0
    strategy: str = "none"
    candidate_count: int = 0
    rerank_count: int = 0
    time_ms: float = 0.0


@dataclass(frozen=True, kw_only=True)
class MetaRecord:
    """How an answer was made: the model, retrieval figures, removed citations, the query
    searched, whether (and why) it abstained, and whether the client stopped it."""

    model: str
    retrieval: RetrievalRecord = field(default_factory=RetrievalRecord)
    invalid_citations: int = 0
    query: str = ""
    abstained: bool = False
    abstain_reason: str | None = None
    cancelled: bool = False
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass(frozen=True, kw_only=True)
class ErrorRecord:
    """A failure kept with the message it spoiled (e.g. the LLM was down)."""

    type: str
    message: str


@dataclass(frozen=True, kw_only=True)
class NewMessageRecord:
    """A message to append to a session."""

    role: Role
    content: str
    citations: tuple[CitationRecord, ...] = ()
    meta: MetaRecord | None = None
    error: ErrorRecord | None = None

    def stored(self, message_id: int, created_at: datetime) -> MessageRecord:
        """This message as stored under ``message_id`` at ``created_at``."""
        return MessageRecord(
            id=message_id,
            created_at=created_at,
            role=self.role,
            content=self.content,
            citations=self.citations,
            meta=self.meta,
            error=self.error,
        )


@dataclass(frozen=True, kw_only=True)
class MessageRecord(NewMessageRecord):
    """A message of a session as stored: with its id and the time it was added."""

    id: int
    created_at: datetime


@dataclass(frozen=True, kw_only=True)
class SessionRecord:
    """A chat session as stored.

    ``settings`` is the JSON object the chat layer keeps for the session; the store saves
    and returns it as it is, without reading it.
    """

    id: str
    title: str
    settings: dict[str, object]
    created_at: datetime
    updated_at: datetime
    message_count: int = 0


@dataclass(frozen=True, kw_only=True)
class QueryLogRecord:
    """One question of ``ask`` and its answer, to append to the query log.

    ``references`` are the cited notes as ``vault/path``; ``total_ms`` is the wall time.
    """

    question: str
    answer: str
    abstained: bool
    references: tuple[str, ...]
    llm: str
    total_ms: float | None = None


@dataclass(frozen=True, kw_only=True)
class QueryLogEntry(QueryLogRecord):
    """A logged question and its answer, with its id and the time it was asked."""

    id: int
    asked_at: datetime
