"""The MCP contract: what the tools of ``notecite mcp`` (and ``/mcp``) return.

Each model is a tool's structured result; the SDK publishes its JSON schema as the tool's
output schema, and sends the same data as JSON text for clients that read only text.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from notecite.schemas.ask import AbstainReason, AskResponse, Reference
from notecite.types import SearchResult, VaultStatus

SNIPPET_CHARS = 600


def note_uri(vault: str, path: str) -> str:
    """The resource URI of a note: ``notecite://VAULT/PATH``."""
    return f"notecite://{vault}/{path}"


class SearchHit(BaseModel):
    """One matching passage of a note."""

    vault: str
    path: str = Field(description="the note's path inside its vault")
    section: str = Field(description="the heading path of the passage ('' at the top)")
    line_start: int
    line_end: int
    snippet: str = Field(description=f"the passage, whitespace folded, at most {SNIPPET_CHARS}")
    score: float = Field(description="fused relevance, higher is better")
    uri: str = Field(description="the note as an MCP resource")

    @classmethod
    def of(cls, result: SearchResult) -> SearchHit:
        """The hit of one search result."""
        text = " ".join(result.text.split())
        if len(text) > SNIPPET_CHARS:
            text = text[: SNIPPET_CHARS - 3] + "..."
        return cls(
            vault=result.vault,
            path=result.rel_path,
            section=result.heading_path,
            line_start=result.line_start,
            line_end=result.line_end,
            snippet=text,
            score=round(result.score, 4),
            uri=note_uri(result.vault, result.rel_path),
        )


class SearchResults(BaseModel):
    """The result of ``search``: passages, best first (empty when nothing matches)."""

    hits: list[SearchHit]


class Citation(BaseModel):
    """A note the answer cites, under the marker (``N1``) the answer uses for it."""

    id: str = Field(description="the marker in the answer, e.g. N1 for [N1]")
    vault: str
    path: str
    section: str
    line_start: int | None = None
    line_end: int | None = None
    quote: str | None = Field(default=None, description="the note's line supporting the claim")
    quote_line: int | None = None
    uri: str

    @classmethod
    def of(cls, reference: Reference, number: int) -> Citation:
        """The citation of one reference of an answer (``number`` names it without a cid)."""
        return cls(
            id=reference.cid or f"N{number}",
            vault=reference.vault,
            path=reference.rel_path,
            section=reference.heading_path,
            line_start=reference.line_start,
            line_end=reference.line_end,
            quote=reference.quote,
            quote_line=reference.quote_line,
            uri=note_uri(reference.vault, reference.rel_path),
        )


class Answer(BaseModel):
    """The result of ``ask``: an answer citing notes with ``[N1]`` markers, or an abstention."""

    answer: str
    references: list[Citation]
    abstained: bool = Field(description="true when the notes do not answer the question")
    abstain_reason: AbstainReason | None = None
    error: str | None = Field(default=None, description="why the language model failed, if it did")

    @classmethod
    def of(cls, response: AskResponse) -> Answer:
        """The answer of an ask response."""
        return cls(
            answer=response.answer,
            references=[Citation.of(r, n) for n, r in enumerate(response.references, start=1)],
            abstained=response.abstained,
            abstain_reason=response.abstain_reason,
            error=response.error.message if response.error is not None else None,
        )


class NoteText(BaseModel):
    """The result of ``get_note``: lines of a note, numbered from 1 as citations number them."""

    vault: str
    path: str
    start_line: int
    end_line: int = Field(description="the last line returned (inclusive)")
    total_lines: int
    text: str
    uri: str


class VaultSummary(BaseModel):
    """A vault with its indexed notes and the folders a question can be scoped to."""

    name: str
    notes: int
    chunks: int
    failed_files: int = Field(description="files the last index run could not read")
    folders: list[str] = Field(description="folders of its notes, 'a/b' form")

    @classmethod
    def of(cls, status: VaultStatus, folders: list[str]) -> VaultSummary:
        """The summary of one vault's status."""
        return cls(
            name=status.name,
            notes=status.notes,
            chunks=status.chunks,
            failed_files=len(status.failed),
            folders=folders,
        )


class VaultList(BaseModel):
    """The result of ``list_vaults``."""

    vaults: list[VaultSummary]
