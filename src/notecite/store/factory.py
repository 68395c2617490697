"""Open a store, a session store and a query log by backend name (provisional)."""

from __future__ import annotations

from notecite.chat.base import SessionStore
from notecite.config import Settings
from notecite.errors import ConfigError
from notecite.store.base import Store
from notecite.store.postgres import create_session_store as create_postgres_session_store
from notecite.store.postgres import create_store as create_postgres_store
from notecite.store.sqlite import SQLiteStore
from notecite.store.sqlite.query_log import SQLiteQueryLog

QueryLog = SQLiteQueryLog


def open_store(settings: Settings) -> Store:
    if settings.store.backend == "postgres":
        return create_postgres_store(settings.store)
    return SQLiteStore(settings.db_path)


def open_session_store(settings: Settings, store: Store) -> SessionStore:
    if isinstance(store, SQLiteStore):
        store.list_vaults()  # the index connection applies the migrations before ours opens
        from notecite.store.sqlite.sessions import SQLiteSessionStore

        return SQLiteSessionStore(store.path, tenant_id=store.tenant_id)
    if settings.store.backend == "postgres":
        tenant_id = getattr(store, "tenant_id", 1)
        return create_postgres_session_store(settings.store, tenant_id=tenant_id)
    raise ConfigError("chat sessions need the sqlite or the postgres store")


def open_query_log(settings: Settings, store: Store) -> QueryLog:
    if not isinstance(store, SQLiteStore):
        raise ConfigError("the query log is kept only in the SQLite store for now")
    return SQLiteQueryLog(store.path, tenant_id=store.tenant_id)


def keeps_query_log(store: Store) -> bool:
    return isinstance(store, SQLiteStore)
