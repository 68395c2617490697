"""Incremental, idempotent indexing of one vault into a store, in two phases.

Unchanged files are skipped by size and mtime, then by content hash; files gone from disk are
removed. The ``keyword`` phase parses, chunks and writes each changed note at once, in its own
transaction: when it ends every note is findable by keyword (BM25). The ``vectors`` phase then
embeds the chunk texts whose hash has no embedding yet (sentence windows first, then the
chunks, each written as soon as its batch is embedded). A note waits for vectors until every
chunk of it has one; a run that is stopped (``stop`` set, Ctrl+C) or killed keeps every note
and vector written so far, and the next run embeds what still waits.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from notecite.chunking import ChunkerConfig, chunk_note
from notecite.config import IndexSettings
from notecite.embed.base import Embedder, SpanEmbedder, Vectors
from notecite.errors import ParseError
from notecite.ingest.parse import parse_file
from notecite.ingest.progress import IndexProgress, ProgressCallback, ProgressTracker
from notecite.ingest.scan import ScanEntry, scan_vault
from notecite.store.base import NoteState, Store
from notecite.types import Chunk, FailedFile, IndexReport, NoteRecord, ParsedNote, Vault

logger = logging.getLogger(__name__)

__all__ = ["IndexProgress", "ProgressCallback", "VaultIndexer", "WrittenCallback"]

# Called after the chunks of a group of notes are embedded, with those notes and chunks.
WrittenCallback = Callable[[list[tuple[NoteRecord, list[Chunk]]]], None]

# The vectors phase embeds this many chunks' texts (and their sentence windows) at a time,
# in batches of EMBED_BATCH texts written as each is done.
_WINDOW_CHUNKS = 256
_EMBED_BATCH = 64

# What parsing and chunking make of a file: raise it whenever a change makes them write other
# text for the same bytes (a link read another way, markup left out). A note's stored hash
# carries it, so a note indexed under another value is parsed again on the next run even
# though its file did not change; chunk texts that come out the same keep their vectors.
# 5: a note's links are recorded (notes indexed before have none until parsed again).
# 6: a note with no date in its frontmatter is dated by a date in its file name.
# 7: highlights and callouts read as their words; leading "key:: value" lines as properties.
# 8: a footnote reference read with its definition.
# 9: setext headings ("Title" over "=====" or "-----") open sections.
# 10: base64 payloads (data: URIs, lines of bare base64) read as a mark or a blank line.
# 11: inline HTML for emphasis (<b>, <span>, <kbd>, <br>...) read as its words.
PARSE_VERSION = 11
_HASH_PREFIX = f"p{PARSE_VERSION}:"


LINKS_SINCE = 5
"""The first :data:`PARSE_VERSION` that records a note's links."""


def records_links(content_hash: str) -> bool:
    """Were the links of the note whose stored hash is ``content_hash`` recorded (was it
    parsed by :data:`LINKS_SINCE` or later)? A note indexed before has none until the next
    run parses it again."""
    version, _, rest = content_hash.partition(":")
    return bool(rest) and version[1:].isdigit() and int(version[1:]) >= LINKS_SINCE


def note_hash(data: bytes) -> str:
    """The stored hash of a note's file: its bytes' sha256 under :data:`PARSE_VERSION`."""
    return _HASH_PREFIX + hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class _Pending:
    record: NoteRecord
    chunks: list[Chunk]


class VaultIndexer:
    """Brings one vault's rows in the store in line with the files on disk."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        settings: IndexSettings,
        vault: Vault,
        on_written: WrittenCallback | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self._on_written = on_written
        self._store = store
        self._embedder = embedder
        self._settings = settings
        self._vault = vault
        self._stop = stop
        max_tokens = settings.chunk_max_tokens or embedder.max_tokens
        self._chunker = ChunkerConfig(
            max_tokens=min(max_tokens, embedder.max_tokens),
            overlap_tokens=settings.chunk_overlap_tokens,
            sentence_vectors=settings.sentence_vectors and store.keeps_sentence_vectors,
            late_sentences=settings.sentence_method == "late"
            and isinstance(embedder, SpanEmbedder),
        )
        self._report = IndexReport(vault=vault.name)

    def _stopped(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    def run(self, progress: ProgressCallback | None = None) -> IndexReport:
        """Index the vault; never raises for a bad file (it is recorded and skipped).

        When ``stop`` is set the run ends after the note or batch at hand, with
        ``report.interrupted`` set; everything written so far stays.
        """
        tracker = ProgressTracker.start(progress)
        model_id = self._embedder.model_id
        states = self._store.note_states(self._vault.id)
        waiting = self._store.notes_waiting_for_vectors(self._vault.id, model_id)
        entries = list(
            scan_vault(
                self._vault.path,
                self._settings.extensions,
                self._settings.ignore_dirs,
                self._settings.max_file_bytes,
            )
        )
        seen: set[str] = set()
        queued: list[_Pending] = []
        for done, entry in enumerate(entries, start=1):
            if self._stopped():
                break
            seen.add(entry.rel_path)
            pending = self._visit(entry, states.get(entry.rel_path), entry.rel_path in waiting)
            if pending is not None:
                queued.append(pending)
                tracker.notes_written = (
                    self._report.added + self._report.updated + self._report.reparsed
                )
            tracker.keyword(done, len(entries), entry.rel_path)
        if not self._stopped():
            gone = sorted(set(states) - seen)
            self._store.delete_notes(self._vault.id, gone)
            self._report.removed = sum(1 for p in gone if not states[p].failed)
            self._vectors(queued, tracker)
        self._report.interrupted = self._stopped()
        self._report.waiting_for_vectors = len(
            self._store.notes_waiting_for_vectors(self._vault.id, model_id)
        )
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

    def _visit(self, entry: ScanEntry, state: NoteState | None, waiting: bool) -> _Pending | None:
        """Write the note when it changed; the note (written, or unchanged but still waiting
        for vectors) when its chunks may need vectors, else None."""
        if entry.error:
            self._fail(entry, entry.error, state)
            return None
        indexed = state is not None and not state.failed
        current = state is not None and state.content_hash.startswith(_HASH_PREFIX)
        if (
            indexed
            and current
            and not waiting
            and state is not None
            and state.size == entry.size
            and state.mtime_ns == entry.mtime_ns
        ):
            self._report.unchanged += 1
            return None
        try:
            data = entry.path.read_bytes()
        except PermissionError:
            self._fail(entry, "permission denied", state)
            return None
        except OSError as exc:
            self._fail(entry, f"cannot read: {exc.strerror or exc}", state)
            return None
        content_hash = note_hash(data)
        same = indexed and state is not None and state.content_hash == content_hash
        if same and not waiting:
            self._store.touch_note(self._vault.id, entry.rel_path, entry.size, entry.mtime_ns)
            self._report.unchanged += 1
            return None
        mtime = datetime.fromtimestamp(entry.mtime_ns / 1e9, tz=UTC)
        try:
            note = parse_file(entry.rel_path, data, mtime)
            chunks = chunk_note(note, self._vault.name, self._embedder.count_tokens, self._chunker)
        except ParseError as exc:
            self._fail(entry, str(exc), state)
            return None
        except RecursionError:
            self._fail(entry, "note is nested too deeply to parse", state)
            return None
        except Exception as exc:  # a parser bug must cost one note, not the whole run
            logger.debug("parsing %s failed", entry.rel_path, exc_info=True)
            self._fail(entry, f"could not parse ({type(exc).__name__}); see --debug", state)
            return None
        record = _record(self._vault.id, note, content_hash, entry)
        if same:  # written by a run that stopped before its vectors: only those are left
            self._report.unchanged += 1
            if state is not None and (state.size, state.mtime_ns) != (entry.size, entry.mtime_ns):
                self._store.touch_note(self._vault.id, entry.rel_path, entry.size, entry.mtime_ns)
            return _Pending(record, chunks)
        self._store.replace_note(record, chunks)
        if indexed and not current and _same_bytes(state, content_hash):  # an older parser
            self._report.reparsed += 1
        elif indexed:
            self._report.updated += 1
        else:
            self._report.added += 1
        return _Pending(record, chunks)

    # -- vectors ----------------------------------------------------------------------------

    def _vectors(self, queued: list[_Pending], tracker: ProgressTracker) -> None:
        """Embed every chunk (and sentence window) of ``queued`` that has no vector yet."""
        total = sum(len(p.chunks) for p in queued)
        done = 0
        tracker.vectors(0, total)
        for window in _windows(queued):
            if not self._embed_window(window, tracker, done, total):
                return
            done += sum(len(p.chunks) for p in window)
            tracker.vectors(done, total)
            if self._on_written is not None:
                self._on_written([(p.record, p.chunks) for p in window])

    def _embed_window(
        self, window: list[_Pending], tracker: ProgressTracker, done: int, total: int
    ) -> bool:
        """Embed the window's missing texts: sentence windows first, then chunks (a chunk
        with sentence spans together with its sentences, in one pass), so that a chunk's
        vector is only ever written after its sentences'. False when stopped."""
        model_id = self._embedder.model_id
        chunks = {c.content_hash: c for p in window for c in p.chunks}
        texts = {h: c.embed_text for h, c in chunks.items()}
        missing = self._store.missing_embeddings(model_id, texts)
        hashes = {h for c in chunks.values() for h in c.sentence_hashes}
        missing_sentences = (
            self._store.missing_sentence_vectors(model_id, hashes) if hashes else set()
        )
        # Late chunking: a chunk with spans is embedded with its sentences in one pass when
        # its vector or any of its sentences' is missing.
        late = {
            h: c
            for h, c in chunks.items()
            if c.sentence_spans
            and (h in missing or missing_sentences.intersection(c.sentence_hashes))
        }
        sentences = {
            h: t
            for c in chunks.values()
            if not c.sentence_spans
            for h, t in zip(c.sentence_hashes, c.sentence_texts, strict=True)
            if h in missing_sentences
        }
        batches = self._batches
        work = [
            *((b, "sentences") for b in batches(sentences)),
            *((b, "late") for b in batches({h: texts[h] for h in late})),
            *((b, "chunks") for b in batches({h: texts[h] for h in missing if h not in late})),
        ]
        size = sum(len(p.chunks) for p in window)
        texts_total = max(sum(len(b) for b, _ in work), 1)
        texts_done = 0
        for batch, kind in work:
            if self._stopped():
                return False
            if kind == "late":
                self._embed_late(batch, late)
            else:
                chunk_vectors = kind == "chunks"
                put = (
                    self._store.put_embeddings
                    if chunk_vectors
                    else self._store.put_sentence_vectors
                )
                self._embed_batch(batch, put)
            texts_done += len(batch)
            if kind != "sentences":
                self._report.chunks_embedded += len(batch)
                tracker.chunks_embedded = self._report.chunks_embedded
            else:
                self._report.sentences_embedded += len(batch)
            tracker.vectors(done + size * texts_done // texts_total, total)
        if texts and self._store.embedder_info() is None:
            # Every text was cached (a rebuild): the index still records its model.
            self._store.set_embedder_info(model_id, self._embedder.dimensions)
        self._report.chunks_reused += len(texts) - len(missing)
        return True

    def _batches(self, texts: dict[str, str]) -> Iterator[list[tuple[str, str]]]:
        """(hash, text) pairs by token count, in batches of ``_EMBED_BATCH``: similar lengths
        share a batch, so that little of it is padding (character counts are a poor guide:
        with code, links or other scripts, sorting by them padded 40-50 % of a batch)."""
        items = list(texts.items())
        counts = self._embedder.count_tokens([t for _, t in items]) if items else []
        order = sorted(range(len(items)), key=counts.__getitem__)
        for start in range(0, len(order), _EMBED_BATCH):
            yield [items[i] for i in order[start : start + _EMBED_BATCH]]

    def _embed_late(self, batch: list[tuple[str, str]], chunks: dict[str, Chunk]) -> None:
        """Embed a batch of chunks with their sentence spans in one pass (late chunking);
        store the sentence vectors, then the chunk vectors."""
        embedder = self._embedder
        if not isinstance(embedder, SpanEmbedder):  # spans are only made for one
            raise TypeError(f"{self._embedder.model_id} cannot pool sentence spans")
        chosen = [chunks[h] for h, _ in batch]
        vectors, parts = embedder.embed_with_spans(
            [c.embed_text for c in chosen], [c.sentence_spans for c in chosen]
        )
        model_id = self._embedder.model_id
        if self._store.embedder_info() is None:
            self._store.set_embedder_info(model_id, int(vectors.shape[1]))
        self._store.put_sentence_vectors(
            model_id,
            {
                h: v
                for c, rows in zip(chosen, parts, strict=True)
                for h, v in zip(c.sentence_hashes, rows, strict=True)
            },
        )
        self._store.put_embeddings(
            model_id, {c.content_hash: v for c, v in zip(chosen, vectors, strict=True)}
        )
        self._report.sentences_embedded += sum(len(c.sentence_spans) for c in chosen)

    def _embed_batch(
        self, batch: list[tuple[str, str]], put: Callable[[str, Mapping[str, Vectors]], None]
    ) -> None:
        vectors = self._embedder.embed_documents([text for _, text in batch])
        model_id = self._embedder.model_id
        if self._store.embedder_info() is None:
            self._store.set_embedder_info(model_id, int(vectors.shape[1]))
        put(model_id, {h: v for (h, _), v in zip(batch, vectors, strict=True)})


def _same_bytes(state: NoteState | None, content_hash: str) -> bool:
    """Did ``state`` hash the bytes that ``content_hash`` (:func:`note_hash`) hashes, under an
    older :data:`PARSE_VERSION` or none? The sha256 after the version prefix is compared."""
    if state is None:
        return False
    return state.content_hash.rpartition(":")[2] == content_hash.rpartition(":")[2]


def _windows(queued: list[_Pending]) -> Iterator[list[_Pending]]:
    """Groups of whole notes of about ``_WINDOW_CHUNKS`` chunks."""
    window: list[_Pending] = []
    size = 0
    for pending in queued:
        window.append(pending)
        size += len(pending.chunks)
        if size >= _WINDOW_CHUNKS:
            yield window
            window, size = [], 0
    if window:
        yield window


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
        links=note.links,
    )
