"""Rows both stores share: how a failed file, a chunk read back, a dense score and a chat
message's JSON columns look, written once for SQLite and PostgreSQL alike."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, overload

from notecite.embed.base import Vectors
from notecite.errors import StoreError
from notecite.records import CitationRecord, ErrorRecord, MetaRecord, RetrievalRecord, Role
from notecite.store.base import StoredChunk
from notecite.types import NOTE_SUFFIXES, Chunk, NoteRecord


@dataclass(frozen=True)
class ExportedChunk(Chunk):
    """A chunk read back from a store for ``store migrate``: its sentence windows' texts are
    not stored, only their hashes, which it carries so that the copy lists them too."""

    stored_sentence_hashes: tuple[str, ...] = ()

    @property
    def sentence_hashes(self) -> tuple[str, ...]:
        """The stored embedding-cache keys of the chunk's sentence windows, in order."""
        return self.stored_sentence_hashes


# With sentence vectors, a vector search re-scores a pool of at least this many times its
# limit of chunks found by their own vectors (the dense score needs their sentences).
SENTENCE_POOL_FACTOR = 4

# The columns :func:`stored_chunk` reads, from chunks ``c``, notes ``n`` and vaults ``v``.
STORED_CHUNK_COLUMNS = (
    "c.id, c.chunk_id, v.name, n.rel_path, n.folder, n.title, c.heading_path, "
    "c.chunk_index, c.text, c.line_start, c.line_end, n.note_type, n.note_ts"
)


def holds_phrase(text: str, words: Sequence[str]) -> bool:
    """Does ``text`` (a frontmatter value, in lower case) hold ``words`` (lower case) in
    order, as whole words with only spaces or punctuation between them: the value ``denmark``
    or ``[[pg16-upgrade]]`` holds "Denmark" and "PG16 upgrade", ``Denmarks`` does not."""
    if not words:
        return False
    pattern = r"(?<![^\W_])" + r"[\W_]+".join(re.escape(w) for w in words) + r"(?![^\W_])"
    return re.search(pattern, text) is not None


def failure_note(vault_id: int, rel_path: str, reason: str, size: int, mtime_ns: int) -> NoteRecord:
    """The note row that ``record_failure`` keeps for a file that could not be indexed:
    its place, size and mtime, the reason, and nothing else."""
    folder = Path(rel_path).parent.as_posix()
    return NoteRecord(
        vault_id=vault_id,
        rel_path=rel_path,
        folder="" if folder == "." else folder,
        title="",
        doc_type="",
        note_type=None,
        description="",
        keywords=(),
        frontmatter={},
        created=None,
        modified=None,
        content_hash="",
        size=size,
        mtime_ns=mtime_ns,
        error=reason,
    )


def _note_date(value: datetime | float | None) -> datetime | None:
    """A note's date as stored (an epoch in SQLite, a timestamp in PostgreSQL), in UTC."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.fromtimestamp(value, tz=UTC)


def stored_chunk(row: Sequence[Any]) -> StoredChunk:
    """A :class:`StoredChunk` from a row of :data:`STORED_CHUNK_COLUMNS`."""
    return StoredChunk(
        rowid=int(row[0]),
        chunk_id=row[1],
        vault=row[2],
        rel_path=row[3],
        folder=row[4],
        title=row[5],
        heading_path=row[6],
        chunk_index=row[7],
        text=row[8],
        line_start=row[9],
        line_end=row[10],
        note_type=row[11],
        note_date=_note_date(row[12]),
    )


@overload
def dense_score(cosine: float, best_sentence: float, weight: float) -> float: ...


@overload
def dense_score(cosine: Vectors, best_sentence: Vectors, weight: float) -> Vectors: ...


def dense_score(
    cosine: float | Vectors, best_sentence: float | Vectors, weight: float
) -> float | Vectors:
    """(1 - weight) x chunk cosine + weight x best sentence cosine (the Store contract's
    dense score), of one chunk or of an array of them."""
    return (1.0 - weight) * cosine + weight * best_sentence


# -- chat messages: role, and citations, meta and error as JSON ------------------------------


def message_role(value: object) -> Role:
    """A message's role as read back.

    Raises:
        StoreError: the row holds a role no message can have.
    """
    if value not in ("user", "assistant"):
        raise StoreError(f"a chat message has the unknown role {value!r}")
    return value


def citations_json(citations: Sequence[CitationRecord]) -> list[dict[str, Any]]:
    """The citations as a JSON array (times as ISO 8601 text)."""
    rows = []
    for citation in citations:
        row = asdict(citation)
        if citation.created_at is not None:
            row["created_at"] = citation.created_at.isoformat()
        rows.append(row)
    return rows


def citations_from(rows: Sequence[Mapping[str, Any]]) -> tuple[CitationRecord, ...]:
    """The citations of a JSON array written by :func:`citations_json`."""
    found = []
    for row in rows:
        created = row.get("created_at")
        found.append(
            CitationRecord(
                **{
                    **row,
                    "created_at": datetime.fromisoformat(created) if created else None,
                }
            )
        )
    return tuple(found)


def meta_json(meta: MetaRecord) -> dict[str, Any]:
    """The meta as a JSON object."""
    return asdict(meta)


def meta_from(row: Mapping[str, Any]) -> MetaRecord:
    """The meta of a JSON object written by :func:`meta_json`."""
    retrieval = RetrievalRecord(**row.get("retrieval", {}))
    return MetaRecord(**{**row, "retrieval": retrieval})


def error_json(error: ErrorRecord) -> dict[str, Any]:
    """The error as a JSON object."""
    return asdict(error)


def error_from(row: Mapping[str, Any]) -> ErrorRecord:
    """The error of a JSON object written by :func:`error_json`."""
    return ErrorRecord(type=str(row["type"]), message=str(row["message"]))


def note_file_names(names: Sequence[str]) -> list[tuple[str, str]]:
    """For each of ``names`` (a note's name, perhaps with a path) and note suffix: the
    rel path (lower case) of a note at the vault's root so named, and the end (``/`` and
    the name) of the path of one in a folder (``Store.notes_named``)."""
    return [
        (name + suffix, "/" + name + suffix)
        for name in dict.fromkeys(n.strip("/") for n in names)
        if name
        for suffix in NOTE_SUFFIXES
    ]
