"""The Store protocol: everything the engine asks of a database."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Protocol, runtime_checkable

from notecite.embed.base import Vectors
from notecite.types import Chunk, ChunkHit, NoteRecord, SearchFilter, Vault, VaultStatus


@dataclass(frozen=True)
class NoteState:
    """What the indexer needs to decide whether a file changed."""

    content_hash: str
    size: int
    mtime_ns: int
    failed: bool


@dataclass(frozen=True)
class StoredChunk:
    """A chunk as read back for display: text, place and note metadata."""

    rowid: int
    chunk_id: str
    vault: str
    rel_path: str
    folder: str
    title: str
    heading_path: str
    chunk_index: int
    text: str
    line_start: int
    line_end: int
    note_type: str | None
    note_date: datetime | None


@dataclass(frozen=True)
class LinkingLine:
    """A line of a note that links to another (``Store.linking_notes``).

    Attributes:
        chunk_rowid: the chunk of the linking note that holds the line, or the note's first
            chunk when none does (a link in its frontmatter).
        line: the 1-based line of the linking note's file the link is on.
        line_text: that line as the index reads it.
        target: the link's target as recorded (:class:`~notecite.types.NoteLink`).
    """

    chunk_rowid: int
    line: int
    line_text: str
    target: str


@dataclass(frozen=True)
class TenantInfo:
    """A tenant: its id and name."""

    id: int
    name: str


@dataclass(frozen=True)
class StoredVector:
    """One stored embedding: the model, the content hash it is keyed by, the vector."""

    model_id: str
    content_hash: str
    vector: Vectors


@dataclass(frozen=True)
class TableCounts:
    """Rows of one tenant per table, as ``notecite store migrate`` compares them."""

    vaults: int
    notes: int
    chunks: int
    embeddings: int  # chunk vectors of the tenant's chunks
    sentence_vectors: int  # sentence-window vectors of the tenant's chunks
    sessions: int
    messages: int

    def as_dict(self) -> dict[str, int]:
        """Table name -> row count, in schema order."""
        return dict(vars(self))


class Store(Protocol):
    """Persistent index of vaults, notes, chunks and embeddings.

    Contract:
    - Vault names are unique; removing a vault removes its notes and chunks.
    - ``replace_note`` writes a note and all its chunks in one transaction: readers see the
      old note or the new one, never a mix. ``record_failure`` keeps a failed file with its
      reason and no chunks.
    - Embeddings are keyed by (model id, content hash) and outlive the chunks that used them,
      so unchanged text is never embedded twice.
    - ``embedder_info`` is the (model id, dimensions) the index was built with, or None
      before the first embedding is stored.
    - ``vector_search`` returns cosine scores (vectors are unit length) of chunks embedded
      with ``model_id``; ``lexical_search`` returns BM25 scores as positive numbers (higher
      is better). Both honour the vault, folder-prefix, date and frontmatter filter
      (``SearchFilter.frontmatter``, see :mod:`notecite.filters`), which narrows the
      candidates before they are ranked; so do ``recent_chunks`` and ``mentions``.
    - Sentence vectors (``keeps_sentence_vectors``): ``replace_note`` keeps each chunk's
      ``sentence_hashes``; their vectors are cached apart from chunk vectors
      (``put_sentence_vectors``), keyed the same way. With ``sentence_weight`` w > 0,
      ``vector_search`` ranks by the dense score (1 - w) x chunk cosine + w x best sentence
      cosine (a chunk without sentence vectors counts its own cosine as its best sentence)
      and reports it in ``ChunkHit.dense``, ``score`` staying the chunk cosine;
      ``vector_scores`` returns the dense score. A store that does not keep them treats
      every w as 0.
    - ``notes_waiting_for_vectors`` gives the rel paths of the vault's notes with a chunk
      that has no ``model_id`` embedding yet (found by keyword only until it has one).
    - ``tenant_id`` is the tenant whose rows the store reads and writes (1: the default).
    - ``recent_chunks`` gives the first chunk of each of the most recently dated notes in the
      filter, newest first; ``mentions`` gives the phrases (words in order, matched as the
      full-text index matches words) that occur in at least one chunk in the filter, or in
      a frontmatter value (a tag, an alias, a property) of a note in it.
      ``chunks_holding`` gives the chunks in the filter whose text holds one of ``marks`` as
      written (case and all); ``chunks_mentioning`` those whose text (not their title or
      headings) holds the words of ``phrase`` one after the other, as the full-text index
      reads words (in any case, accents folded, stemmed alike: "Boilers" for "boiler"); both
      newest notes first (undated last) and in note order within each, at most ``limit``.
    - Links: ``replace_note`` keeps ``note.links`` (replaced on every write, removed with the
      note). ``linking_notes`` gives the lines of the notes in the filter whose links'
      targets are one of ``targets`` (as :class:`~notecite.types.NoteLink` records them),
      newest notes first (undated last), then by vault and path (byte order), then by
      line, at most ``limit``; each with the chunk of its note that holds the line (else
      the note's first chunk), and a note with no chunk is left out. ``notes_named`` gives
      the first chunk of each note in the filter whose file name without its note suffix
      (``.md``, ``.markdown``; a name with a path matches the end of the note's path, at a
      folder), or whose title, is one of ``names`` (lower case, compared with the
      lower-cased path and title), newest first, at most ``limit``.
    """

    keeps_sentence_vectors: bool
    tenant_id: int

    def add_vault(self, name: str, path: Path) -> Vault: ...

    def get_vault(self, name: str) -> Vault | None: ...

    def list_vaults(self) -> list[Vault]: ...

    def remove_vault(self, name: str) -> None: ...

    def embedder_info(self) -> tuple[str, int] | None: ...

    def set_embedder_info(self, model_id: str, dimensions: int) -> None: ...

    def clear_index(self) -> None: ...

    def note_states(self, vault_id: int) -> dict[str, NoteState]: ...

    def touch_note(self, vault_id: int, rel_path: str, size: int, mtime_ns: int) -> None: ...

    def replace_note(self, note: NoteRecord, chunks: Sequence[Chunk]) -> None: ...

    def record_failure(
        self, vault_id: int, rel_path: str, reason: str, size: int, mtime_ns: int
    ) -> None: ...

    def delete_notes(self, vault_id: int, rel_paths: Iterable[str]) -> None: ...

    def missing_embeddings(self, model_id: str, content_hashes: Iterable[str]) -> set[str]: ...

    def put_embeddings(self, model_id: str, vectors: Mapping[str, Vectors]) -> None: ...

    def missing_sentence_vectors(
        self, model_id: str, content_hashes: Iterable[str]
    ) -> set[str]: ...

    def put_sentence_vectors(self, model_id: str, vectors: Mapping[str, Vectors]) -> None: ...

    def notes_waiting_for_vectors(self, vault_id: int, model_id: str) -> set[str]: ...

    def vector_search(
        self,
        model_id: str,
        query: Vectors,
        flt: SearchFilter,
        limit: int,
        sentence_weight: float = 0.0,
    ) -> list[ChunkHit]: ...

    def vector_scores(
        self, model_id: str, query: Vectors, rowids: Sequence[int], sentence_weight: float = 0.0
    ) -> dict[int, float]: ...

    def lexical_search(self, query: str, flt: SearchFilter, limit: int) -> list[ChunkHit]: ...

    def fetch_chunks(self, rowids: Sequence[int]) -> dict[int, StoredChunk]: ...

    def recent_chunks(self, flt: SearchFilter, limit: int) -> list[int]: ...

    def chunks_holding(self, marks: Sequence[str], flt: SearchFilter, limit: int) -> list[int]: ...

    def mentions(self, phrases: Sequence[str], flt: SearchFilter) -> set[str]: ...

    def chunks_mentioning(self, phrase: str, flt: SearchFilter, limit: int) -> list[int]: ...

    def linking_notes(
        self, targets: Sequence[str], flt: SearchFilter, limit: int
    ) -> list[LinkingLine]: ...

    def notes_named(self, names: Sequence[str], flt: SearchFilter, limit: int) -> list[int]: ...

    def vault_status(self) -> list[VaultStatus]: ...

    def folders(self, vault_id: int) -> list[str]: ...

    def close(self) -> None: ...


@runtime_checkable
class BulkLoadable(Protocol):
    """A store that loads faster when told that many writes are coming.

    ``bulk_load()`` is a context manager; the store may postpone index maintenance while it
    is open (the PostgreSQL store builds a new HNSW index once, at the end), but every read
    stays correct throughout and the index is complete when it closes.
    """

    def bulk_load(self) -> AbstractContextManager[None]: ...


@runtime_checkable
class IndexLockable(Protocol):
    """A store that can keep two index runs off one vault.

    ``index_lock(vaults, wait_s)`` is a context manager holding the index lock of each
    ``(vault id, name)``; taking one that another run (of any process) holds waits up to
    ``wait_s`` seconds, then raises :class:`~notecite.errors.IndexBusyError` naming the
    holder. A lock never outlives its holder's process.
    """

    def index_lock(
        self, vaults: Sequence[tuple[int, str]], wait_s: float
    ) -> AbstractContextManager[None]: ...


@runtime_checkable
class IndexRuns(Protocol):
    """A store that remembers when each vault was last indexed, and can say which vaults an
    index run holds now, whichever process runs it (a ``notecite index`` beside a server).

    ``mark_indexed(vault_id, finished_at)`` records the end of a complete run of the vault;
    ``last_indexed()`` maps each vault id of the store's tenant to the end of its last
    complete run (a vault never indexed completely, or since ``clear_index``, is absent);
    ``index_holders()`` maps the id of each vault of the tenant whose index lock
    (:class:`IndexLockable`) is held now to its holder (``pid 1234``, or ``unknown``).
    Looking never makes a run wait.
    """

    def mark_indexed(self, vault_id: int, finished_at: datetime) -> None: ...

    def last_indexed(self) -> dict[int, datetime]: ...

    def index_holders(self) -> dict[int, str]: ...


@runtime_checkable
class TenantStores(Protocol):
    """A store that serves named tenants of the same index.

    ``for_tenant(name)`` is a new store, opened on first use, over the vaults, notes and
    vectors of the tenant called ``name`` (created when new); the caller closes it.
    """

    def for_tenant(self, name: str) -> Store: ...


@runtime_checkable
class FrontmatterFacets(Protocol):
    """A store that can say which frontmatter values its notes hold (the scope panel's
    tag and type pickers).

    ``frontmatter_facets(vault_ids, keys)`` maps each key (lower case) to value -> number
    of notes with it, most common first, over the given vaults of the store's tenant (all of
    them when ``vault_ids`` is empty); a key no note has maps to ``{}``.
    ``chunk_fields(rowids, keys)`` maps each chunk rowid (of this tenant) to the text values
    (lower case) its note holds under each key that it has (frontmatter weights read them).
    """

    def frontmatter_facets(
        self, vault_ids: Sequence[int], keys: Sequence[str]
    ) -> dict[str, dict[str, int]]: ...

    def chunk_fields(
        self, rowids: Sequence[int], keys: Sequence[str]
    ) -> dict[int, dict[str, list[str]]]: ...


def index_lock(
    store: Store, vaults: Sequence[tuple[int, str]], wait_s: float
) -> AbstractContextManager[None]:
    """``store.index_lock(...)`` where the store has one, else a context that does nothing."""
    return store.index_lock(vaults, wait_s) if isinstance(store, IndexLockable) else nullcontext()


def mark_indexed(store: Store, vault_id: int, finished_at: datetime) -> None:
    """``store.mark_indexed(...)`` where the store keeps index times (:class:`IndexRuns`)."""
    if isinstance(store, IndexRuns):
        store.mark_indexed(vault_id, finished_at)


def index_runs(store: Store) -> tuple[dict[int, datetime], dict[int, str]]:
    """(vault id -> last complete run, vault id -> holder of a run going on now), both
    empty for a store that does not keep them."""
    if isinstance(store, IndexRuns):
        return store.last_indexed(), store.index_holders()
    return {}, {}


def bulk_load(store: Store) -> AbstractContextManager[None]:
    """``store.bulk_load()`` where the store has one, else a context that does nothing."""
    return store.bulk_load() if isinstance(store, BulkLoadable) else nullcontext()


def cosine_and_dense(
    store: Store, model_id: str, query: Vectors, rowids: Sequence[int], sentence_weight: float
) -> tuple[dict[int, float], dict[int, float]]:
    """Chunk cosine and dense score of ``rowids`` (those without a vector are absent); the
    store is asked once when ``sentence_weight`` is 0, as both are then the cosine."""
    cosine = store.vector_scores(model_id, query, rowids)
    if sentence_weight > 0 and rowids:
        return cosine, store.vector_scores(model_id, query, rowids, sentence_weight)
    return cosine, dict(cosine)
