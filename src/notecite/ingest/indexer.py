"""Incremental, idempotent indexing of one vault into a store.

Unchanged files are skipped by size and mtime, then by content hash; changed files are
re-chunked and only chunk texts whose hash has no embedding yet are embedded; files gone from
disk are removed. Each note is written in one transaction, so an interrupted run leaves every
note either old or new, and the next run finishes the job.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from notecite.chunking import ChunkerConfig, chunk_note
from notecite.config import IndexSettings
from notecite.embed.base import Embedder
from notecite.errors import ParseError
from notecite.ingest.parse import parse_file
from notecite.ingest.scan import ScanEntry, scan_vault
from notecite.store.base import NoteState, Store
from notecite.types import Chunk, FailedFile, IndexReport, NoteRecord, ParsedNote, Vault

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int, str], None]
# Called after each group of notes is written, with those notes and their chunks.
WrittenCallback = Callable[[list[tuple[NoteRecord, list[Chunk]]]], None]

# Notes are embedded in groups of about this many new chunks, then written one by one.
_FLUSH_CHUNKS = 256


@dataclass(frozen=True)
class _Pending:
    record: NoteRecord
    chunks: list[Chunk]
    is_new: bool


class VaultIndexer:
    """Brings one vault's rows in the store in line with the files on disk."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: IndexSettings,
        vault: Vault,
        on_written: WrittenCallback | None = None,
    ) -> None:
        self._on_written = on_written
        self._store = store
        self._embedder = embedder
        self._settings = settings
        self._vault = vault
        max_tokens = settings.chunk_max_tokens or embedder.max_tokens
        self._chunker = ChunkerConfig(
            max_tokens=min(max_tokens, embedder.max_tokens),
            overlap_tokens=settings.chunk_overlap_tokens,
            sentence_vectors=settings.sentence_vectors and store.keeps_sentence_vectors,
        )
        self._pending: list[_Pending] = []
        self._report = IndexReport(vault=vault.name)

    def run(self, progress: ProgressCallback | None = None) -> IndexReport:
        """Index the vault; never raises for a bad file (it is recorded and skipped)."""
        states = self._store.note_states(self._vault.id)
        entries = list(
            scan_vault(
                self._vault.path,
                self._settings.extensions,
                self._settings.ignore_dirs,
                self._settings.max_file_bytes,
            )
        )
        seen: set[str] = set()
        for done, entry in enumerate(entries, start=1):
            seen.add(entry.rel_path)
            self._visit(entry, states.get(entry.rel_path))
            if sum(len(p.chunks) for p in self._pending) >= _FLUSH_CHUNKS:
                self._flush()
            if progress is not None:
                progress(done, len(entries), entry.rel_path)
        self._flush()
        gone = sorted(set(states) - seen)
        self._store.delete_notes(self._vault.id, gone)
        self._report.removed = sum(1 for p in gone if not states[p].failed)
        return self._report

    def _fail(self, entry: ScanEntry, reason: str, state: NoteState | None) -> None:
        self._report.failed += 1
        self._report.failures.append(FailedFile(entry.rel_path, reason))
        logger.info("skipped %s: %s", entry.rel_path, reason)
        unchanged = (
            state is not None
            and state.failed
            and state.size == entry.size
            and state.mtime_ns == entry.mtime_ns
        )
        if not unchanged:
            self._store.record_failure(
                self._vault.id, entry.rel_path, reason, entry.size, entry.mtime_ns
            )

    def _visit(self, entry: ScanEntry, state: NoteState | None) -> None:
        if entry.error:
            self._fail(entry, entry.error, state)
            return
        if (
            state is not None
            and not state.failed
            and state.size == entry.size
            and state.mtime_ns == entry.mtime_ns
        ):
            self._report.unchanged += 1
            return
        try:
            data = entry.path.read_bytes()
        except PermissionError:
            self._fail(entry, "permission denied", state)
            return
        except OSError as exc:
            self._fail(entry, f"cannot read: {exc.strerror or exc}", state)
            return
        content_hash = hashlib.sha256(data).hexdigest()
        if state is not None and not state.failed and state.content_hash == content_hash:
            self._store.touch_note(self._vault.id, entry.rel_path, entry.size, entry.mtime_ns)
            self._report.unchanged += 1
            return
        mtime = datetime.fromtimestamp(entry.mtime_ns / 1e9, tz=UTC)
        try:
            note = parse_file(entry.rel_path, data, mtime)
            chunks = chunk_note(note, self._vault.name, self._embedder.count_tokens, self._chunker)
        except ParseError as exc:
            self._fail(entry, str(exc), state)
            return
        except RecursionError:
            self._fail(entry, "note is nested too deeply to parse", state)
            return
        except Exception as exc:  # a parser bug must cost one note, not the whole run
            logger.debug("parsing %s failed", entry.rel_path, exc_info=True)
            self._fail(entry, f"could not parse ({type(exc).__name__}); see --debug", state)
            return
        record = _record(self._vault.id, note, content_hash, entry)
        self._pending.append(_Pending(record, chunks, is_new=state is None or state.failed))

    def _embed(self, chunks: dict[str, str], sentences: dict[str, str]) -> None:
        """Embed chunk and sentence texts (content hash -> text) in one call, and store
        each kind in its place."""
        chunk_order, sentence_order = sorted(chunks), sorted(sentences)
        if not chunk_order and not sentence_order:
            return
        vectors = self._embedder.embed_documents(
            [chunks[h] for h in chunk_order] + [sentences[h] for h in sentence_order]
        )
        model_id = self._embedder.model_id
        if self._store.embedder_info() is None:
            self._store.set_embedder_info(model_id, int(vectors.shape[1]))
        split = len(chunk_order)
        self._store.put_embeddings(model_id, dict(zip(chunk_order, vectors[:split], strict=True)))
        if sentence_order:
            self._store.put_sentence_vectors(
                model_id, dict(zip(sentence_order, vectors[split:], strict=True))
            )

    def _flush(self) -> None:
        if not self._pending:
            return
        texts: dict[str, str] = {}
        sentences: dict[str, str] = {}
        for pending in self._pending:
            for chunk in pending.chunks:
                texts.setdefault(chunk.content_hash, chunk.embed_text)
                sentences.update(zip(chunk.sentence_hashes, chunk.sentence_texts, strict=True))
        model_id = self._embedder.model_id
        missing = self._store.missing_embeddings(model_id, texts)
        missing_sentences = (
            self._store.missing_sentence_vectors(model_id, sentences) if sentences else set()
        )
        self._embed({h: texts[h] for h in missing}, {h: sentences[h] for h in missing_sentences})
        if texts and self._store.embedder_info() is None:
            # Every text was cached (a rebuild): the index still records its model.
            self._store.set_embedder_info(model_id, self._embedder.dimensions)
        self._report.chunks_embedded += len(missing)
        self._report.chunks_reused += len(texts) - len(missing)
        self._report.sentences_embedded += len(missing_sentences)
        for pending in self._pending:
            self._store.replace_note(pending.record, pending.chunks)
            if pending.is_new:
                self._report.added += 1
            else:
                self._report.updated += 1
        if self._on_written is not None:
            self._on_written([(p.record, p.chunks) for p in self._pending])
        self._pending = []


def _record(vault_id: int, note: ParsedNote, content_hash: str, entry: ScanEntry) -> NoteRecord:
    return NoteRecord(
        vault_id=vault_id,
        rel_path=note.rel_path,
        folder=note.folder,
        title=note.title,
        doc_type=note.doc_type.value,
        note_type=note.note_type,
        description=note.description,
        keywords=note.keywords,
        frontmatter=note.frontmatter,
        created=note.created,
        modified=note.updated,
        content_hash=content_hash,
        size=entry.size,
        mtime_ns=entry.mtime_ns,
    )
