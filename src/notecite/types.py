"""Domain types shared by every stage.

Values that flow between stages are frozen dataclasses; nothing passes ``dict[str, Any]``
between stages except frontmatter, which is user data and stays as parsed JSON.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from notecite.filters.model import Condition


class DocType(StrEnum):
    """Kind of source file a note came from."""

    MARKDOWN = "markdown"
    ORG = "org"
    TEXT = "text"
    HTML = "html"
    PDF = "pdf"


@dataclass(frozen=True)
class Vault:
    """A folder of notes registered under a name."""

    id: int
    name: str
    path: Path
    tenant_id: int = 1


NOTE_SUFFIXES = (".md", ".markdown")
"""The file suffixes of a note a link may name, and leave out (``[[pg16-upgrade]]``)."""


@dataclass(frozen=True)
class NoteLink:
    """A link a note makes to another note (:mod:`notecite.ingest.links`).

    Attributes:
        target: the note linked to, as written and read for resolution: lower case, the
            note suffix (``.md``), heading and block anchors dropped, a path kept
            (``projects/pg16-upgrade``; a markdown link's relative path resolved from the
            vault's root).
        line: the 1-based line of the file the link is on (frontmatter lines counted).
        line_text: that line as the index reads it (its wikilinks in their readable form),
            for the citation's quote.
    """

    target: str
    line: int
    line_text: str


@dataclass(frozen=True)
class Section:
    """A run of body lines under one heading path (lines are 1-based, inclusive)."""

    heading_path: tuple[str, ...]
    line_start: int
    line_end: int
    text: str


@dataclass(frozen=True)
class ParsedNote:
    """A note after parsing: metadata plus the body split into heading sections."""

    rel_path: str
    doc_type: DocType
    title: str
    description: str
    keywords: tuple[str, ...]
    note_type: str | None
    created: datetime | None
    updated: datetime | None
    frontmatter: dict[str, Any]
    sections: tuple[Section, ...]
    links: tuple[NoteLink, ...] = ()

    @property
    def folder(self) -> str:
        """Parent directory relative to the vault root ('' at the root)."""
        parent = Path(self.rel_path).parent.as_posix()
        return "" if parent == "." else parent


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of a note, with the text that is embedded for it."""

    chunk_id: str
    chunk_index: int
    heading_path: str
    text: str
    embed_text: str
    line_start: int
    line_end: int
    token_count: int
    content_hash: str
    # Texts embedded per sentence window for max-sim scoring; empty when the chunk has
    # fewer than two windows (its own vector stands for its one sentence).
    sentence_texts: tuple[str, ...] = ()
    # Late chunking: each window's character span in ``embed_text``, pooled from the chunk's
    # own forward pass instead of embedding ``sentence_texts`` apart; empty otherwise.
    sentence_spans: tuple[tuple[int, int], ...] = ()

    @property
    def sentence_hashes(self) -> tuple[str, ...]:
        """Embedding-cache keys of the sentence windows, in order: of ``sentence_texts``, or
        with late chunking of the chunk's text and each span (the vector depends on both)."""
        if self.sentence_spans:
            return tuple(
                hashlib.sha256(f"late\0{self.content_hash}\0{a}:{b}".encode()).hexdigest()
                for a, b in self.sentence_spans
            )
        return tuple(hashlib.sha256(t.encode()).hexdigest() for t in self.sentence_texts)


@dataclass(frozen=True)
class NoteRecord:
    """What the store keeps about one note file (indexed or failed)."""

    vault_id: int
    rel_path: str
    folder: str
    title: str
    doc_type: str
    note_type: str | None
    description: str
    keywords: tuple[str, ...]
    frontmatter: dict[str, Any]
    created: datetime | None
    modified: datetime | None
    content_hash: str
    size: int
    mtime_ns: int
    error: str | None = None
    # The links the note makes to other notes; written and removed with the note.
    links: tuple[NoteLink, ...] = ()


@dataclass(frozen=True)
class FailedFile:
    """A file that could not be indexed, and why."""

    rel_path: str
    reason: str


@dataclass(frozen=True)
class VaultStatus:
    """Counts and failures of one vault."""

    name: str
    path: str
    notes: int
    chunks: int
    failed: tuple[FailedFile, ...]
    # Notes found by keyword only until their chunks' vectors are computed.
    waiting_for_vectors: int = 0
    # Chunks without a vector of the index's embedding model; chunks of more than 80 words
    # (always two sentence windows or more) that list no window, as an index copied by an
    # older `store migrate` has; sentence windows listed without a vector.
    missing_vectors: int = 0
    unsplit_chunks: int = 0
    missing_sentence_vectors: int = 0
    # The end of the vault's last complete index run (None: never, or not recorded), and
    # who indexes it now ("pid 1234"), whichever process that is (None: no run).
    indexed_at: datetime | None = None
    indexing: str | None = None

    def gaps(self, sentence_vectors: bool = True) -> list[str]:
        """What the vault's chunks lack, each with the command that adds it ([] if nothing);
        ``sentence_vectors``: whether the index is configured to keep sentence vectors."""
        fix = "run `notecite index --rebuild` (cached vectors are reused)"
        found = []
        if self.missing_vectors:  # an index run embeds the notes still waiting for vectors
            found.append(f"{self.missing_vectors} chunks have no vector: run `notecite index`")
        if sentence_vectors and self.unsplit_chunks:
            found.append(f"{self.unsplit_chunks} chunks have no sentence vectors: {fix}")
        if sentence_vectors and self.missing_sentence_vectors:
            found.append(f"{self.missing_sentence_vectors} sentence windows have no vector: {fix}")
        return found


@dataclass(frozen=True)
class CacheStats:
    """Counters of one retrieval cache (query embeddings or search results)."""

    name: str
    entries: int
    max_entries: int
    hits: int
    misses: int

    @property
    def hit_rate(self) -> float:
        """Hits over lookups (0.0 before the first lookup)."""
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0


@dataclass(frozen=True)
class IndexStatus:
    """What `notecite status` reports."""

    vaults: tuple[VaultStatus, ...]
    embedder_model: str | None
    embedder_dimensions: int | None
    caches: tuple[CacheStats, ...] = ()


@dataclass
class IndexReport:
    """Outcome of one index run over one vault."""

    vault: str
    added: int = 0
    updated: int = 0
    # Notes whose files did not change, parsed again because the parser did (PARSE_VERSION).
    reparsed: int = 0
    unchanged: int = 0
    removed: int = 0
    failed: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    sentences_embedded: int = 0
    failures: list[FailedFile] = field(default_factory=list)
    # The run was stopped (Ctrl+C, SIGTERM) before it finished; what it wrote is kept.
    interrupted: bool = False
    # Notes of the vault findable by keyword only: some chunk still has no vector.
    waiting_for_vectors: int = 0

    def summary(self) -> str:
        """One line: added/updated/unchanged/removed/failed, and what still waits."""
        line = (
            f"{self.vault}: added {self.added}, updated {self.updated}, "
            f"unchanged {self.unchanged}, removed {self.removed}, failed {self.failed}"
        )
        if self.reparsed:
            line += f"; {self.reparsed} unchanged notes read again by a newer parser"
        if self.waiting_for_vectors:
            line += f"; {self.waiting_for_vectors} notes wait for vectors (keyword search only)"
        if self.interrupted:
            line += "; stopped early (every note written is kept)"
        return line


@dataclass(frozen=True)
class SearchFilter:
    """Which part of the index a search may see. Empty tuples mean no restriction."""

    vault_ids: tuple[int, ...] = ()
    folders: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    # Frontmatter conditions, all of which a note must meet (see notecite.filters).
    frontmatter: tuple[Condition, ...] = ()


@dataclass(frozen=True)
class ChunkHit:
    """A chunk found by one retrieval method, with that method's raw score."""

    chunk_rowid: int
    score: float
    # The dense score that ranked the hit when sentence vectors were mixed in (see
    # Store.vector_search); None when it is ``score``.
    dense: float | None = None

    @property
    def ranking_score(self) -> float:
        """The score the hit was ranked by: ``dense`` where set, else ``score``."""
        return self.score if self.dense is None else self.dense


@dataclass(frozen=True)
class SearchResult:
    """One chunk returned by search, with its place and its scores."""

    vault: str
    rel_path: str
    heading_path: str
    chunk_index: int
    chunk_id: str
    text: str
    title: str
    line_start: int
    line_end: int
    score_vector: float
    score_bm25: float
    score: float
    note_date: datetime | None = None
