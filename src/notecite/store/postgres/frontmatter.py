"""Frontmatter filters in PostgreSQL: JSONB columns with GIN indexes, and a condition's SQL.

Each note keeps its frontmatter flat (see :func:`notecite.filters.note_fields`) in three
JSONB columns, every key mapped to a list: ``fm_text`` (lower-case text values; a key with
none maps to ``[]``, so ``has:`` sees it), ``fm_num`` (numbers) and ``fm_ts`` (dates, epoch
seconds). Equality and ``has:`` are GIN lookups (``@>``, ``?``); a prefix or a comparison
reads the list of the notes the GIN index finds holding the key.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from psycopg.types.json import Jsonb

from notecite.filters import Condition, Op, note_fields
from notecite.filters.model import COMPARISONS
from notecite.filters.model import conditions_sql as all_conditions_sql

_SQL_OPS = {Op.GE: ">=", Op.LE: "<=", Op.GT: ">", Op.LT: "<"}

MIGRATION = """
ALTER TABLE notes ADD COLUMN fm_text jsonb NOT NULL DEFAULT '{}';
ALTER TABLE notes ADD COLUMN fm_num jsonb NOT NULL DEFAULT '{}';
ALTER TABLE notes ADD COLUMN fm_ts jsonb NOT NULL DEFAULT '{}';
CREATE INDEX notes_fm_text ON notes USING gin (fm_text);
CREATE INDEX notes_fm_num ON notes USING gin (fm_num);
CREATE INDEX notes_fm_ts ON notes USING gin (fm_ts);
"""
"""Migration 6: the columns and their GIN indexes (filled by :func:`fill_columns`)."""


def columns(frontmatter: Mapping[str, Any]) -> tuple[Jsonb, Jsonb, Jsonb]:
    """``fm_text``, ``fm_num`` and ``fm_ts`` of one note's frontmatter."""
    text: dict[str, list[str]] = {}
    number: dict[str, list[float]] = {}
    ts: dict[str, list[float]] = {}
    for field in note_fields(frontmatter):
        values = text.setdefault(field.key, [])
        if field.text is not None:
            values.append(field.text)
        if field.number is not None:
            number.setdefault(field.key, []).append(field.number)
        if field.ts is not None:
            ts.setdefault(field.key, []).append(field.ts)
    return Jsonb(text), Jsonb(number), Jsonb(ts)


def fill_columns(conn: Any) -> None:
    """Fill the columns of every note already indexed, of every tenant (migration 7)."""
    conn.execute("ALTER TABLE notes NO FORCE ROW LEVEL SECURITY")
    rows = conn.execute("SELECT tenant_id, id, frontmatter FROM notes").fetchall()
    for tenant_id, note_id, frontmatter in rows:
        if isinstance(frontmatter, dict):
            conn.execute(
                "UPDATE notes SET fm_text = %s, fm_num = %s, fm_ts = %s "
                "WHERE tenant_id = %s AND id = %s",
                (*columns(frontmatter), tenant_id, note_id),
            )
    conn.execute("ALTER TABLE notes FORCE ROW LEVEL SECURITY")


def _any_value(column: str) -> str:
    return f"jsonb_array_elements_text(n.{column} -> %s)"


def condition_sql(cond: Condition) -> tuple[str, list[object]]:
    """``AND [NOT] (...)`` for one condition on notes ``n``, with its parameters."""
    params: list[object] = []
    if cond.op in (Op.EQ, Op.NE, Op.IN, Op.NOT_IN):
        clause = " OR ".join("n.fm_text @> %s" for _ in cond.values)
        params.extend(Jsonb({cond.key: [v]}) for v in cond.values)
    elif cond.op is Op.PREFIX:
        tests = " OR ".join("t.v = %s OR starts_with(t.v, %s)" for _ in cond.values)
        clause = (
            f"n.fm_text ? %s AND EXISTS (SELECT 1 FROM {_any_value('fm_text')} t(v) WHERE {tests})"
        )
        params.extend([cond.key, cond.key])
        for prefix in cond.values:
            params.extend([prefix, prefix + "/"])
    elif cond.op in COMPARISONS and cond.bound is not None:
        column = "fm_ts" if cond.bound.is_date else "fm_num"
        clause = (
            f"n.{column} ? %s AND EXISTS (SELECT 1 FROM {_any_value(column)} t(v) "
            f"WHERE t.v::float8 {_SQL_OPS[cond.op]} %s)"
        )
        params.extend([cond.key, cond.key, cond.bound.value])
    else:  # has:, !has:
        clause = "n.fm_text ? %s"
        params.append(cond.key)
    negated = cond.op in (Op.NE, Op.NOT_IN, Op.NOT_HAS)
    return f"AND {'NOT ' if negated else ''}({clause})", params


def conditions_sql(conditions: Iterable[Condition]) -> tuple[list[str], list[object]]:
    """The clauses of every condition (all must hold) and their parameters."""
    return all_conditions_sql(conditions, condition_sql)


FACETS_SQL = (
    "SELECT f.key, t.v, count(*) FROM notes n "
    "CROSS JOIN LATERAL jsonb_each(n.fm_text) f(key, vals) "
    "CROSS JOIN LATERAL jsonb_array_elements_text(f.vals) t(v) "
    "WHERE n.tenant_id = %s AND n.error IS NULL AND f.key = ANY(%s) "
    "AND (cardinality(%s::bigint[]) = 0 OR n.vault_id = ANY(%s)) "
    "GROUP BY f.key, t.v ORDER BY 3 DESC, 2"
)
"""Value counts of keys over one tenant's notes, optionally of some vaults."""


def facet_params(tenant_id: int, vault_ids: Sequence[int], keys: Sequence[str]) -> list[object]:
    """The parameters of :data:`FACETS_SQL`."""
    return [tenant_id, list(keys), list(vault_ids), list(vault_ids)]


CHUNK_FIELDS_SQL = (
    "SELECT c.id, f.key, t.v FROM chunks c "
    "JOIN notes n ON n.tenant_id = c.tenant_id AND n.id = c.note_id "
    "CROSS JOIN LATERAL jsonb_each(n.fm_text) f(key, vals) "
    "CROSS JOIN LATERAL jsonb_array_elements_text(f.vals) t(v) "
    "WHERE c.tenant_id = %s AND c.id = ANY(%s) AND f.key = ANY(%s)"
)
"""Chunk rowid, key and each text value its note holds under the key."""
