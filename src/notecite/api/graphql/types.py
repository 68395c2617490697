"""GraphQL types: sessions with their RAG fields, messages, citations, chat replies."""

from __future__ import annotations

from datetime import datetime

import strawberry

from notecite.schemas.chat import (
    ChatCitation,
    ChatMeta,
    ChatResponse,
    ChatSession,
    SessionSettingsPatch,
    StoredMessage,
)


@strawberry.type(description="A source an answer cites; cid is its marker in the text (N1).")
class Citation:
    cid: str
    note_id: str
    chunk_id: str
    created_at: datetime | None
    snippet: str
    score: float

    @classmethod
    def of(cls, citation: ChatCitation) -> Citation:
        return cls(
            cid=citation.cid,
            note_id=citation.note_id,
            chunk_id=citation.chunk_id,
            created_at=citation.created_at,
            snippet=citation.snippet,
            score=citation.score,
        )


@strawberry.type(description="A message of a session.")
class ChatMessage:
    id: int
    role: str
    content: str
    created_at: datetime
    citations: list[Citation]

    @classmethod
    def of(cls, message: StoredMessage) -> ChatMessage:
        return cls(
            id=message.id,
            role=message.role,
            content=message.content,
            created_at=message.created_at,
            citations=[Citation.of(c) for c in message.citations],
        )


@strawberry.type(name="ChatSession", description="A conversation with its RAG settings.")
class ChatSessionType:
    id: strawberry.ID
    title: str
    created_at: datetime
    updated_at: datetime
    message_count: int
    enable_rag: bool
    rag_top_k: int
    rag_threshold: float
    include_citations: bool
    model: str | None
    system_prompt: str | None
    messages: list[ChatMessage]
    filters: list[str] = strawberry.field(
        default_factory=list, description="Frontmatter filters every message searches under."
    )

    @classmethod
    def of(
        cls, session: ChatSession, messages: list[StoredMessage] | None = None
    ) -> ChatSessionType:
        s = session.settings
        return cls(
            id=strawberry.ID(session.id),
            title=session.title,
            created_at=session.created_at,
            updated_at=session.updated_at,
            message_count=session.message_count,
            enable_rag=s.enable_rag,
            rag_top_k=s.rag_top_k,
            rag_threshold=s.rag_threshold,
            include_citations=s.include_citations,
            model=s.model,
            system_prompt=s.system_prompt,
            messages=[ChatMessage.of(m) for m in messages or []],
            filters=list(s.filters),
        )


@strawberry.type(description="How the sources of an answer were found.")
class Retrieval:
    k: int
    strategy: str
    candidate_count: int
    rerank_count: int
    time_ms: float


@strawberry.type(
    name="ChatMeta", description="Model, retrieval figures and removed citations of an answer."
)
class Meta:
    model: str
    retrieval: Retrieval
    invalid_citations: int
    query: str

    @classmethod
    def of(cls, meta: ChatMeta) -> Meta:
        r = meta.retrieval
        return cls(
            model=meta.model,
            retrieval=Retrieval(
                k=r.k,
                strategy=r.strategy,
                candidate_count=r.candidate_count,
                rerank_count=r.rerank_count,
                time_ms=r.time_ms,
            ),
            invalid_citations=meta.invalid_citations,
            query=meta.query,
        )


@strawberry.type(
    name="ChatError", description="Why the model gave no answer (the sources are still cited)."
)
class ErrorType:
    type: str
    message: str


@strawberry.type(description="The validated answer to a message, in its session.")
class ChatReply:
    answer: str
    citations: list[Citation]
    session_id: strawberry.ID
    meta: Meta
    error: ErrorType | None

    @classmethod
    def of(cls, response: ChatResponse) -> ChatReply:
        error = response.error
        return cls(
            answer=response.answer,
            citations=[Citation.of(c) for c in response.citations],
            session_id=strawberry.ID(response.session_id),
            meta=Meta.of(response.meta),
            error=ErrorType(type=error.type, message=error.message) if error else None,
        )


@strawberry.input(description="RAG settings of a session; fields left out keep their value.")
class RagOptions:
    enable_rag: bool | None = strawberry.UNSET
    rag_top_k: int | None = strawberry.UNSET
    rag_threshold: float | None = strawberry.UNSET
    include_citations: bool | None = strawberry.UNSET
    model: str | None = strawberry.UNSET
    system_prompt: str | None = strawberry.UNSET
    filters: list[str] | None = strawberry.UNSET

    def patch(self) -> SessionSettingsPatch:
        """The settings patch; a field sent as null goes back to its default."""
        sent = {
            name: getattr(self, name)
            for name in SessionSettingsPatch.model_fields
            if getattr(self, name) is not strawberry.UNSET
        }
        return SessionSettingsPatch.model_validate(sent)
