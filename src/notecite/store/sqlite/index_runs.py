"""When each vault was last indexed (``meta`` rows ``indexed_at:<vault id>``), and which
vaults an index run holds now (their lock files, see :mod:`.lock`)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from notecite.store.sqlite.lock import holder

_PREFIX = "indexed_at:"


def mark_indexed(conn: sqlite3.Connection, vault_id: int, finished_at: datetime) -> None:
    """Record the end of a complete run of the vault."""
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
        (f"{_PREFIX}{vault_id}", finished_at.isoformat()),
    )


def last_indexed(conn: sqlite3.Connection, vault_ids: Iterable[int]) -> dict[int, datetime]:
    """The end of the last complete run of each vault in ``vault_ids`` that has one."""
    wanted = {f"{_PREFIX}{i}": i for i in vault_ids}
    if not wanted:
        return {}
    marks = ",".join("?" * len(wanted))
    rows = conn.execute(
        f"SELECT key, value FROM meta WHERE key IN ({marks})", tuple(wanted)
    ).fetchall()
    return {wanted[key]: datetime.fromisoformat(value) for key, value in rows}


def forget(conn: sqlite3.Connection, vault_ids: Iterable[int]) -> None:
    """Forget the runs of these vaults (removed, or their index cleared)."""
    conn.executemany("DELETE FROM meta WHERE key = ?", [(f"{_PREFIX}{i}",) for i in vault_ids])


def index_holders(folder: Path, vault_ids: Iterable[int]) -> dict[int, str]:
    """The vaults among ``vault_ids`` whose index lock is held now, and by whom."""
    found = {}
    for vault_id in vault_ids:
        who = holder(folder, vault_id)
        if who is not None:
            found[vault_id] = who
    return found
