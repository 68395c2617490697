"""The embedded default store: one SQLite file."""

from notecite.store.sqlite.store import SQLiteStore

__all__ = ["SQLiteStore"]
