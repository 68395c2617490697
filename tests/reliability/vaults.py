"""Generated vaults and index snapshots for the reliability tests."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from notecite.ingest.indexer import note_hash

WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "launch",
    "budget",
    "garden",
    "tomato",
    "lisbon",
    "flight",
    "meeting",
    "standup",
    "boiler",
    "plumber",
    "sourdough",
    "rye",
    "insurance",
    "premium",
    "birthday",
    "book",
    "club",
    "zephyr",
    "apollo",
    "orbit",
    "invoice",
    "dentist",
    "marta",
    "green",
    "tea",
    "kitchen",
    "sink",
    "thursday",
    "insurance",
    "renewal",
    "design",
    "team",
    "euros",
]

ChunkRow = tuple[int, str, str]
"""(chunk_index, heading_path, text) of one stored chunk."""


def note_text(rng: random.Random, number: int, version: int) -> str:
    """A markdown note with frontmatter and one to four sections of random words."""
    parts = [f"---\ntitle: Note {number} v{version}\ntags: [t{number % 5}]\n---\n# Note {number}"]
    for section in range(rng.randint(1, 4)):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(20, 260)))
        parts.append(f"## Section {section}\n\n{body}\n")
    return "\n".join(parts)


def write_vault(root: Path, notes: int, seed: int) -> None:
    """``notes`` notes in seven folders under ``root``."""
    rng = random.Random(seed)
    for number in range(notes):
        path = root / f"f{number % 7}" / f"n{number}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note_text(rng, number, 0), encoding="utf-8")


def mutate_vault(root: Path, rng: random.Random, version: int) -> None:
    """Rewrite about a quarter of the notes, delete a few, add a few."""
    files = sorted(root.rglob("*.md"))
    for path in rng.sample(files, len(files) // 4):
        path.write_text(note_text(rng, int(path.stem[1:]), version), encoding="utf-8")
    for path in rng.sample(files, 3):
        path.unlink(missing_ok=True)
    for extra in range(3):
        number = 10_000 + version * 10 + extra
        path = root / "added" / f"n{number}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(note_text(rng, number, version), encoding="utf-8")


@dataclass(frozen=True)
class Snapshot:
    """What an index file holds: each note's content hash and chunks, and the row counts."""

    notes: dict[str, tuple[str, tuple[ChunkRow, ...]]]
    chunks: int
    fts_rows: int
    unembedded: int
    integrity: str


def snapshot(db: Path, model_id: str = "hash-256") -> Snapshot:
    """Read ``db`` in one read transaction on a connection of its own, as a reader would."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30.0, isolation_level=None)
    try:
        conn.execute("BEGIN")  # one snapshot for every query below
        integrity = conn.execute("PRAGMA integrity_check").fetchone()[0]
        rows = conn.execute(
            "SELECT n.rel_path, n.content_hash, c.chunk_index, c.heading_path, c.text "
            "FROM notes n LEFT JOIN chunks c ON c.note_id = n.id WHERE n.error IS NULL "
            "ORDER BY n.rel_path, c.chunk_index"
        ).fetchall()
        notes: dict[str, tuple[str, list[ChunkRow]]] = {}
        for rel_path, content_hash, index, heading, text in rows:
            entry = notes.setdefault(rel_path, (content_hash, []))
            if index is not None:
                entry[1].append((index, heading, text))
        chunks = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        fts_rows = conn.execute(
            "SELECT COUNT(*) FROM chunks_fts f JOIN chunks c ON c.id = f.rowid"
        ).fetchone()[0]
        fts_all = conn.execute("SELECT COUNT(*) FROM chunks_fts").fetchone()[0]
        assert fts_all == fts_rows, "full-text rows without a chunk"
        unembedded = conn.execute(
            "SELECT COUNT(*) FROM chunks c LEFT JOIN embeddings e "
            "ON e.content_hash = c.content_hash AND e.model_id = ? WHERE e.vector IS NULL",
            (model_id,),
        ).fetchone()[0]
        conn.execute("COMMIT")
    finally:
        conn.close()
    return Snapshot(
        {path: (h, tuple(c)) for path, (h, c) in notes.items()},
        chunks,
        fts_rows,
        unembedded,
        integrity,
    )


def file_hashes(root: Path) -> dict[str, str]:
    """rel_path -> the stored hash (:func:`note_hash`) of every note under ``root``."""
    return {
        p.relative_to(root).as_posix(): note_hash(p.read_bytes())
        for p in sorted(root.rglob("*.md"))
    }


def notecite_command(home: Path, *args: str) -> list[str]:
    """A ``notecite`` command line on ``home`` with the hash embedder, as a real process."""
    return [sys.executable, "-m", "notecite", "--home", str(home), "--embedder", "hash", *args]


def clean_env() -> dict[str, str]:
    """The environment of the test process (NOTECITE_* already removed by the fixture)."""
    return dict(os.environ)


def kill_hard(process: subprocess.Popen[bytes]) -> bool:
    """``kill -9``; True when the process was still running."""
    if process.poll() is not None:
        return False
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    return True
