"""Concurrent writers and readers on two stores (two pools) lose nothing and see no mix."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from notecite.store.postgres.store import PostgresStore
from notecite.types import SearchFilter
from tests.store.contract import make_chunk, make_record, unit

pytestmark = [pytest.mark.postgres, pytest.mark.reliability]

WRITERS = 6
NOTES_PER_WRITER = 20
CHUNKS_PER_NOTE = 3
MODEL = "m"


def test_concurrent_writers_and_readers(pg_url: str, tmp_path: Path) -> None:
    stores = [PostgresStore(pg_url, pool_size=4), PostgresStore(pg_url, pool_size=4)]
    vault = stores[0].add_vault("v", tmp_path)
    errors: list[BaseException] = []
    mixed: list[set[str]] = []
    writing = threading.Event()
    writing.set()

    def write(writer: int) -> None:
        store = stores[writer % 2]
        try:
            for i in range(NOTES_PER_WRITER):
                own = f"w{writer}/n{i}.md"
                chunks = [
                    make_chunk(own, k, f"note w{writer} n{i} part{k} common")
                    for k in range(CHUNKS_PER_NOTE)
                ]
                store.put_embeddings(
                    MODEL, {c.content_hash: unit(1, writer, i, k) for k, c in enumerate(chunks)}
                )
                store.replace_note(make_record(vault, own), chunks)
                # every writer also rewrites one shared note, whole
                version = f"w{writer}v{i}"
                shared = [
                    make_chunk("shared.md", k, f"sharedword {version} part{k}")
                    for k in range(CHUNKS_PER_NOTE)
                ]
                store.replace_note(make_record(vault, "shared.md", content_hash=version), shared)
        except BaseException as exc:
            errors.append(exc)

    def read(reader: int) -> None:
        store = stores[reader % 2]
        try:
            while writing.is_set():
                hits = store.lexical_search("sharedword", SearchFilter(), 10)
                texts = [c.text for c in store.fetch_chunks([h.chunk_rowid for h in hits]).values()]
                versions = {t.split()[1] for t in texts}
                if len(versions) > 1:
                    mixed.append(versions)
                store.vector_search(MODEL, unit(1, 1, 1, 1), SearchFilter(), 20)
                store.vault_status()
        except BaseException as exc:
            errors.append(exc)

    writers = [threading.Thread(target=write, args=(w,)) for w in range(WRITERS)]
    readers = [threading.Thread(target=read, args=(r,)) for r in range(3)]
    try:
        for thread in [*readers, *writers]:
            thread.start()
        for thread in writers:
            thread.join()
        writing.clear()
        for thread in readers:
            thread.join()
        assert errors == []
        assert mixed == []
        states = stores[1].note_states(vault.id)
        assert len(states) == WRITERS * NOTES_PER_WRITER + 1
        (status,) = stores[1].vault_status()
        assert status.chunks == (WRITERS * NOTES_PER_WRITER + 1) * CHUNKS_PER_NOTE
        hits = stores[1].lexical_search("sharedword", SearchFilter(), 10)
        assert len(hits) == CHUNKS_PER_NOTE
        hashes = [
            make_chunk(f"w{w}/n{i}.md", k, f"note w{w} n{i} part{k} common").content_hash
            for w in range(WRITERS)
            for i in range(NOTES_PER_WRITER)
            for k in range(CHUNKS_PER_NOTE)
        ]
        assert stores[0].missing_embeddings(MODEL, hashes) == set()
        everything = stores[0].vector_search(MODEL, unit(1, 1, 1, 1), SearchFilter(), 1000)
        assert len(everything) == WRITERS * NOTES_PER_WRITER * CHUNKS_PER_NOTE
    finally:
        writing.clear()
        for store in stores:
            store.close()
