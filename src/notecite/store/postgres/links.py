"""The links of notes in PostgreSQL: the ``note_links`` table (migration 10) and the queries
over it (``Store.linking_notes``, ``Store.notes_named``), as the SQLite store has them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from psycopg import sql

from notecite.store.base import LinkingLine
from notecite.store.rows import note_file_names
from notecite.types import NoteRecord

MIGRATION = """
CREATE TABLE note_links (
    tenant_id bigint NOT NULL,
    note_id bigint NOT NULL,
    target text NOT NULL,
    line integer NOT NULL,
    line_text text NOT NULL DEFAULT '',
    FOREIGN KEY (tenant_id, note_id) REFERENCES notes (tenant_id, id) ON DELETE CASCADE
);
CREATE INDEX note_links_target ON note_links (tenant_id, target);
CREATE INDEX note_links_note ON note_links (tenant_id, note_id);
"""
"""The links each note makes, written and removed with the note. Notes indexed before have
none: PARSE_VERSION 5 has the next run read them again. (Row security is added with it.)"""

# Note ``n``'s first chunk ``c`` (the filter's conditions read both), of the tenant.
_FIRST_CHUNK = (
    "JOIN chunks c ON c.tenant_id = n.tenant_id AND c.note_id = n.id AND c.chunk_index = 0 "
    "JOIN vaults v ON v.tenant_id = n.tenant_id AND v.id = n.vault_id"
)
# The chunk of note ``n`` holding line ``l.line``, else its first chunk.
_HOLDING = (
    "coalesce((SELECT h.id FROM chunks h WHERE h.tenant_id = n.tenant_id AND h.note_id = n.id "
    "AND h.line_start <= l.line AND l.line <= h.line_end ORDER BY h.chunk_index LIMIT 1), c.id)"
)
# Newest first, undated last, then by vault and path in byte order (as SQLite sorts text).
_ORDER = 'n.note_ts DESC NULLS LAST, v.name COLLATE "C", n.rel_path COLLATE "C"'


def delete_links_sql(this_note: str) -> str:
    """Delete the links of the note ``this_note`` (a subquery) selects."""
    return f"DELETE FROM note_links WHERE tenant_id = %s AND note_id = ({this_note})"


def insert_links(
    tenant_id: int, note: NoteRecord, clean: Callable[[str], str]
) -> tuple[str, tuple[object, ...]] | None:
    """The INSERT of ``note``'s links (its id from a subquery), or None when it has none;
    ``clean`` makes text fit for PostgreSQL."""
    if not note.links:
        return None
    query = (
        "INSERT INTO note_links (tenant_id, note_id, target, line, line_text) "
        "SELECT n.tenant_id, n.id, l.target, l.line, l.line_text FROM notes n, "
        "unnest(%s::text[], %s::int[], %s::text[]) AS l(target, line, line_text) "
        "WHERE n.tenant_id = %s AND n.vault_id = %s AND n.rel_path = %s"
    )
    return query, (
        [clean(link.target) for link in note.links],
        [link.line for link in note.links],
        [clean(link.line_text) for link in note.links],
        tenant_id,
        note.vault_id,
        note.rel_path,
    )


def linking_query(where: sql.Composable) -> sql.Composed:
    """The lines linking to one of the targets (``%s`` text[]) of the notes the filter
    (``where``) keeps, of the tenant (``%s``), at most ``%s``."""
    return sql.SQL(
        f"SELECT {_HOLDING}, l.line, l.line_text, l.target FROM note_links l "
        f"JOIN notes n ON n.tenant_id = l.tenant_id AND n.id = l.note_id {_FIRST_CHUNK} "
        "WHERE l.tenant_id = %s AND l.target = ANY(%s) {} "
        f"ORDER BY {_ORDER}, l.line LIMIT %s"
    ).format(where)


def linking_lines(rows: Sequence[Sequence[Any]]) -> list[LinkingLine]:
    """The rows of :func:`linking_query` as lines."""
    return [LinkingLine(int(r[0]), int(r[1]), str(r[2]), str(r[3])) for r in rows]


def named_query(
    tenant_id: int, names: Sequence[str], where: sql.Composable, params: Sequence[object]
) -> tuple[sql.Composed, list[object]]:
    """The first chunks of the notes the filter keeps whose file name or title is one of
    ``names``, newest first (the limit is the last parameter still to add)."""
    clauses = ["lower(n.title) = ANY(%s)"]
    values: list[object] = [list(names)]
    for exact, ending in note_file_names(names):
        clauses.append("lower(n.rel_path) = %s OR right(lower(n.rel_path), %s) = %s")
        values.extend([exact, len(ending), ending])
    query = sql.SQL(
        f"SELECT c.id FROM notes n {_FIRST_CHUNK} "
        f"WHERE n.tenant_id = %s AND ({' OR '.join(clauses)}) {{}} "
        f"ORDER BY {_ORDER} LIMIT %s"
    ).format(where)
    return query, [tenant_id, *values, *params]
