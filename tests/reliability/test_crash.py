"""kill -9 of real ``notecite index`` processes at random points loses nothing.

One store is indexed again and again by real subprocesses, each killed with SIGKILL at a
seeded random moment (during start-up and migration, or after a random number of write
transactions: embeddings, note writes, deletions, a ``--rebuild``); every second round the
vault changes (a quarter of the notes rewritten, some deleted, some added). After every kill
the index file must pass ``integrity_check``, every note row must hold exactly the chunks of
one version of its file (never a mix, never none), every chunk must have its full-text row
and the store must open and answer a search (a chunk may still wait for its vector: the
next run embeds it). A final uninterrupted run
must leave the same notes, chunks and counts as a clean index of the final vault.
"""

from __future__ import annotations

import random
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from notecite import Engine
from notecite.testing import hash_settings
from tests.reliability.vaults import (
    ChunkRow,
    clean_env,
    file_hashes,
    kill_hard,
    mutate_vault,
    notecite_command,
    snapshot,
    write_vault,
)

pytestmark = pytest.mark.reliability

ROUNDS = 18
NOTES = 300


def _generation(db: Path) -> int:
    """The index's write counter (bumped by every write transaction); 0 before the file."""
    if not db.exists():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.OperationalError:
        return 0
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone()
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        conn.close()
    return int(row[0]) if row else 0


def _wait_for_kill_point(
    process: subprocess.Popen[bytes], db: Path, rng: random.Random, round_: int
) -> None:
    """Sleep until a random moment of the run: during start-up in one round of six, else
    after a random number of write transactions (plus a jitter that lands inside one)."""
    if round_ % 6 == 0:
        time.sleep(rng.uniform(0.05, 1.2))
        return
    target = _generation(db) + rng.randint(1, 60)
    deadline = time.monotonic() + 60
    while process.poll() is None and time.monotonic() < deadline:
        if _generation(db) >= target:
            break
        time.sleep(0.005)
    time.sleep(rng.uniform(0, 0.02))


def _has_notes_table(db: Path) -> bool:
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30.0)
    try:
        found = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'notes'"
        ).fetchone()
    finally:
        conn.close()
    return found is not None


def _assert_consistent(
    db: Path, home: Path, expected: dict[tuple[str, str], tuple[ChunkRow, ...]]
) -> int:
    """The invariants after a kill; returns the number of notes in the index."""
    if not db.exists():
        return 0
    if not _has_notes_table(db):
        # killed during its first start-up, before the schema's first migration committed
        # (each migration is a transaction of its own): nothing was indexed, and the file is
        # whole; the next run migrates it
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30.0)
        try:
            assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        finally:
            conn.close()
        return 0
    snap = snapshot(db)
    assert snap.integrity == "ok"
    assert snap.fts_rows == snap.chunks, "a chunk without its full-text row"
    # a chunk may wait for its vector (found by keyword meanwhile); the next run embeds it
    for rel_path, (content_hash, chunks) in snap.notes.items():
        assert (rel_path, content_hash) in expected, f"{rel_path}: a hash of no version"
        assert chunks == expected[(rel_path, content_hash)], f"{rel_path} is half-indexed"
    with Engine(hash_settings(home)) as engine:
        engine.status()
        if snap.notes:
            assert engine.search("launch budget garden", k=3)
    return len(snap.notes)


def test_kill_9_at_random_points_loses_nothing(tmp_path: Path) -> None:
    rng = random.Random(20261122)
    vault = tmp_path / "vault"
    write_vault(vault, NOTES, seed=1)
    home = tmp_path / "home"
    db = home / "notecite.db"
    expected: dict[tuple[str, str], tuple[ChunkRow, ...]] = {}
    ref_settings = hash_settings(tmp_path / "reference")

    with Engine(ref_settings) as reference:
        reference.add_vault("v", vault)

        def harvest() -> None:
            reference.index("v")
            for rel_path, (content_hash, chunks) in snapshot(ref_settings.db_path).notes.items():
                expected[(rel_path, content_hash)] = chunks

        harvest()
        kills, progress = 0, []
        for round_ in range(ROUNDS):
            if round_ and round_ % 2 == 0:
                mutate_vault(vault, rng, round_)
                harvest()
            args = ["index", str(vault), "--vault", "v"]
            if round_ % 6 == 5:
                args.append("--rebuild")
            process = subprocess.Popen(
                notecite_command(home, *args),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                env=clean_env(),
            )
            _wait_for_kill_point(process, db, rng, round_)
            if kill_hard(process):
                kills += 1
            else:
                assert process.returncode == 0, process.stderr.read() if process.stderr else ""
            if process.stderr is not None:
                process.stderr.close()
            progress.append(_assert_consistent(db, home, expected))

        finished = subprocess.run(
            notecite_command(home, "index", "--vault", "v"),
            capture_output=True,
            text=True,
            env=clean_env(),
            check=False,
        )
        assert finished.returncode == 0, finished.stderr
        final, clean = snapshot(db), snapshot(ref_settings.db_path)

    print(f"kill -9: {kills} of {ROUNDS} runs killed; notes in the index after each: {progress}")
    assert kills >= ROUNDS // 2, f"only {kills} of {ROUNDS} runs were killed mid-way"
    assert 0 < min(p for p in progress if p) < NOTES, f"kills never landed mid-run: {progress}"
    assert final.integrity == "ok"
    assert final.notes == clean.notes
    assert (final.chunks, final.fts_rows, final.unembedded) == (clean.chunks, clean.chunks, 0)
    assert {path: h for path, (h, _) in final.notes.items()} == file_hashes(vault)
