"""When each vault was last indexed (the tenant's ``meta`` rows ``indexed_at:<vault id>``),
and which vaults an index run holds now (their advisory locks, see :mod:`.lock`)."""

from __future__ import annotations

from datetime import datetime

from notecite.store.postgres.connection import Connection
from notecite.store.postgres.lock import holders

_PREFIX = "indexed_at:"


def mark_indexed(conn: Connection, tenant_id: int, vault_id: int, finished_at: datetime) -> None:
    """Record the end of a complete run of the vault."""
    conn.execute(
        "INSERT INTO meta (tenant_id, key, value) VALUES (%s, %s, %s) "
        "ON CONFLICT (tenant_id, key) DO UPDATE SET value = excluded.value",
        (tenant_id, f"{_PREFIX}{vault_id}", finished_at.isoformat()),
    )


def last_indexed(conn: Connection, tenant_id: int) -> dict[int, datetime]:
    """The end of the last complete run of each of the tenant's vaults that has one."""
    rows = conn.execute(
        "SELECT v.id, m.value FROM vaults v JOIN meta m ON m.tenant_id = v.tenant_id "
        "AND m.key = %s || v.id::text WHERE v.tenant_id = %s",
        (_PREFIX, tenant_id),
    ).fetchall()
    return {int(r[0]): datetime.fromisoformat(str(r[1])) for r in rows}


FORGET_SQL = "DELETE FROM meta WHERE tenant_id = %s AND key LIKE 'indexed\\_at:%%'"
"""Forget every run of the tenant (its index cleared)."""


def index_holders(conn: Connection, tenant_id: int) -> dict[int, str]:
    """The tenant's vaults whose index lock is held now, and by whom."""
    ids = [
        int(r[0]) for r in conn.execute("SELECT id FROM vaults WHERE tenant_id = %s", (tenant_id,))
    ]
    return holders(conn, ids)


__all__ = ["FORGET_SQL", "index_holders", "last_indexed", "mark_indexed"]
