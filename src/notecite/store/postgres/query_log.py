"""The query log in PostgreSQL (table ``query_log`` of migration 6, row-level security).

Turned off with ``ask.log_queries = false``; emptied with ``notecite log purge``. Each tenant
sees and purges only its own entries. A purge deletes the rows; their bytes stay in the
table's pages until ``VACUUM`` reuses them (``VACUUM FULL query_log`` rewrites the table at
once), and in WAL archives and backups until those rotate (docs/postgres.md).
"""

from __future__ import annotations

from datetime import UTC, datetime

from notecite.records import QueryLogEntry, QueryLogRecord
from notecite.store.postgres.connection import TenantConnections, describe_url


def _clean(text: str) -> str:
    # PostgreSQL text cannot hold NUL characters
    return text.replace("\x00", "\ufffd")


class PostgresQueryLog:
    """The :class:`~notecite.store.query_log.QueryLog` of the PostgreSQL store, for one tenant.

    It has its own small connection pool; every transaction sets the tenant that row-level
    security checks, and every query names it too.

    Args:
        url: a libpq connection string or ``postgresql://`` URL.
        tenant_id: the tenant whose entries this log reads and writes.
        pool_size: the most connections the pool opens.
    """

    def __init__(self, url: str, *, tenant_id: int = 1, pool_size: int = 2) -> None:
        self.tenant_id = tenant_id
        self._connections = TenantConnections(url, tenant_id, pool_size)

    def __repr__(self) -> str:
        url = describe_url(self._connections.url)
        return f"PostgresQueryLog({url!r}, tenant_id={self.tenant_id})"

    def record(self, entry: QueryLogRecord) -> None:
        """Append one question and its answer."""
        with self._connections.transaction() as conn:
            conn.execute(
                "INSERT INTO query_log (tenant_id, question, answer, abstained, refs, llm, "
                "total_ms) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (
                    self.tenant_id,
                    _clean(entry.question),
                    _clean(entry.answer),
                    entry.abstained,
                    [_clean(r) for r in entry.references],
                    _clean(entry.llm),
                    entry.total_ms,
                ),
            )

    def entries(self, limit: int = 50) -> list[QueryLogEntry]:
        """The newest ``limit`` entries, newest first."""
        with self._connections.transaction() as conn:
            rows = conn.execute(
                "SELECT id, asked_at, question, answer, abstained, refs, llm, total_ms "
                "FROM query_log WHERE tenant_id = %s ORDER BY id DESC LIMIT %s",
                (self.tenant_id, limit),
            ).fetchall()
        return [
            QueryLogEntry(
                id=int(r[0]),
                asked_at=r[1].astimezone(UTC),
                question=r[2],
                answer=r[3],
                abstained=bool(r[4]),
                references=tuple(r[5]),
                llm=r[6],
                total_ms=r[7],
            )
            for r in rows
        ]

    def purge(self, before: datetime | None = None) -> int:
        """Delete every entry of the tenant (or those asked before ``before``); return how
        many went."""
        with self._connections.transaction() as conn:
            if before is None:
                cur = conn.execute("DELETE FROM query_log WHERE tenant_id = %s", (self.tenant_id,))
            else:
                cur = conn.execute(
                    "DELETE FROM query_log WHERE tenant_id = %s AND asked_at < %s",
                    (self.tenant_id, before.astimezone(UTC)),
                )
            return cur.rowcount

    def close(self) -> None:
        """Close the pool (it reopens on next use)."""
        self._connections.close()


__all__ = ["PostgresQueryLog"]
