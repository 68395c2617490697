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

INSTALL = "pip install 'notecite[postgres]'"


def create_store(settings: StoreSettings, *, tenant_id: int = 1) -> Store:
    """A :class:`PostgresStore` for ``store.url`` (it connects on first use).

    Raises:
        ConfigError: ``store.url`` is not set, or psycopg is not installed.
    """
    if settings.url is None:
        raise ConfigError(
            "store.backend = 'postgres' needs store.url, e.g. "
            "NOTECITE_STORE__URL=postgresql://user@host/dbname"
        )
    try:
        from notecite.store.postgres.store import PostgresStore
    except ImportError as exc:
        if not (exc.name or "").startswith("psycopg"):
            raise
        raise ConfigError(f"the PostgreSQL store needs psycopg; run: {INSTALL}") from exc
    return PostgresStore(
        settings.url.get_secret_value(), tenant_id=tenant_id, ef_search=settings.hnsw_ef_search
    )


__all__ = ["INSTALL", "create_store"]
