"""Storage: the Store protocol and its backends."""

from notecite.store.base import NoteState, Store, StoredChunk

__all__ = ["NoteState", "Store", "StoredChunk"]
