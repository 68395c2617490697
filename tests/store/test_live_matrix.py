"""The SQLite store's vector matrix follows writes row by row, and always answers as a
matrix loaded afresh from the file would.

Random writes (new notes, rewritten notes with sentence windows, deletions, vectors stored
after their chunks), by the searching store itself and by a second store on the same file
(another process, as far as the file is concerned), are each followed by searches compared
with those of a store that loads everything anew.
"""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from notecite.store.sqlite import SQLiteStore
from notecite.types import Chunk, SearchFilter
from tests.store.contract import make_chunk, make_record

MODEL = "m"
DIMS = 8
FOLDERS = ["a", "a/b", "c", ""]


def _vector(rng: random.Random) -> np.ndarray:
    vec = np.asarray([rng.gauss(0, 1) for _ in range(DIMS)], dtype=np.float32)
    return (vec / np.linalg.norm(vec)).astype(np.float32)


def _embed(content_hash: str) -> np.ndarray:
    """The same vector for the same text, as any embedder gives."""
    return _vector(random.Random(content_hash))


def _chunks(rng: random.Random, rel_path: str, version: int) -> list[Chunk]:
    chunks = []
    for index in range(rng.randint(1, 3)):
        chunk = make_chunk(rel_path, index, f"{rel_path} v{version} part {index}")
        if rng.random() < 0.5:  # sentence windows, some shared between chunks
            windows = tuple(f"window {rng.randint(0, 40)}" for _ in range(rng.randint(2, 3)))
            chunk = replace(chunk, sentence_texts=windows)
        chunks.append(chunk)
    return chunks


def _write(
    store: SQLiteStore, rng: random.Random, vault_id: int, number: int, version: int
) -> None:
    vault = next(v for v in store.list_vaults() if v.id == vault_id)
    rel_path = f"{FOLDERS[number % len(FOLDERS)]}/n{number}.md".lstrip("/")
    when = datetime(2024, 1 + number % 12, 1, tzinfo=UTC)
    chunks = _chunks(rng, rel_path, version)
    store.replace_note(make_record(vault, rel_path, when=when), chunks)
    sentences = {h: _embed(h) for c in chunks for h in c.sentence_hashes}
    store.put_sentence_vectors(MODEL, sentences)
    embedded = [c for c in chunks if rng.random() < 0.85]  # some wait for their vector
    store.put_embeddings(MODEL, {c.content_hash: _embed(c.content_hash) for c in embedded})


def _same_answers(live: SQLiteStore, path: Path, rng: random.Random) -> None:
    fresh = SQLiteStore(path)
    try:
        for _ in range(4):
            query = _vector(rng)
            folder = rng.choice(["", "a", "c"])
            flt = SearchFilter(folders=(folder,) if folder else ())
            for weight in (0.0, 0.5):
                got = live.vector_search(MODEL, query, flt, 7, weight)
                want = fresh.vector_search(MODEL, query, flt, 7, weight)
                assert [h.chunk_rowid for h in got] == [h.chunk_rowid for h in want]
                assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-6)
                rowids = [h.chunk_rowid for h in want] + [10_000]
                assert live.vector_scores(MODEL, query, rowids, weight) == pytest.approx(
                    fresh.vector_scores(MODEL, query, rowids, weight), abs=1e-3
                )
    finally:
        fresh.close()


def test_the_matrix_follows_writes_of_both_stores_as_a_fresh_load_would(tmp_path: Path) -> None:
    rng = random.Random(18)
    path = tmp_path / "index.db"
    live, other = SQLiteStore(path), SQLiteStore(path)
    try:
        vault = live.add_vault("v", tmp_path)
        for number in range(200):
            _write(live, rng, vault.id, number, 0)
        _same_answers(live, path, rng)  # the first search loads the whole matrix
        base = live._vector_matrix(MODEL).base
        for step in range(12):
            writer = live if step % 2 else other
            number = rng.randrange(210)
            if step % 5 == 4:
                writer.delete_notes(
                    vault.id, [f"{FOLDERS[number % len(FOLDERS)]}/n{number}.md".lstrip("/")]
                )
            else:
                _write(writer, rng, vault.id, number, step + 1)
            if step == 7:  # a vector stored for a chunk that was written without one
                waiting = live.notes_waiting_for_vectors(vault.id, MODEL)
                assert waiting
                rows = live.conn.execute(
                    "SELECT c.content_hash FROM chunks c JOIN notes n ON n.id = c.note_id "
                    "WHERE n.rel_path = ?",
                    (sorted(waiting)[0],),
                ).fetchall()
                other.put_embeddings(MODEL, {r[0]: _embed(r[0]) for r in rows})
            _same_answers(live, path, rng)
        matrix = live._vector_matrix(MODEL)
        assert matrix.base is base, "a small write reloaded the whole matrix"
        assert matrix.delta is not None
        assert matrix.dead
    finally:
        live.close()
        other.close()


def test_a_large_change_reloads_the_matrix(tmp_path: Path) -> None:
    rng = random.Random(5)
    path = tmp_path / "index.db"
    store = SQLiteStore(path)
    try:
        vault = store.add_vault("v", tmp_path)
        for number in range(20):
            _write(store, rng, vault.id, number, 0)
        base = store._vector_matrix(MODEL).base
        for number in range(20):
            _write(store, rng, vault.id, number, 1)
        _same_answers(store, path, rng)
        assert store._vector_matrix(MODEL).base is not base
    finally:
        store.close()
