"""Bodies of the HTTP routes other than /ask (its contract is :mod:`notecite.schemas.ask`) and
/chat (:mod:`notecite.schemas.chat`). Vault, index and search bodies are snake_case like /ask;
session bodies are camelCase like /chat.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from notecite.schemas.ask import MAX_QUESTION_CHARS, ErrorInfo
from notecite.schemas.chat import MAX_TITLE_CHARS, ChatSession, SessionSettingsPatch
from notecite.types import IndexReport, SearchResult, VaultStatus


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Health(BaseModel):
    """``GET /health``."""

    status: Literal["ok"] = "ok"
    version: str
    llm: str | None = Field(default=None, description="the default LLM provider")
    model_ready: bool | None = Field(
        default=None, description="is its model loaded (null: it has no model to load)"
    )


class PageSignIn(_Body):
    """``POST /auth/session``: the API key the web page signs in with."""

    key: str = Field(min_length=1, max_length=1000)


class SearchRequest(_Body):
    """``POST /search``: the chunks that best match ``query``."""

    query: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    vaults: list[str] = Field(default_factory=list)
    folders: list[str] = Field(default_factory=list)
    k: int | None = Field(default=None, ge=1, le=200)
    filters: list[str] = Field(
        default_factory=list, max_length=20, description="frontmatter filters, all must hold"
    )

    @field_validator("query")
    @classmethod
    def _holds_words(cls, query: str) -> str:
        if not query.strip():
            raise ValueError("the query is blank: write what to look for")
        return query


class SearchHit(BaseModel):
    """One chunk found by search, with its place and scores."""

    vault: str
    rel_path: str
    heading_path: str
    chunk_index: int
    chunk_id: str
    text: str
    line_start: int
    line_end: int
    score_vector: float
    score_bm25: float
    score: float

    @classmethod
    def of(cls, result: SearchResult) -> SearchHit:
        """From the engine's search result."""
        return cls(
            vault=result.vault,
            rel_path=result.rel_path,
            heading_path=result.heading_path,
            chunk_index=result.chunk_index,
            chunk_id=result.chunk_id,
            text=result.text,
            line_start=result.line_start,
            line_end=result.line_end,
            score_vector=round(result.score_vector, 4),
            score_bm25=round(result.score_bm25, 4),
            score=round(result.score, 4),
        )


class SearchResponse(BaseModel):
    """``POST /search`` reply."""

    results: list[SearchHit]


class VaultCreate(_Body):
    """``POST /vaults``: register a folder of notes under a name."""

    name: str = Field(min_length=1, max_length=200)
    path: str = Field(min_length=1, max_length=4096)


class FailedFileOut(BaseModel):
    """A file that could not be indexed, and why."""

    rel_path: str
    reason: str


class VaultOut(BaseModel):
    """A vault with its index counts."""

    name: str
    path: str
    notes: int = 0
    chunks: int = 0
    failed: list[FailedFileOut] = Field(default_factory=list)
    indexed_at: datetime | None = Field(
        default=None, description="when the last complete index run of the vault ended"
    )
    indexing: str | None = Field(
        default=None,
        description="who indexes the vault now ('pid 1234'), this server or another process",
    )

    @classmethod
    def of(cls, status: VaultStatus) -> VaultOut:
        """From the engine's vault status."""
        return cls(
            name=status.name,
            path=status.path,
            notes=status.notes,
            chunks=status.chunks,
            failed=[FailedFileOut(rel_path=f.rel_path, reason=f.reason) for f in status.failed],
            indexed_at=status.indexed_at,
            indexing=status.indexing,
        )


class VaultList(BaseModel):
    """``GET /vaults``."""

    vaults: list[VaultOut]


class FolderList(BaseModel):
    """``GET /vaults/{name}/folders``: folders holding indexed notes, sorted."""

    vault: str
    folders: list[str]


class FrontmatterFacetsOut(BaseModel):
    """``GET /vaults/{name}/frontmatter``: the values of some frontmatter keys in the vault,
    each with the number of notes holding it, most common first (the scope panel's pickers)."""

    vault: str
    values: dict[str, dict[str, int]]


class IndexReportOut(BaseModel):
    """What one index run did."""

    added: int
    updated: int
    unchanged: int
    # unchanged files read again because the parser changed since they were indexed
    reparsed: int = 0
    removed: int
    failed: int
    chunks_embedded: int
    chunks_reused: int
    waiting_for_vectors: int = 0
    failures: list[FailedFileOut] = Field(default_factory=list)

    @classmethod
    def of(cls, report: IndexReport) -> IndexReportOut:
        """From the indexer's report."""
        return cls(
            added=report.added,
            updated=report.updated,
            unchanged=report.unchanged,
            reparsed=report.reparsed,
            removed=report.removed,
            failed=report.failed,
            chunks_embedded=report.chunks_embedded,
            chunks_reused=report.chunks_reused,
            waiting_for_vectors=report.waiting_for_vectors,
            failures=[FailedFileOut(rel_path=f.rel_path, reason=f.reason) for f in report.failures],
        )


IndexState = Literal["idle", "running", "done", "failed"]


class IndexJobOut(BaseModel):
    """The latest index run of a vault: state and progress.

    ``phase`` is ``keyword`` (notes parsed and written: ``done`` of ``total`` notes, each
    findable by keyword once written) then ``vectors`` (``done`` of ``total`` chunks
    embedded); the rates are over the run, ``eta_s`` is the phase's time left.
    """

    vault: str
    state: IndexState = "idle"
    phase: Literal["keyword", "vectors"] | None = None
    done: int = 0
    total: int | None = None
    current: str | None = None
    notes_written: int = 0
    chunks_embedded: int = 0
    notes_per_s: float = 0.0
    chunks_per_s: float = 0.0
    eta_s: float | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
    report: IndexReportOut | None = None
    error: ErrorInfo | None = None


class _CamelBody(_Body):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class SessionCreate(_CamelBody):
    """``POST /sessions``: a title and settings that differ from the defaults."""

    title: str | None = Field(default=None, max_length=MAX_TITLE_CHARS)
    settings: SessionSettingsPatch | None = None


class SessionRename(_CamelBody):
    """``PATCH /sessions/{id}``."""

    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)


class SessionList(BaseModel):
    """``GET /sessions``, most recently active first."""

    sessions: list[ChatSession]
