"""Connections of one tenant: a pool opened on first use, transactions that set the tenant."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg.conninfo import conninfo_to_dict
from psycopg.rows import TupleRow
from psycopg_pool import ConnectionPool

from notecite.errors import StoreError
from notecite.store.postgres.migrations import migrate

Connection = psycopg.Connection[TupleRow]


def reason(exc: psycopg.Error) -> str:
    """The server's one-line message (never its DETAIL, which can quote note text)."""
    primary = exc.diag.message_primary if exc.sqlstate else None
    if primary:
        return f"{primary} (SQLSTATE {exc.sqlstate})"
    return " ".join(str(exc).split()) or type(exc).__name__


def describe_url(url: str) -> str:
    """``user@host:port/dbname`` of a connection string, without its password."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.Error:
        return "an unparsable store.url"
    host = parts.get("host") or "localhost"
    port = f":{parts['port']}" if parts.get("port") else ""
    user = f"{parts['user']}@" if parts.get("user") else ""
    return f"{user}{host}{port}/{parts.get('dbname', '')}"


class TenantConnections:
    """A connection pool whose every transaction belongs to one tenant.

    The first use migrates the schema, records the tenant, then opens the pool. Each
    transaction starts with ``set_config('notecite.tenant_id', ..., true)``, which the
    row-level security policies read; it lasts until the transaction ends.

    Args:
        url: a libpq connection string or ``postgresql://`` URL.
        tenant_id: the tenant of every transaction.
        pool_size: the most connections the pool opens.
    """

    def __init__(self, url: str, tenant_id: int, pool_size: int) -> None:
        self.url = url
        self.tenant_id = tenant_id
        self._pool_size = pool_size
        self._lock = threading.Lock()
        self._pool: ConnectionPool[Connection] | None = None

    def _get_pool(self) -> ConnectionPool[Connection]:
        with self._lock:
            if self._pool is None:
                self._pool = self._open()
            return self._pool

    def _open(self) -> ConnectionPool[Connection]:
        try:
            with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
                migrate(conn)
                with conn.transaction():
                    self._set_tenant(conn)
                    # only this tenant's row is visible; a replica may read it, not write
                    if not conn.execute("SELECT 1 FROM tenants").fetchone():
                        conn.execute(
                            "INSERT INTO tenants (id, name) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                            (self.tenant_id, "default" if self.tenant_id == 1 else "tenant"),
                        )
            pool: ConnectionPool[Connection] = ConnectionPool(
                self.url,
                min_size=1,
                max_size=self._pool_size,
                kwargs={"autocommit": True},
                check=ConnectionPool.check_connection,
                name="notecite",
                open=False,
            )
            pool.open(wait=True, timeout=30.0)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot open the PostgreSQL index at {describe_url(self.url)}: "
                f"{reason(exc)}. Check store.url and that the server is running."
            ) from exc
        return pool

    def _set_tenant(self, conn: Connection, ef_search: int | None = None) -> None:
        if ef_search is None:
            conn.execute(
                "SELECT set_config('notecite.tenant_id', %s, true)", (str(self.tenant_id),)
            )
        else:
            conn.execute(
                "SELECT set_config('notecite.tenant_id', %s, true), "
                "set_config('hnsw.ef_search', %s, true)",
                (str(self.tenant_id), str(ef_search)),
            )

    @contextmanager
    def transaction(self, *, ef_search: int | None = None) -> Iterator[Connection]:
        """One transaction of the tenant (with ``hnsw.ef_search`` if given); database
        errors become :class:`~notecite.errors.StoreError`."""
        pool = self._get_pool()
        try:
            with pool.connection() as conn, conn.transaction():
                self._set_tenant(conn, ef_search)
                yield conn
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL: {reason(exc)}") from exc

    def close(self) -> None:
        """Close the pool; the next transaction opens a new one."""
        with self._lock:
            if self._pool is not None:
                self._pool.close()
                self._pool = None
