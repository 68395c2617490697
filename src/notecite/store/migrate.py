"""``notecite store migrate``: copy an index between SQLite and PostgreSQL without re-embedding.

For each tenant it copies the tenant row, the recorded embedding model, the vectors of its
chunks and of their sentence windows (never those of another tenant's chunks, which a SQLite
file shares), the vaults, notes and chunks, and the chat sessions with their messages, then
counts the rows of each table on both sides. Every step is keyed on stable identities, so a
second run copies only what changed since the first:

- vectors by (model id, content hash), only those the target lacks;
- vaults by name; notes by (vault, path), rewritten (with their chunks) only when their
  content hash, size, mtime or failure differ; notes the source no longer has are deleted;
- sessions by id (a session already in the target keeps its title and settings); messages
  are append-only, so those past the target's count are appended, with their own times.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from notecite.errors import ConfigError, EmbedderMismatchError, StoreError
from notecite.store.base import (
    IndexRuns,
    NoteState,
    Store,
    StoredVector,
    TableCounts,
    TenantInfo,
    bulk_load,
    mark_indexed,
)
from notecite.store.sessions import CopyableSessionStore
from notecite.types import Chunk, NoteRecord, Vault

logger = logging.getLogger(__name__)

Progress = Callable[[str], None]
_SESSION_PAGE = 500


class IndexExport(Protocol):
    """Reads a whole tenant out of a store, and writes what the Store protocol cannot."""

    def tenants(self) -> list[TenantInfo]: ...

    def ensure_tenant(self, tenant: TenantInfo) -> None: ...

    def notes(self, vault_id: int) -> Iterator[tuple[NoteRecord, list[Chunk]]]: ...

    def embeddings(self) -> Iterator[list[StoredVector]]: ...

    def sentence_vectors(self) -> Iterator[list[StoredVector]]: ...

    def counts(self) -> TableCounts: ...


@dataclass(frozen=True)
class Location:
    """Where an index lives: a SQLite file, or a PostgreSQL URL (kept secret)."""

    path: Path | None = None
    url: str | None = None

    @classmethod
    def parse(cls, text: str) -> Location:
        """``postgresql://...`` (or ``postgres://``) is a server; anything else a file."""
        if text.startswith(("postgresql://", "postgres://")):
            return cls(url=text)
        if "://" in text:
            raise ConfigError(
                f"unknown index location scheme in {text.split('://')[0]!r}://; "
                "give a postgresql:// URL or the path of a SQLite file"
            )
        return cls(path=Path(text).expanduser().resolve())

    def describe(self) -> str:
        """The location without a password."""
        if self.path is not None:
            return str(self.path)
        from notecite.store.postgres.connection import describe_url

        return "postgresql://" + describe_url(self.url or "")


@dataclass
class OpenIndex:
    """A tenant's index, its session store and its export, opened at one location."""

    store: Store
    sessions: CopyableSessionStore
    export: IndexExport
    tenant_id: int

    def close(self) -> None:
        """Close the session store and the index."""
        self.sessions.close()
        self.store.close()


def open_index(location: Location, tenant_id: int = 1) -> OpenIndex:
    """Open ``location`` for ``tenant_id`` (nothing connects until first use)."""
    if location.path is not None:
        from notecite.store.sqlite.export import SQLiteExport
        from notecite.store.sqlite.sessions import SQLiteSessionStore
        from notecite.store.sqlite.store import SQLiteStore

        sqlite = SQLiteStore(location.path, tenant_id=tenant_id)
        sqlite.list_vaults()  # migrates the file before the session store opens it
        sessions = SQLiteSessionStore(location.path, tenant_id=tenant_id)
        return OpenIndex(sqlite, sessions, SQLiteExport(sqlite), tenant_id)
    try:
        from notecite.store.postgres.export import PostgresExport
        from notecite.store.postgres.sessions import PostgresSessionStore
        from notecite.store.postgres.store import PostgresStore
    except ImportError as exc:
        from notecite.store.postgres import INSTALL

        raise ConfigError(f"the PostgreSQL store needs psycopg; run: {INSTALL}") from exc
    url = location.url or ""
    postgres = PostgresStore(url, tenant_id=tenant_id)
    sessions_pg = PostgresSessionStore(url, tenant_id=tenant_id)
    return OpenIndex(postgres, sessions_pg, PostgresExport(postgres), tenant_id)


@dataclass(frozen=True)
class TenantReport:
    """What one tenant's copy did, and the row counts of both sides afterwards."""

    tenant: TenantInfo
    copied: TableCounts
    source: TableCounts
    target: TableCounts

    def mismatches(self) -> list[str]:
        """Tables whose counts differ (vectors only when the target has fewer: a target
        may also hold vectors of another model for the same texts)."""
        source, target = self.source.as_dict(), self.target.as_dict()
        lenient = ("embeddings", "sentence_vectors")
        return [
            table
            for table in source
            if (target[table] < source[table])
            or (table not in lenient and target[table] != source[table])
        ]


@dataclass
class _Copied:
    vaults: int = 0
    notes: int = 0
    chunks: int = 0
    embeddings: int = 0
    sentence_vectors: int = 0
    sessions: int = 0
    messages: int = 0

    def freeze(self) -> TableCounts:
        return TableCounts(**dataclasses.asdict(self))


def migrate_index(
    source: Location,
    target: Location,
    *,
    tenants: Sequence[int] = (),
    progress: Progress | None = None,
) -> list[TenantReport]:
    """Copy ``tenants`` (default: every tenant the source shows) from ``source`` to
    ``target`` and count the rows of both; see the module docstring.

    Raises:
        ConfigError: source and target are the same place.
        EmbedderMismatchError: the target was built with another embedding model.
        StoreError: either side cannot be opened or written.
    """
    if source == target:
        raise ConfigError(f"source and target are the same index: {source.describe()}")
    say = progress or (lambda message: logger.info("%s", message))
    if not tenants:
        first = open_index(source)
        try:
            tenants = [t.id for t in first.export.tenants()]
        finally:
            first.close()
    reports = []
    for tenant_id in tenants:
        src, dst = open_index(source, tenant_id), open_index(target, tenant_id)
        try:
            reports.append(_copy_tenant(src, dst, say))
        finally:
            src.close()
            dst.close()
    return reports


def _copy_tenant(src: OpenIndex, dst: OpenIndex, say: Progress) -> TenantReport:
    known = {t.id: t for t in src.export.tenants()}
    tenant = known.get(src.tenant_id, TenantInfo(src.tenant_id, f"tenant{src.tenant_id}"))
    dst.export.ensure_tenant(tenant)
    copied = _Copied()
    info = src.store.embedder_info()
    if info is not None:
        have = dst.store.embedder_info()
        if have is not None and have != info:
            raise EmbedderMismatchError(
                f"the target index was built with {have[0]!r} ({have[1]} dimensions), the "
                f"source with {info[0]!r} ({info[1]}); migrate into an empty target"
            )
        if have is None:
            dst.store.set_embedder_info(*info)
    with bulk_load(dst.store):
        for block in src.export.embeddings():
            copied.embeddings += _copy_vectors(dst.store, block)
        for block in src.export.sentence_vectors():
            copied.sentence_vectors += _copy_vectors(dst.store, block, sentences=True)
        say(
            f"tenant {tenant.id}: {copied.embeddings} vectors, "
            f"{copied.sentence_vectors} sentence vectors copied"
        )
        for vault in src.store.list_vaults():
            say(f"tenant {tenant.id}: vault {vault.name}: {_copy_vault(src, dst, vault, copied)}")
    _copy_sessions(src.sessions, dst.sessions, copied)
    say(f"tenant {tenant.id}: {copied.sessions} sessions, {copied.messages} messages copied")
    return TenantReport(tenant, copied.freeze(), src.export.counts(), dst.export.counts())


def _copy_vectors(store: Store, block: Sequence[StoredVector], *, sentences: bool = False) -> int:
    """Put the vectors of ``block`` the target lacks (chunk vectors, or sentence vectors)."""
    by_model: dict[str, dict[str, StoredVector]] = {}
    for vector in block:
        by_model.setdefault(vector.model_id, {})[vector.content_hash] = vector
    missing_of, put = (
        (store.missing_sentence_vectors, store.put_sentence_vectors)
        if sentences
        else (store.missing_embeddings, store.put_embeddings)
    )
    copied = 0
    for model_id, vectors in by_model.items():
        missing = missing_of(model_id, vectors)
        if missing:
            put(model_id, {h: vectors[h].vector for h in sorted(missing)})
            copied += len(missing)
    return copied


def _copy_vault(src: OpenIndex, dst: OpenIndex, vault: Vault, copied: _Copied) -> str:
    """Copy one vault's notes the target lacks or has otherwise; say what was done."""
    target = dst.store.get_vault(vault.name)
    added = target is None
    if target is None:
        target = dst.store.add_vault(vault.name, vault.path)
        copied.vaults += 1
    states = dst.store.note_states(target.id)
    seen: set[str] = set()
    notes = chunk_count = 0
    for record, chunks in src.export.notes(vault.id):
        seen.add(record.rel_path)
        state = NoteState(
            record.content_hash, record.size, record.mtime_ns, record.error is not None
        )
        if states.get(record.rel_path) == state:
            continue
        dst.store.replace_note(dataclasses.replace(record, vault_id=target.id), chunks)
        notes += 1
        chunk_count += len(chunks)
    gone = set(states) - seen
    if gone:
        dst.store.delete_notes(target.id, gone)
    if isinstance(src.store, IndexRuns) and vault.id in (ended := src.store.last_indexed()):
        mark_indexed(dst.store, target.id, ended[vault.id])  # the copy is as fresh as its source
    copied.notes += notes
    copied.chunks += chunk_count
    unchanged = len(seen) - notes
    return (
        f"{'added, ' if added else ''}{notes} notes ({chunk_count} chunks) copied, "
        f"{unchanged} unchanged, {len(gone)} deleted"
    )


def _copy_sessions(src: CopyableSessionStore, dst: CopyableSessionStore, copied: _Copied) -> None:
    offset = 0
    while page := src.list_sessions(_SESSION_PAGE, offset):
        offset += len(page)
        for session in page:
            if dst.put_session(session):
                copied.sessions += 1
            messages = src.messages(session.id)
            have = len(dst.messages(session.id))
            if have > len(messages):
                raise StoreError(
                    f"chat session {session.id} has more messages in the target than in the "
                    "source; it was written to after the last migration"
                )
            if have < len(messages):
                dst.put_messages(session.id, messages[have:])
                copied.messages += len(messages) - have
