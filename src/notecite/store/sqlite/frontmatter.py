"""Frontmatter filters in SQLite: the ``note_fields`` side table and the SQL of a condition.

Each note's frontmatter is kept flat in ``note_fields`` (one row per key and value, see
:func:`notecite.filters.note_fields`), indexed by (key, text), (key, ts) and (key, number),
so that a condition is an index lookup of note ids rather than a JSON parse of every note.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from notecite.filters import Condition, Op, note_fields
from notecite.filters.model import COMPARISONS
from notecite.filters.model import conditions_sql as all_conditions_sql

_SQL_OPS = {Op.GE: ">=", Op.LE: "<=", Op.GT: ">", Op.LT: "<"}


def write_fields(conn: sqlite3.Connection, note_id: int, frontmatter: Mapping[str, Any]) -> None:
    """Replace the rows of one note with those of ``frontmatter``."""
    conn.execute("DELETE FROM note_fields WHERE note_id = ?", (note_id,))
    conn.executemany(
        "INSERT INTO note_fields (note_id, key, text, number, ts) VALUES (?, ?, ?, ?, ?)",
        [(note_id, f.key, f.text, f.number, f.ts) for f in note_fields(frontmatter)],
    )


def fill_note_fields(conn: sqlite3.Connection) -> None:
    """Rows for every note already indexed (the migration that adds the table)."""
    for note_id, raw in conn.execute("SELECT id, frontmatter FROM notes").fetchall():
        try:
            data = json.loads(raw or "{}")
        except ValueError:
            continue
        if isinstance(data, dict):
            write_fields(conn, int(note_id), data)


def condition_sql(cond: Condition) -> tuple[str, list[object]]:
    """``AND n.id [NOT] IN (...)`` for one condition on notes ``n``, with its parameters."""
    params: list[object] = [cond.key]
    where = "key = ?"
    if cond.op in (Op.EQ, Op.NE, Op.IN, Op.NOT_IN):
        where += f" AND text IN ({','.join('?' * len(cond.values))})"
        params.extend(cond.values)
    elif cond.op is Op.PREFIX:
        clauses = []
        for prefix in cond.values:
            # text = p, or p/ <= text < p0 ('0' follows '/'): a range the index serves
            clauses.append("text = ? OR (text >= ? AND text < ?)")
            params.extend([prefix, prefix + "/", prefix + "0"])
        where += " AND (" + " OR ".join(clauses) + ")"
    elif cond.op in COMPARISONS and cond.bound is not None:
        column = "ts" if cond.bound.is_date else "number"
        where += f" AND {column} {_SQL_OPS[cond.op]} ?"
        params.append(cond.bound.value)
    negated = cond.op in (Op.NE, Op.NOT_IN, Op.NOT_HAS)
    sql = (
        f"AND n.id {'NOT IN' if negated else 'IN'} (SELECT note_id FROM note_fields WHERE {where})"
    )
    return sql, params


def conditions_sql(conditions: Iterable[Condition]) -> tuple[list[str], list[object]]:
    """The clauses of every condition (all must hold) and their parameters."""
    return all_conditions_sql(conditions, condition_sql)


def chunks_meeting(conn: sqlite3.Connection, tenant_id: int, cond: Condition) -> list[int]:
    """Rowids of the tenant's chunks whose note meets ``cond``, in no order.

    Notes are reached from the condition's own lookup (``n.id IN (...)`` by rowid) and
    chunks from their note through the ``chunks_note`` index: a chunk row, text and all, is
    never read (scanning chunks took 2 s at 100k of them).
    """
    clause, params = condition_sql(cond)
    rows = conn.execute(
        "SELECT c.id FROM notes n JOIN chunks c ON c.note_id = n.id "
        f"WHERE n.vault_id IN (SELECT id FROM vaults WHERE tenant_id = ?) {clause}",
        [tenant_id, *params],
    )
    return [int(r[0]) for r in rows]


def facet_counts(
    conn: sqlite3.Connection, tenant_id: int, vault_ids: Sequence[int], keys: Sequence[str]
) -> dict[str, dict[str, int]]:
    """For each of ``keys``: value -> number of notes with it, in the given vaults (all the
    tenant's when empty)."""
    if not keys:
        return {}
    sql = (
        "SELECT f.key, f.text, COUNT(DISTINCT f.note_id) FROM note_fields f "
        "JOIN notes n ON n.id = f.note_id JOIN vaults v ON v.id = n.vault_id AND v.tenant_id = ? "
        f"WHERE f.text IS NOT NULL AND f.key IN ({','.join('?' * len(keys))})"
    )
    params: list[object] = [tenant_id, *keys]
    if vault_ids:
        sql += f" AND n.vault_id IN ({','.join('?' * len(vault_ids))})"
        params.extend(vault_ids)
    found: dict[str, dict[str, int]] = {k: {} for k in keys}
    for key, text, count in conn.execute(
        sql + " GROUP BY f.key, f.text ORDER BY 3 DESC, 2", params
    ):
        found[key][text] = int(count)
    return found


def chunk_fields(
    conn: sqlite3.Connection, tenant_id: int, rowids: Sequence[int], keys: Sequence[str]
) -> dict[int, dict[str, list[str]]]:
    """Chunk rowid -> key -> the text values its note holds (only keys it has)."""
    found: dict[int, dict[str, list[str]]] = {}
    if not rowids or not keys:
        return found
    sql = (
        "SELECT c.id, f.key, f.text FROM chunks c JOIN note_fields f ON f.note_id = c.note_id "
        "JOIN vaults v ON v.id = c.vault_id AND v.tenant_id = ? "
        f"WHERE f.text IS NOT NULL AND f.key IN ({','.join('?' * len(keys))}) AND c.id IN "
    )
    for start in range(0, len(rowids), 500):
        part = list(rowids[start : start + 500])
        params = [tenant_id, *keys, *part]
        for rowid, key, text in conn.execute(sql + f"({','.join('?' * len(part))})", params):
            found.setdefault(int(rowid), {}).setdefault(key, []).append(text)
    return found
