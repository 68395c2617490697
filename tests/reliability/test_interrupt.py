"""Ctrl+C (SIGINT) or SIGTERM of a real ``notecite index`` keeps every note written, says
what it kept, and the next run ends with the same index as one that was never stopped.

The signal is sent once the run has printed a number of its per-note progress lines (piped
output, ``--progress-every 0``), so it lands mid-run on a loaded machine as on a quiet one.
Both stores: SQLite, and PostgreSQL from ``pgserver``.
"""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest

from notecite import Engine
from notecite.testing import hash_settings
from tests.reliability.vaults import ChunkRow, clean_env, notecite_command, snapshot, write_vault

pytestmark = pytest.mark.reliability

NOTES = 300

Index = dict[str, tuple[str, tuple[ChunkRow, ...]]]
"""rel_path -> (content hash, chunks) of every indexed note."""


def _interrupted_run(home: Path, vault: Path, env: dict[str, str], sig: int, after: int) -> str:
    """Start ``notecite index`` piped, send ``sig`` after ``after`` progress lines of the
    ``phase`` at hand; its stdout (the run must end by itself, exit 130)."""
    process = subprocess.Popen(
        notecite_command(home, "index", str(vault), "--vault", "v", "--progress-every", "0"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert process.stderr is not None
    lines = 0
    for line in process.stderr:
        if line.startswith("indexing: keyword"):
            lines += 1
        if lines == after:
            process.send_signal(sig)
            break
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert "Traceback" not in err
    assert "stopping after the note at hand" in err
    return out


def _check_resumes(
    tmp_path: Path, env: dict[str, str], read: Callable[[], tuple[Index, int]], sig: int
) -> None:
    vault = tmp_path / "vault"
    write_vault(vault, NOTES, seed=5)
    home = tmp_path / "home"
    reference = hash_settings(tmp_path / "reference")
    with Engine(reference) as engine:
        engine.add_vault("v", vault)
        engine.index("v")
    expected = snapshot(reference.db_path).notes

    out = _interrupted_run(home, vault, env, sig, after=40)
    kept, _ = read()
    assert 40 <= len(kept) < NOTES, f"{len(kept)} notes kept"
    assert all(expected[p] == kept[p] for p in kept), "a note kept half-written"
    assert f"interrupted: kept {len(kept)} notes written" in out

    resumed = subprocess.run(
        notecite_command(home, "index", "--vault", "v"),
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"added {NOTES - len(kept)}, updated 0, unchanged {len(kept)}" in resumed.stdout
    final, unembedded = read()
    assert final == expected
    assert unembedded == 0


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sqlite_interrupted_index_keeps_notes_and_resumes(tmp_path: Path, sig: int) -> None:
    def read() -> tuple[Index, int]:
        snap = snapshot(tmp_path / "home" / "notecite.db")
        return snap.notes, snap.unembedded

    _check_resumes(tmp_path, clean_env(), read, sig)


@pytest.mark.postgres
def test_postgres_interrupted_index_keeps_notes_and_resumes(pg_url: str, tmp_path: Path) -> None:
    env = {**clean_env(), "NOTECITE_STORE__BACKEND": "postgres", "NOTECITE_STORE__URL": pg_url}

    def read() -> tuple[Index, int]:
        with psycopg.connect(pg_url) as conn:  # one transaction, as the default tenant
            conn.execute("SELECT set_config('notecite.tenant_id', '1', true)")
            rows = conn.execute(
                "SELECT n.rel_path, n.content_hash, c.chunk_index, c.heading_path, c.text "
                "FROM notes n LEFT JOIN chunks c ON c.note_id = n.id WHERE n.error IS NULL "
                "ORDER BY n.rel_path, c.chunk_index"
            ).fetchall()
            unembedded = conn.execute(
                "SELECT count(*) FROM chunks c LEFT JOIN embeddings e ON "
                "e.content_hash = c.content_hash AND e.model_id = 'hash-256' WHERE e.vector IS NULL"
            ).fetchone()
        notes: dict[str, tuple[str, list[ChunkRow]]] = {}
        for rel_path, content_hash, index, heading, text in rows:
            entry = notes.setdefault(rel_path, (content_hash, []))
            if index is not None:
                entry[1].append((index, heading, text))
        return {p: (h, tuple(c)) for p, (h, c) in notes.items()}, int(
            unembedded[0] if unembedded else -1
        )

    _check_resumes(tmp_path, env, read, signal.SIGINT)
