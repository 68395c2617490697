"""The chat contract: requests, responses, sessions and their settings, as the API shows them.

Chat values use the camelCase JSON names of the HTTP contract (``sessionId``, ``noteId``);
Python code uses the snake_case attribute names. Session settings keep the snake_case names
they are documented under (``enable_rag``, ``rag_top_k``, ...).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.alias_generators import to_camel

from notecite.config import AskSettings
from notecite.errors import FilterError
from notecite.filters import parse_filters
from notecite.schemas.ask import MAX_QUESTION_CHARS, AbstainReason, DebugInfo, Detail, ErrorInfo

Role = Literal["user", "assistant"]
MAX_TITLE_CHARS = 200
MAX_SYSTEM_PROMPT_CHARS = 8000
_CALIBRATED_THRESHOLD: float = AskSettings.model_fields["final_threshold"].default


class _Camel(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")


class SessionSettings(BaseModel):
    """How one session answers.

    Attributes:
        enable_rag: search the notes and cite them (False: plain chat with the model).
        rag_top_k: at most this many chunks go into the prompt (1-10).
        rag_threshold: a chunk's final score must reach this (0-1) to be used.
        include_citations: show ``[N1]`` markers and the sources list.
        model: the LLM provider for this session (None: the configured one).
        system_prompt: replaces the default system prompt; citation rules are kept.
        filters: frontmatter filters every message of the session searches under (see
            ``AskRequest.filters``), ANDed with a message's own.
    """

    model_config = ConfigDict(extra="forbid")

    enable_rag: bool = True
    rag_top_k: int = Field(default=5, ge=1, le=10)
    rag_threshold: float = Field(default=_CALIBRATED_THRESHOLD, ge=0, le=1)
    include_citations: bool = True
    model: str | None = Field(default=None, min_length=1, max_length=100)
    system_prompt: str | None = Field(default=None, max_length=MAX_SYSTEM_PROMPT_CHARS)
    filters: list[str] = Field(default_factory=list, max_length=20)

    @classmethod
    def defaults(cls, ask: AskSettings) -> SessionSettings:
        """The settings of a new session: the calibrated threshold of the ask pipeline."""
        return cls(rag_threshold=ask.final_threshold)


class SessionSettingsPatch(BaseModel):
    """A partial update of :class:`SessionSettings`; a field sent as null resets it."""

    model_config = ConfigDict(extra="forbid")

    enable_rag: bool | None = None
    rag_top_k: int | None = Field(default=None, ge=1, le=10)
    rag_threshold: float | None = Field(default=None, ge=0, le=1)
    include_citations: bool | None = None
    model: str | None = Field(default=None, min_length=1, max_length=100)
    system_prompt: str | None = Field(default=None, max_length=MAX_SYSTEM_PROMPT_CHARS)
    filters: list[str] | None = Field(default=None, max_length=20)

    @field_validator("filters")
    @classmethod
    def _filters_parse(cls, value: list[str] | None) -> list[str] | None:
        """A session keeps only filters that parse (else every message would fail)."""
        try:
            parse_filters(value or [])
        except FilterError as exc:
            raise ValueError(str(exc)) from exc
        return value

    def apply(self, current: SessionSettings, defaults: SessionSettings) -> SessionSettings:
        """``current`` with the fields that were sent; a null resets to ``defaults``."""
        changes: dict[str, Any] = {}
        for name in self.model_fields_set:
            value = getattr(self, name)
            changes[name] = getattr(defaults, name) if value is None else value
        return SessionSettings.model_validate({**current.model_dump(), **changes})


class ChatCitation(_Camel):
    """A source the answer cites: ``cid`` is the marker in the answer text (``N1``)."""

    cid: str
    note_id: str = Field(description="vault/path of the note")
    chunk_id: str
    created_at: datetime | None = None
    snippet: str
    score: float
    vault: str = ""
    path: str = Field(default="", description="the note's path inside its vault")
    section: str = Field(default="", description="heading path of the cited chunk")
    line_start: int | None = Field(default=None, description="first line of the cited text")
    line_end: int | None = Field(default=None, description="last line of the cited text")
    quote: str | None = Field(default=None, description="the line that supports the answer")
    quote_line: int | None = Field(default=None, description="its line in the note")


class RetrievalMeta(_Camel):
    """How the sources were found.

    Attributes:
        k: chunks given to the model.
        strategy: the fusion strategy, or ``none`` when retrieval was off.
        candidate_count: candidates that reached reranking.
        rerank_count: candidates whose reranked score passed the threshold.
        time_ms: wall time of retrieval, query condensing excluded.
    """

    k: int = 0
    strategy: str = "none"
    candidate_count: int = 0
    rerank_count: int = 0
    time_ms: float = 0.0


class ChatMeta(_Camel):
    """Model, retrieval figures, removed citations, the query that was searched, whether
    the answer is an abstention (the notes did not answer it) and why, and whether the client
    stopped it."""

    model: str
    retrieval: RetrievalMeta = Field(default_factory=RetrievalMeta)
    invalid_citations: int = 0
    query: str = ""
    abstained: bool = False
    abstain_reason: AbstainReason | None = None
    cancelled: bool = Field(
        default=False, description="the client stopped the turn; the answer is what was written"
    )
    prompt_tokens: int = Field(default=0, description="tokens of the prompt the model read")
    completion_tokens: int = Field(default=0, description="tokens the model wrote")


class ChatRequest(_Camel):
    """One user message; without ``session_id`` a new session is started."""

    message: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    session_id: str | None = Field(default=None, max_length=100)
    tenant_id: str | None = Field(default=None, max_length=100)
    vaults: list[str] = Field(default_factory=list)
    folders: list[str] = Field(default_factory=list)
    stream: bool = False
    detail: Detail = "normal"
    debug: bool = Field(default=False, description="add the retrieval debug to the response")
    filters: list[str] = Field(
        default_factory=list,
        max_length=20,
        description="frontmatter filters for this message, ANDed with the session's",
    )


class ChatResponse(_Camel):
    """The validated answer, the sources it cites, and how it was made."""

    answer: str
    citations: list[ChatCitation] = Field(default_factory=list)
    session_id: str
    meta: ChatMeta
    error: ErrorInfo | None = None
    debug: DebugInfo | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON body of the contract (``error`` only when something failed, ``debug``
        only when it was asked for)."""
        body: dict[str, Any] = self.model_dump(mode="json", by_alias=True)
        for optional in ("error", "debug"):
            if body[optional] is None:
                body.pop(optional)
        return body


class StoredMessage(_Camel):
    """A message of a session as kept in the store."""

    id: int
    role: Role
    content: str
    citations: list[ChatCitation] = Field(default_factory=list)
    meta: ChatMeta | None = None
    error: ErrorInfo | None = None
    created_at: datetime


class NewMessage(_Camel):
    """A message to append to a session."""

    role: Role
    content: str
    citations: list[ChatCitation] = Field(default_factory=list)
    meta: ChatMeta | None = None
    error: ErrorInfo | None = None


class ChatSession(_Camel):
    """A conversation: its title, settings and size."""

    id: str
    title: str
    settings: SessionSettings
    created_at: datetime
    updated_at: datetime
    message_count: int = 0


class SessionDetail(ChatSession):
    """A session with its messages, oldest first."""

    messages: list[StoredMessage] = Field(default_factory=list)
