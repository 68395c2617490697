"""The links of notes in SQLite: the ``note_links`` table and the queries over it
(``Store.linking_notes``, ``Store.notes_named``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from notecite.store.base import LinkingLine
from notecite.store.rows import note_file_names
from notecite.types import NoteLink

# Note ``n``'s first chunk ``c`` (the filter's conditions read both), of the tenant's vaults.
_FIRST_CHUNK = (
    "JOIN chunks c ON c.note_id = n.id AND c.chunk_index = 0 "
    "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ?"
)
# The chunk of note ``n`` holding line ``l.line``, else its first chunk.
_HOLDING = (
    "coalesce((SELECT h.id FROM chunks h WHERE h.note_id = n.id "
    "AND h.line_start <= l.line AND l.line <= h.line_end ORDER BY h.chunk_index LIMIT 1), c.id)"
)


def write_links(conn: sqlite3.Connection, note_id: int, links: Sequence[NoteLink]) -> None:
    """Replace the links of one note with ``links``."""
    conn.execute("DELETE FROM note_links WHERE note_id = ?", (note_id,))
    conn.executemany(
        "INSERT INTO note_links (note_id, target, line, line_text) VALUES (?, ?, ?, ?)",
        [(note_id, link.target, link.line, link.line_text) for link in links],
    )


def linking_sql(
    tenant_id: int,
    targets: Sequence[str],
    where: Sequence[str],
    params: Sequence[object],
    limit: int,
) -> tuple[str, list[object]]:
    """The lines linking to one of ``targets`` of the notes the filter (``where``,
    ``params``) keeps, newest notes first."""
    query = " ".join(
        [
            f"SELECT {_HOLDING}, l.line, l.line_text, l.target FROM note_links l",
            f"JOIN notes n ON n.id = l.note_id {_FIRST_CHUNK}",
            f"WHERE l.target IN ({','.join('?' * len(targets))})",
            *where,
            "ORDER BY n.note_ts IS NULL, n.note_ts DESC, v.name, n.rel_path, l.line LIMIT ?",
        ]
    )
    return query, [tenant_id, *targets, *params, limit]


def linking_lines(rows: Sequence[Sequence[Any]]) -> list[LinkingLine]:
    """The rows of :func:`linking_sql` as lines."""
    return [LinkingLine(int(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]


def named_sql(
    tenant_id: int,
    names: Sequence[str],
    where: Sequence[str],
    params: Sequence[object],
    limit: int,
) -> tuple[str, list[object]]:
    """The first chunks of the notes the filter keeps whose file name or title is one of
    ``names``, newest first."""
    files = note_file_names(names)
    clauses = ["lower(n.title) IN (" + ",".join("?" * len(names)) + ")"]
    values: list[object] = list(names)
    for exact, ending in files:
        clauses.append("lower(n.rel_path) = ? OR substr(lower(n.rel_path), ?) = ?")
        values.extend([exact, -len(ending), ending])
    query = " ".join(
        [
            f"SELECT c.id FROM notes n {_FIRST_CHUNK} WHERE ({' OR '.join(clauses)})",
            *where,
            "ORDER BY n.note_ts IS NULL, n.note_ts DESC, v.name, n.rel_path LIMIT ?",
        ]
    )
    return query, [tenant_id, *values, *params, limit]
