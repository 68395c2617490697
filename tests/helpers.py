"""Helpers shared by test modules: paths to shared data, reading an index file, a stored
chunk made by hand.

Engines, settings, vault files, scripted providers and loopback servers come from the public
:mod:`notecite.testing`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from notecite.store.base import StoredChunk

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
DENDRON_VAULT = SHARED_DATA / "vault-dendron" / "vault"
FOAM_VAULT = SHARED_DATA / "vault-foam" / "docs"

MakeVault = Callable[..., Path]
"""The ``make_vault`` fixture: ``make_vault({"a.md": "..."}, name="vault") -> Path``."""


def read_rows(db_path: Path, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]:
    """Rows of a read-only query against an index file (for checking what was stored)."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return [tuple(row) for row in conn.execute(sql, params)]
    finally:
        conn.close()


def stored_chunk(
    rowid: int, rel_path: str, heading_path: str = "", text: str = "t", vault: str = "v"
) -> StoredChunk:
    """A chunk as the store returns it, of note ``rel_path`` in ``vault``, with no date."""
    return StoredChunk(
        rowid=rowid,
        chunk_id=f"c{rowid}",
        vault=vault,
        rel_path=rel_path,
        folder="",
        title="",
        heading_path=heading_path,
        chunk_index=0,
        text=text,
        line_start=1,
        line_end=1,
        note_type=None,
        note_date=None,
    )
