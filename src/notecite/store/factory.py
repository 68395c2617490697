"""Open the store, the session store and the query log of the backend ``store.backend`` names.

The one place that chooses between the SQLite file and PostgreSQL; nothing connects until
first use, except that a named tenant is looked up (and created when new) at once.
"""

from __future__ import annotations

from notecite.config import Settings
from notecite.errors import ConfigError
from notecite.store import postgres
from notecite.store.base import Store, TenantStores
from notecite.store.query_log import QueryLog
from notecite.store.sessions import SessionStore
from notecite.store.sqlite.query_log import SQLiteQueryLog
from notecite.store.sqlite.sessions import SQLiteSessionStore
from notecite.store.sqlite.store import SQLiteStore


def open_store(settings: Settings, *, tenant: str | None = None) -> Store:
    """The index store of ``settings.store.backend``: the SQLite file ``settings.db_path``,
    or PostgreSQL at ``store.url``.

    Args:
        settings: the settings; ``store`` picks the backend.
        tenant: the name of the tenant whose rows the store reads and writes (created when
            new); None: the default tenant, without a lookup.

    Raises:
        ConfigError: the postgres backend has no ``store.url``, or psycopg is missing.
        StoreError: a named tenant cannot be looked up.
    """
    if settings.store.backend == "postgres":
        store = postgres.create_store(settings.store)
    else:
        store = SQLiteStore(settings.db_path)
    if tenant is None:
        return store
    try:
        if not isinstance(store, TenantStores):  # both backends serve tenants
            raise ConfigError(f"tenant {tenant!r}: this store serves only the default tenant")
        return store.for_tenant(tenant)
    finally:
        store.close()


def open_session_store(settings: Settings, store: Store) -> SessionStore:
    """The chat sessions kept beside ``store``, for its tenant, on their own connection(s);
    the caller closes it.

    Args:
        settings: the settings ``store`` was opened with.
        store: the index store (of the same backend).

    Raises:
        ConfigError: ``store`` is not of the backend ``settings`` name, or the postgres
            backend has no ``store.url`` or no psycopg.
    """
    if settings.store.backend == "postgres":
        return postgres.create_session_store(settings.store, tenant_id=store.tenant_id)
    sqlite = _sqlite(store, "the chat sessions")
    sqlite.list_vaults()  # the index connection applies the migrations before ours opens
    return SQLiteSessionStore(sqlite.path, tenant_id=sqlite.tenant_id)


def keeps_query_log(store: Store) -> bool:
    """Whether ``store`` has a query log beside it (both backends keep one; a store of
    another kind does not)."""
    return isinstance(store, SQLiteStore) or bool(getattr(store, "keeps_query_log", False))


def open_query_log(settings: Settings, store: Store) -> QueryLog:
    """The query log kept beside ``store``, for its tenant; the caller closes it.

    Raises:
        ConfigError: ``store`` is not of the backend ``settings`` name, or the postgres
            backend has no ``store.url`` or no psycopg.
    """
    if settings.store.backend == "postgres":
        if not getattr(store, "keeps_query_log", False):
            raise ConfigError(
                f"store.backend is 'postgres' but the index store is {type(store).__name__}: "
                "the query log of the postgres backend lives in its database"
            )
        return postgres.create_query_log(settings.store, tenant_id=store.tenant_id)
    sqlite = _sqlite(store, "the query log")
    return SQLiteQueryLog(sqlite.path, tenant_id=sqlite.tenant_id)


def _sqlite(store: Store, what: str) -> SQLiteStore:
    """``store`` as the SQLite store whose file also holds ``what``."""
    if not isinstance(store, SQLiteStore):
        raise ConfigError(
            f"store.backend is 'sqlite' but the index store is {type(store).__name__}: "
            f"{what} of the sqlite backend live in its SQLite file"
        )
    return store


__all__ = ["QueryLog", "keeps_query_log", "open_query_log", "open_session_store", "open_store"]
