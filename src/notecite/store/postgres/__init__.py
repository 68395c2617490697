"""The server store: PostgreSQL with pgvector (``pip install 'notecite[postgres]'``).

This package imports without psycopg; :func:`create_store` says how to install it when it is
missing. The store itself is :class:`notecite.store.postgres.store.PostgresStore`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from notecite.errors import ConfigError

if TYPE_CHECKING:
    from notecite.config import StoreSettings
    from notecite.store.base import Store
    from notecite.store.query_log import QueryLog
    from notecite.store.sessions import SessionStore

INSTALL = "pip install 'notecite[postgres]'"


def _url(settings: StoreSettings) -> str:
    if settings.url is None:
        raise ConfigError(
            "store.backend = 'postgres' needs store.url, e.g. "
            "NOTECITE_STORE__URL=postgresql://user@host/dbname"
        )
    return settings.url.get_secret_value()


def _missing_psycopg(exc: ImportError) -> ConfigError:
    if not (exc.name or "").startswith("psycopg"):
        raise exc
    return ConfigError(f"the PostgreSQL store needs psycopg; run: {INSTALL}")


def create_store(settings: StoreSettings, *, tenant_id: int = 1) -> Store:
    """A :class:`PostgresStore` for ``store.url`` (it connects on first use).

    Raises:
        ConfigError: ``store.url`` is not set, or psycopg is not installed.
    """
    url = _url(settings)
    try:
        from notecite.store.postgres.store import PostgresStore
    except ImportError as exc:
        raise _missing_psycopg(exc) from exc
    return PostgresStore(url, tenant_id=tenant_id, ef_search=settings.hnsw_ef_search)


def create_session_store(settings: StoreSettings, *, tenant_id: int = 1) -> SessionStore:
    """A :class:`PostgresSessionStore` for ``store.url`` (it connects on first use).

    Raises:
        ConfigError: ``store.url`` is not set, or psycopg is not installed.
    """
    url = _url(settings)
    try:
        from notecite.store.postgres.sessions import PostgresSessionStore
    except ImportError as exc:
        raise _missing_psycopg(exc) from exc
    return PostgresSessionStore(url, tenant_id=tenant_id)


def create_query_log(settings: StoreSettings, *, tenant_id: int = 1) -> QueryLog:
    """A :class:`PostgresQueryLog` for ``store.url`` (it connects on first use).

    Raises:
        ConfigError: ``store.url`` is not set, or psycopg is not installed.
    """
    url = _url(settings)
    try:
        from notecite.store.postgres.query_log import PostgresQueryLog
    except ImportError as exc:
        raise _missing_psycopg(exc) from exc
    return PostgresQueryLog(url, tenant_id=tenant_id)


__all__ = ["INSTALL", "create_query_log", "create_session_store", "create_store"]
